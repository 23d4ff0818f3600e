//! md5: brute-force search for a 4-byte message whose MD5, truncated to `bits` bits, matches
//! a target (NUDA's truncated-hash collision search). Each work-item hashes one candidate.

// The last round's b, c and d are never read: the search compares the first digest word.
#![allow(dead_code, unused_assignments)]

use super::problem::{Check, Variant};
use nuda::prelude::*;

/// One search: candidates `start..start + count`, the target, and where a match is written.
pub struct Search {
    /// First candidate.
    pub start: u64,
    /// Number of candidates.
    pub count: u64,
    /// Bits of the digest compared.
    pub bits: u32,
    /// The target's first digest word, masked.
    pub target: u32,
    /// The message the target was made from, to check the search finds a match.
    pub planted: u32,
    /// Round constants.
    pub k: NuArray1<u32>,
    /// Rotation amounts.
    pub s: NuArray1<u32>,
    /// `found[0]` receives a matching candidate plus one (0: none).
    pub found: NuArray1<u64>,
}

/// The sine-derived round constants of RFC 1321.
pub fn round_constants() -> Vec<u32> {
    (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32)
        .collect()
}

/// The rotation amounts of RFC 1321.
pub const SHIFTS: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
    14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15,
    21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];

/// Word `g` of the padded 4-byte message `c`: the message, the 0x80 pad, the length in bits.
#[nucode]
pub fn word(c: u32, g: usize) -> u32 {
    if g == 0 {
        c
    } else if g == 1 {
        0x80
    } else if g == 14 {
        32
    } else {
        0
    }
}

