//! Lists the devices nuda finds, in index order, and says which one is the default.
//!
//! `cargo run --example devices`; try `NUDA_ENGINE=native` or `NUDA_DEVICE=pthread` too.

fn main() -> nuda::Result<()> {
    for d in nuda::devices() {
        println!("{d}");
    }
    nuda::init()?;
    let current = nuda::current_device()?;
    println!("default: {}", current.label());
    Ok(())
}
