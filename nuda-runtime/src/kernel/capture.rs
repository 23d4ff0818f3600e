//! How values captured by a kernel reach it: their OpenCL C parameter declaration, their
//! native-engine view, and the launch arguments they push. The macros call these traits on
//! every captured value, so the types come from rustc, never from the macro guessing.

use super::desc::{CaptureDesc, Input, Space};
use super::plain::SharedViewMut;
use super::{Element, Value};
use crate::array::{NuArray, NuShared, NuVec, Shape};
use crate::backend::native::{ArrayView, ArrayViewMut, ImageView, ImageViewMut};
use crate::element::Texel;
use crate::error::Result;
use crate::image::NuImage2;
use crate::launch::Launch;

/// A value type kernels compute with, and its OpenCL C name.
///
/// # Safety
///
/// Generated code trusts what an implementation says: the OpenCL C it names, the parameters
/// it describes and pushes, what the launch-time proof learns from it (a wrong size there
/// drops a bounds check) and the view the native engine reads. Only nuda and its macros
/// (`#[nustruct]`, `#[nucode]`) implement it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a value in a nuda kernel",
    label = "kernel values are f32, f64, i8..i64, u8..u64, usize, isize, bool, `#[nustruct]` structs, or fixed-size arrays of those",
    note = "a struct becomes a kernel value with `#[nuda::nustruct]` above its `#[derive(Clone, Copy, Debug, Default, PartialEq)]`",
    note = "in a generic function, bound the type parameter by `nuda::Element` (plus the operator traits the kernel uses, such as `std::ops::Mul<Output = T>`)"
)]
pub unsafe trait ClType: Copy {
    /// The OpenCL C type name.
    fn cl() -> &'static str;
    /// Registers the OpenCL C declaration the name needs, if any (a `#[nustruct]`'s
    /// `typedef struct`), so that programs using the name declare it first.
    fn declare() {}
}

macro_rules! cl_types {
    ($( ($t:ident, $v:ident, $cv:literal, $cs:literal, $cu:literal, $bits:literal, $kind:ident) )*) => {$(
        // SAFETY: each scalar's C name in kernel code is its type's, from the one scalar
        // table, of the same size as in Rust (`nu_idx` is as wide as the launch's `usize`).
        unsafe impl ClType for $t {
            fn cl() -> &'static str {
                $cv
            }
        }
    )*};
}
nuda_abi::for_each_scalar!(cl_types);

// An `if` or block in statement position has a slot too; its type is `()`, never used as one.
// SAFETY: `()` is never a value in C; `void` only types statements.
unsafe impl ClType for () {
    fn cl() -> &'static str {
        "void"
    }
}

/// A witness slot: names the type of a kernel expression, which rustc infers from the
/// witness (which never runs). Zero-sized: an `Option<T>` took a private array's whole size
/// on the host's stack, and overflowed it for a large one.
pub struct TypeSlot<T>(std::marker::PhantomData<fn() -> T>);

impl<T> TypeSlot<T> {
    /// A slot whose type a later assignment fixes.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        TypeSlot(std::marker::PhantomData)
    }

    /// The slot of `v`'s type.
    pub fn of(_: &T) -> Self {
        TypeSlot(std::marker::PhantomData)
    }

    /// `v`, of the slot's type: the native engine's literals take the type the witness gave
    /// their slot (an unrolled copy's `2` where the loop had `k: usize`).
    #[inline(always)]
    pub fn lit(&self, v: T) -> T {
        v
    }
}

/// The OpenCL C type of a witness slot.
pub fn cl_type<T: ClType>(_: &TypeSlot<T>) -> &'static str {
    T::declare();
    T::cl()
}

