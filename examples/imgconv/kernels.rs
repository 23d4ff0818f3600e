//! imgconv: a 3x3 filter over an image, edges clamped. The input is a `NuImage2` (read through
//! the sampler, which clamps); a buffer variant reads a `NuArray2` and clamps by hand.

#![allow(dead_code)]

use super::problem::{close, Check, Variant};
use nuda::prelude::*;

// The hand-written OpenCL C peers, in their own file; a path from this file's folder, since
// both the example and the bench include this file.
// The example runs no peer, the bench does: hence the allow.
#[path = "hand.rs"]
mod hand;
#[allow(unused_imports)]
pub use hand::*;

/// One filtering: input, filter taps (row-major 3x3), and outputs for each input kind.
pub struct Conv {
    /// Width.
    pub w: usize,
    /// Height.
    pub h: usize,
    /// The input as an image.
    pub img: NuImage2<f32>,
    /// The same input as an array, `(y, x)`.
    pub buf: NuArray2<f32>,
    /// The same input padded by one pixel on every side with copies of the edge, so the
    /// filter reads no index out of range and clamps nothing: `(y + 1, x + 1)` is `(y, x)`.
    pub pad: NuArray2<f32>,
    /// The 3x3 filter.
    pub taps: NuArray1<f32>,
    /// Output of the image variants.
    pub out_img: NuImage2<f32>,
    /// The input packed four pixels to an RGBA texel: texel `(x, y)` holds pixels `4x` to
    /// `4x + 3` of row `y`; where the width is no multiple of 4, copies of the edge fill the
    /// last texel, so they also serve as the clamped right neighbour.
    pub img4: NuImage2<[f32; 4]>,
    /// Output of the packed variants, packed the same way.
    pub out_img4: NuImage2<[f32; 4]>,
    /// Output of the buffer variants.
    pub out_buf: NuArray2<f32>,
}

/// Floating-point operations of one filtering: a multiply and an add per tap and pixel.
pub fn flops(w: usize, h: usize) -> f64 {
    18.0 * (w * h) as f64
}

/// Bytes one filtering must move at least: each input and output pixel once.
pub fn bytes(w: usize, h: usize) -> f64 {
    8.0 * (w * h) as f64
}

/// The unannotated filter: loops over the taps inside each work-item.
pub fn base(c: &mut Conv) -> Result<()> {
    let (w, h, img, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.img,
        &mut c.out_img,
        c.taps.as_const(),
    );
    nuwork!(1, 64; nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        nfor!((dy, dx) in (3, 3) { s += taps[(dy * 3 + dx) as usize] * img.read(x + dx - 1, y + dy - 1); });
        out.write(x, y, s);
    }))
}

/// The tap loops fully unrolled: nine reads and multiply-adds, no loop left.
pub fn inline(c: &mut Conv) -> Result<()> {
    let (w, h, img, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.img,
        &mut c.out_img,
        c.taps.as_const(),
    );
    nuwork!(1, 64; nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) { s += taps[(dy * 3 + dx) as usize] * img.read(x + dx - 1, y + dy - 1); }));
        out.write(x, y, s);
    }))
}

/// Unrolled taps, and a 4x4 block of pixels per work-item.
pub fn inline_dmine(c: &mut Conv) -> Result<()> {
    let (w, h, img, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.img,
        &mut c.out_img,
        c.taps.as_const(),
    );
    nuwork!(1, 64; annot!(dmine(4, 4); nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) { s += taps[(dy * 3 + dx) as usize] * img.read(x + dx - 1, y + dy - 1); }));
        out.write(x, y, s);
    })))
}

/// Unrolled taps, and a 4x8 block of pixels per work-item: the image winner on PoCL, where
/// each work-item's 32 outputs amortise the sampler's per-call cost.
pub fn inline_dmine48(c: &mut Conv) -> Result<()> {
    let (w, h, img, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.img,
        &mut c.out_img,
        c.taps.as_const(),
    );
    nuwork!(1, 64; annot!(dmine(4, 8); nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) { s += taps[(dy * 3 + dx) as usize] * img.read(x + dx - 1, y + dy - 1); }));
        out.write(x, y, s);
    })))
}

