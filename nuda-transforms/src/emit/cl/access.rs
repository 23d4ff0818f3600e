//! Checked memory accesses in OpenCL C. An array element is read and written through a
//! helper made for its captured array (`nu_ld_a`, `nu_st_a`): it checks every index against
//! its dim, and out of range it touches no memory (a read gives zero, a write is skipped) and
//! records the fault. The check is compiled in only where the launch-time proof could not
//! show it always passes (`NU_C<site>`). Image writes check their coordinates the same way;
//! image reads go through the clamping sampler and are always in range.

use super::ClEmitter;
use crate::base::ir::builtins::MethodKind;
use crate::base::ir::*;
use crate::checks::phases::Phases;
use crate::checks::sites::SiteKind;
use crate::emit::template::Ph;

/// A load, store or atomic helper.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Helper {
    Load,
    /// A read of an element other work-items update atomically: the prelude's atomic load
    /// (`nu_latomic_load_..` for local memory).
    AtomicLoad(bool),
    /// A plain read of a `nulocal!` array that is updated atomically, but not between the
    /// barriers around this read (`crate::checks::phases`).
    QuietLoad,
    Store,
    /// The prelude's `nu_atomic_<op>_<type>` on the element (`nu_latomic_..` for local
    /// memory), with this many values.
    Atomic(&'static str, usize, bool),
    /// An atomic on a privatised array (`privatise.rs`): on the group's local copy where the
    /// launch privatises it, else on the array.
    Private(&'static str, usize),
}

impl ClEmitter<'_> {
    /// `a[i]` in an expression.
    pub(super) fn read(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        span: proc_macro2::Span,
    ) -> String {
        if let Some(staged) = self.staged_read(base, index, span) {
            return staged;
        }
        let idx: Vec<String> = index.iter().map(|x| self.expr(x)).collect();
        let (c, q) = self
            .env
            .site_args(SiteKind::Read, &base.to_string(), idx.len(), span);
        let f = self.helper(base, self.load(base), idx.len());
        let mut args = self.array_args(base, idx.len());
        args.extend(idx);
        args.extend([c, q, "nu_err".into()]);
        format!("{f}({})", args.join(", "))
    }

    /// `a[i] = v;` or `a[i] op= v;` as a statement. The indices are evaluated once, into
    /// temporaries, and a compound update reads and writes through the same site.
    pub(super) fn write(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        op: Option<(BinOp, Slot)>,
        value: &Expr,
        span: proc_macro2::Span,
    ) {
        let idx: Vec<String> = index.iter().map(|x| self.expr(x)).collect();
        let v = self.expr(value);
        let (c, q) = self
            .env
            .site_args(SiteKind::Write, &base.to_string(), idx.len(), span);
        let array = self.array_args(base, idx.len());
        let Some((op, slot)) = op else {
            let f = self.helper(base, Helper::Store, idx.len());
            let args = [array, idx, vec![v, c, q, "nu_err".into()]].concat();
            return self.line(format!("{f}({});", args.join(", ")));
        };
        self.line("{");
        self.indent += 1;
        let temps = self.index_temps(&idx);
        let (ld, st) = (
            self.helper(base, self.load(base), idx.len()),
            self.helper(base, Helper::Store, idx.len()),
        );
        let tail = [c, q, "nu_err".into()];
        let old_args = [array.clone(), temps.clone(), tail.to_vec()].concat();
        let old = format!("{ld}({})", old_args.join(", "));
        let new = self.update(op, slot, &old, &v, span);
        let args = [array, temps, vec![new], tail.to_vec()].concat();
        self.line(format!("{st}({});", args.join(", ")));
        self.indent -= 1;
        self.line("}");
    }

    /// How `base`'s elements are read: atomically where the kernel updates it with atomics.
    fn load(&self, base: &syn::Ident) -> Helper {
        if !self.env.analysis.atomic.contains(base) {
            return Helper::Load;
        }
        let local = self.env.analysis.is_local(base);
        let quiet = |(p, at): &(Phases, usize)| p.quiet(*at, &base.to_string());
        match local && self.phases.as_ref().is_some_and(quiet) {
            true => Helper::QuietLoad,
            false => Helper::AtomicLoad(local),
        }
    }

    /// Notes that the body's top-level statement `k` is next (`crate::checks::phases`).
    pub(super) fn at_stmt(&mut self, k: usize) {
        if let Some((_, at)) = &mut self.phases {
            *at = k;
        }
    }

    /// The indices of an update, each evaluated once into a temporary.
    pub(super) fn index_temps(&mut self, idx: &[String]) -> Vec<String> {
        idx.iter()
            .map(|i| {
                let t = self.names.fresh("nu_i");
                self.line(format!("nu_idx {t} = {i};"));
                t
            })
            .collect()
    }

    /// `old op v` for a compound assignment of slot `slot`'s type.
    pub(super) fn update(
        &mut self,
        op: BinOp,
        slot: Slot,
        old: &str,
        v: &str,
        span: proc_macro2::Span,
    ) -> String {
        let name = super::expr::op_name(op).unwrap_or("add");
        match op {
            BinOp::Div | BinOp::Rem => {
                let kind = if op == BinOp::Div {
                    SiteKind::Divide
                } else {
                    SiteKind::Remainder
                };
                let (c, q) = self.env.site_args(kind, "", 0, span);
                Ph::op(slot, name, &[old, v, &c, &q])
            }
            _ => Ph::op(slot, name, &[old, v]),
        }
    }

    /// The kernel arguments that stand for captured array `base`: pointer, then its dims.
    pub(super) fn array_args(&self, base: &syn::Ident, rank: usize) -> Vec<String> {
        let b = self.var(base);
        let mut v = vec![b.clone()];
        v.extend((0..rank).map(|k| format!("{b}__d{k}")));
        v
    }

    /// The name of the load or store helper of `base`, made on first use.
    pub(super) fn helper(&self, base: &syn::Ident, h: Helper, rank: usize) -> String {
        let b = self.var(base);
        let name = match h {
            Helper::Load | Helper::AtomicLoad(_) => format!("nu_ld_{b}"),
            // `rd` is no operation's name, so no other helper's prefix.
            Helper::QuietLoad => format!("nu_rd_{b}"),
            Helper::Store => format!("nu_st_{b}"),
            Helper::Atomic(op, ..) => format!("nu_{op}_{b}"),
            // `p` + an operation is no other helper's prefix (`ld`, `st`, the operations).
            Helper::Private(op, _) => format!("nu_p{op}_{b}"),
        };
        let fill = self.env.capture_fill(base).unwrap_or_default();
        self.env
            .shared
            .helper(&name, || helper_text(&name, &b, fill, h, rank));
        name
    }

    /// `.dims()`, `.len()`, `img.read(x, y)`, `img.write(x, y, v)`.
    pub(super) fn memory_method(
        &mut self,
        recv: &Expr,
        kind: MethodKind,
        args: &[Expr],
        span: proc_macro2::Span,
    ) -> String {
        let ExprKind::Var(name) = &recv.kind else {
            return String::new();
        };
        if let Some(op) = kind.atomic_op() {
            if self.lanes.is_some() {
                let msg = "an atomic, which would run once for all lanes";
                return self.lane_error(span, msg);
            }
            return self.atomic(name, op, args, span);
        }
        if kind == MethodKind::Read {
            if let Some(c) = self.merged_read(args) {
                return c;
            }
        }
        let b = self.var(name);
        let fill = self.env.capture_fill(name).unwrap_or_default();
        let a: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
        let ch = Ph::channels(fill);
        match kind {
            MethodKind::Dims => format!("{b}__d0"),
            MethodKind::Len => Ph::len(fill, &b),
            MethodKind::Read => format!("nu_read{ch}({b}, (int)({}), (int)({}))", a[0], a[1]),
            MethodKind::Write => {
                let (c, q) = self
                    .env
                    .site_args(SiteKind::ImageWrite, &name.to_string(), 2, span);
                format!(
                    "nu_write{ch}({b}, {b}__d0, {b}__d1, (int)({}), (int)({}), {}, {c}, {q}, nu_err)",
                    a[0], a[1], a[2]
                )
            }
            _ => String::new(),
        }
    }
}