/// A value a kernel may read: scalars, arrays, images, constant arrays.
///
/// # Safety
///
/// Generated code trusts what an implementation says: the OpenCL C it names, the parameters
/// it describes and pushes, what the launch-time proof learns from it (a wrong size there
/// drops a bounds check) and the view the native engine reads. Only nuda and its macros
/// (`#[nustruct]`, `#[nucode]`) implement it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be captured by a nuda kernel",
    label = "kernels capture scalars, `#[nustruct]` structs, NuArray1/2/3, NuImage2, NuConst (from `.as_const()`) and NuShared (from `.as_shared()`)",
    note = "a struct becomes a kernel value with `#[nuda::nustruct]` above its `#[derive(Clone, Copy, Debug, Default, PartialEq)]`",
    note = "a generic function's type parameter needs the bound `nuda::Element` to be captured, and its arrays are `NuArray1<T>`"
)]
pub unsafe trait Capture {
    /// What the native engine sees.
    type Native<'a>: Sync
    where
        Self: 'a;
    /// The parameter this value becomes.
    fn desc(&self) -> CaptureDesc;
    /// Makes the value readable on the host (a download if a device wrote it). The macros
    /// call it before `native_ref`.
    fn native_ready(&self) -> Result<()> {
        Ok(())
    }
    /// The native engine's view. Infallible, so that its type may stay an inference variable
    /// (an unsuffixed integer) until rustc's fallback: a `?` here would fix it to `()`.
    fn native_ref(&self) -> Self::Native<'_>;
    /// What the launch-time proof knows of the value.
    fn proof_input(&self) -> Input;
    /// Pushes the kernel arguments.
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a>;
    /// The bytes a work-item holds of the value passed by value (a captured `[T; N]`); the
    /// launch counts them with the kernel's private arrays.
    fn private_bytes(&self) -> usize {
        0
    }
    /// The address of the array behind a handle that another captured name may be a copy of
    /// (a `NuShared`): two captures with the same address are one array.
    fn shared_array(&self) -> Option<usize> {
        None
    }
}

/// A value a kernel may write: arrays and images.
///
/// # Safety
///
/// Generated code trusts what an implementation says: the OpenCL C it names, the parameters
/// it describes and pushes, what the launch-time proof learns from it (a wrong size there
/// drops a bounds check) and the view the native engine reads. Only nuda and its macros
/// (`#[nustruct]`, `#[nucode]`) implement it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written by a nuda kernel",
    label = "kernels write NuArray1/2/3, NuImage2 and NuShared (from `.as_shared()`) elements; scalars are passed by value and NuConst is read-only constant memory"
)]
pub unsafe trait CaptureMut {
    /// What the native engine sees.
    type NativeMut<'a>: Sync
    where
        Self: 'a;
    /// The parameter this value becomes.
    fn desc_mut(&self) -> CaptureDesc;
    /// The native engine's writable view; device copies become stale.
    fn native_mut(&mut self) -> Result<Self::NativeMut<'_>>;
    /// What the launch-time proof knows of the value.
    fn proof_input_mut(&self) -> Input;
    /// Pushes the kernel arguments.
    fn push_mut<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a>;
    /// As [`Capture::shared_array`].
    fn shared_array_mut(&self) -> Option<usize> {
        None
    }
}

macro_rules! scalar_capture {
    ($($t:ty => $push:ident, $input:expr),* $(,)?) => {$(
        // SAFETY: a scalar is one parameter of its own type, its value exactly.
        unsafe impl Capture for $t {
            type Native<'a> = $t;
            fn desc(&self) -> CaptureDesc {
                CaptureDesc::Scalar(<$t as ClType>::cl())
            }
            fn native_ref(&self) -> $t {
                *self
            }
            #[allow(clippy::redundant_closure_call)]
            fn proof_input(&self) -> Input {
                ($input)(*self)
            }
            fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
                l.$push(*self)
            }
        }
    )*};
}
/// A captured integer's value and OpenCL C type, for the proof.
fn int<T: ClType + Into<i128>>(v: T) -> Input {
    Input::Int(v.into(), T::cl())
}

scalar_capture!(f32 => arg, |_| Input::Float, f64 => arg, |_| Input::Float,
    i8 => arg, int, i16 => arg, int, i32 => arg, int, i64 => arg, int,
    u8 => arg, int, u16 => arg, int, u32 => arg, int, u64 => arg, int,
    usize => index, |v: usize| Input::Int(v as i128, "nu_idx"),
    isize => sindex, |v: isize| Input::Int(v as i128, "nu_sidx"));

// SAFETY: a flag is one `bool` parameter, its value exactly.
unsafe impl Capture for bool {
    type Native<'a> = bool;
    fn desc(&self) -> CaptureDesc {
        CaptureDesc::Scalar("bool")
    }
    fn native_ref(&self) -> bool {
        *self
    }
    fn proof_input(&self) -> Input {
        Input::Int(i128::from(*self), "bool")
    }
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        // OpenCL forbids bool parameters; the template declares it `uchar`.
        l.arg(u8::from(*self))
    }
}

