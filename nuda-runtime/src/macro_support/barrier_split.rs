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
            None => panic!(
                "nuda bug: a split kernel read a work-item's variable before any loop set it"
            ),
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

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn slots_keep_each_work_items_value() {
        let mut s = Slots::new(4);
        s.set(2, 7u64);
        assert_eq!(
            (s.get(0), s.get(2)),
            (7, 7),
            "the first set fills every slot"
        );
        for k in 0..4 {
            s.set(k, k as u64 * 10);
        }
        assert_eq!(
            (0..4).map(|k| s.get(k)).collect::<Vec<_>>(),
            [0, 10, 20, 30]
        );
        s.set(9, 1);
        assert_eq!(s.get(3), 30, "a set out of range changes nothing");
        let before = std::panic::catch_unwind(|| Slots::<u8>::new(3).get(0));
        assert!(
            before.is_err(),
            "a read before any set is a caught panic, not UB"
        );
    }

    #[test]
    fn done_counts_the_live_work_items() {
        let mut d = Done::new(3);
        assert!(!d.is(1) && !d.all());
        d.finish(1);
        d.finish(1);
        assert!(d.is(1) && !d.is(0) && !d.all());
        d.finish(0);
        d.finish(2);
        assert!(d.all());
        assert!(d.is(5), "past the group: never run");
    }

    #[test]
    fn work_items_must_agree_on_a_split_condition() {
        let mut u = None;
        agree(&mut u, true);
        agree(&mut u, true);
        assert_eq!(u, Some(true));
        let e = std::panic::catch_unwind(move || agree(&mut u, false)).unwrap_err();
        let msg = (e.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(msg.contains("disagree"), "{msg}");
    }
}
