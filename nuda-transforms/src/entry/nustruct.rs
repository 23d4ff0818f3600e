//! `#[nustruct]`: a user struct as an array element and a kernel value, as NUDA translated
//! user structures into OpenCL structs.
//!
//! The struct gets `#[repr(C)]`, a twin of atomic cells with its layout (the native engine's
//! racy stores stay defined, as for scalars), and the runtime's traits: `Pod` field by field
//! (padding zeroed on upload), `ClType`/`Stored`/`Value` with an OpenCL C name unique to the struct's
//! text, and `Capture` (captured by value). Compile-time assertions tie Rust's layout to C's
//! rules with OpenCL C's alignments; the runtime's declaration makes the device compiler check
//! the same offsets (see `nuda_runtime::kernel::StructDecl`).
//!
//! Stage 7 of the pipeline in `lib.rs` (entry points).

use crate::base::paths::{KERNEL, NUDA, PRIVATE};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Fields, ItemStruct};

/// Expands `#[nustruct]`.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[nustruct] takes no arguments",
        ));
    }
    let s: ItemStruct = syn::parse2(item.clone())
        .map_err(|e| syn::Error::new(e.span(), "#[nustruct] goes on a struct with named fields"))?;
    // On a refusal the struct stays, so that code using it reports only this error.
    let refused = |e: syn::Error| {
        let err = e.into_compile_error();
        quote!(#s #err)
    };
    let fields = match check(&s).and_then(|()| named(&s)) {
        Ok(f) => f,
        Err(e) => return Ok(refused(e)),
    };
    if let Err(e) = check_fields(&s, &fields) {
        return Ok(refused(e));
    }
    let name = cl_name(&s.ident, &item);
    let repr = (!has_repr_c(&s)).then(|| quote!(#[repr(C)]));
    let (cell, impls, layout) = (
        cell(&s, &fields),
        impls(&s, &fields, &name),
        layout(&s, &fields),
    );
    Ok(quote! {
        #repr
        #s
        #cell
        #[allow(clippy::all)]
        const _: () = {
            #impls
            #layout
        };
    })
}

/// The field names and types.
type NamedFields<'a> = Vec<(&'a syn::Ident, &'a syn::Type)>;

fn named(s: &ItemStruct) -> syn::Result<NamedFields<'_>> {
    match &s.fields {
        Fields::Named(f) if f.named.is_empty() => Err(syn::Error::new(
            s.ident.span(),
            format!(
                "#[nustruct] `{}` needs at least one field: OpenCL C has no empty structs",
                s.ident
            ),
        )),
        Fields::Named(f) => Ok(f
            .named
            .iter()
            .filter_map(|f| Some((f.ident.as_ref()?, &f.ty)))
            .collect()),
        _ => Err(syn::Error::new(
            s.ident.span(),
            format!(
                "#[nustruct] `{}` needs named fields, as in `struct {} {{ x: f32 }}`",
                s.ident, s.ident
            ),
        )),
    }
}

/// Generics and representations other than `C` change what the device sees: refused.
fn check(s: &ItemStruct) -> syn::Result<()> {
    if !s.generics.params.is_empty() {
        return Err(syn::Error::new(
            s.generics.span(),
            format!("#[nustruct] `{}` cannot have generic parameters or lifetimes: its OpenCL C layout is fixed once, and references cannot reach a device", s.ident),
        ));
    }
    for a in s.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let mut bad = None;
        let _ = a.parse_nested_meta(|m| {
            if !m.path.is_ident("C") {
                bad = Some(m.path.span());
            }
            Ok(())
        });
        if let Some(span) = bad {
            return Err(syn::Error::new(span, "#[nustruct] lays the struct out as `#[repr(C)]`, as OpenCL C does; other representations (packed, align) are not supported"));
        }
    }
    Ok(())
}

/// The struct derives `Copy` (kernels copy values), and no field is a type that cannot reach
/// a device. Refused here, in one message, rather than by a cascade of trait errors.
fn check_fields(s: &ItemStruct, fields: &NamedFields<'_>) -> syn::Result<()> {
    let mut derived = Vec::new();
    for a in s.attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = a.parse_nested_meta(|m| {
            derived.extend(m.path.segments.last().map(|s| s.ident.to_string()));
            Ok(())
        });
    }
    if !derived.iter().any(|d| d == "Copy") {
        let msg = format!("#[nustruct] `{}` must be `Copy`: kernels and arrays copy their values; add `#[derive(Clone, Copy, Debug, Default, PartialEq)]` below `#[nustruct]`", s.ident);
        return Err(syn::Error::new(s.ident.span(), msg));
    }
    for (n, t) in fields {
        if let Some(what) = off_device(t) {
            let msg = format!("#[nustruct] field `{n}`: {what} cannot reach a device; fields are f32, f64, i8..i64, u8..u64, usize, isize, bool, other #[nustruct] structs, or fixed-size arrays of those");
            return Err(syn::Error::new(t.span(), msg));
        }
    }
    Ok(())
}

