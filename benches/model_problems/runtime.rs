//! Runtime figures: host-to-device and device-to-host bandwidth through lazy sync, and the
//! per-launch overhead of an empty kernel (OpenCL) or an empty closure (native engine).

use super::overhead::median;
use super::table::RuntimeRow;
use nuda::{Device, KernelSource, Launch, NativeLaunch, NuArray1, Result};
use std::time::{Duration, Instant};

// SAFETY: `touch` guards its one access by the dim `n`; `nop` touches nothing.
static KERNELS: KernelSource = unsafe {
    KernelSource::new(
        "kernel void nop(nu_idx n) {}
     kernel void touch(global float* a, nu_idx n) {
         nu_idx i = get_global_id(0);
         if (i < n) a[i] = (float)i;
     }",
    )
};

/// Prints transfer bandwidth and launch overhead for `device`, and returns them as rows.
pub fn report(device: &Device, quick: bool) -> Result<Vec<RuntimeRow>> {
    let mut rows = Vec::new();
    if device.is_native() {
        println!("\ntransfers: none (the native engine works on host memory)");
    } else {
        rows = transfers(device, quick)?;
    }
    let (wall, kernel) = launch_overhead(device, if quick { 200 } else { 2000 })?;
    let kernel = kernel.map_or("-".into(), |k| format!("{:.1} us", micros(k)));
    println!(
        "\nlaunch overhead (empty kernel): {:.1} us per launch, kernel itself {kernel}",
        micros(wall)
    );
    let row = RuntimeRow::new(device, "empty launch".into(), micros(wall), "us");
    rows.push(match raw_launch_peer(device, quick) {
        Some((ours, raw_calls, raw)) => RuntimeRow {
            value: micros(ours),
            ..row
        }
        .against(&format!("raw {raw_calls}"), micros(raw), true),
        None => row,
    });
    Ok(rows)
}

/// The peer where the backend has one (CUDA, OpenCL): the same empty kernel launched with the
/// driver's own calls alone, launch then wait. The two are timed in alternating batches and
/// compared by their medians, as `overhead.rs` does, since a launch's time drifts. Returns
/// nuda's median, the peer's calls and its median.
fn raw_launch_peer(device: &Device, quick: bool) -> Option<(Duration, &'static str, Duration)> {
    let raw_calls = match device.info().backend {
        "CUDA" => "cuLaunchKernel + cuStreamSynchronize",
        _ => "clEnqueueNDRangeKernel + clFinish",
    };
    let (rounds, reps) = if quick { (5, 40) } else { (21, 100) };
    let (mut ours, mut raw) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let batch = launch_overhead(device, reps).map(|(wall, _)| wall);
        match (batch, device.backend().raw_launch_time(reps as usize)?) {
            (Ok(o), Ok(r)) => (ours.push(o), raw.push(r)),
            // The report goes on: the peer is a comparison, not nuda's own figure.
            (Err(e), _) | (_, Err(e)) => {
                println!("  [peer] raw {raw_calls}: failed ({e})");
                return None;
            }
        };
    }
    let (o, r) = (median(ours), median(raw));
    println!(
        "  [peer] raw {raw_calls}: {:.1} us per launch; nuda {:.1} us (at {:.2}x); medians of {rounds} alternating batches of {reps}",
        micros(r),
        micros(o),
        o.as_secs_f64() / r.as_secs_f64()
    );
    Some((o, raw_calls, r))
}

