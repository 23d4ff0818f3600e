//! Rust names that are OpenCL C keywords, types or builtins (issue 27, item 2): every user
//! name that reaches generated C goes through one escaping rule, in every position: a
//! `#[nustruct]` field and struct name, a local, a `#[nukernel]` parameter, a capture and a
//! `#[nucode]` function. Each kernel runs on the OpenCL device and the native engine and
//! gives plain Rust's result.

#![allow(non_camel_case_types, non_snake_case, clippy::all)]

mod common;

use common::check;
use nuda::prelude::*;

/// A field per word of OpenCL C that Rust allows as a name.
#[nuda::nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Words {
    half: f32,
    int: f32,
    local: f32,
    global: f32,
    kernel: f32,
    constant: f32,
    private: f32,
    sizeof: f32,
    signed: f32,
    restrict: f32,
    read_only: f32,
    write_only: f32,
    read_write: f32,
    float: f32,
    double: f32,
    uint: f32,
    unsigned: f32,
    void: f32,
    volatile: f32,
    register: f32,
    inline: f32,
    auto: f32,
    goto: f32,
    switch: f32,
    case: f32,
    default: f32,
    typedef: f32,
    union: f32,
    uniform: f32,
    pipe: f32,
    complex: f32,
    float4: f32,
    image2d_t: f32,
    sampler_t: f32,
    size_t: f32,
    NULL: f32,
    min: f32,
    sqrt: f32,
    r#struct: f32,
    r#static: f32,
    r#const: f32,
    r#while: f32,
    r#do: f32,
}

/// A struct whose name is a C keyword.
#[nuda::nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct half {
    int: f32,
}

/// Functions named as C keywords and builtins.
#[nucode]
fn int(local: f32) -> f32 {
    let global = local * 2.0;
    global + 1.0
}

#[nucode]
fn signed(r#const: half) -> f32 {
    r#const.int * 3.0
}

/// Parameters named as C keywords.
#[nukernel]
fn kernel(global: &mut NuArray1<f32>, local: &NuArray1<f32>, constant: f32, private: half) {
    let i = global_id(0);
    if i < global.len() {
        let restrict = local[i] + constant;
        global[i] = int(restrict) + signed(private);
    }
}

#[test]
fn keywords_as_locals_captures_and_functions() {
    let n = 40usize;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let x = i as f32 * 0.5;
            let (half, int, sizeof, read_only) = (x + 1.0, x * 2.0, 3.0f32, x - 1.0);
            half + int + sizeof * read_only + (x * 2.0 + 1.0) + 7.0 * 3.0
        })
        .collect();
    check(want, || {
        let a = NuArray1::from_fn(n, |i| i as f32 * 0.5);
        let mut out = NuArray1::<f32>::new(n);
        let sizeof = 3.0f32;
        let kernel = half { int: 7.0 };
        nuwork!(8; nfor!(i in n {
            let half = a[i] + 1.0;
            let int = a[i] * 2.0;
            let read_only = a[i] - 1.0;
            out[i] = half + int + sizeof * read_only + self::int(a[i]) + signed(kernel);
        }))?;
        Ok(out.to_vec())
    });
}

#[test]
fn keywords_as_fields_and_parameters() {
    let n = 24usize;
    let mut want_words = Words::default();
    want_words.half = 1.0;
    want_words.r#struct = 2.0;
    want_words.NULL = 3.0;
    want_words.float4 = 4.0;
    want_words.read_write = 5.0;
    let want: Vec<(Words, f32)> = (0..n)
        .map(|i| {
            let mut w = want_words;
            w.int = i as f32;
            w.sqrt = w.int + w.half;
            (w, ((i as f32 + 1.0) * 2.0 + 1.0) + 2.0 * 3.0)
        })
        .collect();
    check(want, || {
        let mut words = NuArray1::<Words>::new(n);
        let base = Words::default();
        nuwork!(8; nfor!(i in n {
            let mut w = Words { half: 1.0, r#struct: 2.0, NULL: 3.0, float4: 4.0, ..base };
            w.read_write = 5.0;
            w.int = i as f32;
            w.sqrt = w.int + w.half;
            words[i] = w;
        }))?;
        let local = NuArray1::from_fn(n, |i| i as f32);
        let mut global = NuArray1::<f32>::new(n);
        let dev = nuda::current_device()?.index();
        nucall!(dev, [n], [8]; kernel(&mut global, &local, 1.0, half { int: 2.0 }))?;
        Ok(words.to_vec().into_iter().zip(global.to_vec()).collect())
    });
}

/// A field per word of C++ and CUDA that Rust allows as a name: nuda's CUDA dialect is C++,
/// compiled by NVRTC (`NUDA_CUDA_CHECK` in `scripts/test`), so these go through the same
/// escaping rule as OpenCL C's keywords.
#[nuda::nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct CppWords {
    class: f32,
    new: f32,
    this: f32,
    template: f32,
    namespace: f32,
    operator: f32,
    delete: f32,
    public: f32,
    friend: f32,
    typename: f32,
    using: f32,
    catch: f32,
    throw: f32,
    explicit: f32,
    mutable: f32,
    export: f32,
    nullptr: f32,
    decltype: f32,
    constexpr: f32,
    and: f32,
    or: f32,
    not: f32,
    xor: f32,
    bitand: f32,
    compl: f32,
    asm: f32,
    wchar_t: f32,
    threadIdx: f32,
    blockDim: f32,
    dim3: f32,
    warpSize: f32,
    r#try: f32,
    r#virtual: f32,
}

/// A struct named as a C++ keyword.
#[nuda::nustruct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct class {
    new: f32,
}

/// A function named as a C++ keyword, its parameter as another.
#[nucode]
fn template(this: f32, namespace: class) -> f32 {
    let operator = this * 2.0;
    operator + namespace.new
}

/// Parameters named as C++ keywords and CUDA's built-in names.
#[nukernel]
fn typename(and: &mut NuArray1<f32>, or: &NuArray1<f32>, threadIdx: f32, delete: class) {
    let i = global_id(0);
    if i < and.len() {
        let xor = or[i] + threadIdx;
        and[i] = template(xor, delete);
    }
}

#[test]
fn cpp_and_cuda_words_as_fields_locals_captures_functions_and_parameters() {
    let n = 24usize;
    let want: Vec<(CppWords, f32)> = (0..n)
        .map(|i| {
            let x = i as f32;
            let w = CppWords {
                class: x,
                nullptr: x + 1.0,
                r#try: 2.0,
                dim3: x * (x + 1.0) + 2.0 * 3.0 + 7.0,
                ..CppWords::default()
            };
            (w, (x + 1.0) * 2.0 + 5.0)
        })
        .collect();
    check(want, || {
        let mut words = NuArray1::<CppWords>::new(n);
        let base = CppWords::default();
        let new = class { new: 7.0 };
        let warpSize = 3.0f32;
        nuwork!(8; nfor!(i in n {
            let this = i as f32;
            let mut w = CppWords { class: this, r#try: 2.0, ..base };
            w.nullptr = this + 1.0;
            let operator = template(w.nullptr, new);
            w.dim3 = this * w.nullptr + w.r#try * warpSize + (operator - w.nullptr * 2.0);
            words[i] = w;
        }))?;
        let or = NuArray1::from_fn(n, |i| i as f32);
        let mut and = NuArray1::<f32>::new(n);
        let dev = nuda::current_device()?.index();
        nucall!(dev, [n], [8]; typename(&mut and, &or, 1.0, class { new: 5.0 }))?;
        Ok(words.to_vec().into_iter().zip(and.to_vec()).collect())
    });
}
