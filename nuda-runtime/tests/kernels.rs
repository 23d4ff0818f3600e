//! Hand-written OpenCL C kernels through the launch path on a real OpenCL device, and the same
//! computations as native-engine closures, each compared with plain Rust.

mod common;

use common::{assert_close, native, opencl};
use nuda_runtime::{
    Device, Error, KernelSource, Launch, NativeLaunch, NuArray1, NuArray2, NuArray3, NuImage2,
};

macro_rules! typed_axpb {
    ($name:ident, $t:ty, $cl:literal) => {
        #[test]
        fn $name() {
            // SAFETY: accesses are guarded by `n`, and the launch passes `a` and `b` of one length.
            static SRC: KernelSource = unsafe {
                KernelSource::new(concat!(
                    "kernel void axpb(global const ",
                    $cl,
                    "* a, nu_idx n, global ",
                    $cl,
                    "* b, nu_idx m) {",
                    "  nu_idx i = get_global_id(0);",
                    "  if (i < n) b[i] = (",
                    $cl,
                    ")(a[i] * (",
                    $cl,
                    ")3 + (",
                    $cl,
                    ")1);",
                    "}"
                ))
            };
            let n = 300;
            let a = NuArray1::<$t>::from_fn(n, |i| (i % 40) as $t);
            let want: Vec<$t> = a
                .as_slice()
                .iter()
                .map(|&x| (x * 3 as $t) + 1 as $t)
                .collect();
            if let Some(dev) = opencl() {
                let mut b = NuArray1::<$t>::new(n);
                Launch::new(&SRC, "axpb")
                    .on(&dev)
                    .global([n])
                    .local([32])
                    .array(&a)
                    .array_mut(&mut b)
                    .run()
                    .unwrap();
                assert_eq!(b.to_vec(), want, "OpenCL {}", stringify!($t));
            }
            let mut b = NuArray1::<$t>::new(n);
            let (av, bv) = (a.read_view().unwrap(), b.write_view().unwrap());
            NativeLaunch::new([n])
                .local([32])
                .run(|w| {
                    let i = w.global_id(0);
                    if i < n {
                        bv.set(i, av[i] * 3 as $t + 1 as $t);
                    }
                })
                .unwrap();
            assert_eq!(b.to_vec(), want, "native {}", stringify!($t));
        }
    };
}

typed_axpb!(f32_elements, f32, "float");
typed_axpb!(f64_elements, f64, "double");
typed_axpb!(i8_elements, i8, "char");
typed_axpb!(i16_elements, i16, "short");
typed_axpb!(i32_elements, i32, "int");
typed_axpb!(i64_elements, i64, "long");
typed_axpb!(u8_elements, u8, "uchar");
typed_axpb!(u16_elements, u16, "ushort");
typed_axpb!(u32_elements, u32, "uint");
typed_axpb!(u64_elements, u64, "ulong");

// SAFETY: accesses are guarded by `a`'s dims, and every launch passes `b` of `a`'s shape.
static ARRAY_BY_2: KernelSource = unsafe {
    KernelSource::new(
        "kernel void array_by_2(global float* b, nu_idx b0, nu_idx b1,
                            global const float* a, nu_idx a0, nu_idx a1) {
         nu_idx i = get_global_id(0), j = get_global_id(1);
         if (i < a0 && j < a1) b[i * b1 + j] = 2.0f * a[i * a1 + j];
     }",
    )
};

