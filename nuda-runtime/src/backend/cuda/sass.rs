//! NVIDIA's disassembler on a CUBIN, with no GPU (layer 1, the CUDA backend): pip's
//! `nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` wheels (or a CUDA toolkit) turn the
//! CUBIN NVRTC writes into SASS, the instructions an NVIDIA GPU runs, and the resources each
//! kernel takes. Parsed here into what the static lab judges a kernel by: registers, stack,
//! shared and local bytes, and the instruction mix of its hottest innermost loop.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The resources and the SASS of one kernel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kernel {
    /// The entry's name (`nuwork_0`, ..).
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Stack bytes per thread (spills and local arrays live there).
    pub stack: u32,
    /// Static shared memory, bytes per block.
    pub shared: u32,
    /// Local memory, bytes per thread.
    pub local: u32,
    /// The instructions, in address order, as `(address, opcode with modifiers, whole text)`.
    pub code: Vec<(u32, String, String)>,
}

/// How the instructions of one stretch of SASS split up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mix {
    /// Every instruction but `NOP`s.
    pub total: u32,
    /// `FFMA` (and `FFMA2`), single-precision fused multiply-adds.
    pub ffma: u32,
    /// `DFMA`, double-precision fused multiply-adds.
    pub dfma: u32,
    /// Unfused adds and multiplies (`FADD`, `FMUL`, `DADD`, `DMUL`): a flop each, where a
    /// fused multiply-add does two in the same issue slot.
    pub add_mul: u32,
    /// Other floating-point work (`MUFU`, `FMNMX`, `FSEL`, `FSETP`, ..).
    pub float_other: u32,
    /// Integer ALU (`IADD3`, `LOP3`, `SHF`, `IMAD`, `PRMT`, ..).
    pub int_alu: u32,
    /// Shared-memory loads by width in bits: 32, 64, 128.
    pub lds: [u32; 3],
    /// Global loads by width in bits: 32, 64, 128.
    pub ldg: [u32; 3],
    /// Global stores.
    pub stg: u32,
    /// Warp shuffles.
    pub shfl: u32,
    /// Barriers (`BAR`).
    pub bar: u32,
    /// Shared-memory atomics (`ATOMS`): a privatised histogram's counts.
    pub atoms: u32,
    /// Global atomics and reductions (`ATOMG`, `ATOM`, `RED`, `REDG`): contended where many
    /// threads hit few addresses.
    pub atomg: u32,
    /// Local-memory loads and stores (spills and local arrays).
    pub local: u32,
    /// Sequentially consistent fences (`MEMBAR.SC`): what `__threadfence()` becomes, with an
    /// L1 invalidation; an acquire load or a release store orders a look-back without one.
    pub membar_sc: u32,
    /// Fences of any kind (`MEMBAR`, the sequentially consistent ones included): a release
    /// store or exchange at GPU scope is a `MEMBAR.ALL.GPU` before it.
    pub membar: u32,
}

impl Mix {
    /// The share of the instructions that are `FFMA` or `DFMA`, from 0 to 1.
    pub fn fma_share(&self) -> f64 {
        f64::from(self.ffma + self.dfma) / f64::from(self.total.max(1))
    }

    /// The flops these instructions do, as a share of what as many FMAs would do: FMAs
    /// count 2, unfused adds and multiplies 1, everything else takes a slot and does none.
    pub fn flop_share(&self) -> f64 {
        let flops = 2 * (self.ffma + self.dfma) + self.add_mul;
        f64::from(flops) / f64::from(2 * self.total.max(1))
    }
}

/// The directories holding `cuobjdump` and `nvdisasm`, found once: `NUDA_CUOBJDUMP` (the
/// binary), the `PATH`, a CUDA toolkit, and pip's wheels in every site-packages.
pub(crate) fn tools() -> Result<(PathBuf, PathBuf), String> {
    static FOUND: OnceLock<Result<(PathBuf, PathBuf), String>> = OnceLock::new();
    FOUND.get_or_init(find_tools).clone()
}

