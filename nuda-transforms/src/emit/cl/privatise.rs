//! Emitters layer: privatised atomic targets (`crate::checks::privatise`) in the grid-stride kernel
//! of `reduce.rs`. Per array `k` the kernel takes `uint nu_pv<k>`, whether this launch
//! privatises it (the runtime's `reduce/privatise.rs` decides: an integer array that fits
//! in local memory), and `local T* nu_ph<k>`, the group's copy. The group zeroes its copy,
//! its work-items' atomics go to the copy, and after the loops each non-zero element goes
//! into the array with one atomic: a histogram of n values then makes n cheap local atomics
//! and a few per bin and group in global memory, where it made n contended global ones.
//!
//! The flag is the same for every work-item, so each barrier here is reached by all of them
//! whatever its value.

use super::ClEmitter;
use crate::emit::template::Ph;

impl ClEmitter<'_> {
    /// The number of privatised array `base`, if it is one.
    pub(super) fn privatised(&self, base: &syn::Ident) -> Option<usize> {
        let p = &self.env.analysis.privatised;
        p.iter().position(|x| x.name == *base)
    }

    /// The flag and local copy of each privatised array, after the other parameters.
    pub(super) fn private_params(&self) -> Vec<String> {
        let p = &self.env.analysis.privatised;
        p.iter()
            .enumerate()
            .flat_map(|(k, x)| {
                let elem = Ph::elem(self.env.capture_fill(&x.name).unwrap_or_default());
                [
                    format!("uint nu_pv{k}"),
                    super::marks::local_param(&elem, &format!("nu_ph{k}"), true),
                ]
            })
            .collect()
    }

    /// Each privatised copy zeroed by the group, before the loops.
    pub(super) fn private_start(&mut self) {
        if self.env.analysis.privatised.is_empty() {
            return;
        }
        self.raw_line("/* privatised atomics: the group counts in local memory first */");
        self.private_each(|_, _, elem, k| format!("{elem} nu_z = {{0}}; nu_ph{k}[nu_j] = nu_z;"));
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
    }

    /// After the loops: each copy's non-zero elements added into its array, once per group.
    pub(super) fn private_flush(&mut self) {
        if self.env.analysis.privatised.is_empty() {
            return;
        }
        self.raw_line("barrier(CLK_LOCAL_MEM_FENCE);");
        self.private_each(|b, flush, elem, k| {
            format!("{elem} nu_x = nu_ph{k}[nu_j]; if (nu_x != 0) nu_atomic_{flush}_{elem}(&{b}[nu_j], nu_x);")
        });
    }

    /// GPUs: `loops` twice, first where every array is privatised (the flags shadowed by
    /// constants), then for any other launch. With a flag the compiler cannot see, each
    /// atomic is a branch between the copy and the array, and AMD's compilers, which do not
    /// unswitch loops on a uniform flag as ptxas does, then wait for each stride's load before
    /// that branch: a histogram's grid-stride loop kept one load in flight instead of four.
    pub(super) fn private_unswitched(&mut self, mut loops: impl FnMut(&mut Self)) {
        let n = self.env.analysis.privatised.len();
        if n == 0 {
            return loops(self);
        }
        let flags: Vec<String> = (0..n).map(|k| format!("nu_pv{k}")).collect();
        let ones: Vec<String> = flags.iter().map(|f| format!("{f} = 1u")).collect();
        self.raw_line(&format!("if ({}) {{", flags.join(" && ")));
        self.indent += 1;
        self.raw_line(&format!("const uint {};", ones.join(", ")));
        loops(self);
        self.indent -= 1;
        self.raw_line("} else {");
        self.indent += 1;
        loops(self);
        self.indent -= 1;
        self.raw_line("}");
    }

    /// For each privatised array whose flag is set, `line(array, flush, element type, k)`
    /// in a loop of the group's work-items over its elements `nu_j`.
    fn private_each(&mut self, line: impl Fn(&str, &str, &str, usize) -> String) {
        let privatised = self.env.analysis.privatised.clone();
        for (k, x) in privatised.iter().enumerate() {
            let (b, fill) = (self.var(&x.name), self.env.capture_fill(&x.name));
            let (elem, len) = (
                Ph::elem(fill.unwrap_or_default()),
                Ph::len(fill.unwrap_or_default(), &b),
            );
            self.raw_line(&format!("if (nu_pv{k}) {{"));
            self.raw_line("    nu_idx nu_pl = (nu_idx)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));");
            self.raw_line("    nu_idx nu_pn = (nu_idx)(get_local_size(0) * get_local_size(1) * get_local_size(2));");
            self.raw_line(&format!(
                "    for (nu_idx nu_j = nu_pl; nu_j < {len}; nu_j += nu_pn) {{ {} }}",
                line(&b, x.flush, &elem, k)
            ));
            self.raw_line("}");
        }
    }
}
