//! AMD GPU code objects, read with LLVM's tools (layer 1, shared by the AMD compile checks:
//! hiprtc's in `backend/hip` and clang's OpenCL C in `backend/opencl/amdgcn.rs`): finding
//! clang, LLVM's binary tools and ROCm's device libraries; each kernel's resources from the
//! code object's metadata notes (`llvm-readelf --notes`); the ISA (`llvm-objdump -d`).
//!
//! No ROCm install is needed: Debian's `clang-15`, `lld-15` and `rocm-device-libs` are enough
//! to compile OpenCL C for `amdgcn-amd-amdhsa` on a machine with no AMD GPU.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// clang, the folder of its LLVM tools, and ROCm's device-library bitcode.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    pub clang: PathBuf,
    /// The first line of `clang --version`, for the memo of clean checks.
    pub version: String,
    pub llvm_bin: PathBuf,
    pub device_libs: PathBuf,
}

/// The tools, found once per process; the error says what is missing and how to install it.
pub(crate) fn tools() -> Result<&'static Tools, String> {
    static FOUND: OnceLock<Result<Tools, String>> = OnceLock::new();
    FOUND.get_or_init(find).as_ref().map_err(Clone::clone)
}

fn find() -> Result<Tools, String> {
    let (clang, version) = find_clang().ok_or_else(|| {
        "no clang with the AMDGPU target (looked for NUDA_CLANG, clang-18 .. clang-14 and clang \
         on PATH); install it with `apt-get install clang-15 lld-15`"
            .to_string()
    })?;
    // Debian's /usr/bin/clang-15 links to /usr/lib/llvm-15/bin/clang, beside llvm-readelf.
    let real = std::fs::canonicalize(&clang).unwrap_or_else(|_| clang.clone());
    let llvm_bin = real.parent().map(Path::to_path_buf).unwrap_or_default();
    let device_libs = find_device_libs().ok_or_else(|| {
        "no ROCm device libraries (ocml.bc; looked in NUDA_ROCM_DEVICE_LIBS, \
         /usr/lib/x86_64-linux-gnu/amdgcn/bitcode and /opt/rocm); install them with \
         `apt-get install rocm-device-libs`"
            .to_string()
    })?;
    Ok(Tools {
        clang,
        version,
        llvm_bin,
        device_libs,
    })
}

/// The first clang that runs, and its version line.
fn find_clang() -> Option<(PathBuf, String)> {
    let named = std::env::var_os("NUDA_CLANG").map(PathBuf::from);
    let versions = (14..=18).rev().map(|v| format!("clang-{v}"));
    let candidates = named
        .into_iter()
        .chain(versions.chain(["clang".to_string()]).map(PathBuf::from));
    candidates.into_iter().find_map(|c| {
        let out = Command::new(&c).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().next().unwrap_or_default().to_string();
        out.status.success().then_some((c, line))
    })
}

fn find_device_libs() -> Option<PathBuf> {
    let named = std::env::var_os("NUDA_ROCM_DEVICE_LIBS").map(PathBuf::from);
    let known = [
        "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
        "/usr/lib/aarch64-linux-gnu/amdgcn/bitcode",
        "/opt/rocm/amdgcn/bitcode",
        "/opt/rocm/lib/llvm/lib/clang/17/lib/amdgcn/bitcode",
    ];
    named
        .into_iter()
        .chain(known.iter().map(PathBuf::from))
        .find(|d| d.join("ocml.bc").is_file())
}

/// A file in the temporary folder that is removed when dropped.
pub(crate) struct TempFile(pub PathBuf);

