//! Stage 1 of the pipeline in `lib.rs`: the base every later stage reads. `ctxt` gathers the
//! errors of one expansion, `ir` is the loop-nest IR with the kernel language's tables
//! (scalar types, builtins), and `paths` spells the runtime paths generated code names.

pub mod ctxt;
pub mod ir;
pub mod paths;