/// NUDA's Fig. 2, hand-written: any n with any work-group size, thanks to the guard.
#[test]
fn two_dimensional_array_by_2_with_ragged_sizes() {
    let (n, m) = (37, 130);
    let a = NuArray2::<f32>::from_fn((n, m), |(i, j)| (i * m + j) as f32);
    let want: Vec<f32> = a.as_slice().iter().map(|x| 2.0 * x).collect();
    if let Some(dev) = opencl() {
        let mut b = NuArray2::<f32>::new((n, m));
        let t = Launch::new(&ARRAY_BY_2, "array_by_2")
            .on(&dev)
            .global([n, m])
            .local([1, 128])
            .array_mut(&mut b)
            .array(&a)
            .run()
            .unwrap();
        assert!(
            t.kernel.is_some(),
            "profiling reports the kernel's own time"
        );
        assert_eq!(b.to_vec(), want);
    }
    let mut b = NuArray2::<f32>::new((n, m));
    let (av, bv) = (a.read_view().unwrap(), b.write_view().unwrap());
    NativeLaunch::new([n, m])
        .local([1, 128])
        .run(|w| {
            let (i, j) = (w.global_id(0), w.global_id(1));
            if i < n && j < m {
                bv.set((i, j), 2.0 * av[(i, j)]);
            }
        })
        .unwrap();
    assert_eq!(b.to_vec(), want);
}

// SAFETY: accesses are guarded by `c`'s dims, and every launch passes `a` of `c`'s shape.
static SUM3: KernelSource = unsafe {
    KernelSource::new(
        "kernel void sum3(global int* c, nu_idx c0, nu_idx c1, nu_idx c2,
                      global const int* a, nu_idx a0, nu_idx a1, nu_idx a2) {
         nu_idx i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);
         if (i < c0 && j < c1 && k < c2) c[(i * c1 + j) * c2 + k] += a[(i * a1 + j) * a2 + k];
     }",
    )
};

#[test]
fn three_dimensional_read_modify_write() {
    let d = (5, 6, 7);
    let a = NuArray3::<i32>::from_fn(d, |(i, j, k)| (100 * i + 10 * j + k) as i32);
    let c0 = NuArray3::<i32>::from_fn(d, |(i, _, k)| (i * k) as i32);
    let want: Vec<i32> = c0
        .as_slice()
        .iter()
        .zip(a.as_slice())
        .map(|(c, a)| c + a)
        .collect();
    if let Some(dev) = opencl() {
        let mut c = c0.clone();
        Launch::new(&SUM3, "sum3")
            .on(&dev)
            .global([5, 6, 7])
            .local([1, 2, 4])
            .array_mut(&mut c)
            .array(&a)
            .run()
            .unwrap();
        assert_eq!(c.to_vec(), want);
    }
    let mut c = c0.clone();
    let (av, cv) = (a.read_view().unwrap(), c.write_view().unwrap());
    NativeLaunch::new([5, 6, 7])
        .local([1, 2, 4])
        .run(|w| {
            let idx = (w.global_id(0), w.global_id(1), w.global_id(2));
            if idx.0 < 5 && idx.1 < 6 && idx.2 < 7 {
                cv.set(idx, cv.get(idx) + av[idx]);
            }
        })
        .unwrap();
    assert_eq!(c.to_vec(), want);
}

// SAFETY: reads go through the clamping `nu_sampler`; `blur` guards its write by `dst`'s
// size, and every `swap_rb` launch has exactly `dst`'s size as its NDRange.
static BLUR: KernelSource = unsafe {
    KernelSource::new(
        "kernel void blur(read_only image2d_t src, write_only image2d_t dst) {
         int x = get_global_id(0), y = get_global_id(1);
         if (x >= get_image_width(dst) || y >= get_image_height(dst)) return;
         float s = 0.0f;
         for (int dy = -1; dy <= 1; dy++)
             for (int dx = -1; dx <= 1; dx++)
                 s += read_imagef(src, nu_sampler, (int2)(x + dx, y + dy)).x;
         write_imagef(dst, (int2)(x, y), (float4)(s / 9.0f, 0.0f, 0.0f, 1.0f));
     }
     kernel void swap_rb(read_only image2d_t src, write_only image2d_t dst) {
         int2 p = (int2)(get_global_id(0), get_global_id(1));
         float4 v = read_imagef(src, nu_sampler, p);
         write_imagef(dst, p, v.zyxw);
     }",
    )
};

