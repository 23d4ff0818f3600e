//! The edges of the guarantees (issue 26): what outside probes found crashing, wrong, or
//! different between engines, each checked on the OpenCL device and the native engine
//! against plain Rust. Every engine gives Rust's value at the extremes of integer and float
//! arithmetic, and every engine refuses the same launches with the same error.

mod common;

use common::engines;
use nuda::prelude::*;

/// Runs `f` on every engine with that device current; `f` gets the engine's name.
fn on_each(f: impl Fn(&str) -> nuda::Result<()>) {
    for d in engines() {
        nuda::with_device(d.index, || f(&d.name))
            .unwrap()
            .unwrap_or_else(|e| panic!("{}: {e}", d.name));
    }
}

/// Whether `got` is `want` bit for bit (any NaN matching any NaN).
fn same_f32(got: f32, want: f32) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

macro_rules! abs_of {
    ($t:ty, $u:ty) => {{
        let vals: Vec<$t> = vec![<$t>::MIN, <$t>::MIN + 1, -7, -1, 0, 1, <$t>::MAX];
        let n = vals.len();
        let v = NuArray1::<$t>::from_vec(n, vals.clone())?;
        let (mut a, mut w, mut u) = (
            NuArray1::<$t>::new(n),
            NuArray1::<$t>::new(n),
            NuArray1::<$u>::new(n),
        );
        let mut neg = NuArray1::<u8>::new(n);
        nuwork!(4; nfor!(i in n {
            let x = v[i].abs();
            a[i] = x / 2;
            w[i] = v[i].wrapping_abs();
            u[i] = v[i].unsigned_abs();
            neg[i] = if x < 0 { 1 } else { 0 };
        }))?;
        for (k, &x) in vals.iter().enumerate() {
            let want = x.wrapping_abs();
            assert_eq!(a[k], want / 2, "{} abs({x}) / 2", stringify!($t));
            assert_eq!(w[k], want, "{} wrapping_abs({x})", stringify!($t));
            assert_eq!(u[k], x.unsigned_abs(), "{} unsigned_abs({x})", stringify!($t));
            assert_eq!(neg[k], u8::from(want < 0), "{} abs({x}) < 0", stringify!($t));
        }
    }};
}

/// `MIN.abs()` wraps to `MIN` at every width, `< 0` says so, and `unsigned_abs` is exact:
/// PoCL folded C's `abs(INT_MIN) < 0` to false and gave 2^31 for `i32::MIN.abs()`.
#[test]
fn integer_abs_wraps_at_every_width() {
    on_each(|_| {
        abs_of!(i8, u8);
        abs_of!(i16, u16);
        abs_of!(i32, u32);
        abs_of!(i64, u64);
        abs_of!(isize, usize);
        Ok(())
    });
}

/// `powi` multiplies as Rust does: 0.1f32 squared is `0x3c23d70b` everywhere (OpenCL's
/// `pown` gave `0x3c23d70a` on PoCL).
#[test]
fn powi_is_rusts_bit_for_bit() {
    let xs: Vec<f32> = vec![
        0.1,
        1.1,
        -2.7,
        3.3e-3,
        7.77,
        f32::from_bits(0x0040_0000),
        -0.0,
    ];
    let es: Vec<i32> = (-4..=9).collect();
    let (nx, ne) = (xs.len(), es.len());
    on_each(|dev| {
        let (x, e) = (
            NuArray1::from_vec(nx, xs.clone())?,
            NuArray1::from_vec(ne, es.clone())?,
        );
        let mut o = NuArray2::<f32>::new((nx, ne));
        let mut d = NuArray2::<f64>::new((nx, ne));
        nuwork!(4, 4; nfor!((i, j) in (nx, ne) {
            o[(i, j)] = x[i].powi(e[j]);
            d[(i, j)] = (x[i] as f64).powi(e[j]);
        }))?;
        for (i, &xv) in xs.iter().enumerate() {
            for (j, &ev) in es.iter().enumerate() {
                let (got, want) = (o[(i, j)], xv.powi(ev));
                assert!(
                    same_f32(got, want),
                    "{dev}: {xv}.powi({ev}) = {got:e}, Rust {want:e}"
                );
                let (got, want) = (d[(i, j)], (xv as f64).powi(ev));
                assert_eq!(got.to_bits(), want.to_bits(), "{dev}: f64 {xv}.powi({ev})");
            }
        }
        Ok(())
    });
}

