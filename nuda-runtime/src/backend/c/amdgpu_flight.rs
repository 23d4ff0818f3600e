//! AMD's memory-level parallelism (layer 1, shared by the AMD compile checks beside
//! `amdgpu.rs`): how many global loads one wave of a kernel has in flight at once, read off
//! its ISA (`llvm-objdump -d`), the counterpart of the CUDA lab's `Kernel::loads_in_flight`.
//!
//! Why: an MI200's HBM, like an H200's, reaches its speed only with enough bytes in flight per
//! compute unit, and a wave that waits for each load before it issues the next keeps one in
//! flight. AMD's compilers say where a wave waits: `s_waitcnt vmcnt(N)` stalls until at most
//! N of its vector-memory operations are outstanding, and they complete in order. So the count
//! is the most loads outstanding at once, as the waits allow, in a straight run of code; a
//! branch, a barrier or the end ends the run (past them the order of issue is not the
//! listing's), so the count is a lower bound. Image loads count as loads. On GFX9 (gfx90a,
//! gfx94x) stores and atomics count against `vmcnt` too; from GFX10 on (gfx1030) stores and
//! atomics without a result have their own counter.

use std::collections::VecDeque;

/// A kernel's name and the most global loads one wave issues before it waits for them.
pub(crate) fn loads_in_flight(isa: &str, arch: &str) -> Vec<(String, u32)> {
    let gfx9 = arch.starts_with("gfx9");
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut run = Run::default();
    for line in isa.lines() {
        if let Some(name) = symbol(line) {
            out.push((name.to_string(), 0));
            run = Run::default();
            continue;
        }
        let Some((op, args)) = instruction(line) else {
            continue;
        };
        run.step(op, args, gfx9);
        if let Some(last) = out.last_mut() {
            last.1 = last.1.max(run.most);
        }
    }
    out
}

/// A compiler's assembly (`clang -S`) as `llvm-objdump -d` lists it, for `loads_in_flight`
/// and dumps: a function's label as `<name>:`, each instruction on a tab, without
/// directives, block labels and comments.
pub(crate) fn as_listing(asm: &str) -> String {
    let mut out = String::from("\n");
    for line in asm.lines() {
        let code = line.split(';').next().unwrap_or_default();
        let text = code.trim();
        if text.is_empty() || text.starts_with('.') {
            continue;
        }
        match text.strip_suffix(':') {
            Some(name) if !line.starts_with(char::is_whitespace) => {
                out += &format!("\n0000000000000000 <{name}>:\n");
            }
            Some(_) => {}
            None if line.starts_with('\t') => out += &format!("\t{text}\n"),
            None => {}
        }
    }
    out
}

/// The vector-memory operations outstanding in a run: `true` for a load.
#[derive(Default)]
struct Run {
    queue: VecDeque<bool>,
    most: u32,
}

impl Run {
    /// One instruction `op` with operands `args`.
    fn step(&mut self, op: &str, args: &str, gfx9: bool) {
        if ends_run(op) {
            self.queue.clear();
        } else if let Some(n) = waits_for(op, args) {
            while self.queue.len() > n {
                self.queue.pop_front();
            }
        } else if is_load(op) {
            self.queue.push_back(true);
        } else if counts(op, args, gfx9) {
            self.queue.push_back(false);
        }
        let loads = self.queue.iter().filter(|&&l| l).count();
        self.most = self.most.max(loads as u32);
    }
}

/// `<name>:` heading a function's listing.
fn symbol(line: &str) -> Option<&str> {
    let rest = line.split_once(" <")?.1;
    rest.strip_suffix(">:")
}

/// A listing line's mnemonic and operands, without the `// address: encoding` comment.
fn instruction(line: &str) -> Option<(&str, &str)> {
    let code = line.split("//").next()?.trim();
    if !line.starts_with('\t') || code.is_empty() {
        return None;
    }
    Some(code.split_once(char::is_whitespace).unwrap_or((code, "")))
}

/// A load from global memory or an image, whatever its width (`global_load_dwordx4`,
/// `buffer_load_ubyte`, `image_sample`).
fn is_load(op: &str) -> bool {
    let global = ["global_load", "buffer_load", "tbuffer_load", "flat_load"];
    let image = ["image_load", "image_sample", "image_gather"];
    global.iter().chain(&image).any(|p| op.starts_with(p))
}

/// Another operation `vmcnt` counts: on GFX9 every vector-memory one (stores, atomics,
/// spills); later, those that return data (spill reloads, atomics with `glc`).
fn counts(op: &str, args: &str, gfx9: bool) -> bool {
    let vmem = [
        "global_", "buffer_", "tbuffer_", "flat_", "scratch_", "image_",
    ]
    .iter()
    .any(|p| op.starts_with(p));
    let returns = op.contains("_load") || (op.contains("_atomic") && args.contains("glc"));
    vmem && (gfx9 || returns)
}

