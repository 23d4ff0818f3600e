use nuda::prelude::*;
#[nucode]
fn scaled(x: f32) -> f32 { x * factor }
fn main() {}
