//! Safe code cannot corrupt memory: every out-of-range access in a kernel, on every engine,
//! touches no memory and makes the launch return `Error::Kernel` naming the array, the index,
//! the dims and the user's line. Arrays the kernel did not write keep their contents, and the
//! device stays usable. Division by zero, `MIN / -1` and zero steps are errors with Rust's
//! words, as Rust's panics.

mod common;

use common::{bounds, engines};
use nuda::prelude::*;
use nuda::KernelFault;

/// `file:line` of the line after the call.
macro_rules! next_line {
    () => {
        format!("{}:{}", file!(), line!() + 1)
    };
}

/// Runs `f` on every engine; `f` gets the engine's name and checks what it must.
fn on_each(f: impl Fn(&str) -> nuda::Result<()>) {
    for d in engines() {
        nuda::with_device(d.index, || f(&d.name)).unwrap().unwrap();
    }
}

#[test]
fn far_write_touches_nothing_and_names_the_array() {
    on_each(|dev| {
        let n = 1000usize;
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let mut b = NuArray1::<f32>::from_fn(n, |_| 7.0);
        let mut other = NuArray1::<f32>::from_fn(n, |i| -(i as f32));
        // Make every array live on the device first, as a real program would.
        nuwork!(64; nfor!(i in n { other[i] = other[i] * 1.0; }))?;
        let at = next_line!();
        let e = nuwork!(64; nfor!(i in n { b[i + 5000] = a[i]; })).unwrap_err();
        let (array, index, dims, location) = bounds(&e);
        assert_eq!((array.as_str(), dims), ("b", vec![1000]), "{dev}: {e}");
        let i: u64 = index[0].parse().unwrap();
        assert!((5000..6000).contains(&i), "{dev}: {e}");
        assert!(location.starts_with(&at), "{dev}: {location} vs {at}");
        assert!(b.as_slice().iter().all(|&v| v == 7.0), "{dev}: b changed");
        assert_eq!(a[999], 999.0, "{dev}");
        assert_eq!(other[5], -5.0, "{dev}");
        // The device is fine: the next launch is right.
        nuwork!(64; nfor!(i in n { b[i] = a[i] * 2.0; }))?;
        assert_eq!(b[999], 1998.0, "{dev}");
        Ok(())
    });
}

#[test]
fn off_by_one_write_reports_the_index_and_writes_the_rest() {
    on_each(|dev| {
        let n = 100usize;
        let mut b = NuArray1::<u32>::new(n);
        let e = nuwork!(16; nfor!(i in 0..=n { b[i] = i as u32 + 1; })).unwrap_err();
        let (array, index, dims, _) = bounds(&e);
        assert_eq!(
            (array.as_str(), index, dims),
            ("b", vec!["100".into()], vec![100]),
            "{dev}"
        );
        assert_eq!(b.to_vec(), (1..=100).collect::<Vec<u32>>(), "{dev}");
        assert!(
            e.to_string().contains("`b`") && e.to_string().contains("[100]"),
            "{e}"
        );
        Ok(())
    });
}

#[test]
fn reads_below_zero_and_past_the_end_give_zero_and_an_error() {
    on_each(|dev| {
        let n = 64usize;
        let a = NuArray1::<i64>::from_fn(n, |i| i as i64 + 1);
        let mut out = NuArray1::<i64>::new(n);
        let e = nuwork!(8; nfor!(i in n { out[i] = a[i - 1]; })).unwrap_err();
        let (array, index, ..) = bounds(&e);
        // `0 - 1` wraps, as usize does in Rust: the index is usize::MAX.
        assert_eq!(
            (array.as_str(), index),
            ("a", vec![u64::MAX.to_string()]),
            "{dev}"
        );
        let want: Vec<i64> = (0..n as i64).collect();
        assert_eq!(out.to_vec(), want, "{dev}: the faulting read gives 0");
        let e = nuwork!(8; nfor!(i in n { out[i] = a[i + 1]; })).unwrap_err();
        assert_eq!(bounds(&e).1, vec![n.to_string()], "{dev}");
        assert_eq!(out[n - 1], 0, "{dev}");
        assert_eq!(out[0], 2, "{dev}");
        Ok(())
    });
}

