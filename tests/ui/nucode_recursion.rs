use nuda::prelude::*;

#[nucode]
fn fact(n: u32) -> u32 {
    if n <= 1 { 1 } else { n * fact(n - 1) }
}

#[nucode]
fn down(n: u32) -> u32 {
    if n == 0 { 0 } else { self::down(n - 1) }
}

fn main() {
    let _ = (fact(3), down(2));
}
