//! Emitters, OpenCL C: a GPU tile's look-back with each tile's state and value in one 64-bit
//! word (what CUB's device scan does for values of 4 bytes or fewer), for a scan of one
//! integer variable of at most 32 bits on devices with 64-bit atomics (`NU_PACKED`: CUDA,
//! HIP, OpenCL with `cl_khr_int64_base_atomics`). Integer scans take it, and filters whose
//! `push` counts in a `u32`; other scans keep `window.rs`'s flags beside their values.
//!
//! Why: with the flag apart from the value, a tile publishes the value, then the flag with
//! release order, and a poller reads the flag with acquire order and then, a second round
//! trip to L2 later, the values of the tiles it found. One word makes both one atomic access:
//! the value is read with its state, no ordering between two locations is needed, so no
//! fence or acquire either (on CUDA, relaxed 64-bit loads and stores; `tests/static_lab.rs`
//! reads the SASS and AMD's ISA).
//!
//! The word is the value's bits above the state (0 none yet, 1 aggregate, 2 inclusive
//! prefix), in the tile's slot of `nu_si<r>` (zeroed by the host, as the flags). A round's
//! pollers each read a predecessor's word; the nearest that is not an aggregate stops the
//! round (`window.rs`'s `round_lines`), and the values below it, with the inclusive prefix if one
//! stopped it, are folded into the tile's prefix by a tree. Their order differs from the left
//! fold, which integers' operators (wrapping sums and products, bitwise, `min`, `max`) do not
//! see: the bits are the left fold's, as `lookback.rs` promises. The aggregates also go to
//! `nu_sa<r>` as before, for the host's total alone.

use super::reduce::{combine, Red};
use super::rowscan::SCRATCH;
use super::ClEmitter;
use crate::emit::template::Ph;

impl ClEmitter<'_> {
    /// `window_look_back`'s work for one scan variable that `packable` says fits a word.
    pub(super) fn packed_look_back(&mut self, red: &Red) {
        let (r, t) = (red.r, Ph::ty(red.fill));
        let g = super::marks::global();
        self.raw_line(&format!(
            "volatile {g}ulong* nu_pw = (volatile {g}ulong*)nu_si{r};"
        ));
        self.raw_line(&format!("{t} nu_px{r} = nu_id{r};"));
        self.raw_line("if (nu_li == 0) {");
        self.raw_line(&format!("    {}", bits(&t, &format!("nu_tot{r}"), "nu_ab")));
        self.raw_line(&format!(
            "    nu_sa{r}[2 * nu_k] = nu_ab; nu_sa{r}[2 * nu_k + 1] = 0u;"
        ));
        self.raw_line("    if (nu_k > 0) nu_pub64(&nu_pw[nu_k], (ulong)nu_ab << 32 | 1u);");
        self.raw_line("}");
        // Tiles below 0 read as the start, an inclusive prefix.
        self.raw_line(&bits(&t, &format!("nu_s0{r}"), "nu_sb"));
        self.raw_line("ulong nu_ws = (ulong)nu_sb << 32 | 2u;");
        self.raw_line("nu_it nu_lw = nu_L, nu_j = nu_k;");
        self.raw_line("for (;;) {");
        self.indent += 1;
        self.packed_round();
        self.packed_fold(red);
        self.raw_line("nu_j -= nu_m / 2;");
        self.raw_line("if (nu_m % 2 == 0 && nu_m < 2 * nu_lw) break;");
        self.indent -= 1;
        self.raw_line("}");
        self.packed_publish(red);
    }

    /// A round: each of the first `nu_lw` work-items reads a predecessor's word into `nu_w`,
    /// and `nu_m` says where the round stopped (`window.rs`'s `round_lines`).
    fn packed_round(&mut self) {
        self.raw_line("ulong nu_w = 0;");
        let poll = [
            "nu_w = nu_li < nu_j ? nu_poll64(&nu_pw[nu_j - 1 - nu_li]) : nu_ws;",
            "uint nu_f = (uint)nu_w;",
        ];
        super::window::round_lines(&poll)
            .iter()
            .for_each(|l| self.raw_line(l));
    }

    /// The round's values below where it stopped, and the inclusive prefix if one stopped it
    /// (`nu_c` of them, the first work-items'), folded into the first work-item's prefix:
    /// its own alone when it is the one, else by a tree in the scratch.
    fn packed_fold(&mut self, red: &Red) {
        let (r, t) = (red.r, Ph::ty(red.fill));
        let into = |e: &mut Self, v: &str| {
            let c = combine(red.fill, red.op, &format!("nu_px{r}"), v);
            e.raw_line(&format!("    if (nu_li == 0) nu_px{r} = {c};"));
        };
        self.raw_line("nu_it nu_c = nu_m / 2 + (nu_m % 2 == 0 && nu_m < 2 * nu_lw);");
        self.raw_line(&format!("{t} nu_v{r};"));
        self.raw_line(&format!(
            "{{ union {{ {t} v; uint w; }} nu_b; nu_b.w = (uint)(nu_w >> 32); nu_v{r} = nu_b.v; }}"
        ));
        self.raw_line("if (nu_c == 1) {");
        into(self, &format!("nu_v{r}"));
        self.raw_line("} else if (nu_c > 1) {");
        self.raw_line(&format!(
            "    if (nu_li < nu_c) nu_sl{r}[{SCRATCH} + nu_li] = nu_v{r};"
        ));
        self.raw_line("    barrier(CLK_LOCAL_MEM_FENCE);");
        self.indent += 1;
        self.scratch_tree(std::slice::from_ref(red));
        self.indent -= 1;
        into(self, &format!("nu_sl{r}[{SCRATCH}]"));
        self.raw_line("}");
    }

    /// The first work-item publishes the tile's inclusive prefix (every `nu_ev`th tile) and
    /// leaves its exclusive one for the group.
    fn packed_publish(&mut self, red: &Red) {
        let (r, t) = (red.r, Ph::ty(red.fill));
        let inc = combine(
            red.fill,
            red.op,
            &format!("nu_px{r}"),
            &format!("nu_tot{r}"),
        );
        self.raw_line("if (nu_li == 0) {");
        self.raw_line(&format!("    {}", bits(&t, &inc, "nu_ib")));
        self.raw_line(
            "    if (nu_k % nu_ev == 0) nu_pub64(&nu_pw[nu_k], (ulong)nu_ib << 32 | 2u);",
        );
        self.raw_line(&format!("    nu_sl{r}[nu_P] = nu_px{r};"));
        self.raw_line("}");
    }
}

/// `uint <dst>`, the 32 bits of `value`, of a type `t` of at most 4 bytes, whose own bytes
/// come first (as the host reads the aggregates, `ScanTiles::total`, and as pollers read
/// them back through the union); the bytes above them are cleared first, though no reader
/// looks at them, so that a word's bits do not depend on what the register held.
fn bits(t: &str, value: &str, dst: &str) -> String {
    format!(
        "uint {dst}; {{ union {{ {t} v; uint w; }} nu_b; nu_b.w = 0u; nu_b.v = {value}; {dst} = nu_b.w; }}"
    )
}
