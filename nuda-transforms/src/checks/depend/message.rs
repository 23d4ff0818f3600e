//! The dependence test's errors (checks layer, `depend`): each names both accesses, the
//! line of the other one, and what to write instead.

use super::walk::{Access, Kind};
use crate::base::ir::builtins::MethodKind;
use crate::base::ir::BinOp;

/// What `#[independent]` says, ending every message that offers it.
const INDEPENDENT: &str =
    "or, if no two iterations touch the same element, say so with `nuwork!(#[independent] ..)`";

/// The error at access `at`, which another iteration's access `other` may meet; `other`
/// writes (or updates atomically), `at` is as plain or plainer.
pub fn of(other: &Access, at: &Access) -> String {
    if other.is_push() {
        return push(other, at);
    }
    let m = match (other.kind, at.kind) {
        (Kind::Atomic(m), _) => atomic(m, other, at),
        _ if other.text == at.text && (at.kind == Kind::Read || at.update.is_some()) => {
            update(other, at)
        }
        (_, Kind::Read) => read(other, at),
        _ => write(other, at),
    };
    match [other, at].iter().any(|a| casts_arithmetic(&a.text)) {
        true => format!("{m}; arithmetic inside `( .. ) as usize` runs in the operand's type, which may wrap (`(i * 2) as usize` of a `u8` meets itself at `i` and `i + 128`), so nuda cannot follow it: cast first, as in `a[i as usize * 2]`"),
        false => m,
    }
}

/// Whether an index casts a parenthesised expression (`(i + 1) as usize`), whose arithmetic
/// the dependence test treats as unknown (`affine.rs`).
fn casts_arithmetic(index: &str) -> bool {
    index.contains(") as ")
}

/// The line of `a`, for naming it in a message.
fn line(a: &Access) -> usize {
    a.span.start().line
}

/// A plain access that a push's store may reach.
fn push(w: &Access, r: &Access) -> String {
    let (a, ri, line) = (&r.array, &r.text, line(w));
    match r.kind {
        Kind::Read => format!(
            "nuwork!: this read of `{a}[{ri}]` may see an element that `{a}.push(..)` (line {line}) appends in this launch, where the iterations' order decides which element lands where; read the vector after the launch, or in another nuwork!"
        ),
        _ => format!(
            "nuwork!: this write of `{a}[{ri}]` may store to an element that `{a}.push(..)` (line {line}) appends in this launch, where the iterations' order decides which element lands where; write the vector after the launch, or in another nuwork!"
        ),
    }
}

/// A read that another iteration's plain write may reach.
fn read(w: &Access, r: &Access) -> String {
    format!(
        "nuwork!: iterations run in parallel, and this read of `{a}[{ri}]` may see an element that another iteration writes at `{a}[{wi}]` (line {line}), so the result would depend on their order; write the results into another array (double buffering), {INDEPENDENT}",
        a = r.array,
        ri = r.text,
        wi = w.text,
        line = line(w),
    )
}

/// Two writes that may store to one element.
fn write(first: &Access, w: &Access) -> String {
    format!(
        "nuwork!: iterations run in parallel, and this write of `{a}[{wi}]` may store to an element that another iteration writes at `{a}[{fi}]` (line {line}), so which value is left would depend on their order; give each iteration elements of its own (index by the mapped loop variables), combine the values with an atomic (`{a}.atomic_max(..)`) or a reduction variable, {INDEPENDENT}",
        a = w.array,
        wi = w.text,
        fi = first.text,
        line = line(first),
    )
}

/// An element read and written through one index that two iterations may share: a
/// histogram or a sum, whose updates would be lost.
fn update(w: &Access, at: &Access) -> String {
    let (a, i) = (&at.array, &at.text);
    let op = w.update.or(at.update);
    let how = match op.and_then(atomic_for) {
        Some(m) => format!("`{a}.{m}({i}, ..)`"),
        None => format!("an atomic such as `{a}.atomic_add({i}, ..)`"),
    };
    let lines = match (line(at), line(w)) {
        (r, w) if r == w => format!("read and written at line {r}"),
        (r, w) => format!("read at line {r} and written at line {w}"),
    };
    format!(
        "nuwork!: iterations run in parallel, and more than one may update the same element `{a}[{i}]` ({lines}), so some updates would be lost; update it with {how} (a histogram), accumulate into a reduction variable (a sum), map only the loops that pick the element, {INDEPENDENT}",
    )
}

/// The atomic that does `a[i] op= v` in one step, if there is one.
fn atomic_for(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "atomic_add",
        BinOp::Sub => "atomic_sub",
        BinOp::BitAnd => "atomic_and",
        BinOp::BitOr => "atomic_or",
        BinOp::BitXor => "atomic_xor",
        _ => return None,
    })
}

/// A plain read or write that another iteration's atomic may reach.
fn atomic(m: MethodKind, u: &Access, at: &Access) -> String {
    let what = match at.kind {
        Kind::Read => "read",
        _ => "write",
    };
    format!(
        "nuwork!: iterations run in parallel, and this {what} of `{a}[{i}]` may touch an element that another iteration updates with `{a}.{m}({ui}, ..)` (line {line}), so the result would depend on their order; use atomics for every access to `{a}` in this nuwork!, read it after the launch (in another nuwork!), {INDEPENDENT}",
        a = at.array,
        i = at.text,
        m = m.spec().name,
        ui = u.text,
        line = line(u),
    )
}
