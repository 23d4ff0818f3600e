//! Issue 13's `#[nustruct]`: user structs as array elements and kernel values, with
//! OpenCL C's layout (padding included) on every engine. Each kernel runs on an OpenCL device
//! (PoCL in CI) and on the native engine and is compared with plain Rust.

#![allow(missing_docs)] // the test types are documented by their tests

mod common;

use common::{check, vec_of};
use nuda::prelude::*;

#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mixed {
    pub big: u64,
    pub x: f64,
    pub tag: u8,
}

#[test]
fn mixed_field_sizes_round_trip_bit_exactly() {
    assert_eq!(size_of::<Mixed>(), 24);
    let n = 257usize;
    let make = |i: usize| Mixed {
        big: (i as u64) << 40 | 0xdead_beef,
        x: f64::from_bits(0x7ff8_0000_0000_0001 ^ i as u64),
        tag: (i * 7) as u8,
    };
    let want: Vec<Mixed> = (0..n).map(make).collect();
    let bits = |v: &[Mixed]| -> Vec<(u64, u64, u8)> {
        v.iter().map(|m| (m.big, m.x.to_bits(), m.tag)).collect()
    };
    let want_bits = bits(&want);
    check(want_bits, || {
        let a = NuArray1::from_fn(n, make);
        let mut out = NuArray1::<Mixed>::new(n);
        nuwork!(64; nfor!(i in n { out[i] = a[i]; }))?;
        Ok(bits(&vec_of(&out)))
    });
}

/// A particle, as the issue writes it.
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Body {
    pub x: f32,
    pub y: f32,
    pub m: f32,
    pub id: u32,
}

/// A tuple of two values computed from a point (exact in f32 for small integers).
#[nucode]
fn polar(x: f32, y: f32) -> (f32, f32) {
    (x * x + y * y, x - y)
}

/// A struct parameter and a struct result, with `..base`.
#[nucode]
fn weigh(b: Body, m: f32) -> Body {
    Body { m: b.m * m, ..b }
}

fn body(i: usize) -> Body {
    Body {
        x: (i % 17) as f32,
        y: (i % 5) as f32 - 2.0,
        m: 1.0 + (i % 3) as f32,
        id: i as u32,
    }
}

/// The kernel's body in plain Rust.
fn particle(b: Body, origin: Body) -> Body {
    let (r, th) = polar(b.x, b.y);
    let pair = (r, weigh(b, origin.m));
    let mut c = Body {
        x: b.x + 1.0,
        ..pair.1
    };
    c.y += th;
    c.id = c.id * 2 + u32::from(r > 10.0);
    c
}

#[test]
fn a_particle_style_struct_array_kernel() {
    let n = 1000usize;
    let origin = Body {
        x: 0.0,
        y: 0.0,
        m: 2.0,
        id: 7,
    };
    let want: Vec<Body> = (0..n).map(|i| particle(body(i), origin)).collect();
    check(want, || {
        let bodies = NuArray1::from_fn(n, body);
        let mut out = NuArray1::<Body>::new(n);
        nuwork!(64; nfor!(i in n {
            let b = bodies[i];
            let (r, th) = polar(b.x, b.y);
            let pair = (r, weigh(b, origin.m));
            let mut c = Body { x: b.x + 1.0, ..pair.1 };
            c.y += th;
            c.id = c.id * 2 + if r > 10.0 { 1 } else { 0 };
            out[i] = c;
        }))?;
        Ok(vec_of(&out))
    });
}

/// Issue 13's syntax block, verbatim (its unused `th` and `t` included), on both engines
/// against the same lines in plain Rust.
#[test]
#[allow(unused_variables, unused_mut)]
fn the_issue_syntax_block_verbatim() {
    let n = 300usize;
    let origin = body(7);
    let plain = |b: Body| {
        let (r, th) = polar(b.x, b.y);
        let pair = (r, weigh(b, origin.m));
        let mut t = [0.0f32; 8];
        Body {
            x: b.x + 1.0,
            ..pair.1
        }
    };
    let want: Vec<Body> = (0..n).map(|i| plain(body(i))).collect();
    check(want, || {
        let bodies = NuArray1::<Body>::from_fn(n, |i| Body { ..body(i) });
        let mut out = NuArray1::<Body>::new(n);
        nuwork!(64; nfor!(i in n {
            let b = bodies[i];                         // struct values, field reads
            let (r, th) = polar(b.x, b.y);             // a #[nucode] fn returning a tuple
            let pair = (r, weigh(b, origin.m));        // tuples, .0/.1; `origin` is a captured Body
            out[i] = Body { x: b.x + 1.0, ..pair.1 };  // struct literals and update syntax
            let mut t = [0.0f32; 8];                   // private arrays, constant length, any index
        }))?;
        Ok(vec_of(&out))
    });
}

/// Nested structs: a field of struct type, read, written and built.
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

/// A struct holding two nested structs and a byte after them.
#[nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Particle {
    pub pos: Vec2,
    pub vel: Vec2,
    pub alive: bool,
    pub mass: f64,
}

