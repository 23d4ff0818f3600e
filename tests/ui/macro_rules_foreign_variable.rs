use nuda::prelude::*;

// The kernel's `i` is the macro's loop variable; `$idx` is the caller's `i`, another variable
// to rustc. nuda follows names, so the two must not meet in one kernel.
macro_rules! fill {
    ($n:expr, $idx:ident) => {{
        let n: usize = $n;
        let mut z = NuArray1::<u32>::new(n);
        nuwork!(64; nfor!(i in n { z[$idx] = 7u32; })).map(|()| z)
    }};
}

fn main() {
    let i = 100_000_000usize;
    let _ = fill!(1 << 16, i);
}
