//! The loop-nest IR: what the macros parse Rust into, what capture analysis and the annotations
//! work on, and what the emitters turn into OpenCL C, native Rust and host Rust.
//!
//! A [`Nest`] is a perfectly nested set of loops (`nfor!`) with a body. Bodies are blocks of a
//! small statement and expression language: the Rust subset kernels may use. Expressions whose
//! OpenCL C depends on a type carry a [`Slot`]: rustc fills it, through a never-called witness
//! closure, and the runtime substitutes the type when it first launches the kernel.
//!
//! Stage 1 of the pipeline in `lib.rs` (the base).

pub mod builtins;
pub mod display;
pub mod staging;
pub mod visit;

use proc_macro2::Span;
use syn::Ident;

/// A type slot: the index of an expression whose Rust type the kernel text needs.
pub type Slot = usize;

/// A perfectly nested loop nest, outermost loop first, with its body and annotations.
#[derive(Debug, Clone)]
pub struct Nest {
    /// The loops, outermost first.
    pub loops: Vec<Loop>,
    /// The body, run once per iteration of the innermost loop.
    pub body: Block,
    /// Annotations still to apply, left to right (`annot!`).
    pub annots: Vec<Annot>,
    /// Made by `vector(w)`: the nest's one loop counts the lanes of a vector, which OpenCL C
    /// runs as one `floatN` iteration (`emit::cl::vector`); every other pass sees a loop.
    pub lanes: Option<Lanes>,
    /// Made by `stage(..)`: the nest's loops are a work-group's work-items, which copy tiles
    /// of the named arrays into local memory (`emit::cl::stage`); every other pass sees loops.
    pub stage: Option<Box<Stage>>,
    /// Where the nest was written.
    pub span: Span,
}

/// What `stage(a, b, k: 16)` stages, on the element loops of a `tilem`.
#[derive(Debug, Clone)]
pub struct Stage {
    /// The arrays whose reads in the loop `k` come from local memory.
    pub arrays: Vec<Ident>,
    /// The loop whose iterations are tiled (`k: 16`); without one, the tile the whole body
    /// reads (a stencil's tile plus halo) is copied once.
    pub k: Option<Ident>,
    /// Its tile size.
    pub depth: usize,
    /// Copies of each box in local memory (`buffers: 2`): with two, the group copies the next
    /// slice into one while the last is still being read from the other, with one barrier a
    /// slice instead of two.
    pub buffers: usize,
    /// The element loops' trip counts: the work-group's size.
    pub tiles: Vec<usize>,
    /// The annotation, where its errors point.
    pub span: Span,
    /// The plan, set once the whole chain has applied (a `dmine` or `vector` after `stage`
    /// changes what a work-item covers): per dimension, the element loop's step and the
    /// work-items along it.
    pub group: Vec<(usize, usize)>,
    /// The plan: per staged array, the box its reads in the staged loop cover.
    pub boxes: Vec<StageBox>,
}

/// The box of one staged array in local memory: per index position of its reads, what the
/// position follows, the lowest constant offset of the reads, the box's extent, and (for a
/// position that follows no loop) the index, the same for every read.
#[derive(Debug, Clone)]
pub struct StageBox {
    /// The staged array.
    pub array: Ident,
    /// Per index position: what it follows and the reads' lowest constant offset.
    pub follows: Vec<staging::Position>,
    /// Per index position: the box's extent.
    pub extents: Vec<usize>,
    /// Per index position that follows no loop: its index.
    pub uniform: Vec<Option<Expr>>,
}

/// The lanes of a `vector(w)` nest.
#[derive(Debug, Clone)]
pub struct Lanes {
    /// The vector width: 2, 4, 8 or 16.
    pub width: usize,
    /// The `vector(w)` annotation, where its errors point.
    pub span: Span,
    /// The lane body's bindings given names of their own (`annot/bindings.rs`), as (new
    /// name, name written): messages name what the user wrote.
    pub renamed: Vec<(String, String)>,
}

/// One annotation of an `annot!` chain.
#[derive(Debug, Clone)]
pub struct Annot {
    /// Which transformation.
    pub kind: AnnotKind,
    /// Its parameters, as written.
    pub args: Vec<Expr>,
    /// Where it was written.
    pub span: Span,
}

/// The annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotKind {
    /// `tile(s1..sk)`: tile loops outside, element loops inside, partial tiles bounded by `min`.
    Tile,
    /// `tilem(s1..sk)`: tile with partial tiles split off as remainder nests.
    Tilem,
    /// `unroll(u1..uk)`: copies of the body one after another.
    Unroll,
    /// `dmine(u1..uk)`: unroll-and-jam.
    Dmine,
    /// `peel(a, b)`: the first `a` and last `b` iterations split off.
    Peel,
    /// `inline`: full unroll of a constant trip count.
    Inline,
    /// `permut(p1..pk)`: reorder the loops.
    Permut,
    /// `vector(w)`: `w` iterations of the innermost loop as one vector iteration.
    Vector,
    /// `stage(a, b, k: 16)`: tiles of arrays in local memory, after `tilem`.
    Stage,
}

