//! `nuda::dist` on bad input (issue 47): every rank returns an `Err`, none waits for ever,
//! none panics, and no data is silently lost. Cases of `tests/dist.rs`, run by
//! `scripts/dist-test` under a time limit on 1 to 4 ranks, so that a hang fails.

use super::{check, fail, Digest};
use nuda::dist::World;
use nuda::prelude::*;

/// The `Error::Dist` detail of `r`, or a failure naming what came instead.
fn dist_detail<T: std::fmt::Debug>(r: nuda::Result<T>, what: &str) -> String {
    match r {
        Err(nuda::Error::Dist { detail, .. }) => detail,
        other => fail(&format!(
            "{what}: want Error::Dist on every rank, got {other:?}"
        )),
    }
}

/// `scatter` with the wrong dims on the root, a root that is not a rank, and `gather` to a
/// root that is not a rank: the same `Err` on every rank; then a good scatter and gather.
pub fn scatter_and_gather_bad_roots(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let (n, m) = (10usize, 3usize);
    let size = world.size();
    let wrong = (world.rank() == 0).then(|| NuArray2::<i32>::new((n + 1, m)));
    let r = NuDist2::<i32>::scatter(world, (n, m), 1, 0, wrong.as_ref());
    let text = dist_detail(r, "scatter with the wrong dims");
    check(text.contains("[11, 3]") || text.contains("(11, 3)"), || {
        text.clone()
    })?;
    let whole = NuArray2::<i32>::from_fn((n, m), |(i, j)| (i * m + j) as i32);
    let r = NuDist2::<i32>::scatter(world, (n, m), 1, size, Some(&whole));
    let text = dist_detail(r, "scatter to root == size");
    check(text.contains("not a rank"), || text.clone())?;
    let a = NuDist2::<i32>::scatter(world, (n, m), 1, 0, Some(&whole))?;
    let text = dist_detail(a.gather(size), "gather(size)");
    check(text.contains("not a rank"), || text.clone())?;
    match a.gather(size - 1)? {
        Some(g) => check(
            world.rank() == size - 1 && g.to_vec() == whole.to_vec(),
            || "gather to the last rank".into(),
        ),
        None => check(world.rank() != size - 1, || {
            "gather: no array on the root".into()
        }),
    }
}

/// Ranks that pass different roots: the same `Err` on every rank, naming both.
pub fn ranks_that_disagree(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let a = NuDist1::<u32>::from_fn(world, 8, 0, |i| i as u32)?;
    let root = world.rank().min(1);
    match (world.size(), a.gather(root)) {
        (1, r) => check(r?.is_some(), || "one rank gathers".into()),
        (_, r) => {
            let text = dist_detail(r, "gather to different roots");
            check(text.contains("called it differently"), || text.clone())
        }
    }
}

/// Ranks that make one array with different dims or halos (`new`, `from_fn`): the same
/// `Err` on every rank, before anything is allocated. Ranks of different splits once summed
/// and gathered wrong rows in silence, and Open MPI aborted their halo exchange.
pub fn arrays_made_differently(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let rank = world.rank();
    let cases: [(&str, nuda::Result<NuDist1<f32>>); 2] = [
        (
            "dims",
            NuDist1::<f32>::from_fn(world, 10 + rank, 0, |i| i as f32),
        ),
        ("halo", NuDist1::<f32>::new(world, 12, 1 + rank)),
    ];
    for (what, r) in cases {
        match world.size() {
            1 => check(r.is_ok(), || format!("one rank: {what}"))?,
            _ => {
                let text = dist_detail(r, &format!("arrays of different {what}"));
                check(text.contains("called it differently"), || text.clone())?;
            }
        }
    }
    let a = NuDist1::<f32>::from_fn(world, 12, 1, |i| i as f32)?;
    check(
        a.to_vec()? == (0..12).map(|i| i as f32).collect::<Vec<_>>(),
        || "an array made alike".into(),
    )
}

