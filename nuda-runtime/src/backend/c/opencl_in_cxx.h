// nuda's C++ dialects (CUDA's and HIP's): the OpenCL C that nuda's macros and prelude
// write, in C++ for a GPU. `cxx.rs` puts this before every program, after the dialect's
// prologue, which defines the few names CUDA and HIP spell apart (NU_SHFL_DOWN_RAW and its
// kin, nu_texture_object, nu_surface_object); the dialect's marks spell what a header cannot
// reach (kernel signatures, local parameters and declarations, vector literals). NVRTC and
// hiprtc compile the result with device functions by default.
typedef float4 nu_cxx_float4;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
// HIP has its own `ulong` (unsigned long, 64 bits as here).
#ifndef NU_HAS_ULONG
typedef unsigned long long ulong;
#endif
typedef unsigned long long size_t_nu;

// Address spaces (`global`, `local`, `constant`, `private`) and `kernel` are dialect marks
// (`cxx.rs`): as macros they would break CUDA's own `__global__`, which expands to
// `__location__(global)`.
#define restrict __restrict__
#define read_only
#define write_only

#define CHAR_BIT 8
#define CHAR_MAX 127
#define CHAR_MIN (-128)
#define UCHAR_MAX 255
#define SHRT_MAX 32767
#define SHRT_MIN (-32768)
#define USHRT_MAX 65535
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 0xffffffffu
#define LONG_MAX 0x7fffffffffffffffL
#define LONG_MIN (-0x7fffffffffffffffL - 1)
#define ULONG_MAX 0xffffffffffffffffUL
#define FLT_MAX 3.402823466e+38f
#define FLT_MIN 1.175494351e-38f
#define FLT_EPSILON 1.192092896e-07f
#define DBL_MAX 1.7976931348623158e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.220446049250313e-16
#define M_PI_F 3.14159274101257f
#define M_PI 3.141592653589793

// Work-items. A CUDA grid is always three-dimensional, and the dimensions a launch does not
// use have one block of one thread: ids 0 and sizes 1, as Rust's definition asks.
__device__ inline uint get_work_dim() { return 3u; }
__device__ inline size_t get_local_id(uint d) {
    return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : d == 2 ? threadIdx.z : 0;
}
__device__ inline size_t get_local_size(uint d) {
    return d == 0 ? blockDim.x : d == 1 ? blockDim.y : d == 2 ? blockDim.z : 1;
}
__device__ inline size_t get_group_id(uint d) {
    return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : d == 2 ? blockIdx.z : 0;
}
__device__ inline size_t get_num_groups(uint d) {
    return d == 0 ? gridDim.x : d == 1 ? gridDim.y : d == 2 ? gridDim.z : 1;
}
__device__ inline size_t get_global_id(uint d) {
    return (size_t)get_group_id(d) * get_local_size(d) + get_local_id(d);
}
__device__ inline size_t get_global_size(uint d) {
    return (size_t)get_num_groups(d) * get_local_size(d);
}
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()
#define mem_fence(flags) __threadfence()

// Reinterpretation and conversion.
template <class T, class S> __device__ inline T nu_as(S s) {
    static_assert(sizeof(T) == sizeof(S), "as_T between types of one size");
    T t;
    memcpy(&t, &s, sizeof(T));
    return t;
}
#define as_char(x) nu_as<signed char>(x)
#define as_uchar(x) nu_as<uchar>(x)
#define as_short(x) nu_as<short>(x)
#define as_ushort(x) nu_as<ushort>(x)
#define as_int(x) nu_as<int>(x)
#define as_uint(x) nu_as<uint>(x)
#define as_long(x) nu_as<long>(x)
#define as_ulong(x) nu_as<ulong>(x)
#define as_float(x) nu_as<float>(x)
#define as_double(x) nu_as<double>(x)
template <class T> struct nu_limits;
#define NU_LIMITS(T, LO, HI) template <> struct nu_limits<T> { \
    __device__ static T lo() { return LO; } __device__ static T hi() { return HI; } };
