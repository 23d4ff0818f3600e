//! `nuda::dist` at scale (issue 53): the neighbour-only exchange (its messages counted), the
//! overlapped exchange (`exchange_start`) and weighted splits (`Split`, `rebalance`), each
//! bit for bit against plain Rust. Cases of `tests/dist.rs`, run by `scripts/dist-test` on 1
//! to 4 ranks and both engines.

use super::step;
use super::{check, fail, Digest};
use nuda::dist::{messages, Split, World};
use nuda::prelude::*;

/// Heat steps where every exchange overlaps the next launch: equal to plain Rust, grid and
/// largest changes, and on more than one rank the launches ran in phases, also where one
/// rank alone completed the exchange by hand first (`exchange_wait` is not collective).
pub fn overlap_is_bit_for_bit(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let (n, m, steps) = (29, 13, 6);
    let mut u = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let mut v = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let phased = nuda::dist::overlaps();
    let mut deltas = Vec::new();
    for k in 0..steps {
        u.exchange_start()?;
        if k % 2 == 1 && world.rank() == 0 {
            u.exchange_wait()?;
        }
        let mut delta = 0.0f32;
        annot!(nudist; nuwork!(4, 8; nfor!((i, j) in (1 <> n - 2, 1 <> m - 2) {
            v[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
            delta = delta.max((v[(i, j)] - u[(i, j)]).abs());
        })))?;
        deltas.push(delta);
        std::mem::swap(&mut u, &mut v);
    }
    let ran = nuda::dist::overlaps() - phased;
    let want_ran = if world.size() > 1 { steps as u64 } else { 0 };
    check(ran == want_ran, || {
        format!("{ran} launches overlapped, want {want_ran}")
    })?;
    let (want, want_deltas) = step::plain(n, m, steps);
    let got = u.to_vec()?;
    check(got == want, || {
        "overlapped heat: the grid differs from plain Rust's".into()
    })?;
    check(deltas == want_deltas, || {
        format!("overlapped deltas {deltas:?} != {want_deltas:?}")
    })?;
    d.add(got.iter().map(|x| u64::from(x.to_bits())));
    Ok(())
}

/// Launches that cannot split their rows exactly complete the exchange first and run whole:
/// a float sum, a read at a row that is not the loop's plus a constant, a scan; still bit
/// for bit.
pub fn overlap_falls_back_where_rows_cannot_split(
    world: &World,
    d: &mut Digest,
) -> nuda::Result<()> {
    let n = 41;
    let f = |i: usize| ((i * 37) % 11) as f32 * 0.375 - 1.0;
    // Stale halo rows until an exchange: only a finished one makes them right.
    let mut a = NuDist1::<f32>::from_fn(world, n, n, |i| f(i) - 100.0)?;
    let zeros = vec![0.0; a.held().len()];
    a.local_mut().write_range(0, &zeros)?;
    let own = (a.rows().start - a.held().start, a.rows().len());
    let mine: Vec<f32> = a.rows().map(f).collect();
    a.local_mut().write_range(own.0, &mine[..own.1])?;
    let phased = nuda::dist::overlaps();
    a.exchange_start()?;
    let mut s = 0.0f32;
    annot!(nudist; nuwork!(8; nfor!(i in 1 <> n - 2 { s += a[i - 1] * a[i + 1]; })))?;
    let want_s: f32 = (1..n - 1).map(|i| f(i - 1) * f(i + 1)).sum();
    check((s - want_s).abs() <= 1e-4 * (1.0 + want_s.abs()), || {
        format!("sum {s} != {want_s}")
    })?;
    let mut b = NuDist1::<f32>::new(world, n, 0)?;
    a.exchange_start()?;
    annot!(nudist; nuwork!(8; nfor!(i in n { b[i] = a[n - 1 - i] * 2.0; })))?;
    let want: Vec<f32> = (0..n).map(|i| f(n - 1 - i) * 2.0).collect();
    check(b.to_vec()? == want, || {
        "a reversed read after exchange_start".into()
    })?;
    a.exchange_start()?;
    let (mut acc, mut c) = (0i64, NuDist1::<i64>::new(world, n, 0)?);
    annot!(nudist; nuwork!(8; nfor!(i in 1 <> n - 2 { acc += (a[i + 1] * 8.0) as i64; c[i] = acc; })))?;
    let mut run = 0i64;
    let want_c: Vec<i64> = (0..n)
        .map(|i| match i {
            0 => 0,
            i if i == n - 1 => 0,
            i => {
                run += (f(i + 1) * 8.0) as i64;
                run
            }
        })
        .collect();
    check(c.to_vec()? == want_c, || {
        "a scan after exchange_start".into()
    })?;
    let ran = nuda::dist::overlaps() - phased;
    check(ran == 0, || format!("{ran} launches overlapped; none can"))?;
    d.add(want_c.iter().map(|&x| x as u64));
    Ok(())
}

/// An exchange sends only to the ranks whose rows meet the receiver's halo: with halo 1 and
/// blocks of two rows or more, the rank before and the rank after.
pub fn exchange_talks_to_neighbours_only(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let (size, me) = (world.size(), world.rank());
    let mut u = NuDist2::<u32>::from_fn(world, (3 * size, 5), 1, |(i, j)| (i * 5 + j) as u32)?;
    let before = messages();
    u.exchange()?;
    let after = messages();
    let neighbours: Vec<usize> = [me.checked_sub(1), Some(me + 1).filter(|&q| q < size)]
        .into_iter()
        .flatten()
        .collect();
    let sent = after.sent - before.sent;
    check(sent == neighbours.len() as u64, || {
        format!("rank {me} sent {sent} messages")
    })?;
    check(after.received - before.received == sent, || {
        "as many received".into()
    })?;
    check(after.bytes - before.bytes == sent * 5 * 4, || {
        "one row each".into()
    })?;
    check(after.peers.iter().all(|q| neighbours.contains(q)), || {
        format!("rank {me} talked to {:?}", after.peers)
    })?;
    // A halo wider than the blocks reaches past the neighbours, and only as far as it must.
    let mut w = NuDist1::<u32>::from_fn(world, 2 * size, 3, |i| i as u32)?;
    let before = messages().sent;
    w.exchange()?;
    let far = (0..size)
        .filter(|&q| q != me && q.abs_diff(me) <= 2)
        .count() as u64;
    check(messages().sent - before == far, || {
        format!("wide halo: rank {me} sent {}", messages().sent - before)
    })?;
    let local = w.local().to_vec();
    check(
        local == w.held().map(|i| i as u32).collect::<Vec<_>>(),
        || "wide halo values".into(),
    )
}

/// Weights share rows out in proportion; a heat run on the reweighted arrays equals plain
/// Rust; an even rebalance gives the first split back; nothing is lost on the way.
pub fn weighted_splits(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let (n, m, steps, size) = (31, 9, 4, world.size());
    let mut u = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let mut v = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| step::init(i, j))?;
    let even = u.bounds().to_vec();
    let weights: Vec<f64> = (0..size).map(|r| (r + 1) as f64).collect();
    for a in [&mut u, &mut v] {
        a.rebalance(&Split::Weights(weights.clone()))?;
    }
    let total: f64 = weights.iter().sum();
    let b = u.bounds().to_vec();
    for r in 0..size {
        let share = (b[r + 1] - b[r]) as f64 / n as f64;
        check(
            (share - weights[r] / total).abs() <= 1.0 / n as f64 + 1e-12,
            || format!("bounds {b:?}"),
        )?;
    }
    // The heat example's own step, overlapped and blocking in turn.
    let mut deltas = Vec::new();
    for k in 0..steps {
        let overlap = k % 2 == 0;
        deltas.push(step::step_with(
            &mut u,
            &mut v,
            &mut step::Times::default(),
            overlap,
        )?);
        std::mem::swap(&mut u, &mut v);
    }
    let (want, want_deltas) = step::plain(n, m, steps);
    check(u.to_vec()? == want && deltas == want_deltas, || {
        "weighted heat differs from plain Rust".into()
    })?;
    u.rebalance(&Split::Even)?;
    check(u.bounds() == even && u.to_vec()? == want, || {
        "back to even".into()
    })?;
    let local = u.local().to_vec();
    let row = |i: usize| want[i * m..(i + 1) * m].to_vec();
    check(local == u.held().flat_map(row).collect::<Vec<_>>(), || {
        "halo rows after rebalance".into()
    })?;
    d.add(want.iter().map(|x| u64::from(x.to_bits())));
    Ok(())
}