/// `s_waitcnt`'s `vmcnt(N)`, if it has one (`s_waitcnt lgkmcnt(0)` waits on no load), or
/// GFX12's `s_wait_loadcnt N`.
fn waits_for(op: &str, args: &str) -> Option<usize> {
    let n = match op {
        "s_waitcnt" => args.split_once("vmcnt(")?.1.split(')').next()?,
        "s_wait_loadcnt" => args,
        _ => return None,
    };
    let n = n.trim();
    match n.strip_prefix("0x") {
        Some(hex) => usize::from_str_radix(hex, 16).ok(),
        None => n.parse().ok(),
    }
}

/// Branches, calls, returns, barriers and the end: past them the listing's order is not the
/// order of issue.
fn ends_run(op: &str) -> bool {
    op.starts_with("s_branch")
        || op.starts_with("s_cbranch")
        || op.starts_with("s_setpc")
        || op.starts_with("s_swappc")
        || op == "s_barrier"
        || op == "s_endpgm"
}

#[cfg(test)]
mod tests {
    use super::loads_in_flight;

    fn listing(body: &str) -> String {
        format!("Disassembly of section .text:\n\n0000000000001900 <k>:\n{body}")
    }

    /// clang's assembly reads as the disassembler's listing: labels, instructions, and
    /// nothing of the directives, block labels or comments.
    #[test]
    fn assembly_reads_as_a_listing() {
        let asm = "\t.text\n\t.globl\tk\nk:                ; @k\n\tglobal_load_dword v1, v0, s[0:1]\n\
                   \tglobal_load_dword v2, v0, s[2:3] ; x\n.LBB0_1:\n\ts_waitcnt vmcnt(0)\n\t.section\t.rodata\n";
        let listing = super::as_listing(asm);
        assert!(
            listing.contains("<k>:\n\tglobal_load_dword v1"),
            "{listing}"
        );
        assert!(
            !listing.contains(".LBB0") && !listing.contains(';'),
            "{listing}"
        );
        assert_eq!(
            loads_in_flight(&listing, "gfx940"),
            vec![("k".to_string(), 2)]
        );
    }

    /// Four loads issued before the first wait for one of them; a wait for all ends them.
    #[test]
    fn loads_stay_in_flight_until_a_wait_takes_them() {
        let isa = listing(
            "\tglobal_load_dword v2, v[0:1], off                 // 000000001900: DC508000\n\
             \tglobal_load_dwordx4 v[4:7], v[0:1], off offset:16 // 000000001908: DC5C8010\n\
             \tbuffer_load_dword v8, v9, s[0:3], 0 offen       // 000000001910: E0501000\n\
             \tglobal_load_dword v10, v[0:1], off offset:64     // 000000001918: DC508040\n\
             \ts_waitcnt vmcnt(3)                               // 000000001920: BF8C0F73\n\
             \tv_add_u32_e32 v2, v2, v3                          // 000000001924: 68040702\n\
             \ts_waitcnt vmcnt(0) lgkmcnt(0)                    // 000000001928: BF8C0070\n\
             \tglobal_load_dword v2, v[0:1], off                 // 00000000192C: DC508000\n\
             \ts_endpgm                                          // 000000001934: BF810000\n",
        );
        assert_eq!(loads_in_flight(&isa, "gfx90a"), [("k".to_string(), 4)]);
    }

    /// One load waited for before the next is issued, behind a branch each time (a guard
    /// that stayed a branch): one in flight. A GFX9 store counts against `vmcnt`, so a wait
    /// for one operation after a load and a store takes the load; on GFX10 it does not.
    #[test]
    fn waits_and_branches_end_runs() {
        let isa = listing(
            "\tglobal_load_dword v2, v[24:25], off               // 000000001C3C: DC508000\n\
             \ts_waitcnt vmcnt(0)                                // 000000001C4C: BF8C0F70\n\
             \ts_cbranch_execz 13                                // 000000001C60: BF88000D\n\
             \tglobal_load_dword v2, v[24:25], off               // 000000001C7C: DC508000\n\
             \tglobal_store_dword v[0:1], v4, off                // 000000001C84: DC708000\n\
             \ts_waitcnt vmcnt(1)                                // 000000001C88: BF8C0F71\n\
             \tglobal_load_dword v3, v[24:25], off               // 000000001C8C: DC508000\n\
             \ts_branch 2                                         // 000000001C94: BF820002\n",
        );
        assert_eq!(loads_in_flight(&isa, "gfx90a")[0].1, 1);
        assert_eq!(loads_in_flight(&isa, "gfx1030")[0].1, 2);
    }

    /// An image sample is a load; a spill's reload counts against `vmcnt` on GFX10 too.
    #[test]
    fn image_loads_count_and_reloads_take_their_place() {
        let isa = listing(
            "\timage_sample_lz v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf // 000000001900: F09C0F00\n\
             \timage_load v[6:9], v[4:5], s[8:15] dmask:0xf unorm      // 000000001908: F0001F00\n\
             \tscratch_load_dword v10, off, s33 offset:4                // 000000001910: DC500004\n\
             \ts_waitcnt vmcnt(1)                                       // 000000001918: BF8C0F71\n\
             \ts_endpgm                                                 // 00000000191C: BF810000\n",
        );
        assert_eq!(loads_in_flight(&isa, "gfx1030")[0].1, 2);
    }
}
