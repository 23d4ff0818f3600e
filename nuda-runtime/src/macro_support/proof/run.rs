//! Evaluating a proof program over intervals: each op's register is the interval of values it
//! can take in any execution of the launch; each check op marks its site safe or not; each
//! `usize` value that may leave 32 bits makes the program's `usize` 64-bit.

use super::interval::{IntTy, Iv};
use super::{Bin, Input, Inputs, Item, Mapped, Op, Reg, Ty, NONE};
use crate::error::Result;
use crate::fault::Site;
use crate::macro_support::program::{cycle_once, once_per_function, Fill, Known, Nucode, Variant};
use std::cell::Cell;

/// The variant a launch needs: the checks its values cannot rule out, and `usize` 32-bit
/// where that provably changes no result. `NUDA_PROOF=0` (or [`keeping_checks`]) keeps
/// every check instead.
pub fn prove(program: &[Op], sites: &[Site], inputs: &Inputs<'_>) -> Result<Variant> {
    if let Some(cycle) = inputs.calls.iter().find_map(|f| cycle_once(f)) {
        return Err(crate::Error::Launch {
            kernel: format!("a kernel calling #[nucode] fn `{}`", cycle[0]),
            device: "every device".into(),
            reason: format!("the #[nucode] functions {} call each other in a cycle, and kernels cannot recurse (OpenCL C has no recursion); write the recursion as a loop", cycle.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" -> ")),
        });
    }
    let off = KEEP.with(Cell::get) > 0;
    if off || !crate::config::config().proof.clone()? {
        let mut v = Variant::checked(sites, inputs.unchecked);
        v.why = "64-bit as in Rust (the launch-time proof is off)".into();
        return Ok(v);
    }
    Ok(prove_with(program, sites, inputs))
}