/// The unannotated search: the 64 rounds are a loop with a branch per round kind.
pub fn base(q: &mut Search) -> Result<()> {
    let (start, end, mask, target) = (q.start, q.start + q.count, mask(q.bits), q.target);
    let (k, s, found) = (q.k.as_const(), q.s.as_const(), &mut q.found);
    // The last match, as the sequential loop would leave it: a max reduction (a plain store
    // from every matching work-item would race).
    let mut hit = 0u64;
    nuwork!(256; nfor!(c in start..end {
        let msg = c as u32;
        let (mut a, mut b, mut cc, mut d) = (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
        nfor!(r in 64 {
            let f = if r < 16 { (b & cc) | (!b & d) } else if r < 32 { (d & b) | (!d & cc) } else if r < 48 { b ^ cc ^ d } else { cc ^ (b | !d) };
            let g = if r < 16 { r } else if r < 32 { (5 * r + 1) % 16 } else if r < 48 { (3 * r + 5) % 16 } else { (7 * r) % 16 };
            let t = d;
            d = cc;
            cc = b;
            b = b.wrapping_add(a.wrapping_add(f).wrapping_add(k[r]).wrapping_add(word(msg, g)).rotate_left(s[r]));
            a = t;
        });
        if (a.wrapping_add(0x67452301) & mask) == target {
            hit = hit.max(c + 1);
        }
    }))?;
    if hit > 0 {
        found[0] = hit;
    }
    Ok(())
}

/// The rounds fully unrolled: every branch and message index folds away.
pub fn inline(q: &mut Search) -> Result<()> {
    let (start, end, mask, target) = (q.start, q.start + q.count, mask(q.bits), q.target);
    let (k, s, found) = (q.k.as_const(), q.s.as_const(), &mut q.found);
    // The last match, as the sequential loop would leave it: a max reduction (a plain store
    // from every matching work-item would race).
    let mut hit = 0u64;
    nuwork!(256; nfor!(c in start..end {
        let msg = c as u32;
        let (mut a, mut b, mut cc, mut d) = (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
        annot!(inline; nfor!(r in 64 {
            let f = if r < 16 { (b & cc) | (!b & d) } else if r < 32 { (d & b) | (!d & cc) } else if r < 48 { b ^ cc ^ d } else { cc ^ (b | !d) };
            let g = if r < 16 { r } else if r < 32 { (5 * r + 1) % 16 } else if r < 48 { (3 * r + 5) % 16 } else { (7 * r) % 16 };
            let t = d;
            d = cc;
            cc = b;
            b = b.wrapping_add(a.wrapping_add(f).wrapping_add(k[r]).wrapping_add(word(msg, g)).rotate_left(s[r]));
            a = t;
        }));
        if (a.wrapping_add(0x67452301) & mask) == target {
            hit = hit.max(c + 1);
        }
    }))?;
    if hit > 0 {
        found[0] = hit;
    }
    Ok(())
}

/// Unrolled rounds, two candidates per work-item interleaved.
pub fn inline_dmine(q: &mut Search) -> Result<()> {
    let (start, end, mask, target) = (q.start, q.start + q.count, mask(q.bits), q.target);
    let (k, s, found) = (q.k.as_const(), q.s.as_const(), &mut q.found);
    // The last match, as the sequential loop would leave it: a max reduction (a plain store
    // from every matching work-item would race).
    let mut hit = 0u64;
    nuwork!(256; annot!(dmine(2); nfor!(c in start..end {
        let msg = c as u32;
        let (mut a, mut b, mut cc, mut d) = (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
        annot!(inline; nfor!(r in 64 {
            let f = if r < 16 { (b & cc) | (!b & d) } else if r < 32 { (d & b) | (!d & cc) } else if r < 48 { b ^ cc ^ d } else { cc ^ (b | !d) };
            let g = if r < 16 { r } else if r < 32 { (5 * r + 1) % 16 } else if r < 48 { (3 * r + 5) % 16 } else { (7 * r) % 16 };
            let t = d;
            d = cc;
            cc = b;
            b = b.wrapping_add(a.wrapping_add(f).wrapping_add(k[r]).wrapping_add(word(msg, g)).rotate_left(s[r]));
            a = t;
        }));
        if (a.wrapping_add(0x67452301) & mask) == target {
            hit = hit.max(c + 1);
        }
    })))?;
    if hit > 0 {
        found[0] = hit;
    }
    Ok(())
}

/// The variants, base first.
pub const VARIANTS: &[Variant<Search>] = &[
    Variant {
        name: "base",
        function: "base",
        run: base,
    },
    Variant {
        name: "inline",
        function: "inline",
        run: inline,
    },
    Variant {
        name: "dmine(2), inline",
        function: "inline_dmine",
        run: inline_dmine,
    },
];

/// The comparison mask for `bits` bits.
pub fn mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

/// MD5 of a message shorter than 56 bytes, in plain Rust: the reference.
pub fn md5(msg: &[u8]) -> [u32; 4] {
    let mut block = [0u8; 64];
    block[..msg.len()].copy_from_slice(msg);
    block[msg.len()] = 0x80;
    block[56..64].copy_from_slice(&((msg.len() as u64) * 8).to_le_bytes());
    let m: Vec<u32> = block
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let k = round_constants();
    let (mut a, mut b, mut c, mut d) = (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
    for r in 0..64 {
        let (f, g) = match r / 16 {
            0 => ((b & c) | (!b & d), r),
            1 => ((d & b) | (!d & c), (5 * r + 1) % 16),
            2 => (b ^ c ^ d, (3 * r + 5) % 16),
            _ => (c ^ (b | !d), (7 * r) % 16),
        };
        let t = d;
        d = c;
        c = b;
        b = b.wrapping_add(
            a.wrapping_add(f)
                .wrapping_add(k[r])
                .wrapping_add(m[g])
                .rotate_left(SHIFTS[r]),
        );
        a = t;
    }
    [
        a.wrapping_add(0x67452301),
        b.wrapping_add(0xefcdab89),
        c.wrapping_add(0x98badcfe),
        d.wrapping_add(0x10325476),
    ]
}

/// A search over `count` candidates for a target planted three quarters of the way in.
pub fn setup(count: u64, bits: u32) -> Search {
    let planted = (count * 3 / 4 + 12345 % count.max(1)) as u32;
    let target = md5(&planted.to_le_bytes())[0] & mask(bits);
    Search {
        start: 0,
        count,
        bits,
        target,
        planted,
        k: NuArray1::from_vec(64, round_constants()).expect("64 constants"),
        s: NuArray1::from_vec(64, SHIFTS.to_vec()).expect("64 shifts"),
        found: NuArray1::new(1),
    }
}

/// How a search is checked: no match recorded, then the match found checked.
pub const CHECK: Check<Search> = Check {
    clear: |q| q.found.fill(0),
    verify,
};

/// The candidate found, if any: its MD5 must match the target.
pub fn verify(q: &Search) -> std::result::Result<(), String> {
    let found = q.found[0];
    if found == 0 {
        return Err(format!(
            "no match found; the planted message {:#010x} matches",
            q.planted
        ));
    }
    let c = (found - 1) as u32;
    let h = md5(&c.to_le_bytes())[0] & mask(q.bits);
    if h != q.target {
        return Err(format!(
            "candidate {c:#010x} hashes to {h:#010x}, not {:#010x}",
            q.target
        ));
    }
    Ok(())
}