impl ClEmitter<'_> {
    /// `a.atomic_<op>(index, values..)`: through a checked helper, like `a[i]`, whose hit
    /// calls the prelude's atomic for the element type.
    fn atomic(
        &mut self,
        base: &syn::Ident,
        op: &'static str,
        args: &[Expr],
        span: proc_macro2::Span,
    ) -> String {
        let (index, values) = atomic_args(args);
        let idx: Vec<String> = index.iter().map(|x| self.expr(x)).collect();
        let vals: Vec<String> = values.iter().map(|x| self.expr(x)).collect();
        let (c, q) = self
            .env
            .site_args(SiteKind::Write, &base.to_string(), idx.len(), span);
        let mut array = self.array_args(base, idx.len());
        let h = match self.privatised(base) {
            Some(k) => {
                array.extend([format!("nu_ph{k}"), format!("nu_pv{k}")]);
                Helper::Private(op, vals.len())
            }
            None => Helper::Atomic(op, vals.len(), self.env.analysis.is_local(base)),
        };
        let f = self.helper(base, h, idx.len());
        let all = [array, idx, vals].concat();
        format!("{f}({}, {c}, {q}, nu_err)", all.join(", "))
    }
}

/// An atomic's index components (`(i, j)` or `i`) and its values.
pub(crate) fn atomic_args(args: &[Expr]) -> (&[Expr], &[Expr]) {
    let (first, values) = args
        .split_first()
        .map_or((None, args), |(f, v)| (Some(f), v));
    let index = match first.map(|f| &f.kind) {
        Some(ExprKind::Tuple(parts)) => parts.as_slice(),
        _ => first.map_or(&[][..], std::slice::from_ref),
    };
    (index, values)
}

