//! Emitters, OpenCL C: the single-pass `nuwork!` scan kernel, with decoupled look-back
//! (Merrill and Garland, 2016). Used where no pass has to stop between the totals and the
//! body (no `nudist` rank prefix, no pushed vector to grow); `scan.rs` keeps the two-pass
//! form for those.
//!
//! The iterations, in row-major order of the mapped loops, are cut into tiles of `nu_T`
//! (the host's `scan_tiling`). A work-group takes its tiles from an atomic ticket
//! (`nu_tf[0]`), so tile `k` is only ever taken after tiles `0..k` were, by groups already
//! running: waiting on them needs no forward progress beyond that of running groups, which
//! GPUs and PoCL's CPU drivers give (a CPU driver runs a group to its end on one thread).
//! Per tile the group scans its contributions (GPUs: a chunk per work-item and the chunks'
//! totals by warps, `rowscan.rs`, in local memory; CPUs: a contiguous part per work-item,
//! scanned by the first), publishes the tile's aggregate, looks back over its predecessors'
//! flags (`nu_tf[1 + k]`: 1 aggregate, 2 inclusive prefix; GPUs: a flag per work-item a
//! round, `window.rs`, or for one integer scan variable of 32 bits or fewer a word holding
//! state and value, `packed.rs`; CPUs: the first work-item, one at a time) and publishes its inclusive
//! prefix (every `nu_ev`th tile: all but in `tests/lookback.rs`); then the body runs once
//! per iteration from its running value. A GPU group takes its next ticket as a tile starts.
//!
//! Ordering: values and flags cross groups by atomics, with `mem_fence` between a tile's
//! values and its flag and between a flag and the values read after it (the GPU form says it
//! through the dialect's `nu_flag_rel` and `nu_poll_acq`, `window.rs`: on CUDA a release
//! exchange and an acquire load, where `__threadfence()` was a sequentially consistent
//! fence). ROCm's OpenCL implements OpenCL 1.2's `mem_fence` at work-group scope, which
//! does not order them across compute units (on CDNA it emits nothing), so the OpenCL
//! dialect spells the GPU form's fences for AMD with clang's agent-scope builtin
//! (`backend/c/dialect.rs`; `tests/static_lab.rs` reads the ISA). HIP's dialect uses the
//! compiler's acquire and release atomics. The CPU form keeps `mem_fence`: it runs on CPUs.
//! A GPU's integer scan of one variable of 32 bits or fewer needs no ordering at all: each
//! tile's state and value share a 64-bit word (`packed.rs`).
//!
//! Determinism: the look-back finds the nearest predecessor `j` with an inclusive prefix and
//! then folds the aggregates of `j + 1 .. k` *forward*, so every tile's prefix is the left
//! fold of the start and all aggregates before it, whichever flags it happened to see: the
//! same bits every run on one device, floats included. (Integer scans fold the aggregates by
//! a tree, `window.rs`: their operators are associative and commutative, so the bits are
//! the left fold's.)

use super::reduce::{combine, Red};
use super::rowscan::pad;
use super::scan::combine_of;
use super::ClEmitter;
use crate::base::ir::*;
use crate::emit::template::Ph;

/// Rows of a GPU tile a work-item loads at once (`rows`).
const ROWS: usize = 4;

/// The tile's ticket: taken by the first work-item, broadcast through `nu_tl`.
const TICKET: [&str; 4] = [
    "if (nu_li == 0) nu_tl[0] = atomic_inc(&nu_tf[0]);",
    "barrier(CLK_LOCAL_MEM_FENCE);",
    "nu_k = nu_tl[0];",
    "barrier(CLK_LOCAL_MEM_FENCE);",
];

