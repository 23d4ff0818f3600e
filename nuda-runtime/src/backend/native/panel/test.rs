//! Tests of packed panels: a read gets the array's element exactly when its index is the one
//! its counters name and lies in the array, for boxes that stick out of the array on either
//! side, in 1, 2 and 3 dimensions, in every layout.

use super::pool::{GENERATION, MAX_PANEL_BYTES};
use super::*;
use crate::backend::native::views::ArrayView;
use crate::fault::Faults;
use std::sync::atomic::Ordering;

/// Array element values that tell indices apart.
fn array(len: usize) -> Vec<u32> {
    (0..len as u32).map(|v| v * 7 + 1).collect()
}

/// Every walk along each position from every coordinate of the box (and one past it), of
/// one and of four lanes: granted exactly when every element read lies in the box and the
/// array, and then reading the array's elements.
fn check<S: Shape, const P: usize, const B: usize>(dims: S, origin: [usize; 3], ext: [usize; 3]) {
    let data = array(dims.checked_len().unwrap());
    let view = ArrayView::new(&data, dims);
    let mut buf = PanelBuf::new();
    let panel = buf.pack::<S, P, B>(&view, origin, ext);
    let faults = Faults::new();
    let f = Checker::new(&faults);
    let at = |c: [usize; 3]| -> S {
        S::from_extents(std::array::from_fn(|p| origin[p].wrapping_add(c[p])))
    };
    let value = |c: [usize; 3]| dims.offset(at(c)).map(|o| data[o]);
    let mut granted = 0;
    for c0 in 0..=ext[0] {
        for c1 in 0..=ext[1] {
            for c2 in 0..=ext[2] {
                let c = [c0, c1, c2];
                for k in 0..S::RANK {
                    for count in [1, 2, 3] {
                        let mut e = c;
                        e[k] += count - 1;
                        let ends = (at(c), at(e));
                        let one = panel.walk(&view, ends, c, (Some(k), count), f, Lanes::<1>);
                        let four = panel.walk(&view, ends, c, (Some(k), count), f, Lanes::<4>);
                        for kc in 0..count {
                            let mut ck = c;
                            ck[k] += kc;
                            let want: Vec<Option<u32>> = (0..4)
                                .map(|l| {
                                    let mut cl = ck;
                                    cl[S::RANK - 1] += l;
                                    let inside = (0..S::RANK).all(|p| cl[p] < ext[p]);
                                    value(cl).filter(|_| inside)
                                })
                                .collect();
                            let msg = format!(
                                "{c:?} along {k} x{count} in {dims:?}, box {origin:?} {ext:?}"
                            );
                            match one {
                                Some(w) => assert_eq!(Some(w.at(kc)), want[0], "{msg}"),
                                // A walk along the blocked position is not offered.
                                None if kc == 0 && !(k == P && B > 1) => assert!(
                                    (0..count).any(|j| {
                                        let mut cj = c;
                                        cj[k] += j;
                                        value(cj).is_none() || (0..S::RANK).any(|p| cj[p] >= ext[p])
                                    }),
                                    "refused though every element is held: {msg}"
                                ),
                                None => {}
                            }
                            if let Some(w) = four {
                                granted += 1;
                                let run = w.run(kc);
                                for l in 0..4 {
                                    assert_eq!(Some(run[l]), want[l], "lane {l} of {msg}");
                                }
                            }
                        }
                        // Ends that are not the counters' elements are refused.
                        let mut wrong = e;
                        wrong[S::RANK - 1] += 1;
                        let bad = panel.walk(
                            &view,
                            (at(c), at(wrong)),
                            c,
                            (Some(k), count),
                            f,
                            Lanes::<1>,
                        );
                        assert!(bad.is_none());
                    }
                }
            }
        }
    }
    // Runs of four exist where the last position is blocked, or nothing is.
    let last = P == S::RANK - 1;
    let runs = match B > 1 {
        true => last && S::RANK > 1,
        false => !last || S::RANK == 1,
    };
    assert!(
        granted > 0 || !runs || ext[S::RANK - 1] < 4,
        "no run of four granted"
    );
}

#[test]
fn a_walk_reads_the_box_inside_the_array_in_every_layout() {
    let below = 3usize.wrapping_neg();
    check::<usize, 0, 1>(40, [5, 0, 0], [20, 1, 1]);
    check::<usize, 0, 8>(40, [below, 0, 0], [17, 1, 1]);
    check::<(usize, usize), 1, 8>((30, 37), [4, 9, 0], [10, 24, 1]);
    check::<(usize, usize), 1, 8>((30, 37), [25, 30, 0], [8, 16, 1]);
    check::<(usize, usize), 0, 4>((30, 37), [below, 30, 0], [12, 16, 1]);
    check::<(usize, usize), 0, 1>((30, 37), [25, below, 0], [10, 9, 1]);
    check::<(usize, usize), 1, 1>((30, 37), [3, 2, 0], [10, 9, 1]);
    check::<(usize, usize, usize), 2, 4>((6, 7, 9), [1, below, 2], [4, 5, 9]);
    check::<(usize, usize, usize), 1, 2>((6, 7, 9), [0, 3, 0], [6, 5, 3]);
}

