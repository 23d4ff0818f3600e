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
    assigned_names, bound_names, mentions, position, reads_of, Follows,
};
use crate::base::ir::*;
use crate::base::paths::PRIVATE;
use crate::checks::lanes::Kind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::{BTreeMap, HashMap, HashSet};

/// One staged array's panel, as the nest's code names it, and what each index position of
/// its box follows, from which offset.
#[derive(Clone)]
pub(super) struct PanelVar {
    pub(super) ident: syn::Ident,
    pub(super) array: syn::Ident,
    pub(super) follows: Vec<(Follows, i64)>,
}

/// A staged nest being emitted.
#[derive(Clone, Default)]
pub(super) struct NativeStaging {
    pub(super) panels: BTreeMap<String, PanelVar>,
    /// The staged loop, and where its body is (to know it when its turn comes).
    pub(super) k: Option<(String, usize)>,
    /// In the staged loop's fast form: each distinct read's walk, by `array[index]` text.
    pub(super) walks: Option<HashMap<String, WalkVar>>,
    pub(super) user_elems: HashMap<String, (usize, i64)>,
    pub(super) locals: HashSet<String>,
    /// The element loop a `vector` nest's lanes step.
    pub(super) lane_dim: Option<usize>,
}

/// One distinct staged read in the staged loop: its walk, and whether it takes the lanes'
/// run of neighbours.
#[derive(Clone)]
pub(super) struct WalkVar {
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
        Some(versions(var, it, prologue, &names, (fast, slow)))
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
                // The prologue evaluates the index at the loop's ends, where the loop may
                // never read it: it must not be able to fault.
                let quiet = index.iter().all(crate::base::ir::staging::cannot_fault);
                if m.iter().any(|n| touched.contains(n)) || ks > 1 || !quiet {
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
        let per_lane = self.lane_cx.as_ref().is_some_and(|c| c.per_lane);
        self.set_per_lane(false);
        let (mut asks, mut oks, mut names) = (Vec::new(), Vec::new(), Vec::new());
        for (j, r) in reads.iter().enumerate() {
            let ask = self.walk_ask(var, r);
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
        self.set_per_lane(per_lane);
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

    /// The call that asks read `r`'s panel for its walk, the read's index evaluated with
    /// `var` at the loop's first and last value.
    fn walk_ask(&mut self, var: &syn::Ident, r: &Read) -> TokenStream {
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
        quote! {
            #pk.walk(
                &#base,
                ({ let #var = __nuda_k0; #idx }, { let #var = __nuda_k1; #idx }),
                #c,
                (#kpos, __nuda_kn),
                __nuda_fault,
                #PRIVATE::Lanes::<#lanes>,
            )
        }
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
}

/// The staged loop in its two forms: over the walks `names` where the prologue grants them
/// all, else as written.
fn versions(
    var: &syn::Ident,
    it: TokenStream,
    prologue: TokenStream,
    names: &[syn::Ident],
    (fast, slow): (TokenStream, TokenStream),
) -> TokenStream {
    quote!({
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
    })
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
