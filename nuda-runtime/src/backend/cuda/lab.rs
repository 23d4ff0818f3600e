//! The static lab (layer 1, the CUDA backend): a device that runs nothing. Its launches
//! compile the program as the CUDA backend would for an H100 or H200 (`sm_90`, NVRTC), read
//! NVIDIA's disassembly of the CUBIN (`sass.rs`), and record what a GPU programmer judges a
//! kernel by: registers, spills, shared memory, theoretical occupancy and the instruction mix
//! of its hottest loop. Memory stays on the host, so a program runs through to its end; what
//! it computes is meaningless, and nothing may be checked against it. `nuda::lab` registers
//! it; the bench's `--static sm_90` prints its records.

use super::{nvrtc, program, sass};
use crate::backend::{
    Backend, Buffer, DeviceInfo, DeviceKind, Form, Found, IndexType, KernelSource, Layout,
    Provider, SourceLaunch, Timing,
};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The lab for `sm_90`: an H100 or H200 (both have 132 SMs of compute capability 9.0).
pub static LAB_SM90: LabProvider = LabProvider { arch: "sm_90" };

/// What the lab found for one launch.
#[derive(Debug, Clone)]
pub struct Record {
    /// The program's label and origin: `nuwork! at examples/sgemm/kernels.rs:270`.
    pub origin: String,
    /// The kernel's entry name.
    pub kernel: String,
    /// Threads per block (the work-group size).
    pub threads: usize,
    /// Registers per thread.
    pub registers: u32,
    /// Spill stores and loads, bytes per thread (ptxas).
    pub spills: (u32, u32),
    /// Shared memory per block: static plus the launch's `nulocal!` arrays, bytes.
    pub shared: u32,
    /// Local memory per thread, bytes.
    pub local: u32,
    /// The hottest innermost loop's instructions.
    pub inner: sass::Mix,
    /// The instruction mix of the whole kernel (a reduction's shuffles are after its loop).
    pub whole: sass::Mix,
    /// The most global loads a thread issues before it uses one (read off the SASS, as the
    /// CUDA backend's `Kernel::loads_in_flight` counts them).
    pub loads: u32,
    /// Theoretical occupancy on an `sm_90` SM.
    pub occupancy: Occupancy,
    /// Bytes of the launch's array arguments, each counted once whether read or written:
    /// what a launch that touches each element once moves (the bench divides it by the
    /// elements, `--static`).
    pub arrays: u64,
}

/// CUDA's occupancy rules for compute capability 9.0: 65,536 registers per SM allocated per
/// warp in units of 256, at most 64 warps, 32 blocks and 2,048 threads per SM, 228 KiB of
/// shared memory per SM in units of 128 bytes with 1 KiB reserved per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupancy {
    /// Blocks resident per SM.
    pub blocks: u32,
    /// Warps resident per SM, of 64.
    pub warps: u32,
    /// What limits it: `registers`, `shared`, `threads` or `blocks`.
    pub limit: &'static str,
}

impl Occupancy {
    /// The occupancy of blocks of `threads` threads, `registers` each, `shared` bytes.
    pub fn sm90(threads: usize, registers: u32, shared: u32) -> Occupancy {
        let warps_per_block = threads.div_ceil(32).max(1) as u32;
        let regs_per_warp = (registers.max(1) * 32).div_ceil(256) * 256;
        let by_regs = (65_536 / regs_per_warp) / warps_per_block;
        let smem = (shared + 1024).div_ceil(128) * 128;
        let by_shared = 233_472 / smem;
        let by_threads = 64 / warps_per_block;
        // On a tie, the first named: threads and blocks before what the kernel spends.
        let limits = [
            (by_threads, "threads"),
            (32, "blocks"),
            (by_regs, "registers"),
            (by_shared, "shared"),
        ];
        let (blocks, limit) = limits
            .into_iter()
            .min_by_key(|l| l.0)
            .unwrap_or((0, "threads"));
        Occupancy {
            blocks,
            warps: blocks * warps_per_block,
            limit,
        }
    }
}

thread_local! {
    /// The records of this thread's lab launches so far, in order: per thread, so that
    /// threads (tests running side by side, say) each see their own launches.
    static RECORDS: std::cell::RefCell<Vec<Record>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Takes the records of the lab launches the calling thread made so far.
pub fn take_records() -> Vec<Record> {
    RECORDS.with(|r| std::mem::take(&mut *r.borrow_mut()))
}

/// The static bound of the calling thread's last lab launch (`Record::bound`), for the
/// tuner's ranking.
pub(crate) fn last_bound() -> Option<f64> {
    RECORDS.with(|r| r.borrow().last().map(Record::bound))
}

impl Record {
    /// The share of the arithmetic peak the kernel can reach at best: the flops its hottest
    /// loop does per issue slot against an all-FMA loop's (`Mix::flop_share`), times
    /// `min(1, resident warps / 16)` (four warps a scheduler hide an FMA's latency when a
    /// register block gives each warp independent FMAs). 0 for a loop with no float
    /// arithmetic (md5's).
    pub fn bound(&self) -> f64 {
        self.inner.flop_share() * (f64::from(self.occupancy.warps) / 16.0).min(1.0)
    }
}

/// The lab's provider for one architecture.
pub struct LabProvider {
    arch: &'static str,
}

impl Provider for LabProvider {
    fn name(&self) -> &'static str {
        "CUDA lab"
    }

    fn form(&self) -> Form {
        Form::Source
    }

    fn devices(&self) -> std::result::Result<Vec<Found>, String> {
        nvrtc::available()?;
        sass::tools()?;
        let arch = self.arch;
        let info = lab_info(arch);
        let open = Box::new(move |info: DeviceInfo| -> Arc<dyn Backend> {
            Arc::new(Lab {
                info,
                arch,
                programs: Mutex::new(HashMap::new()),
            })
        });
        Ok(vec![Found { info, open }])
    }
}