fn transfers(device: &Device, quick: bool) -> Result<Vec<RuntimeRow>> {
    println!(
        "\n{:<28} {:>12} {:>12}",
        "transfer", "host->device", "device->host"
    );
    let sizes: &[usize] = if quick {
        &[1 << 20, 16 << 20]
    } else {
        &[1 << 20, 16 << 20, 256 << 20]
    };
    let reps = if quick { 3 } else { 10 };
    let mut rows = Vec::new();
    for &bytes in sizes {
        let [up, down, up1, down1] = bandwidth(device, bytes, reps)?;
        println!(
            "{:<28} {:>8.2} GB/s {:>8.2} GB/s   (the array's first round: {up1:.2} up, {down1:.2} down)",
            format!("{} MiB", bytes >> 20),
            up,
            down
        );
        let row = |way: &str, v: f64| {
            let figure = format!("transfer {} MiB, {way}", bytes >> 20);
            RuntimeRow::new(device, figure, v, "GB/s")
        };
        let (mut r_up, mut r_down) = (row("host to device", up), row("device to host", down));
        // The peer where the backend has one (CUDA): the driver's own copy from pinned
        // memory, which an array's transfers should come close to.
        if let Some(raw) = device.backend().raw_transfer_rates(bytes, reps) {
            let (ru, rd) = raw?;
            println!(
                "{:<28} {:>8.2} GB/s {:>8.2} GB/s   (nuda: {:.0}% up, {:.0}% down)",
                "  [peer] raw pinned cuMemcpy",
                ru,
                rd,
                100.0 * up / ru,
                100.0 * down / rd
            );
            r_up = r_up.against("raw pinned cuMemcpy", ru, false);
            r_down = r_down.against("raw pinned cuMemcpy", rd, false);
        }
        // The first round apart: it stages, and where the host copy is pinned later, pays
        // for no pin yet (`NUDA_PIN_HOST`); and what a pin of this size costs once.
        rows.extend([r_up, r_down, row("host to device, first", up1)]);
        rows.push(row("device to host, first", down1));
        // The best of three registrations of one warm buffer: a cold first pin may cost more.
        match device.backend().raw_pin_rate(bytes, reps.min(3)) {
            Some(Ok(pin)) => {
                println!("{:<28} {pin:>8.2} GB/s", "  page-locking (register)");
                rows.push(row("page-locking the host copy", pin));
            }
            Some(Err(e)) => println!("  page-locking (register): failed ({e})"),
            None => {}
        }
    }
    Ok(rows)
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Best-of-`reps` bandwidth in GB/s for uploads and downloads of `bytes`, and the first
/// round's: on CUDA and HIP an array's first eight transfers stage, the ninth pins its host
/// copy (`NUDA_PIN_HOST`), and the later ones copy from it directly.
fn bandwidth(device: &Device, bytes: usize, reps: usize) -> Result<[f64; 4]> {
    let n = bytes / 4;
    let mut a = NuArray1::<f32>::from_fn(n, |i| i as f32);
    let (mut up, mut down) = (Duration::MAX, Duration::MAX);
    let mut first = None;
    for _ in 0..reps {
        a.as_mut_slice()[0] = 1.0; // host write: the device copy is stale
        let t = Instant::now();
        a.prefetch(device)?;
        up = up.min(t.elapsed());
        Launch::new(&KERNELS, "touch")
            .on(device)
            .global([n])
            .local([64])
            .array_mut(&mut a)
            .run()?;
        let t = Instant::now();
        a.try_as_slice()?;
        down = down.min(t.elapsed());
        first = first.or(Some((up, down)));
    }
    let gbs = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    let (up1, down1) = first.unwrap_or((up, down));
    Ok([gbs(up), gbs(down), gbs(up1), gbs(down1)])
}

/// Mean wall time per launch and mean kernel time of an empty launch.
fn launch_overhead(device: &Device, reps: u32) -> Result<(Duration, Option<Duration>)> {
    let run = || -> Result<nuda::Timing> {
        if device.is_native() {
            NativeLaunch::new([1]).run(|_| {})
        } else {
            Launch::new(&KERNELS, "nop")
                .on(device)
                .global([1])
                .index(1)
                .run()
        }
    };
    run()?; // builds the program
    let mut kernel = Some(Duration::ZERO);
    let start = Instant::now();
    for _ in 0..reps {
        let t = run()?;
        kernel = kernel.zip(t.kernel).map(|(a, b)| a + b);
    }
    Ok((start.elapsed() / reps, kernel.map(|k| k / reps)))
}