NU_LIMITS(signed char, CHAR_MIN, CHAR_MAX)
NU_LIMITS(char, CHAR_MIN, CHAR_MAX)
NU_LIMITS(uchar, 0, UCHAR_MAX)
NU_LIMITS(short, SHRT_MIN, SHRT_MAX)
NU_LIMITS(ushort, 0, USHRT_MAX)
NU_LIMITS(int, INT_MIN, INT_MAX)
NU_LIMITS(uint, 0u, UINT_MAX)
NU_LIMITS(long, LONG_MIN, LONG_MAX)
NU_LIMITS(long long, LONG_MIN, LONG_MAX)
NU_LIMITS(ulong, 0ull, ULONG_MAX)
// Saturating, truncating conversion of a float (NaN is 0) or an integer. A bound converted
// to the float type rounds to a power of two at or past it, so a value below it truncates
// into range; `float` stays `float`, as the user wrote it.
template <class T, class F> __device__ inline T nu_sat_float(F v) {
    if (v != v) return (T)0;
    if (v <= (F)nu_limits<T>::lo()) return nu_limits<T>::lo();
    if (v >= (F)nu_limits<T>::hi()) return nu_limits<T>::hi();
    return (T)v;
}
template <class T> __device__ inline T nu_sat(double v) { return nu_sat_float<T, double>(v); }
template <class T> __device__ inline T nu_sat(float v) { return nu_sat_float<T, float>(v); }
template <class T> constexpr bool nu_is_signed() { return (T)-1 < (T)0; }
template <class T, class S> __device__ inline T nu_sat(S v) {
    if constexpr (nu_is_signed<S>()) {
        if (v < (S)0) {
            return (long long)v < (long long)nu_limits<T>::lo() ? nu_limits<T>::lo() : (T)v;
        }
    }
    return (ulong)v > (ulong)nu_limits<T>::hi() ? nu_limits<T>::hi() : (T)v;
}
#define convert_char_sat_rtz(x) nu_sat<signed char>(x)
#define convert_uchar_sat_rtz(x) nu_sat<uchar>(x)
#define convert_short_sat_rtz(x) nu_sat<short>(x)
#define convert_ushort_sat_rtz(x) nu_sat<ushort>(x)
#define convert_int_sat_rtz(x) nu_sat<int>(x)
#define convert_uint_sat_rtz(x) nu_sat<uint>(x)
#define convert_long_sat_rtz(x) nu_sat<long>(x)
#define convert_ulong_sat_rtz(x) nu_sat<ulong>(x)

