//! The operators of the launch-time proof's programs: the compiler translates a kernel's index
//! arithmetic into a small register program over these; the runtime runs it on intervals when
//! the launch's sizes are known, to drop the checks it proves.

/// An arithmetic operation, with Rust's semantics in its type (wrapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bin {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// A comparison or logical operator: a `bool`.
    Bool,
}

impl Bin {
    /// The variant's name, as generated code spells it.
    pub fn name(self) -> &'static str {
        match self {
            Bin::Add => "Add",
            Bin::Sub => "Sub",
            Bin::Mul => "Mul",
            Bin::Div => "Div",
            Bin::Rem => "Rem",
            Bin::And => "And",
            Bin::Or => "Or",
            Bin::Xor => "Xor",
            Bin::Shl => "Shl",
            Bin::Shr => "Shr",
            Bin::Bool => "Bool",
        }
    }
}

/// A comparison a branch condition establishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
}

impl Cmp {
    /// The variant's name, as generated code spells it.
    pub fn name(self) -> &'static str {
        match self {
            Cmp::Lt => "Lt",
            Cmp::Le => "Le",
            Cmp::Gt => "Gt",
            Cmp::Ge => "Ge",
            Cmp::Eq => "Eq",
        }
    }

    /// The comparison seen from the other side: `a < b` is `b > a`.
    pub fn flip(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            Cmp::Eq => Cmp::Eq,
        }
    }
}
