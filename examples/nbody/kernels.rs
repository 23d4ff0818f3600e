//! nbody: one step of an all-pairs gravitational simulation, accelerations then integration,
//! in structure-of-arrays layout, and one variant on an array of `#[nustruct]` bodies. 20
//! flops per interaction, by convention.

#![allow(dead_code)]

use super::problem::{close, Check, Variant};
use super::split::{part_of, Part};
use nuda::prelude::*;

/// Bodies: positions, masses, velocities; `start` keeps the initial state so each run of a
/// variant computes the same step.
pub struct Bodies {
    /// Number of bodies.
    pub n: usize,
    /// Positions and masses.
    pub px: NuArray1<f32>,
    /// y positions.
    pub py: NuArray1<f32>,
    /// z positions.
    pub pz: NuArray1<f32>,
    /// Masses.
    pub m: NuArray1<f32>,
    /// Velocities after the step.
    pub vx: NuArray1<f32>,
    /// y velocities.
    pub vy: NuArray1<f32>,
    /// z velocities.
    pub vz: NuArray1<f32>,
    /// The same positions and masses as an array of structs.
    pub aos: NuArray1<Body>,
}

/// One body's position and mass: the array-of-structs layout.
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Body {
    /// x position.
    pub x: f32,
    /// y position.
    pub y: f32,
    /// z position.
    pub z: f32,
    /// Mass.
    pub m: f32,
}

/// Softening, squared.
pub const EPS2: f32 = 1e-2;
/// Time step.
pub const DT: f32 = 1e-3;

/// Floating-point operations of one step: 20 per interaction.
pub fn flops(n: usize) -> f64 {
    20.0 * (n as f64) * (n as f64)
}

/// The unannotated step: each work-item sums the pull of all bodies on one body.
pub fn base(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    }))
}

/// The base step on an array of structs: one 16-byte load per body instead of four loads
/// from four arrays.
pub fn aos(b: &mut Bodies) -> Result<()> {
    let (n, bodies) = (b.n, &b.aos);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; nfor!(i in n {
        let bi = bodies[i];
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let bj = bodies[j];
            let (dx, dy, dz) = (bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = bj.m * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    }))
}

/// The inner loop unrolled by 4.
pub fn unroll4(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        annot!(unroll(4); nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }));
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    }))
}

/// Two bodies per work-item, jammed: each load of body j serves both.
pub fn dmine2(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; annot!(dmine(2); nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    })))
}

/// Four bodies per work-item, jammed.
pub fn dmine4(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; annot!(dmine(4); nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    })))
}

/// Four bodies per work-item, and their shared inner loop unrolled by 4.
pub fn dmine4_unroll4(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; annot!(dmine(4); nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        annot!(unroll(4); nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }));
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    })))
}

/// The best variant split over devices (NUDA's `nudevs`): each computes the velocities of
/// its block of bodies from all positions, on its own host thread; the blocks merge on the
/// host.
pub fn split(b: &mut Bodies, parts: &[Part]) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (b.vx.as_shared(), b.vy.as_shared(), b.vz.as_shared());
    nuda::nudevs(parts.iter().map(|p| p.device), |d| {
        let (lo, hi) = part_of(parts, d);
        nuwork!(64; annot!(dmine(4); nfor!(i in lo..hi {
            let (xi, yi, zi) = (px[i], py[i], pz[i]);
            let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
            annot!(unroll(4); nfor!(j in n {
                let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
                let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
                let s = m[j] * inv * inv * inv;
                ax += dx * s;
                ay += dy * s;
                az += dz * s;
            }));
            vx[i] = ax * DT;
            vy[i] = ay * DT;
            vz[i] = az * DT;
        })))
    })?;
    // Timed to the merge: the velocities complete on the host, as with one device.
    [&b.vx, &b.vy, &b.vz]
        .iter()
        .try_for_each(|v| v.try_as_slice().map(drop))
}

/// The integration half of the step: positions move by the new velocities.
pub fn integrate(b: &mut Bodies) -> Result<()> {
    let (n, vx, vy, vz) = (b.n, &b.vx, &b.vy, &b.vz);
    let (px, py, pz) = (&mut b.px, &mut b.py, &mut b.pz);
    nuwork!(64; nfor!(i in n {
        px[i] += vx[i] * DT;
        py[i] += vy[i] * DT;
        pz[i] += vz[i] * DT;
    }))
}

