//! Page-locked host copies (`memory/host.rs`, CUDA's `pins.rs`) through a test backend that
//! keeps "device" memory on the host and pins like CUDA: an array's host copy of 4 MiB or
//! more is pinned at its ninth transfer, its later transfers run from the pinned memory, and
//! no pinned allocation is ever freed while pinned, which this binary's allocator checks at
//! every free.

use nuda_runtime::backend::{private_limits, Backend, Buffer, Form, Found, HostPin, Provider};
use nuda_runtime::backend::{Arg, Layout, SourceLaunch, Timing};
use nuda_runtime::device::register;
use nuda_runtime::{devices, DeviceInfo, DeviceKind, KernelSource, Launch, NuArray1, Result};
use std::alloc::{GlobalAlloc, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

/// Pinned ranges as (start, bytes) pairs; a start of 0 is a free slot. Fixed and lock-free:
/// the allocator reads it on every free.
static PINS: [(AtomicUsize, AtomicUsize); 16] =
    [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; 16];
/// Frees of memory that was pinned at the time.
static FREED_PINNED: AtomicUsize = AtomicUsize::new(0);
/// Transfers whose host side lay inside a pinned range, and the others.
static DIRECT: AtomicUsize = AtomicUsize::new(0);
static STAGED: AtomicUsize = AtomicUsize::new(0);

struct Checking;

// SAFETY: every call is passed to the system allocator unchanged; the check only reads atomics.
unsafe impl GlobalAlloc for Checking {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        if pinned_overlap(ptr as usize, layout.size()) {
            FREED_PINNED.fetch_add(1, SeqCst);
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Checking = Checking;

fn pinned_overlap(start: usize, len: usize) -> bool {
    PINS.iter().any(|(s, n)| {
        let (s, n) = (s.load(SeqCst), n.load(SeqCst));
        s != 0 && start < s + n && s < start + len
    })
}

fn pinned_inside(start: usize, len: usize) -> bool {
    PINS.iter().any(|(s, n)| {
        let (s, n) = (s.load(SeqCst), n.load(SeqCst));
        s != 0 && s <= start && start + len <= s + n
    })
}

fn pins() -> usize {
    PINS.iter().filter(|(s, _)| s.load(SeqCst) != 0).count()
}

/// A pin of the test backend: a slot of `PINS`, freed when dropped.
struct Pin(usize);

/// Whether the next release fails, as a driver's unregister may: the pages stay locked.
static FAIL_RELEASE: AtomicBool = AtomicBool::new(false);

impl HostPin for Pin {
    fn release(self: Box<Self>) -> bool {
        if FAIL_RELEASE.swap(false, SeqCst) {
            return false;
        }
        PINS[self.0].0.store(0, SeqCst);
        true
    }
}

/// A device whose memory is host memory: each buffer a boxed byte slice, its handle the
/// slice's address.
struct HostMem(DeviceInfo);

struct Mem(Box<[u8]>);

impl Buffer for Mem {
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

fn mem(b: &dyn Buffer) -> &[u8] {
    &b.as_any()
        .downcast_ref::<Mem>()
        .expect("a hostmem buffer")
        .0
}

fn mem_mut(b: &mut dyn Buffer) -> &mut [u8] {
    &mut b
        .as_any_mut()
        .downcast_mut::<Mem>()
        .expect("a hostmem buffer")
        .0
}

/// Counts a transfer of the host bytes at `p`.
fn count(p: *const u8, len: usize) {
    match pinned_inside(p as usize, len) {
        true => DIRECT.fetch_add(1, SeqCst),
        false => STAGED.fetch_add(1, SeqCst),
    };
}

impl Backend for HostMem {
    fn info(&self) -> &DeviceInfo {
        &self.0
    }
    fn form(&self) -> Form {
        Form::Source
    }
    fn alloc(&self, bytes: usize, _layout: Layout) -> Result<Box<dyn Buffer>> {
        Ok(Box::new(Mem(vec![0u8; bytes].into_boxed_slice())))
    }
    fn upload(&self, buf: &mut dyn Buffer, data: &[u8]) -> Result<()> {
        self.upload_at(buf, 0, data)
    }
    fn download(&self, buf: &dyn Buffer, out: &mut [u8]) -> Result<()> {
        self.download_at(buf, 0, out)
    }
    fn upload_at(&self, buf: &mut dyn Buffer, at: usize, data: &[u8]) -> Result<()> {
        count(data.as_ptr(), data.len());
        mem_mut(buf)[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }
    fn download_at(&self, buf: &dyn Buffer, at: usize, out: &mut [u8]) -> Result<()> {
        count(out.as_ptr(), out.len());
        out.copy_from_slice(&mem(buf)[at..at + out.len()]);
        Ok(())
    }
    fn fill_zero(&self, buf: &mut dyn Buffer, bytes: usize) -> Result<()> {
        mem_mut(buf)[..bytes].fill(0);
        Ok(())
    }
    fn pins_host(&self) -> bool {
        true
    }
    unsafe fn pin_host(&self, ptr: *mut u8, bytes: usize) -> Option<Box<dyn HostPin>> {
        let free = PINS.iter().position(|(s, _)| s.load(SeqCst) == 0)?;
        PINS[free].1.store(bytes, SeqCst);
        PINS[free].0.store(ptr as usize, SeqCst);
        Some(Box::new(Pin(free)))
    }
    /// Runs `bump` (the only kernel here): adds 1 to every `f32` of its array.
    fn launch(&self, launch: &mut SourceLaunch<'_, '_>) -> Result<Timing> {
        let dev = self.0.index;
        let Some(Arg::MemMut { mem, dims }) = launch.args.first() else {
            panic!("bump takes its array first");
        };
        let (handle, n) = (mem.prepare(dev)?, dims[0]);
        // SAFETY: the handle is the address of a live `Mem` of the array's `n` f32, which
        // nothing else touches during the launch; a byte buffer's alignment is 1, so the
        // accesses are unaligned ones.
        let p = handle as *mut f32;
        for i in 0..n {
            // SAFETY: as above; `i < n`.
            unsafe { p.add(i).write_unaligned(p.add(i).read_unaligned() + 1.0) };
        }
        // As every backend: the arrays a kernel may have written are valid here alone now.
        launch.args.iter_mut().for_each(|a| a.ran(dev));
        Ok(Timing::default())
    }
}

struct Provide;

impl Provider for Provide {
    fn name(&self) -> &'static str {
        "hostmem"
    }
    fn form(&self) -> Form {
        Form::Source
    }
    fn devices(&self) -> std::result::Result<Vec<Found>, String> {
        let info = DeviceInfo {
            backend: "",
            index: 0,
            name: "host memory test device".into(),
            vendor: "nuda tests".into(),
            kind: DeviceKind::Accelerator,
            platform: "hostmem".into(),
            driver_version: "1".into(),
            compute_units: 1,
            global_memory: 1 << 32,
            max_alloc: 1 << 32,
            local_memory: 1 << 16,
            constant_memory: 1 << 16,
            max_work_group_size: 1024,
            max_work_item_sizes: vec![1024; 3],
            fp64: true,
            images: false,
            int64_atomics: true,
            private_memory: private_limits(DeviceKind::Accelerator).0,
            private_group_memory: u64::MAX,
        };
        Ok(vec![Found {
            info,
            open: Box::new(|info| Arc::new(HostMem(info))),
        }])
    }
}

static PROVIDER: Provide = Provide;

// SAFETY: `bump` reads and writes `b` below `n` only.
static BUMP: KernelSource = unsafe {
    KernelSource::new(
        "kernel void bump(global float* b, nu_idx n) {
             nu_idx i = get_global_id(0);
             if (i < n) b[i] += 1.0f;
         }",
    )
};

fn bump(dev: &nuda_runtime::Device, a: &mut NuArray1<f32>) -> Result<()> {
    let n = a.len();
    Launch::new(&BUMP, "bump")
        .on(dev)
        .global([n])
        .local([64])
        .array_mut(a)
        .run()
        .map(drop)
}

fn moves() -> (usize, usize) {
    (DIRECT.load(SeqCst), STAGED.load(SeqCst))
}

/// One round: a host write, an upload by the kernel, a download by the host read.
fn round(dev: &nuda_runtime::Device, a: &mut NuArray1<f32>) -> Result<f32> {
    a.as_mut_slice()[0] = -1.0;
    bump(dev, a)?;
    Ok(a.as_slice()[0] + a.as_slice()[a.len() - 1])
}

#[test]
fn host_copies_that_move_often_are_pinned_and_released_before_freed() -> Result<()> {
    register(&PROVIDER)?;
    let index = devices()
        .iter()
        .find(|d| d.platform == "hostmem")
        .map(|d| d.index);
    let dev = nuda_runtime::device(index.expect("the hostmem backend was registered"))?;
    let n = 2 << 20; // 8 MiB of f32
    let last = (n - 1) as f32;
    let mut a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    // Eight transfers stage (`PIN_AFTER_MOVES`), from the same allocation each way.
    for r in 1..=4 {
        assert_eq!(round(&dev, &mut a)?, last + r as f32);
    }
    assert_eq!((moves(), pins()), ((0, 8), 0));
    // The ninth pins the host copy, and every later one runs from it.
    for r in 5..=6 {
        assert_eq!(round(&dev, &mut a)?, last + r as f32);
    }
    assert_eq!((moves(), pins()), ((4, 8), 1));
    // A small array never pins.
    let mut small = NuArray1::<f32>::from_fn(1000, |i| i as f32);
    for r in 1..=6 {
        assert_eq!(round(&dev, &mut small)?, 999.0 + r as f32);
    }
    assert_eq!((moves(), pins()), ((4, 20), 1));
    drop(a);
    assert_eq!(pins(), 0, "dropping the array released its host copy's pin");
    // Where the driver fails to release a pin, the allocation is leaked, never freed.
    let mut b = NuArray1::<f32>::from_fn(n, |i| i as f32);
    for _ in 1..=5 {
        round(&dev, &mut b)?;
    }
    assert_eq!(pins(), 1);
    FAIL_RELEASE.store(true, SeqCst);
    drop(b);
    assert_eq!(pins(), 1, "the failed release left the pages locked");
    assert_eq!(
        FREED_PINNED.load(SeqCst),
        0,
        "pinned memory was freed while pinned"
    );
    Ok(())
}
