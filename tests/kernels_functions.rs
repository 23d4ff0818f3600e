//! The kernel suite, #[nucode] functions and #[nukernel] kernels with work-item builtins and barriers.
//! Each kernel runs on an OpenCL device (PoCL in CI) and on the native engine and is
//! compared with plain Rust.

mod common;

use common::{check, check_close, vec_of, OrPanic};
use nuda::prelude::*;

#[nucode]
fn clamp01(x: f32) -> f32 {
    if x < 0.0 {
        return 0.0;
    }
    if x > 1.0 {
        1.0
    } else {
        x
    }
}

#[nucode]
fn smooth(x: f32) -> f32 {
    let t = clamp01(x);
    t * t * (3.0 - 2.0 * t)
}

#[nucode]
fn mix(a: f32, b: f32, x: f32) -> f32 {
    a + (b - a) * smooth(x)
}

/// `rsqrt` is a builtin kernels may call anywhere, `#[nucode]` bodies included: the host's
/// copy of the function has it in scope too.
#[nucode]
fn inv_len(x: f32, y: f32) -> f32 {
    rsqrt(x * x + y * y)
}

// Kernels have `%`, not `is_multiple_of`.
#[allow(clippy::manual_is_multiple_of)]
#[nucode]
fn collatz_steps(mut_n: u64) -> u32 {
    let mut n = mut_n;
    let mut steps = 0u32;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

#[test]
fn anywhere_builtins_run_in_nucode_functions_on_the_host_and_in_kernels() {
    assert!((inv_len(3.0, 4.0) - 0.2).abs() < 1e-7);
    let n = 40usize;
    let want: Vec<f32> = (0..n).map(|i| inv_len(i as f32 + 1.0, 2.0)).collect();
    check_close(&want, 1e-6, || {
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; nfor!(i in n { out[i] = inv_len(i as f32 + 1.0, 2.0); }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn nucode_functions_call_each_other_and_run_on_the_host_unchanged() {
    let n = 50usize;
    let want: Vec<f32> = (0..n)
        .map(|i| mix(2.0, 4.0, i as f32 / 25.0 - 0.5))
        .collect();
    check_close(&want, 1e-6, || {
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; nfor!(i in n { out[i] = mix(2.0, 4.0, i as f32 / 25.0 - 0.5); }))?;
        Ok(vec_of(&out))
    });
    let steps: Vec<u32> = (1..40u64).map(collatz_steps).collect();
    check(steps, || {
        let mut out = NuArray1::<u32>::new(39);
        nuwork!(8; nfor!(i in 39 { out[i] = collatz_steps(i as u64 + 1); }))?;
        Ok(vec_of(&out))
    });
}

#[nukernel]
fn ids(out: &mut NuArray2<u32>) {
    let (i, j) = (global_id(0), global_id(1));
    if i >= out.dims().0 || j >= out.dims().1 {
        return;
    }
    let v = local_id(0) * 1000 + local_id(1) * 100 + group_id(0) * 10 + group_id(1);
    out[(i, j)] =
        (v + global_size(0) * 100000 + local_size(1) * 10000000 + num_groups(1) * 1000000000)
            as u32;
}

#[test]
fn work_item_builtins_in_nukernel() {
    let (n, m) = (6usize, 10usize);
    let mut want = vec![0u32; n * m];
    for i in 0..n {
        for j in 0..m {
            let v = (i % 2) * 1000 + (j % 4) * 100 + (i / 2) * 10 + j / 4;
            want[i * m + j] = (v + 6 * 100000 + 4 * 10000000 + 3 * 1000000000) as u32;
        }
    }
    for d in common::engines() {
        let mut out = NuArray2::<u32>::new((n, m));
        nucall!(d.index, [n, m], [2, 4]; ids(&mut out)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", d.name);
    }
}

#[nukernel]
fn block_reverse(out: &mut NuArray1<i32>, a: &NuArray1<i32>, scratch: &mut NuArray1<i32>) {
    let g = global_id(0);
    let l = local_id(0);
    let size = local_size(0);
    scratch[g] = a[g];
    barrier();
    out[g] = scratch[g - l + (size - 1 - l)];
}

#[test]
fn barrier_synchronises_a_work_group() {
    let n = 64usize;
    let a = NuArray1::<i32>::from_fn(n, |i| i as i32 * 3);
    let want: Vec<i32> = (0..n)
        .map(|g| ((g / 16) * 16 + 15 - g % 16) as i32 * 3)
        .collect();
    assert_eq!(block_reverse::__NUDA_NATIVE_FORM, "split");
    for d in common::engines() {
        let (mut out, mut scratch) = (NuArray1::<i32>::new(n), NuArray1::<i32>::new(n));
        nucall!(d.index, [n], [16]; block_reverse(&mut out, &a, &mut scratch)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", d.name);
    }
}

#[nukernel]
fn poly_const(y: &mut NuArray1<f32>, x: &NuArray1<f32>, c: NuConst<'_, NuArray1<f32>>, n: usize) {
    let i = global_id(0);
    if i < n {
        let mut acc = 0.0;
        for k in 0..c.len() {
            acc = acc * x[i] + c[c.len() - 1 - k];
        }
        y[i] = acc;
    }
}

#[test]
fn nukernel_with_constant_and_scalar_parameters() {
    let n = 100usize;
    let x = NuArray1::<f32>::from_fn(n, |i| i as f32 * 0.01);
    let c = NuArray1::<f32>::from_vec(3, vec![1.0, 2.0, 3.0])._or_panic();
    let want: Vec<f32> = x
        .to_vec()
        .iter()
        .map(|v| (3.0 * v + 2.0) * v + 1.0)
        .collect();
    for d in common::engines() {
        let mut y = NuArray1::<f32>::new(n);
        nucall!(d.index, [n], [32]; poly_const(&mut y, &x, c.as_const(), n)).unwrap();
        let got = y.to_vec();
        assert!(
            got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-5),
            "{}",
            d.name
        );
    }
}

/// A generic kernel: Horner's rule over any element type, calling a generic `#[nucode]`.
#[nukernel]
fn horner<T>(y: &mut NuArray1<T>, x: &NuArray1<T>, c: NuConst<'_, NuArray1<T>>, n: usize)
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T>,
{
    let i = global_id(0);
    if i < n {
        let mut acc = c[c.len() - 1];
        for k in 1..c.len() {
            acc = step(acc, x[i], c[c.len() - 1 - k]);
        }
        y[i] = acc;
    }
}

#[nucode]
fn step<T>(acc: T, x: T, c: T) -> T
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T>,
{
    acc * x + c
}

/// A generic function around `nucall!`, as a library wrapping nuda would write it.
fn eval_poly<T>(dev: usize, xs: &[T], cs: &[T]) -> nuda::Result<Vec<T>>
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T>,
{
    let n = xs.len();
    let x = NuArray1::from_vec(n, xs.to_vec())?;
    let c = NuArray1::from_vec(cs.len(), cs.to_vec())?;
    let mut y = NuArray1::<T>::new(n);
    nucall!(dev, [n], [16]; horner(&mut y, &x, c.as_const(), n))?;
    Ok(y.to_vec())
}

fn horner_case<T>(xs: Vec<T>, cs: Vec<T>)
where
    T: nuda::Element + std::ops::Mul<Output = T> + std::ops::Add<Output = T>,
{
    let want: Vec<T> = xs
        .iter()
        .map(|&x| {
            cs.iter()
                .rev()
                .skip(1)
                .fold(cs[cs.len() - 1], |a, &c| step(a, x, c))
        })
        .collect();
    for d in common::engines() {
        assert_eq!(eval_poly(d.index, &xs, &cs).unwrap(), want, "{}", d.name);
    }
}

#[test]
fn generic_nukernel_for_f32_f64_i32_and_i64() {
    // Small integers keep the float results exact in any order.
    horner_case(
        (0..40).map(|i| i as f32 - 20.0).collect(),
        vec![1.0f32, -2.0, 0.5],
    );
    horner_case(
        (0..40).map(|i| i as f64 * 0.25).collect(),
        vec![3.0f64, 0.0, -1.0, 2.0],
    );
    horner_case((0..40).map(|i| i * 37 - 700).collect(), vec![5i32, -3, 2]);
    horner_case(
        (0..40).map(|i| (i as i64) << 20).collect(),
        vec![-7i64, 11, 1],
    );
}

#[nukernel]
fn cube_sum(out: &mut NuArray3<u64>, scale: u64) {
    let (i, j, k) = (global_id(0), global_id(1), global_id(2));
    let (a, b, c) = out.dims();
    if i < a && j < b && k < c {
        out[(i, j, k)] = collatz_steps(scale * (i + j + k + 1) as u64) as u64;
    }
}

#[test]
fn nukernel_three_dimensional_calling_nucode() {
    let d = (3usize, 4usize, 5usize);
    let mut want = Vec::new();
    for i in 0..d.0 {
        for j in 0..d.1 {
            for k in 0..d.2 {
                want.push(collatz_steps(3 * (i + j + k + 1) as u64) as u64);
            }
        }
    }
    for dev in common::engines() {
        let mut out = NuArray3::<u64>::new(d);
        nucall!(dev.index, [d.0, d.1, d.2], [1, 2, 5]; cube_sum(&mut out, 3)).unwrap();
        assert_eq!(out.to_vec(), want, "{}", dev.name);
    }
}

mod util {
    use nuda::prelude::*;

    /// A `#[nucode]` function in a module, imported by name below.
    #[nucode]
    pub fn tent(x: f32) -> f32 {
        1.0 - (x - 1.0).abs()
    }

    /// Integer arithmetic in a function: it wraps and faults as in kernels.
    #[nucode]
    pub fn hash(x: u32, d: u32) -> u32 {
        (x * 2_654_435_761) / d
    }
}

use util::tent;

#[test]
fn a_nucode_function_imported_by_name_and_path_calls_of_builtins() {
    let n = 40usize;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let x = i as f32 / 20.0;
            tent(x)
                + f32::sqrt(x)
                + f32::max(x, 0.5)
                + util::tent(x * 2.0)
                + f64::max(x as f64, 0.25) as f32
        })
        .collect();
    check_close(&want, 1e-6, || {
        let mut out = NuArray1::<f32>::new(n);
        nuwork!(8; nfor!(i in n {
            let x = i as f32 / 20.0;
            out[i] = tent(x) + f32::sqrt(x) + f32::max(x, 0.5) + util::tent(x * 2.0) + f64::max(x as f64, 0.25) as f32;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn faults_inside_nucode_functions_name_their_line() {
    let want: Vec<u32> = (0..16u32)
        .map(|i| i.wrapping_mul(2_654_435_761) / 3)
        .collect();
    check(want, || {
        let mut out = NuArray1::<u32>::new(16);
        nuwork!(4; nfor!(i in 16 { out[i] = util::hash(i as u32, 3); }))?;
        Ok(vec_of(&out))
    });
    for d in common::engines() {
        let mut out = NuArray1::<u32>::new(16);
        let zero = 0u32;
        let e = nuda::with_device(
            d.index,
            || nuwork!(4; nfor!(i in 16 { out[i] = util::hash(i as u32, zero); })),
        )
        .unwrap()
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("attempt to divide by zero"),
            "{}: {text}",
            d.name
        );
        assert!(
            text.contains("tests/kernels_functions.rs:"),
            "{}: {text}",
            d.name
        );
    }
}

#[nucode]
fn even_steps(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        1 + odd_steps(n - 1)
    }
}

#[nucode]
fn odd_steps(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        1 + even_steps(n - 1)
    }
}

/// Functions that call each other in a cycle: OpenCL C has no recursion, and the native
/// engine could overflow its stack, so every engine refuses the launch the same way, before
/// running anything, naming the cycle. (A function calling itself is a compile error.)
#[test]
fn a_cycle_of_nucode_functions_is_refused_on_every_engine() {
    assert_eq!(even_steps(5), 5); // the host runs plain Rust
    for d in common::engines() {
        let mut out = NuArray1::<u32>::new(8);
        let r = nuda::with_device(
            d.index,
            || nuwork!(4; nfor!(i in 8 { out[i] = even_steps(i as u32); })),
        );
        let text = r.unwrap().unwrap_err().to_string();
        assert!(
            text.contains("`even_steps` -> `odd_steps` -> `even_steps`"),
            "{}: {text}",
            d.name
        );
        assert!(text.contains("cannot recurse"), "{}: {text}", d.name);
    }
}