#[test]
fn a_transpose_into_the_wrong_shape_is_caught_per_dimension() {
    on_each(|dev| {
        let (n, m) = (3usize, 5usize);
        let a = NuArray2::<f32>::from_fn((n, m), |(i, j)| (i * 10 + j) as f32);
        // The output should be (m, n); (n, m) has as many elements, so only a per-dim check
        // sees the transpose go wrong.
        let mut t = NuArray2::<f32>::new((n, m));
        let e = nuwork!(1, 1; nfor!((i, j) in (n, m) { t[(j, i)] = a[(i, j)]; })).unwrap_err();
        let (array, index, dims, _) = bounds(&e);
        assert_eq!((array.as_str(), dims), ("t", vec![3, 5]), "{dev}");
        let j: usize = index[0].parse().unwrap();
        assert!(j >= n, "{dev}: {e}");
        // Cells with j < n were written where they belong, and no other.
        for i in 0..n {
            for j in 0..n {
                assert_eq!(t[(j, i)], a[(i, j)], "{dev}");
            }
        }
        Ok(())
    });
}

#[test]
fn a_three_dimensional_output_of_the_wrong_shape() {
    on_each(|dev| {
        let d = (2usize, 3usize, 4usize);
        let mut out = NuArray3::<u8>::new((2, 4, 3));
        let e = nuwork!(1, 1, 4; nfor!((i, j, k) in (d.0, d.1, d.2) { out[(i, j, k)] = 1; }))
            .unwrap_err();
        let (array, index, dims, _) = bounds(&e);
        assert_eq!((array.as_str(), dims), ("out", vec![2, 4, 3]), "{dev}");
        assert_eq!(index[2], "3", "{dev}: only k = 3 is out of range: {e}");
        let ones = out.as_slice().iter().filter(|&&v| v == 1).count();
        assert_eq!(ones, 2 * 3 * 3, "{dev}");
        Ok(())
    });
}

#[nukernel]
fn shift_right(out: &mut NuArray1<i32>, a: &NuArray1<i32>) {
    let i = global_id(0);
    out[i + 1] = a[i];
}

#[test]
fn a_nukernel_write_out_of_range() {
    for d in engines() {
        let n = 32usize;
        let a = NuArray1::<i32>::from_fn(n, |i| i as i32);
        let mut out = NuArray1::<i32>::new(n);
        let e = nucall!(d.index, [n], [8]; shift_right(&mut out, &a)).unwrap_err();
        let (array, index, dims, location) = bounds(&e);
        assert_eq!(
            (array.as_str(), index, dims),
            ("out", vec!["32".into()], vec![32])
        );
        assert!(location.contains("tests/soundness.rs:"), "{location}");
        assert!(
            e.to_string().starts_with("#[nukernel] shift_right at "),
            "{e}"
        );
        assert_eq!(out[31], 30, "{}", d.name);
    }
}

#[nukernel]
fn past_the_dims(a: &mut NuArray1<f32>, d: usize) {
    a[global_id(3) + global_size(d)] = 7.0;
}

#[test]
fn builtins_past_the_ndrange_answer_zero_and_one() {
    // Dimension 3 (or 2^32) is past any NDRange: id 0 and size 1, so this writes a[1].
    for dev in engines() {
        for d in [3usize, 1 << 32] {
            let mut a = NuArray1::<f32>::new(2);
            nucall!(dev.index, [1], [1]; past_the_dims(&mut a, d)).unwrap();
            assert_eq!(a.to_vec(), [0.0, 7.0], "{} d={d}", dev.name);
            let mut one = NuArray1::<f32>::new(1);
            let e = nucall!(dev.index, [1], [1]; past_the_dims(&mut one, d)).unwrap_err();
            assert_eq!(bounds(&e).1, vec!["1".to_string()], "{}: {e}", dev.name);
        }
    }
}

/// Statements inside a branch run only when it is taken, whatever the C spells it as.
#[test]
fn statements_in_untaken_branches_do_not_run() {
    on_each(|dev| {
        let (n, small) = (64usize, 4usize);
        let mut b = NuArray1::<f32>::new(small);
        let mut c = NuArray1::<f32>::new(n);
        nuwork!(16; nfor!(i in n {
            let v = if i < small { { b[i] = 1.0; 2.0 } } else { 3.0 };
            let w = i < small && { b[i] = b[i] + 1.0; true };
            let u = i >= small || { c[i] = c[i] + 10.0; false };
            c[i] = c[i] + v + if w { 100.0 } else { 0.0 } + if u { 1000.0 } else { 0.0 };
        }))?;
        assert_eq!(b.to_vec(), [2.0; 4], "{dev}");
        let want: Vec<f32> = (0..n)
            .map(|i| if i < small { 112.0 } else { 1003.0 })
            .collect();
        assert_eq!(c.to_vec(), want, "{dev}");
        Ok(())
    });
}

