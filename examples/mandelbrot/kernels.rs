//! mandelbrot: the escape time of each pixel of a view of the Mandelbrot set, the first GPU
//! demo people look for. Each pixel iterates `z = z² + c` until `|z| > 2` or `max` steps, so
//! neighbouring work-items run different numbers of steps: annotations that group pixels per
//! work-item trade parallelism for less divergence.

#![allow(dead_code)]

use super::problem::{Check, Variant};
use nuda::prelude::*;

/// The part of the complex plane shown: pixel `(y, x)` is `c = (x0 + x * step, y0 + y * step)`.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// Real part of the left column.
    pub x0: f32,
    /// Imaginary part of the top row.
    pub y0: f32,
    /// Distance between neighbouring pixels.
    pub step: f32,
}

/// One rendering: the view, the iteration limit, and each pixel's escape time.
pub struct Fractal {
    /// Width in pixels.
    pub w: usize,
    /// Height in pixels.
    pub h: usize,
    /// At most this many steps per pixel; pixels that reach it are taken to be in the set.
    pub max: u32,
    /// The view.
    pub view: View,
    /// Steps taken per pixel, `(y, x)`.
    pub iters: NuArray2<u32>,
}

/// The whole set, 3 units wide, centred on -0.75 (the classic first picture).
pub fn setup(w: usize, h: usize, max: u32) -> Fractal {
    let step = 3.0 / w as f32;
    let view = View {
        x0: -0.75 - 1.5,
        y0: -(h as f32) * step / 2.0,
        step,
    };
    Fractal {
        w,
        h,
        max,
        view,
        iters: NuArray2::new((h, w)),
    }
}

/// The loop as a Rust user writes it, one pixel per work-item.
pub fn base(f: &mut Fractal) -> Result<()> {
    let (w, h, max, out) = (f.w, f.h, f.max, &mut f.iters);
    let View { x0, y0, step } = f.view;
    nuwork!(1, 64; nfor!((y, x) in (h, w) {
        let cr = x0 + x as f32 * step;
        let ci = y0 + y as f32 * step;
        let mut zr = 0.0f32;
        let mut zi = 0.0f32;
        let mut k = 0u32;
        while k < max && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        out[(y, x)] = k;
    }))
}

/// Four neighbouring pixels of a row per work-item.
pub fn dmine14(f: &mut Fractal) -> Result<()> {
    let (w, h, max, out) = (f.w, f.h, f.max, &mut f.iters);
    let View { x0, y0, step } = f.view;
    nuwork!(1, 64; annot!(dmine(1, 4); nfor!((y, x) in (h, w) {
        let cr = x0 + x as f32 * step;
        let ci = y0 + y as f32 * step;
        let mut zr = 0.0f32;
        let mut zi = 0.0f32;
        let mut k = 0u32;
        while k < max && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        out[(y, x)] = k;
    })))
}

/// A 2x2 block of pixels per work-item.
pub fn dmine22(f: &mut Fractal) -> Result<()> {
    let (w, h, max, out) = (f.w, f.h, f.max, &mut f.iters);
    let View { x0, y0, step } = f.view;
    nuwork!(1, 64; annot!(dmine(2, 2); nfor!((y, x) in (h, w) {
        let cr = x0 + x as f32 * step;
        let ci = y0 + y as f32 * step;
        let mut zr = 0.0f32;
        let mut zi = 0.0f32;
        let mut k = 0u32;
        while k < max && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        out[(y, x)] = k;
    })))
}

/// Work-items take 8x8 tiles: neighbours in a tile diverge little.
pub fn tilem88(f: &mut Fractal) -> Result<()> {
    let (w, h, max, out) = (f.w, f.h, f.max, &mut f.iters);
    let View { x0, y0, step } = f.view;
    nuwork!(1, 64; annot!(tilem(8, 8); nfor!((y, x) in (h, w) {
        let cr = x0 + x as f32 * step;
        let ci = y0 + y as f32 * step;
        let mut zr = 0.0f32;
        let mut zi = 0.0f32;
        let mut k = 0u32;
        while k < max && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        out[(y, x)] = k;
    })))
}