/// An H200 as the launch layer checks launches against it.
fn lab_info(arch: &str) -> DeviceInfo {
    let (private_memory, private_group_memory) = crate::backend::private_limits(DeviceKind::Gpu);
    DeviceInfo {
        index: 0,
        backend: "CUDA lab",
        name: format!("NVIDIA H100/H200 static lab ({arch}: NVRTC and cuobjdump; nothing runs)"),
        vendor: "NVIDIA".into(),
        kind: DeviceKind::Gpu,
        platform: "CUDA lab".into(),
        driver_version: nvrtc::version().unwrap_or_default(),
        compute_units: 132,
        global_memory: 141 << 30,
        max_alloc: 141 << 30,
        local_memory: 227 << 10,
        constant_memory: 64 << 10,
        max_work_group_size: 1024,
        max_work_item_sizes: vec![1024, 1024, 64],
        fp64: true,
        images: true,
        int64_atomics: true,
        private_memory,
        private_group_memory,
    }
}

/// The shared memory an sm_90 kernel may declare statically, and a block may use in all.
const STATIC_SHARED: u32 = super::dialect::STATIC_LIMIT as u32;
const BLOCK_SHARED: u32 = 227 << 10;

/// A program's kernels as the disassembler read them, ptxas's log (for spills), and the
/// shared bytes the dialect moved into each kernel's dynamic buffer.
type Disassembled = Arc<(Vec<sass::Kernel>, String, HashMap<String, usize>)>;

/// One lab device: its programs' disassembly, by program and index type.
struct Lab {
    info: DeviceInfo,
    arch: &'static str,
    programs: Mutex<HashMap<(usize, IndexType), Disassembled>>,
}

/// Memory on the host.
struct HostBuffer(Vec<u8>);

impl Buffer for HostBuffer {
    fn handle(&self) -> u64 {
        self.0.as_ptr() as u64
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

impl Lab {
    fn host<'b>(&self, buf: &'b mut dyn Buffer) -> Result<&'b mut Vec<u8>> {
        match buf.as_any_mut().downcast_mut::<HostBuffer>() {
            Some(b) => Ok(&mut b.0),
            None => Err(self.unsupported("a buffer of another backend")),
        }
    }

    /// The bytes `offset..offset + n` of a buffer of `len`, or the error a driver gives for a
    /// transfer past its end.
    fn span(
        &self,
        offset: usize,
        n: usize,
        len: usize,
        what: &str,
    ) -> Result<std::ops::Range<usize>> {
        match offset.checked_add(n) {
            Some(end) if end <= len => Ok(offset..end),
            _ => Err(Error::OutOfResources {
                device: self.info.name.clone(),
                what: format!("{what} of {n} bytes at offset {offset}"),
                detail: format!("the buffer has {len} bytes"),
            }),
        }
    }

    /// The disassembly of `source`'s program, compiled once.
    fn program(
        &self,
        source: &KernelSource,
        index: IndexType,
        kernel: &str,
    ) -> Result<Disassembled> {
        let key = (source as *const KernelSource as usize, index);
        if let Some(p) = self
            .programs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(p.clone());
        }
        let crate::backend::c::dialect::Rendered { text, moved } =
            program::cuda_text(source, index);
        let label = source.faults.as_ref().map_or(kernel, |f| f.label);
        let mut options = program::options(self.arch);
        options.push("--ptxas-options=-v".into());
        let failed = |log: String| Error::Launch {
            kernel: kernel.into(),
            device: self.info.name.clone(),
            reason: format!("NVRTC could not build the program for {}: {log}", self.arch),
        };
        let compiled = match nvrtc::compile(&text, label, &options, true) {
            Ok(c) => c,
            Err(nvrtc::Failure::Missing(why) | nvrtc::Failure::Rejected(why)) => {
                return Err(failed(why))
            }
        };
        super::check::dump(
            &text,
            label,
            self.arch,
            &compiled.log,
            Some(&compiled.image),
        );
        let (_, kernels) = sass::disassemble(&compiled.image).map_err(failed)?;
        let p = Arc::new((kernels, compiled.log, moved));
        self.programs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, p.clone());
        Ok(p)
    }

    /// The record of `launch`.
    fn record(&self, l: &SourceLaunch<'_, '_>) -> Result<Record> {
        let p = self.program(l.source, l.index, l.kernel)?;
        let (kernels, log) = (&p.0, &p.1);
        let k = kernels
            .iter()
            .find(|k| k.name == l.kernel)
            .cloned()
            .unwrap_or_default();
        let threads: usize = l.geometry.local.as_ref().map_or(1, |d| d.iter().product());
        let dynamic: usize = l
            .args
            .iter()
            .map(|a| match a {
                crate::backend::Arg::Local(bytes) => *bytes,
                _ => 0,
            })
            .sum();
        let moved = p.2.get(l.kernel).copied().unwrap_or(0);
        let shared = k.shared + (moved + dynamic) as u32;
        let occupancy = Occupancy::sm90(threads, k.registers, shared);
        self.refuse(l, &k, (shared, threads), occupancy)?;
        let origin = l
            .source
            .faults
            .as_ref()
            .map_or_else(|| l.kernel.to_string(), |f| f.origin.to_string());
        Ok(Record {
            origin,
            kernel: l.kernel.to_string(),
            threads,
            registers: k.registers,
            spills: sass::spills(log, l.kernel),
            shared,
            local: k.local,
            inner: k.inner_loop(),
            whole: k.mix(0, u32::MAX),
            loads: k.loads_in_flight(),
            occupancy,
            arrays: array_bytes(l),
        })
    }
}