fn blur_reference(src: &NuImage2<f32>) -> Vec<f32> {
    let (w, h) = src.dims();
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            let s: f32 = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| src.read(x + dx, y + dy))
                .sum();
            out.push(s / 9.0);
        }
    }
    out
}

#[test]
fn images_blur_with_edge_clamping() {
    let (w, h) = (45, 31);
    let src = NuImage2::<f32>::from_fn((w, h), |(x, y)| ((x * 7 + y * 13) % 17) as f32);
    let want = blur_reference(&src);
    if let Some(dev) = opencl() {
        let mut dst = NuImage2::<f32>::new((w, h));
        Launch::new(&BLUR, "blur")
            .on(&dev)
            .global([w, h])
            .local([8, 8])
            .image(&src)
            .image_mut(&mut dst)
            .run()
            .unwrap();
        assert_close(&dst.to_vec(), &want, 1e-5);
    }
    let mut dst = NuImage2::<f32>::new((w, h));
    let (s, d) = (src.read_view().unwrap(), dst.write_view().unwrap());
    NativeLaunch::new([w, h])
        .run(|it| {
            let (x, y) = (it.global_id(0) as i32, it.global_id(1) as i32);
            let mut acc = 0.0f32;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    acc += s.read(x + dx, y + dy);
                }
            }
            d.write(x, y, acc / 9.0);
        })
        .unwrap();
    assert_close(&dst.to_vec(), &want, 1e-5);
}

#[test]
fn rgba_images_round_trip_through_a_kernel() {
    let Some(dev) = opencl() else { return };
    let src = NuImage2::<[f32; 4]>::from_fn((9, 4), |(x, y)| [x as f32, y as f32, 0.5, 1.0]);
    let mut dst = NuImage2::<[f32; 4]>::new((9, 4));
    Launch::new(&BLUR, "swap_rb")
        .on(&dev)
        .global([9, 4])
        .image(&src)
        .image_mut(&mut dst)
        .run()
        .unwrap();
    assert_eq!(dst.read(3, 2), [0.5, 2.0, 3.0, 1.0]);
    assert_eq!(dst.residency(), (true, vec![dev.index()]));
}

// SAFETY: accesses are guarded by `n` and `cn`, and every launch passes `x` of `y`'s length.
static POLY: KernelSource = unsafe {
    KernelSource::new(
        "kernel void poly(global float* y, nu_idx n, global const float* x, nu_idx xn,
                      constant float* c, nu_idx cn) {
         nu_idx i = get_global_id(0);
         if (i >= n) return;
         float acc = 0.0f;
         for (nu_idx k = cn; k > 0; k--) acc = acc * x[i] + c[k - 1];
         y[i] = acc;
     }",
    )
};

#[test]
fn constant_qualified_arrays() {
    let n = 500;
    let x = NuArray1::<f32>::from_fn(n, |i| i as f32 / n as f32);
    let c = NuArray1::<f32>::from_vec(4, vec![1.0, -2.0, 0.5, 3.0]).unwrap();
    let want: Vec<f32> = x
        .as_slice()
        .iter()
        .map(|&x| c.as_slice().iter().rev().fold(0.0, |a, &k| a * x + k))
        .collect();
    let Some(dev) = opencl() else { return };
    let mut y = NuArray1::<f32>::new(n);
    Launch::new(&POLY, "poly")
        .on(&dev)
        .global([n])
        .local([50])
        .array_mut(&mut y)
        .array(&x)
        .constant(&c)
        .run()
        .unwrap();
    assert_close(&y.to_vec(), &want, 1e-5);
}

