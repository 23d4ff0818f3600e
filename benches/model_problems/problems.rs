//! Running the model problems: every variant on the selected device, base first, then the
//! peers measured in the same run: the native engine on the best variant, matrixmultiply for
//! sgemm/dgemm, and hand-written OpenCL C for sgemm and imgconv.

use super::problem::{best_times_on_two, best_times_paired, measure, source_lines, Check, Variant};
use super::spec::{on_cpu, Bench, Peak, Peer, Run, Spec};
use super::table::{peaks, Row};
use super::{imgconv, mandelbrot, md5, nbody, sgemm};
use nuda::{DeviceKind, Result};

/// One measurement, before it becomes a row.
struct Measured<'n> {
    name: &'n str,
    kind: &'static str,
    seconds: f64,
    verified: bool,
    lines: Option<usize>,
}

impl Bench {
    fn row<S>(&self, spec: &Spec<'_, S>, m: Measured<'_>, base: f64) -> Row {
        let rate = spec.ops / m.seconds / spec.scale;
        let per_second = rate * spec.scale;
        let peak_percent =
            peaks(&self.device.info().name).and_then(|(fp32, fp64, bw)| match spec.peak {
                Peak::Fp32 => Some(100.0 * per_second / fp32),
                Peak::Fp64 => Some(100.0 * per_second / fp64),
                Peak::Bandwidth => Some(100.0 * per_second / bw),
                Peak::Unknown => None,
            });
        Row {
            checks_ratio: None,
            no_proof_ratio: None,
            paired: None,
            problem: spec.problem.into(),
            size: spec.size.clone(),
            device: self.device.info().name.clone(),
            variant: m.name.into(),
            kind: m.kind.into(),
            seconds: m.seconds,
            rate,
            gflops: spec.flops.map(|f| f / m.seconds / 1e9),
            unit: spec.unit.into(),
            speedup: base / m.seconds,
            peak_percent,
            source_lines: m.lines,
            verified: m.verified,
        }
    }

