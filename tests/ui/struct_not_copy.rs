use nuda::prelude::*;
#[nustruct]
#[derive(Clone, Debug, Default, PartialEq)]
struct P { x: f32 }
fn main() {}