/// The packed image, NUDA's `vector` for images: the input holds four pixels per RGBA texel,
/// so one sampler call fetches four. Each iteration filters one texel from the three texels
/// around it in each of three rows; where the texel to the left or right lies outside the
/// image, the edge pixel stands in for its neighbour, as the sampler's clamp does for single
/// pixels. `dmine(8, 4)` gives each work-item 8 rows of 4 texels; the jam puts all their reads
/// before the writes, where the device compiler may merge reads of the same texel (on PoCL
/// it ran 2x faster than a hand kernel making the same reads with writes between them).
pub fn packed(c: &mut Conv) -> Result<()> {
    let (tw, h, img, out, taps) = (
        c.w.div_ceil(4) as i32,
        c.h as i32,
        &c.img4,
        &mut c.out_img4,
        c.taps.as_const(),
    );
    nuwork!(1, 64; annot!(dmine(8, 4); nfor!((y, x) in (h, tw) {
        let mut s = [0.0f32; 4];
        annot!(inline; nfor!(dy in 3 {
            let (l, m, r) = (img.read(x - 1, y + dy - 1), img.read(x, y + dy - 1), img.read(x + 1, y + dy - 1));
            let row = [if x == 0 { m[0] } else { l[3] }, m[0], m[1], m[2], m[3], if x == tw - 1 { m[3] } else { r[0] }];
            annot!(inline; nfor!((q, dx) in (4, 3) { s[q as usize] += taps[(dy * 3 + dx) as usize] * row[(q + dx) as usize]; }));
        }));
        out.write(x, y, s);
    })))
}

/// The packed image shaped for a GPU: one texel per work-item, so neighbouring work-items
/// read neighbouring texels (16 bytes each) and the nine texel reads of one item hit the
/// texture cache that its neighbours filled. The body is `packed`'s without the block.
pub fn packed_texel(c: &mut Conv) -> Result<()> {
    let (tw, h, img, out, taps) = (
        c.w.div_ceil(4) as i32,
        c.h as i32,
        &c.img4,
        &mut c.out_img4,
        c.taps.as_const(),
    );
    nuwork!(1, 64; nfor!((y, x) in (h, tw) {
        let mut s = [0.0f32; 4];
        annot!(inline; nfor!(dy in 3 {
            let (l, m, r) = (img.read(x - 1, y + dy - 1), img.read(x, y + dy - 1), img.read(x + 1, y + dy - 1));
            let row = [if x == 0 { m[0] } else { l[3] }, m[0], m[1], m[2], m[3], if x == tw - 1 { m[3] } else { r[0] }];
            annot!(inline; nfor!((q, dx) in (4, 3) { s[q as usize] += taps[(dy * 3 + dx) as usize] * row[(q + dx) as usize]; }));
        }));
        out.write(x, y, s);
    }))
}

/// The packed image shaped for a GPU, with a column of 4 texels per work-item: the rows
/// shared by neighbouring texels of the column can be fetched once (the jam puts the reads
/// before the writes, where the device compiler may merge them): at best 18 texel fetches
/// for 4 texels instead of 36.
pub fn packed_col4(c: &mut Conv) -> Result<()> {
    let (tw, h, img, out, taps) = (
        c.w.div_ceil(4) as i32,
        c.h as i32,
        &c.img4,
        &mut c.out_img4,
        c.taps.as_const(),
    );
    nuwork!(1, 64; annot!(dmine(4, 1); nfor!((y, x) in (h, tw) {
        let mut s = [0.0f32; 4];
        annot!(inline; nfor!(dy in 3 {
            let (l, m, r) = (img.read(x - 1, y + dy - 1), img.read(x, y + dy - 1), img.read(x + 1, y + dy - 1));
            let row = [if x == 0 { m[0] } else { l[3] }, m[0], m[1], m[2], m[3], if x == tw - 1 { m[3] } else { r[0] }];
            annot!(inline; nfor!((q, dx) in (4, 3) { s[q as usize] += taps[(dy * 3 + dx) as usize] * row[(q + dx) as usize]; }));
        }));
        out.write(x, y, s);
    })))
}

/// The packed image shaped for a GPU, with a column of 8 texels per work-item: the rows
/// shared by neighbouring texels of the column can be fetched once (the jam puts the reads
/// before the writes, where the device compiler may merge them): at best 30 texel fetches
/// for 8 texels instead of 72.
pub fn packed_col8(c: &mut Conv) -> Result<()> {
    let (tw, h, img, out, taps) = (
        c.w.div_ceil(4) as i32,
        c.h as i32,
        &c.img4,
        &mut c.out_img4,
        c.taps.as_const(),
    );
    nuwork!(1, 64; annot!(dmine(8, 1); nfor!((y, x) in (h, tw) {
        let mut s = [0.0f32; 4];
        annot!(inline; nfor!(dy in 3 {
            let (l, m, r) = (img.read(x - 1, y + dy - 1), img.read(x, y + dy - 1), img.read(x + 1, y + dy - 1));
            let row = [if x == 0 { m[0] } else { l[3] }, m[0], m[1], m[2], m[3], if x == tw - 1 { m[3] } else { r[0] }];
            annot!(inline; nfor!((q, dx) in (4, 3) { s[q as usize] += taps[(dy * 3 + dx) as usize] * row[(q + dx) as usize]; }));
        }));
        out.write(x, y, s);
    })))
}

