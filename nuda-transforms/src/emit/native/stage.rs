//! `stage(..)` on the native engine (layer: emitters, native Rust): packed panels, as BLIS
//! packs. Before a tile's element loops, each staged array's box (`ir::Stage`'s plan, over
//! the whole staged loop) is copied into a buffer of the thread's (`nuda::__private::Panel`,
//! whose README-level account is in `backend/native/panel.rs`), blocked along the position a
//! `dmine` or `vector` steps so that a work-item's reads are one contiguous run; reads of the
//! array in the nest then come from the panel where their index lies in it, and from the array
//! elsewhere. A panel holds exactly the array's elements, so the results are the same.
//!
//! ```text
//! tilem(128, 128), stage(a, b, k: 8),     per tile: pack a[(0..n, tile_i..+128)] as [i/8][k][i%8]
//! dmine(8, 1), vector(8)                            pack b[(0..n, tile_j..+128)] as [j/8][k][j%8]
//!                                         per work-item, in the loop over k: a[(k, i)] and the
//!                                         8 lanes of b[(k, j)] from the panels, one run each
//! ```
//! A work-item's staged loop then runs in one of two forms. Before it, each distinct read of a
//! staged array in it asks its panel for a walk (`nuda::__private::Walk`), giving the read's
//! index at the loop's first and last value and the box coordinates the loop's counters (its
//! count, each element loop's value) put it at: the panel grants it only if those are the same
//! elements, inside the array. With every walk granted the loop reads only panels, one load
//! at a place that moves by a constant each iteration (a `vector` nest's lanes one run of
//! neighbours); otherwise it runs as written. A read's index may only be the loop variable
//! plus a constant along `k`, and fixed elsewhere, for its two ends to decide every iteration:
//! reads whose names the loop rebinds or assigns, or that the lanes spread otherwise, keep the
//! loop as written.
//!
//! The staged loop's depth is the GPU's slice; the native form packs the whole loop at once
//! (the work-items then need no state carried between slices), up to a size limit past which
//! the arrays are read in place. `stage(a)` without a loop reads in place too: a stencil's
//! reads of one tile are already neighbours.

use super::RustEmitter;
use crate::base::ir::display;
use crate::base::ir::staging::{
    assigned_names, bound_names, element_vars, leading_binds, literal, mentions, position,
    reads_of, stage_body, staged_loop, Follows,
};
use crate::base::ir::*;
use crate::base::paths::PRIVATE;
use crate::checks::lanes::Kind;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, HashMap, HashSet};

/// One staged array's panel, as the nest's code names it, and what each index position of
/// its box follows, from which offset.
#[derive(Clone)]
struct PanelVar {
    ident: syn::Ident,
    array: syn::Ident,
    follows: Vec<(Follows, i64)>,
}

/// A staged nest being emitted.
#[derive(Clone, Default)]
pub(super) struct NativeStaging {
    panels: BTreeMap<String, PanelVar>,
    /// The staged loop, and where its body is (to know it when its turn comes).
    k: Option<(String, usize)>,
    /// In the staged loop's fast form: each distinct read's walk, by `array[index]` text.
    walks: Option<HashMap<String, WalkVar>>,
    user_elems: HashMap<String, (usize, i64)>,
    locals: HashSet<String>,
    /// The element loop a `vector` nest's lanes step.
    lane_dim: Option<usize>,
}

/// One distinct staged read in the staged loop: its walk, and whether it takes the lanes'
/// run of neighbours.
#[derive(Clone)]
struct WalkVar {
    ident: syn::Ident,
    run: bool,
}

/// One distinct staged read, as the fast form's prologue asks for its walk.
struct Read {
    pk: syn::Ident,
    base: syn::Ident,
    index: Vec<Expr>,
    key: String,
    /// Per index position: what it follows and the offset from the box's first index.
    at: Vec<(Follows, i64)>,
    run: bool,
    /// The walk it shares with the reads of the same array, shape and offsets (the first of
    /// them asks for it; the others only check that it is theirs too).
    walk: usize,
}