/// What makes a field type host-only, if anything visibly does: references, pointers,
/// slices, tuples, and the standard owning types.
fn off_device(t: &syn::Type) -> Option<&'static str> {
    const OWNING: &[&str] = &[
        "Vec", "String", "Box", "Rc", "Arc", "Option", "HashMap", "VecDeque", "BTreeMap",
    ];
    match t {
        syn::Type::Reference(_) => Some("a reference"),
        syn::Type::Ptr(_) => Some("a pointer"),
        syn::Type::Slice(_) => Some("a slice"),
        syn::Type::Tuple(_) => Some("a tuple (use a #[nustruct] struct)"),
        syn::Type::Array(a) => off_device(&a.elem),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?.ident.to_string();
            OWNING
                .contains(&last.as_str())
                .then_some("heap data (`Vec`, `String`, `Box` and the like)")
        }
        _ => None,
    }
}

fn has_repr_c(s: &ItemStruct) -> bool {
    s.attrs.iter().any(|a| a.path().is_ident("repr"))
}

/// `nus_<Name>_<hash of the struct's text>`: two structs of one name in different modules
/// get different names unless their text, and so their layout, is the same.
fn cl_name(ident: &syn::Ident, item: &TokenStream) -> String {
    // FNV-1a: stable across builds and platforms, unlike `DefaultHasher`.
    let mut h: u32 = 0x811c_9dc5;
    for b in item.to_string().bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    format!("nus_{ident}_{h:08x}")
}

/// The cell twin: one atomic cell per field, `#[repr(C)]`, so it has the struct's layout.
fn cell(s: &ItemStruct, fields: &NamedFields<'_>) -> TokenStream {
    let (vis, cell) = (&s.vis, cell_ident(&s.ident));
    let decls = fields
        .iter()
        .map(|(n, t)| quote_spanned!(t.span()=> #n: <#t as #PRIVATE::Field>::Cell));
    let doc = format!(
        "The native engine's atomic twin of `{}` (`#[nustruct]`).",
        s.ident
    );
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[repr(C)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #cell { #(#decls),* }
    }
}

fn cell_ident(ident: &syn::Ident) -> syn::Ident {
    format_ident!("__NudaCell_{}", ident)
}

fn impls(s: &ItemStruct, fields: &NamedFields<'_>, name: &str) -> TokenStream {
    let (ident, pod) = (&s.ident, pod(s, fields));
    let aligns: Vec<TokenStream> = fields
        .iter()
        .map(|(_, t)| quote!(<#t as #PRIVATE::Field>::CL_ALIGN))
        .collect();
    let decl = fields.iter().map(|(n, t)| {
        // The C field's name, escaped as every user name that reaches OpenCL C is.
        let text = crate::emit::cl::sanitize(&n.to_string());
        quote!(.field::<#t>(#text, ::core::mem::offset_of!(#ident, #n)))
    });
    quote! {
        #pod
        // SAFETY: the struct's C declaration, whose layout this macro checks against Rust's.
        unsafe impl #KERNEL::ClType for #ident {
            fn cl() -> &'static str {
                #name
            }
            fn declare() {
                #PRIVATE::declare_struct(#name, || {
                    #PRIVATE::StructDecl::new(#name, ::core::mem::size_of::<#ident>()) #(#decl)* .text()
                })
            }
        }
        impl #NUDA::Value for #ident {}
        impl #NUDA::Stored for #ident {
            const CL_TYPE: &'static str = #name;
            const IS_FLOAT: bool = false;
            const CL_ALIGN: usize = {
                let mut a = 1usize;
                #( if #aligns > a { a = #aligns; } )*
                a
            };
            fn to_le_bytes_vec(self) -> ::std::vec::Vec<u8> {
                let mut out = ::std::vec![0u8; ::core::mem::size_of::<#ident>()];
                #PRIVATE::Field::encode(&self, &mut out);
                out
            }
        }
        impl #KERNEL::LetCopy for #ident {
            type Local = #ident;
            fn local(&self) -> #ident {
                *self
            }
        }
        // SAFETY: the struct by value, one parameter of its own C type.
        unsafe impl #KERNEL::Capture for #ident {
            type Native<'a> = #ident;
            fn desc(&self) -> #PRIVATE::CaptureDesc {
                <#ident as #KERNEL::ClType>::declare();
                #PRIVATE::CaptureDesc::Scalar(#name)
            }
            fn native_ref(&self) -> #ident {
                *self
            }
            fn proof_input(&self) -> #PRIVATE::Input {
                #PRIVATE::Input::Float
            }
            fn push_ref<'a>(&'a self, l: #NUDA::Launch<'a>) -> #NUDA::Launch<'a> {
                l.arg(*self)
            }
        }
    }
}