/// The loops swapped: work-items along a column, the row-major array written across.
pub fn permut21(f: &mut Fractal) -> Result<()> {
    let (w, h, max, out) = (f.w, f.h, f.max, &mut f.iters);
    let View { x0, y0, step } = f.view;
    nuwork!(1, 64; annot!(permut(2, 1); nfor!((y, x) in (h, w) {
        let cr = x0 + x as f32 * step;
        let ci = y0 + y as f32 * step;
        let mut zr = 0.0f32;
        let mut zi = 0.0f32;
        let mut k = 0u32;
        while k < max && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        out[(y, x)] = k;
    })))
}

/// The variants, base first.
pub const VARIANTS: &[Variant<Fractal>] = &[
    Variant {
        name: "base",
        function: "base",
        run: base,
    },
    Variant {
        name: "dmine(1, 4)",
        function: "dmine14",
        run: dmine14,
    },
    Variant {
        name: "dmine(2, 2)",
        function: "dmine22",
        run: dmine22,
    },
    Variant {
        name: "tilem(8, 8)",
        function: "tilem88",
        run: tilem88,
    },
    Variant {
        name: "permut(2, 1)",
        function: "permut21",
        run: permut21,
    },
];

/// One pixel's escape time in plain Rust: the same operations in the same order, so every
/// engine must agree exactly (OpenCL C runs with contraction off).
pub fn escape(view: View, max: u32, x: usize, y: usize) -> u32 {
    let cr = view.x0 + x as f32 * view.step;
    let ci = view.y0 + y as f32 * view.step;
    let (mut zr, mut zi, mut k) = (0.0f32, 0.0f32, 0u32);
    while k < max && zr * zr + zi * zi <= 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        k += 1;
    }
    k
}

/// The plain Rust peer: the rows split over the host's threads.
pub fn host_threads(f: &mut Fractal) -> Result<()> {
    let (w, view, max) = (f.w, f.view, f.max);
    let out = f.iters.as_mut_slice();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let rows = f.h.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (part, chunk) in out.chunks_mut(rows * w).enumerate() {
            s.spawn(move || {
                for (p, v) in chunk.iter_mut().enumerate() {
                    let (y, x) = (part * rows + p / w, p % w);
                    *v = escape(view, max, x, y);
                }
            });
        }
    });
    Ok(())
}

/// How a rendering is checked: the counts poisoned, then compared.
pub const CHECK: Check<Fractal> = Check {
    clear: |f| f.iters.fill(u32::MAX),
    verify,
};

/// Compares every pixel (or every few rows of a large image) with plain Rust, exactly.
pub fn verify(f: &Fractal) -> std::result::Result<(), String> {
    let rows: Vec<usize> = if f.h <= 512 {
        (0..f.h).collect()
    } else {
        (0..f.h).step_by(f.h / 97 + 1).collect()
    };
    for y in rows {
        for x in 0..f.w {
            let (got, want) = (f.iters[(y, x)], escape(f.view, f.max, x, y));
            if got != want {
                return Err(format!("pixel ({x}, {y}) took {got} steps, want {want}"));
            }
        }
    }
    Ok(())
}

/// The colour of a pixel that took `k` of at most `max` steps: black in the set, else a
/// smooth blue-gold ramp (Bernstein polynomials of the escape fraction).
pub fn colour(k: u32, max: u32) -> [u8; 3] {
    if k >= max {
        return [0, 0, 0];
    }
    let t = (k as f32 / max as f32).sqrt();
    let u = 1.0 - t;
    let c = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    [
        c(9.0 * u * t * t * t),
        c(15.0 * u * u * t * t),
        c(8.5 * u * u * u * t),
    ]
}

/// The rendering as RGB bytes, rows top first.
pub fn rgb(f: &Fractal) -> Vec<u8> {
    f.iters
        .as_slice()
        .iter()
        .flat_map(|&k| colour(k, f.max))
        .collect()
}
