use nuda::prelude::*;
#[nucode]
fn twice<T: Copy + std::ops::Add<Output = T>>(x: T) -> T {
    x + x
}
fn main() {}