#[test]
fn image_writes_outside_the_image() {
    on_each(|dev| {
        let (w, h) = (8usize, 4usize);
        let mut img = NuImage2::<f32>::new((w, h));
        let e = nuwork!(1, 8; nfor!((y, x) in (h as i32, w as i32) { img.write(x - 1, y, 1.0); }))
            .unwrap_err();
        let (array, index, dims, _) = bounds(&e);
        assert_eq!((array.as_str(), dims), ("img", vec![8, 4]), "{dev}");
        assert_eq!(index[0], "-1", "{dev}: {e}");
        assert_eq!(img.read(7, 0), 0.0, "{dev}");
        assert_eq!(img.read(6, 3), 1.0, "{dev}");
        Ok(())
    });
}

/// The arithmetic fault's words.
fn arithmetic(e: &Error) -> &'static str {
    match e {
        Error::Kernel {
            fault: KernelFault::Arithmetic(w),
            ..
        } => w,
        other => panic!("not an arithmetic fault: {other}"),
    }
}

#[test]
fn division_by_zero_and_overflow_say_what_rust_says() {
    on_each(|dev| {
        let n = 16usize;
        let mut out = NuArray1::<i32>::new(n);
        let (zero, min, minus_one) = (0i32, i32::MIN, -1i32);
        let e = nuwork!(4; nfor!(i in n { out[i] = i as i32 / zero; })).unwrap_err();
        assert_eq!(arithmetic(&e), "attempt to divide by zero", "{dev}");
        let e = nuwork!(4; nfor!(i in n { out[i] = i as i32 % zero; })).unwrap_err();
        let want = "attempt to calculate the remainder with a divisor of zero";
        assert_eq!(arithmetic(&e), want, "{dev}");
        let e = nuwork!(4; nfor!(i in n { out[i] = (min + i as i32) / minus_one; })).unwrap_err();
        assert_eq!(arithmetic(&e), "attempt to divide with overflow", "{dev}");
        assert_eq!(
            out[3],
            -(i32::MIN + 3),
            "{dev}: the other work-items divided"
        );
        let e = nuwork!(4; nfor!(i in n { let mut v = min; v %= minus_one + i as i32 * 0; out[i] = v; }))
            .unwrap_err();
        let want = "attempt to calculate the remainder with overflow";
        assert_eq!(arithmetic(&e), want, "{dev}");
        let ten = 10u64;
        let mut wide = NuArray1::<u64>::new(n);
        nuwork!(4; nfor!(i in n { wide[i] = ten / (i as u64 + 1); }))?;
        assert_eq!(wide[4], 2, "{dev}");
        Ok(())
    });
}

#[test]
fn a_zero_step_is_an_error_in_kernels_and_before_launches() {
    on_each(|dev| {
        let (n, zero) = (8usize, 0usize);
        let mut out = NuArray1::<u64>::new(n);
        let at = next_line!();
        let e = nuwork!(4; nfor!(i in n { let mut s = 0u64; for k in (0..10).step_by(zero) { s += k as u64; } out[i] = s; }))
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Kernel {
                    fault: KernelFault::ZeroStep,
                    ..
                }
            ),
            "{dev}: {e}"
        );
        assert!(e.to_string().contains(&at), "{dev}: {e}");
        let e = nuwork!(4; nfor!(i in (0..n).step_by(zero) { out[i] = 1; })).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Kernel {
                    fault: KernelFault::ZeroStep,
                    ..
                }
            ),
            "{dev}: {e}"
        );
        assert!(out.as_slice().iter().all(|&v| v == 0), "{dev}");
        Ok(())
    });
}

