//! The static lab's memory-level parallelism (layer 1, the CUDA backend): how many global
//! loads one thread of a kernel has in flight at once, read off its SASS.
//!
//! Why: a bandwidth-bound kernel reaches HBM's speed only with enough bytes in flight per
//! multiprocessor (Little's law: an H200's 4.8 TB/s times about 700 ns of latency, over 132
//! SMs, is about 25 KiB each), and a thread that uses each load's value before issuing the
//! next keeps one in flight however many threads wait. The count is the longest run of
//! `LDG`s, in address order, issued before an instruction reads any of their destination
//! registers, a branch, a barrier or the end; it is what the scheduler can overlap in one
//! thread, not a promise that it does.

use super::sass::Kernel;

impl Kernel {
    /// The most global loads one thread issues before it needs any of their values.
    pub fn loads_in_flight(&self) -> u32 {
        (0..self.code.len())
            .filter(|&i| is_load(&self.code[i].1))
            .map(|i| self.run_from(i))
            .max()
            .unwrap_or(0)
    }

    /// The loads of the run that starts with the load at `start`.
    fn run_from(&self, start: usize) -> u32 {
        let mut pending: Vec<u32> = Vec::new();
        let mut loads = 0;
        for (_, op, text) in &self.code[start..] {
            if ends_run(op) {
                break;
            }
            let (dst, src) = operands(op, text);
            if src.iter().any(|r| pending.contains(r)) {
                break;
            }
            if is_load(op) {
                loads += 1;
                pending.extend(dst);
            } else {
                // A register written again no longer holds a pending load's value.
                pending.retain(|r| !dst.contains(r));
            }
        }
        loads
    }
}

/// A global load (`LDG`, of any width).
fn is_load(op: &str) -> bool {
    op.split('.').next() == Some("LDG")
}

/// Control flow and barriers end a run: past them the order of issue is not the code's.
fn ends_run(op: &str) -> bool {
    let base = op.split('.').next().unwrap_or(op);
    matches!(
        base,
        "BRA" | "BRX" | "JMP" | "CALL" | "RET" | "EXIT" | "BAR" | "BSYNC" | "WARPSYNC"
    )
}

/// The general registers an instruction writes and reads. Stores, atomics without a
/// result and compares write none; otherwise the first operand is the destination, and a
/// 64- or 128-bit load's (or an `IMAD.WIDE`'s) spans two or four registers.
fn operands(op: &str, text: &str) -> (Vec<u32>, Vec<u32>) {
    let body = text.split_once(op).map_or(text, |(_, rest)| rest);
    let mut parts = body.split(',');
    let base = op.split('.').next().unwrap_or(op);
    let writes = !matches!(
        base,
        "STG" | "STS" | "ST" | "STL" | "RED" | "REDG" | "ISETP" | "FSETP" | "DSETP" | "NOP"
    );
    let dst = match writes {
        true => parts.next().map(registers).unwrap_or_default(),
        false => Vec::new(),
    };
    let width = match () {
        _ if op.contains(".128") => 4,
        _ if op.contains(".64") || op.contains(".WIDE") => 2,
        _ => 1,
    };
    let dst = dst
        .first()
        .map(|&r| (r..r + width).collect())
        .unwrap_or_default();
    let src = parts.flat_map(registers).collect();
    (dst, src)
}

/// The general registers an operand names (`R12`, `[R4.64+0x10]`: R4 and R5), not `RZ`.
fn registers(operand: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let b = operand.as_bytes();
    for (i, _) in operand.match_indices('R') {
        let digits: String = operand[i + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let before = i.checked_sub(1).map(|j| b[j]);
        if digits.is_empty() || before.is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let r: u32 = digits.parse().unwrap_or(0);
        let wide = operand[i + 1 + digits.len()..].starts_with(".64");
        out.push(r);
        if wide {
            out.push(r + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::sass::parse;

    fn kernel(body: &str) -> String {
        format!("\tcode for sm_90\n\t\tFunction : k\n{body}")
    }

    /// One load used at once, then four issued before their first use.
    #[test]
    fn runs_end_at_the_first_use() {
        let one = kernel(
            "        /*0000*/   LDG.E.CONSTANT R16, desc[UR16][R16.64] ;  /* 0x0 */
        /*0010*/   VIADD R18, R16, UR4 ;  /* 0x0 */
        /*0020*/   STS [R21], R18 ;  /* 0x0 */
        /*0030*/   LDG.E R2, desc[UR16][R4.64] ;  /* 0x0 */
        /*0040*/   LDG.E R3, desc[UR16][R6.64] ;  /* 0x0 */
        /*0050*/   IMAD.WIDE.U32 R8, R9, 0x4, R10 ;  /* 0x0 */
        /*0060*/   LDG.E.128 R12, desc[UR16][R8.64] ;  /* 0x0 */
        /*0070*/   @!P0 LDG.E R20, desc[UR16][R22.64] ;  /* 0x0 */
        /*0080*/   STS [R0], R15 ;  /* 0x0 */
        /*0090*/   LDG.E R30, desc[UR16][R28.64] ;  /* 0x0 */
        /*00a0*/   EXIT ;  /* 0x0 */
",
        );
        let k = &parse(&one)[0];
        assert_eq!(k.loads_in_flight(), 4);
    }

    /// A register written again frees the run; a branch ends it.
    #[test]
    fn rewrites_and_branches() {
        let two = kernel(
            "        /*0000*/   LDG.E R2, desc[UR16][R4.64] ;  /* 0x0 */
        /*0010*/   MOV R2, RZ ;  /* 0x0 */
        /*0020*/   IADD3 R7, R2, 0x1, RZ ;  /* 0x0 */
        /*0030*/   LDG.E R8, desc[UR16][R4.64] ;  /* 0x0 */
        /*0040*/   BRA 0x0 ;  /* 0x0 */
        /*0050*/   LDG.E R9, desc[UR16][R4.64] ;  /* 0x0 */
",
        );
        assert_eq!(parse(&two)[0].loads_in_flight(), 2);
    }
}