thread_local! {
    /// How many [`keeping_checks`] scopes this thread is in.
    static KEEP: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` with the launch-time proof off for every kernel it launches on this thread, as
/// `NUDA_PROOF=0` does for the process: every check stays and `usize` is 64-bit. The bench
/// uses it to show what the proof saves.
pub fn keeping_checks<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            KEEP.with(|k| k.set(k.get() - 1));
        }
    }
    KEEP.with(|k| k.set(k.get() + 1));
    let _leave = Leave;
    f()
}

/// [`prove`], whatever the environment says.
pub fn prove_with(program: &[Op], sites: &[Site], inputs: &Inputs<'_>) -> Variant {
    let mut run = Run::new(inputs, sites.len());
    run.inputs();
    for op in program {
        let v = run.op(op);
        run.regs.push(v);
    }
    run.variant(sites)
}

struct Run<'a> {
    inputs: &'a Inputs<'a>,
    regs: Vec<Iv>,
    /// Per site: some op covers it, and some op found it possibly out of range.
    covered: Vec<bool>,
    failed: Vec<bool>,
    /// Why `usize` must be 64-bit, if it must.
    wide: Option<String>,
}

impl<'a> Run<'a> {
    fn new(inputs: &'a Inputs<'a>, sites: usize) -> Self {
        Run {
            inputs,
            regs: Vec::new(),
            covered: vec![false; sites],
            failed: vec![false; sites],
            wide: None,
        }
    }

    fn variant(self, sites: &[Site]) -> Variant {
        let checks = sites
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let proved = self.covered[k] && !self.failed[k];
                !(proved || self.inputs.unchecked && s.is_bounds())
            })
            .collect();
        let (wide, why) = match self.wide {
            Some(why) => (true, why),
            None => (false, "every usize value provably stays below 2^32".into()),
        };
        Variant {
            checks,
            wide,
            why,
            zero: Vec::new(),
        }
    }

    fn widen(&mut self, why: impl FnOnce() -> String) {
        if self.wide.is_none() {
            self.wide = Some(why());
        }
    }

    /// The launch's values that reach the kernel as `usize` must fit 32 bits themselves.
    fn inputs(&mut self) {
        let inputs = self.inputs;
        for c in inputs.captures {
            match *c {
                Input::Int(v, t) if is_index(t) && !fits(t, v) => {
                    self.widen(|| format!("a captured usize or isize is {v}"))
                }
                Input::Array(d, rank, _) => {
                    let len: u128 = d[..rank].iter().map(|&x| x as u128).product();
                    if len > u32::MAX.into() {
                        self.widen(|| format!("an array has {len} elements"));
                    }
                    // An empty array's other dims may be anything.
                    if let Some(&big) = d[..rank].iter().find(|&&x| x as u64 > u32::MAX.into()) {
                        self.widen(|| format!("an array has a dim of {big}"));
                    }
                }
                Input::Image(w, h) if w.max(h) as u64 > u32::MAX.into() => {
                    self.widen(|| format!("an image is {w} by {h}"))
                }
                _ => {}
            }
        }
        for m in inputs.mapped.iter().flat_map(|k| k.iter()) {
            let (f, s) = m.first_step;
            let small = |v: i128| (i32::MIN.into()..=u32::MAX.into()).contains(&v);
            if m.trips as u64 > u64::from(u32::MAX) || !small(f) || !small(s) {
                self.widen(|| format!("a mapped loop runs {} times from {f} by {s}", m.trips));
            }
        }
        if let Some((g, _)) = inputs.work {
            if g.iter().any(|&x| x as u64 > u64::from(u32::MAX)) {
                self.widen(|| format!("the global size {g:?} needs 64 bits"));
            }
        }
        for f in inputs.calls {
            if let Some(why) = function_wide_once(f) {
                self.widen(|| why);
            }
        }
    }

    fn reg(&self, r: Reg) -> Iv {
        self.regs.get(r as usize).copied().unwrap_or(Iv::TOP)
    }

    fn ty(&self, t: Ty) -> Option<IntTy> {
        match t {
            Ty::Cl(name) => IntTy::of(name),
            Ty::Slot(k) => match self.inputs.fills.get(k as usize) {
                Some(Fill::Type(name)) => IntTy::of(name),
                _ => None,
            },
        }
    }

    /// The value `exact` computed in type `t`: wrapped to the type, and noted if it is a
    /// `usize` that may leave 32 bits.
    fn typed(&mut self, exact: Iv, t: Ty, line: u32) -> Iv {
        let Some(it) = self.ty(t) else {
            return Iv::TOP;
        };
        if it.index && !exact.within(it.narrow().lo, it.narrow().hi) {
            self.widen(|| match line {
                0 => "a usize value may leave 32 bits".into(),
                l => format!("a usize value at line {l} may leave 32 bits"),
            });
        }
        it.wrap(exact)
    }

    fn op(&mut self, op: &Op) -> Iv {
        match *op {
            Op::Lit(v, t) => self.typed(Iv::point(v), t, 0),
            Op::Top => Iv::TOP,
            Op::Var(t) => self.ty(t).map_or(Iv::TOP, IntTy::range),
            Op::Scalar(k) => self.scalar(k),
            Op::Dim(k, d) => self.dim(k, d),
            Op::Len(k) => self.len(k),
            Op::Elem(k) => self.elem(k),
            Op::Loaded(t) => self.loaded(t),
            Op::Mapped(k, d, t) => self.mapped(k, d, t),
            Op::Item(it, d) => self.item(it, d),
            Op::Un(neg, a, t, line) => self.un(neg, a, t, line),
            Op::Bin(b, x, y, t, line) => self.bin(b, x, y, t, line),
            Op::Cast(a, t, line) => {
                let v = self.reg(a);
                let range = self.ty(t).map(IntTy::range);
                match range {
                    Some(rg) if v.within(rg.lo, rg.hi) => self.typed(v, t, line),
                    Some(rg) => self.typed(rg, t, line),
                    None => Iv::TOP,
                }
            }
            Op::MinMax(max, a, b) => match max {
                true => self.reg(a).max(self.reg(b)),
                false => self.reg(a).min(self.reg(b)),
            },
            Op::Abs(a, t, line) => {
                let v = self.reg(a).abs();
                self.typed(v, t, line)
            }
            Op::Bits(t, line) => {
                self.width_matters(t, line);
                Iv::new(0, self.ty(t).map_or(64, |i| i.bits).into())
            }
            Op::Rotate(t, line) => {
                self.width_matters(t, line);
                self.ty(t).map_or(Iv::TOP, IntTy::range)
            }
            Op::Hull(a, b) => self.reg(a).hull(self.reg(b)),
            Op::Refine(a, c, b) => self.reg(a).refine(c, self.reg(b)),
            Op::Range { .. } | Op::Trips { .. } | Op::Offset { .. } => self.looped(op),
            Op::Index { .. } | Op::Image { .. } | Op::Divide { .. } | Op::Step { .. } => {
                self.check(op);
                Iv::TOP
            }
        }
    }

    /// Counting, rotating, swapping or raising a `usize`'s bits answers by its width, so it
    /// needs 64 bits.
    fn width_matters(&mut self, t: Ty, line: u32) {
        if self.ty(t).is_some_and(|it| it.index) {
            self.widen(|| format!("line {line} counts, rotates, swaps or raises a usize's bits"));
        }
    }

    fn capture(&self, k: u16) -> Option<Input> {
        self.inputs.captures.get(usize::from(k)).copied()
    }

    fn scalar(&self, k: u16) -> Iv {
        match self.capture(k) {
            Some(Input::Int(v, _)) => Iv::point(v),
            _ => Iv::TOP,
        }
    }

    fn dim(&self, k: u16, d: u8) -> Iv {
        match self.capture(k) {
            Some(Input::Array(dims, ..)) => Iv::point(dims[usize::from(d).min(2)] as i128),
            Some(Input::Image(w, h)) => Iv::point(if d == 0 { w } else { h } as i128),
            _ => Iv::TOP,
        }
    }

    fn len(&self, k: u16) -> Iv {
        match self.capture(k) {
            Some(Input::Array(dims, rank, _)) => {
                Iv::point(dims[..rank].iter().map(|&x| x as i128).product())
            }
            Some(Input::Image(w, h)) => Iv::point((w * h) as i128),
            _ => Iv::TOP,
        }
    }

    fn elem(&mut self, k: u16) -> Iv {
        match self.capture(k) {
            Some(Input::Array(_, _, t)) => {
                // A `usize` read from memory may be any 64-bit value, and a 32-bit `nu_idx`
                // holding it would drop its high bits.
                if matches!(t, "nu_word" | "nu_sword") {
                    self.widen(|| "a kernel reads a usize or isize array".into());
                }
                IntTy::of(t).map_or(Iv::TOP, IntTy::range)
            }
            _ => Iv::TOP,
        }
    }

    /// A value read from a struct's field or a private array. As for an array element, a
    /// `usize` there may be any 64-bit value.
    fn loaded(&mut self, t: Ty) -> Iv {
        match self.ty(t) {
            Some(it) if it.index => {
                self.widen(|| {
                    "a kernel reads a usize or isize from a struct field or a private array".into()
                });
                it.range()
            }
            Some(it) => it.range(),
            None => Iv::TOP,
        }
    }

    fn mapped(&mut self, k: u16, d: u8, t: Ty) -> Iv {
        let m: Option<&Mapped> = self
            .inputs
            .mapped
            .get(usize::from(k))
            .and_then(|ms| ms.get(usize::from(d)));
        match m.map(|m| m.hull) {
            Some(Some((lo, hi))) => self.typed(Iv::new(lo, hi), t, 0),
            Some(None) => Iv::EMPTY,
            None => Iv::TOP,
        }
    }

    fn item(&self, it: Item, d: Reg) -> Iv {
        let Some((global, local)) = self.inputs.work else {
            return Iv::TOP;
        };
        let dv = self.reg(d);
        // Dimension 3 stands for every dimension past the NDRange's (ids 0, sizes 1): the
        // builtins answer those too, and a kernel may ask.
        let beyond = !dv.is_empty() && (dv.hi >= 3 || dv.lo < 0);
        let dims: Vec<usize> = (0..4)
            .filter(|&k| if k < 3 { dv.holds(k as i128) } else { beyond })
            .collect();
        let one = |k: usize| -> Iv {
            let (g, l) = (*global.get(k).unwrap_or(&1), *local.get(k).unwrap_or(&1));
            let l = l.max(1);
            let n = |v: usize| v as i128;
            match it {
                Item::GlobalId => Iv::new(0, n(g) - 1),
                Item::LocalId => Iv::new(0, n(l) - 1),
                Item::GroupId => Iv::new(0, n(g / l) - 1),
                Item::GlobalSize => Iv::point(n(g)),
                Item::LocalSize => Iv::point(n(l)),
                Item::NumGroups => Iv::point(n(g / l)),
            }
        };
        dims.into_iter().map(one).fold(Iv::EMPTY, Iv::hull)
    }

    fn un(&mut self, neg: bool, a: Reg, t: Ty, line: u32) -> Iv {
        let v = self.reg(a);
        let Some(it) = self.ty(t) else {
            return Iv::TOP;
        };
        let exact = match (neg, it.min < 0) {
            (true, _) => v.neg(),
            // `!x` is `-x - 1` for signed types, `MAX - x` for unsigned ones.
            (false, true) => v.neg().sub(Iv::point(1)),
            (false, false) => Iv::point(it.max).sub(v),
        };
        self.typed(exact, t, line)
    }

    fn bin(&mut self, b: Bin, x: Reg, y: Reg, t: Ty, line: u32) -> Iv {
        let (a, c) = (self.reg(x), self.reg(y));
        let Some(it) = self.ty(t) else {
            return if b == Bin::Bool {
                Iv::new(0, 1)
            } else {
                Iv::TOP
            };
        };
        let exact = match b {
            Bin::Add => a.add(c),
            Bin::Sub => a.sub(c),
            Bin::Mul => a.mul(c),
            Bin::Div => a.div(c),
            Bin::Rem => a.rem(c),
            Bin::And | Bin::Or | Bin::Xor => bitwise(b, a, c, it),
            Bin::Shl | Bin::Shr => self.shift(b, a, c, it, line),
            Bin::Bool => return Iv::new(0, 1),
        };
        self.typed(exact, t, line)
    }

    /// A shift by an amount within the width is exact; the amount is masked to the width
    /// otherwise, and a `usize` shift by 32 or more masks differently in 32 bits.
    fn shift(&mut self, b: Bin, a: Iv, c: Iv, it: IntTy, line: u32) -> Iv {
        if it.index && !c.within(0, 31) {
            self.widen(|| format!("a usize shift at line {line} may shift by 32 or more"));
        }
        if !c.within(0, i128::from(it.bits) - 1) || a.is_empty() || c.is_empty() {
            return it.range();
        }
        let f = |x: i128, s: i128| match b {
            Bin::Shl => x.checked_mul(1i128.checked_shl(s as u32)?),
            _ => Some(x >> s),
        };
        a.corners(c, f)
    }

    fn looped(&mut self, op: &Op) -> Iv {
        match *op {
            Op::Range {
                start,
                end,
                step,
                incl,
                ty,
                line,
            } => {
                let v = self.range_values(start, end, step, incl);
                self.trips_fit(v, line);
                self.typed(v, ty, line)
            }
            Op::Trips {
                site,
                start,
                end,
                step,
                incl,
                line,
            } => {
                let v = self.range_values(start, end, step, incl);
                let n = if v.is_empty() { 0 } else { v.hi - v.lo + 1 };
                // 2^64 iterations have no usize count: the site's check must stay.
                if n > i128::from(u64::MAX) {
                    self.fail(site);
                }
                self.typed(Iv::new(0, n), Ty::Cl("nu_idx"), line)
            }
            Op::Offset {
                start,
                count,
                step,
                ty,
                line,
            } => {
                let s = if step == NONE {
                    Iv::point(1)
                } else {
                    self.reg(step)
                };
                let v = self.reg(start).add(self.reg(count).mul(s));
                self.typed(v, ty, line)
            }
            _ => Iv::TOP,
        }
    }

    /// Every value a loop variable takes (a superset), by the step's sign. With a known
    /// start and step the last value is the start plus a whole number of steps, so a loop
    /// `(0..8).step_by(4)` ends at 4, not 7.
    fn range_values(&self, start: Reg, end: Reg, step: Reg, incl: bool) -> Iv {
        let (a, b) = (self.reg(start), self.reg(end));
        let s = if step == NONE {
            Iv::point(1)
        } else {
            self.reg(step)
        };
        let shy = if incl { 0 } else { 1 };
        let whole = |from: i128, to: i128, by: i128| from + (to - from).div_euclid(by) * by;
        let exact = a.lo == a.hi && s.lo == s.hi;
        if s.lo > 0 {
            let hi = b.hi.saturating_sub(shy);
            let hi = if exact && hi >= a.lo {
                whole(a.lo, hi, s.lo)
            } else {
                hi
            };
            Iv::new(a.lo, hi)
        } else if s.hi < 0 {
            let lo = b.lo.saturating_add(shy);
            let lo = if exact && lo <= a.hi {
                a.hi - (a.hi - lo).div_euclid(-s.hi) * -s.hi
            } else {
                lo
            };
            Iv::new(lo, a.hi)
        } else {
            a.hull(b)
        }
    }

    /// A loop counts its iterations in `usize`.
    fn trips_fit(&mut self, v: Iv, line: u32) {
        if !v.is_empty() && v.hi - v.lo >= i128::from(u32::MAX) {
            self.widen(|| format!("the loop at line {line} may run 2^32 times or more"));
        }
    }

    fn check(&mut self, op: &Op) {
        let (site, ok) = match *op {
            Op::Index { site, cap, idx } => (site, self.index_ok(cap, idx)),
            Op::Image { site, cap, x, y } => {
                let (w, h) = (self.dim(cap, 0), self.dim(cap, 1));
                let inside = |v: Iv, n: Iv| v.is_empty() || (v.lo >= 0 && v.hi < n.lo);
                (site, inside(self.reg(x), w) && inside(self.reg(y), h))
            }
            Op::Divide { site, a, b, ty } => {
                self.narrow_min_over(a, b, ty);
                (site, self.division_ok(a, b, ty))
            }
            Op::Step { site, step } => (site, step == NONE || !self.reg(step).holds(0)),
            _ => return,
        };
        self.mark(site, ok);
    }

    fn mark(&mut self, site: u32, ok: bool) {
        let k = site as usize;
        if k < self.covered.len() {
            self.covered[k] = true;
            self.failed[k] |= !ok;
        }
    }

    fn fail(&mut self, site: u32) {
        self.mark(site, false);
    }

    fn index_ok(&self, cap: u16, idx: [Reg; 3]) -> bool {
        let Some(Input::Array(dims, rank, _)) = self.capture(cap) else {
            return false;
        };
        let regs: Vec<Iv> = idx[..rank.min(3)].iter().map(|&r| self.reg(r)).collect();
        if regs.iter().any(|v| v.is_empty()) {
            return true;
        }
        regs.iter()
            .zip(dims)
            .all(|(v, d)| v.lo >= 0 && v.hi < d as i128)
    }

    /// A 32-bit `isize` overflows on `-2^31 / -1` and `-2^31 % -1`, which a 64-bit one
    /// computes (the quotient leaves 32 bits, but the remainder is a plain 0).
    fn narrow_min_over(&mut self, a: Reg, b: Reg, ty: Ty) {
        let Some(it) = self.ty(ty).filter(|it| it.index && it.min < 0) else {
            return;
        };
        let (x, y) = (self.reg(a), self.reg(b));
        if x.holds(it.narrow().lo) && y.holds(-1) {
            self.widen(|| "an isize division may divide -2^31 by -1".into());
        }
    }

    fn division_ok(&self, a: Reg, b: Reg, ty: Ty) -> bool {
        let Some(it) = self.ty(ty) else {
            return true; // floats divide by zero as IEEE says
        };
        let (x, y) = (self.reg(a), self.reg(b));
        let overflow = it.min < 0 && x.holds(it.min) && y.holds(-1);
        !y.holds(0) && !overflow
    }
}

/// [`function_wide`], once per function per process.
fn function_wide_once(f: &'static Nucode) -> Option<String> {
    static KNOWN: Known<Option<String>> = std::sync::Mutex::new(Vec::new());
    once_per_function(&KNOWN, f, || function_wide(f, &mut Vec::new()))
}

/// Why `f` (or a function it calls) needs a 64-bit `usize`, if it does: its body's program,
/// run with its parameters unknown, computes a `usize` value that may leave 32 bits. (Its
/// arguments are the caller's values, which the caller's own program bounds.)
fn function_wide(f: &'static Nucode, seen: &mut Vec<*const Nucode>) -> Option<String> {
    if seen.contains(&(f as *const Nucode)) {
        return None;
    }
    seen.push(f);
    let fills = (f.types)();
    let v = prove_with(f.proof, &[], &Inputs::of_fills(&fills));
    if v.wide {
        return Some(format!("#[nucode] fn `{}`: {}", f.name, v.why));
    }
    (f.calls)().iter().find_map(|g| function_wide(g, seen))
}

fn is_index(cl: &str) -> bool {
    matches!(cl, "nu_idx" | "nu_sidx")
}

fn fits(cl: &str, v: i128) -> bool {
    match cl {
        "nu_sidx" => i32::try_from(v).is_ok(),
        _ => u32::try_from(v).is_ok(),
    }
}

/// `&`, `|`, `^` on non-negative operands stay below the next power of two; otherwise any
/// value of the type.
fn bitwise(b: Bin, a: Iv, c: Iv, it: IntTy) -> Iv {
    if a.is_empty() || c.is_empty() {
        return Iv::EMPTY;
    }
    if a.lo < 0 || c.lo < 0 {
        return it.range();
    }
    match b {
        Bin::And => Iv::new(0, a.hi.min(c.hi)),
        _ => {
            let top = a.hi.max(c.hi);
            let bits = 128 - top.leading_zeros();
            Iv::new(0, (1i128 << bits.min(126)) - 1)
        }
    }
}