fn find_tools() -> Result<(PathBuf, PathBuf), String> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("NUDA_CUOBJDUMP")
        .map(PathBuf::from)
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .into_iter()
        .collect();
    dirs.extend(
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths),
    );
    dirs.push(PathBuf::from("/usr/local/cuda/bin"));
    for site in super::nvrtc::site_package_dirs() {
        dirs.extend(
            [
                "cu13/bin",
                "cu12/bin",
                "cuda_cuobjdump/bin",
                "cuda_nvdisasm/bin",
            ]
            .map(|d| site.join("nvidia").join(d)),
        );
    }
    let find = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
    match (find("cuobjdump"), find("nvdisasm")) {
        (Some(c), Some(n)) => Ok((c, n)),
        _ => Err("no cuobjdump and nvdisasm on the PATH, in NUDA_CUOBJDUMP's folder or in pip's site-packages; install them with `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`".into()),
    }
}

/// The kernels of `cubin`, disassembled by `cuobjdump -sass -res-usage`, and its text.
pub(crate) fn disassemble(cubin: &[u8]) -> Result<(String, Vec<Kernel>), String> {
    let (cuobjdump, nvdisasm) = tools()?;
    let dir = std::env::temp_dir().join(format!("nuda-sass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("a temporary folder: {e}"))?;
    let file = dir.join(format!("{:016x}.cubin", digest(cubin)));
    std::fs::write(&file, cubin).map_err(|e| format!("writing the CUBIN: {e}"))?;
    // cuobjdump runs nvdisasm, which it finds on the PATH.
    let path = std::env::join_paths(
        nvdisasm.parent().into_iter().map(Path::to_path_buf).chain(
            std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths),
        ),
    )
    .map_err(|e| e.to_string())?;
    let out = std::process::Command::new(&cuobjdump)
        .args(["-sass", "-res-usage"])
        .arg(&file)
        .env("PATH", path)
        .output()
        .map_err(|e| format!("running {}: {e}", cuobjdump.display()))?;
    let _ = std::fs::remove_file(&file);
    if !out.status.success() {
        return Err(format!(
            "cuobjdump failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let kernels = parse(&text);
    Ok((text, kernels))
}

/// The bytes of spill stores and spill loads ptxas reported for `kernel` in `log`
/// (`--ptxas-options=-v`).
pub fn spills(log: &str, kernel: &str) -> (u32, u32) {
    let mut mine = false;
    for line in log.lines() {
        if let Some((_, rest)) = line.split_once("Compiling entry function '") {
            mine = rest.starts_with(&format!("{kernel}'"));
        } else if let (true, Some((_, rest))) = (mine, line.split_once("bytes stack frame, ")) {
            let n = |w: &str| {
                w.split_whitespace()
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0)
            };
            let (stores, loads) = rest.split_once(", ").unwrap_or((rest, ""));
            return (n(stores), n(loads));
        }
    }
    (0, 0)
}

/// One line per kernel: what it takes, as `NUDA_DUMP`'s `.sass` files open with.
pub fn resource_lines(kernels: &[Kernel], log: &str) -> String {
    let mut out = String::new();
    for k in kernels {
        let (stores, loads) = spills(log, &k.name);
        out += &format!(
            "// {}: {} registers, {} B spill stores, {} B spill loads, {} B stack, {} B shared, {} B local\n",
            k.name, k.registers, stores, loads, k.stack, k.shared, k.local
        );
    }
    out
}

/// A file name for `bytes`.
fn digest(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// The kernels of `cuobjdump -sass -res-usage`'s output.
pub fn parse(text: &str) -> Vec<Kernel> {
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut resources: Vec<(String, [u32; 4])> = Vec::new();
    let mut pending_resources: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t
            .strip_prefix("Function ")
            .and_then(|r| r.strip_suffix(':'))
        {
            pending_resources = Some(name.trim().to_string());
        } else if let (Some(name), true) = (&pending_resources, t.starts_with("REG:")) {
            resources.push((name.clone(), resource_line(t)));
            pending_resources = None;
        } else if let Some(name) = t.strip_prefix("Function : ") {
            kernels.push(Kernel {
                name: name.trim().to_string(),
                ..Kernel::default()
            });
        } else if let (Some(k), Some(insn)) = (kernels.last_mut(), instruction(t)) {
            k.code.push(insn);
        }
    }
    for k in &mut kernels {
        if let Some((_, [reg, stack, shared, local])) = resources.iter().find(|(n, _)| *n == k.name)
        {
            (k.registers, k.stack, k.shared, k.local) = (*reg, *stack, *shared, *local);
        }
    }
    kernels
}

/// The shared memory an sm_80 or newer block reserves for the system.
const SYSTEM_SHARED: u32 = 1024;

/// `REG:8 STACK:0 SHARED:0 LOCAL:0 ..`: registers, stack, shared and local bytes. The
/// shared bytes are the kernel's own: for a kernel with any, cuobjdump counts the 1 KiB an
/// sm_80 or newer block reserves for the system (ptxas's `bytes smem` does not), which the
/// occupancy rules add for every block.
fn resource_line(t: &str) -> [u32; 4] {
    let field = |key: &str| {
        t.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    [
        field("REG:"),
        field("STACK:"),
        field("SHARED:").saturating_sub(SYSTEM_SHARED),
        field("LOCAL:"),
    ]
}

/// `/*0070*/  FFMA R5, R0, R5, 1 ;  /* 0x.. */`: the address, the opcode (with modifiers,
/// without a predicate) and the instruction's text.
fn instruction(t: &str) -> Option<(u32, String, String)> {
    let rest = t.strip_prefix("/*")?;
    let (addr, rest) = rest.split_once("*/")?;
    let addr = u32::from_str_radix(addr.trim(), 16).ok()?;
    let body = rest.split(';').next()?.trim();
    let mut words = body.split_whitespace();
    let mut op = words.next()?;
    if op.starts_with('@') {
        op = words.next()?;
    }
    Some((addr, op.to_string(), body.to_string()))
}

impl Kernel {
    /// The loops, as the address ranges of backward branches: `[target, branch]`.
    pub fn loops(&self) -> Vec<(u32, u32)> {
        self.code
            .iter()
            .filter(|(_, op, _)| op.starts_with("BRA"))
            .filter_map(|(addr, _, text)| {
                let target = text.split_whitespace().last()?.trim_start_matches("0x");
                let target = u32::from_str_radix(target.trim_end_matches(';'), 16).ok()?;
                (target <= *addr).then_some((target, *addr))
            })
            .collect()
    }

    /// The mix of the instructions from address `lo` to `hi`.
    pub fn mix(&self, lo: u32, hi: u32) -> Mix {
        let mut m = Mix::default();
        for (_, op, _) in self.code.iter().filter(|(a, _, _)| (lo..=hi).contains(a)) {
            count(&mut m, op);
        }
        m
    }

    /// The mix of the hottest loop's own body: of every loop, the instructions not inside
    /// a loop nested in it, and of those the body with the most arithmetic; the whole
    /// kernel if it has no loop. NVRTC unrolls short constant loops (a staged k-slice), so
    /// the loop a kernel spends its time in is often not the innermost branch.
    pub fn inner_loop(&self) -> Mix {
        let loops = self.loops();
        let nested = |(lo, hi): (u32, u32)| {
            let inside: Vec<(u32, u32)> = loops
                .iter()
                .copied()
                .filter(|&(l, h)| (l, h) != (lo, hi) && lo <= l && h <= hi)
                .collect();
            let mut m = Mix::default();
            let own = self.code.iter().filter(|(a, _, _)| (lo..=hi).contains(a));
            for (_, op, _) in
                own.filter(|(a, _, _)| !inside.iter().any(|&(l, h)| (l..=h).contains(a)))
            {
                count(&mut m, op);
            }
            m
        };
        let work = |m: &Mix| m.ffma + m.dfma + m.add_mul + m.float_other + m.int_alu;
        loops
            .iter()
            .map(|&l| nested(l))
            .max_by_key(work)
            .filter(|m| work(m) > 0)
            .unwrap_or_else(|| self.mix(0, u32::MAX))
    }
}

/// Counts one opcode into `m`.
fn count(m: &mut Mix, op: &str) {
    let base = op.split('.').next().unwrap_or(op);
    if base == "NOP" {
        return;
    }
    m.total += 1;
    let width = |op: &str| match () {
        _ if op.contains(".128") => 2,
        _ if op.contains(".64") => 1,
        _ => 0,
    };
    match base {
        "FFMA" | "FFMA2" => m.ffma += 1,
        "DFMA" => m.dfma += 1,
        "FADD" | "FMUL" | "DADD" | "DMUL" => m.add_mul += 1,
        "FMNMX" | "MUFU" | "FSEL" | "FSETP" | "DSETP" => m.float_other += 1,
        "IADD3" | "IMAD" | "LOP3" | "SHF" | "PRMT" | "IADD" | "LEA" | "ISETP" | "IABS" | "SEL"
        | "IMNMX" | "POPC" | "FLO" | "BREV" => m.int_alu += 1,
        "LDS" => m.lds[width(op)] += 1,
        "LDG" => m.ldg[width(op)] += 1,
        "STG" => m.stg += 1,
        "SHFL" => m.shfl += 1,
        "BAR" => m.bar += 1,
        "ATOMS" => m.atoms += 1,
        "ATOMG" | "ATOM" | "RED" | "REDG" => m.atomg += 1,
        "LDL" | "STL" => m.local += 1,
        "MEMBAR" => {
            m.membar += 1;
            m.membar_sc += u32::from(op.starts_with("MEMBAR.SC"));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cuobjdump -sass -res-usage` of a kernel with a loop around two FFMAs, a 128-bit
    /// shared load and a barrier (trimmed, as cuobjdump prints it).
    const SAMPLE: &str = "
Resource usage:
 Common:
  GLOBAL:0
 Function nuwork_0:
  REG:40 STACK:16 SHARED:9216 LOCAL:0 CONSTANT[0]:560 TEXTURE:0 SURFACE:0 SAMPLER:0

	code for sm_90
		Function : nuwork_0
        /*0000*/                   LDC R1, c[0x0][0x28] ;        /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R5, SR_TID.X ;            /* 0x0000000000057919 */
        /*0020*/                   LDS.128 R8, [R5] ;            /* 0x0000000005087984 */
        /*0030*/                   FFMA R0, R8, R9, R0 ;         /* 0x0000000908007223 */
        /*0040*/                   FFMA R2, R10, R11, R2 ;       /* 0x0000000b0a027223 */
        /*0050*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ; /* 0x0000000000007b1d */
        /*0060*/               @P0 BRA 0x20 ;                    /* 0xfffffffc00fc7947 */
        /*0070*/                   STG.E desc[UR4][R2.64], R0 ;  /* 0x0000000502007986 */
        /*0080*/                   EXIT ;                        /* 0x000000000000794d */
        /*0090*/                   BRA 0x90;                     /* 0xfffffffc00fc7947 */
        /*00a0*/                   NOP;                          /* 0x0000000000007918 */
";

    #[test]
    fn resources_and_the_inner_loop_are_read() {
        let k = &parse(SAMPLE)[0];
        assert_eq!(k.name, "nuwork_0");
        assert_eq!((k.registers, k.stack, k.shared, k.local), (40, 16, 8192, 0));
        // `BRA 0x90` at 0x90 is the trap after EXIT: a loop of one instruction, no work.
        assert_eq!(k.loops(), vec![(0x20, 0x60), (0x90, 0x90)]);
        let m = k.inner_loop();
        assert_eq!((m.total, m.ffma, m.lds, m.bar), (5, 2, [0, 0, 1], 1));
        assert!((m.fma_share() - 0.4).abs() < 1e-9);
    }

    #[test]
    fn fences_are_counted_by_kind() {
        let mut m = Mix::default();
        for op in [
            "MEMBAR.SC.GPU",
            "MEMBAR.ALL.GPU",
            "LDG.E.64.STRONG.GPU",
            "ERRBAR",
        ] {
            count(&mut m, op);
        }
        assert_eq!((m.membar, m.membar_sc, m.ldg), (2, 1, [0, 1, 0]));
    }

    #[test]
    fn spills_come_from_ptxas() {
        let log = "ptxas info    : Compiling entry function 'nuwork_0' for 'sm_90'\n\
                   ptxas info    : Function properties for nuwork_0\n    \
                   24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n";
        assert_eq!(spills(log, "nuwork_0"), (8, 12));
        assert_eq!(spills(log, "nuwork_1"), (0, 0));
    }
}