// OpenCL's integer builtins, overloaded over every integer type as OpenCL C has them.
template <class T> struct nu_unsigned { typedef T t; };
template <> struct nu_unsigned<signed char> { typedef uchar t; };
template <> struct nu_unsigned<char> { typedef uchar t; };
template <> struct nu_unsigned<short> { typedef ushort t; };
template <> struct nu_unsigned<int> { typedef uint t; };
template <> struct nu_unsigned<long> { typedef ulong t; };
template <> struct nu_unsigned<long long> { typedef ulong t; };
template <class T> __device__ inline T clz(T x) {
    typedef typename nu_unsigned<T>::t U;
    int pad = 64 - 8 * (int)sizeof(T);
    return (T)(__clzll((long long)(ulong)(U)x) - pad);
}
template <class T> __device__ inline T popcount(T x) {
    typedef typename nu_unsigned<T>::t U;
    return (T)__popcll((ulong)(U)x);
}
template <class T> __device__ inline T rotate(T x, T n) {
    typedef typename nu_unsigned<T>::t U;
    const uint w = 8 * sizeof(T);
    uint k = (uint)((U)n % w);
    U u = (U)x;
    return k == 0 ? x : (T)(U)((U)(u << k) | (U)(u >> (w - k)));
}
template <class T> __device__ inline T mul_hi(T a, T b) {
    if constexpr (sizeof(T) < 4) {
        return (T)(((int)a * (int)b) >> (8 * sizeof(T)));
    } else if constexpr (sizeof(T) == 4 && nu_is_signed<T>()) {
        return (T)(((long long)a * (long long)b) >> 32);
    } else if constexpr (sizeof(T) == 4) {
        return (T)(((ulong)a * (ulong)b) >> 32);
    } else if constexpr (nu_is_signed<T>()) {
        return (T)__mul64hi((long long)a, (long long)b);
    } else {
        return (T)__umul64hi((ulong)a, (ulong)b);
    }
}
template <class T> __device__ inline T add_sat(T a, T b) {
    T r = (T)((typename nu_unsigned<T>::t)a + (typename nu_unsigned<T>::t)b);
    if constexpr (nu_is_signed<T>()) {
        if (b > 0 && r < a) return nu_limits<T>::hi();
        if (b < 0 && r > a) return nu_limits<T>::lo();
        return r;
    } else {
        return r < a ? nu_limits<T>::hi() : r;
    }
}
template <class T> __device__ inline T sub_sat(T a, T b) {
    T r = (T)((typename nu_unsigned<T>::t)a - (typename nu_unsigned<T>::t)b);
    if constexpr (nu_is_signed<T>()) {
        if (b < 0 && r < a) return nu_limits<T>::hi();
        if (b > 0 && r > a) return nu_limits<T>::lo();
        return r;
    } else {
        return r > a ? (T)0 : r;
    }
}
template <class T> __device__ inline typename nu_unsigned<T>::t abs_diff(T a, T b) {
    typedef typename nu_unsigned<T>::t U;
    return a > b ? (U)((U)a - (U)b) : (U)((U)b - (U)a);
}
// OpenCL's clamp, mad, mix and sign (hand-written kernels use them), radians and degrees.
template <class T> __device__ inline T clamp(T x, T lo, T hi) { return x < lo ? lo : x > hi ? hi : x; }
__device__ inline float clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
__device__ inline double clamp(double x, double lo, double hi) { return fmin(fmax(x, lo), hi); }
template <class T> __device__ inline T mad(T a, T b, T c) { return a * b + c; }
template <class T> __device__ inline T mix(T x, T y, T a) { return x + (y - x) * a; }
__device__ inline float sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == x ? 0.0f * x : 0.0f; }
__device__ inline double sign(double x) { return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x == x ? 0.0 * x : 0.0; }
// OpenCL C's sincos (the sine returned, the cosine through the pointer), which the emitter
// writes for `x.sin()` and `x.cos()` of one local: CUDA's and HIP's sincosf and sincos.
__device__ inline float sincos(float x, float* c) { float s; sincosf(x, &s, c); return s; }
__device__ inline double sincos(double x, double* c) { double s; ::sincos(x, &s, c); return s; }
__device__ inline float radians(float d) { return d * 0.017453292519943295f; }
__device__ inline double radians(double d) { return d * 0.017453292519943295; }
__device__ inline float degrees(float r) { return r * 57.29577951308232f; }
__device__ inline double degrees(double r) { return r * 57.29577951308232; }
// Byte swaps (`as_uchar8(x).s76543210` in the OpenCL prelude, rewritten to this).
template <class T> __device__ inline T nu_bswap(T x) {
    typedef typename nu_unsigned<T>::t U;
    U u = (U)x;
    if constexpr (sizeof(T) == 1) {
        return x;
    } else if constexpr (sizeof(T) == 2) {
        return (T)(U)((u >> 8) | (u << 8));
    } else if constexpr (sizeof(T) == 4) {
        return (T)(U)__byte_perm((uint)u, 0u, 0x0123u);
    } else {
        ulong v = (ulong)u;
        ulong lo = __byte_perm((uint)v, 0u, 0x0123u), hi = __byte_perm((uint)(v >> 32), 0u, 0x0123u);
        return (T)(U)((lo << 32) | hi);
    }
}

// Atomics with OpenCL's names, on any pointer (global and shared alike).
#define NU_ATOMICS_32(T) \
    __device__ inline T atomic_add(volatile T* p, T v) { return atomicAdd((T*)p, v); } \
    __device__ inline T atomic_sub(volatile T* p, T v) { return atomicSub((T*)p, v); } \
    __device__ inline T atomic_min(volatile T* p, T v) { return atomicMin((T*)p, v); } \
    __device__ inline T atomic_max(volatile T* p, T v) { return atomicMax((T*)p, v); } \
    __device__ inline T atomic_and(volatile T* p, T v) { return atomicAnd((T*)p, v); } \
    __device__ inline T atomic_or(volatile T* p, T v) { return atomicOr((T*)p, v); } \
    __device__ inline T atomic_xor(volatile T* p, T v) { return atomicXor((T*)p, v); } \
    __device__ inline T atomic_xchg(volatile T* p, T v) { return atomicExch((T*)p, v); } \
    __device__ inline T atomic_cmpxchg(volatile T* p, T e, T x) { return atomicCAS((T*)p, e, x); }
