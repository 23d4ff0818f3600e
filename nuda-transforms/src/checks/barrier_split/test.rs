//! The barrier split's plans: which pieces run once or per work-item, how variables cross
//! barriers, which guards narrow a loop, and which shapes keep the coroutine form.

use super::{Plan, Seg, Var};
use quote::quote;

fn plan(item: proc_macro2::TokenStream) -> Result<Plan, &'static str> {
    crate::entry::nukernel::split(item).expect("the kernel compiles")
}

/// The plan's shape: `items`/`group` chunks (`~` marks a narrowed one), split constructs
/// with `G`/`I` for where their condition is decided, blocks in braces.
fn outline(segs: &[Seg]) -> String {
    let parts: Vec<String> = segs
        .iter()
        .map(|s| match s {
            Seg::Chunk(c) if c.group => "group".into(),
            Seg::Chunk(c) if c.guard.is_some() => "items~".into(),
            Seg::Chunk(_) => "items".into(),
            Seg::If {
                head, then, els, ..
            } => format!(
                "if{} [{}] else [{}]",
                gi(head.group),
                outline(then),
                outline(els)
            ),
            Seg::While { head, body, .. } => format!("while{} [{}]", gi(head.group), outline(body)),
            Seg::Loop { body } => format!("loop [{}]", outline(body)),
            Seg::Block { body } => format!("{{{}}}", outline(body)),
            Seg::For { head, body, .. } => format!("for{} [{}]", gi(head.group), outline(body)),
        })
        .collect();
    parts.join(" ")
}

fn gi(group: bool) -> &'static str {
    if group {
        "G"
    } else {
        "I"
    }
}

fn class(p: &Plan, name: &str) -> Option<Var> {
    p.vars.iter().find(|v| v.0 == name).map(|v| v.1.clone())
}

#[test]
fn a_tree_reduction_keeps_nothing_per_item() {
    let p = plan(quote!(
        fn sums(out: &mut NuArray1<i32>, a: &NuArray1<i32>, t: &mut NuArray1<i32>) {
            let g = global_id(0);
            let l = local_id(0);
            t[g] = a[g];
            barrier();
            let mut s = local_size(0) / 2;
            while s > 0 {
                if l < s {
                    t[g] += t[g + s];
                }
                barrier();
                s /= 2;
            }
            if l == 0 {
                out[group_id(0)] = t[g];
            }
        }
    ))
    .unwrap();
    assert_eq!(outline(&p.segs), "items group whileG [items~ group] items~");
    assert_eq!(class(&p, "g"), Some(Var::Remat));
    assert_eq!(class(&p, "l"), Some(Var::Remat));
    assert_eq!(class(&p, "s"), Some(Var::Group));
    assert!(!p.returns);
}

#[test]
fn a_value_read_from_memory_is_kept_per_item() {
    let p = plan(quote!(
        fn k(out: &mut NuArray1<f32>, a: &NuArray1<f32>, n: usize) {
            let g = global_id(0);
            let mut acc = a[g];
            for t in 0..n {
                barrier();
                acc += 1.0;
            }
            out[g] = acc;
        }
    ))
    .unwrap();
    assert_eq!(outline(&p.segs), "items forG [items] items");
    assert_eq!(class(&p, "acc"), Some(Var::Slot));
    assert_eq!(class(&p, "g"), Some(Var::Remat));
}

#[test]
fn uniform_code_next_to_per_item_code_is_run_once() {
    let p = plan(quote!(
        fn k(out: &mut NuArray1<u32>, n: usize) {
            let mut s = n * 2;
            let l = local_id(0);
            out[l] = 1;
            s += 3;
            barrier();
            if s > 4 {
                barrier();
                out[l] = s as u32;
            }
        }
    ))
    .unwrap();
    assert_eq!(outline(&p.segs), "group items group ifG [items] else []");
    assert_eq!(class(&p, "s"), Some(Var::Group));
}

#[test]
fn a_uniform_variable_set_per_item_is_kept_per_item() {
    // `s` is uniform, but a per-item chunk (it writes memory) sets it: the group cannot
    // hold one copy, so each work-item keeps its own, and the condition is agreed per item.
    let p = plan(quote!(
        fn k(out: &mut NuArray1<u32>, n: usize) {
            let mut s = 0;
            let l = local_id(0);
            while s < n {
                {
                    out[l] = 1;
                    s += 1;
                }
                barrier();
            }
        }
    ))
    .unwrap();
    assert_eq!(class(&p, "s"), Some(Var::Slot));
    assert_eq!(outline(&p.segs), "items whileI [items]");
}

#[test]
fn returns_are_tracked_per_item() {
    let p = plan(quote!(
        fn k(out: &mut NuArray1<u32>, q: usize) {
            let l = local_id(0);
            if group_id(0) == q {
                out[l] = 0;
                return;
            }
            barrier();
            if l == 3 {
                return;
            }
            out[l] = 2;
        }
    ))
    .unwrap();
    assert!(p.returns);
}

#[test]
fn shapes_the_split_leaves_to_coroutines_say_why() {
    let in_let = plan(quote!(
        fn k(out: &mut NuArray1<u32>) {
            let x = {
                barrier();
                1u32
            };
            out[local_id(0)] = x;
        }
    ));
    assert!(in_let.unwrap_err().contains("inside an expression"));
    let no_value = plan(quote!(
        fn k(out: &mut NuArray1<u32>) {
            let x;
            x = local_id(0) as u32;
            barrier();
            out[local_id(0)] = x;
        }
    ));
    assert!(no_value.unwrap_err().contains("without a value"));
    let exit = plan(quote!(
        fn k(out: &mut NuArray1<u32>, n: usize) {
            loop {
                out[local_id(0)] = 1;
                if n > 3 {
                    out[local_id(0)] = 2;
                    break;
                }
                barrier();
            }
        }
    ));
    assert!(exit.unwrap_err().contains("`break` or `continue`"));
}

#[test]
fn shadowing_is_split_where_scopes_keep_names_apart() {
    // Two `let mut s` in turn: each is the group's, and Rust's own scoping tells them apart.
    let p = plan(quote!(
        fn k(out: &mut NuArray1<u32>) {
            let l = local_id(0);
            let mut s = 4usize;
            while s > 0 {
                barrier();
                s /= 2;
            }
            let mut s = 2usize;
            while s > 0 {
                barrier();
                out[l] = s as u32;
                s -= 1;
            }
        }
    ));
    assert!(p.is_ok(), "{p:?}");
}

#[test]
fn a_uniform_break_in_its_own_statement_is_split() {
    let p = plan(quote!(
        fn k(out: &mut NuArray1<f32>, n: usize) {
            let mut acc = out[global_id(0)];
            for t in 0..n {
                barrier();
                acc += t as f32;
                if t == 3 {
                    break;
                }
                barrier();
            }
            out[global_id(0)] = acc;
        }
    ))
    .unwrap();
    assert_eq!(outline(&p.segs), "items forG [items group] items");
}
