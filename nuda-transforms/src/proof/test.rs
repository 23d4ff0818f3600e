//! Proof programs of small kernels: every access has its check op, and branch conditions
//! refine the variables they compare.

use quote::quote;

fn program(input: proc_macro2::TokenStream) -> String {
    let text = crate::entry::nuwork::expand(input)
        .expect("expands")
        .to_string();
    let at = text.find("static __NUDA_PROOF").expect("a proof program");
    let end = text[at..]
        .find("let __nuda_fault")
        .map_or(text.len(), |e| at + e);
    text[at..end].to_string()
}

#[test]
fn every_access_has_its_check() {
    let p = program(quote!(64; nfor!(i in n { b[i + 1] = a[i] / c[i]; })));
    assert_eq!(p.matches("Op :: Index").count(), 3, "{p}");
    assert_eq!(p.matches("Op :: Divide").count(), 1, "{p}");
    assert!(p.contains("Op :: Mapped (0"), "{p}");
}

#[test]
fn a_guard_refines_the_variable_it_compares() {
    let p = program(quote!(64; nfor!(i in n { if i > 0 && i < m { b[i] = a[i - 1]; } })));
    assert_eq!(p.matches("Op :: Refine").count(), 2, "{p}");
    assert!(p.contains("Cmp :: Gt") && p.contains("Cmp :: Lt"), "{p}");
}

#[test]
fn a_variable_assigned_later_is_any_value_of_its_type() {
    // (The dependence test cannot follow `k`: the stores are the user's word.)
    let p =
        program(quote!(#[independent] 64; nfor!(i in n { let mut k = i; k += 1; b[k] = 1.0; })));
    assert!(p.contains("Op :: Var"), "{p}");
    let q = program(
        quote!(#[independent] 64; nfor!(i in n { let mut k = i; if k < m { b[k] = 1.0; } k += 1; })),
    );
    assert!(
        !q.contains("Op :: Refine"),
        "a variable assigned somewhere is not refined: {q}"
    );
}

/// A variable only divided or shifted right by literals stays between its first value and
/// zero (a hull, not any value of its type); one assigned another way is any value.
#[test]
fn a_halving_variable_stays_between_its_start_and_zero() {
    for step in [quote!(s /= 2;), quote!(s >>= 1;), quote!(s = s / 4;)] {
        let p = program(quote!(64; nfor!(i in n {
            let mut s = 32usize;
            while s > 0 { b[i] = a[s]; #step }
        })));
        assert!(p.contains("Op :: Hull"), "{step}: {p}");
        assert!(!p.contains("Op :: Var"), "{step}: {p}");
    }
    for step in [
        quote!(s -= 1;),
        quote!(s /= m;),
        quote!(s = 2 / s;),
        quote!(s /= 0;),
    ] {
        let p = program(quote!(64; nfor!(i in n {
            let mut s = 32usize;
            while s > 0 { b[i] = a[s]; #step }
        })));
        assert!(p.contains("Op :: Var"), "{step}: {p}");
    }
}
