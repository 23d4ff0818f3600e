//! The OpenCL C that zeroes a `#[nukernel]`'s `nulocal!` arrays when its work-group starts
//! (emitters; the analysis is `crate::checks::zeroing`): each work-item zeroes a strided share, then
//! the group meets at a barrier. An array the kernel's first phase provably writes whole is
//! zeroed only by launches whose groups are too small for that write to cover it.

use super::ClEmitter;
use crate::checks::zeroing::Zeroed;
use crate::emit::template::Ph;

impl ClEmitter<'_> {
    /// The zeroing of `locals`, at the top of the kernel's body. Whether a launch zeroes
    /// array `k` is its program's `NU_Z<k>`, decided from its work-group size (the launch
    /// knows it; see `nuda_runtime::macro_support::Call::zeroing`): a covered array costs nothing,
    /// not even a branch, which PoCL's barrier regions would pay.
    pub(super) fn zero_locals(&mut self, locals: &[Zeroed]) {
        if locals.is_empty() {
            return;
        }
        let any: Vec<String> = (0..locals.len()).map(|k| format!("NU_Z{k}")).collect();
        self.line("/* nulocal! arrays start zeroed: OpenCL leaves local memory undefined */");
        self.line(format!("#if {}", any.join(" || ")));
        self.line("{");
        self.indent += 1;
        self.line("nu_idx nu_zk = nu_local_id(0) + nu_local_size(0) * (nu_local_id(1) + nu_local_size(1) * nu_local_id(2));");
        self.line("nu_idx nu_zn = nu_local_size(0) * nu_local_size(1) * nu_local_size(2);");
        for (k, z) in locals.iter().enumerate() {
            let b = self.var(&z.name);
            let elem = Ph::elem(self.env.capture_fill(&z.name).unwrap_or_default());
            let len: Vec<String> = (0..z.rank).map(|k| format!("{b}__d{k}")).collect();
            self.line(format!("#if NU_Z{k}"));
            self.line(format!(
                "for (nu_idx nu_k = nu_zk; nu_k < {}; nu_k += nu_zn) {{ {elem} nu_z = {{0}}; {b}[nu_k] = nu_z; }}",
                len.join(" * ")
            ));
            self.line("#endif");
        }
        self.line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.indent -= 1;
        self.line("}");
        self.line("#endif");
    }
}