/// `Split::Measured` after launches: two arrays rebalanced one after the other get the same
/// rows; a launch over arrays split differently is an `Err` on every rank; bad weights are
/// the same `Err` everywhere, and move nothing.
pub fn measured_and_mismatched_splits(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 64;
    let mut a = NuDist1::<i64>::from_fn(world, n, 1, |i| i as i64 * 3)?;
    let mut b = NuDist1::<i64>::new(world, n, 1)?;
    for _ in 0..3 {
        annot!(nudist; nuwork!(16; nfor!(i in n { b[i] = a[i] + 1; })))?;
    }
    a.rebalance(&Split::Measured)?;
    b.rebalance(&Split::Measured)?;
    check(a.bounds() == b.bounds(), || {
        format!("{:?} and {:?}", a.bounds(), b.bounds())
    })?;
    annot!(nudist; nuwork!(16; nfor!(i in n { b[i] = a[i] * 2; })))?;
    check(
        b.to_vec()? == (0..n as i64).map(|i| i * 6).collect::<Vec<_>>(),
        || "after Measured".into(),
    )?;
    if world.size() > 1 {
        let mut w = vec![1.0; world.size()];
        w[0] = 5.0;
        a.rebalance(&Split::Weights(w))?;
        let r = annot!(nudist; nuwork!(16; nfor!(i in n { b[i] = a[i]; })));
        match r {
            Err(e) if e.to_string().contains("split differently") => {}
            other => fail(&format!(
                "a launch over arrays split differently: {other:?}"
            )),
        }
    }
    let r = a.rebalance(&Split::Weights(vec![1.0; world.size() + 1]));
    match r {
        Err(nuda::Error::Dist { detail, .. }) if detail.contains("weights for") => {}
        other => fail(&format!("bad weights: {other:?}")),
    }
    let neg = (world.rank() == 0).then_some(-1.0).unwrap_or(1.0);
    match a.rebalance(&Split::Weights(vec![neg; world.size()])) {
        Err(nuda::Error::Dist { .. }) => {}
        other => fail(&format!("a negative weight on rank 0: {other:?}")),
    }
    check(
        a.to_vec()? == (0..n as i64).map(|i| i * 3).collect::<Vec<_>>(),
        || "values kept".into(),
    )?;
    d.add(a.bounds().iter().map(|&x| x as u64));
    Ok(())
}