NU_ATOMICS_32(int)
NU_ATOMICS_32(uint)
__device__ inline int atomic_inc(volatile int* p) { return atomicAdd((int*)p, 1); }
__device__ inline uint atomic_inc(volatile uint* p) { return atomicAdd((uint*)p, 1u); }
__device__ inline int atomic_dec(volatile int* p) { return atomicSub((int*)p, 1); }
__device__ inline uint atomic_dec(volatile uint* p) { return atomicSub((uint*)p, 1u); }
__device__ inline float atomic_xchg(volatile float* p, float v) { return atomicExch((float*)p, v); }
#define NU_U64(p) ((unsigned long long*)(p))
#define NU_ATOMICS_64(T) \
    __device__ inline T atom_add(volatile T* p, T v) { return (T)atomicAdd(NU_U64(p), (ulong)v); } \
    __device__ inline T atom_sub(volatile T* p, T v) { return (T)atomicAdd(NU_U64(p), (ulong)0 - (ulong)v); } \
    __device__ inline T atom_and(volatile T* p, T v) { return (T)atomicAnd(NU_U64(p), (ulong)v); } \
    __device__ inline T atom_or(volatile T* p, T v) { return (T)atomicOr(NU_U64(p), (ulong)v); } \
    __device__ inline T atom_xor(volatile T* p, T v) { return (T)atomicXor(NU_U64(p), (ulong)v); } \
    __device__ inline T atom_xchg(volatile T* p, T v) { return (T)atomicExch(NU_U64(p), (ulong)v); } \
    __device__ inline T atom_cmpxchg(volatile T* p, T e, T x) { return (T)atomicCAS(NU_U64(p), (ulong)e, (ulong)x); }
NU_ATOMICS_64(long)
NU_ATOMICS_64(ulong)
// Signed 64-bit min and max: CUDA's own, or (HIP before ROCm 6) a compare-and-swap loop;
// either returns the value before.
template <bool MAX> __device__ inline long long nu_cas_minmax_s64(long long* p, long long v) {
    unsigned long long* u = (unsigned long long*)p;
    unsigned long long seen = *(volatile unsigned long long*)u;
    for (;;) {
        long long cur = (long long)seen;
        long long want = MAX ? (cur > v ? cur : v) : (cur < v ? cur : v);
        if (want == cur) return cur;
        unsigned long long old = atomicCAS(u, seen, (unsigned long long)want);
        if (old == seen) return cur;
        seen = old;
    }
}
#ifndef NU_ATOMIC_MIN_S64
#define NU_ATOMIC_MIN_S64(p, v) atomicMin((long long*)(p), (long long)(v))
#define NU_ATOMIC_MAX_S64(p, v) atomicMax((long long*)(p), (long long)(v))
#endif
__device__ inline long atom_min(volatile long* p, long v) { return (long)NU_ATOMIC_MIN_S64(p, v); }
__device__ inline long atom_max(volatile long* p, long v) { return (long)NU_ATOMIC_MAX_S64(p, v); }
__device__ inline ulong atom_min(volatile ulong* p, ulong v) { return atomicMin(NU_U64(p), v); }
__device__ inline ulong atom_max(volatile ulong* p, ulong v) { return atomicMax(NU_U64(p), v); }

// OpenCL's vector types: `.s0`..`.sf` and `.x`..`.w`, element-wise operators and math.
// Aligned as OpenCL's are, to their size (a 3-vector as a 4-vector), so that a pointer to
// one is read and written with 64- and 128-bit accesses.
template <class T, int N> struct nu_vec;
#define NU_VEC_COMMON(N) \
    typedef T elem; static const int width = N; \
    nu_vec() = default; \
    __device__ nu_vec(T v) { for (int k = 0; k < N; k++) (*this)[k] = v; } \
    template <int... I> __device__ nu_vec<T, sizeof...(I)> swz() const { \
        const int k[] = {I...}; nu_vec<T, sizeof...(I)> r; \
        for (int j = 0; j < (int)sizeof...(I); j++) r[j] = (*this)[k[j]]; return r; } \
    __device__ T& operator[](int k) { return (&s0)[k]; } \
    __device__ const T& operator[](int k) const { return (&s0)[k]; }
