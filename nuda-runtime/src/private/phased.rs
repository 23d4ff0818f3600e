//! What a split barrier kernel's native form keeps between its loops over a group's
//! work-items (layer 6, generated code's support): per-item values (`Slots`), the work-items
//! that returned (`Done`), and the agreement of work-items on a condition that holds a
//! barrier (`agree`). All safe code: a bug in the split is a caught panic, never UB.

/// One variable's value per work-item of a group, from the loop that sets it to the loops
/// after. Made empty; the first `set` sizes it, so that its type comes from the variable.
#[derive(Debug)]
pub struct Slots<T> {
    values: Vec<T>,
    len: usize,
}

impl<T: Copy> Slots<T> {
    /// Room for a group of `len` work-items.
    #[inline]
    pub fn new(len: usize) -> Self {
        Slots {
            values: Vec::new(),
            len,
        }
    }

    /// Work-item `k`'s value.
    #[inline]
    #[track_caller]
    pub fn get(&self, k: usize) -> T {
        match self.values.get(k) {
            Some(v) => *v,
            None => panic!("nuda bug: a split kernel read a work-item's variable before any loop set it"),
        }
    }

    /// Sets work-item `k`'s value (the first call fills every work-item's with it).
    #[inline]
    pub fn set(&mut self, k: usize, v: T) {
        if self.values.is_empty() {
            self.values = vec![v; self.len];
        }
        if let Some(slot) = self.values.get_mut(k) {
            *slot = v;
        }
    }
}

/// The work-items of a group that have returned.
#[derive(Debug)]
pub struct Done {
    done: Vec<bool>,
    live: usize,
}

impl Done {
    /// None of `len` work-items has returned.
    pub fn new(len: usize) -> Self {
        Done {
            done: vec![false; len],
            live: len,
        }
    }

    /// Whether work-item `k` has returned.
    #[inline]
    pub fn is(&self, k: usize) -> bool {
        self.done.get(k).copied().unwrap_or(true)
    }

    /// Marks work-item `k` as returned.
    #[inline]
    pub fn finish(&mut self, k: usize) {
        if let Some(d) = self.done.get_mut(k) {
            if !*d {
                *d = true;
                self.live -= 1;
            }
        }
    }

    /// Whether every work-item has returned.
    #[inline]
    pub fn all(&self) -> bool {
        self.live == 0
    }
}

/// Records a work-item's value of a condition (or range) that holds a barrier: every
/// work-item of a group must get the same one, which `#[nukernel]` proved at compile time.
/// A disagreement is a panic at the condition's line, which the launch reports as its error.
#[inline]
#[track_caller]
pub fn agree<T: PartialEq>(slot: &mut Option<T>, v: T) {
    match slot {
        Some(seen) if *seen != v => panic!(
            "nuda: the work-items of a group disagree on a condition that holds a barrier(); \
             every work-item must reach each barrier"
        ),
        Some(_) => {}
        None => *slot = Some(v),
    }
}
