//! imgconv's hand-written OpenCL C peers (the example's layer: programs a user writes), one
//! per input kind, each run through `Launch` on the current OpenCL or CUDA device.

use super::Conv;
use nuda::prelude::*;

/// The hand-written OpenCL C peer of the best buffer variant (`dmine(2, 8), inline`): a 2x8
/// block of pixels per work-item, nine clamped loads and multiply-adds each, written by hand.
// SAFETY: every read is clamped into `a`'s dims, the write is guarded by them, and every
// launch passes `out` of `a`'s shape.
pub static HAND_CONV: KernelSource = unsafe {
    KernelSource::new(
        "kernel void conv3(global float* restrict out, nu_idx o0, nu_idx o1,
                       global const float* restrict a, nu_idx h, nu_idx w,
                       constant float* restrict t, nu_idx tn) {
         int y0 = 2 * get_global_id(0), x0 = 8 * get_global_id(1);
         int hi = (int)h - 1, wi = (int)w - 1;
         if (y0 + 2 > (int)h || x0 + 8 > (int)w) return; /* the bench's sizes are multiples */
         float s[2][8];
         #pragma unroll
         for (int r = 0; r < 2; r++)
             #pragma unroll
             for (int q = 0; q < 8; q++)
                 s[r][q] = 0.0f;
         #pragma unroll
         for (int r = 0; r < 2; r++)
             #pragma unroll
             for (int q = 0; q < 8; q++)
                 #pragma unroll
                 for (int dy = 0; dy < 3; dy++) {
                     int yy = clamp(y0 + r + dy - 1, 0, hi);
                     #pragma unroll
                     for (int dx = 0; dx < 3; dx++)
                         s[r][q] += t[dy * 3 + dx] * a[yy * (int)w + clamp(x0 + q + dx - 1, 0, wi)];
                 }
         #pragma unroll
         for (int r = 0; r < 2; r++)
             #pragma unroll
             for (int q = 0; q < 8; q++)
                 out[(y0 + r) * (int)w + x0 + q] = s[r][q];
     }",
    )
};

/// Runs the hand-written peer on the current OpenCL device.
pub fn hand_conv(c: &mut Conv) -> Result<()> {
    let groups = [c.h.div_ceil(2), c.w.div_ceil(8)];
    Launch::new(&HAND_CONV, "conv3")
        .global(groups)
        .local([1, 64])
        .array_mut(&mut c.out_buf)
        .array(&c.buf)
        .constant(&c.taps)
        .run()
        .map(drop)
}

/// The hand-written OpenCL C peer of the best image variant (`dmine(4, 8), inline`): a 4x8
/// block of pixels per work-item, nine reads through the clamping sampler and multiply-adds
/// each, written by hand. It reads and writes through nuda's prelude macros (`nu_read1`,
/// `nu_write1`), so the same source runs on CUDA's textures and surfaces.
// SAFETY: reads go through the clamp-to-edge sampler, which cannot leave the image; every
// write is guarded by `w` and `h`, which each launch passes as the output's size.
pub static HAND_CONV_IMAGE: KernelSource = unsafe {
    KernelSource::new(
        "kernel void conv3i(write_only image2d_t out, read_only image2d_t img,
                        constant float* restrict t, nu_idx tn, int w, int h) {
         int y0 = 4 * get_global_id(0), x0 = 8 * get_global_id(1);
         if (y0 + 4 > h || x0 + 8 > w) return; /* the bench's sizes are multiples */
         float s[4][8];
         #pragma unroll
         for (int r = 0; r < 4; r++)
             #pragma unroll
             for (int q = 0; q < 8; q++)
                 s[r][q] = 0.0f;
         #pragma unroll
         for (int r = 0; r < 4; r++)
             #pragma unroll
             for (int q = 0; q < 8; q++)
                 #pragma unroll
                 for (int dy = 0; dy < 3; dy++)
                     #pragma unroll
                     for (int dx = 0; dx < 3; dx++)
                         s[r][q] += t[dy * 3 + dx] * nu_read1(img, x0 + q + dx - 1, y0 + r + dy - 1);
         #pragma unroll
         for (int r = 0; r < 4; r++)
             #pragma unroll
             for (int q = 0; q < 8; q++)
                 nu_write1(out, w, h, x0 + q, y0 + r, s[r][q], 0, 0u, 0);
     }",
    )
};