template <class T> struct alignas(2 * sizeof(T)) nu_vec<T, 2> {
    union { struct { T s0, s1; }; struct { T x, y; }; };
    NU_VEC_COMMON(2)
};
template <class T> struct alignas(4 * sizeof(T)) nu_vec<T, 3> {
    union { struct { T s0, s1, s2; }; struct { T x, y, z; }; };
    NU_VEC_COMMON(3)
};
template <class T> struct alignas(4 * sizeof(T)) nu_vec<T, 4> {
    union { struct { T s0, s1, s2, s3; }; struct { T x, y, z, w; }; };
    NU_VEC_COMMON(4)
};
template <class T> struct alignas(8 * sizeof(T)) nu_vec<T, 8> {
    struct { T s0, s1, s2, s3, s4, s5, s6, s7; };
    NU_VEC_COMMON(8)
};
template <class T> struct alignas(16 * sizeof(T)) nu_vec<T, 16> {
    struct { T s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, sa, sb, sc, sd, se, sf; };
    NU_VEC_COMMON(16)
};
// `(float4)(a, b, c, d)` and `(float4)(x)` (a broadcast), as `dialect.rs` rewrites them.
template <class V, class... A> __device__ inline V nu_make(A... a) {
    typedef typename V::elem E;
    const E e[] = {static_cast<E>(a)...};
    V v;
    for (int k = 0; k < V::width; k++) v[k] = e[sizeof...(A) == 1 ? 0 : k];
    return v;
}
// Element-wise, and with a scalar on either side (OpenCL widens it to every lane).
#define NU_VEC_OP(op) \
    template <class T, int N> __device__ inline nu_vec<T, N> operator op(nu_vec<T, N> a, nu_vec<T, N> b) { \
        for (int k = 0; k < N; k++) a[k] = a[k] op b[k]; return a; } \
    template <class T, int N> __device__ inline nu_vec<T, N> operator op(nu_vec<T, N> a, T b) { \
        for (int k = 0; k < N; k++) a[k] = a[k] op b; return a; } \
    template <class T, int N> __device__ inline nu_vec<T, N> operator op(T a, nu_vec<T, N> b) { \
        for (int k = 0; k < N; k++) b[k] = a op b[k]; return b; } \
    template <class T, int N, class B> __device__ inline nu_vec<T, N>& operator op##=(nu_vec<T, N>& a, B b) { \
        a = a op b; return a; }
NU_VEC_OP(+)
NU_VEC_OP(-)
NU_VEC_OP(*)
NU_VEC_OP(/)
template <class T, int N> __device__ inline nu_vec<T, N> operator-(nu_vec<T, N> a) {
    for (int k = 0; k < N; k++) a[k] = -a[k];
    return a;
}
#define NU_VEC_F1(f) \
    template <class T, int N> __device__ inline nu_vec<T, N> f(nu_vec<T, N> a) { \
        for (int k = 0; k < N; k++) a[k] = f(a[k]); return a; }
#define NU_VEC_F2(f) \
    template <class T, int N> __device__ inline nu_vec<T, N> f(nu_vec<T, N> a, nu_vec<T, N> b) { \
        for (int k = 0; k < N; k++) a[k] = f(a[k], b[k]); return a; }
NU_VEC_F1(sqrt) NU_VEC_F1(fabs) NU_VEC_F1(floor) NU_VEC_F1(ceil) NU_VEC_F1(trunc)
NU_VEC_F1(round) NU_VEC_F1(exp) NU_VEC_F1(exp2) NU_VEC_F1(log) NU_VEC_F1(log2)
NU_VEC_F1(log10) NU_VEC_F1(sin) NU_VEC_F1(cos) NU_VEC_F1(tan) NU_VEC_F1(asin)
NU_VEC_F1(acos) NU_VEC_F1(atan) NU_VEC_F1(sinh) NU_VEC_F1(cosh) NU_VEC_F1(tanh)
NU_VEC_F1(cbrt) NU_VEC_F1(rsqrt)
NU_VEC_F2(fmax) NU_VEC_F2(fmin) NU_VEC_F2(pow) NU_VEC_F2(fmod) NU_VEC_F2(atan2)
NU_VEC_F2(hypot) NU_VEC_F2(copysign)
template <class T, int N> __device__ inline nu_vec<T, N> fma(nu_vec<T, N> a, nu_vec<T, N> b, nu_vec<T, N> c) {
    for (int k = 0; k < N; k++) a[k] = fma(a[k], b[k], c[k]);
    return a;
}
template <int N, class T> __device__ inline nu_vec<T, N> nu_vload(const T* p) {
    nu_vec<T, N> v;
    for (int k = 0; k < N; k++) v[k] = p[k];
    return v;
}
template <class T, int N> __device__ inline void nu_vstore(nu_vec<T, N> v, T* p) {
    for (int k = 0; k < N; k++) p[k] = v[k];
}
// `v` of the lane `h` above (`down`), below (`up`) or of lane `h` (`idx`), in the whole warp (every lane calls
// it): a reduction tree's last steps, a scan's warp steps. Values of up to 4 bytes travel as
// an `int`, of 8 as a `long long`.
#define NU_SHFL_DIR(NAME, SHFL) \
    template <class T> __device__ inline T NAME(T v, unsigned h) { \
        static_assert(sizeof(T) <= 8, "a shuffled value has at most 8 bytes"); \
        if constexpr (sizeof(T) <= 4) { \
            int x = 0; \
            memcpy(&x, &v, sizeof(T)); \
            x = SHFL(x, h); \
            memcpy(&v, &x, sizeof(T)); \
        } else { \
            long long x = 0; \
            memcpy(&x, &v, sizeof(T)); \
            x = SHFL(x, h); \
            memcpy(&v, &x, sizeof(T)); \
        } \
        return v; \
    }
