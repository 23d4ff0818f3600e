//! `nuda::dist` against plain Rust on one process (issue 30). Its own harness: MPI starts once
//! per process, and every rank must run the same cases in the same order. It needs the `mpi`
//! feature: `scripts/dist-test` (which `scripts/test` runs) runs it under `mpirun -np 1, 2, 3,
//! 4` on PoCL and on the native engine; `cargo test --features mpi --test dist` runs it alone,
//! as one rank. Every case compares the gathered result with plain
//! Rust's: bit for bit for maps, integers and stencils; float sums within reassociation.
//! The last line is a digest of every result, which `scripts/test` compares between two runs.

mod dist_input;
mod dist_scale;

use nuda::dist::{self, World};
use nuda::prelude::*;

type Case = fn(&World, &mut Digest) -> nuda::Result<()>;

fn main() {
    let world = match dist::init() {
        Ok(w) => w,
        Err(e) => fail(&format!("dist::init: {e}")),
    };
    if let Some(dead) = std::env::var("NUDA_DIST_TEST_KILL")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        if let Err(e) = dist_scale::a_dead_rank(&world, dead) {
            fail(&format!("rank {}: beside a dead rank: {e}", world.rank()));
        }
        return;
    }
    let cases: &[(&str, Case)] = &[
        ("map_1d", map_1d),
        ("heat_2d", heat_2d),
        ("stencil_3d", stencil_3d),
        ("reductions", reductions),
        ("scan", scan),
        ("filter", filter),
        ("rank_with_no_rows", rank_with_no_rows),
        ("halo_read_out_of_range", halo_read_out_of_range),
        (
            "exchange_moves_only_boundary_rows",
            exchange_moves_only_boundary_rows,
        ),
        ("nbody_step", nbody_step),
        ("scatter_and_steps", scatter_and_steps),
        (
            "scan_reduction_and_push_in_one_loop",
            scan_reduction_and_push_in_one_loop,
        ),
        ("the_issues_example_verbatim", the_issues_example_verbatim),
        (
            "scatter_and_gather_bad_roots",
            dist_input::scatter_and_gather_bad_roots,
        ),
        ("ranks_that_disagree", dist_input::ranks_that_disagree),
        (
            "arrays_made_differently",
            dist_input::arrays_made_differently,
        ),
        (
            "writes_outside_own_rows",
            dist_input::writes_outside_own_rows,
        ),
        ("a_range_past_the_rows", dist_input::a_range_past_the_rows),
        (
            "inner_nests_are_rebased",
            dist_input::inner_nests_are_rebased,
        ),
        (
            "atomics_on_a_distributed_array",
            dist_input::atomics_on_a_distributed_array,
        ),
        (
            "a_downward_outer_loop_is_an_err",
            dist_input::a_downward_outer_loop_is_an_err,
        ),
        ("overlap_is_bit_for_bit", dist_scale::overlap_is_bit_for_bit),
        (
            "overlap_falls_back_where_rows_cannot_split",
            dist_scale::overlap_falls_back_where_rows_cannot_split,
        ),
        (
            "exchange_talks_to_neighbours_only",
            dist_scale::exchange_talks_to_neighbours_only,
        ),
        ("weighted_splits", dist_scale::weighted_splits),
        (
            "measured_and_mismatched_splits",
            dist_scale::measured_and_mismatched_splits,
        ),
    ];
    let mut digest = Digest(0xcbf2_9ce4_8422_2325);
    for (name, case) in cases {
        if let Err(e) = case(&world, &mut digest) {
            fail(&format!(
                "rank {} of {}: {name}: {e}",
                world.rank(),
                world.size()
            ));
        }
        if world.rank() == 0 {
            println!("dist ok: {name} ({} ranks)", world.size());
        }
    }
    if world.rank() == 0 {
        println!("dist digest: {:016x} ({} ranks)", digest.0, world.size());
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("dist test failed: {msg}");
    std::process::exit(1)
}

/// FNV-1a over results' bits: equal digests, equal results.
struct Digest(u64);

