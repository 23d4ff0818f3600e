//! The OpenCL C that zeroes a `#[nukernel]`'s `nulocal!` arrays when its work-group starts
//! (emitters; the analysis is `crate::zeroing`): each work-item zeroes a strided share, then
//! the group meets at a barrier. An array the kernel's first phase provably writes whole is
//! zeroed only in groups too small for that write to cover it.

use super::ClEmitter;
use crate::emit::template::Ph;
use crate::zeroing::Zeroed;

impl ClEmitter<'_> {
    /// The zeroing of `locals`, at the top of the kernel's body.
    pub(super) fn zero_locals(&mut self, locals: &[Zeroed]) {
        if locals.is_empty() {
            return;
        }
        self.line("/* nulocal! arrays start zeroed: OpenCL leaves local memory undefined */");
        self.line("{");
        self.indent += 1;
        self.line("nu_idx nu_zk = nu_local_id(0) + nu_local_size(0) * (nu_local_id(1) + nu_local_size(1) * nu_local_id(2));");
        self.line("nu_idx nu_zn = nu_local_size(0) * nu_local_size(1) * nu_local_size(2);");
        let mut needed = Vec::new();
        for z in locals {
            let b = self.var(&z.name);
            let elem = Ph::elem(self.env.capture_fill(&z.name).unwrap_or_default());
            let len: Vec<String> = (0..z.rank).map(|k| format!("{b}__d{k}")).collect();
            let short = short_group(&b, z);
            self.line(format!(
                "if ({short}) for (nu_idx nu_k = nu_zk; nu_k < {}; nu_k += nu_zn) {{ {elem} nu_z = {{0}}; {b}[nu_k] = nu_z; }}",
                len.join(" * ")
            ));
            needed.push(short);
        }
        // Uniform: every work-item of the group computes the same sizes.
        self.line(format!(
            "if ({}) barrier(CLK_LOCAL_MEM_FENCE);",
            needed.join(" || ")
        ));
        self.indent -= 1;
        self.line("}");
    }
}

/// When array `b` needs zeroing: always, or where the group is smaller than the array
/// along the ids of its covering store.
fn short_group(b: &str, z: &Zeroed) -> String {
    let Some(cover) = &z.cover else {
        return "1".into();
    };
    let fits: Vec<String> = cover
        .iter()
        .enumerate()
        .map(|(k, d)| format!("nu_local_size({d}) >= {b}__d{k}"))
        .collect();
    format!("!({})", fits.join(" && "))
}