impl ClEmitter<'_> {
    /// The single-pass kernel; `params` are the record, ranges and captures.
    pub(super) fn lookback_kernel(
        mut self,
        name: &str,
        params: Vec<String>,
        mapped: &[Loop],
        body: &Block,
        slice: &Block,
    ) -> String {
        self.grid = true;
        let (scans, others) = (self.reds(Some(true)), self.reds(Some(false)));
        let mut p = params;
        p.extend(self.tile_params(&scans));
        p.extend(self.reduction_params(&others));
        self.iterations(mapped.len());
        self.raw_line(
            "nu_it nu_L = get_local_size(0), nu_li = get_local_id(0), nu_TT = (nu_it)nu_T;",
        );
        self.raw_line("nu_it nu_P = 1, nu_k = 0;");
        self.raw_line("while (nu_P < nu_TT) nu_P *= 2;");
        // A GPU tile sits in local memory padded (`rowscan.rs`): its slots end here.
        self.raw_line("nu_P += nu_P / 32;");
        TICKET.iter().for_each(|l| self.raw_line(l));
        // On a CPU driver each group takes exactly one tile, so its ticket is a tile and no
        // barrier sits under a condition or loop on it: PoCL compiles those as if every
        // work-item's value were its first's, which a value read from local memory defeats
        // (it ran past the tiles). A GPU's groups stay and take tiles in turn.
        self.out.push_str("#if NU_CPU\n");
        self.raw_line("{");
        self.indent += 1;
        self.tile_bounds();
        self.cpu_tile(mapped, body, slice, &scans);
        self.indent -= 1;
        self.out.push_str("#else\n");
        self.raw_line("while ((ulong)nu_k * nu_TT < (ulong)nu_N) {");
        self.indent += 1;
        self.tile_bounds();
        // The next ticket is taken as the tile starts and read as it ends, so its round trip
        // to L2 hides behind the tile's loads. The group holds that tile while it works on
        // this one, which waits on no later tile: whoever waits on it waits on a running group.
        self.raw_line("uint nu_nx = 0;");
        self.raw_line("if (nu_li == 0) nu_nx = atomic_inc(&nu_tf[0]);");
        self.gpu_tile(mapped, body, slice, &scans);
        self.raw_line("if (nu_li == 0) nu_tl[0] = nu_nx;");
        TICKET[1..].iter().for_each(|l| self.raw_line(l));
        self.indent -= 1;
        self.out.push_str("#endif\n");
        self.raw_line("}");
        self.tree(&others);
        // Left to itself, ptxas gave this kernel 32 registers and a spill once the window's
        // tree came in, and kept 2 of a tile's 4 row loads in flight; at 48 warps (40
        // registers) it keeps all 4, as before the tree (the static lab's sm_90 records).
        // Only for a small body (as `reduce.rs` counts them): a larger one may need more.
        let attrs = match super::reduce::unrolls(body) {
            true => self.bounds_warps(48),
            false => self.bounds(),
        };
        super::marks::kernel_def(name, &attrs, &p, &self.out)
    }

    /// Tile `nu_k`'s iterations `nu_lo..nu_hi`.
    fn tile_bounds(&mut self) {
        self.raw_line("nu_it nu_lo = nu_k * nu_TT, nu_hi = nu_lo + min(nu_TT, nu_N - nu_lo), nu_cnt = nu_hi - nu_lo;");
    }

    /// Per scan variable: its tiles' aggregates and inclusive prefixes, the identity, the
    /// start (the variable before the loop), local memory; then the ticket and flags, the
    /// tile size, the publishing stride and the local slots of the ticket and the window.
    fn tile_params(&self, scans: &[Red]) -> Vec<String> {
        let mut params = Vec::new();
        let g = super::marks::global();
        for Red { r, fill, .. } in scans {
            let t = Ph::ty(*fill);
            params.extend([
                format!("{g}uint* nu_sa{r}, nu_idx nu_sa{r}__d0"),
                format!("{g}uint* nu_si{r}, nu_idx nu_si{r}__d0"),
                format!("{t} nu_id{r}"),
                format!("{t} nu_s0{r}"),
                super::marks::local_param(&t, &format!("nu_sl{r}"), true),
            ]);
        }
        params.extend([
            format!("{g}uint* nu_tf, nu_idx nu_tf__d0"),
            "ulong nu_T".to_string(),
            "uint nu_ev".to_string(),
            super::marks::local_param("uint", "nu_tl", true),
        ]);
        params
    }

    /// GPUs: the tile's contributions in local memory (padded, `rowscan.rs`); their scan, a
    /// chunk per work-item; the group's look-back; the body from the prefixes.
    fn gpu_tile(&mut self, mapped: &[Loop], body: &Block, slice: &Block, scans: &[Red]) {
        self.rows(scans, |e| {
            e.declare_scans(scans, |r| format!("nu_id{r}"));
            e.at_iteration(mapped, slice);
            for Red { r, var, .. } in scans {
                e.raw_line(&format!("nu_q{r}[nu_u] = {var};"));
            }
        });
        self.each(scans, |t, r| format!("{t} nu_tot{r};"));
        self.row_scan(scans);
        self.window_look_back(scans);
        self.rows(&[], |e| {
            e.declare_scans(scans, |r| {
                combine_of(
                    scans,
                    r,
                    &format!("nu_sl{r}[nu_P]"),
                    &format!("nu_sl{r}[{}]", pad("nu_e")),
                )
            });
            e.at_iteration(mapped, body);
        });
    }

    /// A GPU tile's iterations `nu_e` (`nu_t` in the launch), `ROWS` rows of the group a
    /// round, unrolled, each emitted by `each`, so a work-item's loads of its rows are all in
    /// flight before the first is used (one at a time, a work-item's single 4-byte load leaves
    /// a multiprocessor a third of the bytes in flight HBM needs). Two forms, the dialect's
    /// `NU_PRED_ROWS` choosing: one loop whose rows are guarded by the tile's end, which ptxas
    /// makes predicates; or, for LLVM's AMDGPU back end, which keeps each guard a branch and
    /// waits for the row's load before it, the full rounds unguarded and the rest a row at a
    /// time in a loop of its own (one loop branching between the two lets LLVM hoist the code
    /// they share back above the branch).
    ///
    /// With `stash` scan variables, `each` leaves row `nu_u`'s contributions in `nu_q<r>[nu_u]`
    /// and a second unrolled loop stores them to the padded tile: with each row's store right
    /// after its load, ptxas issued the filter's third load after the first one's use.
    fn rows(&mut self, stash: &[Red], mut each: impl FnMut(&mut Self)) {
        self.out.push_str("#if NU_PRED_ROWS\n");
        self.row_rounds("nu_cnt", true, stash, &mut each);
        self.out.push_str("#else\n");
        self.raw_line("{");
        self.indent += 1;
        self.raw_line(&format!(
            "nu_it nu_full = nu_cnt - nu_cnt % ({ROWS} * nu_L);"
        ));
        self.row_rounds("nu_full", false, stash, &mut each);
        self.raw_line("for (nu_it nu_e = nu_full + nu_li; nu_e < nu_cnt; nu_e += nu_L) {");
        self.indent += 1;
        self.raw_line("nu_it nu_t = nu_lo + nu_e;");
        if !stash.is_empty() {
            self.raw_line("const uint nu_u = 0;");
        }
        self.stash_decl(stash, 1);
        each(self);
        self.stash_store(stash);
        self.close(2);
        self.out.push_str("#endif\n");
    }

    /// The rounds of `rows` below `end`, each row `guard`ed by the tile's end or not.
    fn row_rounds(
        &mut self,
        end: &str,
        guard: bool,
        stash: &[Red],
        each: &mut impl FnMut(&mut Self),
    ) {
        self.raw_line(&format!(
            "for (nu_it nu_eb = nu_li; nu_eb < {end}; nu_eb += {ROWS} * nu_L) {{"
        ));
        self.indent += 1;
        self.stash_decl(stash, ROWS);
        self.raw_line("NU_UNROLL");
        self.raw_line(&format!("for (uint nu_u = 0; nu_u < {ROWS}; nu_u++) {{"));
        self.indent += 1;
        self.raw_line("nu_it nu_e = nu_eb + nu_u * nu_L;");
        if guard {
            self.raw_line("if (nu_e < nu_cnt) {");
            self.indent += 1;
        }
        self.raw_line("nu_it nu_t = nu_lo + nu_e;");
        each(self);
        self.close(1 + usize::from(guard));
        if !stash.is_empty() {
            self.raw_line("NU_UNROLL");
            self.raw_line(&format!("for (uint nu_u = 0; nu_u < {ROWS}; nu_u++) {{"));
            self.indent += 1;
            self.raw_line("nu_it nu_e = nu_eb + nu_u * nu_L;");
            self.raw_line(&format!(
                "if ({}) {{",
                if guard { "nu_e < nu_cnt" } else { "1" }
            ));
            self.indent += 1;
            self.stash_store(stash);
            self.close(2);
        }
        self.close(1);
    }

    /// The stashed contributions of `rows` rows.
    fn stash_decl(&mut self, stash: &[Red], rows: usize) {
        self.each(stash, |t, r| format!("{t} nu_q{r}[{rows}];"));
    }

    /// Row `nu_u`'s stashed contributions into the padded tile.
    fn stash_store(&mut self, stash: &[Red]) {
        let at = pad("nu_e");
        self.each(stash, |_, r| format!("nu_sl{r}[{at}] = nu_q{r}[nu_u];"));
    }

    /// CPUs: a contiguous part of the tile per work-item; its slice total; the first
    /// work-item's scan of them, then its look-back; the body in loop order.
    fn cpu_tile(&mut self, mapped: &[Loop], body: &Block, slice: &Block, scans: &[Red]) {
        self.raw_line("{");
        self.raw_line("nu_it nu_sub = (nu_hi - nu_lo) / nu_L + ((nu_hi - nu_lo) % nu_L != 0);");
        self.raw_line("nu_it nu_a = (nu_it)min((ulong)nu_lo + (ulong)nu_li * nu_sub, (ulong)nu_hi), nu_b = nu_a + min(nu_sub, nu_hi - nu_a);");
        self.part_totals(mapped, slice, scans);
        self.serial_scan_open(scans);
        self.look_back(scans, "nu_run", "nu_L");
        self.raw_line("}");
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.raw_line("{");
        self.declare_scans(scans, |r| {
            combine_of(
                scans,
                r,
                &format!("nu_sl{r}[nu_L]"),
                &format!("nu_sl{r}[nu_li]"),
            )
        });
        self.raw_line("for (nu_it nu_t = nu_a; nu_t < nu_b; nu_t++) {");
        self.indent += 1;
        self.at_iteration(mapped, body);
        self.indent -= 1;
        self.raw_line("}");
        self.raw_line("}");
        self.raw_line("}");
    }

    /// The first work-item, with the tile's aggregates in `<agg><r>`: publishes them, finds
    /// the tile's exclusive prefix and publishes the inclusive one, and leaves the prefix in
    /// `nu_sl<r>[<slot>]` for the group.
    fn look_back(&mut self, scans: &[Red], agg: &str, slot: &str) {
        let g = super::marks::global();
        self.raw_line(&format!(
            "    volatile {g}uint* nu_fl = (volatile {g}uint*)nu_tf + 1;"
        ));
        for Red { r, fill, .. } in scans {
            let t = Ph::ty(*fill);
            self.raw_line(&format!("    {t} nu_px{r} = nu_s0{r};"));
            self.raw_line(&format!(
                "    {}",
                publish(&t, &format!("nu_sa{r}"), &format!("{agg}{r}"))
            ));
        }
        self.raw_line("    if (nu_k > 0) {");
        self.raw_line("        mem_fence(CLK_GLOBAL_MEM_FENCE);");
        self.raw_line("        atomic_xchg(&nu_fl[nu_k], 1u);");
        self.raw_line("        nu_it nu_j = nu_k - 1;");
        self.raw_line("        for (;;) {");
        self.raw_line("            uint nu_f = atomic_or(&nu_fl[nu_j], 0u);");
        self.raw_line("            if (nu_f == 2u) break;");
        self.raw_line("            if (nu_f == 1u) nu_j--;");
        self.raw_line("        }");
        self.raw_line("        mem_fence(CLK_GLOBAL_MEM_FENCE);");
        self.fold_forward(scans);
        self.raw_line("    }");
        for Red { r, fill, op, .. } in scans {
            let t = Ph::ty(*fill);
            let inc = combine(*fill, *op, &format!("nu_px{r}"), &format!("{agg}{r}"));
            self.raw_line(&format!("    {}", publish(&t, &format!("nu_si{r}"), &inc)));
        }
        self.raw_line("    mem_fence(CLK_GLOBAL_MEM_FENCE);");
        self.raw_line("    if (nu_k % nu_ev == 0) atomic_xchg(&nu_fl[nu_k], 2u);");
        for Red { r, .. } in scans {
            self.raw_line(&format!("    nu_sl{r}[{slot}] = nu_px{r};"));
        }
    }

    /// The exclusive prefix from tile `nu_j`'s inclusive one and the aggregates after it,
    /// left to right.
    fn fold_forward(&mut self, scans: &[Red]) {
        for Red { r, fill, .. } in scans {
            let t = Ph::ty(*fill);
            let get = fetch(&t, &format!("nu_si{r}"), "nu_j", &format!("nu_px{r}"));
            self.raw_line(&format!("        {get}"));
        }
        self.raw_line("        for (nu_it nu_i = nu_j + 1; nu_i < nu_k; nu_i++) {");
        for Red { r, fill, op, .. } in scans {
            let t = Ph::ty(*fill);
            let get = fetch(&t, &format!("nu_sa{r}"), "nu_i", &format!("{t} nu_y{r}"));
            let c = combine(*fill, *op, &format!("nu_px{r}"), &format!("nu_y{r}"));
            self.raw_line(&format!("            {get}"));
            self.raw_line(&format!("            nu_px{r} = {c};"));
        }
        self.raw_line("        }");
    }
}

