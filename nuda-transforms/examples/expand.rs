//! Prints what a macro expands to: `cargo run -p nuda-transforms --example expand -- nuwork 'ARGS'`
//! (or `nfor`, or `nukernel` with the whole `fn` item).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let input: proc_macro2::TokenStream = args[2].parse().expect("tokens");
    let out = match args[1].as_str() {
        "nuwork" => nuda_transforms::entry::nuwork::expand(input),
        "nfor" => nuda_transforms::entry::nfor::expand(input),
        "nukernel" => nuda_transforms::entry::nukernel::expand(Default::default(), input),
        other => panic!("unknown form {other}"),
    };
    match out {
        Ok(ts) => println!("{ts}"),
        Err(e) => println!("error: {e}"),
    }
}
