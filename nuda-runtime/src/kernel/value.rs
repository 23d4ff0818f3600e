//! Captured values the kernel body uses as values: copied into a local (`let c = k;`) or
//! read as a number in the type witness. Keyed by the host value's type, so rustc's
//! messages name what the user captured, not a native view. Layer 5 (see `kernel/mod.rs`).

/// How a capture read only as a number relates to its view: the view is the value itself
/// (`T`), or the value a reference refers to (`&T`, `&mut T`).
pub trait NumberHint<V> {}

impl<T> NumberHint<T> for T {}
impl<T> NumberHint<T> for &T {}
impl<T> NumberHint<T> for &mut T {}

/// For the type witness, a capture read only as a number (`host`) and its view: an integer
/// of inferred type (`for it in 0..3`) can only be the first [`NumberHint`] impl, so it takes
/// its view's type, which the kernel's arithmetic fixes, as in plain Rust.
pub fn witness_number<H: NumberHint<V>, V>(_host: &H, _view: &V) {}

/// A captured value a kernel copies into a local (`let c = k;`), keyed by the host value's
/// type: an element (a number, a `#[nustruct]` value) or a fixed-size array, by value or by
/// reference. No blanket impl: for an array or image, the projection stays unresolved, so
/// the one error names the type the user captured and nothing follows from it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be copied into a kernel local",
    label = "a local holds a number, a `#[nustruct]` value or a fixed-size array; index a captured array where it is (`a[i]`)"
)]
pub trait LetCopy {
    /// The local's type.
    type Local: Copy;
    /// The value the local holds.
    fn local(&self) -> Self::Local;
}

impl<T: LetCopy + ?Sized> LetCopy for &T {
    type Local = T::Local;
    #[inline(always)]
    fn local(&self) -> T::Local {
        (**self).local()
    }
}

impl<T: super::nustruct::Field, const N: usize> LetCopy for [T; N] {
    type Local = [T; N];
    #[inline(always)]
    fn local(&self) -> [T; N] {
        *self
    }
}

/// `let c = k;` for a captured `k`, from the host value (`host`, the capture's binding): for
/// every type with [`LetCopy`], the value the kernel's view of it holds.
#[inline(always)]
pub fn let_copy<H: LetCopy + ?Sized>(host: &H) -> H::Local {
    host.local()
}
