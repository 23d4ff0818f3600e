//! Emitters, OpenCL C: a GPU tile's scan for the single-pass kernel (`lookback.rs`), by rows
//! of one element per work-item, each row in warps of 32: a warp's inclusive scan, the warps'
//! totals scanned by every warp, and a carry from row to row; one barrier per row.
//!
//! With warp shuffles (`NU_SHFL`: CUDA's, HIP's, OpenCL sub-groups') and whole warps (the
//! group a multiple of 32, and `NU_WARPED`, as the reduction tree's), a
//! step is `nu_shfl_up` or `nu_shfl_idx` in registers. Otherwise the same steps go through
//! local memory with barriers: the same pairs in the same order, so the same bits, and the
//! path Oclgrind runs (and checks for races) is the CUDA path's arithmetic.
//!
//! Local memory per scan variable, after the tile's `nu_P` elements and the tile prefix at
//! `nu_P`: the warps' totals at `nu_P + 1`, twice (rows alternate, so a warp's next total
//! cannot overwrite one a lane of it still reads), and the stand-in's scratch at
//! `nu_P + 65`, one element per work-item. The host's `scan_tiling` sizes it so.

use super::reduce::{combine, Red};
use super::ClEmitter;
use crate::emit::template::Ph;

/// Where the warps' totals start, per row parity, and the scratch.
const TOTALS: &str = "nu_P + 1 + ((nu_r / nu_L) % 2) * 32";
pub(super) const SCRATCH: &str = "nu_P + 65";

