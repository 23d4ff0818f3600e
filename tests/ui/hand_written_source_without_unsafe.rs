use nuda::KernelSource;

// Hand-written OpenCL C is the caller's promise, so wrapping it needs `unsafe`.
static SRC: KernelSource = KernelSource::new("kernel void k(global float* a, nu_idx n) {}");

fn main() {
    let _ = &SRC;
}