    /// Times `run` and checks its result (a wrong one is reported on stderr and marked in the
    /// table, and the bench goes on).
    fn measure<'n, S>(
        &self,
        spec: &Spec<'_, S>,
        name: &'n str,
        state: &mut S,
        run: Run<S>,
    ) -> Result<Measured<'n>> {
        self.bar.set_message(format!("{} {name}", spec.problem));
        let (t, verified) = measure(state, run, self.reps, spec.check)?;
        if let Err(e) = &verified {
            self.bar
                .suspend(|| eprintln!("{} {name}: WRONG: {e}", spec.problem));
        }
        self.bar.inc(1);
        Ok(Measured {
            name,
            kind: "peer",
            seconds: t.as_secs_f64(),
            verified: verified.is_ok(),
            lines: None,
        })
    }

    /// Measures every variant and peer of one problem on `state`.
    pub fn run<S>(&mut self, spec: &Spec<'_, S>, state: &mut S) -> Result<()> {
        if self.lab_mode {
            return self.lab_run(spec, state);
        }
        self.bar.inc_length(self.planned(spec));
        let mut base = None;
        let mut base_run: Option<Run<S>> = None;
        let mut best: Option<(f64, &Variant<S>)> = None;
        let variants: Vec<&Variant<S>> = spec
            .variants
            .iter()
            .filter(|v| self.chosen(v.name))
            .collect();
        for v in variants {
            let m = self.measure(spec, v.name, state, v.run)?;
            let t = m.seconds;
            let b = *base.get_or_insert(t);
            // The base's own row has nothing to pair with.
            let against = base_run;
            base_run.get_or_insert(v.run);
            let lines = Some(source_lines(spec.source, v.function));
            let mut row = self.row(
                spec,
                Measured {
                    kind: "nuda",
                    lines,
                    ..m
                },
                b,
            );
            if row.verified {
                let c = crate::checks::costs(state, v.run, self.reps, !self.quick)?;
                (row.checks_ratio, row.no_proof_ratio) = (Some(c.overhead()), c.without_proof());
                row.paired = self.over_base(state, v.run, against)?;
            }
            self.rows.push(row);
            if let (Some(native), true) = (self.native, self.native_each) {
                self.native_pair(spec, state, b, native, v)?;
            }
            if best.is_none() || best.is_some_and(|(bt, _)| t < bt) {
                best = Some((t, v));
            }
        }
        let base = base.unwrap_or(1.0);
        self.peers(spec, state, base, best.map(|(_, v)| v))
    }

    /// The measurements `run` will make of `spec`, for the progress bar: the variants asked
    /// for, the native engine's best, the peers on this device (not on the native engine)
    /// and on the host. A second native row (a tuned variant's) adds itself.
    fn planned<S>(&self, spec: &Spec<'_, S>) -> u64 {
        let chosen = spec.variants.iter().filter(|v| self.chosen(v.name)).count();
        let native = match (self.native, self.native_each) {
            (None, _) => 0,
            (Some(_), true) => chosen,
            (Some(_), false) => usize::from(chosen > 0),
        };
        let here = match self.device.info().kind {
            DeviceKind::Native => 0,
            _ => spec.same_device_peers.len(),
        };
        (chosen + native + here + spec.host_peers.len()) as u64
    }

    /// Whether `--variants` asks for the variant called `name` (all, without the flag).
    pub fn chosen(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| name.contains(o.as_str()))
    }

    /// Variant `v` on the native engine, as a peer row; a tuned variant's row names the
    /// chain it tuned to there (`nuda::last_tuned`).
    fn native_peer<S>(
        &mut self,
        spec: &Spec<'_, S>,
        state: &mut S,
        base: f64,
        native: usize,
        v: &Variant<S>,
    ) -> Result<()> {
        let name = format!("native engine, {}", v.name);
        let m = nuda::with_device(native, || self.measure(spec, &name, state, v.run))??;
        let won = nuda::last_tuned().filter(|_| v.name.ends_with(" tuned"));
        let renamed = won.map(|w| format!("native engine, tuned to `{w}`"));
        let name = renamed.as_deref().unwrap_or(m.name);
        let lines = Some(source_lines(spec.source, v.function));
        let row = self.row(spec, Measured { name, lines, ..m }, base);
        self.rows.push(elsewhere(row, "native engine"));
        Ok(())
    }

    /// `--native-each`: variant `v` on the native engine, its paired column the native speed
    /// over this device's for the same variant, timed in alternating runs.
    fn native_pair<S>(
        &mut self,
        spec: &Spec<'_, S>,
        state: &mut S,
        base: f64,
        native: usize,
        v: &Variant<S>,
    ) -> Result<()> {
        self.native_peer(spec, state, base, native, v)?;
        let (tn, td) = best_times_on_two(state, v.run, native, self.reps)?;
        if let Some(row) = self.rows.last_mut().filter(|r| r.verified) {
            row.paired = Some(td.as_secs_f64() / tn.as_secs_f64());
        }
        Ok(())
    }

    /// `--paired-base`: the speed of `run` over the base's, timed in alternating runs; `None`
    /// for the base itself (no `base`), or without the flag.
    fn over_base<S>(
        &self,
        state: &mut S,
        run: Run<S>,
        base: Option<Run<S>>,
    ) -> Result<Option<f64>> {
        match base.filter(|_| self.paired_base) {
            Some(b) => self.paired(state, run, b).map(Some),
            None => Ok(None),
        }
    }

    /// The speed of `nuda` over `peer`'s, timed in alternating runs.
    fn paired<S>(&self, state: &mut S, nuda: Run<S>, peer: Run<S>) -> Result<f64> {
        let (tn, tp) = best_times_paired(state, (nuda, peer), self.reps)?;
        Ok(tp.as_secs_f64() / tn.as_secs_f64())
    }

    fn peers<S>(
        &mut self,
        spec: &Spec<'_, S>,
        state: &mut S,
        base: f64,
        best: Option<&Variant<S>>,
    ) -> Result<()> {
        // With `--native-each` every variant has its native row already.
        if let (Some(native), Some(v), false) = (self.native, best, self.native_each) {
            self.native_peer(spec, state, base, native, v)?;
            // The native engine's own winner, where the problem has a tuned variant.
            let tuned = spec.variants.iter().find(|t| t.name.ends_with(" tuned"));
            if let Some(t) = tuned.filter(|t| t.name != v.name) {
                self.bar.inc_length(1);
                self.native_peer(spec, state, base, native, t)?;
            }
        }
        if self.device.info().kind != DeviceKind::Native {
            for p in &spec.same_device_peers {
                let m = self.measure(spec, p.name, state, p.run)?;
                let mut row = self.row(
                    spec,
                    Measured {
                        lines: p.lines,
                        ..m
                    },
                    base,
                );
                if let (Some(v), true) = (best, row.verified) {
                    row.paired = Some(self.paired(state, v.run, p.run)?);
                }
                self.rows.push(row);
            }
        }
        for p in &spec.host_peers {
            let m = self.measure(spec, p.name, state, p.run)?;
            let mut row = self.row(
                spec,
                Measured {
                    lines: p.lines,
                    ..m
                },
                base,
            );
            // Alternated with the best variant too: on a CPU both share the memory bus and
            // the cores, whose speed drifts between runs (a third, on a VM).
            if let (Some(v), true) = (best, row.verified) {
                row.paired = Some(self.paired(state, v.run, p.run)?);
            }
            self.rows.push(elsewhere(row, &host_cpu()));
        }
        Ok(())
    }
}

