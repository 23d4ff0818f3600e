//! The tile's side of `stage(..)` on the native engine (layer: emitters, native Rust): each
//! staged array's box packed into a panel before the element loops (`stage.rs` has the design
//! and the work-items' side, the walks).

use super::stage::{NativeStaging, PanelVar};
use super::RustEmitter;
use crate::base::ir::staging::{
    bound_names, element_vars, leading_binds, literal, stage_body, staged_loop, Follows,
};
use crate::base::ir::*;
use crate::base::paths::PRIVATE;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

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
        let (_, _, range, kbody) = staged_loop(body, &k)?;
        let kbody = kbody as *const Block as usize;
        // The tile evaluates the boxes' origins before any work-item runs: nothing in them
        // may fault where the work-items would not.
        let uniform = st.boxes.iter().flat_map(|b| b.uniform.iter().flatten());
        let range_parts = [Some(&range.start), Some(&range.end), range.step.as_ref()];
        let mut origin_parts = uniform.chain(range_parts.into_iter().flatten());
        if !origin_parts.all(crate::base::ir::staging::cannot_fault) {
            return None;
        }
        let (first, origins) = self.origins(n, st, body, lanes)?;
        let mut staging = NativeStaging {
            k: Some((k, kbody)),
            user_elems: element_vars(n),
            locals,
            lane_dim: lanes.map(|_| n.loops.len() - 1),
            ..NativeStaging::default()
        };
        // Every box's origin from one evaluation of the first work-item's bindings.
        let os: Vec<syn::Ident> = (0..origins.len())
            .map(|j| format_ident!("__nuda_po{}", j))
            .collect();
        let starts = origins.iter().map(|o| &o.0);
        let mut packs = vec![quote! {
            #[allow(unused_variables)]
            let (#(#os,)*) = { #first (#(#starts,)*) };
        }];
        for (j, (b, (_, ext))) in st.boxes.iter().zip(&origins).enumerate() {
            let (tokens, pv) = pack(st, b, j, ext);
            packs.push(tokens);
            staging.panels.insert(b.array.to_string(), pv);
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

    /// The first work-item's bindings, and each box's origin and extent per index position
    /// (three, padded with `0` and `1`) as expressions over them the tile evaluates before its
    /// work-items: the element variables at the first work-item, the staged loop's range.
    fn origins(
        &mut self,
        n: &Nest,
        st: &Stage,
        body: &Block,
        lanes: Option<&Nest>,
    ) -> Option<(TokenStream, Vec<(TokenStream, TokenStream)>)> {
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
            out.push((quote!([#(#origin),*]), quote!([#(#ext),*])));
        }
        Some((first, out))
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

/// Box `j`'s panel for the tile: from its origin (`__nuda_po<j>`, the first work-item's) over
/// `ext`, packed from the array into a buffer of the thread's.
fn pack(st: &Stage, b: &StageBox, j: usize, ext: &TokenStream) -> (TokenStream, PanelVar) {
    let (pb, pk) = (
        format_ident!("__nuda_pb{}", j),
        format_ident!("__nuda_pk{}", j),
    );
    let o = format_ident!("__nuda_po{}", j);
    let (p, block) = blocking(st, b);
    let a = &b.array;
    let tokens = quote! {
        let mut #pb = {
            #[allow(unused_imports)]
            use #PRIVATE::{PackArray as _, PackOther as _};
            (&&#PRIVATE::Probe(&#a)).panel_buf()
        };
        let #pk = #pb.pack::<_, #p, #block>(&#a, #o, #ext);
    };
    let pv = PanelVar {
        ident: pk,
        array: a.clone(),
        follows: b.follows.clone(),
    };
    (tokens, pv)
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

fn usize_lit(v: usize) -> TokenStream {
    let lit = syn::LitInt::new(&format!("{v}usize"), Span::call_site());
    quote!(#lit)
}