/// Buffer input, clamping by hand; tap loops left in.
pub fn buffer_base(c: &mut Conv) -> Result<()> {
    let (w, h, a, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.buf,
        &mut c.out_buf,
        c.taps.as_const(),
    );
    nuwork!(1, 64; nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        nfor!((dy, dx) in (3, 3) {
            let yy = (y + dy - 1).max(0).min(h - 1) as usize;
            let xx = (x + dx - 1).max(0).min(w - 1) as usize;
            s += taps[(dy * 3 + dx) as usize] * a[(yy, xx)];
        });
        out[(y as usize, x as usize)] = s;
    }))
}

/// Buffer input with the tap loops fully unrolled.
pub fn buffer_inline(c: &mut Conv) -> Result<()> {
    let (w, h, a, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.buf,
        &mut c.out_buf,
        c.taps.as_const(),
    );
    nuwork!(1, 64; nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) {
            let yy = (y + dy - 1).max(0).min(h - 1) as usize;
            let xx = (x + dx - 1).max(0).min(w - 1) as usize;
            s += taps[(dy * 3 + dx) as usize] * a[(yy, xx)];
        }));
        out[(y as usize, x as usize)] = s;
    }))
}

/// Buffer input, unrolled taps, a 2x8 block of pixels per work-item.
pub fn buffer_dmine(c: &mut Conv) -> Result<()> {
    let (w, h, a, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.buf,
        &mut c.out_buf,
        c.taps.as_const(),
    );
    nuwork!(1, 64; annot!(dmine(2, 8); nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) {
            let yy = (y + dy - 1).max(0).min(h - 1) as usize;
            let xx = (x + dx - 1).max(0).min(w - 1) as usize;
            s += taps[(dy * 3 + dx) as usize] * a[(yy, xx)];
        }));
        out[(y as usize, x as usize)] = s;
    })))
}

/// Buffer input, unrolled taps, a column of eight pixels per work-item: neighbouring
/// work-items take neighbouring columns, so a GPU's warps read and write whole rows at once
/// (the 2x8 blocks above suit CPUs, where one work-item's loads should be contiguous).
pub fn buffer_column(c: &mut Conv) -> Result<()> {
    let (w, h, a, out, taps) = (
        c.w as i32,
        c.h as i32,
        &c.buf,
        &mut c.out_buf,
        c.taps.as_const(),
    );
    nuwork!(1, 64; annot!(dmine(8, 1); nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) {
            let yy = (y + dy - 1).max(0).min(h - 1) as usize;
            let xx = (x + dx - 1).max(0).min(w - 1) as usize;
            s += taps[(dy * 3 + dx) as usize] * a[(yy, xx)];
        }));
        out[(y as usize, x as usize)] = s;
    })))
}

/// The padded input, unrolled taps, and the 16x16 tile plus its halo staged in local memory
/// once per work-group (each pixel is read by nine work-items, from there).
pub fn buffer_staged(c: &mut Conv) -> Result<()> {
    let (w, h, a, out, taps) = (c.w, c.h, &c.pad, &mut c.out_buf, c.taps.as_const());
    nuwork!(16, 16; annot!(tilem(16, 16), stage(a); nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) {
            s += taps[dy * 3 + dx] * a[(y + dy, x + dx)];
        }));
        out[(y, x)] = s;
    })))
}

/// The padded input, unrolled taps, two rows per work-item, and eight pixels of a row as the
/// lanes of one `float8`: each tap is one contiguous vector load, since the padding leaves
/// nothing to clamp.
pub fn buffer_vector(c: &mut Conv) -> Result<()> {
    let (w, h, a, out, taps) = (c.w, c.h, &c.pad, &mut c.out_buf, c.taps.as_const());
    nuwork!(1, 64; annot!(dmine(2, 1), vector(8); nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) {
            s += taps[dy * 3 + dx] * a[(y + dy, x + dx)];
        }));
        out[(y, x)] = s;
    })))
}

/// The image variants, base first.
pub const VARIANTS: &[Variant<Conv>] = &[
    Variant {
        name: "base",
        function: "base",
        run: base,
    },
    Variant {
        name: "inline",
        function: "inline",
        run: inline,
    },
    Variant {
        name: "dmine(4, 4), inline",
        function: "inline_dmine",
        run: inline_dmine,
    },
    Variant {
        name: "dmine(4, 8), inline",
        function: "inline_dmine48",
        run: inline_dmine48,
    },
    Variant {
        name: "packed 4 pixels per texel, dmine(8, 4), inline",
        function: "packed",
        run: packed,
    },
    Variant {
        name: "packed 4 pixels per texel, inline",
        function: "packed_texel",
        run: packed_texel,
    },
    Variant {
        name: "packed 4 pixels per texel, dmine(4, 1), inline",
        function: "packed_col4",
        run: packed_col4,
    },
    Variant {
        name: "packed 4 pixels per texel, dmine(8, 1), inline",
        function: "packed_col8",
        run: packed_col8,
    },
];