impl Lab {
    /// What a GPU's launch would refuse, refused here too: a kernel may declare 48 KiB of
    /// shared memory, and a block use 227 KiB in all (dynamic memory past 48 KiB opted in);
    /// a block's registers must fit an SM's 64 Ki.
    fn refuse(
        &self,
        l: &SourceLaunch<'_, '_>,
        k: &sass::Kernel,
        (shared, threads): (u32, usize),
        occupancy: Occupancy,
    ) -> Result<()> {
        let what = || {
            format!(
                "{} ({})",
                l.kernel,
                l.source.faults.as_ref().map_or("", |f| f.origin)
            )
        };
        if k.shared > STATIC_SHARED || shared > BLOCK_SHARED {
            return Err(Error::OutOfResources {
                device: self.info.name.clone(),
                what: what(),
                detail: format!("{} bytes of shared memory declared and {shared} in all; an sm_90 kernel may declare {STATIC_SHARED} and a block use {BLOCK_SHARED}: stage smaller slices (a smaller `k:` or tile)", k.shared),
            });
        }
        if occupancy.blocks == 0 && occupancy.limit == "registers" {
            return Err(Error::OutOfResources {
                device: self.info.name.clone(),
                what: what(),
                detail: super::launch::too_many_registers(k.registers, threads),
            });
        }
        Ok(())
    }
}

/// The bytes of `l`'s array arguments (the fault record, 4 bytes, included).
fn array_bytes(l: &SourceLaunch<'_, '_>) -> u64 {
    use crate::backend::Arg;
    l.args
        .iter()
        .map(|a| match a {
            Arg::Mem { mem, .. } | Arg::MemShared { mem, .. } => mem.bytes(),
            Arg::MemMut { mem, .. } | Arg::ImageMut(mem) => mem.bytes(),
            Arg::Image(mem) => mem.bytes(),
            _ => 0,
        })
        .sum()
}

impl Backend for Lab {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn form(&self) -> Form {
        Form::Source
    }

    fn alloc(&self, bytes: usize, _: Layout) -> Result<Box<dyn Buffer>> {
        Ok(Box::new(HostBuffer(vec![0; bytes])))
    }

    fn upload(&self, buf: &mut dyn Buffer, data: &[u8]) -> Result<()> {
        self.upload_at(buf, 0, data)
    }

    fn download(&self, buf: &dyn Buffer, out: &mut [u8]) -> Result<()> {
        self.download_at(buf, 0, out)
    }

    fn upload_at(&self, buf: &mut dyn Buffer, offset: usize, data: &[u8]) -> Result<()> {
        let host = self.host(buf)?;
        let len = host.len();
        let to = self.span(offset, data.len(), len, "an upload")?;
        host[to].copy_from_slice(data);
        Ok(())
    }

    fn download_at(&self, buf: &dyn Buffer, offset: usize, out: &mut [u8]) -> Result<()> {
        let Some(b) = buf.as_any().downcast_ref::<HostBuffer>() else {
            return Err(self.unsupported("a buffer of another backend"));
        };
        let from = self.span(offset, out.len(), b.0.len(), "a download")?;
        out.copy_from_slice(&b.0[from]);
        Ok(())
    }

    fn fill_zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        let host = self.host(buf)?;
        let n = bytes.min(host.len());
        host[..n].fill(0);
        Ok(())
    }

    fn launch(&self, launch: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
        for a in launch.args.iter() {
            if let Some(handle) = a.prepare(self.info.index) {
                handle?;
            }
        }
        let record = self.record(launch)?;
        RECORDS.with(|r| r.borrow_mut().push(record));
        launch.args.iter_mut().for_each(|a| a.ran(self.info.index));
        Ok(Timing {
            kernel: Some(std::time::Duration::ZERO),
            wall: std::time::Duration::ZERO,
        })
    }
}
