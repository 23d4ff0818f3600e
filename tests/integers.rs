//! Integer semantics are Rust's on every engine, in debug and release builds alike: `usize`
//! and `isize` are 64-bit (32-bit on a device only where the launch-time proof shows it
//! changes nothing), literals keep their values, arithmetic wraps (nuda's defined overflow,
//! also where a debug build of plain Rust would panic), shift amounts are masked to the
//! type's width, and casts are Rust's `as`.

mod common;

use common::{check, vec_of};
use nuda::prelude::*;

#[test]
fn usize_arithmetic_beyond_32_bits() {
    let n = 1000usize;
    let want: Vec<u64> = (0..n)
        .map(|i| ((i * 2_654_435_761usize) % 1_000_003) as u64)
        .collect();
    check(want, || {
        let mut out = NuArray1::<u64>::new(n);
        nuwork!(64; nfor!(i in n { out[i] = ((i * 2_654_435_761usize) % 1_000_003) as u64; }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn large_usize_literals_and_captures_keep_their_values() {
    let n = 16usize;
    let big = 6_000_000_000usize;
    let want: Vec<u64> = (0..n)
        .map(|i| ((5_000_000_000usize + i * big) / 1000) as u64)
        .collect();
    check(want, || {
        let mut out = NuArray1::<u64>::new(n);
        nuwork!(4; nfor!(i in n { out[i] = ((5_000_000_000usize + i * big) / 1000) as u64; }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn isize_values_and_casts_from_negative_numbers() {
    let n = 32usize;
    let want: Vec<i64> = (0..n)
        .map(|i| {
            let d = i as isize - 40;
            (d * 100_000_000_000 + (d as usize % 7) as isize) as i64
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(8; nfor!(i in n {
            let d = i as isize - 40;
            out[i] = (d * 100_000_000_000 + (d as usize % 7) as isize) as i64;
        }))?;
        Ok(vec_of(&out))
    });
}

/// What nuda defines overflow to do: wrap, as Rust's `wrapping_*` (and release builds).
#[test]
fn overflow_wraps_on_every_engine_in_every_build() {
    let n = 64usize;
    let want: Vec<i64> = (0..n)
        .map(|i| {
            let (a, b) = (i as u8, i as i32);
            let x = a.wrapping_mul(200).wrapping_add(100) as i64;
            let y = i32::MAX.wrapping_add(b).wrapping_mul(3) as i64;
            let z = (65535u16).wrapping_mul(65535u16.wrapping_sub(i as u16)) as i64;
            let w = (i as i16).wrapping_neg().wrapping_sub(i16::MAX) as i64;
            x + y + z + w
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(16; nfor!(i in n {
            let (a, b) = (i as u8, i as i32);
            let x = (a * 200 + 100) as i64;
            let y = ((i32::MAX + b) * 3) as i64;
            let z = (65535u16 * (65535u16 - i as u16)) as i64;
            let w = (-(i as i16) - 32767) as i64;
            out[i] = x + y + z + w;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn shift_amounts_are_masked_to_the_width() {
    let n = 70usize;
    let want: Vec<u64> = (0..n)
        .map(|i| {
            let s = i as u32;
            (1u8.wrapping_shl(s) as u64)
                .wrapping_add((-128i8).wrapping_shr(s) as i64 as u64)
                .wrapping_add(1u64.wrapping_shl(s) >> 3)
                .wrapping_add(0x8000_0000u32.wrapping_shr(s) as u64)
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<u64>::new(n);
        nuwork!(16; nfor!(i in n {
            let s = i as u32;
            out[i] = ((1u8 << s) as u64) + ((-128i8 >> s) as i64 as u64) + ((1u64 << s) >> 3) + ((0x8000_0000u32 >> s) as u64);
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn casts_between_widths_and_from_floats() {
    let xs = [
        -3.7f32,
        -0.5,
        0.0,
        2.9,
        300.5,
        1e10,
        -1e10,
        f32::NAN,
        65535.9,
    ];
    let n = xs.len();
    let src = NuArray1::<f32>::from_vec(n, xs.to_vec()).unwrap();
    let want: Vec<i64> = xs
        .iter()
        .map(|&x| {
            (x as u8) as i64
                + (x as i16) as i64 * 1000
                + ((x as i64) as i8) as i64
                + (x as usize as u32) as i64
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(4; nfor!(i in n {
            let x = src[i];
            out[i] = (x as u8) as i64 + (x as i16) as i64 * 1000 + ((x as i64) as i8) as i64 + (x as usize as u32) as i64;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn the_index_width_is_chosen_per_launch_and_shown_in_the_dump() {
    // Whether 32 bits suffice depends on the launch's values: with a small multiplier every
    // usize value fits, with a large one the same kernel needs 64 bits, and both are right.
    for m in [3usize, 5_000_000_000] {
        let n = 10usize;
        let want: Vec<u64> = (0..n).map(|i| (i * m % 1_000_000_007) as u64).collect();
        check(want, || {
            let mut out = NuArray1::<u64>::new(n);
            nuwork!(4; nfor!(i in n { out[i] = (i * m % 1_000_000_007) as u64; }))?;
            Ok(vec_of(&out))
        });
    }
}

#[test]
fn counting_and_rotating_usize_bits_is_64_bit() {
    let n = 40usize;
    let want: Vec<u64> = (0..n)
        .map(|i| {
            (i + 1).leading_zeros() as u64
                + i.rotate_right(1) as u64
                + ((i as isize) - 4).count_ones() as u64 * 1000
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<u64>::new(n);
        nuwork!(8; nfor!(i in n {
            out[i] = (i + 1).leading_zeros() as u64 + i.rotate_right(1) as u64 + ((i as isize) - 4).count_ones() as u64 * 1000;
        }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn leading_zeros_alone_is_64_bit() {
    let n = 40usize;
    let want: Vec<u32> = (0..n).map(|i| (i + 1).leading_zeros()).collect();
    check(want, || {
        let mut out = NuArray1::<u32>::new(n);
        nuwork!(8; nfor!(i in n { out[i] = (i + 1).leading_zeros(); }))?;
        Ok(out.to_vec())
    });
}

#[test]
fn isize_minus_two_to_the_31_over_minus_one() {
    // Fine in a 64-bit isize, an overflow in a 32-bit one: the launch must stay 64-bit.
    let n = 4usize;
    let m = -1isize;
    let want: Vec<i64> = (0..n)
        .map(|i| {
            let x = i32::MIN as isize + i as isize;
            (x % m + x / m) as i64
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(4; nfor!(i in n {
            let x = i32::MIN as isize + i as isize;
            out[i] = (x % m + x / m) as i64;
        }))?;
        Ok(vec_of(&out))
    });
    check(vec![0i64; n], || {
        let mut out = NuArray1::<i64>::new(n);
        nuwork!(4; nfor!(i in n { out[i] = ((i32::MIN as isize + i as isize) % m) as i64; }))?;
        Ok(vec_of(&out))
    });
}

#[test]
fn a_dim_past_32_bits_of_an_empty_array() {
    // No element, so no large element count, but the dim reaches the kernel as it is.
    let big = 5_000_000_000usize;
    let a = NuArray2::<f32>::new((0, big));
    check(vec![big as u64; 3], || {
        let mut out = NuArray1::<u64>::new(3);
        nuwork!(1; nfor!(i in 3 { out[i] = a.dims().1 as u64; }))?;
        Ok(vec_of(&out))
    });
}

/// C promotes a `char` `?:` (or `CHAR_MIN`) to `int`; bit counts and rotations must still
/// see the Rust type's width.
#[test]
fn narrow_values_keep_their_width_in_bit_builtins() {
    let n = 8usize;
    let b = NuArray1::<i8>::from_fn(n, |i| i as i8 - 4);
    let u = NuArray1::<u8>::from_fn(n, |i| 1 << i);
    let reference = |i: usize| {
        let (y, x, c) = (i as i8 - 4, 1u8 << i, i.is_multiple_of(2));
        let v = if c { y } else { -y };
        let w = if c { x } else { x / 2 };
        [
            v.count_ones(),
            w.leading_zeros(),
            v.rotate_left(3) as u8 as u32,
            w.rotate_right(3) as u32,
            v.unsigned_abs() as u32,
            i8::MIN.count_ones() * 10 + i16::MIN.count_ones(),
        ]
    };
    let want: Vec<u32> = (0..n).flat_map(reference).collect();
    check(want, || {
        let mut out = NuArray2::<u32>::new((n, 6));
        nuwork!(4; nfor!(i in n {
            let (y, x, c) = (b[i], u[i], i % 2 == 0);
            out[(i, 0)] = i8::count_ones(if c { y } else { -y });
            out[(i, 1)] = (if c { x } else { x / 2 }).leading_zeros();
            out[(i, 2)] = (if c { y } else { -y }).rotate_left(3) as u8 as u32;
            out[(i, 3)] = (if c { x } else { x / 2 }).rotate_right(3) as u32;
            out[(i, 4)] = (if c { y } else { -y }).abs() as u8 as u32;
            out[(i, 5)] = i8::MIN.count_ones() * 10 + i16::MIN.count_ones();
        }))?;
        Ok(out.to_vec())
    });
    // The count indexes an array: a 32-bit count would write past it, unchecked.
    check(vec![0, 0, 0, 0, 0, 0, 0, 0, 4], || {
        let mut hist = NuArray1::<u32>::new(9);
        let minus_one = NuArray1::<i8>::from_fn(4, |_| -1);
        nuwork!(1; nfor!(i in 1usize {
            for j in 0..4usize {
                let y = minus_one[i + j];
                let k = i8::count_ones(if j % 2 == 0 { y } else { y }) as usize;
                hist[k] = hist[k] + 1;
            }
        }))?;
        Ok(hist.to_vec())
    });
}

/// A loop over every value of a 64-bit type runs (2^64 iterations have no `usize` count,
/// so loops count to their last index); an annotated one, which needs the count, is an
/// error rather than a loop that runs zero times.
#[test]
fn loops_over_the_whole_64_bit_range() {
    let n = 4usize;
    let want: Vec<u64> = (0..n)
        .map(|i| {
            let stop = 3 + i as u64;
            let mut c = 0u64;
            for k in 0..=u64::MAX {
                if k == stop {
                    break;
                }
                c += k;
            }
            for k in (0..=u64::MAX).step_by(1) {
                if k == stop {
                    break;
                }
                c += 10 * k;
            }
            for k in (i64::MIN..=i64::MAX).rev() {
                if k == i64::MAX - stop as i64 {
                    break;
                }
                c += 100;
            }
            c
        })
        .collect();
    check(want, || {
        let mut out = NuArray1::<u64>::new(n);
        nuwork!(4; nfor!(i in n {
            let stop = 3 + i as u64;
            let mut c = 0u64;
            for k in 0..=u64::MAX { if k == stop { break; } c += k; }
            for k in (0..=u64::MAX).step_by(1) { if k == stop { break; } c += 10 * k; }
            for k in (i64::MIN..=i64::MAX).rev() { if k == i64::MAX - stop as i64 { break; } c += 100; }
            out[i] = c;
        }))?;
        Ok(vec_of(&out))
    });
    for d in common::engines() {
        let mut out = NuArray1::<u64>::new(n);
        let e = nuda::with_device(d.index, || {
            nuwork!(4; nfor!(i in n {
                let mut c = 0u64;
                annot!(unroll(2); nfor!(k in 0..=u64::MAX { c += k; }));
                out[i] = c;
            }))
        })
        .unwrap()
        .unwrap_err();
        let want = "attempt to count a loop's iterations with overflow";
        assert!(e.to_string().contains(want), "{}: {e}", d.name);
        // Its own advice, not a division's (issue 27, item 10).
        assert!(e.to_string().contains("2^64 iterations"), "{}: {e}", d.name);
        assert!(!e.to_string().contains("divisor"), "{}: {e}", d.name);
    }
}
