//! Device memory: buffers for arrays, 2-D float images for `NuImage2`, and the blocking
//! transfers lazy synchronisation asks for, in bytes. Every transfer is counted in
//! `nuda::stats()`.

use super::{Buffer as DeviceBuffer, ClDevice, Layout};
use crate::error::{Error, Result};
use crate::stats::{record, Event};
use opencl3::memory::{
    cl_image_desc, cl_image_format, cl_mem, Buffer, ClMem, Image, CL_FLOAT, CL_MEM_COPY_HOST_PTR,
    CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_WRITE, CL_R, CL_RGBA,
};
use opencl3::types::CL_BLOCKING;
use std::ptr;

/// Where an array or image lives on one device.
pub(crate) enum DeviceMem {
    /// A buffer of this many bytes.
    Buffer(Buffer<u8>, usize),
    /// An image of this region, holding this many bytes of texels.
    Image(Image, [usize; 3], usize),
}

impl DeviceMem {
    /// The raw handle, for `clSetKernelArg`.
    pub fn raw(&self) -> cl_mem {
        match self {
            DeviceMem::Buffer(b, _) => b.get(),
            DeviceMem::Image(i, ..) => i.get(),
        }
    }

    /// Checks that a transfer of `len` bytes covers exactly this memory: the driver copies
    /// an image's whole region from or to host memory that must hold it.
    fn check_len(&self, dev: &ClDevice, len: usize) -> Result<()> {
        let (DeviceMem::Buffer(_, bytes) | DeviceMem::Image(_, _, bytes)) = self;
        if len == *bytes {
            return Ok(());
        }
        Err(Error::DimsMismatch {
            what: format!("a transfer on {}", dev.label),
            expected: format!("{bytes} bytes"),
            found: format!("{len} bytes"),
        })
    }
}

