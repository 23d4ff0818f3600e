//! Programs: nuda's prelude plus the embedded source, built once per (device, source, index
//! type) and kept in memory; binaries also go to the disk cache so the next process skips the
//! compiler. `NUDA_DUMP=<dir>` writes each program's full text when this process first needs it.

use super::disk_cache::DiskCache;
use super::ClDevice;
use crate::backend::{IndexType, KernelSource};
use crate::error::{number_lines, Error, Result};
use crate::stats::{record, Event};
use opencl3::error_codes::CL_BUILD_PROGRAM_FAILURE;
use opencl3::kernel::Kernel;
use opencl3::program::Program;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// What nuda puts before every kernel source on a given device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Prelude {
    pub index: IndexType,
    pub fp64: bool,
    pub images: bool,
    /// A CPU device: `NU_CPU` is 1, and kernels that choose a loop shape per device kind
    /// (reductions) take the one for CPUs.
    pub cpu: bool,
}

impl Prelude {
    pub fn text(&self) -> String {
        let why = match self.index {
            IndexType::U32 => "every size fits in 32 bits",
            IndexType::U64 => "a size needs 64 bits",
        };
        let (u, i) = (self.index.cl_name(), self.index.signed_cl_name());
        let bits = if self.index == IndexType::U32 { 32 } else { 64 };
        let mut t = format!("/* nuda prelude: nu_idx is {u} ({why}) */\n");
        t += &format!("typedef {u} nu_idx;\ntypedef {i} nu_sidx;\n");
        // `usize`/`isize` array elements: 64-bit in memory whatever `nu_idx` is.
        t += "typedef ulong nu_word;\ntypedef long nu_sword;\n";
        // `#[nustruct]` declarations check their layout against Rust's with it.
        t += "#if defined(__clang__) || defined(__GNUC__)\n#define NU_OFFSETOF(T, f) __builtin_offsetof(T, f)\n#else\n#define NU_OFFSETOF(T, f) ((size_t)&(((T*)0)->f))\n#endif\n";
        t += &format!("#define NU_IDX_BITS {bits}\n#define as_nu_sidx as_{i}\n");
        t += &format!("#define NU_CPU {}\n", u8::from(self.cpu));
        t += &format!("#define convert_nu_idx_sat_rtz convert_{u}_sat_rtz\n");
        t += &format!("#define convert_nu_sidx_sat_rtz convert_{i}_sat_rtz\n");
        // Rust never fuses `a * b + c`; OpenCL C may unless told not to.
        t += "#pragma OPENCL FP_CONTRACT OFF\n";
        if self.fp64 {
            t += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
        }
        t += FAULT;
        t += PRIVATE_ARRAYS;
        t += ITEMS;
        t += ATOMICS;
        t += &super::spell::division_helpers();
        t += &super::spell::trips_helpers();
        t += &super::spell::method_helpers(self.fp64);
        for f in [
            "div",
            "rem",
            "trips",
            "last",
            "some",
            "signum",
            "pow",
            "swap_bytes",
            "saturating_mul",
            "rem_euclid",
            "clamp",
            "checked_add",
            "checked_sub",
            "checked_mul",
            "checked_div",
            "checked_rem",
            "checked_neg",
            "checked_abs",
            "saturating_abs",
            "checked_pow",
            "saturating_pow",
            "saturating_div",
            "checked_shl",
            "checked_shr",
            "checked_div_euclid",
            "checked_rem_euclid",
        ] {
            t += &format!("#define nu_{f}_nu_idx nu_{f}_{u}\n#define nu_{f}_nu_sidx nu_{f}_{i}\n");
        }
        if self.images {
            t += "__constant sampler_t nu_sampler = CLK_NORMALIZED_COORDS_FALSE | \
                  CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n";
            t += IMAGE_HELPERS;
        }
        t
    }
}

/// The first fault of a launch claims the record (see `record.rs`); later ones leave it.
const FAULT: &str = "\
void nu_fault(global uint* e, uint site, uint detail, ulong i0, ulong i1, ulong i2, ulong d0, ulong d1, ulong d2) {
    if (atomic_cmpxchg((volatile global uint*)e, 0u, site + 1u) != 0u) return;
    e[1] = detail;
    e[2] = (uint)i0; e[3] = (uint)(i0 >> 32); e[4] = (uint)i1; e[5] = (uint)(i1 >> 32);
    e[6] = (uint)i2; e[7] = (uint)(i2 >> 32); e[8] = (uint)d0; e[9] = (uint)(d0 >> 32);
    e[10] = (uint)d1; e[11] = (uint)(d1 >> 32); e[12] = (uint)d2; e[13] = (uint)(d2 >> 32);
}
";