// SAFETY: the array's own pointer and dims, which its proof input states.
unsafe impl<T: Value, S: Shape> Capture for NuArray<T, S> {
    type Native<'a> = ArrayView<'a, T, S>;
    fn desc(&self) -> CaptureDesc {
        array_desc::<T, S>(Space::GlobalRead)
    }
    fn native_ready(&self) -> Result<()> {
        self.try_as_slice().map(drop)
    }
    fn native_ref(&self) -> ArrayView<'_, T, S> {
        self.read_view().unwrap_or_else(|e| panic!("nuda: {e}"))
    }
    fn proof_input(&self) -> Input {
        array_input::<T, S>(self.dims())
    }
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        l.array(self)
    }
}

/// An array parameter of elements `T`, their declaration registered.
pub(super) fn array_desc<T: Value, S: Shape>(space: Space) -> CaptureDesc {
    T::declare();
    CaptureDesc::Array(T::CL_TYPE, S::RANK, space)
}

/// An array's dims and element type, for the proof.
pub(super) fn array_input<T: Value, S: Shape>(dims: S) -> Input {
    Input::Array(dims.extents(), S::RANK, T::CL_TYPE)
}

// SAFETY: the array's own pointer and dims, which its proof input states.
unsafe impl<T: Value, S: Shape> CaptureMut for NuArray<T, S> {
    type NativeMut<'a> = ArrayViewMut<'a, T, S>;
    fn desc_mut(&self) -> CaptureDesc {
        array_desc::<T, S>(Space::GlobalWrite)
    }
    fn native_mut(&mut self) -> Result<ArrayViewMut<'_, T, S>> {
        self.write_view()
    }
    fn proof_input_mut(&self) -> Input {
        array_input::<T, S>(self.dims())
    }
    fn push_mut<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        l.array_mut(self)
    }
}

/// A `NuVec` is read and written as the 1-D array of its elements.
// SAFETY: the vector's own storage and length.
unsafe impl<T: Value> Capture for NuVec<T> {
    type Native<'a> = ArrayView<'a, T, usize>;
    fn desc(&self) -> CaptureDesc {
        self.array().desc()
    }
    fn native_ready(&self) -> Result<()> {
        self.array().native_ready()
    }
    fn native_ref(&self) -> ArrayView<'_, T, usize> {
        self.array().native_ref()
    }
    fn proof_input(&self) -> Input {
        self.array().proof_input()
    }
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        self.array().push_ref(l)
    }
}

// SAFETY: the vector's own storage and capacity.
unsafe impl<T: Value> CaptureMut for NuVec<T> {
    type NativeMut<'a> = ArrayViewMut<'a, T, usize>;
    fn desc_mut(&self) -> CaptureDesc {
        self.array().desc_mut()
    }
    fn native_mut(&mut self) -> Result<ArrayViewMut<'_, T, usize>> {
        self.array_mut().native_mut()
    }
    fn proof_input_mut(&self) -> Input {
        self.array().proof_input_mut()
    }
    fn push_mut<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        self.array_mut().push_mut(l)
    }
}

/// What a `nuwork!` body pushes to: a `NuVec`, grown to its new length between the two
/// passes of the scan that places the pushes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `push` in nuda kernels",
    label = "kernels push to a NuVec, whose length the kernel decides"
)]
pub trait Pushed {
    /// The length before the launch: the first push's slot.
    fn pushed_len(&self) -> usize;
    /// Grows to `len` elements.
    fn grow(&mut self, len: usize) -> Result<()>;
    /// Keeps the first `len` elements (after a single-pass launch that reserved more).
    fn shrink(&mut self, len: usize) -> Result<()>;
}

impl<T: Value> Pushed for NuVec<T> {
    fn pushed_len(&self) -> usize {
        self.len()
    }
    fn grow(&mut self, len: usize) -> Result<()> {
        NuVec::grow(self, len)
    }
    fn shrink(&mut self, len: usize) -> Result<()> {
        NuVec::shrink(self, len)
    }
}

impl<P: Pushed + ?Sized> Pushed for &mut P {
    fn pushed_len(&self) -> usize {
        (**self).pushed_len()
    }
    fn grow(&mut self, len: usize) -> Result<()> {
        (**self).grow(len)
    }
    fn shrink(&mut self, len: usize) -> Result<()> {
        (**self).shrink(len)
    }
}

