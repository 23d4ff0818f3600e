//! Loops that count down, on every engine and on the host: NUDA's `a <> b :/ -c`, Rust's
//! `(a..b).rev()`, `(a..=b).rev()` and `(a..b).step_by(c).rev()`, as inner loops, as
//! mapped loops, and in annotated nests; each against plain Rust.

mod common;

use common::{check, vec_of};
use nuda::prelude::*;

/// The digits of an inner loop's values, in visiting order, as a number.
fn digits(v: impl Iterator<Item = i64>) -> i64 {
    v.fold(0i64, |s, j| s.wrapping_mul(10).wrapping_add(j))
}

#[test]
fn inner_loops_count_down() {
    let (n, m) = (4usize, 7usize);
    let want: Vec<i64> = (0..n)
        .map(|i| {
            let i = i as i64;
            digits((0..m as i64).rev())
                + i
                + 3 * digits((0..=m as i64).rev())
                + 5 * digits(
                    (0..m as i64)
                        .step_by(3)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev(),
                )
                + 7 * digits((1..=m as i64 - 1).rev().step_by(2))
                + 11 * digits((0..=m as i64 - 1).rev())
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(2; nfor!(i in n {
            let mut a = 0i64;
            for j in (0..m).rev() { a = a * 10 + j as i64; }
            let mut b = 0i64;
            nfor!(j in (0..=m).rev() { b = b * 10 + j as i64; });
            let mut c = 0i64;
            for j in (0..m).step_by(3).rev() { c = c * 10 + j as i64; }
            let mut d = 0i64;
            nfor!(j in (m as isize - 1) <> 1 :/ -2 { d = d * 10 + j as i64; });
            let mut e = 0i64;
            nfor!(j in (m as isize - 1) <> 0 :/ -1 { e = e * 10 + j as i64; });
            out[i] = a + i as i64 + 3 * b + 5 * c + 7 * d + 11 * e;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn nudas_negative_step_with_a_runtime_step() {
    let n = 3usize;
    for step in [-1i32, -2, -5, 1, 3] {
        let want: Vec<i64> = (0..n)
            .map(|i| {
                let (a, b) = (9 - i as i32, 0i32);
                let vals: Vec<i64> = if step > 0 {
                    (a..=b).step_by(step as usize).map(i64::from).collect()
                } else {
                    (b..=a)
                        .rev()
                        .step_by((-step) as usize)
                        .map(i64::from)
                        .collect()
                };
                digits(vals.into_iter())
            })
            .collect();
        check(want, || {
            let mut out = NuArray1::<i64>::new(n);
            nuwork!(1; nfor!(i in n {
                let mut s = 0i64;
                nfor!(j in (9 - i as i32) <> 0 :/ step { s = s * 10 + j as i64; });
                out[i] = s;
            }))?;
            Ok(vec_of(&out))
        });
    }
}

#[test]
fn mapped_loops_count_down_too() {
    let n = 10usize;
    let want: Vec<i32> = {
        let mut v = vec![0i32; n];
        for (k, i) in (0..n).rev().enumerate() {
            v[i] = k as i32;
        }
        for i in (1..=n as i32 - 1).rev().step_by(3) {
            v[i as usize] += 100;
        }
        v
    };
    check(want, || {
        let mut out = NuArray1::<i32>::new(n);
        nuwork!(4; nfor!(i in (0..n).rev() { out[i] = (n - 1 - i) as i32; }))?;
        nuwork!(4; nfor!(i in (n as i32 - 1) <> 1 :/ -3 { out[i as usize] += 100; }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn annotated_nests_over_reversed_ranges() {
    let (n, m) = (9usize, 6usize);
    let want: Vec<u32> = (0..n * m).map(|k| (k * 3) as u32).collect();
    check(want, || {
        let mut out = NuArray2::<u32>::new((n, m));
        nuwork!(2, 2; annot!(dmine(2, 2); nfor!((i, j) in ((0..n).rev(), (0..m).rev()) {
            out[(i, j)] = ((i * m + j) * 3) as u32;
        })))?;
        Ok(out.to_vec())
    });
}

#[test]
fn host_loops_count_down_as_plain_rust() {
    let m = 6i32;
    let mut seen = Vec::new();
    nfor!(j in (m - 1) <> 0 :/ -2 { seen.push(j); });
    nfor!(j in (0..3).rev() { seen.push(j); });
    nfor!(j in (0..=9).step_by(4).rev() { seen.push(j); });
    assert_eq!(seen, vec![5, 3, 1, 2, 1, 0, 8, 4, 0]);
    let mut s = 0;
    annot!(unroll(2); nfor!(j in (0..5).rev() { s = s * 10 + j; }));
    assert_eq!(s, 43210);
}