extern "C" {
    fn getpid() -> i32;
    fn kill(pid: i32, sig: i32) -> i32;
}

/// `NUDA_DIST_TEST_KILL=<rank>`: that rank kills itself (SIGKILL) before a halo exchange, a
/// launch that needs it and a rebalance; the others must not wait for ever. `scripts/dist-test` checks
/// that `mpirun` ends with an error well inside its time limit.
pub fn a_dead_rank(world: &World, dead: usize) -> nuda::Result<()> {
    let n = 8 * world.size();
    let mut u = NuDist1::<f32>::from_fn(world, n, 1, |i| i as f32)?;
    let mut v = NuDist1::<f32>::new(world, n, 1)?;
    if world.rank() == dead {
        // SAFETY: getpid and kill have no preconditions; SIGKILL (9) ends this process.
        unsafe { kill(getpid(), 9) };
    }
    u.exchange_start()?;
    let r = annot!(nudist; nuwork!(8; nfor!(i in 1 <> n - 2 { v[i] = u[i - 1] + u[i + 1]; })));
    eprintln!(
        "\nrank {}: the launch beside a dead rank returned {r:?}",
        world.rank()
    );
    // The all-to-all of a rebalance waits within the deadline too.
    let b = v.rebalance(&Split::Even);
    eprintln!(
        "\nrank {}: a rebalance beside a dead rank returned {b:?}",
        world.rank()
    );
    r.and(b)
}
