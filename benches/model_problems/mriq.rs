//! mri-q (Parboil): the Q matrix of a non-Cartesian MRI reconstruction,
//! `Q(x) = Σ_k |φ_k|² (cos, sin)(2π k·x)`, ported as a new user would: one work-item per
//! voxel and a loop over the k-space samples. It is bound by `sin` and `cos` of arguments of
//! a few hundred radians (issue 52). Peers: the sequential Rust loop (Parboil's CPU version)
//! and the same loop on the host's threads.

use super::problem::{source_lines, Check, Variant};
use super::spec::{on_cpu, Bench, Peak, Peer, Spec};
use super::threaded;
use nuda::prelude::*;

/// One run's inputs and outputs.
pub struct MriQ {
    pub nx: usize,
    pub nk: usize,
    /// k-space sample coordinates and |φ|² per sample.
    pub kx: NuArray1<f32>,
    pub ky: NuArray1<f32>,
    pub kz: NuArray1<f32>,
    pub phi: NuArray1<f32>,
    /// Voxel coordinates.
    pub x: NuArray1<f32>,
    pub y: NuArray1<f32>,
    pub z: NuArray1<f32>,
    /// Q's real and imaginary parts per voxel.
    pub qr: NuArray1<f32>,
    pub qi: NuArray1<f32>,
}

const TWO_PI: f32 = 2.0 * std::f32::consts::PI;

/// The loop as a nuda user writes it.
pub fn base(s: &mut MriQ) -> Result<()> {
    let (nx, nk, two_pi) = (s.nx, s.nk, TWO_PI);
    let (kx, ky, kz, phi) = (&s.kx, &s.ky, &s.kz, &s.phi);
    let (x, y, z, qr, qi) = (&s.x, &s.y, &s.z, &mut s.qr, &mut s.qi);
    nuwork!(64; nfor!(i in nx {
        let (mut re, mut im) = (0.0f32, 0.0f32);
        for k in 0..nk {
            let arg = two_pi * (kx[k] * x[i] + ky[k] * y[i] + kz[k] * z[i]);
            re += phi[k] * arg.cos();
            im += phi[k] * arg.sin();
        }
        qr[i] = re;
        qi[i] = im;
    }))
}

/// Four voxels per work-item: each k-space sample is read once for four.
pub fn dmine4(s: &mut MriQ) -> Result<()> {
    let (nx, nk, two_pi) = (s.nx, s.nk, TWO_PI);
    let (kx, ky, kz, phi) = (&s.kx, &s.ky, &s.kz, &s.phi);
    let (x, y, z, qr, qi) = (&s.x, &s.y, &s.z, &mut s.qr, &mut s.qi);
    nuwork!(64; annot!(dmine(4); nfor!(i in nx {
        let (mut re, mut im) = (0.0f32, 0.0f32);
        for k in 0..nk {
            let arg = two_pi * (kx[k] * x[i] + ky[k] * y[i] + kz[k] * z[i]);
            re += phi[k] * arg.cos();
            im += phi[k] * arg.sin();
        }
        qr[i] = re;
        qi[i] = im;
    })))
}

/// One voxel's Q in plain Rust, the loop the peers and the check run.
fn voxel(s: &Slices, i: usize) -> (f32, f32) {
    let (mut re, mut im) = (0.0f32, 0.0f32);
    for k in 0..s.kx.len() {
        let arg = TWO_PI * (s.kx[k] * s.x[i] + s.ky[k] * s.y[i] + s.kz[k] * s.z[i]);
        re += s.phi[k] * arg.cos();
        im += s.phi[k] * arg.sin();
    }
    (re, im)
}

/// The inputs as host slices.
struct Slices<'a> {
    kx: &'a [f32],
    ky: &'a [f32],
    kz: &'a [f32],
    phi: &'a [f32],
    x: &'a [f32],
    y: &'a [f32],
    z: &'a [f32],
}

fn slices(s: &MriQ) -> Result<Slices<'_>> {
    Ok(Slices {
        kx: s.kx.try_as_slice()?,
        ky: s.ky.try_as_slice()?,
        kz: s.kz.try_as_slice()?,
        phi: s.phi.try_as_slice()?,
        x: s.x.try_as_slice()?,
        y: s.y.try_as_slice()?,
        z: s.z.try_as_slice()?,
    })
}

/// Parboil's CPU version: the sequential loop.
fn sequential(s: &mut MriQ) -> Result<()> {
    let q: Vec<(f32, f32)> = {
        let v = slices(s)?;
        (0..s.nx).map(|i| voxel(&v, i)).collect()
    };
    store(s, &q)
}