/// The special values of IEEE floats, in an order that no reassociation changes.
fn specials() -> Vec<Vec<f32>> {
    let sub = f32::from_bits(1);
    vec![
        vec![],
        vec![f32::NAN; 4],
        vec![-0.0; 3],
        vec![0.0, -0.0],
        vec![f32::INFINITY, 1.0, f32::NEG_INFINITY],
        vec![f32::INFINITY, 2.0],
        vec![sub, -sub, sub, 3.0],
        vec![f32::NAN, 1.0, -2.0],
        vec![-0.0, f32::NAN],
    ]
}

/// Float reductions use Rust's identities: -0.0 for sums (so `-0.0` plus nothing, or plus
/// `-0.0`s, stays `-0.0`) and NaN for `max`/`min` (which return the other operand of a
/// NaN), so an empty or all-NaN nest leaves the variable as it was.
#[test]
fn float_reductions_leave_rusts_values_at_the_edges() {
    for vals in specials() {
        for start in [f32::NAN, -0.0, 0.0, f32::NEG_INFINITY, 5.0] {
            on_each(|dev| {
                let n = vals.len();
                // One element at least (an empty array is refused); the nest reads `n`.
                let mut held = vals.clone();
                held.resize(n.max(1), 9.0);
                let e = NuArray1::from_vec(n.max(1), held)?;
                let (mut s, mut p, mut hi, mut lo) = (start, start, start, start);
                nuwork!(4; nfor!(i in n {
                    s += e[i];
                    p *= e[i];
                    hi = hi.max(e[i]);
                    lo = lo.min(e[i]);
                }))?;
                let (mut rs, mut rp, mut rhi, mut rlo) = (start, start, start, start);
                for &x in &vals {
                    rs += x;
                    rp *= x;
                    rhi = rhi.max(x);
                    rlo = rlo.min(x);
                }
                let what = format!("{dev}: {start:?} over {vals:?}");
                assert!(same_f32(s, rs), "{what}: sum {s:?}, Rust {rs:?}");
                // A product of subnormals underflows to zero in some groupings, which the
                // documented reassociation allows; every other product here is exact.
                let tiny = vals.iter().any(|x| x.is_subnormal());
                assert!(
                    tiny || same_f32(p, rp),
                    "{what}: product {p:?}, Rust {rp:?}"
                );
                // Rust leaves the sign of a zero max or min unspecified: compare values.
                assert!(
                    hi == rhi || (hi.is_nan() && rhi.is_nan()),
                    "{what}: max {hi:?}, Rust {rhi:?}"
                );
                assert!(
                    lo == rlo || (lo.is_nan() && rlo.is_nan()),
                    "{what}: min {lo:?}, Rust {rlo:?}"
                );
                Ok(())
            });
        }
    }
}

/// Scans carry the same values: each prefix is Rust's running value.
#[test]
fn float_scans_carry_rusts_values_at_the_edges() {
    for vals in specials().into_iter().filter(|v| !v.is_empty()) {
        on_each(|dev| {
            let n = vals.len();
            let e = NuArray1::from_vec(n, vals.clone())?;
            let (mut sums, mut maxes) = (NuArray1::<f32>::new(n), NuArray1::<f32>::new(n));
            let (mut c, mut m) = (-0.0f32, f32::NAN);
            nuwork!(4; nfor!(i in n {
                c += e[i];
                sums[i] = c;
                m = m.max(e[i]);
                maxes[i] = m;
            }))?;
            let (mut rc, mut rm) = (-0.0f32, f32::NAN);
            for (k, &x) in vals.iter().enumerate() {
                rc += x;
                rm = rm.max(x);
                assert!(
                    same_f32(sums[k], rc),
                    "{dev}: {vals:?} prefix {k}: {} vs {rc:?}",
                    sums[k]
                );
                let m_ok = maxes[k] == rm || (maxes[k].is_nan() && rm.is_nan());
                assert!(
                    m_ok,
                    "{dev}: {vals:?} max prefix {k}: {} vs {rm:?}",
                    maxes[k]
                );
            }
            assert!(
                same_f32(c, rc) && (m == rm || (m.is_nan() && rm.is_nan())),
                "{dev}: totals"
            );
            Ok(())
        });
    }
}

/// A work-group past the device's maximum is the same `Err` on every engine (the native
/// engine ran it before), and a 2-D nest of 2^43 work-groups is an `Err`, where the native
/// engine aborted allocating a flag per task.
#[test]
fn every_engine_refuses_the_same_work_sizes() {
    on_each(|dev| {
        let mut o = NuArray1::<f32>::new(8);
        for group in [100_000usize, 1 << 40, usize::MAX] {
            let e = nuwork!(group; nfor!(i in 8usize { o[i] = 1.0; })).unwrap_err();
            let text = e.to_string();
            assert!(
                matches!(e, nuda::Error::DimsMismatch { .. }),
                "{dev}: {text}"
            );
            assert!(text.contains("a work-group of at most"), "{dev}: {text}");
        }
        let mut m = NuArray2::<u8>::new((4, 1));
        let e = nuwork!(1, 1; nfor!((i, j) in (1usize << 43, 1) {
            if i < 4 { m[(i, j)] = 1; }
        }))
        .unwrap_err();
        assert!(e.to_string().contains("work-groups"), "{dev}: {e}");
        let mut s = 0u64;
        let e = nuwork!(100_000; nfor!(i in 8usize { s += i as u64; })).unwrap_err();
        assert!(
            e.to_string().contains("a work-group of at most"),
            "{dev}: reduction: {e}"
        );
        Ok(())
    });
}