impl Digest {
    fn add(&mut self, words: impl IntoIterator<Item = u64>) {
        for w in words {
            for b in w.to_le_bytes() {
                self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
}

fn check(ok: bool, what: impl FnOnce() -> String) -> nuda::Result<()> {
    if !ok {
        fail(&what());
    }
    Ok(())
}

/// A map over an uneven split, bit for bit.
fn map_1d(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 37;
    let a = NuDist1::<f32>::from_fn(world, n, 0, |i| (i as f32).sin())?;
    let mut b = NuDist1::<f32>::new(world, n, 0)?;
    annot!(nudist; nuwork!(8; nfor!(i in n { b[i] = a[i] * 2.5 + i as f32; })))?;
    let want: Vec<f32> = (0..n).map(|i| (i as f32).sin() * 2.5 + i as f32).collect();
    let got = b.to_vec()?;
    check(got == want, || format!("map_1d: {got:?} != {want:?}"))?;
    d.add(got.iter().map(|x| u64::from(x.to_bits())));
    Ok(())
}

/// The heat example's start, and its plain-Rust reference.
#[allow(dead_code)] // the test uses `init` and `plain`, not the timed step
#[path = "../examples/heat/step.rs"]
mod step;
use step::init as heat_init;

/// Jacobi steps with a halo exchange each, and the largest change reduced over the ranks.
fn heat_2d(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let (n, m, steps) = (23, 17, 5);
    let mut u = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| heat_init(i, j))?;
    let mut v = NuDist2::<f32>::from_fn(world, (n, m), 1, |(i, j)| heat_init(i, j))?;
    let mut deltas = Vec::new();
    for _ in 0..steps {
        u.exchange()?;
        let mut delta = 0.0f32;
        annot!(nudist; nuwork!(4, 8; nfor!((i, j) in (1 <> n - 2, 1 <> m - 2) {
            v[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
            delta = delta.max((v[(i, j)] - u[(i, j)]).abs());
        })))?;
        deltas.push(delta);
        std::mem::swap(&mut u, &mut v);
    }
    let (want, want_deltas) = step::plain(n, m, steps);
    let got = u.gather(0)?;
    if let Some(got) = got {
        check(got.to_vec() == want, || {
            "heat_2d: the grid differs from plain Rust's".into()
        })?;
        d.add(got.to_vec().iter().map(|x| u64::from(x.to_bits())));
    }
    check(deltas == want_deltas, || {
        format!("heat_2d: deltas {deltas:?} != {want_deltas:?}")
    })?;
    d.add(deltas.iter().map(|x| u64::from(x.to_bits())));
    Ok(())
}

/// A 7-point stencil over planes, halo 1, bit for bit.
fn stencil_3d(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let (p, q, r) = (9, 6, 5);
    let f = |(i, j, k): (usize, usize, usize)| ((i * 31 + j * 7 + k) % 13) as f32;
    let mut a = NuDist3::<f32>::from_fn(world, (p, q, r), 1, f)?;
    let mut b = NuDist3::<f32>::new(world, (p, q, r), 1)?;
    a.exchange()?;
    annot!(nudist; nuwork!(2, 2, 2; nfor!((i, j, k) in (1 <> p - 2, 1 <> q - 2, 1 <> r - 2) {
        b[(i, j, k)] = a[(i - 1, j, k)] + a[(i + 1, j, k)] + a[(i, j - 1, k)] + a[(i, j + 1, k)]
            + a[(i, j, k - 1)] + a[(i, j, k + 1)] - 6.0 * a[(i, j, k)];
    })))?;
    let got = b.to_vec()?;
    let mut want = vec![0f32; p * q * r];
    for i in 1..p - 1 {
        for j in 1..q - 1 {
            for k in 1..r - 1 {
                want[(i * q + j) * r + k] = f((i - 1, j, k))
                    + f((i + 1, j, k))
                    + f((i, j - 1, k))
                    + f((i, j + 1, k))
                    + f((i, j, k - 1))
                    + f((i, j, k + 1))
                    - 6.0 * f((i, j, k));
            }
        }
    }
    check(got == want, || "stencil_3d differs from plain Rust".into())?;
    d.add(got.iter().map(|x| u64::from(x.to_bits())));
    Ok(())
}

/// Sums, a minimum and a flag over the ranks; the values before the loop count once.
fn reductions(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 1001;
    let a = NuDist1::<f64>::from_fn(world, n, 0, |i| 1.0 / (i as f64 + 1.0))?;
    let b = NuDist1::<u64>::from_fn(world, n, 0, |i| (i as u64 * 2654435761) % 1000)?;
    let (mut s, mut t, mut lo, mut found) = (0.5f64, 7u64, u64::MAX, false);
    annot!(nudist; nuwork!(16; nfor!(i in n {
        s += a[i];
        t += b[i];
        lo = lo.min(b[i] + 3);
        if b[i] == 999 { found = true; }
    })))?;
    let bs: Vec<u64> = (0..n).map(|i| (i as u64 * 2654435761) % 1000).collect();
    let want_s: f64 = 0.5 + (0..n).map(|i| 1.0 / (i as f64 + 1.0)).sum::<f64>();
    check((s - want_s).abs() <= 1e-12 * want_s, || {
        format!("sum {s} != {want_s}")
    })?;
    check(t == 7 + bs.iter().sum::<u64>(), || {
        format!("integer sum {t}")
    })?;
    check(lo == bs.iter().min().unwrap_or(&0) + 3, || {
        format!("min {lo}")
    })?;
    check(found == bs.contains(&999), || format!("flag {found}"))?;
    // Deterministic: the same launch again gives the same bits.
    let mut s2 = 0.5f64;
    annot!(nudist; nuwork!(16; nfor!(i in n { s2 += a[i]; })))?;
    check(s2.to_bits() == s.to_bits(), || format!("rerun {s2} != {s}"))?;
    d.add([s.to_bits(), t, lo, u64::from(found)]);
    Ok(())
}

/// An inclusive scan whose rank prefixes come from the ranks' totals, from a start value.
fn scan(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 53;
    let a = NuDist1::<u32>::from_fn(world, n, 0, |i| (i as u32 * 7) % 5 + 1)?;
    let mut out = NuDist1::<u32>::new(world, n, 0)?;
    let mut acc = 7u32;
    annot!(nudist; nuwork!(8; nfor!(i in n { acc += a[i]; out[i] = acc; })))?;
    let mut run = 7u32;
    let want: Vec<u32> = (0..n)
        .map(|i| {
            run += (i as u32 * 7) % 5 + 1;
            run
        })
        .collect();
    let got = out.to_vec()?;
    check(got == want, || format!("scan {got:?} != {want:?}"))?;
    check(acc == run, || format!("scan total {acc} != {run}"))?;
    d.add(got.iter().map(|&x| u64::from(x)));
    Ok(())
}

/// A filter: each rank pushes from its rows; gathered in rank order it is the loop's order.
fn filter(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 61;
    let a = NuDist1::<i32>::from_fn(world, n, 0, |i| (i as i32 * 13) % 17)?;
    let mut kept = NuVec::<i32>::new();
    annot!(nudist; nuwork!(8; nfor!(i in n { if a[i] % 3 == 0 { kept.push(a[i] * 10 + 1); } })))?;
    let got = world.all_gather_vec(kept.as_slice())?;
    let want: Vec<i32> = (0..n as i32)
        .map(|i| (i * 13) % 17)
        .filter(|x| x % 3 == 0)
        .map(|x| x * 10 + 1)
        .collect();
    check(got == want, || format!("filter {got:?} != {want:?}"))?;
    d.add(got.iter().map(|&x| x as u64));
    Ok(())
}

/// Fewer rows than ranks: some rank owns none, and still takes part in every step.
fn rank_with_no_rows(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 3;
    let a = NuDist1::<i64>::from_fn(world, n, 1, |i| i as i64 * 5 - 3)?;
    let mut b = NuDist1::<i64>::new(world, n, 1)?;
    let (mut s, mut acc) = (0i64, 0i64);
    annot!(nudist; nuwork!(4; nfor!(i in n { s += a[i]; b[i] = a[i] * a[i]; })))?;
    annot!(nudist; nuwork!(4; nfor!(i in n { acc += b[i]; b[i] = acc; })))?;
    check(s == -9 + 15, || format!("sum {s}"))?;
    check(b.to_vec()? == vec![9, 13, 62], || "scan over 3 rows".into())?;
    check(acc == 62, || format!("total {acc}"))?;
    d.add([s as u64, acc as u64]);
    Ok(())
}

/// One rank reads past its halo (and, on one rank, past the array): an `Err` there naming the array, the rank and
/// the line, `OtherRank` on the others, and the next launch runs normally.
fn halo_read_out_of_range(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let n = 12;
    let bad = world.size().min(2) - 1;
    let a = NuDist1::<f32>::from_fn(world, n, 1, |i| i as f32)?;
    let mut b = NuDist1::<f32>::new(world, n, 1)?;
    let reach = if world.rank() == bad { 3usize } else { 1 };
    let line = line!() + 1;
    let r = annot!(nudist; nuwork!(4; nfor!(i in 1 <> n - 3 { b[i] = a[i + reach]; })));
    match (world.rank() == bad, r) {
        (true, Err(nuda::Error::Rank { rank, error, .. })) => {
            let text = error.to_string();
            check(rank == bad, || format!("rank {rank}"))?;
            check(
                text.contains("`a`") && text.contains(&format!("dist.rs:{line}")),
                || text.clone(),
            )?;
            // Past the array with one or two ranks (rank 1 is the last); within it, but past
            // the halo, with more.
            let why = match world.size() {
                1 | 2 => "out of bounds for `a` of dims [12]",
                _ => "is within its dims [12], but row",
            };
            check(text.contains(why), || text.clone())?;
            let full = nuda::Error::Rank {
                rank,
                size: world.size(),
                held: String::new(),
                error,
            }
            .to_string();
            check(
                full.contains(&format!("rank {bad} of {}", world.size())),
                || full.clone(),
            )?;
        }
        (
            false,
            Err(nuda::Error::OtherRank {
                failed, message, ..
            }),
        ) => {
            check(failed == bad, || format!("failed {failed}"))?;
            // The failed rank's words, global: its index, the global dims, its rows.
            check(
                message.contains("[12]") && message.contains(&format!("on rank {bad} of")),
                || message.clone(),
            )?
        }
        (_, r) => fail(&format!("halo read: unexpected {r:?}")),
    }
    annot!(nudist; nuwork!(4; nfor!(i in 1 <> n - 3 { b[i] = a[i + 1]; })))?;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            if (1..=n - 3).contains(&i) {
                (i + 1) as f32
            } else {
                0.0
            }
        })
        .collect();
    check(b.to_vec()? == want, || "the launch after the error".into())
}

/// After a device writes a block, `exchange` moves only the boundary rows (OpenCL devices;
/// the native engine's arrays live on the host and move nothing).
fn exchange_moves_only_boundary_rows(world: &World, _: &mut Digest) -> nuda::Result<()> {
    let (n, m) = (40, 64);
    let mut u = NuDist2::<f32>::new(world, (n, m), 2)?;
    annot!(nudist; nuwork!(8, 8; nfor!((i, j) in (n, m) { u[(i, j)] = (i * m + j) as f32; })))?;
    let before = nuda::thread_stats();
    u.exchange()?;
    let after = nuda::thread_stats();
    let (up, down) = (
        after.to_device.bytes - before.to_device.bytes,
        after.to_host.bytes - before.to_host.bytes,
    );
    let (held, rows) = (u.held(), u.rows());
    let halo_rows = (held.len() - rows.len()) as u64;
    let row = (m * 4) as u64;
    if !current_device()?.is_native() && world.size() > 1 {
        check(up == halo_rows * row, || {
            format!("uploaded {up} bytes, halo {halo_rows} rows")
        })?;
        check(down <= 2 * 2 * row, || format!("downloaded {down} bytes"))?;
        check(u.local().residency().1.len() == 1, || {
            "the block stays on the device".into()
        })?;
    } else {
        check(up + down == 0 || !current_device()?.is_native(), || {
            format!("native moved {up}+{down}")
        })?;
    }
    let whole = u.to_vec()?;
    check(
        whole == (0..n * m).map(|x| x as f32).collect::<Vec<_>>(),
        || "values".into(),
    )?;
    let local = u.local().to_vec();
    let first = held.start;
    check(
        local
            .iter()
            .enumerate()
            .all(|(k, &x)| x == ((first * m) + k) as f32),
        || "halo values".into(),
    )
}

/// One n-body step: positions through allgather, each rank's bodies' accelerations.
fn nbody_step(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 50;
    let init = |i: usize| {
        [
            (i as f32 * 0.37).sin(),
            (i as f32 * 0.11).cos(),
            i as f32 * 0.01,
        ]
    };
    let xs = NuDist1::<f32>::from_fn(world, n, 0, |i| init(i)[0])?;
    let ys = NuDist1::<f32>::from_fn(world, n, 0, |i| init(i)[1])?;
    let zs = NuDist1::<f32>::from_fn(world, n, 0, |i| init(i)[2])?;
    let (x, y, z) = (xs.allgather()?, ys.allgather()?, zs.allgather()?);
    let mut ax = NuDist1::<f32>::new(world, n, 0)?;
    let mut ay = NuDist1::<f32>::new(world, n, 0)?;
    annot!(nudist; nuwork!(16; nfor!(i in n {
        let (mut fx, mut fy) = (0.0f32, 0.0f32);
        for j in 0..n {
            let (dx, dy, dz) = (x[j] - x[i], y[j] - y[i], z[j] - z[i]);
            let r2 = dx * dx + dy * dy + dz * dz + 0.01;
            let s = 1.0 / (r2 * r2.sqrt());
            fx += dx * s;
            fy += dy * s;
        }
        ax[i] = fx;
        ay[i] = fy;
    })))?;
    let (gx, gy) = (ax.to_vec()?, ay.to_vec()?);
    let p: Vec<[f32; 3]> = (0..n).map(init).collect();
    for i in 0..n {
        let (mut fx, mut fy) = (0.0f32, 0.0f32);
        for q in &p {
            let (dx, dy, dz) = (q[0] - p[i][0], q[1] - p[i][1], q[2] - p[i][2]);
            let r2 = dx * dx + dy * dy + dz * dz + 0.01;
            let s = 1.0 / (r2 * r2.sqrt());
            fx += dx * s;
            fy += dy * s;
        }
        let close = |g: f32, f: f32| (g - f).abs() <= 1e-4 * (1.0 + f.abs());
        check(close(gx[i], fx) && close(gy[i], fy), || {
            format!("nbody body {i}")
        })?;
    }
    d.add(gx.iter().chain(&gy).map(|x| u64::from(x.to_bits())));
    Ok(())
}

/// `scatter` from rank 0 with halo 2 (each rank's halo rows arrive with it), then a stepped
/// outer loop and an annotated nest over the rank's rows, bit for bit.
fn scatter_and_steps(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let (n, m) = (29, 6);
    let whole =
        (world.rank() == 0).then(|| NuArray2::from_fn((n, m), |(i, j)| (i * 10 + j) as i32));
    let a = NuDist2::<i32>::scatter(world, (n, m), 2, 0, whole.as_ref())?;
    let held = a.held();
    let local = a.local().to_vec();
    let want: Vec<i32> = held
        .clone()
        .flat_map(|i| (0..m).map(move |j| (i * 10 + j) as i32))
        .collect();
    check(local == want, || format!("scatter: rows {held:?}"))?;
    let mut b = NuDist2::<i32>::new(world, (n, m), 2)?;
    annot!(nudist; nuwork!(2; nfor!(i in (1..n - 1).step_by(3) {
        for j in 0..m {
            b[(i, j)] = a[(i - 1, j)] + a[(i + 1, j)];
        }
    })))?;
    let mut c = NuDist2::<i32>::new(world, (n, m), 0)?;
    annot!(nudist; nuwork!(4, 2; annot!(dmine(2, 1); nfor!((i, j) in (n, m) { c[(i, j)] = a[(i, j)] * 3 - j as i32; }))))?;
    let (gb, gc) = (b.to_vec()?, c.to_vec()?);
    let f = |i: usize, j: usize| (i * 10 + j) as i32;
    let wb: Vec<i32> = (0..n * m)
        .map(|k| (k / m, k % m))
        .map(|(i, j)| {
            if i >= 1 && i < n - 1 && (i - 1) % 3 == 0 {
                f(i - 1, j) + f(i + 1, j)
            } else {
                0
            }
        })
        .collect();
    let wc: Vec<i32> = (0..n * m)
        .map(|k| f(k / m, k % m) * 3 - (k % m) as i32)
        .collect();
    check(gb == wb, || format!("stepped loop {gb:?}"))?;
    check(gc == wc, || "annotated nest".into())?;
    d.add(gb.iter().chain(&gc).map(|&x| x as u64));
    Ok(())
}

/// A scan, a reduction and a push in one loop, over the ranks.
fn scan_reduction_and_push_in_one_loop(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let n = 100usize;
    let a = NuDist1::<u32>::from_fn(world, n, 0, |i| (i % 7) as u32)?;
    let mut out = NuDist1::<u32>::new(world, n, 0)?;
    let (mut sum, mut acc) = (10u32, 0u32);
    let mut sixes = NuVec::<u32>::new();
    annot!(nudist; nuwork!(32; nfor!(i in n {
        sum += a[i];
        acc += a[i];
        out[i] = acc;
        if a[i] == 6 { sixes.push(i as u32); }
    })))?;
    let total: u32 = (0..n as u32).map(|i| i % 7).sum();
    check((sum, acc) == (10 + total, total), || {
        format!("sum {sum}, scan total {acc}")
    })?;
    let mut run = 0;
    let want: Vec<u32> = (0..n as u32)
        .map(|i| {
            run += i % 7;
            run
        })
        .collect();
    check(out.to_vec()? == want, || "the scan".into())?;
    let all = world.all_gather_vec(sixes.as_slice())?;
    check(
        all == (0..n as u32).filter(|i| i % 7 == 6).collect::<Vec<_>>(),
        || format!("pushes {all:?}"),
    )?;
    d.add(all.iter().map(|&x| u64::from(x)));
    Ok(())
}

/// Issue 30's code block as written there (`v` starts at zero, `delta` runs over every step),
/// against the same steps in plain Rust.
fn the_issues_example_verbatim(world: &World, d: &mut Digest) -> nuda::Result<()> {
    let (n, steps) = (21usize, 4);
    let init = heat_init;
    let mut u = NuDist2::<f32>::from_fn(world, (n, n), 1, |(i, j)| init(i, j))?; // row blocks, halo 1
    let mut v = NuDist2::<f32>::new(world, (n, n), 1)?;
    let mut delta = 0.0f32;
    for _ in 0..steps {
        u.exchange()?; // halo rows from the neighbours; only boundary rows move
        annot!(nudist; nuwork!(16, 16; nfor!((i, j) in (1 <> n - 2, 1 <> n - 2) {
            v[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
            delta = delta.max((v[(i, j)] - u[(i, j)]).abs());
        })))?; // each rank runs its own rows; delta is reduced over all ranks
        std::mem::swap(&mut u, &mut v);
    }
    let mut got = None;
    if let Some(whole) = u.gather(0)? {
        got = Some(whole.to_vec()); // rank 0 holds the whole NuArray2<f32>
    }
    let mut pu: Vec<f32> = (0..n * n).map(|k| heat_init(k / n, k % n)).collect();
    let mut pv = vec![0f32; n * n];
    let mut pdelta = 0.0f32;
    for _ in 0..steps {
        for i in 1..=n - 2 {
            for j in 1..=n - 2 {
                let x = 0.25
                    * (pu[(i - 1) * n + j]
                        + pu[(i + 1) * n + j]
                        + pu[i * n + j - 1]
                        + pu[i * n + j + 1]);
                pv[i * n + j] = x;
                pdelta = pdelta.max((x - pu[i * n + j]).abs());
            }
        }
        std::mem::swap(&mut pu, &mut pv);
    }
    check(delta == pdelta, || format!("delta {delta} != {pdelta}"))?;
    if let Some(got) = got {
        check(got == pu, || {
            "the issue's example differs from plain Rust".into()
        })?;
    }
    d.add([u64::from(delta.to_bits())]);
    Ok(())
}
