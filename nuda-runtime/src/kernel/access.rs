//! Element accesses as the native code calls them: an index converted to the array's index
//! type, and atomic updates as free functions bounded on the element type. Both put rustc's
//! messages about a wrong index or a non-atomic element at the user's span, naming the
//! user's types, not a native view's methods. Layer 5 (see `kernel/mod.rs`).

use crate::atomic::{Atomic, AtomicBits, AtomicOp};
use crate::backend::native::{ArrayView, ArrayViewMut, DisjointViewMut};
use crate::element::Pod;
use crate::fault::{Checker, Site};
use crate::shape::Shape;

/// An index of a captured array: one `usize` per dimension.
#[diagnostic::on_unimplemented(
    message = "this array is indexed by `{S}`, not by `{Self}`",
    label = "one `usize` per dimension: `a[i]`, `a[(i, j)]` or `a[(i, j, k)]`",
    note = "cast an index of another integer type with `as usize`"
)]
pub trait IndexOf<S> {
    /// The index as `S`.
    fn index(self) -> S;
}

macro_rules! index_of {
    ($($t:ty),*) => {$(
        impl IndexOf<$t> for $t {
            #[inline(always)]
            fn index(self) -> $t {
                self
            }
        }
    )*};
}
index_of!(usize, (usize, usize), (usize, usize, usize));

/// What a kernel indexes: a captured array's view, or a captured `[T; N]`.
pub trait Indexed {
    /// Its index type.
    type Index;
}

impl<T, S> Indexed for ArrayView<'_, T, S> {
    type Index = S;
}

impl<T: Pod, S> Indexed for ArrayViewMut<'_, T, S> {
    type Index = S;
}

impl<T: Pod, S> Indexed for DisjointViewMut<'_, T, S> {
    type Index = S;
}

impl<T: Pod, S> Indexed for super::plain::SharedViewMut<'_, T, S> {
    type Index = S;
}

impl<T, const N: usize> Indexed for [T; N] {
    type Index = usize;
}

/// `index` as the index type of the array `_a` it indexes.
#[inline(always)]
pub fn index_of<A: Indexed, I: IndexOf<A::Index>>(_a: &A, index: I) -> A::Index {
    index.index()
}

/// An array kernels update atomically: a writable view.
pub trait AtomicArray: Indexed {
    /// Its element type.
    type Elem;
    /// Applies `op` with `v` to the element at `index`; the previous value.
    fn rmw<const TR: bool>(
        &self,
        index: Self::Index,
        op: AtomicOp,
        v: Self::Elem,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Self::Elem
    where
        Self::Elem: Atomic;

    /// Stores `new` at `index` if the element is `expected` (bitwise); the previous value.
    fn cmpxchg<const TR: bool>(
        &self,
        index: Self::Index,
        expected: Self::Elem,
        new: Self::Elem,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> Self::Elem
    where
        Self::Elem: Atomic;
}

impl<T: Pod, S: Shape> AtomicArray for ArrayViewMut<'_, T, S> {
    type Elem = T;
    #[inline(always)]
    #[track_caller]
    fn rmw<const TR: bool>(
        &self,
        index: S,
        op: AtomicOp,
        v: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> T
    where
        T: Atomic,
    {
        // Zero out of range, with a fault, as every checked access. A group's own local
        // array needs no locked instruction (`ArrayViewMut::from_group_cells`).
        self.atomic(index, f, site, |c| match self.one_thread() {
            true => {
                let old = T::load(c);
                T::store(c, T::combine(op, old, v));
                old
            }
            false => T::rmw(c, op, v),
        })
    }

    #[inline(always)]
    #[track_caller]
    fn cmpxchg<const TR: bool>(
        &self,
        index: S,
        expected: T,
        new: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> T
    where
        T: Atomic,
    {
        self.atomic_cmpxchg(index, expected, new, f, site)
    }
}

/// A group's own `nulocal!` array (`LocalGroup::view_plain`): one thread touches it, so an
/// atomic is a plain load and store.
impl<T: Pod, S: Shape> AtomicArray for DisjointViewMut<'_, T, S> {
    type Elem = T;
    #[inline(always)]
    #[track_caller]
    fn rmw<const TR: bool>(
        &self,
        index: S,
        op: AtomicOp,
        v: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> T
    where
        T: Atomic,
    {
        self.update(index, f, site, |old| T::combine(op, old, v))
    }

    #[inline(always)]
    #[track_caller]
    fn cmpxchg<const TR: bool>(
        &self,
        index: S,
        expected: T,
        new: T,
        f: Checker<'_, TR>,
        site: &'static Site,
    ) -> T
    where
        T: Atomic,
    {
        let step = |old| {
            if T::same_bits(old, expected) {
                new
            } else {
                old
            }
        };
        self.update(index, f, site, step)
    }
}

macro_rules! atomic_fns {
    ($($name:ident => $op:ident, $bound:ident;)*) => {$(
        #[doc = concat!("`a.", stringify!($name), "(index, v)` in kernels (see `AtomicOp::", stringify!($op), "`): the previous value.")]
        #[inline(always)]
        #[track_caller]
        pub fn $name<A: AtomicArray, const TR: bool>(
            a: &A,
            index: A::Index,
            v: A::Elem,
            f: Checker<'_, TR>,
            site: &'static Site,
        ) -> A::Elem
        where
            A::Elem: $bound,
        {
            a.rmw(index, AtomicOp::$op, v, f, site)
        }
    )*};
}

crate::atomic::for_each_atomic!(atomic_fns);

/// `a.atomic_cmpxchg(index, expected, new)` in kernels: the previous value.
#[inline(always)]
#[track_caller]
pub fn atomic_cmpxchg<A: AtomicArray, const TR: bool>(
    a: &A,
    index: A::Index,
    expected: A::Elem,
    new: A::Elem,
    f: Checker<'_, TR>,
    site: &'static Site,
) -> A::Elem
where
    A::Elem: Atomic,
{
    a.cmpxchg(index, expected, new, f, site)
}