/// A loop whose outer variable is not the split dimension (`b[(i, j)]` under
/// `nfor!((j, i) ..)`) and a write past the rank's rows (`b[i + 1]`): an `Err` on every rank
/// count, before anything runs, and `b` untouched.
pub fn writes_outside_own_rows(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let (n, m) = (16usize, 8usize);
    let mut b = NuDist2::<f32>::new(world, (n, m), 1)?;
    let r = annot!(nudist; nuwork!(4, 4; nfor!((j, i) in (m, n) { b[(i, j)] = (i + j) as f32; })));
    let text = dist_detail(r, "swapped loops");
    check(
        text.contains("`b[(i, j)]`") && text.contains("rows it owns"),
        || text.clone(),
    )?;
    let a = NuDist1::<f32>::from_fn(world, n, 1, |i| i as f32)?;
    let mut c = NuDist1::<f32>::new(world, n, 1)?;
    let r = annot!(nudist; nuwork!(4; nfor!(i in 0..n - 1 { c[i + 1] = a[i]; })));
    let text = dist_detail(r, "a write past the rank's rows");
    check(text.contains("`c[i + 1]`"), || text.clone())?;
    check(
        b.to_vec()?.iter().chain(&c.to_vec()?).all(|&x| x == 0.0),
        || "nothing ran".into(),
    )
}

/// An outer range past the arrays' rows: the last rank runs the rows past the end, so the
/// bounds error is there, as in one process; no iteration is dropped silently.
pub fn a_range_past_the_rows(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let n = 9usize;
    let mut b = NuDist1::<u32>::new(world, n, 0)?;
    let r = annot!(nudist; nuwork!(4; nfor!(i in n + 2 { b[i] = i as u32; })));
    let last = world.size() - 1;
    match (world.rank() == last, r) {
        (true, Err(nuda::Error::Rank { error, .. })) => {
            let text = error.to_string();
            check(
                text.contains("out of bounds") && text.contains("[9]"),
                || text.clone(),
            )
        }
        (false, Err(nuda::Error::OtherRank { failed, .. })) => {
            check(failed == last, || format!("failed {failed}"))
        }
        (_, r) => fail(&format!("range past the rows: unexpected {r:?}")),
    }
}

/// Indices inside an inner `nfor!` (and an `annot!` around one) are rebased to the rank's
/// block like the body's own: syn's visitors do not look into macro tokens, so these once
/// read and wrote global rows in the local array.
pub fn inner_nests_are_rebased(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let (n, m) = (11usize, 6usize);
    let a = NuDist2::<i32>::from_fn(world, (n, m), 1, |(i, j)| (i * 10 + j) as i32)?;
    let mut b = NuDist2::<i32>::new(world, (n, m), 0)?;
    annot!(nudist; nuwork!(2; nfor!(i in 1..n - 1 {
        nfor!(j in m { b[(i, j)] = a[(i - 1, j)] + a[(i + 1, j)]; });
        annot!(unroll(2); nfor!(k in m { b[(i, k)] += a[(i, k)]; }));
    })))?;
    let got = b.to_vec()?;
    let f = |i: usize, j: usize| (i * 10 + j) as i32;
    let want: Vec<i32> = (0..n * m)
        .map(|x| (x / m, x % m))
        .map(|(i, j)| match (1..n - 1).contains(&i) {
            true => f(i - 1, j) + f(i + 1, j) + f(i, j),
            false => 0,
        })
        .collect();
    check(got == want, || format!("inner nests: {got:?}"))?;
    d.add(got.iter().map(|&x| x as u64));
    Ok(())
}

/// Atomics index a distributed array as `[]` does: rebased to the rank's block, and the
/// array recorded even where atomics are its only use.
pub fn atomics_on_a_distributed_array(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 13usize;
    let mut h = NuDist1::<u32>::new(world, n, 0)?;
    annot!(nudist; nuwork!(4; nfor!(i in n { h.atomic_add(i, i as u32 + 1); })))?;
    let got = h.to_vec()?;
    check(got == (1..=n as u32).collect::<Vec<_>>(), || {
        format!("atomics: {got:?}")
    })?;
    d.add(got.iter().map(|&x| u64::from(x)));
    Ok(())
}

/// A `nudist` loop counts up through the ranks' blocks: a downward outer loop is an `Err` on
/// every rank, not a loop that runs nothing (a literal negative step is a compile error,
/// `tests/ui/nudist_downward_loop.rs`).
pub fn a_downward_outer_loop_is_an_err(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let (n, step) = (10i64, -1i64);
    let mut b = NuDist1::<i64>::new(world, n as usize, 0)?;
    let r = annot!(nudist; nuwork!(4; nfor!(i in n - 1 <> 0 :/ step { b[i as usize] = i; })));
    let text = dist_detail(r, "a downward outer loop");
    check(text.contains("steps by -1"), || text.clone())?;
    check(b.to_vec()?.iter().all(|&x| x == 0), || "nothing ran".into())
}