// SAFETY: the image's own handle and dims.
unsafe impl<T: Texel> Capture for NuImage2<T> {
    type Native<'a> = ImageView<'a, T>;
    fn desc(&self) -> CaptureDesc {
        CaptureDesc::Image(T::CHANNELS, false)
    }
    fn native_ready(&self) -> Result<()> {
        self.try_as_slice().map(drop)
    }
    fn native_ref(&self) -> ImageView<'_, T> {
        self.read_view().unwrap_or_else(|e| panic!("nuda: {e}"))
    }
    fn proof_input(&self) -> Input {
        let (w, h) = self.dims();
        Input::Image(w, h)
    }
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        let (w, h) = self.dims();
        l.image(self).index(w).index(h)
    }
}

// SAFETY: the image's own handle and dims.
unsafe impl<T: Texel> CaptureMut for NuImage2<T> {
    type NativeMut<'a> = ImageViewMut<'a, T>;
    fn desc_mut(&self) -> CaptureDesc {
        CaptureDesc::Image(T::CHANNELS, true)
    }
    fn native_mut(&mut self) -> Result<ImageViewMut<'_, T>> {
        self.write_view()
    }
    fn proof_input_mut(&self) -> Input {
        let (w, h) = self.dims();
        Input::Image(w, h)
    }
    fn push_mut<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        let (w, h) = self.dims();
        l.image_mut(self).index(w).index(h)
    }
}

// SAFETY: the array's own pointer and dims, in constant memory.
unsafe impl<T: Value, S: Shape> Capture for crate::array::NuConst<'_, NuArray<T, S>> {
    type Native<'a>
        = ArrayView<'a, T, S>
    where
        Self: 'a;
    fn desc(&self) -> CaptureDesc {
        array_desc::<T, S>(Space::Constant)
    }
    fn native_ready(&self) -> Result<()> {
        self.array().try_as_slice().map(drop)
    }
    fn native_ref(&self) -> ArrayView<'_, T, S> {
        self.array().native_ref()
    }
    fn proof_input(&self) -> Input {
        array_input::<T, S>(self.array().dims())
    }
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        l.constant(self.array())
    }
}

// A shared-write handle: on OpenCL each device's copy (see `memory/shared.rs`); on the
// native engine the scope's native copy, whose cells every host thread may write. Reads see
// the scope's starting contents plus this device's own writes.
// SAFETY: the shared array's own pointer and dims.
unsafe impl<'s, T: Value, S: Shape> Capture for NuShared<'s, NuArray<T, S>> {
    type Native<'a>
        = ArrayViewMut<'a, T, S>
    where
        Self: 'a;
    fn desc(&self) -> CaptureDesc {
        array_desc::<T, S>(Space::GlobalRead)
    }
    fn native_ref(&self) -> ArrayViewMut<'_, T, S> {
        self.read_view()
    }
    fn proof_input(&self) -> Input {
        array_input::<T, S>(self.dims())
    }
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        l.shared(*self, false)
    }
    fn shared_array(&self) -> Option<usize> {
        Some(self.address())
    }
}

// SAFETY: the shared array's own pointer and dims.
unsafe impl<'s, T: Value, S: Shape> CaptureMut for NuShared<'s, NuArray<T, S>> {
    type NativeMut<'a>
        = SharedViewMut<'a, T, S>
    where
        Self: 'a;
    fn desc_mut(&self) -> CaptureDesc {
        array_desc::<T, S>(Space::GlobalWrite)
    }
    fn native_mut(&mut self) -> Result<SharedViewMut<'_, T, S>> {
        Ok(SharedViewMut::new(self.write_view()))
    }
    fn proof_input_mut(&self) -> Input {
        array_input::<T, S>(self.dims())
    }
    fn push_mut<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        l.shared(*self, true)
    }
    fn shared_array_mut(&self) -> Option<usize> {
        Some(self.address())
    }
}

