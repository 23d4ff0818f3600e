//! The proof's intervals and programs, on hand-written programs.

use super::interval::{IntTy, Iv};
use super::run::prove_with;
use super::Cmp;
use super::{Bin, Input, Inputs, Mapped, Op, Ty, NONE};
use crate::fault::{Site, SiteKind};
use crate::macro_support::Fill;

#[test]
fn interval_arithmetic_follows_rust() {
    let a = Iv::new(-7, 9);
    assert_eq!(a.div(Iv::new(2, 3)), Iv::new(-3, 4));
    assert_eq!(
        a.div(Iv::new(-1, 1)),
        Iv::new(-9, 9),
        "a zero divisor gives 0"
    );
    assert_eq!(a.rem(Iv::point(4)), Iv::new(-3, 3));
    assert_eq!(
        Iv::new(0, 100).refine(Cmp::Lt, Iv::point(10)),
        Iv::new(0, 9)
    );
    assert_eq!(
        Iv::new(0, 100).refine(Cmp::Ge, Iv::point(1)),
        Iv::new(1, 100)
    );
    assert!(Iv::new(5, 2).is_empty() && Iv::EMPTY.within(0, 0));
    let u8t = IntTy::of("uchar").unwrap();
    assert_eq!(
        u8t.wrap(Iv::new(250, 260)),
        Iv::new(0, 255),
        "a wrapping value is anything"
    );
    assert_eq!(
        IntTy::of("nu_idx").unwrap().narrow(),
        Iv::new(0, u32::MAX.into())
    );
}

static SITES: [Site; 2] = [
    Site::new(SiteKind::Read, "a", 1, "t.rs", 1, 1),
    Site::new(SiteKind::Divide, "", 0, "t.rs", 2, 1),
];

/// `a[i + off]` over a mapped `i` in `0..n`, then `x / (i + d)`, with usize `i`.
fn program(off: i128, d: i128) -> Vec<Op> {
    let u = Ty::Cl("nu_idx");
    vec![
        Op::Mapped(0, 0, u),           // 0: i
        Op::Lit(off, u),               // 1
        Op::Bin(Bin::Add, 0, 1, u, 1), // 2: i + off
        Op::Index {
            site: 0,
            cap: 0,
            idx: [2, NONE, NONE],
        },
        Op::Lit(d, u),                 // 4
        Op::Bin(Bin::Add, 0, 4, u, 2), // 5: i + d
        Op::Divide {
            site: 1,
            a: 0,
            b: 5,
            ty: u,
        },
    ]
}

fn run(prog: &[Op], n: usize, len: usize) -> crate::macro_support::Variant {
    let fills: [Fill; 0] = [];
    let captures = [Input::Array([len, 1, 1], 1, "float")];
    let hull = (n > 0).then(|| (0, n as i128 - 1));
    let mapped = [Mapped {
        hull,
        first_step: (0, 1),
        trips: n,
    }];
    let inputs = Inputs {
        fills: &fills,
        captures: &captures,
        mapped: &[&mapped],
        work: None,
        calls: &[],
        unchecked: false,
    };
    prove_with(prog, &SITES, &inputs)
}

#[test]
fn checks_go_exactly_where_the_values_allow() {
    assert_eq!(run(&program(0, 1), 10, 10).checks, vec![false, false]);
    assert_eq!(
        run(&program(1, 1), 10, 10).checks,
        vec![true, false],
        "i + 1 reaches 10"
    );
    assert_eq!(
        run(&program(0, 0), 10, 10).checks,
        vec![false, true],
        "i + 0 may be 0"
    );
    assert_eq!(
        run(&program(5, 0), 0, 3).checks,
        vec![false, false],
        "no iteration"
    );
}

#[test]
fn usize_is_narrow_only_when_every_value_fits() {
    let v = run(&program(0, 1), 10, 10);
    assert!(!v.wide, "{}", v.why);
    let v = run(&program(5_000_000_000, 1), 10, 10);
    assert!(v.wide && v.why.contains("usize value"), "{}", v.why);
    let v = run(&program(0, 1), 10, 5_000_000_000);
    assert!(v.wide && v.why.contains("elements"), "{}", v.why);
}

#[test]
fn refinement_proves_a_guarded_stencil() {
    // if i > 0 { a[i - 1] }: i - 1 never wraps inside the branch.
    let u = Ty::Cl("nu_idx");
    let prog = vec![
        Op::Mapped(0, 0, u),           // 0: i
        Op::Lit(0, u),                 // 1
        Op::Refine(0, Cmp::Gt, 1),     // 2: i, knowing i > 0
        Op::Lit(1, u),                 // 3
        Op::Bin(Bin::Sub, 2, 3, u, 1), // 4: i - 1
        Op::Index {
            site: 0,
            cap: 0,
            idx: [4, NONE, NONE],
        },
    ];
    let v = run(&prog, 10, 10);
    assert_eq!((v.checks[0], v.wide), (false, false), "{}", v.why);
    let unguarded = vec![
        prog[0],
        prog[1],
        prog[3],
        Op::Bin(Bin::Sub, 0, 2, u, 1),
        Op::Index {
            site: 0,
            cap: 0,
            idx: [3, NONE, NONE],
        },
    ];
    let v = run(&unguarded, 10, 10);
    assert!(v.checks[0] && v.wide, "0 - 1 wraps to usize::MAX");
}

/// A `usize` read from a struct field or a private array may be any 64-bit value: the launch
/// needs 64-bit `usize`; a `u32` read does not.
#[test]
fn usize_values_loaded_from_fields_need_64_bits() {
    let run = |ty: &'static str| {
        let fills = [Fill::Type(ty)];
        prove_with(&[Op::Loaded(Ty::Slot(0))], &[], &Inputs::of_fills(&fills))
    };
    assert!(run("nu_idx").wide);
    assert!(!run("uint").wide);
}