/// The buffer variants, their own base first.
pub const BUFFER_VARIANTS: &[Variant<Conv>] = &[
    Variant {
        name: "base",
        function: "buffer_base",
        run: buffer_base,
    },
    Variant {
        name: "inline",
        function: "buffer_inline",
        run: buffer_inline,
    },
    Variant {
        name: "dmine(2, 8), inline",
        function: "buffer_dmine",
        run: buffer_dmine,
    },
    Variant {
        name: "dmine(8, 1), inline",
        function: "buffer_column",
        run: buffer_column,
    },
    Variant {
        name: "tilem(16, 16), stage(a), inline; padded",
        function: "buffer_staged",
        run: buffer_staged,
    },
    Variant {
        name: "dmine(2, 1), vector(8), inline; padded",
        function: "buffer_vector",
        run: buffer_vector,
    },
];
/// An image of `w` by `h` with a sharpening filter.
pub fn setup(w: usize, h: usize) -> Conv {
    // A picture with edges for the filter to sharpen: rings around the centre over a
    // left-to-right ramp, in [0, 1].
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    let px = move |x: usize, y: usize| {
        let r = ((x as f32 - cx).hypot(y as f32 - cy)) / (w.max(h) as f32) * 48.0;
        let ring = if r.sin() > 0.0 { 0.35 } else { 0.0 };
        ring + 0.6 * x as f32 / w as f32
    };
    let img = NuImage2::<f32>::from_fn((w, h), |(x, y)| px(x, y));
    let img4 = NuImage2::<[f32; 4]>::from_fn((w.div_ceil(4), h), |(x, y)| {
        std::array::from_fn(|c| px((4 * x + c).min(w - 1), y))
    });
    let buf = NuArray2::<f32>::from_fn((h, w), |(y, x)| px(x, y));
    let edge = |v: usize, n: usize| v.saturating_sub(1).min(n - 1);
    let pad = NuArray2::<f32>::from_fn((h + 2, w + 2), |(y, x)| px(edge(x, w), edge(y, h)));
    let taps = NuArray1::<f32>::from_fn(9, |k| {
        if k == 4 {
            5.0
        } else if k % 2 == 1 {
            -1.0
        } else {
            0.0
        }
    });
    Conv {
        w,
        h,
        img,
        buf,
        pad,
        taps,
        out_img: NuImage2::new((w, h)),
        img4,
        out_img4: NuImage2::new((w.div_ceil(4), h)),
        out_buf: NuArray2::new((h, w)),
    }
}

fn reference(c: &Conv, x: i32, y: i32) -> f32 {
    let t = c.taps.as_slice();
    let mut s = 0.0f32;
    for dy in 0..3 {
        for dx in 0..3 {
            s += t[(dy * 3 + dx) as usize] * c.img.read(x + dx - 1, y + dy - 1);
        }
    }
    s
}

/// How a filter is checked: both outputs poisoned with NaN, then compared.
pub const CHECK: Check<Conv> = Check {
    clear: |c| {
        c.out_img.fill(f32::NAN)?;
        c.out_img4.fill([f32::NAN; 4])?;
        c.out_buf.fill(f32::NAN)
    },
    verify,
};

/// Checks the output the variant wrote (image or buffer; the other stays NaN from `clear`)
/// against plain Rust on sampled rows. Every sampled pixel of a written output must match.
pub fn verify(c: &Conv) -> std::result::Result<(), String> {
    let outputs = [
        ("image", c.out_img.as_slice(), c.w),
        ("buffer", c.out_buf.as_slice(), c.w),
        (
            "packed image",
            c.out_img4.as_slice().as_flattened(),
            4 * c.w.div_ceil(4),
        ),
    ];
    let written: Vec<_> = outputs
        .iter()
        .filter(|(_, o, _)| o.iter().any(|v| !v.is_nan()))
        .collect();
    if written.is_empty() {
        return Err("neither output was written".into());
    }
    let rows = (0..c.h).step_by(c.h / 37 + 1).chain([c.h - 1]);
    for y in rows {
        for x in 0..c.w {
            let want = reference(c, x as i32, y as i32) as f64;
            for (what, out, stride) in &written {
                let got = out[y * stride + x];
                if !close(got as f64, want, 1e-5) {
                    return Err(format!("{what} output at ({x}, {y}) = {got}, want {want}"));
                }
            }
        }
    }
    Ok(())
}