impl ClEmitter<'_> {
    /// The tile's exclusive scan of `nu_sl<r>[0..nu_cnt]` in place (rows past its
    /// iterations would only combine identities); the total in `nu_tot<r>`
    /// (declared by the caller).
    pub(super) fn row_scan(&mut self, scans: &[Red]) {
        self.raw_line("{");
        self.raw_line("nu_it nu_ln = nu_li % 32, nu_wp = nu_li / 32, nu_W = (nu_L + 31) / 32;");
        self.raw_line("nu_it nu_last = min((nu_it)31, nu_L - 1 - nu_wp * 32);");
        self.out.push_str("#if NU_SHFL\n");
        self.raw_line("int nu_sh = nu_L % 32 == 0 && NU_WARPED;");
        self.out.push_str("#endif\n");
        self.each(scans, |t, r| format!("{t} nu_c{r} = nu_id{r};"));
        self.raw_line("for (nu_it nu_r = 0; nu_r < nu_cnt; nu_r += nu_L) {");
        self.indent += 1;
        self.raw_line(&format!("nu_it nu_e = nu_r + nu_li, nu_wt = {TOTALS};"));
        self.each(scans, |t, r| {
            format!("{t} nu_v{r} = nu_e < nu_cnt ? nu_sl{r}[nu_e] : nu_id{r}, nu_y{r};")
        });
        self.warp_scan(scans, "nu_v");
        self.each(scans, |_, r| {
            format!("if (nu_ln == nu_last) nu_sl{r}[nu_wt + nu_wp] = nu_v{r};")
        });
        self.shift_in(scans, "nu_v", "nu_vx");
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.each(scans, |t, r| {
            format!("{t} nu_u{r} = nu_ln < nu_W ? nu_sl{r}[nu_wt + nu_ln] : nu_id{r};")
        });
        self.warp_scan(scans, "nu_u");
        self.shift_in(scans, "nu_u", "nu_ux");
        self.read_lane(scans, "nu_ux", "nu_wp", "nu_pre");
        self.read_lane(scans, "nu_u", "nu_W - 1", "nu_row");
        self.row_results(scans);
        self.indent -= 1;
        self.raw_line("}");
        self.each(scans, |_, r| format!("nu_tot{r} = nu_c{r};"));
        self.raw_line("}");
    }

    /// One line per scan variable from `f(type, r)`.
    pub(super) fn each(&mut self, scans: &[Red], f: impl Fn(&str, usize) -> String) {
        for x in scans {
            let line = f(&Ph::ty(x.fill), x.r);
            self.raw_line(&line);
        }
    }

    /// `<v><r>` becomes its warp's inclusive scan, lane by lane.
    fn warp_scan(&mut self, scans: &[Red], v: &str) {
        self.raw_line("for (uint nu_d = 1; nu_d < 32; nu_d *= 2) {");
        self.indent += 1;
        self.up(scans, v, "nu_d");
        for Red { r, fill, op, .. } in scans {
            let c = combine(*fill, *op, &format!("nu_y{r}"), &format!("{v}{r}"));
            self.raw_line(&format!("if (nu_ln >= nu_d) {v}{r} = {c};"));
        }
        self.indent -= 1;
        self.raw_line("}");
    }

    /// `<to><r>`: `<v><r>` of the lane below, the identity in lane 0 (exclusive from
    /// inclusive).
    fn shift_in(&mut self, scans: &[Red], v: &str, to: &str) {
        self.up(scans, v, "1u");
        self.each(scans, |t, r| {
            format!("{t} {to}{r} = nu_ln == 0 ? nu_id{r} : nu_y{r};")
        });
    }

    /// `nu_y<r>` = `<v><r>` of the lane `d` below in the warp (any value in lanes below `d`).
    fn up(&mut self, scans: &[Red], v: &str, d: &str) {
        self.warp_step(
            scans,
            v,
            |r| format!("nu_y{r} = nu_shfl_up({v}{r}, {d});"),
            |r| format!("nu_y{r} = nu_ln >= {d} ? nu_sl{r}[{SCRATCH} + nu_li - {d}] : {v}{r};"),
        );
    }

    /// `<to><r>` = `<v><r>` of lane `lane`, which every warp holds alike (in local memory,
    /// warp 0's copy: the last warp may have no such lane).
    fn read_lane(&mut self, scans: &[Red], v: &str, lane: &str, to: &str) {
        self.each(scans, |t, r| format!("{t} {to}{r};"));
        self.warp_step(
            scans,
            v,
            |r| format!("{to}{r} = nu_shfl_idx({v}{r}, (uint)({lane}));"),
            |r| format!("{to}{r} = nu_sl{r}[{SCRATCH} + {lane}];"),
        );
    }

    /// One exchange between lanes: `shuffle(r)` with warp shuffles, else `<v><r>` through
    /// the scratch and `read(r)` between barriers.
    fn warp_step(
        &mut self,
        scans: &[Red],
        v: &str,
        shuffle: impl Fn(usize) -> String,
        read: impl Fn(usize) -> String,
    ) {
        self.out.push_str("#if NU_SHFL\n");
        self.raw_line("if (nu_sh) {");
        self.each(scans, |_, r| format!("    {}", shuffle(r)));
        self.raw_line("} else");
        self.out.push_str("#endif\n");
        self.raw_line("{");
        self.each(scans, |_, r| {
            format!("    nu_sl{r}[{SCRATCH} + nu_li] = {v}{r};")
        });
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.each(scans, |_, r| format!("    {}", read(r)));
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("}");
    }

    /// Each element's exclusive prefix in the tile, and the carry past the row.
    fn row_results(&mut self, scans: &[Red]) {
        for Red { r, fill, op, .. } in scans {
            let inner = combine(*fill, *op, &format!("nu_pre{r}"), &format!("nu_vx{r}"));
            let whole = combine(*fill, *op, &format!("nu_c{r}"), &inner);
            self.raw_line(&format!("if (nu_e < nu_cnt) nu_sl{r}[nu_e] = {whole};"));
        }
        for Red { r, fill, op, .. } in scans {
            let c = combine(*fill, *op, &format!("nu_c{r}"), &format!("nu_row{r}"));
            self.raw_line(&format!("nu_c{r} = {c};"));
        }
    }
}