/// A peer's row that ran off the selected device: its own device, and no share of a peak
/// that is not its own.
fn elsewhere(row: Row, device: &str) -> Row {
    Row {
        device: device.into(),
        peak_percent: None,
        ..row
    }
}

/// The host CPU, as matrixmultiply uses it.
fn host_cpu() -> String {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("host CPU ({threads} threads)")
}

fn lines_of(text: &str) -> usize {
    text.trim().lines().count()
}

/// The matrixmultiply peer for one element type: `$name(g)` computes C = AᵀB with `$gemm`.
macro_rules! matmul {
    ($name:ident, $t:ty, $gemm:path) => {
        fn $name(g: &mut sgemm::Gemm<$t>) -> Result<()> {
            let n = g.n;
            let (a, b) = (g.a.as_slice(), g.b.as_slice());
            let c = g.c.as_mut_slice();
            let s = n as isize;
            // SAFETY: the pointers cover n x n elements each with the strides given; C is
            // exclusive. A is read transposed: element (i, k) of Aᵀ is a[k * n + i], so its
            // row stride is 1 and its column stride n.
            unsafe {
                $gemm(
                    n,
                    n,
                    n,
                    1.0,
                    a.as_ptr(),
                    1,
                    s,
                    b.as_ptr(),
                    s,
                    1,
                    0.0,
                    c.as_mut_ptr(),
                    s,
                    1,
                );
            }
            Ok(())
        }
    };
}

matmul!(matmul_f32, f32, matrixmultiply::sgemm);
matmul!(matmul_f64, f64, matrixmultiply::dgemm);

/// The hand-written threaded i-k-j loop, the native engine's peer.
fn ikj<T>(g: &mut sgemm::Gemm<T>) -> Result<()>
where
    T: nuda::Element + Default + std::ops::Mul<Output = T> + std::ops::AddAssign,
{
    crate::threaded::gemm(g.n, &g.a, &g.b, &mut g.c)
}

/// The host peers of sgemm and dgemm: matrixmultiply and the threaded i-k-j loop.
fn gemm_host_peers<T>(matmul: Run<sgemm::Gemm<T>>) -> Vec<Peer<'static, sgemm::Gemm<T>>>
where
    T: nuda::Element + Default + std::ops::Mul<Output = T> + std::ops::AddAssign,
{
    let source = include_str!("threaded.rs");
    vec![
        Peer {
            name: "matrixmultiply (CPU)",
            run: matmul,
            lines: None,
        },
        Peer {
            name: "hand-written threaded Rust, i-k-j",
            run: ikj::<T>,
            lines: Some(source_lines(source, "gemm_ikj<T>")),
        },
    ]
}