/// Stores `value` of type `t` as tile `nu_k`'s two words of `array`, by atomics: another
/// group reads them once it saw the flag, and OpenCL orders accesses across groups only
/// through atomics (and Oclgrind would report plain ones as races).
pub(super) fn publish(t: &str, array: &str, value: &str) -> String {
    format!(
        "{{ union {{ {t} v; ulong w; }} nu_u; nu_u.w = 0; nu_u.v = {value}; \
         atomic_xchg(&{array}[2 * nu_k], (uint)nu_u.w); atomic_xchg(&{array}[2 * nu_k + 1], (uint)(nu_u.w >> 32)); }}"
    )
}

/// `<dst> = ` the value of type `t` that tile `index` published in `array`, by the dialect's
/// relaxed atomic loads (`nu_poll`: on CUDA a plain `ld.relaxed.gpu`, where an `atomic_or`
/// would be a read-modify-write at L2), ordered after the flag's read by its acquire (the
/// GPU form: an acquire load and a barrier; the CPU form: a fence). `dst` may declare the
/// variable, which then lives in the enclosing block.
pub(super) fn fetch(t: &str, array: &str, index: &str, dst: &str) -> String {
    format!(
        "union {{ {t} v; ulong w; }} nu_u{array}; \
         nu_u{array}.w = (ulong)nu_poll(&{array}[2 * ({index})]) | ((ulong)nu_poll(&{array}[2 * ({index}) + 1]) << 32); \
         {dst} = nu_u{array}.v;"
    )
}
