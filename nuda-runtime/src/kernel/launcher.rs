//! What stands in a `#[nukernel]` function's name for a direct call (layer 5, with the kernel
//! traits): a call that `nucall!` does not make fails to compile with a message naming
//! `nucall!`.

/// What a direct call of a `#[nukernel]` function passes where `nucall!` passes the device
/// and sizes: nothing implements it but an empty enum, so such a call fails to compile with
/// this message, at the call.
#[diagnostic::on_unimplemented(
    message = "a #[nukernel] function runs only through nucall!, which passes the device and the work sizes: write `nucall!(device, [global..], [local..]; kernel(args))`",
    label = "launch this kernel with nucall!",
    note = "for example `nucall!(0, [n], [64]; scale(&mut a, 2.0))?` runs it on device 0 (`nuda::devices()` lists them) over n work-items in groups of 64"
)]
pub trait Nucall<Param> {
    /// Unreachable: no value has a type that implements the trait.
    fn never(self) -> std::convert::Infallible;
}

/// The one type that implements [`Nucall`]: it has no value.
#[derive(Debug)]
pub enum NoCall {}

#[diagnostic::do_not_recommend]
impl<P> Nucall<P> for NoCall {
    fn never(self) -> std::convert::Infallible {
        match self {}
    }
}
