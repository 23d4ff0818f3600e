//! Reduction operators (the contract both sides read): the compiler recognises them in a loop
//! body and names them in the generated code; the runtime's `Reduce` impls give each its
//! identity and combine step. Everything about an operator is its row of [`RED_OPS`]; a new
//! operator is a variant of [`RedOp`] and a row.

/// A reduction's operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedOp {
    /// `+=` and `-=`; integers wrap.
    Add,
    /// `*=`; integers wrap.
    Mul,
    /// `&=`.
    And,
    /// `|=`.
    Or,
    /// `^=`.
    Xor,
    /// `s = s.min(e)` (floats: `f32::min`, which ignores a NaN operand, as OpenCL's `fmin`).
    Min,
    /// `s = s.max(e)`.
    Max,
}

/// An integer identity, which depends on the type's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntIdentity {
    /// 0.
    Zero,
    /// 1.
    One,
    /// Every bit set.
    AllOnes,
    /// The type's largest value.
    Max,
    /// The type's smallest value.
    Min,
}

/// One operator: how users write it, how generated code names it, and what it computes.
#[derive(Debug, Clone, Copy)]
pub struct RedSpec {
    /// The operator.
    pub op: RedOp,
    /// The variant's name, as generated code spells it.
    pub name: &'static str,
    /// The compound assignments that update with it (`+=` and `-=` both sum: each partial
    /// starts at zero and subtracts, and partials add).
    pub compound: &'static [&'static str],
    /// The method of `s = s.m(e)` that updates with it.
    pub method: Option<&'static str>,
    /// The kernel-template operation combining two partials: an `O` placeholder's
    /// operation, or (`true`) an `F` placeholder's function (`fmin`/`fmax` for floats).
    pub template: (&'static str, bool),
    /// Its identity on integers.
    pub int_identity: IntIdentity,
    /// `a op b` on integers, computed on `i128` and truncated to the type (exact for the
    /// wrapping sum and product, the bitwise operators, `min` and `max` of any type up to 64
    /// bits).
    pub int_combine: fn(i128, i128) -> i128,
    /// On floats: the identity (Rust's: -0.0 for sums, NaN for `min` and `max`) and
    /// `a op b` on `f64` (exact for `f32` too: a double's 53 bits round `+` and `*` of two
    /// floats as float arithmetic would); `None` where floats have no such update.
    pub float: Option<(f64, fn(f64, f64) -> f64)>,
    /// On flags (`bool`): the identity and `a op b`.
    pub flag: (bool, fn(bool, bool) -> bool),
}

/// Every operator, in the order messages list their forms.
pub const RED_OPS: [RedSpec; 7] = [
    RedSpec {
        op: RedOp::Add,
        name: "Add",
        compound: &["+=", "-="],
        method: None,
        template: ("add", false),
        int_identity: IntIdentity::Zero,
        int_combine: i128::wrapping_add,
        float: Some((-0.0, |a, b| a + b)),
        flag: (false, |a, b| a | b),
    },
    RedSpec {
        op: RedOp::Mul,
        name: "Mul",
        compound: &["*="],
        method: None,
        template: ("mul", false),
        int_identity: IntIdentity::One,
        int_combine: i128::wrapping_mul,
        float: Some((1.0, |a, b| a * b)),
        flag: (true, |a, b| a & b),
    },
    RedSpec {
        op: RedOp::Or,
        name: "Or",
        compound: &["|="],
        method: None,
        template: ("or", false),
        int_identity: IntIdentity::Zero,
        int_combine: |a, b| a | b,
        float: None,
        flag: (false, |a, b| a | b),
    },
    RedSpec {
        op: RedOp::And,
        name: "And",
        compound: &["&="],
        method: None,
        template: ("and", false),
        int_identity: IntIdentity::AllOnes,
        int_combine: |a, b| a & b,
        float: None,
        flag: (true, |a, b| a & b),
    },
    RedSpec {
        op: RedOp::Xor,
        name: "Xor",
        compound: &["^="],
        method: None,
        template: ("xor", false),
        int_identity: IntIdentity::Zero,
        int_combine: |a, b| a ^ b,
        float: None,
        flag: (false, |a, b| a ^ b),
    },
    RedSpec {
        op: RedOp::Max,
        name: "Max",
        compound: &[],
        method: Some("max"),
        template: ("max", true),
        int_identity: IntIdentity::Min,
        int_combine: i128::max,
        float: Some((f64::NAN, f64::max)),
        flag: (false, |a, b| a | b),
    },
    RedSpec {
        op: RedOp::Min,
        name: "Min",
        compound: &[],
        method: Some("min"),
        template: ("min", true),
        int_identity: IntIdentity::Max,
        int_combine: i128::min,
        float: Some((f64::NAN, f64::min)),
        flag: (true, |a, b| a & b),
    },
];

impl RedOp {
    /// Every operator.
    pub fn all() -> impl Iterator<Item = RedOp> {
        RED_OPS.iter().map(|s| s.op)
    }

    /// The operator's row.
    pub fn spec(self) -> &'static RedSpec {
        RED_OPS
            .iter()
            .find(|s| s.op == self)
            .expect("every operator has a row in RED_OPS")
    }

    /// The variant's name, as generated code spells it.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// How the operator reads in messages.
    pub fn written(self) -> String {
        let s = self.spec();
        let forms = s.compound.iter().map(|c| format!("`{c}`"));
        let method = s.method.map(|m| format!("`.{m}(..)`"));
        forms.chain(method).collect::<Vec<_>>().join("/")
    }

    /// The kernel-template operation combining two partials: an `O` placeholder's operation,
    /// or (`true`) an `F` placeholder's function (`min`/`max`, `fmin`/`fmax` for floats).
    pub fn template_op(self) -> (&'static str, bool) {
        self.spec().template
    }

    /// The operator of the compound assignment `symbol` (`"+="`), if it is one.
    pub fn of_compound(symbol: &str) -> Option<RedOp> {
        RED_OPS
            .iter()
            .find(|s| s.compound.contains(&symbol))
            .map(|s| s.op)
    }

    /// The operator of the update `s = s.method(e)`, if it is one.
    pub fn of_method(method: &str) -> Option<RedOp> {
        RED_OPS
            .iter()
            .find(|s| s.method == Some(method))
            .map(|s| s.op)
    }
}

/// The update forms with variable `s`, for messages: every row's, in the table's order.
pub fn forms(s: &str) -> String {
    let mut all: Vec<String> = Vec::new();
    for spec in &RED_OPS {
        all.extend(spec.compound.iter().map(|c| format!("`{s} {c} e`")));
        all.extend(spec.method.map(|m| format!("`{s} = {s}.{m}(e)`")));
    }
    let last = all.pop().unwrap_or_default();
    format!("{} or {last}", all.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operator_has_one_row_and_reads_as_before() {
        for op in [RedOp::Add, RedOp::Mul, RedOp::And, RedOp::Or, RedOp::Xor] {
            assert_eq!(RED_OPS.iter().filter(|s| s.op == op).count(), 1);
        }
        assert_eq!(RedOp::Add.written(), "`+=`/`-=`");
        assert_eq!(RedOp::Min.written(), "`.min(..)`");
        assert_eq!(
            forms("s"),
            "`s += e`, `s -= e`, `s *= e`, `s |= e`, `s &= e`, `s ^= e`, `s = s.max(e)` or `s = s.min(e)`"
        );
        assert_eq!(RedOp::of_compound("-="), Some(RedOp::Add));
        assert_eq!(RedOp::of_method("max"), Some(RedOp::Max));
    }
}