/// Mapped ranges are evaluated on the host before the launch, with the kernel's arithmetic:
/// a zero step or divisor, or an element read out of range, is an error, not a panic, also
/// under annotations; overflow wraps.
#[test]
fn bad_mapped_ranges_are_errors_before_the_launch() {
    on_each(|dev| {
        let (n, zero, t) = (8usize, 0usize, 0usize);
        let counts = NuArray1::<u32>::from_fn(2, |_| 3);
        let mut out = NuArray1::<u32>::new(n);
        let fault = |e: &Error| match e {
            Error::Kernel { fault, .. } => format!("{fault:?}"),
            other => panic!("{dev}: not a kernel error: {other}"),
        };
        let e = nuwork!(4; annot!(tilem(4); nfor!(i in (0..n).step_by(zero) { out[i] = 1; })));
        assert_eq!(fault(&e.unwrap_err()), "ZeroStep", "{dev}");
        // A tile of zero is a tile loop stepping by zero.
        let e = nuwork!(4; annot!(tilem(t); nfor!(i in n { out[i] = 1; }))).unwrap_err();
        assert_eq!(fault(&e), "ZeroStep", "{dev}: {e}");
        let e = nuwork!(4; nfor!(i in n / zero { out[i] = 1; })).unwrap_err();
        assert_eq!(arithmetic(&e), "attempt to divide by zero", "{dev}: {e}");
        let e = nuwork!(4; nfor!(i in counts[5] { out[i as usize] = 1; })).unwrap_err();
        assert_eq!(bounds(&e).0, "counts", "{dev}: {e}");
        assert!(
            out.as_slice().iter().all(|&v| v == 0),
            "{dev}: a kernel ran"
        );
        // `zero - 1` wraps to usize::MAX, whose top three bits make 7.
        nuwork!(4; nfor!(i in (zero - 1) >> 61 { out[i] = 1; }))?;
        assert_eq!(out.as_slice().iter().sum::<u32>(), 7, "{dev}");
        Ok(())
    });
}

#[test]
fn unchecked_skips_the_checks_the_caller_vouches_for() {
    on_each(|dev| {
        let n = 256usize;
        let a = NuArray1::<f32>::from_fn(n, |i| i as f32);
        let mut b = NuArray1::<f32>::new(n);
        // SAFETY: every index is a loop variable below n, the arrays' length.
        unsafe { nuwork!(#[unchecked] 64; nfor!(i in n { b[i] = a[i] + 1.0; })) }?;
        assert_eq!(b[255], 256.0, "{dev}");
        // SAFETY: as above.
        unsafe { nuda::unchecked(|| nuwork!(64; nfor!(i in n { b[i] = a[i] * 3.0; }))) }?;
        assert_eq!(b[255], 765.0, "{dev}");
        Ok(())
    });
}

#[test]
fn checks_off_in_proof_still_correct_on_in_range_kernels() {
    // The dims the kernel sees decide the proof: a second launch with smaller arrays must
    // not reuse a program whose checks the first launch's sizes proved away.
    on_each(|dev| {
        let big = NuArray1::<u32>::from_fn(100, |i| i as u32);
        let small = NuArray1::<u32>::from_fn(10, |i| i as u32);
        let n = 100usize;
        for (src, ok) in [(&big, true), (&small, false), (&big, true)] {
            let mut out = NuArray1::<u32>::new(n);
            let r = nuwork!(8; nfor!(i in n { out[i] = src[i]; }));
            assert_eq!(r.is_ok(), ok, "{dev}: {r:?}");
            assert_eq!(out[9], 9, "{dev}");
        }
        Ok(())
    });
}

/// The faults above print nothing: a child process runs the faulting kernels of this file's
/// first tests and its stderr must hold no panic message and no compiler warning.
#[test]
fn faults_print_nothing() {
    if std::env::var_os("NUDA_QUIET_CHILD").is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args(["--exact", "--test-threads=1", "--nocapture"])
        .args([
            "far_write_touches_nothing_and_names_the_array",
            "division_by_zero_and_overflow_say_what_rust_says",
            "a_nukernel_write_out_of_range",
        ])
        .env("NUDA_QUIET_CHILD", "1")
        .output()
        .expect("child");
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {err}");
    assert!(
        text.contains("3 passed"),
        "the child ran other tests: {text}"
    );
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert!(!err.contains("warning"), "stderr: {err}");
}

#[test]
fn an_array_too_large_to_allocate_is_an_error_not_an_abort() {
    on_each(|dev| {
        // 2^60 bytes: more than any host or device can allocate.
        let mut a = NuArray1::<f32>::new(1 << 58);
        let e = nuwork!(4; nfor!(i in 4 { a[i] = 1.0; })).unwrap_err();
        assert!(matches!(e, Error::OutOfResources { .. }), "{dev}: {e}");
        let e = a.fill(2.0).unwrap_err();
        assert!(matches!(e, Error::OutOfResources { .. }), "{dev}: {e}");
        Ok(())
    });
}
