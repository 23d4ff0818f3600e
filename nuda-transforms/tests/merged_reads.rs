//! Merged image reads (`emit/cl/reads.rs`): in the OpenCL C of a work-item's body, reads of
//! the same texel are made once, and only where that is exact.

use nuda_transforms::emit::template::render_for_test;
use quote::quote;

/// The template of a `nuwork!`, and the number of reads in its first kernel.
fn reads(input: proc_macro2::TokenStream) -> (String, usize) {
    let t = render_for_test(&nuda_transforms::entry::nuwork::template(input).unwrap());
    let first = t
        .split("kernel void")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let n = first.matches("nu_read$").count();
    (first, n)
}

#[test]
fn a_dmine_block_reads_each_texel_once() {
    // 2x2 copies of a 3x3 stencil name 36 reads of 16 texels; the 4 corners are read once.
    let (text, n) = reads(quote!(1, 8; annot!(dmine(2, 2); nfor!((y, x) in (h, w) {
        let mut s = 0.0f32;
        annot!(inline; nfor!((dy, dx) in (3, 3) { s += img.read(x + dx - 1, y + dy - 1); }));
        out.write(x, y, s);
    }))));
    assert_eq!(n, 16, "{text}");
    assert_eq!(text.matches("nu_rd").count(), 12 + 32, "{text}");
}

#[test]
fn equal_coordinates_written_differently_merge() {
    let (text, n) = reads(quote!(1, 8; nfor!((y, x) in (h, w) {
        let a = x + 1;
        let v = img.read(a - 1, y) + img.read(x, y * 1) + img.read(2 * x - x, -(-y));
        out.write(x, y, v);
    })));
    assert_eq!(n, 1, "{text}");
}

#[test]
fn reads_that_may_not_run_stay_in_place() {
    let (text, n) = reads(quote!(1, 8; nfor!((y, x) in (h, w) {
        let mut v = img.read(x, y);
        if x > 0 { v += img.read(x, y); }
        let b = x > 1 && img.read(x, y) > 0.0;
        for k in 0..2 { v += img.read(x, y) * k as f32; }
        if b { v += 1.0; }
        out.write(x, y, v);
    })));
    assert_eq!(n, 4, "{text}");
    assert!(!text.contains("nu_rd"), "{text}");
}

#[test]
fn assigned_names_and_casts_do_not_merge() {
    // `m` is assigned, and a cast may hide a narrower type.
    let (text, n) = reads(quote!(1, 8; nfor!((y, x) in (h, w) {
        let mut m = y;
        let v = img.read(x, m);
        m += 1;
        let u = img.read(x, m);
        let c = img.read((x as i16 + 1) as i32, y) + img.read(x + 1, y) + img.read(x + 1, y);
        out.write(x, y, v + u + c);
    })));
    // The two reads at `x + 1` merge; the rest stay.
    assert_eq!(n, 4, "{text}");
}

#[test]
fn a_shadowed_name_has_no_form() {
    // `y` is bound again inside a block: no read naming `y` merges, in or out of the block.
    let (text, n) = reads(quote!(1, 8; nfor!((y, x) in (h, w) {
        let v = img.read(x + 1, y) + img.read(x + 1, y);
        let u = { let y = y + 1; img.read(x + 1, y - 1) };
        out.write(x, y, v + u);
    })));
    assert_eq!(n, 3, "{text}");
}

#[test]
fn a_let_shadowing_a_capture_is_not_the_capture() {
    // Before its `let`, `k` is the captured `k`; after it, the local.
    let (text, n) = reads(quote!(1, 8; nfor!((y, x) in (h, w) {
        let v = img.read(x + k, y);
        let k = 2;
        let u = img.read(x + k, y) + img.read(x + 2, y);
        out.write(x, y, v + u);
    })));
    assert_eq!(n, 2, "{text}");
}

#[test]
fn merged_reads_follow_the_lets_they_name() {
    let (text, n) = reads(quote!(1, 8; nfor!((y, x) in (h, w) {
        let a = x + 1;
        let v = img.read(a, y);
        let b = a;
        let u = img.read(b, y) + img.read(x + 1, y);
        out.write(x, y, v + u);
    })));
    assert_eq!(n, 1, "{text}");
    let (decl, read) = (text.find(" a = ").unwrap(), text.find("nu_rd = ").unwrap());
    assert!(decl < read && read < text.find(" v = ").unwrap(), "{text}");
}

#[test]
fn written_images_are_refused_so_none_merge() {
    // A kernel reads an image or writes it (read_only, write_only): a read of a written
    // image never reaches the merging, since the nest is refused at the read or the write.
    let e = nuda_transforms::entry::nuwork::template(quote!(1, 8; nfor!((y, x) in (h, w) {
        let v = img.read(x, y) + img.read(x, y);
        img.write(x, y, v);
    })))
    .unwrap_err()
    .to_string();
    assert!(e.contains("`img` is both read"), "{e}");
}
