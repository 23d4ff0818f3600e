//! The counters of counted slots (layer 4, kernels): `out[slot] = v; slot += 1;` in a
//! `nuwork!` stores at a slot of each iteration's own, since the scan gives each iteration the
//! count before it, as long as the counter does not wrap. The macro's dependence test takes
//! the slots as disjoint; its witness asks rustc for this trait, so a counter too narrow to
//! count every store of a launch is a compile error, not two iterations sharing a slot.

/// An integer wide enough to count the stores of a launch without wrapping.
#[diagnostic::on_unimplemented(
    message = "nuwork!: `{Self}` is too narrow for a counted slot (`out[slot] = v; slot += 1;`): once it wraps, two iterations store to one slot",
    label = "count slots in u32, u64, usize or a signed type of 32 bits or more"
)]
pub trait SlotCounter {}

macro_rules! wide {
    ($($t:ty),*) => { $( impl SlotCounter for $t {} )* };
}
wide!(u32, u64, usize, i32, i64, isize);

/// Checks, in the witness only, that a counted slot's counter is wide enough.
pub fn slot_counter<T: SlotCounter>(_: &T) {}
