//! Emitters, OpenCL C: a GPU tile's look-back in the single-pass scan (`lookback.rs`), by a
//! window of as many predecessors as the group has work-items, each polling one flag.
//!
//! Why not one work-item walking back a tile at a time, as the CPU form does: each step is a
//! round trip to the device's L2 (half a microsecond), and on a GPU a thousand groups start
//! their tiles together. Each then walks back over aggregates until it meets an inclusive
//! prefix, so the first ones published are about √k steps back from tile k, and walks that
//! long set every later tile's distance too: tens of round trips a tile, where the tile's own
//! loads take a few microseconds.
//!
//! Why the whole group and not a warp of 32, as CUB's look-back: in the steady state a tile
//! finds its nearest inclusive prefix as many tiles back as were started while a look-back
//! takes, and a window of `w` tiles a round caps the scan at `w` tiles a round. On the H200
//! a round (poll, fence, three barriers) took about 1.1 µs, so windows of 32 held the scan
//! of 2^26 u32 at 29 tiles of 4096 a microsecond, 956 GB/s, a quarter of the copy peer
//! (`benchmarks/h200-s39/call1`). A group of 256 moves that cap past what HBM feeds.
//!
//! All work-items of the group run it (its barriers need them all): each of the first `nu_lw`
//! (the group) reads one predecessor's flag (`nu_poll_acq`: the dialect's acquire atomic
//! load; on OpenCL an `atomic_or` with 0 and a `mem_fence`), and the nearest one that is not an aggregate alone wins a
//! local `atomic_min`: an inclusive prefix ends the walk; a flag not yet set is polled again.
//! Then the window's work-items fetch the aggregates between that prefix and the tile, a
//! window at a time, into the local scratch, and the first work-item folds them *forward*, so
//! the prefix is the left fold `lookback.rs` promises, whichever flags were seen. Integer
//! scans fold them by a tree instead (`exact_fold`): their operators give the same bits in
//! any order, and the first work-item's fold took a local read and a combine per tile of the
//! distance, which grows with the tiles in flight (hundreds on an H200).
//!
//! An integer scan of one variable of 32 bits or fewer (a filter's `u32` counter too) takes
//! `packed.rs`'s form of the same rounds on devices with 64-bit atomics instead: each tile's
//! state and value in one word, read whole, with no second round trip for the values and no
//! ordering.
//!
//! Ordering: a work-item reads a flag with acquire order (`nu_poll_acq`) before the barrier
//! after which it or another work-item reads the values published before that flag, and a
//! flag is set with release order (`nu_flag_rel`). On OpenCL both are a fence beside the
//! atomic they were (`mem_fence`, or on AMD's GPUs an agent-scope fence); on CUDA, PTX's acquire load and release exchange, where
//! `__threadfence()` made each of the window's pollers run a sequentially consistent fence.

use super::lookback::{fetch, publish};
use super::reduce::{combine, Red};
// The window's aggregates go to the row scan's scratch, one element per work-item, free once
// the tile is scanned.
use super::rowscan::SCRATCH;
use super::ClEmitter;
use crate::emit::template::Ph;

/// One round of the window, each of the first `nu_lw` work-items reading a predecessor's
/// state into `nu_f` by the lines `poll`: `nu_tl[1]` ends as twice the nearest
/// non-aggregate's distance below `nu_j` (plus 1 if its flag is not set yet), or `2 * nu_lw`
/// if all are aggregates; tiles below 0 read as the start, an inclusive prefix. `nu_m` is
/// that, for the whole group.
pub(super) fn round_lines(poll: &[&str]) -> Vec<String> {
    let mut lines = vec![
        "if (nu_li == 0) nu_tl[1] = 2 * nu_lw;".to_string(),
        "barrier(CLK_LOCAL_MEM_FENCE);".to_string(),
        "if (nu_li < nu_lw) {".to_string(),
    ];
    lines.extend(poll.iter().map(|l| format!("    {l}")));
    lines.extend(
        [
            "    if (nu_f != 1u) atomic_min(&nu_tl[1], (uint)(2 * nu_li) + (nu_f == 0u));",
            "}",
            "barrier(CLK_LOCAL_MEM_FENCE);",
            "uint nu_m = nu_tl[1];",
            "barrier(CLK_LOCAL_MEM_FENCE);",
        ]
        .map(String::from),
    );
    lines
}