// SAFETY: reads of `a` are guarded by `n`; every launch gives `tmp` one int per work-item
// of a group, a power-of-two group size, and `sums` one element per group.
static GROUP_SUM: KernelSource = unsafe {
    KernelSource::new(
    "kernel void group_sum(global const int* a, nu_idx n, global int* sums, nu_idx g, local int* tmp) {
         nu_idx l = get_local_id(0), i = get_global_id(0), size = get_local_size(0);
         tmp[l] = i < n ? a[i] : 0;
         barrier(CLK_LOCAL_MEM_FENCE);
         for (nu_idx s = size / 2; s > 0; s /= 2) {
             if (l < s) tmp[l] += tmp[l + s];
             barrier(CLK_LOCAL_MEM_FENCE);
         }
         if (l == 0) sums[get_group_id(0)] = tmp[0];
     }",
)
};

#[test]
fn local_memory_arguments() {
    let (n, group): (usize, usize) = (1000, 64);
    let groups = n.div_ceil(group);
    let a = NuArray1::<i32>::from_fn(n, |i| (i % 13) as i32 - 6);
    let want: Vec<i32> = a.as_slice().chunks(group).map(|c| c.iter().sum()).collect();
    if let Some(dev) = opencl() {
        let mut sums = NuArray1::<i32>::new(groups);
        Launch::new(&GROUP_SUM, "group_sum")
            .on(&dev)
            .global([n])
            .local([group])
            .array(&a)
            .array_mut(&mut sums)
            .local_array::<i32>(group)
            .run()
            .unwrap();
        assert_eq!(sums.to_vec(), want);
    }
    // Natively, one work-item per group does the group's sum.
    let mut sums = NuArray1::<i32>::new(groups);
    let (av, sv) = (a.read_view().unwrap(), sums.write_view().unwrap());
    NativeLaunch::new([groups * group])
        .local([group])
        .run(|w| {
            if w.local_id(0) == 0 {
                let start = w.group_id(0) * group;
                sv.set(
                    w.group_id(0),
                    (start..(start + group).min(n)).map(|i| av[i]).sum(),
                );
            }
        })
        .unwrap();
    assert_eq!(sums.to_vec(), want);
}

#[test]
fn an_opencl_kernel_on_the_native_engine_is_a_clear_error() {
    let mut b = NuArray2::<f32>::new((2, 2));
    let a = NuArray2::<f32>::new((2, 2));
    let e = Launch::new(&ARRAY_BY_2, "array_by_2")
        .on(&native())
        .global([2, 2])
        .array_mut(&mut b)
        .array(&a)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::Launch { .. }), "{e}");
    assert!(e.to_string().contains("native engine"), "{e}");
}

#[test]
fn empty_ndrange_runs_nothing_and_moves_nothing() {
    let Some(dev) = opencl() else { return };
    let a = NuArray2::<f32>::new((0, 4));
    let mut b = NuArray2::<f32>::new((0, 4));
    let before = nuda_runtime::thread_stats();
    Launch::new(&ARRAY_BY_2, "array_by_2")
        .on(&dev)
        .global([0, 4])
        .local([1, 4])
        .array_mut(&mut b)
        .array(&a)
        .run()
        .unwrap();
    let d = nuda_runtime::thread_stats() - before;
    assert!(d.no_transfers() && d.launches == 0, "{d:?}");
}

fn _assert_device_is_send_sync(d: Device) -> impl Send + Sync {
    d
}

/// The bench's raw peer of an empty launch runs on OpenCL (the driver's own enqueue and
/// finish, `n` times) and gives a mean time; the native engine has no such peer.
#[test]
fn opencl_offers_a_raw_empty_launch_to_compare_with() {
    assert!(native().backend().raw_launch_time(3).is_none());
    let Some(dev) = opencl() else { return };
    let t = dev
        .backend()
        .raw_launch_time(5)
        .expect("OpenCL has a raw launch");
    let t = t.unwrap_or_else(|e| panic!("raw launch failed: {e}"));
    assert!(t > std::time::Duration::ZERO);
}