/// Private arrays, `[T; N]` values, are one-field structs (`kernel/private_array.rs`):
/// `NU_AT(a, k, ..)` is element `k` of `a`, checked at site `s`. Out of range it records the
/// fault and reads element 0 (a write checks with `nu_pin` and is skipped). `sizeof` does not
/// evaluate its operand, so `a` is evaluated once.
const PRIVATE_ARRAYS: &str = "\
int nu_pin(ulong k, ulong n, int c, uint s, global uint* e) {
    if (!c || k < n) return 1;
    nu_fault(e, s, 0u, k, 0, 0, n, 0, 0);
    return 0;
}
ulong nu_pidx(ulong k, ulong n, int c, uint s, global uint* e) { return nu_pin(k, n, c, s, e) ? k : 0; }
#define NU_PLEN(a) (sizeof((a).v) / sizeof((a).v[0]))
#define NU_AT(a, k, c, s, e) ((a).v[nu_pidx((ulong)(k), NU_PLEN(a), c, s, e)])
";

/// The work-item builtins as Rust (and the native engine) define them: past the NDRange's
/// dimensions, ids are 0 and sizes 1. OpenCL C says the same, but PoCL answers 0 for sizes,
/// and a dimension of 2^32 would wrap to 0 in the builtins' `uint`.
const ITEMS: &str = "\
#define NU_ITEM(N, PAST) nu_idx nu_##N(nu_idx d) { return d < get_work_dim() ? (nu_idx)get_##N((uint)d) : (nu_idx)PAST; }
NU_ITEM(global_id, 0) NU_ITEM(local_id, 0) NU_ITEM(group_id, 0)
NU_ITEM(global_size, 1) NU_ITEM(local_size, 1) NU_ITEM(num_groups, 1)
";

/// Atomics as the macros emit them, `nu_atomic_<op>_<type>(p, v)` on global memory and
/// `nu_latomic_<op>_<type>` on local memory (`nulocal!`), each returning the previous value (see `nuda_runtime::Atomic`): OpenCL's own for 32-bit integers, a compare-and-swap
/// loop on the bits for `float` (OpenCL 1.2 has no float atomics but exchange), and the
/// `atom_*` extensions for 64-bit integers where the device has them (a launch that needs them
/// elsewhere is refused before the build, with a message that says so).
const ATOMICS: &str = "\
#define NU_ATOMIC_INT1(T, PRE, AS, N) \\
T N##_add_##T(AS T* p, T v) { return PRE##_add((volatile AS T*)p, v); } \\
T N##_sub_##T(AS T* p, T v) { return PRE##_sub((volatile AS T*)p, v); } \\
T N##_min_##T(AS T* p, T v) { return PRE##_min((volatile AS T*)p, v); } \\
T N##_max_##T(AS T* p, T v) { return PRE##_max((volatile AS T*)p, v); } \\
T N##_and_##T(AS T* p, T v) { return PRE##_and((volatile AS T*)p, v); } \\
T N##_or_##T(AS T* p, T v) { return PRE##_or((volatile AS T*)p, v); } \\
T N##_xor_##T(AS T* p, T v) { return PRE##_xor((volatile AS T*)p, v); } \\
T N##_xchg_##T(AS T* p, T v) { return PRE##_xchg((volatile AS T*)p, v); } \\
T N##_cmpxchg_##T(AS T* p, T e, T n) { return PRE##_cmpxchg((volatile AS T*)p, e, n); }
#define NU_ATOMIC_INT(T, PRE) NU_ATOMIC_INT1(T, PRE, global, nu_atomic) NU_ATOMIC_INT1(T, PRE, local, nu_latomic)
NU_ATOMIC_INT(int, atomic) NU_ATOMIC_INT(uint, atomic)
#if defined(cl_khr_int64_base_atomics) && defined(cl_khr_int64_extended_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
NU_ATOMIC_INT(long, atom) NU_ATOMIC_INT(ulong, atom)
#endif
#define NU_ATOMIC_FLOAT_BODY(AS, EXPR) { \\
    volatile AS uint* q = (volatile AS uint*)p; \\
    uint seen = *q, prev; \\
    do { prev = seen; float o = as_float(prev); seen = atomic_cmpxchg(q, prev, as_uint(EXPR)); } \\
    while (seen != prev); \\
    return as_float(prev); \\
}
/* OP is pasted, never passed on: OpenCL headers may define `min` and `max` as macros. */
#define NU_ATOMIC_FLOAT(OP, EXPR) \\
float nu_atomic_##OP##_float(global float* p, float v) NU_ATOMIC_FLOAT_BODY(global, EXPR) \\
float nu_latomic_##OP##_float(local float* p, float v) NU_ATOMIC_FLOAT_BODY(local, EXPR)
NU_ATOMIC_FLOAT(add, o + v) NU_ATOMIC_FLOAT(sub, o - v) NU_ATOMIC_FLOAT(min, fmin(o, v))
NU_ATOMIC_FLOAT(max, fmax(o, v))
#define NU_ATOMIC_FLOAT_X(AS, N) \\
float N##_xchg_float(AS float* p, float v) { return atomic_xchg((volatile AS float*)p, v); } \\
float N##_cmpxchg_float(AS float* p, float e, float n) { \\
    return as_float(atomic_cmpxchg((volatile AS uint*)p, as_uint(e), as_uint(n))); \\
}
NU_ATOMIC_FLOAT_X(global, nu_atomic) NU_ATOMIC_FLOAT_X(local, nu_latomic)
";