impl DeviceBuffer for DeviceMem {
    fn handle(&self) -> u64 {
        self.raw() as usize as u64
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// The OpenCL memory behind a buffer the memory layer hands back. The layer keeps each
/// device's buffers apart, so one from another backend here is a bug in nuda.
pub(crate) fn own(buf: &dyn DeviceBuffer) -> &DeviceMem {
    match buf.as_any().downcast_ref() {
        Some(m) => m,
        None => unreachable!("nuda bug: another backend's buffer reached OpenCL"),
    }
}

/// As [`own`], mutably.
pub(crate) fn own_mut(buf: &mut dyn DeviceBuffer) -> &mut DeviceMem {
    match buf.as_any_mut().downcast_mut() {
        Some(m) => m,
        None => unreachable!("nuda bug: another backend's buffer reached OpenCL"),
    }
}

/// The handle a kernel argument carries back to a `cl_mem`.
pub(crate) fn from_handle(h: u64) -> cl_mem {
    h as usize as cl_mem
}

/// Allocates `len` bytes of device memory (at least one: OpenCL has no empty buffer). An
/// image's bytes must be exactly its texels': transfers move the whole region.
pub(crate) fn alloc(dev: &ClDevice, len: usize, layout: Layout) -> Result<DeviceMem> {
    if let Layout::Image {
        width,
        height,
        channels,
    } = layout
    {
        let texels = width
            .checked_mul(height)
            .and_then(|t| t.checked_mul(channels));
        let need = texels.and_then(|t| t.checked_mul(size_of::<f32>()));
        if need != Some(len) || !matches!(channels, 1 | 4) {
            return Err(Error::DimsMismatch {
                what: format!("an image allocation on {}", dev.label),
                expected: format!("{width} x {height} texels of 1 or 4 float channels"),
                found: format!("{len} bytes and {channels} channels"),
            });
        }
    }
    let bytes = len.max(1) as u64;
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
            Buffer::<u8>::create(&ctx.context, CL_MEM_READ_WRITE, len.max(1), ptr::null_mut())
        }
        .map(|b| DeviceMem::Buffer(b, len)),
        Layout::Image {
            width,
            height,
            channels,
        } => create_image(ctx, width, height, channels)
            .map(|i| DeviceMem::Image(i, [width, height, 1], len)),
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
pub(crate) fn upload(dev: &ClDevice, mem: &mut DeviceMem, data: &[u8]) -> Result<()> {
    mem.check_len(dev, data.len())?;
    match mem {
        _ if data.is_empty() => Ok(()),
        DeviceMem::Buffer(b, _) => write_buffer(dev, b, 0, data, "copying to the device"),
        DeviceMem::Image(i, region, _) => {
            let queue = &dev.context()?.queue;
            let src = data.as_ptr() as *mut std::ffi::c_void;
            // SAFETY: blocking; the region is the image's own and `data` holds exactly its
            // texels' bytes (`check_len`).
            let done = unsafe {
                queue.enqueue_write_image(
                    i,
                    CL_BLOCKING,
                    [0; 3].as_ptr(),
                    region.as_ptr(),
                    0,
                    0,
                    src,
                    &[],
                )
            };
            done.map_err(|e| dev.error(e.0, "copying to the device"))?;
            record(Some(dev.index), Event::ToDevice(size_of_val(data) as u64));
            Ok(())
        }
    }
}

/// Copies the device's data into `out`, blocking until done.
pub(crate) fn download(dev: &ClDevice, mem: &DeviceMem, out: &mut [u8]) -> Result<()> {
    mem.check_len(dev, out.len())?;
    match mem {
        _ if out.is_empty() => Ok(()),
        DeviceMem::Buffer(b, _) => read_buffer(dev, b, 0, out, "copying to the host"),
        DeviceMem::Image(i, region, _) => {
            let queue = &dev.context()?.queue;
            let dst = out.as_mut_ptr() as *mut std::ffi::c_void;
            // SAFETY: blocking; `out` holds exactly the image's texels' bytes (`check_len`).
            let done = unsafe {
                queue.enqueue_read_image(
                    i,
                    CL_BLOCKING,
                    [0; 3].as_ptr(),
                    region.as_ptr(),
                    0,
                    0,
                    dst,
                    &[],
                )
            };
            done.map_err(|e| dev.error(e.0, "copying to the host"))?;
            record(Some(dev.index), Event::ToHost(size_of_val(out) as u64));
            Ok(())
        }
    }
}

/// Checks that bytes `offset..offset + len` lie within a buffer (images move whole).
fn check_part(dev: &ClDevice, mem: &DeviceMem, offset: usize, len: usize) -> Result<()> {
    match mem {
        DeviceMem::Buffer(_, bytes) if offset.checked_add(len).is_some_and(|e| e <= *bytes) => {
            Ok(())
        }
        DeviceMem::Buffer(_, bytes) | DeviceMem::Image(_, _, bytes) => Err(Error::DimsMismatch {
            what: format!("a partial transfer on {}", dev.label),
            expected: format!("bytes within a buffer of {bytes}"),
            found: format!("{len} bytes from {offset}"),
        }),
    }
}

/// Copies `data` into a buffer from byte `offset` on, blocking until done.
pub(crate) fn upload_at(
    dev: &ClDevice,
    mem: &mut DeviceMem,
    offset: usize,
    data: &[u8],
) -> Result<()> {
    check_part(dev, mem, offset, data.len())?;
    match mem {
        DeviceMem::Buffer(b, _) if !data.is_empty() => write_buffer(
            dev,
            b,
            offset,
            data,
            "copying part of an array to the device",
        ),
        _ => Ok(()),
    }
}

/// Copies `out.len()` bytes of a buffer from byte `offset` on into `out`, blocking.
pub(crate) fn download_at(
    dev: &ClDevice,
    mem: &DeviceMem,
    offset: usize,
    out: &mut [u8],
) -> Result<()> {
    check_part(dev, mem, offset, out.len())?;
    match mem {
        DeviceMem::Buffer(b, _) if !out.is_empty() => {
            read_buffer(dev, b, offset, out, "copying part of an array to the host")
        }
        _ => Ok(()),
    }
}

/// The one blocking buffer write every upload makes; the caller has checked that the buffer
/// holds `offset + data.len()` bytes (`check_len` or `check_part`).
fn write_buffer(
    dev: &ClDevice,
    b: &mut Buffer<u8>,
    offset: usize,
    data: &[u8],
    what: &str,
) -> Result<()> {
    let ctx = dev.context()?;
    if let Some(staged) = ctx.staging.write(dev, b, offset, data) {
        staged?;
    } else {
        // SAFETY: the write is blocking, so `data` outlives it, and the caller checked the
        // range.
        let done = unsafe {
            ctx.queue
                .enqueue_write_buffer(b, CL_BLOCKING, offset, data, &[])
        };
        done.map_err(|e| dev.error(e.0, what))?;
    }
    record(Some(dev.index), Event::ToDevice(size_of_val(data) as u64));
    Ok(())
}

/// The one blocking buffer read every download makes; the caller has checked that the buffer
/// holds `offset + out.len()` bytes.
fn read_buffer(
    dev: &ClDevice,
    b: &Buffer<u8>,
    offset: usize,
    out: &mut [u8],
    what: &str,
) -> Result<()> {
    let ctx = dev.context()?;
    if let Some(staged) = ctx.staging.read(dev, b, offset, out) {
        staged?;
    } else {
        // SAFETY: the read is blocking, the caller checked the range, and `out` has room for
        // the bytes read.
        let done = unsafe {
            ctx.queue
                .enqueue_read_buffer(b, CL_BLOCKING, offset, out, &[])
        };
        done.map_err(|e| dev.error(e.0, what))?;
    }
    record(Some(dev.index), Event::ToHost(size_of_val(out) as u64));
    Ok(())
}

/// Sets `bytes` bytes of device memory to zero without a transfer.
pub(crate) fn fill_zero(dev: &ClDevice, mem: &mut DeviceMem, bytes: usize) -> Result<()> {
    mem.check_len(dev, bytes)?;
    if bytes == 0 {
        return Ok(());
    }
    let queue = &dev.context()?.queue;
    let done = match mem {
        // SAFETY: a one-byte zero pattern over the buffer's own size (`check_len`); the pattern
        // outlives the call, which copies it, and is waited on.
        DeviceMem::Buffer(b, _) => unsafe { queue.enqueue_fill_buffer(b, &[0u8], 0, bytes, &[]) },
        // SAFETY: a four-float zero colour over the image's own region; waited on below.
        DeviceMem::Image(i, region, _) => unsafe {
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
