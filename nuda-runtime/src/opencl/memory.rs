//! Device memory: buffers for arrays, 2-D float images for `NuImage2`, and the blocking
//! transfers lazy synchronisation asks for. Every transfer is counted in `nuda::stats()`.

use super::ClDevice;
use crate::element::Pod;
use crate::error::{Error, Result};
use crate::stats::{record, Event};
use opencl3::memory::{
    cl_image_desc, cl_image_format, cl_mem, Buffer, ClMem, Image, CL_FLOAT, CL_MEM_COPY_HOST_PTR,
    CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_WRITE, CL_R, CL_RGBA,
};
use opencl3::types::CL_BLOCKING;
use std::ptr;

/// Where an array or image lives on one device.
pub(crate) enum DeviceMem<T> {
    Buffer(Buffer<T>),
    Image(Image, [usize; 3]),
}

/// How the elements are laid out on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// A linear buffer.
    Buffer,
    /// A 2-D image of `width` by `height` texels with this many float channels.
    Image {
        width: usize,
        height: usize,
        channels: usize,
    },
}

impl<T> DeviceMem<T> {
    /// The raw handle, for `clSetKernelArg`.
    pub fn raw(&self) -> cl_mem {
        match self {
            DeviceMem::Buffer(b) => b.get(),
            DeviceMem::Image(i, _) => i.get(),
        }
    }
}

/// Allocates device memory for `len` elements.
pub(crate) fn alloc<T: Pod>(dev: &ClDevice, len: usize, layout: Layout) -> Result<DeviceMem<T>> {
    let bytes = (len.max(1) * size_of::<T>()) as u64;
    if bytes > dev.info.max_alloc && dev.info.max_alloc > 0 {
        return Err(Error::OutOfResources {
            device: dev.label.clone(),
            what: format!("allocating {bytes} bytes"),
            detail: format!(
                "the device allocates at most {} bytes at once",
                dev.info.max_alloc
            ),
        });
    }
    let ctx = dev.context()?;
    let during = || format!("allocating {bytes} bytes");
    let mem = match layout {
        // SAFETY: no host pointer is passed, so the driver owns and initialises nothing of ours.
        Layout::Buffer => unsafe {
            Buffer::<T>::create(&ctx.context, CL_MEM_READ_WRITE, len.max(1), ptr::null_mut())
        }
        .map(DeviceMem::Buffer),
        Layout::Image {
            width,
            height,
            channels,
        } => create_image(ctx, width, height, channels)
            .map(|i| DeviceMem::Image(i, [width, height, 1])),
    }
    .map_err(|e| dev.error(e.0, &during()))?;
    record(Some(dev.index), Event::Alloc(bytes));
    Ok(mem)
}

fn create_image(
    ctx: &super::ClContext,
    width: usize,
    height: usize,
    channels: usize,
) -> opencl3::Result<Image> {
    let order = if channels == 4 { CL_RGBA } else { CL_R };
    let format = cl_image_format {
        image_channel_order: order,
        image_channel_data_type: CL_FLOAT,
    };
    let empty = width == 0 || height == 0;
    let (w, h) = if empty { (1, 1) } else { (width, height) };
    let desc = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width: w,
        image_height: h,
        image_depth: 1,
        image_array_size: 1,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: ptr::null_mut(),
    };
    // An empty image is a one-texel stand-in, which reads must find zero, as the native
    // engine's empty image reads: so it starts from a copy of a zero texel.
    let mut zero = [0f32; 4];
    let (flags, host) = match empty {
        true => (
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            zero.as_mut_ptr().cast(),
        ),
        false => (CL_MEM_READ_WRITE, ptr::null_mut()),
    };
    // SAFETY: format and desc outlive the call; a host pointer, if any, points to one texel
    // of at most four floats (the stand-in is 1x1), which the call copies before returning.
    unsafe { Image::create(&ctx.context, flags, &format, &desc, host) }
}

/// Copies `data` to the device, blocking until done.
pub(crate) fn upload<T: Pod>(dev: &ClDevice, mem: &mut DeviceMem<T>, data: &[T]) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let queue = &dev.context()?.queue;
    let done = match mem {
        // SAFETY: the write is blocking, so `data` outlives it; the buffer holds data.len() items.
        DeviceMem::Buffer(b) => unsafe { queue.enqueue_write_buffer(b, CL_BLOCKING, 0, data, &[]) },
        // SAFETY: blocking; the region is the image's own and `data` holds exactly its texels.
        DeviceMem::Image(i, region) => unsafe {
            let origin = [0usize; 3];
            let src = data.as_ptr() as *mut std::ffi::c_void;
            queue.enqueue_write_image(
                i,
                CL_BLOCKING,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                src,
                &[],
            )
        },
    };
    done.map_err(|e| dev.error(e.0, "copying to the device"))?;
    record(Some(dev.index), Event::ToDevice(size_of_val(data) as u64));
    Ok(())
}

/// Copies the device's data into `out`, blocking until done.
pub(crate) fn download<T: Pod>(dev: &ClDevice, mem: &DeviceMem<T>, out: &mut [T]) -> Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    let queue = &dev.context()?.queue;
    let done = match mem {
        // SAFETY: the read is blocking and `out` has room for exactly the buffer's items.
        DeviceMem::Buffer(b) => unsafe { queue.enqueue_read_buffer(b, CL_BLOCKING, 0, out, &[]) },
        // SAFETY: blocking; `out` holds exactly the image's texels.
        DeviceMem::Image(i, region) => unsafe {
            let origin = [0usize; 3];
            let dst = out.as_mut_ptr() as *mut std::ffi::c_void;
            queue.enqueue_read_image(
                i,
                CL_BLOCKING,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                dst,
                &[],
            )
        },
    };
    done.map_err(|e| dev.error(e.0, "copying to the host"))?;
    record(Some(dev.index), Event::ToHost(size_of_val(out) as u64));
    Ok(())
}

/// Sets `len` elements of device memory to zero without a transfer.
pub(crate) fn fill_zero<T: Pod>(dev: &ClDevice, mem: &mut DeviceMem<T>, len: usize) -> Result<()> {
    let bytes = len * size_of::<T>();
    if bytes == 0 {
        return Ok(());
    }
    let queue = &dev.context()?.queue;
    let done = match mem {
        // SAFETY: a one-element zero pattern (every `Pod` default is all-zero bits) over the
        // buffer's own size; the pattern outlives the call, which copies it, and is waited on.
        DeviceMem::Buffer(b) => unsafe {
            queue.enqueue_fill_buffer(b, &[T::default()], 0, bytes, &[])
        },
        // SAFETY: a four-float zero colour over the image's own region; waited on below.
        DeviceMem::Image(i, region) => unsafe {
            let zero = [0f32; 4];
            let origin = [0usize; 3];
            queue.enqueue_fill_image(
                i,
                zero.as_ptr().cast(),
                origin.as_ptr(),
                region.as_ptr(),
                &[],
            )
        },
    };
    done.and_then(|event| event.wait())
        .map_err(|e| dev.error(e.0, "zeroing device memory"))?;
    record(Some(dev.index), Event::Fill(bytes as u64));
    Ok(())
}
