//! `NuVec<T>`: a device vector of run-time length. `v.push(x)` in a `nuwork!` body appends,
//! in the order the sequential loop would push (a scan of the push counts gives each push
//! its slot, see `nuda-transforms/src/checks/reduce/README.md`). On the host it reads like a
//! `NuArray1`; a later kernel reads it like one too, with its length as its dim. Its data
//! stays where the last kernel wrote it until the host touches it.

use super::NuArray1;
use crate::element::Stored;
use crate::error::Result;
use std::fmt;
use std::ops::Index;

/// A lazily synchronised vector of `T` whose length kernels decide.
pub struct NuVec<T: Stored> {
    data: NuArray1<T>,
}

impl<T: Stored> NuVec<T> {
    /// An empty vector.
    pub fn new() -> Self {
        NuVec {
            data: NuArray1::new(0),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements, downloaded first if a device wrote them.
    pub fn try_as_slice(&self) -> Result<&[T]> {
        self.data.try_as_slice()
    }

    /// The elements. Panics if a download fails; see `try_as_slice`.
    pub fn as_slice(&self) -> &[T] {
        self.data.as_slice()
    }

    /// A copy of the elements.
    pub fn to_vec(&self) -> Vec<T> {
        self.data.to_vec()
    }

    /// The elements in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// The elements as an array, without a copy.
    pub fn into_array(self) -> NuArray1<T> {
        self.data
    }

    /// The array kernels see.
    pub(crate) fn array(&self) -> &NuArray1<T> {
        &self.data
    }

    /// The array kernels write.
    pub(crate) fn array_mut(&mut self) -> &mut NuArray1<T> {
        &mut self.data
    }

    /// Grows to `len` elements before a launch pushes the new ones: the old elements stay
    /// (through the host when there are any; an empty vector allocates nothing here), the new
    /// ones are zeros until the kernel writes them.
    pub(crate) fn grow(&mut self, len: usize) -> Result<()> {
        let old = self.len();
        if len <= old {
            return Ok(());
        }
        self.data = match old {
            0 => NuArray1::new(len),
            _ => {
                let mut v = self.data.try_as_slice()?.to_vec();
                v.resize(len, T::default());
                NuArray1::from_vec(len, v)?
            }
        };
        Ok(())
    }
}

impl<T: Stored> NuVec<T> {
    /// Keeps the first `len` elements, without a transfer: the device copy keeps its size.
    /// A single-pass launch grows a vector by as many elements as it may push, then keeps
    /// those it pushed.
    pub(crate) fn shrink(&mut self, len: usize) -> Result<()> {
        if len >= self.len() {
            return Ok(());
        }
        self.data.storage.truncate(len)?;
        self.data.dims = len;
        Ok(())
    }
}

impl<T: Stored> Default for NuVec<T> {
    fn default() -> Self {
        NuVec::new()
    }
}

impl<T: Stored> From<Vec<T>> for NuVec<T> {
    fn from(v: Vec<T>) -> Self {
        let n = v.len();
        NuVec {
            data: NuArray1::from_vec(n, v).unwrap_or_else(|_| NuArray1::new(0)),
        }
    }
}

impl<T: Stored> Index<usize> for NuVec<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.data[i]
    }
}

impl<T: Stored> fmt::Debug for NuVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NuVec").field("len", &self.len()).finish()
    }
}
