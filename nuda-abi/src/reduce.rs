//! Reduction operators: the compiler recognises them in a loop body and names them in the
//! generated code; the runtime's `Reduce` impls give each its identity and combine step.

/// A reduction's operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedOp {
    /// `+=` and `-=`; integers wrap.
    Add,
    /// `*=`; integers wrap.
    Mul,
    /// `&=`.
    And,
    /// `|=`.
    Or,
    /// `^=`.
    Xor,
    /// `s = s.min(e)` (floats: `f32::min`, which ignores a NaN operand, as OpenCL's `fmin`).
    Min,
    /// `s = s.max(e)`.
    Max,
}

impl RedOp {
    /// Every operator.
    pub const ALL: [RedOp; 7] = [
        RedOp::Add,
        RedOp::Mul,
        RedOp::And,
        RedOp::Or,
        RedOp::Xor,
        RedOp::Min,
        RedOp::Max,
    ];

    /// The variant's name, as generated code spells it.
    pub fn name(self) -> &'static str {
        match self {
            RedOp::Add => "Add",
            RedOp::Mul => "Mul",
            RedOp::And => "And",
            RedOp::Or => "Or",
            RedOp::Xor => "Xor",
            RedOp::Min => "Min",
            RedOp::Max => "Max",
        }
    }

    /// How the operator reads in messages.
    pub fn written(self) -> &'static str {
        match self {
            RedOp::Add => "`+=`/`-=`",
            RedOp::Mul => "`*=`",
            RedOp::And => "`&=`",
            RedOp::Or => "`|=`",
            RedOp::Xor => "`^=`",
            RedOp::Min => "`.min(..)`",
            RedOp::Max => "`.max(..)`",
        }
    }

    /// The kernel-template operation combining two partials: an `O` placeholder's operation,
    /// or (`true`) an `F` placeholder's function (`min`/`max`, `fmin`/`fmax` for floats).
    pub fn template_op(self) -> (&'static str, bool) {
        match self {
            RedOp::Add => ("add", false),
            RedOp::Mul => ("mul", false),
            RedOp::And => ("and", false),
            RedOp::Or => ("or", false),
            RedOp::Xor => ("xor", false),
            RedOp::Min => ("min", true),
            RedOp::Max => ("max", true),
        }
    }
}