/// Sixteen bodies `i` per work-item as one `float16` each of position and acceleration: every
/// body `j` is loaded once per sixteen interactions.
pub fn vector16(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; annot!(vector(16); nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    })))
}

/// GPU Gems 3's tiling, as annotations: a work-group of 64 bodies `i` stages 64 bodies `j`
/// at a time in local memory, and every work-item of the group reads them from there.
pub fn staged(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; annot!(tilem(64), stage(px, py, pz, m, j: 64); nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    })))
}

/// The tiling with four bodies `i` per work-item, as 4-lane vectors: a work-group of 64
/// work-items takes 256 bodies, and each body `j` read from local memory serves all four.
pub fn staged_vector(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; annot!(tilem(256), stage(px, py, pz, m, j: 64), vector(4); nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dx * dx + dy * dy + dz * dz + EPS2);
            let s = m[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    })))
}

/// The staged `vector(4)` tiling as a GPU wants it: each squared distance and each
/// acceleration term a fused multiply-add (`mul_add`; `a * b + c` stays an FMUL and an FADD,
/// as Rust never fuses), so an interaction is 6 FFMA, 3 FADD, 3 FMUL and one reciprocal
/// square root.
pub fn staged_fma(b: &mut Bodies) -> Result<()> {
    let (n, px, py, pz, m) = (b.n, &b.px, &b.py, &b.pz, &b.m);
    let (vx, vy, vz) = (&mut b.vx, &mut b.vy, &mut b.vz);
    nuwork!(64; annot!(tilem(256), stage(px, py, pz, m, j: 64), vector(4); nfor!(i in n {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        nfor!(j in n {
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let inv = rsqrt(dz.mul_add(dz, dy.mul_add(dy, dx.mul_add(dx, EPS2))));
            let s = m[j] * inv * inv * inv;
            ax = dx.mul_add(s, ax);
            ay = dy.mul_add(s, ay);
            az = dz.mul_add(s, az);
        });
        vx[i] = ax * DT;
        vy[i] = ay * DT;
        vz[i] = az * DT;
    })))
}

/// The variants of the acceleration kernel, base first; integration is timed apart.
pub const VARIANTS: &[Variant<Bodies>] = &[
    Variant {
        name: "base",
        function: "base",
        run: base,
    },
    Variant {
        name: "unroll(4) on j",
        function: "unroll4",
        run: unroll4,
    },
    Variant {
        name: "dmine(2)",
        function: "dmine2",
        run: dmine2,
    },
    Variant {
        name: "dmine(4)",
        function: "dmine4",
        run: dmine4,
    },
    Variant {
        name: "dmine(4), unroll(4) on j",
        function: "dmine4_unroll4",
        run: dmine4_unroll4,
    },
    Variant {
        name: "vector(16)",
        function: "vector16",
        run: vector16,
    },
    Variant {
        name: "tilem(64), stage(px, py, pz, m, j: 64)",
        function: "staged",
        run: staged,
    },
    Variant {
        name: "tilem(256), stage(px, py, pz, m, j: 64), vector(4)",
        function: "staged_vector",
        run: staged_vector,
    },
    Variant {
        name: "tilem(256), stage(px, py, pz, m, j: 64), vector(4); mul_add",
        function: "staged_fma",
        run: staged_fma,
    },
    Variant {
        name: "base, NuArray1<Body> (AoS)",
        function: "aos",
        run: aos,
    },
];

/// Work-items per group of the tiled peer: the bodies one tile stages.
const TILE: usize = 64;

