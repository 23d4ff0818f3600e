// The traits generated code trusts (the OpenCL C type, the captured parameters, the proof's
// inputs) need `unsafe impl`: a safe crate cannot lie to the launch-time proof.
use nuda::kernel::ClType;

#[derive(Clone, Copy)]
struct Evil;

impl ClType for Evil {
    fn cl() -> &'static str {
        "float"
    }
}

fn main() {}
