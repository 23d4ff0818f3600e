//! Staged reads in the lanes of a `vector(w)` after `stage` (`emit::cl::stage`,
//! `emit::cl::vector`): a read whose index steps by one per lane reads `w` neighbours of the
//! local copy, one `vload<w>` where they are adjacent in it. As a scalar staged read, it
//! checks its own index at its site, and reads the copy only where the copy holds the element
//! the staging predicted for lane 0 and every lane is in range; otherwise it falls back to the
//! global vector helper, which faults lane by lane as the scalar loop would.

use super::access::Helper;
use super::ClEmitter;
use crate::base::ir::*;
use crate::emit::template::Ph;

impl ClEmitter<'_> {
    /// A vector read of a staged array in the staged loop, the positions in `mask` stepping
    /// by one per lane: from local memory, checked at its site.
    pub(super) fn staged_vector_read(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        span: proc_macro2::Span,
        mask: u32,
    ) -> Option<String> {
        let staging = self.staging.clone()?;
        let (extents, skew) = staging.extents(&base.to_string())?;
        let w = self.lanes.as_ref().map_or(1, |p| p.width);
        let last = extents.len() - 1;
        // No copy is swizzled along the lanes (`stage_skew.rs`): should one be, its lanes read
        // the array.
        let along_last = mask >> last & 1 == 1;
        if skew && along_last {
            return None;
        }
        let width = if along_last { w } else { 1 };
        let (local, flat, expected) = self.staged_coords(base, index, width)?;
        // Lane `l` reads `l` further along each affine position of the box.
        let stride: usize = (0..extents.len())
            .filter(|p| mask >> p & 1 == 1)
            .map(|p| extents[p + 1..].iter().product::<usize>())
            .sum();

        let f = self.staged_vector_helper(base, index.len(), mask, stride);
        Some(self.staged_call(&f, base, index, span, [local, flat], expected))
    }

    /// `nu_vlds<w>_<a>_<mask>_<stride>`: `w` lanes from a staged copy, lane `l` at `l * stride`
    /// past lane 0, made on first use (after the global vector helper it falls back to).
    fn staged_vector_helper(
        &mut self,
        base: &syn::Ident,
        rank: usize,
        mask: u32,
        stride: usize,
    ) -> String {
        let global = self.vector_helper(base, Helper::Load, rank, mask);
        let w = self.lanes.as_ref().map_or(1, |p| p.width);
        let b = self.var(base);
        let name = format!("nu_vlds{w}_{b}_{mask}_{stride}");
        let fill = self.env.capture_fill(base).unwrap_or_default();
        let elem = Ph::elem(fill);
        let idx: Vec<String> = (0..rank).map(|k| format!("nu_i{k}")).collect();
        let params = super::stage::staged_params(fill, &b, rank);
        let predicted = super::stage::predicted(rank);
        // Every lane in range: lane 0 inside, and `w` elements left along affine positions.
        let mut inside: Vec<String> = (0..rank).map(|k| format!("nu_i{k} < {b}__d{k}")).collect();
        inside.extend(
            (0..rank)
                .filter(|k| mask >> k & 1 == 1)
                .map(|k| format!("{b}__d{k} - nu_i{k} >= {w}")),
        );
        let local = match stride {
            1 => format!("vload{w}(0, nu_t + nu_l)"),
            s => {
                let lanes: Vec<String> =
                    (0..w).map(|l| format!("nu_t[nu_l + {}]", l * s)).collect();
                let ty = format!("{elem}{w}");
                format!(
                    "{}({})",
                    nuda_abi::dialect::Mk::vector(&ty),
                    lanes.join(", ")
                )
            }
        };
        let mut args = vec![b.clone()];
        args.extend((0..rank).map(|k| format!("{b}__d{k}")));
        args.extend(idx);
        args.extend(["nu_c".into(), "nu_s".into(), "nu_err".into()]);
        let text = format!(
            "{elem}{w} {name}({}) {{\n    if ({} && (!nu_c || ({}))) {{\n        return {local};\n    }}\n    return {global}({});\n}}\n",
            params.join(", "),
            predicted.join(" && "),
            inside.join(" && "),
            args.join(", ")
        );
        self.env.shared.helper(&name, || text);
        name
    }
}