/// Reads a `nulocal!` array before anything writes it, and again after only even groups
/// wrote it: a group sees zeros, never what another group left.
#[nukernel]
fn local_leftovers(out: &mut NuArray1<u32>) {
    let mut t = nulocal!(u32, 64);
    let (l, g) = (local_id(0), group_id(0));
    let first = t[l];
    barrier();
    if g % 2 == 0 {
        t[l] = (g + 1) as u32;
    }
    barrier();
    out[global_id(0)] = first + t[l] * 1000;
}

/// The first phase stores one element per work-item; in groups smaller than the array the
/// rest stays zero (the kernel zeroes where its store cannot cover the array).
#[nukernel]
fn local_partly_covered(out: &mut NuArray1<u32>) {
    let mut t = nulocal!(u32, 64);
    let l = local_id(0);
    t[l] = (group_id(0) + 1) as u32;
    barrier();
    out[global_id(0)] = t[63 - l];
}

#[test]
fn local_arrays_start_zeroed_in_every_group() {
    // Natively both run split at their barriers (issue 31), each group's view made once.
    assert_eq!(local_leftovers::__NUDA_NATIVE_FORM, "split");
    assert_eq!(local_partly_covered::__NUDA_NATIVE_FORM, "split");
    for d in engines() {
        let n = 64 * 16;
        let mut out = NuArray1::<u32>::new(n);
        nucall!(d.index, [n], [64]; local_leftovers(&mut out)).unwrap();
        let want: Vec<u32> = (0..n)
            .map(|i| {
                if (i / 64) % 2 == 0 {
                    (i / 64 + 1) as u32 * 1000
                } else {
                    0
                }
            })
            .collect();
        assert_eq!(out.to_vec(), want, "{}", d.name);
        for group in [64usize, 32] {
            let m = group * 8;
            let mut out = NuArray1::<u32>::new(m);
            nucall!(d.index, [m], [group]; local_partly_covered(&mut out)).unwrap();
            let want: Vec<u32> = (0..m)
                .map(|i| {
                    if 63 - i % group < group {
                        (i / group + 1) as u32
                    } else {
                        0
                    }
                })
                .collect();
            assert_eq!(out.to_vec(), want, "{}: groups of {group}", d.name);
        }
    }
}

#[nucode]
fn big_table_sum(k: usize) -> f64 {
    let mut t = [0.0f64; 1 << 16];
    t[k] = 1.0;
    t[k] + t[0]
}

#[nukernel]
fn big_private(out: &mut NuArray1<f64>) {
    let mut t = [0.0f64; 1 << 17];
    let i = global_id(0);
    t[i] = 1.0;
    out[i] = t[i];
}

/// Asserts `e` is the private-memory refusal of array `name` of `bytes` bytes.
fn refused(dev: &str, e: &nuda::Error, name: &str, bytes: usize) {
    let text = e.to_string();
    assert!(
        matches!(e, nuda::Error::OutOfResources { .. }),
        "{dev}: {text}"
    );
    assert!(
        text.contains(&format!("`{name}`")),
        "{dev}: names the array: {text}"
    );
    assert!(
        text.contains(&format!("{bytes} bytes")),
        "{dev}: says its size: {text}"
    );
    assert!(
        text.contains("at most"),
        "{dev}: says the device's limit: {text}"
    );
}