/// The GPU Gems 3 (ch. 31) tiling, hand-written: one body per work-item; the group stages a
/// tile of bodies (x, y, z, m as one `float4`, the `Body` layout) in local memory, one load
/// per work-item, and every work-item of the group reads the whole tile from there. Bodies
/// past n pad the last tile with mass 0, which pulls nothing.
// SAFETY: `hand_tiled` launches it with `p` of n bodies and `vx`, `vy`, `vz` of n floats,
// over n rounded up to TILE work-items in groups of TILE: global reads and writes are
// guarded by n, local ones are below TILE.
static TILED_NBODY: KernelSource = unsafe {
    KernelSource::new(
        "#define TILE 64
     kernel void nbody_tiled(global const float4* restrict p, nu_idx n,
                             global float* restrict vx, nu_idx vx0,
                             global float* restrict vy, nu_idx vy0,
                             global float* restrict vz, nu_idx vz0, float eps2, float dt) {
         local float4 sh[TILE];
         nu_idx i = get_global_id(0), l = get_local_id(0);
         float4 me = i < n ? p[i] : (float4)(0.0f);
         float ax = 0.0f, ay = 0.0f, az = 0.0f;
         for (nu_idx t = 0; t < n; t += TILE) {
             sh[l] = t + l < n ? p[t + l] : (float4)(0.0f);
             barrier(CLK_LOCAL_MEM_FENCE);
             for (int k = 0; k < TILE; k++) {
                 float4 q = sh[k];
                 float dx = q.x - me.x, dy = q.y - me.y, dz = q.z - me.z;
                 float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);
                 float s = q.w * inv * inv * inv;
                 ax += dx * s;
                 ay += dy * s;
                 az += dz * s;
             }
             barrier(CLK_LOCAL_MEM_FENCE);
         }
         if (i < n) {
             vx[i] = ax * dt;
             vy[i] = ay * dt;
             vz[i] = az * dt;
         }
     }",
    )
};

/// Runs the tiled peer on the current OpenCL device.
pub fn hand_tiled(b: &mut Bodies) -> Result<()> {
    Launch::new(&TILED_NBODY, "nbody_tiled")
        .global([b.n.div_ceil(TILE) * TILE])
        .local([TILE])
        .array(&b.aos)
        .array_mut(&mut b.vx)
        .array_mut(&mut b.vy)
        .array_mut(&mut b.vz)
        .arg(EPS2)
        .arg(DT)
        .run()
        .map(drop)
}

/// Lines of the tiled peer, for the bench's table.
pub fn tiled_lines() -> usize {
    TILED_NBODY.source.trim().lines().count()
}

/// `n` bodies on a jittered sphere shell.
pub fn setup(n: usize) -> Bodies {
    let f =
        |i: usize, k: usize| (((i * 2654435761 + k * 40503) % 10007) as f32 / 10007.0) * 2.0 - 1.0;
    let m = |i: usize| 0.5 + (i % 7) as f32 / 7.0;
    Bodies {
        n,
        px: NuArray1::from_fn(n, |i| f(i, 1)),
        py: NuArray1::from_fn(n, |i| f(i, 2)),
        pz: NuArray1::from_fn(n, |i| f(i, 3)),
        m: NuArray1::from_fn(n, m),
        aos: NuArray1::from_fn(n, |i| Body {
            x: f(i, 1),
            y: f(i, 2),
            z: f(i, 3),
            m: m(i),
        }),
        vx: NuArray1::new(n),
        vy: NuArray1::new(n),
        vz: NuArray1::new(n),
    }
}

/// How a step is checked: velocities poisoned, then compared.
pub const CHECK: Check<Bodies> = Check {
    clear: |b| {
        b.vx.fill(f32::NAN)?;
        b.vy.fill(f32::NAN)?;
        b.vz.fill(f32::NAN)
    },
    verify,
};

/// Checks the velocities against plain Rust (in f64) on sampled bodies.
pub fn verify(b: &Bodies) -> std::result::Result<(), String> {
    let (px, py, pz, m) = (
        b.px.as_slice(),
        b.py.as_slice(),
        b.pz.as_slice(),
        b.m.as_slice(),
    );
    for i in (0..b.n).step_by(b.n / 53 + 1) {
        let mut a = [0.0f64; 3];
        for j in 0..b.n {
            let d = [
                (px[j] - px[i]) as f64,
                (py[j] - py[i]) as f64,
                (pz[j] - pz[i]) as f64,
            ];
            let inv = 1.0 / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS2 as f64).sqrt();
            let s = m[j] as f64 * inv * inv * inv;
            (0..3).for_each(|k| a[k] += d[k] * s);
        }
        let got = [b.vx[i], b.vy[i], b.vz[i]];
        for k in 0..3 {
            let want = a[k] * DT as f64;
            // Written so that a NaN (an output the variant never wrote) fails.
            if !(close(got[k] as f64, want, 1e-3) || (got[k] as f64 - want).abs() <= 1e-4) {
                return Err(format!("body {i}, velocity {k}: {}, want {want}", got[k]));
            }
        }
    }
    Ok(())
}
