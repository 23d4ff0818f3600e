//! Tests of the marker: what it marks, and that OpenCL C comes back as it was.

use super::mark;
use nuda_abi::dialect::{render, to_opencl, Mark};

/// The marks of `text`, as read back.
fn marks(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    render(&mark(text), &mut |m| {
        found.push(format!("{m:?}"));
        String::new()
    });
    found
}

#[test]
fn opencl_c_comes_back_as_it_was() {
    let text = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
        constant float W[2] = {1.0f, 2.0f};\n\
        /* a kernel (with parens) in a comment: local float x; */\n\
        __kernel __attribute__((reqd_work_group_size(64, 1, 1))) void f(__global float* restrict a, __local float* t, constant int* c) {\n\
        \x20   local float s[64];\n\
        \x20   local float* p = t;\n\
        \x20   float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f).zyxw;\n\
        \x20   s[0] = a[0] + v.x + 1.5e-3f + W[0];\n\
        }\n";
    assert_eq!(
        to_opencl(&mark(text)),
        text.replace("__kernel", "kernel")
            .replace("__global", "global")
            .replace("__local", "local")
    );
}

#[test]
fn a_kernel_with_an_attribute_before_its_name_has_its_local_parameters() {
    let m = marks(
        "__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void f(__global float* a, __local float* t) {}\n",
    );
    assert!(m.contains(&format!("{:?}", Mark::Kernel("f"))), "{m:?}");
    assert!(
        m.iter()
            .any(|x| x.starts_with("LocalParam { ty: \"float\", name: \"t\"")),
        "{m:?}"
    );
    assert!(m.contains(&"Body".to_string()), "{m:?}");
}

#[test]
fn local_declarations_anywhere_on_a_line_are_local_storage() {
    let m = marks("kernel void f(global int* a) { local int t[16]; __local float u[4];\n  { local uint2 w[2]; } }\n");
    let arrays = m.iter().filter(|x| x.starts_with("SharedArray")).count();
    assert_eq!(arrays, 3, "{m:?}");
}

#[test]
fn a_local_pointer_declaration_is_an_address_space_not_storage() {
    let m = marks("kernel void f(local int* t) { local int* p = t + 1; p[0] = 0; }\n");
    assert!(m.contains(&"Space(Local)".to_string()), "{m:?}");
    assert!(!m.iter().any(|x| x.starts_with("Shared")), "{m:?}");
}

#[test]
fn vector_literals_with_spaces_and_comments_are_literals() {
    let m = marks("float4 g(float d) { return (float4) (1.0f, 2.0f, 3.0f, d) + ( float2 ) /* x */ (d).xyxy; }\n");
    assert!(m.contains(&"Vector(\"float4\")".to_string()), "{m:?}");
    assert!(m.contains(&"Vector(\"float2\")".to_string()), "{m:?}");
    assert!(m.contains(&"Swizzle(\"xyxy\")".to_string()), "{m:?}");
}

#[test]
fn casts_and_numbers_are_not_literals_or_swizzles() {
    let m = marks("float g(int x) { return (float)(x) + 1.5f + 2.e3f + (float)x; }\n");
    assert!(m.is_empty(), "{m:?}");
}

#[test]
fn parentheses_in_comments_do_not_end_a_signature() {
    let m = marks("kernel void f(global int* a /* (b) ) */, local int* t) {}\n");
    assert!(
        m.iter()
            .any(|x| x.starts_with("LocalParam { ty: \"int\", name: \"t\"")),
        "{m:?}"
    );
}

#[test]
fn words_in_strings_and_comments_are_left_alone() {
    let m = marks(
        "// kernel void f(local int* t)\n/* global */ constant char* s = \"local global\";\n",
    );
    assert_eq!(m, vec!["FileConstant".to_string()], "{m:?}");
}