fn step(p: Particle, dt: f32) -> Particle {
    let mut q = p;
    q.pos.x += q.vel.x * dt;
    q.pos.y += q.vel.y * dt;
    if q.pos.y < 0.0 {
        q.vel = Vec2 {
            x: q.vel.x,
            y: -q.vel.y,
        };
        q.alive = false;
    }
    q.mass *= 2.0;
    q
}

#[test]
fn nested_structs_step_on_both_engines() {
    let n = 513usize;
    let make = |i: usize| Particle {
        pos: Vec2 {
            x: i as f32,
            y: (i % 7) as f32,
        },
        vel: Vec2 {
            x: 0.5,
            y: -((i % 4) as f32),
        },
        alive: i.is_multiple_of(2),
        mass: 1.0 + i as f64,
    };
    let dt = 2.0f32;
    let want: Vec<Particle> = (0..n).map(|i| step(make(i), dt)).collect();
    check(want, || {
        let mut ps = NuArray1::from_fn(n, make);
        nuwork!(64; nfor!(i in n {
            let mut q: Particle = ps[i];
            q.pos.x += q.vel.x * dt;
            q.pos.y += q.vel.y * dt;
            if q.pos.y < 0.0 {
                q.vel = Vec2 { x: q.vel.x, y: -q.vel.y };
                q.alive = false;
            }
            q.mass *= 2.0;
            ps[i] = q;
        }))?;
        Ok(vec_of(&ps))
    });
}

/// A `#[nukernel]` with a struct parameter by value and an array of structs; a `NuVec` of
/// structs filled by `push`.
#[nukernel]
fn shift_bodies(bodies: &mut NuArray1<Body>, by: Body, n: usize) {
    let g = global_id(0);
    if g < n {
        let mut b = bodies[g];
        b.x += by.x;
        b.id += by.id;
        bodies[g] = b;
    }
}

#[test]
fn struct_parameters_of_a_nukernel_and_a_nuvec_of_structs() {
    let n = 300usize;
    let by = Body {
        x: 0.5,
        y: 0.0,
        m: 0.0,
        id: 1000,
    };
    let shifted: Vec<Body> = (0..n)
        .map(|i| Body {
            x: body(i).x + 0.5,
            id: body(i).id + 1000,
            ..body(i)
        })
        .collect();
    let heavy: Vec<Body> = shifted.iter().copied().filter(|b| b.m > 2.0).collect();
    for d in common::engines() {
        let mut bodies = NuArray1::from_fn(n, body);
        nucall!(d.index, [n], [64]; shift_bodies(&mut bodies, by, n)).unwrap();
        assert_eq!(bodies.to_vec(), shifted, "{}", d.name);
        let mut kept = NuVec::<Body>::new();
        nuda::with_device(
            d.index,
            || nuwork!(64; nfor!(i in n { if bodies[i].m > 2.0 { kept.push(bodies[i]); } })),
        )
        .unwrap()
        .unwrap();
        assert_eq!(kept.to_vec(), heavy, "{}", d.name);
    }
}

/// Arrays of structs in two and three dimensions, read and written by a 2-D and a 3-D nest.
#[test]
fn structs_in_two_and_three_dimensional_arrays() {
    let (w, h, d) = (13usize, 7usize, 3usize);
    let cell = |(x, y): (usize, usize)| Body {
        x: x as f32,
        y: y as f32,
        m: 1.0 + ((x * y) % 3) as f32,
        id: (y * w + x) as u32,
    };
    let mixed = |(i, j, k): (usize, usize, usize)| Mixed {
        big: ((i * 100 + j * 10 + k) as u64) << 33,
        x: (i + j + k) as f64 * 0.5,
        tag: (i * j * k) as u8,
    };
    let step = |b: Body| Body {
        x: b.x + b.y,
        id: b.id * 2,
        ..b
    };
    let want2: Vec<Body> = (0..w * h).map(|f| step(cell((f / h, f % h)))).collect();
    let want3: Vec<(u64, u64, u8)> = (0..h * w * d)
        .map(|f| {
            let m = mixed((f / (w * d), (f / d) % w, f % d));
            (m.big + 1, (m.x * 2.0).to_bits(), m.tag ^ 1)
        })
        .collect();
    check((want2, want3), || {
        let g = NuArray2::from_fn((w, h), cell);
        let mut out = NuArray2::<Body>::new((w, h));
        nuwork!(4, 4; nfor!((x, y) in (w, h) {
            let b = g[(x, y)];
            out[(x, y)] = Body { x: b.x + b.y, id: b.id * 2, ..b };
        }))?;
        let c = NuArray3::from_fn((h, w, d), mixed);
        let mut o3 = NuArray3::<Mixed>::new((h, w, d));
        nuwork!(1, 4, 2; nfor!((i, j, k) in (h, w, d) {
            let m = c[(i, j, k)];
            o3[(i, j, k)] = Mixed { big: m.big + 1, x: m.x * 2.0, tag: m.tag ^ 1 };
        }))?;
        let bits = o3
            .to_vec()
            .iter()
            .map(|m| (m.big, m.x.to_bits(), m.tag))
            .collect();
        Ok((out.to_vec(), bits))
    });
}