/// The prelude's `nu_fault` recording that helper indices `nu_i0..` miss the dims of `b`.
pub(super) fn fault_call(b: &str, rank: usize) -> String {
    let pad = |mut v: Vec<String>| {
        v.resize(3, "0".into());
        v.join(", ")
    };
    let idx = (0..rank).map(|k| format!("nu_i{k}")).collect();
    let dims = (0..rank).map(|k| format!("{b}__d{k}")).collect();
    format!("nu_fault(nu_err, nu_s, 0u, {}, {})", pad(idx), pad(dims))
}

/// The C text of a helper of captured array `b` (fill `fill`) of rank `rank`.
fn helper_text(name: &str, b: &str, fill: usize, h: Helper, rank: usize) -> String {
    let elem = Ph::elem(fill);
    let idx: Vec<String> = (0..rank).map(|k| format!("nu_i{k}")).collect();
    let mut params = vec![Ph::param(fill, b)];
    if let Helper::Private(..) = h {
        // A helper's pointer into local memory: an address space, not a kernel's parameter.
        let local = nuda_abi::dialect::Mk::space(nuda_abi::dialect::Space::Local);
        params.extend([
            format!("{local}{elem}* restrict nu_ph"),
            "uint nu_pv".into(),
        ]);
    }
    params.extend(idx.iter().map(|i| format!("nu_idx {i}")));
    let values: Vec<String> = match h {
        Helper::Store => vec!["nu_v".into()],
        Helper::Atomic(_, n, _) | Helper::Private(_, n) => {
            (0..n).map(|k| format!("nu_v{k}")).collect()
        }
        Helper::Load | Helper::AtomicLoad(_) | Helper::QuietLoad => vec![],
    };
    params.extend(values.iter().map(|v| format!("{elem} {v}")));
    params.extend([
        "int nu_c".into(),
        "uint nu_s".into(),
        super::marks::err_param(),
    ]);
    let inside: Vec<String> = idx
        .iter()
        .enumerate()
        .map(|(k, i)| format!("{i} < {b}__d{k}"))
        .collect();
    let fault = fault_call(b, rank);
    // `b`, or `b.v` for a captured private array.
    let data = Ph::data(fill, b);
    let mut off = idx[0].clone();
    for (k, i) in idx.iter().enumerate().skip(1) {
        off = format!("({off}) * {b}__d{k} + {i}");
    }
    // A zero of any element type, `#[nustruct]` structs included: C allows braces around a
    // scalar's initializer, and `(T)0` does not convert to a struct.
    let zero = format!("{elem} nu_zero = {{0}};\n        return nu_zero;");
    let (ret, miss, hit) = match h {
        Helper::Load | Helper::QuietLoad => {
            (elem.clone(), zero.clone(), format!("return {data}[{off}];"))
        }
        Helper::AtomicLoad(local) => (
            elem.clone(),
            zero.clone(),
            format!(
                "return nu_{}_load_{elem}(&{data}[{off}]);",
                if local { "latomic" } else { "atomic" }
            ),
        ),
        Helper::Store => (
            "void".into(),
            "return;".into(),
            format!("{data}[{off}] = nu_v;"),
        ),
        // The element type is a placeholder until launch: `nu_atomic_add_` + `uint`.
        Helper::Atomic(op, _, local) => (
            elem.clone(),
            zero.clone(),
            format!(
                "return nu_{}_{op}_{elem}(&{data}[{off}], {});",
                if local { "latomic" } else { "atomic" },
                values.join(", ")
            ),
        ),
        Helper::Private(op, _) => {
            let v = values.join(", ");
            let hit = format!("return nu_pv ? nu_latomic_{op}_{elem}(&nu_ph[{off}], {v}) : nu_atomic_{op}_{elem}(&{data}[{off}], {v});");
            (elem.clone(), zero.clone(), hit)
        }
    };
    format!(
        "{ret} {name}({}) {{\n    if (nu_c && !({})) {{\n        {fault};\n        {miss}\n    }}\n    {hit}\n}}\n",
        params.join(", "),
        inside.join(" && ")
    )
}
