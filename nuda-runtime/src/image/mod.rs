//! `NuImage2<T>`: 2-D images of `f32` (one channel) or `[f32; 4]` (RGBA), stored as OpenCL
//! images on devices and row-major (`y` outer, `x` inner) on the host, synchronised lazily like
//! arrays. Reads clamp coordinates to the edge, on the host and in kernels alike. Layer 4 of
//! the runtime (see `backend/README.md`), above memory.

#[cfg(test)]
mod test;

use crate::backend::native::{clamp, ImageView, ImageViewMut};
use crate::backend::Layout;
use crate::device::Device;
use crate::element::Texel;
use crate::error::{Error, Result};
use crate::memory::Storage;
use std::fmt;

/// A lazily synchronised 2-D image of `width` by `height` texels.
pub struct NuImage2<T: Texel> {
    dims: (usize, usize),
    storage: Storage<T>,
}

fn layout<T: Texel>((width, height): (usize, usize)) -> Layout {
    Layout::Image {
        width,
        height,
        channels: T::CHANNELS,
    }
}

fn texels((w, h): (usize, usize)) -> usize {
    match w.checked_mul(h) {
        Some(n) => n,
        None => panic!("nuda: image dims ({w}, {h}) have more texels than usize can count"),
    }
}

impl<T: Texel> NuImage2<T> {
    /// A zeroed image of `(width, height)`; nothing is allocated until first use.
    pub fn new(dims: (usize, usize)) -> Self {
        NuImage2 {
            dims,
            storage: Storage::zeroed(texels(dims), layout::<T>(dims)),
        }
    }

    /// An image with `f((x, y))` at each texel.
    pub fn from_fn(dims: (usize, usize), mut f: impl FnMut((usize, usize)) -> T) -> Self {
        let w = dims.0.max(1);
        let data = (0..texels(dims)).map(|i| f((i % w, i / w))).collect();
        NuImage2 {
            dims,
            storage: Storage::from_vec(data, layout::<T>(dims)),
        }
    }

    /// An image holding `data`, row by row; its length must be `width * height`.
    pub fn from_vec(dims: (usize, usize), data: Vec<T>) -> Result<Self> {
        if dims.0.checked_mul(dims.1) != Some(data.len()) {
            return Err(Error::DimsMismatch {
                what: "NuImage2::from_vec".into(),
                expected: format!("width * height texels for dims {dims:?}"),
                found: format!("{} texels", data.len()),
            });
        }
        Ok(NuImage2 {
            dims,
            storage: Storage::from_vec(data, layout::<T>(dims)),
        })
    }

    /// `(width, height)`.
    pub fn dims(&self) -> (usize, usize) {
        self.dims
    }

    /// Number of texels.
    pub fn len(&self) -> usize {
        self.storage.len()
    }

    /// Whether the image has no texels.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The texel at `(x, y)`, coordinates clamped to the edge (the nearest, clamp-to-edge
    /// sampler kernels use). Panics on an empty image or a failed download.
    pub fn read(&self, x: i32, y: i32) -> T {
        assert!(!self.is_empty(), "nuda: read from an empty NuImage2");
        let (w, h) = self.dims;
        self.as_slice()[clamp(y, h) * w + clamp(x, w)]
    }

    /// Writes the texel at `(x, y)`. Panics if it lies outside the image.
    pub fn write(&mut self, x: i32, y: i32, value: T) {
        let (w, h) = self.dims;
        if x < 0 || y < 0 || x as usize >= w || y as usize >= h {
            panic!("nuda: NuImage2::write at ({x}, {y}) outside an image of dims ({w}, {h})");
        }
        let data = self
            .storage
            .host_mut()
            .unwrap_or_else(|e| panic!("nuda: {e}"));
        data[y as usize * w + x as usize] = value;
    }

    /// The texels row by row, downloaded first if a device wrote them.
    pub fn try_as_slice(&self) -> Result<&[T]> {
        self.storage.host()
    }

    /// The texels row by row. Panics if a download fails; see `try_as_slice`.
    pub fn as_slice(&self) -> &[T] {
        self.try_as_slice().unwrap_or_else(|e| panic!("nuda: {e}"))
    }

    /// The texels row by row for writing; every device copy becomes stale.
    pub fn try_as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.storage.host_mut()
    }

    /// The texels row by row for writing. Panics if a download fails; see `try_as_mut_slice`.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.try_as_mut_slice()
            .unwrap_or_else(|e| panic!("nuda: {e}"))
    }

    /// Sets every texel to `value` on the host, downloading nothing first. An `Err` if the
    /// host cannot allocate the image's host copy.
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.storage.host_overwrite()?.fill(value);
        Ok(())
    }

    /// A copy of the texels, row by row.
    pub fn to_vec(&self) -> Vec<T> {
        self.as_slice().to_vec()
    }

    /// Makes the data valid on `device` now (allocating and uploading only if needed).
    pub fn prefetch(&self, device: &Device) -> Result<()> {
        match device.is_native() {
            false => self.storage.prepare(device.index()).map(drop),
            true => self.storage.host().map(drop),
        }
    }

    /// A read-only view on the host for the native engine.
    pub fn read_view(&self) -> Result<ImageView<'_, T>> {
        Ok(ImageView::new(self.storage.host()?, self.dims))
    }

    /// A shared writable view on the host for the native engine.
    pub fn write_view(&mut self) -> Result<ImageViewMut<'_, T>> {
        let dims = self.dims;
        Ok(ImageViewMut::new(self.storage.host_mut()?, dims))
    }

    crate::memory::storage_accessors!();
}

impl<T: Texel> fmt::Debug for NuImage2<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (host, devices) = self.residency();
        f.debug_struct(&format!("NuImage2<{}ch>", T::CHANNELS))
            .field("dims", &self.dims)
            .field("valid_on_host", &host)
            .field("valid_on_devices", &devices)
            .finish()
    }
}
