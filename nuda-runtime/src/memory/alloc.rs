//! Host allocations that fail with an error instead of aborting the process: a host copy of a
//! large array is allocated fallibly, and zeros come from the allocator's zeroed pages, so an
//! array nobody wrote costs no page until a kernel or the host writes it.

use super::host::HostBuf;
use crate::element::Pod;
use crate::error::{Error, Result};
use std::alloc::{alloc_zeroed, Layout};

/// `len` zero elements, or `Err(OutOfResources)` if the host cannot allocate them.
pub(crate) fn zeros<T: Pod>(len: usize) -> Result<Vec<T>> {
    let bytes = (len as u128) * size_of::<T>() as u128;
    let fail = || Error::OutOfResources {
        device: "the host".into(),
        what: format!("allocating {bytes} bytes for an array's host copy"),
        detail: "the allocator refused".into(),
    };
    if len == 0 || size_of::<T>() == 0 {
        return Ok(Vec::new());
    }
    let layout = Layout::array::<T>(len).map_err(|_| fail())?;
    // SAFETY: the layout has a non-zero size (checked above).
    let ptr = unsafe { alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(fail());
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[T; len]`, so
    // with `T`'s alignment and room for exactly `len` elements; every `Pod` type is valid
    // all-zero (numbers and arrays of numbers), so all `len` elements are initialised; the
    // vector takes ownership and frees it with the same layout.
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// A buffer of `len` elements for a download or a merge: `spare` reused if it is large
/// enough (its pin kept), else a fresh fallible allocation. Its contents are overwritten by
/// the caller.
pub(crate) fn buffer<T: Pod>(mut spare: HostBuf<T>, len: usize) -> Result<HostBuf<T>> {
    if spare.capacity() >= len {
        spare.truncate(0);
        spare.resize(len);
        return Ok(spare);
    }
    drop(spare);
    zeros(len).map(HostBuf::new)
}

/// A buffer of `len` elements that the caller overwrites whole before anyone reads it (a
/// download): `spare` reused as it is (its pin kept), its old elements kept (each a valid
/// `T`, so nothing uninitialised is ever exposed), else a fresh allocation. `buffer`'s
/// zeroing of a reused 256 MiB spare took longer than the download itself: on the H200 it
/// held reads through CUDA at 8.8 GB/s against the driver's 55.
pub(crate) fn overwritten<T: Pod>(mut spare: HostBuf<T>, len: usize) -> Result<HostBuf<T>> {
    if spare.capacity() < len {
        drop(spare);
        return zeros(len).map(HostBuf::new);
    }
    match spare.len() >= len {
        true => spare.truncate(len),
        false => spare.resize(len),
    }
    Ok(spare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_are_zero_and_huge_requests_are_errors() {
        let v: Vec<f64> = zeros(1000).unwrap();
        assert!(v.iter().all(|&x| x == 0.0) && v.len() == 1000);
        assert!(zeros::<u8>(0).unwrap().is_empty());
        let e = zeros::<f32>(usize::MAX / 2).unwrap_err();
        assert!(e.to_string().contains("the host"), "{e}");
        let host = |v: Vec<u32>| HostBuf::new(v);
        let b = buffer(host(vec![7u32; 10]), 4).unwrap();
        assert_eq!(&b[..], &[0; 4]);
        // Reused as it is (the download overwrites it), grown with zeros, or fresh.
        let mut spare = host(vec![7u32; 10]);
        spare.truncate(3);
        assert_eq!(&overwritten(spare, 5).unwrap()[..], &[7, 7, 7, 0, 0]);
        assert_eq!(&overwritten(host(vec![7u32; 10]), 4).unwrap()[..], &[7; 4]);
        assert_eq!(&overwritten(host(vec![7u32; 2]), 4).unwrap()[..], &[0; 4]);
    }
}