#[test]
fn runs_come_whole_from_a_block_or_not_at_all() {
    let data = array(16 * 16);
    let view = ArrayView::new(&data, (16usize, 16usize));
    let mut buf = PanelBuf::new();
    let panel = buf.pack::<_, 1, 8>(&view, [0, 0, 0], [16, 16, 1]);
    let faults = Faults::new();
    let f = Checker::new(&faults);
    let w = panel.walk(
        &view,
        ((3, 8), (5, 8)),
        [3, 8, 0],
        (Some(0), 3),
        f,
        Lanes::<8>,
    );
    let w = w.expect("a whole block");
    assert_eq!(w.run(1), std::array::from_fn(|l| data[4 * 16 + 8 + l]));
    // Lanes from 9 to 16 straddle two blocks.
    let w = panel.walk(
        &view,
        ((3, 9), (5, 9)),
        [3, 9, 0],
        (Some(0), 3),
        f,
        Lanes::<8>,
    );
    assert!(w.is_none());
}

#[test]
fn a_box_outside_the_array_or_too_large_packs_nothing() {
    let data = array(100);
    let view = ArrayView::new(&data, (10usize, 10usize));
    let faults = Faults::new();
    let f = Checker::new(&faults);
    let mut buf = PanelBuf::new();
    let p = buf.pack::<_, 0, 1>(&view, [10, 0, 0], [4, 4, 1]);
    assert!(p
        .walk(
            &view,
            ((10, 0), (10, 0)),
            [0, 0, 0],
            (None, 1),
            f,
            Lanes::<1>
        )
        .is_none());
    let huge = MAX_PANEL_BYTES / 4 + 1;
    let mut buf = PanelBuf::new();
    let p = buf.pack::<_, 0, 1>(&view, [0, 0, 0], [huge, 1, 1]);
    assert!(p
        .walk(&view, ((0, 0), (0, 0)), [0, 0, 0], (None, 1), f, Lanes::<1>)
        .is_none());
}

#[test]
fn a_kept_panel_is_reused_within_a_launch_and_copied_again_after() {
    let mut data = array(64);
    let read = |data: &[u32]| {
        let view = ArrayView::new(data, (8usize, 8usize));
        let mut buf = PanelBuf::new();
        let p = buf.pack::<_, 1, 4>(&view, [0, 0, 0], [8, 8, 1]);
        let faults = Faults::new();
        let w = p.walk(
            &view,
            ((3, 5), (3, 5)),
            [3, 5, 0],
            (None, 1),
            Checker::new(&faults),
            Lanes::<1>,
        );
        w.map(|w| w.at(0))
    };
    new_launch();
    let before = GENERATION.load(Ordering::Relaxed);
    assert_eq!(read(&data), Some(data[29]));
    // Within one launch the array cannot change, so the same box is not copied again: here
    // it does change, and the kept copy shows it was reused (unless another test's launch
    // began a new generation meanwhile).
    let old = data[29];
    data[29] = 5;
    let again = read(&data);
    if GENERATION.load(Ordering::Relaxed) == before {
        assert_eq!(again, Some(old));
    }
    new_launch();
    assert_eq!(read(&data), Some(5));
}

/// Arguments generated code never passes still grant nothing unsafe: a blocked position or a
/// walk along a position past the array's rank, or a count so large that its places overflow.
#[test]
fn out_of_shape_arguments_grant_no_walk() {
    let data = array(2);
    let view = ArrayView::new(&data, (1usize, 2usize));
    let faults = Faults::new();
    let f = Checker::new(&faults);
    let mut buf = PanelBuf::new();
    let p = buf.pack::<_, 2, 1>(&view, [0; 3], [1, 2, 1]);
    let huge = (1usize << 63) + 1;
    assert!(refused(&p, &view, (Some(2), huge), f));
    let mut buf = PanelBuf::new();
    let p = buf.pack::<_, 0, 1>(&view, [0; 3], [1, 2, 1]);
    for k in [(Some(2), huge), (Some(0), huge), (Some(1), 2)] {
        assert!(refused(&p, &view, k, f), "{k:?}");
    }
    let w = p.walk(&view, ((0, 0), (0, 1)), [0; 3], (Some(1), 2), f, Lanes::<1>);
    assert_eq!(w.map(|w| w.at(1)), Some(data[1]));
}

/// Whether `p` refuses a one-lane walk from `(0, 0)` that reads `(0, 0)` at both ends.
fn refused<const P: usize, const B: usize>(
    p: &Panel<'_, u32, (usize, usize), P, B>,
    view: &ArrayView<'_, u32, (usize, usize)>,
    k: (Option<usize>, usize),
    f: Checker<'_, false>,
) -> bool {
    p.walk(view, ((0, 0), (0, 0)), [0; 3], k, f, Lanes::<1>)
        .is_none()
}
