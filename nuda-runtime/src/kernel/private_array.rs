//! Private arrays: `[T; N]` values in kernels, such as `let mut t = [0.0f32; 8];`, `[a, b,
//! c]`, an RGBA texel, a `#[nustruct]`'s array field or a captured table of weights.
//!
//! OpenCL C cannot assign, pass or return a bare array, so `[T; N]` is the one-field struct
//! `typedef struct { T v[N]; } nu_arr_T_N;`. A struct of one array has the array's size and
//! alignment, so the same type lays out a `#[nustruct]`'s array field and its offsets are
//! checked like any other field's. `T` is the element's type in memory (`nu_word` for
//! `usize`), so a field, a local and a captured value of one Rust type are one C type.
//!
//! Every element access is checked: by the prelude's `NU_AT` and `nu_pin` in OpenCL C, by
//! [`element_at`] and [`private_index`] natively. A private-array site is not a bounds site
//! of the `#[unchecked]` opt-out: its check is one compare on a register, and it keeps the
//! opt-out's promise about captured arrays from reaching a kernel's own values.

use super::capture::{Capture, ClType};
use super::desc::{CaptureDesc, Input};
use super::nustruct::{declare_struct, Field};
use crate::fault::{Checker, Site};
use crate::launch::Launch;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

// SAFETY: the one-field struct of `N` elements of `T`'s C type, laid out as `[T; N]`.
unsafe impl<T: Field, const N: usize> ClType for [T; N] {
    fn cl() -> &'static str {
        const {
            assert!(
                N > 0,
                "nuda: a private array needs at least one element: OpenCL C has no empty arrays"
            )
        };
        array_type(T::c_type(), N)
    }
    fn declare() {
        T::declare();
        Self::cl();
    }
}

/// A captured array is passed by value, as its struct and its length: the kernel may use it
/// whole (`let t = w;`, `f(w)`) or index it (`w[k]`, checked like a captured `NuArray1`).
// SAFETY: the array by value with its length `N`, which its proof input states.
unsafe impl<T: Field, const N: usize> Capture for [T; N] {
    type Native<'a> = [T; N];
    fn desc(&self) -> CaptureDesc {
        CaptureDesc::Private(<Self as ClType>::cl(), T::c_type())
    }
    fn native_ref(&self) -> [T; N] {
        *self
    }
    fn proof_input(&self) -> Input {
        Input::Array([N, 1, 1], 1, T::c_type())
    }
    fn push_ref<'a>(&'a self, l: Launch<'a>) -> Launch<'a> {
        let mut bytes = vec![0u8; size_of::<Self>()];
        self.encode(&mut bytes);
        l.bytes(bytes).index(N)
    }
    fn private_bytes(&self) -> usize {
        size_of::<Self>()
    }
}

/// `w[k]` on a captured private array, as the native engine reads any captured array
/// (`w.load(k, ..)`): checked, and out of range a fault at `site` and a zero value, as the
/// OpenCL C helper gives.
pub trait PrivateLoad {
    /// The element type.
    type Elem;
    /// Element `k`; out of range, the fault is recorded and zero read.
    fn load<const TR: bool>(&self, k: usize, f: Checker<'_, TR>, site: &'static Site)
        -> Self::Elem;
}

// A captured private array may be staged; it packs nothing (`backend/native/panel.rs`).
impl<T: Field, const N: usize> crate::backend::native::StagedView for [T; N] {
    type Elem = T;
}

impl<T: Field, const N: usize> PrivateLoad for [T; N] {
    type Elem = T;
    #[inline(always)]
    fn load<const TR: bool>(&self, k: usize, f: Checker<'_, TR>, site: &'static Site) -> T {
        match private_index(self, k, f, site) {
            Some(k) => self[k],
            // All bits zero, as C's `{0}`: the value of every field type.
            None => T::decode(&vec![0u8; size_of::<T>()]),
        }
    }
}

/// Array types named and declared so far, by element type (its text's address and length:
/// element names are `'static`) and length. Launches ask for a type's name every time (a
/// captured array's parameter, a slot's fill), so a known one costs a lookup, not a format.
type Named = HashMap<(usize, usize, usize), &'static str>;
static NAMES: Mutex<Option<Named>> = Mutex::new(None);

/// The OpenCL C struct of `n` elements of C type `elem`, declared for the programs that name
/// it. The declaration is guarded: the image prelude declares the RGBA texel's own.
pub fn array_type(elem: &'static str, n: usize) -> &'static str {
    let key = (elem.as_ptr() as usize, elem.len(), n);
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(name) = names.get_or_insert_with(HashMap::new).get(&key) {
        return name;
    }
    let name: &'static str = Box::leak(format!("nu_arr_{elem}_{n}").into_boxed_str());
    // Registered with the lock released: the registry takes its own.
    drop(names);
    declare_struct(name, || {
        format!("#ifndef {name}_declared\n#define {name}_declared\ntypedef struct {{ {elem} v[{n}]; }} {name};\n#endif\n")
    });
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    names
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert(name)
}

/// A value kernels index with `t[k]` besides captured arrays: a fixed-size array.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be indexed in a nuda kernel",
    label = "kernels index captured arrays (`NuArray1/2/3`, `NuVec`) and fixed-size arrays `[T; N]`"
)]
pub trait Indexable {
    /// The element type.
    type Elem: Copy;
    /// The length.
    const LEN: usize;
    /// Element `k`, which is below `LEN`.
    fn get(&self, k: usize) -> Self::Elem;
}

impl<T: Copy, const N: usize> Indexable for [T; N] {
    type Elem = T;
    const LEN: usize = N;
    #[inline(always)]
    fn get(&self, k: usize) -> T {
        self[k]
    }
}

/// Checks `k` against a private array's length; out of range, records the fault at `site`.
#[inline(always)]
pub fn private_index<A: Indexable + ?Sized, const TR: bool>(
    _: &A,
    k: usize,
    f: Checker<'_, TR>,
    site: &'static Site,
) -> Option<usize> {
    if k < A::LEN {
        return Some(k);
    }
    f.bounds(site, [k as u64, 0, 0], [A::LEN as u64, 0, 0]);
    None
}

/// `a[k]` on a private array. Out of range, the fault is recorded and the first element read,
/// as OpenCL C's `NU_AT` does.
#[inline(always)]
pub fn element_at<A: Indexable, const TR: bool>(
    a: &A,
    k: usize,
    f: Checker<'_, TR>,
    site: &'static Site,
) -> A::Elem {
    const {
        assert!(
            A::LEN > 0,
            "nuda: a private array needs at least one element: OpenCL C has no empty arrays"
        )
    };
    a.get(private_index(a, k, f, site).unwrap_or(0))
}