impl RustEmitter<'_> {
    /// A staged nest's native code: the panels, then the element loops reading through
    /// them; `None` where the nest keeps reading its arrays in place.
    pub(super) fn staged_nest(&mut self, n: &Nest) -> Option<TokenStream> {
        let st = n.stage.as_deref()?;
        let (body, lanes) = stage_body(n);
        let locals = bound_names(&n.body);
        let k = st.k.as_ref()?.to_string();
        if !self.native() || st.boxes.is_empty() || st.group.is_empty() || !plain_loops(n) {
            return None;
        }
        // A local of an array's name would be read where the array's panel is meant.
        if st
            .boxes
            .iter()
            .any(|b| locals.contains(&b.array.to_string()))
        {
            return None;
        }
        let kbody = staged_loop(body, &k)?.3 as *const Block as usize;
        let origins = self.origins(n, st, body, lanes)?;
        let mut staging = NativeStaging {
            k: Some((k, kbody)),
            user_elems: element_vars(n),
            locals,
            lane_dim: lanes.map(|_| n.loops.len() - 1),
            ..NativeStaging::default()
        };
        let mut packs = Vec::new();
        for (j, (b, (origin, ext))) in st.boxes.iter().zip(origins).enumerate() {
            let (pb, pk) = (
                format_ident!("__nuda_pb{}", j),
                format_ident!("__nuda_pk{}", j),
            );
            let o = format_ident!("__nuda_po{}", j);
            let (p, block) = blocking(st, b);
            let a = &b.array;
            packs.push(quote! {
                // The first work-item's bindings, to find where the box starts.
                #[allow(unused_variables)]
                let #o: [usize; 3] = #origin;
                let mut #pb = {
                    #[allow(unused_imports)]
                    use #PRIVATE::{PackArray as _, PackOther as _};
                    (&&#PRIVATE::Probe(&#a)).panel_buf()
                };
                let #pk = #pb.pack::<_, #p, #block>(&#a, #o, #ext);
            });
            let pv = PanelVar {
                ident: pk,
                array: a.clone(),
                follows: b.follows.clone(),
            };
            staging.panels.insert(a.to_string(), pv);
        }
        let saved = self.staging.replace(staging);
        let loops = self.element_loops(&n.loops, 0, &n.body);
        self.staging = saved;
        Some(quote!({ #(#packs)* #loops }))
    }

    /// The element loops, each value also kept as `__nuda_e<d>`, out of the body's reach.
    fn element_loops(&mut self, loops: &[Loop], d: usize, body: &Block) -> TokenStream {
        let Some((l, rest)) = loops.split_first() else {
            return self.nest(&[], body);
        };
        let it = self.range(&l.range);
        let (var, e) = (&l.var, format_ident!("__nuda_e{}", d));
        let inner = self.element_loops(rest, d + 1, body);
        quote!(for #var in #it { let #e: usize = #var; #inner })
    }

    /// The staged loop, if `var` over `body` is it: the walks of its staged reads, then the
    /// loop reading panels where every walk is granted, else as written. `emit` writes a
    /// body (plainly, or over lanes).
    pub(super) fn k_loop(
        &mut self,
        var: &syn::Ident,
        range: &Range,
        body: &Block,
        emit: impl Fn(&mut Self, &Block) -> TokenStream,
    ) -> Option<TokenStream> {
        let st = self.staging.as_ref()?;
        let at = body as *const Block as usize;
        if st.k.as_ref().is_none_or(|(k, b)| *var != k || *b != at) || st.walks.is_some() {
            return None;
        }
        let reads = self.staged_reads(var, body)?;
        let it = self.range(range);
        let prologue = self.walk_prologue(var, &reads);
        let walks: HashMap<String, WalkVar> = (reads.iter())
            .map(|r| {
                (
                    r.key.clone(),
                    WalkVar {
                        ident: walk_ident(r.walk),
                        run: r.run,
                    },
                )
            })
            .collect();
        let count = reads.iter().map(|r| r.walk + 1).max().unwrap_or(0);
        let names: Vec<syn::Ident> = (0..count).map(walk_ident).collect();
        let slow = emit(self, body);
        self.set_walks(Some(walks));
        let fast = emit(self, body);
        self.set_walks(None);
        Some(quote!({
            let __nuda_kr = #it;
            // The loop's exact length (a range's size hint is exact when it has an upper
            // bound); none, and no walk is granted.
            let __nuda_kn = match ::core::iter::Iterator::size_hint(&__nuda_kr) {
                (__nuda_n, ::core::option::Option::Some(__nuda_m)) if __nuda_n == __nuda_m => __nuda_n,
                _ => 0,
            };
            match #prologue {
                ::core::option::Option::Some((#(#names,)*)) => {
                    for (__nuda_kc, #var) in ::core::iter::Iterator::enumerate(__nuda_kr) {
                        // The reads of the loop's variable are all in the walks now.
                        let _ = &#var;
                        #fast
                    }
                }
                ::core::option::Option::None => for #var in __nuda_kr #slow,
            }
        }))
    }

    fn set_walks(&mut self, walks: Option<HashMap<String, WalkVar>>) {
        if let Some(st) = self.staging.as_mut() {
            st.walks = walks;
        }
    }

    /// The distinct reads of staged arrays in the staged loop's `body`, if every one can walk:
    /// its index the loop variable plus a constant along `k` (once at most) and fixed
    /// elsewhere, no name of it rebound or assigned in the loop, and in lanes either the same
    /// for all or a run along the last position.
    fn staged_reads(&self, k: &syn::Ident, body: &Block) -> Option<Vec<Read>> {
        let st = self.staging.as_ref()?;
        let mut touched = bound_names(body);
        touched.extend(assigned_names(body));
        // The fast form reads at the loop's count, `__nuda_kc`: a body that binds a name of
        // nuda's own (the macros do not stop users writing one) keeps the loop as written.
        if touched.iter().any(|n| n.starts_with("__nuda")) {
            return None;
        }
        let mut out: Vec<Read> = Vec::new();
        for (name, pv) in &st.panels {
            for (index, _) in reads_of(body, &pv.array) {
                let key = read_key(name, &index);
                if out.iter().any(|r| r.key == key) {
                    continue;
                }
                let mut m = HashSet::new();
                index.iter().for_each(|x| mentions(x, &mut m));
                let at = self.read_positions(k, &index, pv)?;
                let ks = at.iter().filter(|a| a.0 == Follows::K).count();
                if m.iter().any(|n| touched.contains(n)) || ks > 1 {
                    return None;
                }
                let run = self.lane_kind(&index, &pv.follows)?;
                let (pk, base) = (pv.ident.clone(), pv.array.clone());
                let same = |r: &Read| r.base == base && r.at == at && r.run == run;
                let walk = match out.iter().find(|r| same(r)) {
                    Some(r) => r.walk,
                    None => out.iter().map(|r| r.walk + 1).max().unwrap_or(0),
                };
                out.push(Read {
                    pk,
                    base,
                    index,
                    key,
                    at,
                    run,
                    walk,
                });
            }
        }
        Some(out)
    }

    /// What each index position of a read follows and its offset from the box's first index,
    /// if the read has the box's shape.
    fn read_positions(
        &self,
        k: &syn::Ident,
        index: &[Expr],
        pv: &PanelVar,
    ) -> Option<Vec<(Follows, i64)>> {
        let st = self.staging.as_ref()?;
        let k = k.to_string();
        (index.iter().zip(&pv.follows))
            .map(|(x, &(f, lo))| {
                let (g, off) = position(x, &k, &st.user_elems, &st.locals)?;
                (g == f).then_some((f, off - lo))
            })
            .collect()
    }

    /// Outside lanes, or the same in every lane: one element (`Some(false)`); a run of
    /// neighbours along the last position, lane 0's index plus the lane: `Some(true)`;
    /// spread otherwise: `None`.
    fn lane_kind(&self, index: &[Expr], follows: &[(Follows, i64)]) -> Option<bool> {
        let Some(cx) = self.lane_cx.as_ref() else {
            return Some(false);
        };
        if index.iter().all(|x| cx.plan.uniform(x)) {
            return Some(false);
        }
        let (last, rest) = index.split_last()?;
        let lane_dim = self.staging.as_ref()?.lane_dim;
        let on_lanes =
            matches!(follows.last(), Some((Follows::Elem(d), _)) if Some(*d) == lane_dim);
        (on_lanes && rest.iter().all(|x| cx.plan.uniform(x)) && lane_step(cx, last)).then_some(true)
    }

    /// `Some((walk, ..))` if the panels grant every read's walk over the loop `__nuda_kr`
    /// of `__nuda_kn` iterations (its ends bound to `var` in turn), else `None`.
    fn walk_prologue(&mut self, var: &syn::Ident, reads: &[Read]) -> TokenStream {
        self.set_per_lane(false);
        let (mut asks, mut oks, mut names) = (Vec::new(), Vec::new(), Vec::new());
        for (j, r) in reads.iter().enumerate() {
            let idx = super::expr::index_of(&r.base, &r.index, self.index(&r.index));
            let (pk, base) = (&r.pk, &r.base);
            let c = counters(&r.at);
            let kpos = match r.at.iter().position(|a| a.0 == Follows::K) {
                Some(p) => quote!(::core::option::Option::Some(#p)),
                None => quote!(::core::option::Option::None),
            };
            let lanes = if r.run {
                self.lane_width()
            } else {
                quote!(1usize)
            };
            let ask = quote! {
                #pk.walk(
                    &#base,
                    ({ let #var = __nuda_k0; #idx }, { let #var = __nuda_k1; #idx }),
                    #c,
                    (#kpos, __nuda_kn),
                    __nuda_fault,
                    #PRIVATE::Lanes::<#lanes>,
                )
            };
            let w = walk_ident(r.walk);
            match names.contains(&w) {
                false => {
                    asks.push(quote!(let #w = #ask;));
                    names.push(w);
                }
                true => {
                    let ok = format_ident!("__nuda_ok{}", j);
                    asks.push(quote!(let #ok = ::core::option::Option::is_some(&#ask);));
                    oks.push(ok);
                }
            }
        }
        self.set_per_lane(true);
        quote!({
            let __nuda_ends = (
                ::core::iter::Iterator::next(&mut ::core::clone::Clone::clone(&__nuda_kr)),
                ::core::iter::DoubleEndedIterator::next_back(&mut ::core::clone::Clone::clone(&__nuda_kr)),
            );
            match __nuda_ends {
                (::core::option::Option::Some(__nuda_k0), ::core::option::Option::Some(__nuda_k1)) => {
                    #(#asks)*
                    let __nuda_ok = true #(&& #oks)*;
                    match (#(#names,)*) {
                        (#(::core::option::Option::Some(#names),)*) if __nuda_ok => {
                            ::core::option::Option::Some((#(#names,)*))
                        }
                        #[allow(unreachable_patterns)]
                        _ => ::core::option::Option::None,
                    }
                }
                _ => ::core::option::Option::None,
            }
        })
    }

    /// In the staged loop's fast form, a staged read: its walk's element in iteration
    /// `__nuda_kc` (lane `__nuda_l`'s of a run, in a lane expression).
    pub(super) fn staged_read(&self, base: &syn::Ident, index: &[Expr]) -> Option<TokenStream> {
        let w = self.walk_of(base, index)?;
        let ident = &w.ident;
        // SAFETY (of the generated `unsafe`): `__nuda_kc` is the count of the loop's own
        // `enumerate` over `__nuda_kr`, whose exact length `__nuda_kn` every walk was granted
        // for, and the body binds no `__nuda` name (`staged_reads`), so it is below `__nuda_kn`.
        if !w.run {
            return Some(quote!(unsafe { #ident.at_unchecked(__nuda_kc) }));
        }
        let per_lane = self.lane_cx.as_ref().is_some_and(|c| c.per_lane);
        let l = if per_lane {
            quote!(__nuda_l)
        } else {
            quote!(0usize)
        };
        Some(quote!(unsafe { #ident.run_unchecked(__nuda_kc) }[#l]))
    }

    fn walk_of(&self, base: &syn::Ident, index: &[Expr]) -> Option<&WalkVar> {
        let walks = self.staging.as_ref()?.walks.as_ref()?;
        walks.get(&read_key(&base.to_string(), index))
    }

    /// In the fast form, a run read in a lane statement: its `w` elements lifted before the
    /// statement as `[T; w]`, each lane taking its own.
    pub(super) fn lane_run(&mut self, e: &Expr) -> Option<TokenStream> {
        let ExprKind::Index { base, index } = &e.kind else {
            return None;
        };
        let w = self.walk_of(base, index).filter(|w| w.run)?.ident.clone();
        if self.lane_cx.as_ref()?.guarded > 0 {
            return None;
        }
        // SAFETY (of the generated `unsafe`): as in `staged_read`, `__nuda_kc` is below the
        // count the walk was granted for.
        let name = self.lift_value(quote!(unsafe { #w.run_unchecked(__nuda_kc) }));
        Some(quote!(#name[__nuda_l]))
    }

    /// Each box's origin and extent per index position (three, padded with `0` and `1`), as
    /// expressions the tile evaluates before its work-items: the element variables at the
    /// first work-item, the staged loop's range.
    fn origins(
        &mut self,
        n: &Nest,
        st: &Stage,
        body: &Block,
        lanes: Option<&Nest>,
    ) -> Option<Vec<(TokenStream, TokenStream)>> {
        let users = element_vars(n);
        let range = staged_loop(body, &st.k.as_ref()?.to_string())?.2;
        let first = self.first_item(n, body, lanes);
        let mut out = Vec::new();
        for b in &st.boxes {
            let mut origin = Vec::new();
            let mut ext = Vec::new();
            for (p, &(f, lo)) in b.follows.iter().enumerate() {
                let (o, e) = match f {
                    Follows::K => self.k_origin(range, st.depth, b.extents[p], lo),
                    Follows::Elem(d) => {
                        let o = elem_origin(n, &users, d, lo)?;
                        (o, usize_lit(b.extents[p]))
                    }
                    Follows::Uniform => {
                        let x = self.expr(b.uniform[p].as_ref()?);
                        (quote!((#x as usize)), usize_lit(b.extents[p]))
                    }
                };
                origin.push(o);
                ext.push(e);
            }
            while origin.len() < 3 {
                origin.push(usize_lit(0));
                ext.push(usize_lit(1));
            }
            out.push((quote!({ #first [#(#origin),*] }), quote!([#(#ext),*])));
        }
        Some(out)
    }

    /// The statements that bind the element variables at a tile's first work-item: its
    /// loops' first values, lane 0, and the annotations' leading `let`s.
    fn first_item(&mut self, n: &Nest, body: &Block, lanes: Option<&Nest>) -> TokenStream {
        let starts: Vec<TokenStream> = (n.loops.iter())
            .map(|l| {
                let (v, s) = (&l.var, self.expr(&l.range.start));
                quote!(let #v = #s;)
            })
            .collect();
        let lane = lanes.and_then(|l| l.loops.first()).map(|l| {
            let v = &l.var;
            quote!(let #v = 0usize;)
        });
        let binds: Vec<TokenStream> = (body.stmts[..leading_binds(body)].iter())
            .map(|s| self.stmt(s))
            .collect();
        quote!(#(#starts)* #lane #(#binds)*)
    }

    /// The staged loop's first value (plus the reads' lowest offset), and its trip count plus
    /// the reads' spread.
    fn k_origin(
        &mut self,
        r: &Range,
        depth: usize,
        extent: usize,
        lo: i64,
    ) -> (TokenStream, TokenStream) {
        let (start, it) = (self.expr(&r.start), self.range(r));
        let spread = usize_lit(extent.saturating_sub(depth));
        let lo = lo as isize;
        (
            quote!((#start as usize).wrapping_add(#lo as usize)),
            quote!(::core::iter::Iterator::size_hint(&#it).0.saturating_add(#spread)),
        )
    }
}

fn walk_ident(k: usize) -> syn::Ident {
    format_ident!("__nuda_w{}", k)
}

/// The text that tells distinct reads apart.
fn read_key(array: &str, index: &[Expr]) -> String {
    let parts: Vec<String> = index.iter().map(display::expr).collect();
    format!("{array}[{}]", parts.join(", "))
}

/// A read's box coordinates in the loop's first iteration, from the counters: along `k`
/// its offset, along an element loop that loop's value plus its offset.
fn counters(at: &[(Follows, i64)]) -> TokenStream {
    let mut c: Vec<TokenStream> = (at.iter())
        .map(|&(f, off)| {
            let off = off as isize;
            match f {
                Follows::K => quote!((#off as usize)),
                Follows::Elem(d) => {
                    let e = format_ident!("__nuda_e{}", d);
                    quote!(#e.wrapping_add(#off as usize))
                }
                Follows::Uniform => quote!(0usize),
            }
        })
        .collect();
    c.resize(3, quote!(0usize));
    quote!([#(#c),*])
}

/// Whether the nest's element loops are the annotations' own, `0..tile` by a literal step:
/// their values are then the box coordinates the plan counted on.
fn plain_loops(n: &Nest) -> bool {
    n.loops.iter().all(|l| {
        let zero = literal(&l.range.start) == Some(0);
        let step = l.range.step.as_ref().is_none_or(|s| literal(s).is_some());
        zero && step && !l.range.rev && !l.range.inclusive
    })
}

/// The position a panel is blocked along, and by how much: the last one that follows an
/// element loop stepping by more than one (a `dmine` block, `vector` lanes), by its step;
/// else none (the box row-major). Never the staged loop's: a walk moves along it by a
/// constant.
fn blocking(st: &Stage, b: &StageBox) -> (TokenStream, TokenStream) {
    let found = (b.follows.iter().enumerate().rev()).find_map(|(p, (f, _))| match f {
        Follows::Elem(d) if st.group.get(*d).is_some_and(|g| g.0 > 1) => Some((p, st.group[*d].0)),
        _ => None,
    });
    let (p, block) = found.unwrap_or((0, 1));
    (usize_lit(p), usize_lit(block))
}

/// The first index of a box along element loop `d`: a variable stepping with it, less its
/// offset from the loop, plus the reads' lowest offset; `None` if no variable steps with it.
fn elem_origin(
    n: &Nest,
    users: &HashMap<String, (usize, i64)>,
    d: usize,
    lo: i64,
) -> Option<TokenStream> {
    let mut on: Vec<(&String, &(usize, i64))> = users.iter().filter(|(_, e)| e.0 == d).collect();
    on.sort();
    let (u, &(_, c)) = on.first()?;
    let u = syn::Ident::new(u, Span::call_site());
    let e = &n.loops.get(d)?.var;
    let shift = (lo - c) as isize;
    Some(quote!((#u as usize).wrapping_sub(#e as usize).wrapping_add(#shift as usize)))
}

/// Whether `e`, in lane `l`, is its lane-0 value plus `l`: a name that steps with the lanes,
/// plus or minus values that do not.
fn lane_step(cx: &super::lanes::LaneCx, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(v) => cx.plan.var(v) == Kind::Affine,
        ExprKind::Paren(x) => lane_step(cx, x),
        ExprKind::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => {
            (lane_step(cx, lhs) && cx.plan.uniform(rhs))
                || (cx.plan.uniform(lhs) && lane_step(cx, rhs))
        }
        ExprKind::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => lane_step(cx, lhs) && cx.plan.uniform(rhs),
        _ => false,
    }
}

fn usize_lit(v: usize) -> TokenStream {
    let lit = syn::LitInt::new(&format!("{v}usize"), Span::call_site());
    quote!(#lit)
}