/// A private array too large for a work-item's stack is an `Err` naming it, its size and
/// the device's limit, on every engine: PoCL crashed (SIGSEGV) from 1 MiB and the native
/// engine overflowed rayon's stacks from 2 MiB. Small ones still run.
#[test]
fn big_private_arrays_are_refused_not_crashed() {
    on_each(|dev| {
        let n = 64usize;
        let mut o = NuArray1::<f64>::new(n);
        let e = nuwork!(64; nfor!(i in n {
            let mut t = [0.0f64; 1 << 17];
            t[i] = i as f64;
            o[i] = t[i] + t[0];
        }))
        .unwrap_err();
        refused(dev, &e, "t", 1 << 20);
        let e = nuwork!(1; nfor!(i in n {
            let mut big = [0.0f64; 1 << 18];
            big[i] = 1.0;
            o[i] = big[i];
        }))
        .unwrap_err();
        refused(dev, &e, "big", 1 << 21);
        // A #[nucode] function's locals count too, and a #[nukernel]'s.
        let e = nuwork!(16; nfor!(i in n { o[i] = big_table_sum(i); })).unwrap_err();
        assert!(
            matches!(e, nuda::Error::OutOfResources { .. }),
            "{dev}: {e}"
        );
        let index = nuda::current_device()?.index();
        let e = nucall!(index, [n], [16]; big_private(&mut o)).unwrap_err();
        refused(dev, &e, "t", 1 << 20);
        // A table that fits runs, as before.
        nuwork!(16; nfor!(i in n {
            let mut t = [0.0f64; 256];
            t[i] = i as f64;
            o[i] = t[i] + t[255];
        }))?;
        assert_eq!(o[63], 63.0, "{dev}");
        Ok(())
    });
}

/// Gauss–Seidel over anti-diagonals `2i + j = w`: each point reads neighbours on other
/// diagonals only, which the dependence test proves, so the wavefront compiles and gives
/// sequential Gauss–Seidel's result exactly.
#[test]
fn a_gauss_seidel_wavefront_compiles_and_matches_the_sequential_sweep() {
    let n = 24usize;
    let init = |i: usize, j: usize| ((i * 7 + j * 3) % 11) as f32;
    let mut want: Vec<f32> = (0..n * n).map(|k| init(k / n, k % n)).collect();
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let a = |i: usize, j: usize| want[i * n + j];
            want[i * n + j] = (a(i - 1, j)
                + a(i, j + 1)
                + a(i + 1, j)
                + a(i, j - 1)
                + a(i - 1, j - 1)
                + a(i + 1, j + 1)
                + a(i - 1, j + 1)
                + a(i + 1, j - 1)
                + a(i, j))
                / 9.0;
        }
    }
    on_each(|dev| {
        let mut a = NuArray2::<f32>::from_fn((n, n), |(i, j)| init(i, j));
        let last = n - 2;
        for w in 3..=3 * last {
            let lo = 1.max((w as isize - last as isize + 1) / 2).max(1) as usize;
            let lo = (lo..)
                .find(|&i| w >= 2 * i && w - 2 * i <= last)
                .unwrap_or(n);
            let hi = last.min((w - 1) / 2);
            if lo > hi {
                continue;
            }
            nuwork!(16; nfor!(i in lo <> hi {
                let j = w - 2 * i;
                a[(i, j)] = (a[(i - 1, j)] + a[(i, j + 1)] + a[(i + 1, j)] + a[(i, j - 1)]
                    + a[(i - 1, j - 1)] + a[(i + 1, j + 1)] + a[(i - 1, j + 1)] + a[(i + 1, j - 1)]
                    + a[(i, j)]) / 9.0;
            }))?;
        }
        assert_eq!(a.to_vec(), want, "{dev}");
        Ok(())
    });
}

/// A red-black sweep through `%`: no affine test proves it, `#[independent]` says it, and
/// it gives Rust's result.
#[test]
fn independent_opts_out_of_the_dependence_test() {
    let n = 101usize;
    let mut want: Vec<f32> = (0..n).map(|i| (i * i % 17) as f32).collect();
    for color in [0usize, 1] {
        let old = want.clone();
        for i in 1..n - 1 {
            if i % 2 == color {
                want[i] = 0.5 * (old[i - 1] + old[i + 1]);
            }
        }
    }
    on_each(|dev| {
        let mut a = NuArray1::<f32>::from_fn(n, |i| (i * i % 17) as f32);
        for color in [0usize, 1] {
            nuwork!(#[independent] 16; nfor!(i in 1..n - 1 {
                if i % 2 == color {
                    a[i] = 0.5 * (a[i - 1] + a[i + 1]);
                }
            }))?;
        }
        assert_eq!(a.to_vec(), want, "{dev}");
        Ok(())
    });
}

/// Pushes count in 32 bits: a nest that could push 2^32 elements is refused before it
/// runs, on every engine, with the limit and its reason.
#[test]
fn a_nest_that_could_push_past_32_bits_says_why() {
    on_each(|dev| {
        let mut v = NuVec::<u32>::new();
        let n = 1usize << 32;
        let e = nuwork!(64; nfor!(i in n { if i == 7 { v.push(i as u32); } })).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("32-bit") && text.contains("split the loop"),
            "{dev}: {text}"
        );
        assert_eq!(v.len(), 0, "{dev}");
        Ok(())
    });
}
