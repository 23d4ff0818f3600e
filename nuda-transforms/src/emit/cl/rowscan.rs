//! Emitters, OpenCL C: a GPU tile's scan for the single-pass kernel (`lookback.rs`), a
//! contiguous chunk of the tile per work-item: each work-item folds its chunk serially, the
//! group scans those totals as one row in warps of 32 (a warp's inclusive scan, the warps'
//! totals scanned by every warp), and each work-item writes its chunk's exclusive prefixes
//! from its total's. Two barriers a tile, where a row of one element per work-item took two
//! warp scans and a barrier per row (16 rows of a 4096-element tile in groups of 256).
//!
//! The tile sits in local memory padded, element `e` at `e + e / 32`
//! ([`pad`]), so that the lanes of a warp reading their chunks' `j`th elements at a stride
//! of a power of two up to 32 hit 32 different banks, and rows stored one element per
//! work-item stay conflict-free too.
//!
//! With warp shuffles (`NU_SHFL`: CUDA's, HIP's, OpenCL sub-groups') and whole warps (the
//! group a multiple of 32, and `NU_WARPED`, as the reduction tree's), a
//! step is `nu_shfl_up` or `nu_shfl_idx` in registers. Otherwise the same steps go through
//! local memory with barriers: the same pairs in the same order, so the same bits, and the
//! path Oclgrind runs (and checks for races) is the CUDA path's arithmetic.
//!
//! Local memory per scan variable, after the padded tile (`nu_P` past it, the kernel's
//! padded tile size) and the tile prefix at `nu_P`: the warps' totals at `nu_P + 1`, and the
//! stand-in's scratch at `nu_P + 33`, one element per work-item. The host's `scan_tiling`
//! sizes it so.

use super::reduce::{combine, Red};
use super::ClEmitter;
use crate::emit::template::Ph;

/// Where the warps' totals start, and the scratch.
const TOTALS: &str = "nu_P + 1";
pub(super) const SCRATCH: &str = "nu_P + 33";

/// Element `e`'s place in a tile in local memory: a word of padding every 32.
pub(super) fn pad(e: &str) -> String {
    format!("({e}) + ({e}) / 32")
}

impl ClEmitter<'_> {
    /// The tile's exclusive scan of `nu_sl<r>[0..nu_cnt]` in place (padded), from the
    /// contributions every work-item stored; the total in `nu_tot<r>` (declared by the
    /// caller).
    pub(super) fn row_scan(&mut self, scans: &[Red]) {
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("{");
        self.raw_line("nu_it nu_ln = nu_li % 32, nu_wp = nu_li / 32, nu_W = (nu_L + 31) / 32;");
        self.raw_line("nu_it nu_last = min((nu_it)31, nu_L - 1 - nu_wp * 32);");
        self.out.push_str("#if NU_SHFL\n");
        self.raw_line("int nu_sh = nu_L % 32 == 0 && NU_WARPED;");
        self.out.push_str("#endif\n");
        self.raw_line(&format!(
            "nu_it nu_K = (nu_cnt + nu_L - 1) / nu_L, nu_a = min(nu_li * nu_K, nu_cnt), \
             nu_b = min(nu_a + nu_K, nu_cnt), nu_wt = {TOTALS};"
        ));
        self.each(scans, |t, r| format!("{t} nu_v{r} = nu_id{r}, nu_y{r};"));
        self.chunk_loop(scans, |red, x| {
            let r = red.r;
            format!(
                "nu_v{r} = {};",
                combine(red.fill, red.op, &format!("nu_v{r}"), x)
            )
        });
        self.totals_row(scans);
        for Red { r, fill, op, .. } in scans {
            let p = combine(*fill, *op, &format!("nu_pre{r}"), &format!("nu_vx{r}"));
            self.raw_line(&format!("{} nu_p{r} = {p};", Ph::ty(*fill)));
        }
        self.chunk_loop(scans, |red, x| {
            let r = red.r;
            let next = combine(red.fill, red.op, &format!("nu_p{r}"), &format!("nu_x{r}"));
            let t = Ph::ty(red.fill);
            format!("{{ {t} nu_x{r} = {x}; {x} = nu_p{r}; nu_p{r} = {next}; }}")
        });
        self.each(scans, |_, r| format!("nu_tot{r} = nu_row{r};"));
        self.raw_line("}");
    }

    /// A loop over the work-item's chunk `nu_a..nu_b`, a line per scan variable from
    /// `f(variable, element)`.
    fn chunk_loop(&mut self, scans: &[Red], f: impl Fn(&Red, &str) -> String) {
        self.raw_line("for (nu_it nu_i = nu_a; nu_i < nu_b; nu_i++) {");
        self.indent += 1;
        for red in scans {
            let x = format!("nu_sl{}[{}]", red.r, pad("nu_i"));
            let line = f(red, &x);
            self.raw_line(&line);
        }
        self.indent -= 1;
        self.raw_line("}");
    }

    /// The work-items' chunk totals `nu_v<r>` scanned as one row: `nu_vx<r>` the lane's
    /// exclusive prefix in its warp, `nu_pre<r>` the warp's in the group, `nu_row<r>` the
    /// group's total.
    fn totals_row(&mut self, scans: &[Red]) {
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
}
