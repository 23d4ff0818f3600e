//! Tests of the lazy-sync state machine that need no OpenCL device: the zero state, host
//! materialisation, and what host writes do. Device transitions are covered by the
//! integration tests in `tests/lazy_sync.rs`, which run on PoCL.

use super::Storage;
use crate::backend::Layout;

#[test]
fn zeroed_storage_allocates_nothing_until_the_host_touches_it() {
    let s: Storage<f32> = Storage::zeroed(1 << 40, Layout::Buffer);
    // 4 TiB of zeros cost nothing until someone reads them.
    assert_eq!(s.validity(), (false, vec![]));
    assert_eq!(s.len(), 1 << 40);
}

#[test]
fn first_host_read_materialises_zeros_and_later_reads_reuse_them() {
    let s: Storage<i32> = Storage::zeroed(5, Layout::Buffer);
    let first = s.host().unwrap().as_ptr();
    assert_eq!(s.host().unwrap(), &[0; 5]);
    assert_eq!(first, s.host().unwrap().as_ptr());
    assert_eq!(s.validity(), (true, vec![]));
}

#[test]
fn host_writes_stick_and_overwrite_skips_the_old_contents() {
    let mut s = Storage::from_vec(vec![1u8, 2, 3], Layout::Buffer);
    s.host_mut().unwrap()[1] = 9;
    assert_eq!(s.host().unwrap(), &[1, 9, 3]);
    s.host_overwrite().unwrap().copy_from_slice(&[7, 7, 7]);
    assert_eq!(s.host().unwrap(), &[7, 7, 7]);
}

#[test]
fn concurrent_first_reads_agree() {
    let s: Storage<u64> = Storage::zeroed(1000, Layout::Buffer);
    let ptrs: Vec<usize> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..8)
            .map(|_| sc.spawn(|| s.host().unwrap().as_ptr() as usize))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        ptrs.windows(2).all(|w| w[0] == w[1]),
        "one host copy, made once"
    );
}

#[test]
fn a_shared_scope_with_no_writer_gives_the_base_back() {
    let mut s = Storage::from_vec(vec![1.0f32, 2.0, 3.0], Layout::Buffer);
    s.begin_shared().unwrap();
    assert_eq!(s.validity(), (true, vec![]));
    assert_eq!(s.host().unwrap(), &[1.0, 2.0, 3.0]);
}

#[test]
fn native_shared_writes_from_threads_merge_on_the_next_read() {
    use crate::element::Pod;
    let mut s = Storage::from_vec(vec![0u32; 64], Layout::Buffer);
    s.begin_shared().unwrap();
    // Four host threads, each writing its own quarter through the shared cells.
    std::thread::scope(|sc| {
        for t in 0..4u32 {
            let s = &s;
            sc.spawn(move || {
                let cells = s.native_shared(true);
                let quarter = t as usize * 16..(t as usize + 1) * 16;
                cells[quarter].iter().for_each(|c| u32::store(c, t + 1));
            });
        }
    });
    let want: Vec<u32> = (0..64).map(|i| i / 16 + 1).collect();
    assert_eq!(s.host().unwrap(), &want[..]);
    // A new scope starts from the merged data, and a read-only native view changes nothing.
    s.begin_shared().unwrap();
    assert_eq!(u32::load(&s.native_shared(false)[20]), 2);
    assert_eq!(s.host().unwrap(), &want[..]);
}

#[test]
fn overwriting_discards_a_pending_scope() {
    use crate::element::Pod;
    let mut s = Storage::from_vec(vec![5i64; 4], Layout::Buffer);
    s.begin_shared().unwrap();
    i64::store(&s.native_shared(true)[0], 9);
    s.host_overwrite().unwrap().copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(s.host().unwrap(), &[1, 2, 3, 4]);
}
