use nuda::prelude::*;
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Owns { n: u32, xs: Vec<f32> }
#[nustruct]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Refers { x: &'static f32 }
#[nustruct]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Borrows<'a> { x: &'a f32 }
fn main() {}