/// sgemm (or dgemm with `double`).
pub fn gemm(bench: &mut Bench, quick: bool, double: bool) -> Result<()> {
    let n = if quick {
        256
    } else if on_cpu(&bench.device) {
        1024
    } else {
        2048
    };
    if double {
        bench.run(&dgemm_spec(n), &mut sgemm::f64::setup(n))
    } else {
        bench.run(&sgemm_spec(n), &mut sgemm::f32::setup(n))
    }
}

fn sgemm_spec(n: usize) -> Spec<'static, sgemm::Gemm<f32>> {
    let hand = vec![
        Peer {
            name: "hand-written OpenCL C",
            run: sgemm::hand_sgemm,
            lines: Some(sgemm::hand_lines(false)),
        },
        Peer {
            name: "hand-written OpenCL C, float4",
            run: sgemm::hand_sgemm_float4,
            lines: Some(sgemm::hand_lines(true)),
        },
        Peer {
            name: "hand-written OpenCL C, local tiles + float4",
            run: sgemm::hand_sgemm_tiled,
            lines: Some(sgemm::tiled_lines()),
        },
        Peer {
            name: "hand-written OpenCL C, 8x16 float16 blocks",
            run: sgemm::hand_sgemm_block,
            lines: Some(sgemm::block_lines()),
        },
    ];
    let (variants, check) = (sgemm::f32::VARIANTS, &sgemm::f32::CHECK);
    Spec {
        same_device_peers: hand,
        host_peers: gemm_host_peers(matmul_f32),
        ..gemm_common(n, "sgemm", variants, check, Peak::Fp32)
    }
}

fn dgemm_spec(n: usize) -> Spec<'static, sgemm::Gemm<f64>> {
    let (variants, check) = (sgemm::f64::VARIANTS, &sgemm::f64::CHECK);
    Spec {
        host_peers: gemm_host_peers(matmul_f64),
        ..gemm_common(n, "dgemm", variants, check, Peak::Fp64)
    }
}

/// What sgemm and dgemm share, with no peers yet.
fn gemm_common<T: nuda::Element>(
    n: usize,
    problem: &'static str,
    variants: &'static [Variant<sgemm::Gemm<T>>],
    check: &'static Check<sgemm::Gemm<T>>,
    peak: Peak,
) -> Spec<'static, sgemm::Gemm<T>> {
    let ops = sgemm::flops(n);
    Spec {
        problem,
        size: format!("{n}x{n}"),
        source: SGEMM_SOURCE,
        variants,
        ops,
        unit: "GFLOP/s",
        scale: 1e9,
        flops: Some(ops),
        peak,
        elements: None,
        check,
        same_device_peers: vec![],
        host_peers: vec![],
    }
}

/// imgconv, rated in GB/s (its target is a share of memory bandwidth), with GFLOP/s too:
/// once with the input as an image, once as a buffer, each against its own base.
pub fn conv(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = if quick { 512 } else { 4096 };
    let mut c = imgconv::setup(n, n);
    let size = format!("{n}x{n}");
    let (ops, flops) = (imgconv::bytes(n, n), Some(imgconv::flops(n, n)));
    let spec = Spec {
        problem: "imgconv",
        size: size.clone(),
        source: IMGCONV_SOURCE,
        variants: imgconv::VARIANTS,
        ops,
        unit: "GB/s",
        scale: 1e9,
        flops,
        peak: Peak::Bandwidth,
        elements: Some(n * n),
        check: &imgconv::CHECK,
        same_device_peers: vec![
            Peer {
                name: "hand-written OpenCL C",
                run: imgconv::hand_conv_image,
                lines: Some(lines_of(imgconv::HAND_CONV_IMAGE.source)),
            },
            Peer {
                name: "hand-written OpenCL C, packed",
                run: imgconv::hand_conv_packed,
                lines: Some(lines_of(imgconv::HAND_CONV_PACKED.source)),
            },
        ],
        host_peers: vec![],
    };
    bench.run(&spec, &mut c)?;
    let hand = Peer {
        name: "hand-written OpenCL C",
        run: imgconv::hand_conv,
        lines: Some(lines_of(imgconv::HAND_CONV.source)),
    };
    let spec = Spec {
        problem: "imgconv buffer",
        variants: imgconv::BUFFER_VARIANTS,
        same_device_peers: vec![hand],
        ..spec
    };
    bench.run(&spec, &mut c)
}