/// Image access as the macros emit it: `nu_read1(img, x, y)` reads a one-channel image
/// (the sampler clamps, so every read is in range); `nu_write1(img, w, h, x, y, v, check,
/// site, record)` writes one, skipping and recording coordinates outside the image, whose
/// write OpenCL leaves undefined.
const IMAGE_HELPERS: &str = "\
#define nu_read1(nu_i, nu_x, nu_y) read_imagef(nu_i, nu_sampler, (int2)(nu_x, nu_y)).x
#ifndef nu_arr_float_4_declared
#define nu_arr_float_4_declared
typedef struct { float v[4]; } nu_arr_float_4;
#endif
nu_arr_float_4 nu_texel(float4 f) {
    nu_arr_float_4 t;
    t.v[0] = f.x; t.v[1] = f.y; t.v[2] = f.z; t.v[3] = f.w;
    return t;
}
#define nu_read4(nu_i, nu_x, nu_y) nu_texel(read_imagef(nu_i, nu_sampler, (int2)(nu_x, nu_y)))
int nu_inside(nu_idx w, nu_idx h, int x, int y, int c, uint s, global uint* e) {
    if (!c || (x >= 0 && y >= 0 && (nu_idx)x < w && (nu_idx)y < h)) return 1;
    nu_fault(e, s, 0u, (ulong)(long)x, (ulong)(long)y, 0, w, h, 0);
    return 0;
}
void nu_write1(write_only image2d_t i, nu_idx w, nu_idx h, int x, int y, float v, int c, uint s, global uint* e) {
    if (nu_inside(w, h, x, y, c, s, e)) write_imagef(i, (int2)(x, y), (float4)(v, 0.0f, 0.0f, 1.0f));
}
void nu_write4(write_only image2d_t i, nu_idx w, nu_idx h, int x, int y, nu_arr_float_4 v, int c, uint s, global uint* e) {
    if (nu_inside(w, h, x, y, c, s, e)) write_imagef(i, (int2)(x, y), (float4)(v.v[0], v.v[1], v.v[2], v.v[3]));
}
";

type Slot = Arc<OnceLock<Result<Arc<Built>>>>;

/// Built programs of one device, keyed by the source's address and the index type: sources
/// are `'static` text embedded in the binary, so the address identifies them without hashing.
#[derive(Default)]
pub(crate) struct ProgramCache {
    slots: Mutex<HashMap<(usize, usize, IndexType), Slot>>,
}

/// A built program and a pool of kernel objects (`clSetKernelArg` is not thread-safe on one
/// kernel object, so each launch takes its own from the pool).
pub(crate) struct Built {
    program: Program,
    pool: Mutex<HashMap<String, Vec<Kernel>>>,
}