impl TempFile {
    /// A fresh path ending in `suffix`, unique in this process and among processes.
    pub fn new(suffix: &str) -> TempFile {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("nuda-{}-{n}{suffix}", std::process::id());
        TempFile(std::env::temp_dir().join(name))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What one kernel of a code object uses, from its metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Resources {
    pub name: String,
    pub vgprs: u32,
    pub agprs: u32,
    pub sgprs: u32,
    pub vgpr_spills: u32,
    pub sgpr_spills: u32,
    pub lds: u32,
    pub wave: u32,
    /// The most global loads a wave has in flight (`amdgpu_flight.rs`), from the ISA; `None`
    /// where LLVM's disassembler gave none.
    pub loads: Option<u32>,
}

/// Each kernel's resources in `code`, an AMDGPU code object.
pub(crate) fn resources(tools: &Tools, code: &[u8]) -> Result<Vec<Resources>, String> {
    let notes = run_on(tools, "llvm-readelf", &["--notes"], code)?;
    Ok(parse_notes(&notes))
}

/// The program's assembly from its compiler, asked for only where LLVM's disassembler fails:
/// clang can write it (`-S`), hiprtc cannot.
pub(crate) type Assembly<'a> = &'a dyn Fn() -> Option<String>;

/// How `isa` begins where the disassembler failed.
const NO_ISA: &str = "// no ISA: ";

/// The code object's ISA, disassembled; where LLVM's disassembler fails (Debian's 15 crashes
/// on gfx940 code objects), a comment that says so.
pub(crate) fn isa(tools: &Tools, code: &[u8]) -> String {
    run_on(tools, "llvm-objdump", &["-d"], code).unwrap_or_else(|why| {
        let first = why.lines().next().unwrap_or("no output");
        format!("{NO_ISA}llvm-objdump failed ({first})\n")
    })
}

/// A dump's text: the origin line, a resource line per kernel, then the ISA.
pub(crate) fn dump_text(
    tools: &Tools,
    arch: &str,
    origin: Option<&str>,
    (code, asm): (&[u8], Assembly<'_>),
) -> Result<String, String> {
    let (kernels, isa) = described(tools, arch, code, asm)?;
    Ok(origin_line(origin) + &resource_lines(arch, &kernels) + &isa)
}

/// Keeps what `compiler` made of a program for `arch` for the static lab, if it collects
/// (`amd_lab.rs`); a code object LLVM's tools cannot read leaves nothing.
pub(crate) fn collect(
    tools: &Tools,
    compiler: &'static str,
    arch: &str,
    (code, asm): (&[u8], Assembly<'_>),
) {
    if !super::amd_lab::collecting() {
        return;
    }
    if let Ok((kernels, _)) = described(tools, arch, code, asm) {
        super::amd_lab::push(compiler, arch, &kernels);
    }
}

/// Each kernel's resources, its loads in flight included, and the ISA they were read from.
fn described(
    tools: &Tools,
    arch: &str,
    code: &[u8],
    asm: Assembly<'_>,
) -> Result<(Vec<Resources>, String), String> {
    let mut kernels = resources(tools, code)?;
    let mut isa = isa(tools, code);
    if isa.starts_with(NO_ISA) {
        if let Some(text) = asm() {
            let why = isa.trim_start_matches(NO_ISA).to_string();
            isa = format!("// ISA from the compiler's assembly, since {why}")
                + &super::amdgpu_flight::as_listing(&text);
        }
    }
    let flight = super::amdgpu_flight::loads_in_flight(&isa, arch);
    for k in &mut kernels {
        let found = flight.iter().find(|(name, _)| *name == k.name);
        k.loads = found.map(|f| f.1);
    }
    Ok((kernels, isa))
}

/// Runs LLVM tool `tool` with `args` on `code`, written to a temporary file; its output.
fn run_on(tools: &Tools, tool: &str, args: &[&str], code: &[u8]) -> Result<String, String> {
    let file = TempFile::new(".co");
    std::fs::write(&file.0, code).map_err(|e| format!("cannot write {}: {e}", file.0.display()))?;
    let out = Command::new(tools.llvm_bin.join(tool))
        .args(args)
        .arg(&file.0)
        .output()
        .map_err(|e| format!("cannot run {tool}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // The temporary file's name says nothing to a reader of the dump.
    let text = text.replace(&file.0.display().to_string(), "code object");
    match out.status.success() {
        true => Ok(text),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

/// The kernels of `llvm-readelf --notes` output: the fields of each `amdhsa.kernels` entry
/// at the entry's own depth (its arguments' fields, deeper, have names too).
pub(crate) fn parse_notes(notes: &str) -> Vec<Resources> {
    let mut out: Vec<Resources> = Vec::new();
    let mut lines = notes
        .lines()
        .skip_while(|l| l.trim() != "amdhsa.kernels:")
        .skip(1)
        .peekable();
    // YAML may indent a list's items under their key, or not.
    let Some(item) = lines.peek().map(|l| indent(l)) else {
        return out;
    };
    for line in lines {
        let t = line.trim_start();
        let starts = t.starts_with("- ") && indent(line) == item;
        if !starts && indent(line) <= item {
            break;
        }
        if starts {
            out.push(Resources::default());
        }
        let field = t.trim_start_matches("- ");
        let depth = line.len() - field.len();
        if let (Some(k), true) = (out.last_mut(), depth == item + 2) {
            field_into(k, field);
        }
    }
    out
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// One `key: value` line of a kernel's metadata into `k`.
fn field_into(k: &mut Resources, field: &str) {
    let Some((key, value)) = field.split_once(':') else {
        return;
    };
    let value = value.trim();
    let number = value.parse::<u32>().unwrap_or(0);
    match key {
        ".name" => k.name = value.to_string(),
        ".vgpr_count" => k.vgprs = number,
        ".agpr_count" => k.agprs = number,
        ".sgpr_count" => k.sgprs = number,
        ".vgpr_spill_count" => k.vgpr_spills = number,
        ".sgpr_spill_count" => k.sgpr_spills = number,
        ".group_segment_fixed_size" => k.lds = number,
        ".wavefront_size" => k.wave = number,
        _ => {}
    }
}

/// Waves per SIMD that the registers allow, for the CDNA architectures whose budgets AMD
/// documents (gfx908: 256 VGPRs and 256 AGPRs per lane in granules of 4, at most 10 waves;
/// gfx90a and gfx94x: one file of 512 in granules of 8, at most 8 waves, whose VGPR count in
/// the metadata holds the AGPRs too); `None` elsewhere. Local memory also limits occupancy,
/// by the work-group's size: not counted.
pub(crate) fn waves_per_simd(arch: &str, k: &Resources) -> Option<u32> {
    let (budget, granule, most) = match arch {
        "gfx908" => (256, 4, 10),
        "gfx90a" | "gfx940" | "gfx941" | "gfx942" => (512, 8, 8),
        _ => return None,
    };
    let round = |n: u32| n.div_ceil(granule).max(1) * granule;
    let used = round(k.vgprs.max(k.agprs));
    Some((budget / used).min(most))
}

/// The dump's first line: the macro call a generated program came from (`file:line: text`),
/// or that it was written by hand.
pub(crate) fn origin_line(origin: Option<&str>) -> String {
    format!(
        "// origin: {}\n",
        origin.unwrap_or("hand-written").replace('\n', " ")
    )
}

/// A line per kernel: registers, spills, local memory, waves per SIMD and global loads in
/// flight, for a dump's head and the bench's resource table.
pub(crate) fn resource_lines(arch: &str, kernels: &[Resources]) -> String {
    let mut s = String::new();
    for k in kernels {
        let waves = waves_per_simd(arch, k).map_or("?".into(), |w| w.to_string());
        let loads = k
            .loads
            .map_or(String::new(), |n| format!(", {n} global loads in flight"));
        s += &format!(
            "// {arch} {}: {} VGPRs, {} AGPRs, {} SGPRs, spills {} VGPR / {} SGPR, {} bytes LDS, \
             wave{}, {waves} waves per SIMD by registers{loads}\n",
            k.name, k.vgprs, k.agprs, k.sgprs, k.vgpr_spills, k.sgpr_spills, k.lds, k.wave
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: &str = "  amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .name:           a
        .offset:         0
    .group_segment_fixed_size: 1024
    .name:           f
    .sgpr_count:     36
    .sgpr_spill_count: 0
    .vgpr_count:     15
    .vgpr_spill_count: 2
    .wavefront_size: 64
  - .agpr_count:     0
    .name:           g
    .vgpr_count:     3
  amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
";

    #[test]
    fn notes_give_each_kernel_its_resources_not_its_arguments_names() {
        let k = parse_notes(NOTES);
        assert_eq!(k.len(), 2, "{k:?}");
        assert_eq!((k[1].name.as_str(), k[1].vgprs), ("g", 3));
        assert_eq!(k[0].name, "f");
        assert_eq!((k[0].vgprs, k[0].sgprs, k[0].lds), (15, 36, 1024));
        assert_eq!((k[0].vgpr_spills, k[0].wave), (2, 64));
    }

    #[test]
    fn occupancy_follows_the_register_budget() {
        let k = |vgprs| Resources {
            vgprs,
            ..Resources::default()
        };
        assert_eq!(waves_per_simd("gfx90a", &k(15)), Some(8));
        assert_eq!(waves_per_simd("gfx90a", &k(128)), Some(4));
        assert_eq!(waves_per_simd("gfx908", &k(128)), Some(2));
        assert_eq!(waves_per_simd("gfx1030", &k(128)), None);
        let unified = Resources {
            vgprs: 512,
            agprs: 256,
            ..Resources::default()
        };
        assert_eq!(waves_per_simd("gfx90a", &unified), Some(1));
    }
}
