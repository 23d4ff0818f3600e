//! Whether a system of affine equalities and inequalities has an integer solution (checks
//! layer, `depend`). Sound in one direction only: `false` is a proof that none exists, `true`
//! may be wrong (the dependence test then refuses a nest it could have accepted).
//!
//! Equalities with a coefficient ±1 are solved for that unknown and substituted, which keeps
//! integer solutions exact; the rest are divided by their coefficients' gcd, which fails
//! when it does not divide the constant (the GCD test), and become two inequalities.
//! Inequalities are tightened to integers (`2x ≥ 1` is `x ≥ 1`) and eliminated one unknown
//! at a time (Fourier–Motzkin), which fails on a constant below zero (Banerjee's bounds test
//! is the one-equation case).

use super::affine::{Affine, Atom};
use std::collections::BTreeSet;

/// Past this many inequalities the elimination gives up (and answers `true`).
const MOST: usize = 4000;

/// Past this magnitude a number could overflow `i128` in the next combination: give up.
const HUGE: i128 = 1 << 60;

/// Whether any number of `rows` is past `HUGE`.
fn huge(rows: &[Affine]) -> bool {
    rows.iter()
        .any(|r| r.constant.abs() > HUGE || r.terms.values().any(|c| c.abs() > HUGE))
}

/// Whether `eqs` (each `= 0`) and `ineqs` (each `≥ 0`) may have an integer solution.
pub fn feasible(mut eqs: Vec<Affine>, mut ineqs: Vec<Affine>) -> bool {
    while let Some(e) = eqs.pop() {
        let Some(e) = normalize_eq(e) else {
            return false;
        };
        if e.terms.is_empty() {
            continue;
        }
        match e
            .terms
            .iter()
            .find(|(_, c)| c.abs() == 1)
            .map(|(a, c)| (a.clone(), *c))
        {
            Some((atom, c)) => {
                let eliminate = |f: &Affine| match f.terms.get(&atom) {
                    Some(&d) => f.add_scaled(&e, -d * c),
                    None => f.clone(),
                };
                eqs = eqs.iter().map(eliminate).collect();
                ineqs = ineqs.iter().map(eliminate).collect();
                if huge(&eqs) || huge(&ineqs) {
                    return true;
                }
            }
            None => {
                ineqs.push(e.scale(-1));
                ineqs.push(e);
            }
        }
    }
    eliminate_all(ineqs)
}

/// The equality divided by its coefficients' gcd; `None` if it has no integer solution.
fn normalize_eq(e: Affine) -> Option<Affine> {
    let g = e.terms.values().fold(0, |g, c| gcd(g, c.abs()));
    match g {
        0 => (e.constant == 0).then_some(e),
        g if e.constant % g != 0 => None,
        g => Some(divide(&e, g, e.constant / g)),
    }
}

/// `e` with every coefficient divided by `g`, and `constant`.
fn divide(e: &Affine, g: i128, constant: i128) -> Affine {
    Affine {
        terms: e.terms.iter().map(|(a, c)| (a.clone(), c / g)).collect(),
        constant,
    }
}

/// An inequality `Σ c·a + k ≥ 0` tightened for integers: `Σ (c/g)·a + ⌊k/g⌋ ≥ 0`.
fn tighten(f: Affine) -> Affine {
    let g = f.terms.values().fold(0, |g, c| gcd(g, c.abs()));
    match g {
        0 | 1 => f,
        g => divide(&f, g, f.constant.div_euclid(g)),
    }
}

/// Fourier–Motzkin: `false` once a constant inequality fails.
fn eliminate_all(ineqs: Vec<Affine>) -> bool {
    let mut rows: Vec<Affine> = ineqs.into_iter().map(tighten).collect();
    loop {
        if rows.iter().any(|r| r.terms.is_empty() && r.constant < 0) {
            return false;
        }
        rows.retain(|r| !r.terms.is_empty());
        let atoms: BTreeSet<Atom> = rows.iter().flat_map(|r| r.terms.keys().cloned()).collect();
        let Some(atom) = atoms.into_iter().min_by_key(|a| cost(&rows, a)) else {
            return true;
        };
        rows = eliminate(&rows, &atom);
        if rows.len() > MOST || huge(&rows) {
            return true;
        }
    }
}

/// How many rows eliminating `a` makes.
fn cost(rows: &[Affine], a: &Atom) -> usize {
    let (pos, neg) = rows.iter().fold((0, 0), |(p, n), r| match r.terms.get(a) {
        Some(c) if *c > 0 => (p + 1, n),
        Some(_) => (p, n + 1),
        None => (p, n),
    });
    pos * neg
}

/// The rows without `a`: those that have it, combined pairwise with opposite signs.
fn eliminate(rows: &[Affine], a: &Atom) -> Vec<Affine> {
    let coef = |r: &Affine| r.terms.get(a).copied().unwrap_or(0);
    let (pos, neg): (Vec<&Affine>, Vec<&Affine>) = rows
        .iter()
        .filter(|r| coef(r) != 0)
        .partition(|r| coef(r) > 0);
    let mut out: Vec<Affine> = rows.iter().filter(|r| coef(r) == 0).cloned().collect();
    for p in &pos {
        for n in &neg {
            // c_p > 0, c_n < 0: (-c_n)·p + c_p·n has no `a`.
            let combined = p.scale(-coef(n)).add_scaled(n, coef(p));
            out.push(tighten(combined));
        }
    }
    out
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
