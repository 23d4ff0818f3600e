//! The builtin methods and free functions kernels may call, and how each is classified.

/// A builtin method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum MethodKind {
    // floats
    Sqrt,
    Abs,
    Min,
    Max,
    MulAdd,
    Exp,
    Ln,
    Log2,
    Sin,
    Cos,
    Tan,
    Powi,
    Powf,
    Floor,
    Ceil,
    Round,
    Recip,
    // integers
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    RotateLeft,
    RotateRight,
    CountOnes,
    LeadingZeros,
    // arrays and images
    Dims,
    Len,
    Read,
    Write,
}

const TABLE: &[(&str, MethodKind)] = &[
    ("sqrt", MethodKind::Sqrt),
    ("abs", MethodKind::Abs),
    ("min", MethodKind::Min),
    ("max", MethodKind::Max),
    ("mul_add", MethodKind::MulAdd),
    ("exp", MethodKind::Exp),
    ("ln", MethodKind::Ln),
    ("log2", MethodKind::Log2),
    ("sin", MethodKind::Sin),
    ("cos", MethodKind::Cos),
    ("tan", MethodKind::Tan),
    ("powi", MethodKind::Powi),
    ("powf", MethodKind::Powf),
    ("floor", MethodKind::Floor),
    ("ceil", MethodKind::Ceil),
    ("round", MethodKind::Round),
    ("recip", MethodKind::Recip),
    ("wrapping_add", MethodKind::WrappingAdd),
    ("wrapping_sub", MethodKind::WrappingSub),
    ("wrapping_mul", MethodKind::WrappingMul),
    ("rotate_left", MethodKind::RotateLeft),
    ("rotate_right", MethodKind::RotateRight),
    ("count_ones", MethodKind::CountOnes),
    ("leading_zeros", MethodKind::LeadingZeros),
    ("dims", MethodKind::Dims),
    ("len", MethodKind::Len),
    ("read", MethodKind::Read),
    ("write", MethodKind::Write),
];

impl MethodKind {
    /// The builtin method of this name.
    pub fn of(name: &str) -> Option<MethodKind> {
        TABLE.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    }

    /// The names, for error messages.
    pub fn list() -> String {
        TABLE.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
    }

    /// Number of arguments, besides the receiver.
    pub fn arity(self) -> usize {
        use MethodKind::*;
        match self {
            Min | Max | Powi | Powf | WrappingAdd | WrappingSub | WrappingMul | RotateLeft
            | RotateRight => 1,
            MulAdd | Read => 2,
            Write => 3,
            _ => 0,
        }
    }

    /// Whether the method acts on an array or image (a captured variable) rather than a value.
    pub fn on_memory(self) -> bool {
        matches!(
            self,
            MethodKind::Dims | MethodKind::Len | MethodKind::Read | MethodKind::Write
        )
    }
}

/// Whether the OpenCL C for this method depends on the receiver's type.
pub fn method_needs_receiver_type(k: MethodKind) -> bool {
    use MethodKind::*;
    matches!(
        k,
        Abs | Min
            | Max
            | WrappingAdd
            | WrappingSub
            | WrappingMul
            | RotateLeft
            | RotateRight
            | CountOnes
            | LeadingZeros
    )
}

/// Builtin free functions that ask about the work-item; they exist in `#[nukernel]` only.
pub const WORK_ITEM_FNS: &[&str] = &[
    "global_id",
    "local_id",
    "group_id",
    "global_size",
    "local_size",
    "num_groups",
];

/// Whether `name` is a builtin free function.
pub fn is_builtin_fn(name: &str) -> bool {
    WORK_ITEM_FNS.contains(&name) || name == "barrier" || name == "rsqrt"
}