/// The same loop on the host's threads, one contiguous block of voxels each.
fn threads(s: &mut MriQ) -> Result<()> {
    let mut q = vec![(0.0f32, 0.0f32); s.nx];
    {
        let v = slices(s)?;
        let chunk = s.nx.div_ceil(threaded::threads()).max(1);
        std::thread::scope(|scope| {
            for (c, part) in q.chunks_mut(chunk).enumerate() {
                let v = &v;
                scope.spawn(move || {
                    for (j, out) in part.iter_mut().enumerate() {
                        *out = voxel(v, c * chunk + j);
                    }
                });
            }
        });
    }
    store(s, &q)
}

fn store(s: &mut MriQ, q: &[(f32, f32)]) -> Result<()> {
    let re: Vec<f32> = q.iter().map(|p| p.0).collect();
    let im: Vec<f32> = q.iter().map(|p| p.1).collect();
    s.qr.copy_from_slice(&re)?;
    s.qi.copy_from_slice(&im)
}

/// Samples spread over the unit cube of k-space, voxels over a 64-wide grid, as Parboil's
/// inputs are: arguments reach a few hundred radians.
pub fn setup(nx: usize, nk: usize) -> MriQ {
    let unit = |i: usize, m: usize| ((i * m) % 1009) as f32 / 1009.0 - 0.5;
    let f = |m: usize| NuArray1::<f32>::from_fn(nk, move |k| unit(k, m));
    let g = |m: usize| NuArray1::<f32>::from_fn(nx, move |i| unit(i, m) * 64.0);
    MriQ {
        nx,
        nk,
        kx: f(7),
        ky: f(13),
        kz: f(29),
        phi: NuArray1::from_fn(nk, |k| unit(k, 31) + 0.5),
        x: g(17),
        y: g(23),
        z: g(37),
        qr: NuArray1::new(nx),
        qi: NuArray1::new(nx),
    }
}

/// Every voxel within 1e-4 of Σ|φ|² of the sequential loop: each engine's `sin` and `cos`
/// are within a few ulp of Rust's, and the sums reassociate.
fn verify(s: &MriQ) -> std::result::Result<(), String> {
    let v = slices(s).map_err(|e| e.to_string())?;
    let tol = 1e-4 * v.phi.iter().sum::<f32>();
    let (qr, qi) = (s.qr.as_slice(), s.qi.as_slice());
    for i in (0..s.nx).step_by((s.nx / 257).max(1)) {
        let (re, im) = voxel(&v, i);
        if !((qr[i] - re).abs() <= tol && (qi[i] - im).abs() <= tol) {
            return Err(format!(
                "Q[{i}] = ({}, {}), want ({re}, {im}) within {tol}",
                qr[i], qi[i]
            ));
        }
    }
    Ok(())
}

const CHECK: Check<MriQ> = Check {
    clear: |s| {
        s.qr.fill(f32::NAN)?;
        s.qi.fill(f32::NAN)
    },
    verify,
};

const VARIANTS: &[Variant<MriQ>] = &[
    Variant {
        name: "base",
        function: "base",
        run: base,
    },
    Variant {
        name: "dmine(4)",
        function: "dmine4",
        run: dmine4,
    },
];

/// Runs mri-q: 32768 voxels by 3072 samples on a GPU (Parboil's small input), 4096 by 1024
/// on a CPU, 256 by 128 with `--quick`; rated in k-space terms (one `sin` and one `cos`
/// each) per second.
pub fn run(bench: &mut Bench, quick: bool) -> Result<()> {
    let (nx, nk) = match (quick, on_cpu(&bench.device)) {
        (true, _) => (256, 128),
        (false, true) => (4096, 1024),
        (false, false) => (32768, 3072),
    };
    let source = include_str!("mriq.rs");
    let lines = |f: &str| Some(source_lines(source, f) + source_lines(source, "voxel"));
    let spec = Spec {
        problem: "mri-q",
        size: format!("{nx}x{nk}"),
        source,
        variants: VARIANTS,
        ops: (nx * nk) as f64,
        unit: "Mterm/s",
        scale: 1e6,
        flops: Some((nx * nk) as f64 * 10.0),
        peak: Peak::Unknown,
        elements: None,
        check: &CHECK,
        same_device_peers: vec![],
        host_peers: vec![
            Peer {
                name: "sequential Rust",
                run: sequential,
                lines: lines("sequential"),
            },
            Peer {
                name: "hand-written threaded Rust",
                run: threads,
                lines: lines("threads"),
            },
        ],
    };
    bench.run(&spec, &mut setup(nx, nk))
}
