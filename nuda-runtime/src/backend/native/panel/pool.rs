//! The threads' panel buffers (layer 1, the native engine): a pool per thread, the launch
//! generation that keeps a kept box from going stale, and the copy of a box into a buffer.

use super::layout::{Cut, Layout};
use super::Panel;
use crate::backend::native::views::ArrayView;
use crate::element::Pod;
use crate::shape::Shape;
use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most bytes one panel holds: a larger box is not packed, and its reads go to the array
/// (a tile over a very long staged loop would otherwise take memory without bound).
pub const MAX_PANEL_BYTES: usize = 32 << 20;

/// The buffers' alignment: a cache line, and a whole AVX-512 register.
const ALIGN: usize = 64;

/// The bytes of buffers a thread keeps between tiles (the oldest go first): enough for the
/// panels of a few staged nests, not a copy of every array a long-lived thread ever staged.
const KEPT_BYTES: usize = 64 << 20;

/// The launch generation: a panel packed in an earlier one is copied again.
pub(super) static GENERATION: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Buffers of finished tiles, of any element type, for this thread's next tiles.
    static POOL: RefCell<Vec<(usize, Box<dyn Any>)>> = const { RefCell::new(Vec::new()) };
}

/// Starts a launch's generation: panels packed before it are not reused by its tiles.
pub fn new_launch() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// What a buffer holds: the array (its address and length), the box asked for, the layout,
/// and the launch generation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Key {
    data: (usize, usize),
    dims: [usize; 3],
    origin: [usize; 3],
    ext: [usize; 3],
    blocked: (usize, usize),
    generation: u64,
}

/// A buffer and what it holds, as the pool keeps it.
struct Held<T> {
    data: Vec<T>,
    key: Option<Key>,
    start: usize,
}

/// A thread's buffer for one staged array, taken from its pool and given back on drop.
pub struct PanelBuf<T: Pod> {
    held: Held<T>,
}

impl<T: Pod> PanelBuf<T> {
    /// An empty buffer; `pack` finds one in the thread's pool.
    pub fn new() -> Self {
        PanelBuf {
            held: Held {
                data: Vec::new(),
                key: None,
                start: 0,
            },
        }
    }

    /// The part of `view`'s box (`origin` and `ext` per index position) inside the array, in
    /// this buffer, blocked along position `P` by `B`: copied, unless the thread's pool has
    /// it from an earlier tile of this launch.
    pub fn pack<S: Shape, const P: usize, const B: usize>(
        &mut self,
        view: &ArrayView<'_, T, S>,
        origin: [usize; 3],
        ext: [usize; 3],
    ) -> Panel<'_, T, S, P, B> {
        let data = view.data();
        let dims = view.dims().extents();
        let (layout, cut) = (
            Layout::new::<S>(ext, P, B),
            Cut::new::<S>(origin, ext, dims),
        );
        let Some(layout) =
            layout.filter(|l| l.len.saturating_mul(size_of::<T>()) <= MAX_PANEL_BYTES)
        else {
            return Panel::empty(dims);
        };
        if cut.is_none() {
            return Panel::empty(dims);
        }
        let key = Key {
            data: (data.as_ptr() as usize, data.len()),
            dims,
            origin,
            ext,
            blocked: (P, B),
            generation: GENERATION.load(Ordering::Relaxed),
        };
        self.held = reuse(key).unwrap_or_else(|| {
            let mut h = reuse_any::<T>();
            h.start = room(&mut h.data, layout.len);
            let out = &mut h.data[h.start..h.start + layout.len];
            if let Some(cut) = &cut {
                cut.copy::<T, S, B>(data, (dims, origin), &layout, out);
            }
            h.key = Some(key);
            h
        });
        let h = &self.held;
        Panel {
            data: &h.data[h.start..h.start + layout.len],
            origin,
            ext,
            dims,
            stride: layout.stride,
            chunk: layout.chunk,
            _shape: std::marker::PhantomData,
        }
    }
}

impl<T: Pod> Default for PanelBuf<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Pod> Drop for PanelBuf<T> {
    fn drop(&mut self) {
        let held = std::mem::replace(
            &mut self.held,
            Held {
                data: Vec::new(),
                key: None,
                start: 0,
            },
        );
        if held.data.capacity() == 0 {
            return;
        }
        // During thread teardown the pool may be gone: the buffer is then just freed.
        let _ = POOL.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                let bytes = held.data.capacity() * size_of::<T>();
                p.push((bytes, Box::new(held)));
                while p.iter().map(|h| h.0).sum::<usize>() > KEPT_BYTES {
                    p.remove(0);
                }
            }
        });
    }
}

/// The pool's buffer holding `key`'s box, taken out of the pool.
fn reuse<T: Pod>(key: Key) -> Option<Held<T>> {
    take_where::<T>(|h| h.key == Some(key))
}

/// Any buffer of `T` from the pool (the one kept longest), or a new one.
fn reuse_any<T: Pod>() -> Held<T> {
    take_where::<T>(|_| true).unwrap_or(Held {
        data: Vec::new(),
        key: None,
        start: 0,
    })
}

fn take_where<T: Pod>(want: impl Fn(&Held<T>) -> bool) -> Option<Held<T>> {
    POOL.try_with(|p| {
        let mut p = p.try_borrow_mut().ok()?;
        let at = (p.iter()).position(|b| b.1.downcast_ref::<Held<T>>().is_some_and(&want))?;
        p.remove(at).1.downcast::<Held<T>>().ok().map(|b| *b)
    })
    .ok()
    .flatten()
}

/// Room in `data` for `len` elements from a 64-byte boundary (where the element's size
/// divides 64); where they start.
fn room<T: Pod>(data: &mut Vec<T>, len: usize) -> usize {
    let size = size_of::<T>().max(1);
    let pad = match ALIGN % size {
        0 => ALIGN / size,
        _ => 0,
    };
    if data.len() < len + pad {
        *data = vec![T::default(); len + pad];
    }
    match data.as_ptr().align_offset(ALIGN) {
        skew if skew <= pad => skew,
        _ => 0,
    }
}