/// One loop of a nest: `var` over `range`.
#[derive(Debug, Clone)]
pub struct Loop {
    /// The loop variable.
    pub var: Ident,
    /// The values it takes.
    pub range: Range,
    /// Slot of the loop variable's type.
    pub slot: Slot,
}

/// The values a loop variable takes: from `start`, stepping by `step`, up to `end` (down to
/// it for a negative step, as NUDA's `a <> b :/ -1`); with `rev`, the same values last first.
#[derive(Debug, Clone)]
pub struct Range {
    /// First value.
    pub start: Expr,
    /// Bound: exclusive, or inclusive when `inclusive`.
    pub end: Expr,
    /// Whether `end` itself is included (`a..=b`, `a <> b`).
    pub inclusive: bool,
    /// Step; 1 when absent. Negative counts down from `start`; zero is a fault.
    pub step: Option<Expr>,
    /// `.rev()`: the values of the range, last first.
    pub rev: bool,
    /// Where the range was written.
    pub span: Span,
}

/// A block: statements, then an optional tail expression giving its value.
#[derive(Debug, Clone, Default)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// The value of the block, if it has one.
    pub tail: Option<Box<Expr>>,
}

/// A statement. (Variant fields are named for what they hold.)
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum Stmt {
    /// `let pat (: ty)? (= init)?;`
    Let(Let),
    /// `place = value;` or `place op= value;` (a compound assignment has a slot: its type)
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
        slot: Option<Slot>,
        span: Span,
    },
    /// An expression in statement position (calls, `if`, blocks).
    Expr(Expr),
    /// `while cond { body }`
    While { cond: Expr, body: Block, span: Span },
    /// `loop { body }`
    Loop { body: Block, span: Span },
    /// `for var in range { body }`
    For {
        var: Ident,
        slot: Slot,
        range: Box<Range>,
        body: Block,
        span: Span,
    },
    /// A nested `nfor!`, possibly under an `annot!`.
    Nest(Box<Nest>),
    /// `break;`
    Break(Span),
    /// `continue;`
    Continue(Span),
    /// `return value?;`
    Return(Option<Expr>, Span),
}

/// A `let` statement.
#[derive(Debug, Clone)]
pub struct Let {
    /// What it binds.
    pub pat: Pat,
    /// The written type, if any.
    pub ty: Option<Ty>,
    /// A written user type (a `#[nustruct]`), which only native and witness code spell:
    /// OpenCL C takes the name from the slot.
    pub named: Option<Box<syn::Type>>,
    /// The initial value, if any.
    pub init: Option<Expr>,
    /// Slots of the bound variables' types, one per name in `pat`.
    pub slots: Vec<Slot>,
    /// Where it was written.
    pub span: Span,
}

/// A pattern in a `let`.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum Pat {
    /// `x` or `mut x`.
    Ident { name: Ident, mutable: bool },
    /// `(x, mut y, _)`: only from `a.dims()` or a tuple of values.
    Tuple(Vec<Option<(Ident, bool)>>),
}

/// Where an assignment stores.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum Place {
    /// A local variable.
    Var(Ident),
    /// An element of an array: `a[i]`, `a[(i, j)]`.
    Index { base: Ident, index: Vec<Expr> },
    /// A part of a local value: a struct's field `b.x`, a private array's element `t[k]`, or
    /// a path of those, `b.pos.x`, `m[i][j]`, `b.w[k]` (a write to the local `base`).
    Member { base: Ident, path: Vec<Step> },
}

/// One step of a [`Place::Member`] path.
#[derive(Debug, Clone)]
pub enum Step {
    /// `.name`: a field of a `#[nustruct]`.
    Field(Ident),
    /// `[k]`: an element of a private array, checked.
    Elem(Expr),
}

/// Whether a place's path has a private array element.
pub fn has_elem(path: &[Step]) -> bool {
    path.iter().any(|s| matches!(s, Step::Elem(_)))
}

/// A type written in the source: a scalar, or a type rustc names (a struct, an array).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A Rust scalar type.
    Scalar(Scalar),
    /// A user type (a `#[nustruct]`) or an array (`[f32; 4]`) of a `#[nucode]` parameter or
    /// return: its OpenCL C name comes from this slot, which the witness fills.
    Slot(Slot),
}

/// The Rust scalar types kernels use: the one table shared with the runtime.
pub use nuda_abi::Scalar;

/// An expression with its source span and, where the kernel text needs its type, a slot.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
    /// Type slot, where the emitted C depends on the type.
    pub slot: Option<Slot>,
}