/// A reference captures what it refers to.
macro_rules! forward_ref {
    ($($r:tt)*) => {
        // SAFETY: everything is the referent's, whose impl is trusted.
        unsafe impl<C: Capture + ?Sized> Capture for $($r)* C {
            type Native<'a>
                = C::Native<'a>
            where
                Self: 'a;
            fn desc(&self) -> CaptureDesc {
                (**self).desc()
            }
            fn native_ready(&self) -> Result<()> {
                (**self).native_ready()
            }
            fn native_ref(&self) -> C::Native<'_> {
                (**self).native_ref()
            }
            fn proof_input(&self) -> Input {
                (**self).proof_input()
            }
            fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
                (**self).push_ref(l)
            }
            fn private_bytes(&self) -> usize {
                (**self).private_bytes()
            }
            fn shared_array(&self) -> Option<usize> {
                (**self).shared_array()
            }
        }
    };
}
forward_ref!(&);
forward_ref!(&mut);

// SAFETY: everything is the referent's, whose impl is trusted.
unsafe impl<C: CaptureMut + ?Sized> CaptureMut for &mut C {
    type NativeMut<'a>
        = C::NativeMut<'a>
    where
        Self: 'a;
    fn desc_mut(&self) -> CaptureDesc {
        (**self).desc_mut()
    }
    fn native_mut(&mut self) -> Result<C::NativeMut<'_>> {
        (**self).native_mut()
    }
    fn proof_input_mut(&self) -> Input {
        (**self).proof_input_mut()
    }
    fn push_mut<'a>(&'a mut self, l: Launch<'a>) -> Launch<'a> {
        (**self).push_mut(l)
    }
    fn shared_array_mut(&self) -> Option<usize> {
        (**self).shared_array_mut()
    }
}

/// A mutable borrow through method syntax, which auto-dereferences: `x.__nuda_by_mut()` gives
/// `&mut NuArray` both for an owned `mut x` and for `x: &mut NuArray` bound without `mut`.
pub trait ByMut {
    /// `self`.
    fn __nuda_by_mut(&mut self) -> &mut Self {
        self
    }
}

impl<T: ?Sized> ByMut for T {}

/// The same method for shared-write handles, found first because it takes `&self`: a
/// `NuShared` captured by a `nudevs` body (by reference, from several threads) is written
/// through a copy of the handle, with no mutable borrow.
pub trait ByShared: Copy {
    /// A copy of `self`.
    fn __nuda_by_mut(&self) -> Self {
        *self
    }
}

impl<A> ByShared for NuShared<'_, A> {}

/// The native view type of a read capture, for the type witness. Never runs.
pub fn witness_ref<C: Capture + ?Sized>(_: &C) -> C::Native<'_> {
    unreachable!("nuda: the type witness is never called")
}

/// The native view type of a written capture, for the type witness. Never runs.
pub fn witness_mut<C: CaptureMut + ?Sized>(_: &C) -> C::NativeMut<'_> {
    unreachable!("nuda: the type witness is never called")
}

/// A value kernels compare with `==`, `<` and the like: the scalars. OpenCL C has no `==` on
/// structs, so the type witness of a comparison asks for this.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be compared in a nuda kernel",
    label = "kernels compare numbers and bools; compare a struct's fields one by one"
)]
pub trait Compared: Copy {}

impl<T: Element> Compared for T {}

/// An argument of a `#[nucode]` call that is not a tuple written as one. OpenCL C passes a
/// tuple component by component, which the macro can only do for a tuple local or literal.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed this way to a #[nucode] function",
    label = "pass a tuple as a tuple local or a literal `(a, b)`; bind a call's tuple result first, as in `let (a, b) = f(..);`"
)]
pub trait PlainArg: Copy {}

impl<T: ClType> PlainArg for T {}

/// The witness's check of a `#[nucode]` call's argument (see [`PlainArg`]).
pub fn plain_arg<T: PlainArg>(v: T) -> T {
    v
}

/// The witness's check of a comparison's left operand (see [`Compared`]).
pub fn compared<T: Compared>(v: T) -> T {
    v
}

/// A value a `vector(w)` annotation keeps in OpenCL C vectors (`floatN`, `doubleN`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be vectorised by vector(w)",
    label = "vector(w) loads, computes and stores f32 and f64 values; leave this loop scalar"
)]
pub trait Lane: Copy {}

impl Lane for f32 {}
impl Lane for f64 {}

/// The witness's check of a vector access's element (see [`Lane`]).
pub fn lane<T: Lane>(v: T) -> T {
    v
}
