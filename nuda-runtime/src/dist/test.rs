//! Unit tests of `dist` (layer 5) on one rank: the block split, the clip of an outer loop,
//! and a distributed array's parts; `tests/dist.rs` runs them under `mpirun`.

use super::array::{block, held};
use super::launch::DistLaunch;
use super::*;

#[test]
fn blocks_cover_the_rows_in_rank_order_as_evenly_as_can_be() {
    for n in 0..20 {
        for size in 1..6 {
            let blocks: Vec<_> = (0..size).map(|r| block(n, size, r)).collect();
            assert_eq!(blocks[0].start, 0);
            assert_eq!(blocks[size - 1].end, n);
            for w in blocks.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert!(w[0].len() >= w[1].len() && w[0].len() <= w[1].len() + 1);
            }
        }
    }
    assert_eq!(block(3, 4, 3), 3..3, "a rank with no rows");
    assert_eq!(held(10, 2, &(4..7)), 2..9);
    assert_eq!(held(10, 2, &(0..3)), 0..5);
    assert_eq!(held(3, 1, &(3..3)), 2..3);
}

#[test]
fn one_rank_holds_everything_and_clips_nothing() -> crate::error::Result<()> {
    let world = init_once();
    let a = NuDist2::<f32>::from_fn(&world, (5, 3), 1, |(i, j)| (i * 3 + j) as f32)?;
    assert_eq!((a.rows(), a.held()), (0..5, 0..5));
    assert_eq!(a.to_vec()?, (0..15).map(|x| x as f32).collect::<Vec<_>>());
    let l = DistLaunch::new("here");
    let _ = DistRef::__nuda_dist_ref(&a, &l, "a", Some(0));
    // Inclusive bounds: `1..=3`.
    assert_eq!(l.clip(1usize, 3, true, None)?, (1, 3));
    // Values past the last row stay with the last rank, here the only one: 1 and 5 run,
    // and 5 is the launch's bounds error, as in one process.
    assert_eq!(l.clip(1i32, 9, false, Some(4))?, (1, 8));
    // A range up to its type's maximum keeps its last value; an empty one is `1..=0`.
    assert_eq!(l.clip(250u8, 255, true, None)?, (250, 255));
    assert_eq!(l.clip(3u8, 3, false, None)?, (1, 0));
    // A nudist loop counts up.
    assert!(l.clip(9i32, 0, true, Some(-1)).is_err());
    Ok(())
}

/// One world per test process: MPI starts once.
pub(crate) fn init_once() -> World {
    thread_local!(static W: World = init().expect("a one-rank world"));
    W.with(Clone::clone)
}
