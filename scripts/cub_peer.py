#!/usr/bin/env python3
"""CUB's device scan and a device copy, the peers of the bench's scan (issue 49), on an NVIDIA
GPU through CuPy: an inclusive sum of 2^26 uint32 (cupy.cumsum with CuPy's CUB accelerator,
which calls cub::DeviceScan) and a device-to-device copy of the same array, each the best of
several runs timed with CUDA events, rated as the bench rates its scan (8 bytes an element).
The GPU machine's CuPy is the only CUB nuda can reach without a CUDA toolkit. Prints one JSON
object per peer; run on the GPU machine beside the bench:

    python3 scripts/cub_peer.py > $OUT/cub-peer.txt
"""
import argparse
import json
import os
import sys


def best_seconds(cp, run, reps):
    """The best of `reps` timed runs of `run`, after one untimed run."""
    run()
    best = float("inf")
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        run()
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=26)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    # CuPy's CUB route for cumsum; set before CuPy reads it.
    os.environ.setdefault("CUPY_ACCELERATORS", "cub")
    try:
        import cupy as cp
    except ImportError:
        print("cub_peer: CuPy is not installed here", file=sys.stderr)
        return 2
    n = 1 << args.log2
    a = cp.asarray(cp.random.randint(0, 1000, n, dtype=cp.uint32))
    out = cp.empty_like(a)
    scan = best_seconds(cp, lambda: cp.cumsum(a, dtype=cp.uint32, out=out), args.reps)
    want = cp.cumsum(a.astype(cp.uint64)).astype(cp.uint32)
    if not bool((out == want).all()):
        print("cub_peer: cupy.cumsum disagrees with the uint64 reference", file=sys.stderr)
        return 1
    copy = best_seconds(cp, lambda: out.__setitem__(slice(None), a), args.reps)
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    for peer, seconds in (("CUB DeviceScan (cupy.cumsum)", scan), ("cupy copy", copy)):
        print(json.dumps({"problem": "scan", "size": f"2^{args.log2}", "device": name,
                          "peer": peer, "seconds": seconds,
                          "gbs": 8.0 * n / seconds / 1e9}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
