//! Which `nulocal!` arrays a `#[nukernel]` provably writes whole before anything reads them
//! (a check on the IR, before the emitters; see `README.md` beside this file).
//!
//! Local memory starts undefined on OpenCL, and Rust has no uninitialised reads, so every
//! engine zeroes a kernel's `nulocal!` arrays when its work-group starts. The zeroing is
//! skipped where the kernel's first act on an array, before its first barrier, is a store
//! by every work-item at its own local id: `tile[local_id(0)] = ..` or
//! `tile[(ly, lx)] = ..` with `let ly = local_id(1);`. Such a store writes every element
//! when the group is at least as large as the array along those ids, which the kernel
//! checks at launch, zeroing where it is not.
//!
//! Stage 3 of the pipeline in `lib.rs` (checks over the IR).

#[cfg(test)]
mod test;

use crate::base::ir::visit::shared::{walk_expr, walk_place, walk_stmt, Visit};
use crate::base::ir::*;
use std::collections::HashMap;
use syn::Ident;

/// A `nulocal!` array a kernel zeroes when its group starts.
#[derive(Debug, Clone)]
pub struct Zeroed {
    /// Its name.
    pub name: Ident,
    /// Its number of dims.
    pub rank: usize,
    /// How the kernel's first phase writes it whole, if it does.
    pub cover: Option<Cover>,
}

/// The `nulocal!` arrays `decls` of a kernel with body `body`, with their covers.
pub fn zeroed(body: &Block, decls: &[crate::syntax::local::LocalDecl]) -> Vec<Zeroed> {
    let names: Vec<Ident> = decls.iter().map(|d| d.name.clone()).collect();
    let covers = covers(body, &names);
    decls
        .iter()
        .zip(covers)
        .map(|(d, cover)| Zeroed {
            name: d.name.clone(),
            rank: d.dims.len(),
            cover,
        })
        .collect()
}

/// How the first write of a local array covers it: the work-item dimension of each index
/// component (`[1, 0]` for `tile[(local_id(1), local_id(0))]`).
pub type Cover = Vec<u32>;

/// For each of `locals`, its cover, if the body's statements before its first barrier store
/// it at the work-items' own local ids, unconditionally, and none of them reads it.
pub fn covers(body: &Block, locals: &[Ident]) -> Vec<Option<Cover>> {
    let mut found: HashMap<String, Cover> = HashMap::new();
    let mut spoiled: Vec<String> = Vec::new();
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut returned = false;
    for s in &body.stmts {
        let scan = Scan::of(s, locals);
        if let (false, Some((name, cover))) = (returned, store_at_ids(s, locals, &ids)) {
            found.entry(name).or_insert(cover);
        } else {
            spoiled.extend(scan.mentions.iter().cloned());
        }
        bind(s, &mut ids);
        returned |= scan.returns;
        if scan.barrier {
            break;
        }
    }
    let ok = |n: &Ident| {
        let n = n.to_string();
        found.get(&n).filter(|_| !spoiled.contains(&n)).cloned()
    };
    locals.iter().map(ok).collect()
}

/// `let x = local_id(d);` binds `x` to `d`; any other binding of a name unbinds it.
fn bind(s: &Stmt, ids: &mut HashMap<String, u32>) {
    match s {
        Stmt::Let(l) => {
            let names: Vec<String> = match &l.pat {
                Pat::Ident { name, .. } => vec![name.to_string()],
                Pat::Tuple(parts) => parts.iter().flatten().map(|p| p.0.to_string()).collect(),
            };
            for n in &names {
                ids.remove(n);
            }
            let immutable = matches!(&l.pat, Pat::Ident { mutable: false, .. });
            if let (true, Some(d)) = (immutable, l.init.as_ref().and_then(local_id)) {
                ids.insert(names[0].clone(), d);
            }
        }
        Stmt::Assign {
            place: Place::Var(v),
            ..
        } => {
            ids.remove(&v.to_string());
        }
        _ => {}
    }
}

/// `a[(ids..)] = v;` for a local array `a`, every index a distinct work-item dimension and
/// `v` not reading `a`: the array's name and cover.
fn store_at_ids(s: &Stmt, locals: &[Ident], ids: &HashMap<String, u32>) -> Option<(String, Cover)> {
    let Stmt::Assign {
        place: Place::Index { base, index },
        op: None,
        value,
        ..
    } = s
    else {
        return None;
    };
    if !locals.contains(base)
        || Scan::of_expr(value, locals)
            .mentions
            .contains(&base.to_string())
    {
        return None;
    }
    let id = |e: &Expr| match &e.kind {
        ExprKind::Var(v) => ids.get(&v.to_string()).copied(),
        _ => local_id(e),
    };
    let cover: Cover = index.iter().map(id).collect::<Option<_>>()?;
    let distinct = (0..cover.len()).all(|k| !cover[..k].contains(&cover[k]));
    distinct.then(|| (base.to_string(), cover))
}

/// `local_id(d)` for a literal `d` below 3.
fn local_id(e: &Expr) -> Option<u32> {
    let ExprKind::Call { func, args } = &e.kind else {
        return None;
    };
    match (func.is_ident("local_id"), args.as_slice()) {
        (true, [a]) => match &a.kind {
            ExprKind::Lit(Lit::Int { text, .. }) => text.parse().ok().filter(|d| *d < 3),
            _ => None,
        },
        _ => None,
    }
}

/// What one statement does that matters here.
#[derive(Default)]
struct Scan<'a> {
    locals: &'a [Ident],
    /// The local arrays it names.
    mentions: Vec<String>,
    barrier: bool,
    returns: bool,
}

impl<'a> Scan<'a> {
    fn of(s: &Stmt, locals: &'a [Ident]) -> Self {
        Scan::walking(locals, |scan| scan.visit_stmt(&s))
    }

    fn of_expr(e: &Expr, locals: &'a [Ident]) -> Self {
        Scan::walking(locals, |scan| scan.visit_expr(&e))
    }

    /// What `walk` finds, looking for `locals`.
    fn walking(locals: &'a [Ident], walk: impl FnOnce(&mut Self)) -> Self {
        let mut scan = Scan {
            locals,
            ..Scan::default()
        };
        walk(&mut scan);
        scan
    }

    fn mention(&mut self, name: &Ident) {
        if self.locals.contains(name) {
            self.mentions.push(name.to_string());
        }
    }
}

impl Visit for Scan<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        self.returns |= matches!(s, Stmt::Return(..));
        walk_stmt(self, s);
    }

    fn visit_place(&mut self, p: &Place) {
        match p {
            Place::Index { base, .. } | Place::Member { base, .. } | Place::Var(base) => {
                self.mention(&base.clone())
            }
        }
        walk_place(self, p);
    }

    fn visit_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Call { func, .. } if func.is_ident("barrier") => self.barrier = true,
            ExprKind::Index { base, .. } | ExprKind::Var(base) => self.mention(&base.clone()),
            _ => {}
        }
        walk_expr(self, e);
    }
}