/// nbody, one step's accelerations.
pub fn bodies(bench: &mut Bench, quick: bool) -> Result<()> {
    let n = if quick {
        2048
    } else if on_cpu(&bench.device) {
        16384
    } else {
        65536
    };
    let spec = Spec {
        problem: "nbody",
        size: format!("{n} bodies"),
        source: NBODY_SOURCE,
        variants: nbody::VARIANTS,
        ops: nbody::flops(n),
        unit: "GFLOP/s",
        scale: 1e9,
        flops: Some(nbody::flops(n)),
        peak: Peak::Fp32,
        elements: None,
        check: &nbody::CHECK,
        same_device_peers: vec![Peer {
            name: "hand-written OpenCL C, tiles in local memory",
            run: nbody::hand_tiled,
            lines: Some(nbody::tiled_lines()),
        }],
        host_peers: vec![],
    };
    bench.run(&spec, &mut nbody::setup(n))
}

/// md5 search, rated in Mhash/s.
pub fn hashes(bench: &mut Bench, quick: bool) -> Result<()> {
    let count: u64 = if quick {
        1 << 20
    } else if on_cpu(&bench.device) {
        1 << 24
    } else {
        1 << 32
    };
    let spec = Spec {
        problem: "md5",
        size: format!("2^{} cand.", count.trailing_zeros()),
        source: MD5_SOURCE,
        variants: md5::VARIANTS,
        ops: count as f64,
        unit: "Mhash/s",
        scale: 1e6,
        flops: None,
        peak: Peak::Unknown,
        elements: None,
        check: &md5::CHECK,
        same_device_peers: vec![],
        host_peers: vec![],
    };
    bench.run(&spec, &mut md5::setup(count, 32))
}

/// mandelbrot, rated in pixels per second, against plain Rust on the host's threads.
pub fn fractal(bench: &mut Bench, quick: bool) -> Result<()> {
    let w = if quick {
        256
    } else if on_cpu(&bench.device) {
        1024
    } else {
        4096
    };
    let h = w * 3 / 4;
    let peer = Peer {
        name: "hand-written threaded Rust, rows",
        run: mandelbrot::host_threads,
        lines: Some(
            source_lines(MANDELBROT_SOURCE, "host_threads")
                + source_lines(MANDELBROT_SOURCE, "escape"),
        ),
    };
    let spec = Spec {
        problem: "mandelbrot",
        size: format!("{w}x{h}"),
        source: MANDELBROT_SOURCE,
        variants: mandelbrot::VARIANTS,
        ops: (w * h) as f64,
        unit: "Mpixel/s",
        scale: 1e6,
        flops: None,
        peak: Peak::Unknown,
        elements: None,
        check: &mandelbrot::CHECK,
        same_device_peers: vec![],
        host_peers: vec![peer],
    };
    bench.run(&spec, &mut mandelbrot::setup(w, h, 512))
}

const MANDELBROT_SOURCE: &str = include_str!("../../examples/mandelbrot/kernels.rs");
pub const SGEMM_SOURCE: &str = include_str!("../../examples/sgemm/kernels.rs");
const IMGCONV_SOURCE: &str = include_str!("../../examples/imgconv/kernels.rs");
pub const NBODY_SOURCE: &str = include_str!("../../examples/nbody/kernels.rs");
const MD5_SOURCE: &str = include_str!("../../examples/md5/kernels.rs");