impl ClEmitter<'_> {
    /// Every work-item, with the tile's aggregates in `nu_tot<r>`: publishes them, finds the
    /// tile's exclusive prefix by windows and publishes the inclusive one (every `nu_ev`th
    /// tile: 1 but in tests), and leaves the prefix in `nu_sl<r>[nu_P]` after a barrier.
    pub(super) fn window_look_back(&mut self, scans: &[Red]) {
        let g = super::marks::global();
        self.packed_branch(scans);
        self.raw_line("{");
        self.indent += 1;
        self.raw_line(&format!(
            "volatile {g}uint* nu_fl = (volatile {g}uint*)nu_tf + 1;"
        ));
        self.each(scans, |t, r| format!("{t} nu_px{r} = nu_s0{r};"));
        self.raw_line("if (nu_li == 0) {");
        for Red { r, fill, .. } in scans {
            let value = publish(&Ph::ty(*fill), &format!("nu_sa{r}"), &format!("nu_tot{r}"));
            self.raw_line(&format!("    {value}"));
        }
        self.raw_line("    if (nu_k > 0) nu_flag_rel(&nu_fl[nu_k], 1u);");
        self.raw_line("}");
        self.raw_line("nu_it nu_lw = nu_L, nu_j = nu_k;");
        self.raw_line("for (;;) {");
        let poll = ["uint nu_f = nu_li < nu_j ? nu_poll_acq(&nu_fl[nu_j - 1 - nu_li]) : 2u;"];
        round_lines(&poll)
            .iter()
            .for_each(|l| self.raw_line(&format!("    {l}")));
        self.raw_line("    nu_j -= nu_m / 2;");
        self.raw_line("    if (nu_m % 2 == 0 && nu_m < 2 * nu_lw) break;");
        self.raw_line("}");
        self.window_fold(scans);
        self.window_publish(scans);
        self.indent -= 1;
        self.raw_line("}");
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
    }

    /// One integer scan variable of 32 bits or fewer, on a device with 64-bit atomics: the
    /// look-back with its state and value in one word (`packed.rs`), else the block after.
    fn packed_branch(&mut self, scans: &[Red]) {
        let [one] = scans else { return };
        self.out.push_str("#if NU_PACKED\n");
        let packable = packable(&Ph::ty(one.fill));
        self.raw_line(&format!("if ({packable}) {{"));
        self.indent += 1;
        self.packed_look_back(one);
        self.indent -= 1;
        self.raw_line("} else");
        self.out.push_str("#endif\n");
    }

    /// Tiles `nu_j..nu_k` hold aggregates and tile `nu_j - 1` (if any) its inclusive prefix:
    /// the first work-item's `nu_px<r>` becomes their left fold from it. Integer scans take
    /// a tree (`exact_fold`); floats the fold itself, one aggregate after another.
    fn window_fold(&mut self, scans: &[Red]) {
        self.raw_line("if (nu_li == 0 && nu_j > 0) {");
        for Red { r, fill, .. } in scans {
            let get = fetch(
                &Ph::ty(*fill),
                &format!("nu_si{r}"),
                "nu_j - 1",
                &format!("nu_px{r}"),
            );
            self.raw_line(&format!("    {get}"));
        }
        self.raw_line("}");
        // `(T)0.5f == (T)0` holds of integer types alone: a constant the compiler folds
        // (joined by `&`: clang warns of `&&` between constants).
        let ints: Vec<String> = scans
            .iter()
            .map(|s| format!("(({t})0.5f == ({t})0)", t = Ph::ty(s.fill)))
            .collect();
        self.raw_line(&format!("if ({}) {{", ints.join(" & ")));
        self.indent += 1;
        self.exact_fold(scans);
        self.indent -= 1;
        self.raw_line("} else {");
        self.indent += 1;
        self.serial_fold(scans);
        self.indent -= 1;
        self.raw_line("}");
    }

    /// Integer operators (wrapping sums and products, bitwise, `min`, `max`) give the same
    /// bits in any order: each work-item folds every `nu_lw`th aggregate from `nu_j + nu_li`,
    /// a tree in local memory folds those, and the first work-item adds the tree's result.
    /// Log2 of the group's steps, where one work-item folding a window of aggregates took
    /// one local read and combine after another (a window per distance of `nu_lw` tiles).
    fn exact_fold(&mut self, scans: &[Red]) {
        // `nu_c` is the group's: a tile whose predecessor has its prefix skips the barriers.
        self.raw_line("nu_it nu_c = min(nu_lw, nu_k - nu_j);");
        self.raw_line("if (nu_c > 0) {");
        self.indent += 1;
        self.raw_line("if (nu_li < nu_c) {");
        for Red { r, fill, op, .. } in scans {
            let t = Ph::ty(*fill);
            let first = fetch(
                &t,
                &format!("nu_sa{r}"),
                "nu_j + nu_li",
                &format!("{t} nu_wq{r}"),
            );
            let next = fetch(&t, &format!("nu_sa{r}"), "nu_i", &format!("{t} nu_y{r}"));
            let c = combine(*fill, *op, &format!("nu_wq{r}"), &format!("nu_y{r}"));
            self.raw_line(&format!("    {first}"));
            self.raw_line(
                "    for (nu_it nu_i = nu_j + nu_li + nu_lw; nu_i < nu_k; nu_i += nu_lw) {",
            );
            self.raw_line(&format!("        {next} nu_wq{r} = {c};"));
            self.raw_line("    }");
            self.raw_line(&format!("    nu_sl{r}[{SCRATCH} + nu_li] = nu_wq{r};"));
        }
        self.raw_line("}");
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.scratch_tree(scans);
        self.raw_line("if (nu_li == 0) {");
        for Red { r, fill, op, .. } in scans {
            let c = combine(
                *fill,
                *op,
                &format!("nu_px{r}"),
                &format!("nu_sl{r}[{SCRATCH}]"),
            );
            self.raw_line(&format!("    nu_px{r} = {c};"));
        }
        self.raw_line("}");
        self.indent -= 1;
        self.raw_line("}");
    }

    /// The scratch's first `nu_c` values folded into its first, a halving stride a step.
    pub(super) fn scratch_tree(&mut self, scans: &[Red]) {
        self.raw_line("nu_it nu_h = 1;");
        self.raw_line("while (2 * nu_h < nu_c) nu_h *= 2;");
        let slot = |r: usize, i: &str| format!("nu_sl{r}[{SCRATCH} + {i}]");
        self.halving_steps(scans, "nu_h > 0", ("nu_li", "nu_c"), slot);
    }

    /// The left fold of `nu_px<r>` and the aggregates, a window of `nu_lw` at a time.
    fn serial_fold(&mut self, scans: &[Red]) {
        self.raw_line("for (nu_it nu_wb = nu_j; nu_wb < nu_k; nu_wb += nu_lw) {");
        self.raw_line("    nu_it nu_wn = min(nu_lw, nu_k - nu_wb);");
        self.raw_line("    if (nu_li < nu_wn) {");
        for Red { r, fill, .. } in scans {
            let t = Ph::ty(*fill);
            let get = fetch(
                &t,
                &format!("nu_sa{r}"),
                "nu_wb + nu_li",
                &format!("{t} nu_y{r}"),
            );
            self.raw_line(&format!("        {get}"));
            self.raw_line(&format!("        nu_sl{r}[{SCRATCH} + nu_li] = nu_y{r};"));
        }
        self.raw_line("    }");
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("    if (nu_li == 0) for (nu_it nu_i = 0; nu_i < nu_wn; nu_i++) {");
        for Red { r, fill, op, .. } in scans {
            let next = format!("nu_sl{r}[{SCRATCH} + nu_i]");
            let c = combine(*fill, *op, &format!("nu_px{r}"), &next);
            self.raw_line(&format!("        nu_px{r} = {c};"));
        }
        self.raw_line("    }");
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("}");
    }

    /// The first work-item publishes the tile's inclusive prefix and leaves its exclusive
    /// one for the group.
    fn window_publish(&mut self, scans: &[Red]) {
        self.raw_line("if (nu_li == 0) {");
        for Red { r, fill, op, .. } in scans {
            let t = Ph::ty(*fill);
            let inc = combine(*fill, *op, &format!("nu_px{r}"), &format!("nu_tot{r}"));
            self.raw_line(&format!("    {}", publish(&t, &format!("nu_si{r}"), &inc)));
            self.raw_line(&format!("    nu_sl{r}[nu_P] = nu_px{r};"));
        }
        self.raw_line("    if (nu_k % nu_ev == 0) nu_flag_rel(&nu_fl[nu_k], 2u);");
        self.raw_line("}");
    }
}

/// Whether a scan variable of type `t` takes the packed look-back: an integer type (`(T)0.5f
/// == (T)0` holds of those alone) of at most 4 bytes, a constant the compiler folds.
fn packable(t: &str) -> String {
    format!("(sizeof({t}) <= 4) & (({t})0.5f == ({t})0)")
}