/// Runs the hand-written image peer on the current OpenCL device.
pub fn hand_conv_image(c: &mut Conv) -> Result<()> {
    let groups = [c.h.div_ceil(4), c.w.div_ceil(8)];
    Launch::new(&HAND_CONV_IMAGE, "conv3i")
        .global(groups)
        .local([1, 64])
        .image_mut(&mut c.out_img)
        .image(&c.img)
        .constant(&c.taps)
        .arg(c.w as i32)
        .arg(c.h as i32)
        .run()
        .map(drop)
}

/// The hand-written OpenCL C peer of the packed variant: a block of 8 rows by 4 texels (128
/// pixels) per work-item, as the variant's `dmine(8, 4)`, written as a programmer would by
/// hand: each of the 10 by 6 texels around the block read once, into a window of three
/// unpacked rows that slides down the block.
// SAFETY: reads go through the clamp-to-edge sampler, which cannot leave the image; every
// write lies inside `tw` by `h`, the output's texel dims, which each launch passes.
pub static HAND_CONV_PACKED: KernelSource = unsafe {
    KernelSource::new(
        "kernel void conv3p(write_only image2d_t out, read_only image2d_t img,
                        constant float* restrict t, nu_idx tn, int tw, int h) {
         int y0 = 8 * get_global_id(0), x0 = 4 * get_global_id(1);
         if (y0 + 8 > h || x0 + 4 > tw) return; /* the bench's sizes are multiples */
         /* a window of three input rows, unpacked with a pixel each side */
         float p[3][18];
         for (int j = 0; j < 10; j++) { /* input row y0 + j - 1 enters the window */
             int y = y0 + j - 1;
             #pragma unroll
             for (int i = 0; i < 18; i++) {
                 p[0][i] = p[1][i];
                 p[1][i] = p[2][i];
             }
             #pragma unroll
             for (int k = 0; k < 4; k++) {
                 nu_arr_float_4 m = nu_read4(img, x0 + k, y);
                 #pragma unroll
                 for (int c = 0; c < 4; c++)
                     p[2][1 + 4 * k + c] = m.v[c];
             }
             p[2][0] = x0 == 0 ? p[2][1] : nu_read4(img, x0 - 1, y).v[3];
             p[2][17] = x0 + 4 == tw ? p[2][16] : nu_read4(img, x0 + 4, y).v[0];
             if (j < 2) continue;
             #pragma unroll
             for (int k = 0; k < 4; k++) { /* output row y - 1 */
                 nu_arr_float_4 o;
                 #pragma unroll
                 for (int c = 0; c < 4; c++) {
                     float s = 0.0f;
                     #pragma unroll
                     for (int dy = 0; dy < 3; dy++)
                         #pragma unroll
                         for (int dx = 0; dx < 3; dx++)
                             s += t[dy * 3 + dx] * p[dy][4 * k + c + dx];
                     o.v[c] = s;
                 }
                 nu_write4(out, tw, h, x0 + k, y - 1, o, 0, 0u, 0);
             }
         }
     }",
    )
};

/// Runs the hand-written packed peer on the current OpenCL device.
pub fn hand_conv_packed(c: &mut Conv) -> Result<()> {
    let tw = c.w.div_ceil(4);
    let groups = [c.h.div_ceil(8), tw.div_ceil(4)];
    Launch::new(&HAND_CONV_PACKED, "conv3p")
        .global(groups)
        .local([1, 64])
        .image_mut(&mut c.out_img4)
        .image(&c.img4)
        .constant(&c.taps)
        .arg(tw as i32)
        .arg(c.h as i32)
        .run()
        .map(drop)
}