NU_SHFL_DIR(nu_shfl_down, NU_SHFL_DOWN_RAW)
NU_SHFL_DIR(nu_shfl_up, NU_SHFL_UP_RAW)
NU_SHFL_DIR(nu_shfl_idx, NU_SHFL_IDX_RAW)
// Four elements of a staged box from global to shared memory (the prelude's `NU_COPY4`):
// 128-bit loads and stores where the source is aligned to 16 bytes (the destination always
// is), one element at a time otherwise, and for elements of other sizes.
template <class T> __device__ inline void nu_copy4(T* d, const T* s) {
    if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
        if ((reinterpret_cast<size_t>(s) & 15) == 0) {
            const uint4* from = reinterpret_cast<const uint4*>(s);
            uint4* to = reinterpret_cast<uint4*>(d);
            for (int k = 0; k < (int)sizeof(T) / 4; k++) to[k] = from[k];
            return;
        }
    }
    for (int k = 0; k < 4; k++) d[k] = s[k];
}
#define NU_VEC_TYPES(T, NAME) \
    typedef nu_vec<T, 2> NAME##2; typedef nu_vec<T, 3> NAME##3; typedef nu_vec<T, 4> NAME##4; \
    typedef nu_vec<T, 8> NAME##8; typedef nu_vec<T, 16> NAME##16;
#define vload2(o, p) nu_vload<2>((p) + 2 * (o))
#define vload4(o, p) nu_vload<4>((p) + 4 * (o))
#define vload8(o, p) nu_vload<8>((p) + 8 * (o))
#define vload16(o, p) nu_vload<16>((p) + 16 * (o))
#define vstore2(v, o, p) nu_vstore((v), (p) + 2 * (o))
#define vstore4(v, o, p) nu_vstore((v), (p) + 4 * (o))
#define vstore8(v, o, p) nu_vstore((v), (p) + 8 * (o))
#define vstore16(v, o, p) nu_vstore((v), (p) + 16 * (o))

// cxx.rs puts a typedef and a name for every OpenCL vector type here:
// @vector-types

// Images: a CUDA array of one float per texel or four (RGBA), with a texture object for
// reads (unnormalised coordinates, clamped, nearest) and a surface object for writes. A
// kernel gets a pointer to the image's descriptor in device memory (`memory.rs`).
struct nu_image { unsigned long long tex, surf; int width, height; };
typedef const nu_image* image2d_t;
typedef int sampler_t;
#define get_image_width(i) ((i)->width)
#define get_image_height(i) ((i)->height)
#define CLK_NORMALIZED_COORDS_FALSE 0
#define CLK_ADDRESS_CLAMP_TO_EDGE 0
#define CLK_FILTER_NEAREST 0
__device__ inline nu_float4 read_imagef(image2d_t img, sampler_t s, nu_int2 c) {
    nu_cxx_float4 t = tex2D<nu_cxx_float4>((nu_texture_object)img->tex, c.x + 0.5f, c.y + 0.5f);
    nu_float4 v;
    v.x = t.x; v.y = t.y; v.z = t.z; v.w = t.w;
    return v;
}
__device__ inline void write_imagef(image2d_t img, nu_int2 c, nu_float4 v) {
    nu_cxx_float4 t;
    t.x = v.x; t.y = v.y; t.z = v.z; t.w = v.w;
    surf2Dwrite(t, (nu_surface_object)img->surf, c.x * (int)sizeof(t), c.y);
}