impl Built {
    /// Runs `f` with a kernel object of this name to itself.
    pub fn with_kernel<R>(
        &self,
        dev: &ClDevice,
        name: &str,
        f: impl FnOnce(&Kernel) -> Result<R>,
    ) -> Result<R> {
        let pooled = self.lock().get_mut(name).and_then(Vec::pop);
        let kernel = match pooled {
            Some(k) => k,
            None => Kernel::create(&self.program, name)
                .map_err(|e| no_kernel(dev, name, e.0, &self.program))?,
        };
        let out = f(&kernel);
        self.lock()
            .entry(name.to_string())
            .or_default()
            .push(kernel);
        out
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Kernel>>> {
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn no_kernel(dev: &ClDevice, name: &str, code: i32, program: &Program) -> Error {
    let names = program.kernel_names().to_string();
    Error::Launch {
        kernel: name.into(),
        device: dev.label.clone(),
        reason: format!(
            "the program has no kernel of that name ({}); its kernels are: {names}",
            super::code_name(code)
        ),
    }
}

impl ClDevice {
    /// The built program for `src` with index type `index`, building it on first use.
    pub(crate) fn program(
        &self,
        src: &KernelSource,
        index: IndexType,
        label: &str,
    ) -> Result<Arc<Built>> {
        let ctx = self.context()?;
        let key = (src.source.as_ptr() as usize, src.source.len(), index);
        let slot = {
            let mut slots = ctx
                .programs
                .slots
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            slots.entry(key).or_default().clone()
        };
        if let Some(done) = slot.get() {
            record(Some(self.index), Event::FromMemory);
            return done.clone();
        }
        // Builds of different programs run in parallel; a second caller of this one waits.
        slot.get_or_init(|| self.build(src, index, label).map(Arc::new))
            .clone()
    }

    fn build(&self, src: &KernelSource, index: IndexType, label: &str) -> Result<Built> {
        let prelude = Prelude {
            index,
            fp64: self.info.fp64,
            images: self.info.images,
            cpu: self.info.kind == crate::backend::DeviceKind::Cpu,
        };
        let werror = crate::config::config().werror.clone()?;
        // The options are part of the text, so caches key on them too.
        let text = match werror {
            true => "/* built with -Werror */\n".to_string(),
            false => String::new(),
        } + &prelude.text()
            + src.source;
        dump(&text, label);
        let cache = crate::config::config().cache.clone()?.map(DiskCache::new);
        let key = DiskCache::key(&self.info, &text);
        if let Some(program) = cache.as_ref().and_then(|c| self.load_cached(c, &key)) {
            record(Some(self.index), Event::FromDisk);
            return Ok(Built {
                program,
                pool: Mutex::default(),
            });
        }
        let program = self.compile(&text, label, werror)?;
        record(Some(self.index), Event::Compiled);
        if let (Some(c), Ok(bins)) = (&cache, program.get_binaries()) {
            if let Some(binary) = bins.first().filter(|b| !b.is_empty()) {
                c.store(&key, binary);
            }
        }
        Ok(Built {
            program,
            pool: Mutex::default(),
        })
    }

    fn load_cached(&self, cache: &DiskCache, key: &str) -> Option<Program> {
        let binary = cache.load(key)?;
        let ctx = self.context().ok()?;
        // SAFETY: the context was created for exactly this device.
        let program =
            unsafe { Program::create_from_binary(&ctx.context, &[self.raw.id()], &[&binary]) };
        let mut program = program.ok()?;
        // A binary the driver no longer accepts is stale: the caller compiles and overwrites it.
        program.build(&[self.raw.id()], "").ok()?;
        Some(program)
    }

    fn compile(&self, text: &str, label: &str, werror: bool) -> Result<Program> {
        let ctx = self.context()?;
        let mut program = Program::create_from_source(&ctx.context, text)
            .map_err(|e| self.error(e.0, "creating a program"))?;
        let options = if werror {
            "-cl-std=CL1.2 -Werror"
        } else {
            "-cl-std=CL1.2"
        };
        match program.build(&[self.raw.id()], options) {
            Ok(()) => Ok(program),
            Err(e) if e.0 == CL_BUILD_PROGRAM_FAILURE => Err(Error::Build {
                program: label.into(),
                device: self.label.clone(),
                log: program.get_build_log(self.raw.id()).unwrap_or_default(),
                numbered_source: number_lines(text),
            }),
            Err(e) => Err(self.error(e.0, &format!("building `{label}`"))),
        }
    }
}

/// Writes the program's full text to `NUDA_DUMP` if set; a dump is a debugging aid, so a
/// failure to write it is reported on stderr rather than failing the launch.
fn dump(text: &str, label: &str) {
    let Some(dir) = crate::config::config().dump.as_ref() else {
        return;
    };
    let digest = DiskCache::key_of_text(text);
    let path = dir.join(format!("{label}-{}.cl", &digest[..12]));
    let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text));
    if let Err(e) = written {
        eprintln!("nuda: NUDA_DUMP: cannot write {}: {e}", path.display());
    }
}