/// Expression kinds. (Variant fields are named for what they hold.)
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum ExprKind {
    /// A literal; `suffix` is the written type suffix, if any.
    Lit(Lit),
    /// A variable.
    Var(Ident),
    /// `-e` or `!e`.
    Unary { op: UnOp, expr: Box<Expr> },
    /// `lhs op rhs`.
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `e as ty`.
    Cast { expr: Box<Expr>, ty: Ty },
    /// `a[i]`, `a[(i, j)]`: an element of a captured array.
    Index { base: Ident, index: Vec<Expr> },
    /// `f(args)`: a builtin or a `#[nucode]` function.
    Call { func: syn::Path, args: Vec<Expr> },
    /// `recv.method(args)`: a builtin method; or `T::method(recv, args)` when `path` names
    /// the scalar type `T`, as in `f32::sqrt(x)`.
    Method {
        recv: Box<Expr>,
        method: Ident,
        args: Vec<Expr>,
        path: Option<Scalar>,
    },
    /// `T::NAME`: an associated constant of a scalar type, such as `i32::MAX` or `f32::EPSILON`.
    Assoc { ty: Scalar, name: Ident },
    /// `if cond { then } else { els }`; `els` is a block or another `if`.
    If {
        cond: Box<Expr>,
        then: Block,
        els: Option<Box<Expr>>,
    },
    /// `{ stmts; tail }`.
    Block(Block),
    /// `(e)`.
    Paren(Box<Expr>),
    /// `(a, b)`: only as an index or a value to destructure.
    Tuple(Vec<Expr>),
    /// `[a, b, c]`: a private array; the slot is its type.
    Array(Vec<Expr>),
    /// `[v; N]`: a private array of `N` copies of `v`, `N` a constant rustc evaluates (the
    /// OpenCL C takes the length from the slot's type).
    Repeat {
        value: Box<Expr>,
        len: Box<syn::Expr>,
    },
    /// `e.0`: a component of a tuple (`a.dims().1`) or of an RGBA texel.
    Field { base: Box<Expr>, index: u32 },
    /// `e.name`: a field of a `#[nustruct]` value.
    Member { base: Box<Expr>, name: Ident },
    /// `Path { f: e, .., ..rest }`: a `#[nustruct]` value; the slot is its type.
    Struct {
        path: syn::Path,
        fields: Vec<(Ident, Expr)>,
        rest: Option<Box<Expr>>,
    },
    /// `v[k]`: an element of a private array value (a local, a field, a texel), checked.
    At { base: Box<Expr>, index: Box<Expr> },
    /// The number of values of a range, as a `usize` (made by the annotations); the slot is
    /// the range's type.
    Trips(Box<Range>, Slot),
    /// `start + count * step` in `start`'s type, `count` a `usize` known to keep the value in
    /// range (made by the annotations); the slot is the value's type.
    Offset {
        start: Box<Expr>,
        count: Box<Expr>,
        step: Option<Box<Expr>>,
    },
}

/// A literal.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum Lit {
    /// An integer; `suffix` is the written type, if any.
    Int {
        text: String,
        suffix: Option<Scalar>,
    },
    /// A float; `suffix` is the written type, if any.
    Float {
        text: String,
        suffix: Option<Scalar>,
    },
    /// `true` or `false`.
    Bool(bool),
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `!e`: logical on bool, bitwise on integers.
    Not,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    /// The operator's text, the same in Rust and OpenCL C.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
        }
    }

    /// Whether the result is a number of the operands' type (not a bool).
    pub fn is_arithmetic(self) -> bool {
        use BinOp::*;
        matches!(
            self,
            Add | Sub | Mul | Div | Rem | BitAnd | BitOr | BitXor | Shl | Shr
        )
    }
}

impl Ty {
    /// The OpenCL C type name; a slot's is only known at launch (emitters write its
    /// placeholder instead), so this is for scalars.
    pub fn cl_name(self) -> &'static str {
        match self {
            Ty::Scalar(s) => s.c_name(),
            Ty::Slot(_) => "void",
        }
    }
}

impl Expr {
    /// An expression without a slot.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            span,
            slot: None,
        }
    }
}

impl AnnotKind {
    /// Every annotation by name, for parsing and suggestions.
    pub const ALL: &'static [(&'static str, AnnotKind)] = &[
        ("tile", AnnotKind::Tile),
        ("tilem", AnnotKind::Tilem),
        ("unroll", AnnotKind::Unroll),
        ("dmine", AnnotKind::Dmine),
        ("peel", AnnotKind::Peel),
        ("inline", AnnotKind::Inline),
        ("permut", AnnotKind::Permut),
        ("vector", AnnotKind::Vector),
        ("stage", AnnotKind::Stage),
    ];

    /// The annotation's name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("?", |(n, _)| n)
    }
}
