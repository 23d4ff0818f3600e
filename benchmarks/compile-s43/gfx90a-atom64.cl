#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
kernel void rmw(volatile global ulong* p, global ulong* o) { o[0] = atom_add(p, (ulong)0); atom_xchg(p + 1, o[1]); }
kernel void gnu(volatile global ulong* p, global ulong* o) { o[0] = __atomic_load_n((global ulong*)p, __ATOMIC_RELAXED); __atomic_store_n((global ulong*)p + 1, o[1], __ATOMIC_RELAXED); }
kernel void tick(volatile global uint* p, global uint* o) { o[0] = atomic_inc(p); }
