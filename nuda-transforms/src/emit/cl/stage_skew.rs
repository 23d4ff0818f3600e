//! Staged copies in OpenCL C laid out so that a work-item's run of neighbouring elements does
//! not share shared-memory banks with its neighbours' (`emit::cl::stage`): within each block
//! of 32 elements of a row of the box, the groups of four are swizzled, group `g` of block `b`
//! (counted along the row) stored at group `g ^ (b % 8)`.
//!
//! Why: in sgemm's GPU chain (`tilem(128, 128), stage(a, b, ..), dmine(8, 1), vector(8)`) each
//! work-item reads eight neighbouring floats of `a`'s copy a step, as two 128-bit loads, and
//! the warp's work-items are 32 bytes apart. A 128-bit shared load is served eight lanes at a
//! time, and eight lanes 32 bytes apart cover 256 bytes of 32 four-byte banks: two lanes a
//! bank, two passes where one would do. Swizzled, lanes 4 to 7 land on the groups lanes 0 to 3
//! left free; runs of 16 and 32 (four and eight lanes a bank) the same way. The copy takes no
//! more memory than before (padding would: a chain that just fit 64 KiB of AMD's local memory
//! did not with it), and the swizzle counts elements, as the element type is only known when
//! the program is built: 8-byte types are not made worse, only not helped.
//!
//! Where it applies: the box's last position follows an element loop that is not a
//! `vector(w)`'s and whose work-items step by 8, 16 or 32 (a `dmine` after `stage`), and that
//! extent is a multiple of 32, so that no read of another offset widened it. Reads along it
//! are then scalar reads of the work-item's own run: from the copy's start moved by the run's
//! swizzled group (`nu_stage_a + nu_swz((nu_idx)(i_e_t) + 4, 128)`, the same for every
//! iteration), plus rows and the buffer (loop counters and constants, which the compilers
//! fold into the loads' offsets), plus the place in the group. Groups of four stay whole, so
//! four neighbours are still one 128-bit load. A read outside its run takes its own element's
//! swizzled place.

use super::ClEmitter;
use crate::base::ir::staging::Follows;
use crate::base::ir::{Stage, StageBox};

/// Elements in a swizzled block, and in each of its groups.
const BLOCK: usize = 32;
const GROUP: usize = 4;

/// Whether box `b` of stage `st` is swizzled; `lanes` is the element loop a `vector(w)`
/// steps, if any. Returns the work-items' run along the last position where it is.
pub(super) fn skews(st: &Stage, b: &StageBox, lanes: Option<usize>) -> Option<usize> {
    let (&(Follows::Elem(d), _), &extent) = (b.follows.last()?, b.extents.last()?) else {
        return None;
    };
    let run = st.group.get(d).map_or(1, |g| g.0);
    let fits = extent.is_multiple_of(BLOCK) && run >= 8 && BLOCK.is_multiple_of(run);
    (fits && lanes != Some(d)).then_some(run)
}

/// The swizzled place of box element `flat` in a row of `row` elements.
pub(super) fn swizzled(flat: &str, row: usize) -> String {
    format!("nu_swz({flat}, {row})")
}

/// The swizzled place of the group of four box elements from `flat` (a multiple of four).
pub(super) fn swizzled_group(flat: &str, row: usize) -> String {
    format!("nu_swz4(({flat}) / {GROUP}, {row})")
}

/// A read `shift` past the first element of its work-item's run of `run`, at coordinate
/// `first` along the last position: the run's group as the copy's offset and the place in
/// the group, or `None` where the read leaves the run.
pub(super) fn in_run(first: &str, shift: i64, run: usize, row: usize) -> Option<(String, i64)> {
    let g = GROUP as i64;
    let inside = shift >= 0 && (shift as usize) < run;
    inside.then(|| {
        let start = shift / g * g;
        (
            swizzled_group(&format!("{first} + {start}"), row),
            shift % g,
        )
    })
}

impl ClEmitter<'_> {
    /// `nu_swz4`, the first place of group `nu_g` of a swizzled copy with rows of `nu_n`
    /// elements (a product of four, which the compilers see: their 128-bit loads need it), and
    /// `nu_swz`, an element's place; made on first use.
    pub(super) fn swizzle_helper(&self) {
        let (per, blocks) = (BLOCK / GROUP, 8);
        let group = format!(
            "nu_idx nu_swz4(nu_idx nu_g, nu_idx nu_n) {{\n    return (nu_g ^ (nu_g % (nu_n / {GROUP}) / {per} % {blocks})) * {GROUP};\n}}\n"
        );
        self.env.shared.helper("nu_swz4", || group);
        let one = format!(
            "nu_idx nu_swz(nu_idx nu_f, nu_idx nu_n) {{\n    return nu_swz4(nu_f / {GROUP}, nu_n) + nu_f % {GROUP};\n}}\n"
        );
        self.env.shared.helper("nu_swz", || one);
    }
}

#[cfg(test)]
mod test {
    use super::{BLOCK, GROUP};

    /// `nu_swz4` as the helper's C computes it.
    fn swz4(g: usize, row: usize) -> usize {
        (g ^ (g % (row / GROUP) / (BLOCK / GROUP) % 8)) * GROUP
    }

    /// The 16-byte bank groups (of 8 in 128 bytes) that lanes `l0..l0 + 8` of a 128-bit
    /// load touch, each lane at group `q` of its run of four-byte elements, unswizzled or not.
    fn groups(l0: usize, run: usize, q: usize, swizzle: bool) -> Vec<usize> {
        let row = 16 * run;
        (l0..l0 + 8)
            .map(|l| {
                let first = l % 16 * run + GROUP * q;
                let at = if swizzle {
                    swz4(first / GROUP, row)
                } else {
                    first
                };
                at / GROUP % 8
            })
            .collect()
    }

    fn distinct(g: &[usize]) -> usize {
        let mut v = g.to_vec();
        v.sort_unstable();
        v.dedup();
        v.len()
    }

    /// Eight lanes of a 128-bit load, each at its own run of 8, 16 or 32 floats, meet eight
    /// bank groups swizzled, where unswizzled two, four and eight of them shared one.
    #[test]
    fn each_phase_of_a_wide_load_meets_every_bank_once() {
        for run in [8, 16, 32] {
            for l0 in [0, 8, 16, 24] {
                for q in 0..run / GROUP {
                    assert_eq!(
                        distinct(&groups(l0, run, q, true)),
                        8,
                        "run {run} lane {l0} group {q}"
                    );
                    assert_eq!(distinct(&groups(l0, run, q, false)), 32 / run, "run {run}");
                }
            }
        }
    }

    /// Within each row the swizzle is a permutation of groups of four: every element has one
    /// place, and groups stay whole.
    #[test]
    fn the_swizzle_permutes_each_row() {
        for row in [32, 64, 96, 128, 256, 512] {
            let mut seen = vec![false; row];
            for g in 0..row / GROUP {
                let at = swz4(g, row);
                assert!(at % GROUP == 0 && at + GROUP <= row, "row {row} group {g}");
                assert!(!seen[at], "row {row}: group {g} lands on a taken place");
                seen[at] = true;
            }
        }
    }
}