/// `Pod` field by field, and the seal that says the layout is known.
fn pod(s: &ItemStruct, fields: &NamedFields<'_>) -> TokenStream {
    let (ident, cell) = (&s.ident, cell_ident(&s.ident));
    let (n, ty): (Vec<&syn::Ident>, Vec<&syn::Type>) = fields.iter().copied().unzip();
    let f = vec![quote!(#PRIVATE::Field); n.len()];
    let ft: Vec<TokenStream> = ty.iter().map(|t| quote!(<#t as #PRIVATE::Field>)).collect();
    let size: Vec<TokenStream> = ty
        .iter()
        .map(|t| quote!(::core::mem::size_of::<#t>()))
        .collect();
    let off: Vec<TokenStream> = n
        .iter()
        .map(|n| quote!(::core::mem::offset_of!(#ident, #n)))
        .collect();
    quote! {
        // SAFETY: `#[nustruct]` made the struct `#[repr(C)]` and its cell twin `#[repr(C)]`
        // with one cell per field, each of its field's layout (the `Field` contract), so the
        // two have one layout (also asserted below); `PADDED` and `EVERY_BIT_PATTERN` are
        // computed from the fields and the size.
        unsafe impl #PRIVATE::Sealed for #ident {}
        impl #NUDA::Pod for #ident {
            type Cell = #cell;
            #[inline(always)]
            fn load(c: &#cell) -> Self { #ident { #( #n: #f::load(&c.#n) ),* } }
            #[inline(always)]
            fn store(c: &#cell, v: Self) { #( #f::store(&c.#n, v.#n); )* }
            fn cell(v: Self) -> #cell { #cell { #( #n: #f::cell(v.#n) ),* } }
            fn same_bits(a: Self, b: Self) -> bool { true #( && #f::same_bits(a.#n, b.#n) )* }
            const EVERY_BIT_PATTERN: bool = true #( && #ft::EVERY_BIT_PATTERN )*;
            const PADDED: bool = ::core::mem::size_of::<#ident>() != (0 #( + #size )*)
                #( || #ft::PADDED )*;
            fn encode(values: &[Self], out: &mut [u8]) {
                #PRIVATE::encode_each(values, out, |v, o| {
                    #( #f::encode(&v.#n, &mut o[#off..]); )*
                })
            }
            fn decode(bytes: &[u8], out: &mut [Self]) {
                #PRIVATE::decode_each(bytes, out, |b| #ident {
                    #( #n: #f::decode(&b[#off..]) ),*
                })
            }
        }
    }
}

/// Compile-time assertions: each field's Rust alignment is OpenCL C's, and each offset and the
/// size are what C's layout rules give; the cell twin has the struct's layout.
fn layout(s: &ItemStruct, fields: &NamedFields<'_>) -> TokenStream {
    let (ident, cell) = (&s.ident, cell_ident(&s.ident));
    let steps = fields.iter().map(|(n, t)| {
        let align = format!(
            "#[nustruct] `{ident}`: field `{n}` has another alignment in Rust than in OpenCL C"
        );
        let offset = format!(
            "#[nustruct] `{ident}`: field `{n}` is at another offset in Rust than in OpenCL C"
        );
        quote_spanned! {t.span()=>
            let a = <#t as #PRIVATE::Field>::CL_ALIGN;
            assert!(::core::mem::align_of::<#t>() == a, #align);
            let off = #PRIVATE::c_offset(end, a);
            assert!(::core::mem::offset_of!(#ident, #n) == off, #offset);
            end = off + ::core::mem::size_of::<#t>();
            if a > align { align = a; }
        }
    });
    let size = format!("#[nustruct] `{ident}` has another size in Rust than in OpenCL C");
    let twin = format!("nuda bug: the cell twin of `{ident}` has another layout");
    quote! {
        const _: () = {
            let (mut end, mut align) = (0usize, 1usize);
            #(#steps)*
            assert!(::core::mem::size_of::<#ident>() == #PRIVATE::c_offset(end, align), #size);
            assert!(::core::mem::size_of::<#ident>() == ::core::mem::size_of::<#cell>()
                && ::core::mem::align_of::<#ident>() == ::core::mem::align_of::<#cell>(), #twin);
        };
    }
}
