#!/usr/bin/env python3
"""The cuBLAS peer for sgemm/dgemm on an NVIDIA GPU, through PyTorch's torch.mm with TF32 off
(issue 5): C = A^T B at the bench's GPU size, best of several runs, timed with CUDA events.
Prints one JSON object per precision. Run on the GPU machine beside the bench:

    python3 scripts/cublas_peer.py --n 2048 > $OUT/cublas.json
"""
import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("cublas_peer: PyTorch is not installed here", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("cublas_peer: no CUDA device", file=sys.stderr)
        return 2
    # Plain FP32/FP64 arithmetic, as nuda's kernels do: no TF32 tensor-core shortcut.
    torch.backends.cuda.matmul.allow_tf32 = False
    n = args.n
    for name, dtype in (("sgemm", torch.float32), ("dgemm", torch.float64)):
        a = torch.rand((n, n), device="cuda", dtype=dtype)
        b = torch.rand((n, n), device="cuda", dtype=dtype)
        at = a.t()
        torch.mm(at, b)  # warm-up: cuBLAS picks its kernel
        best = float("inf")
        for _ in range(args.reps):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            c = torch.mm(at, b)
            end.record()
            torch.cuda.synchronize()
            best = min(best, start.elapsed_time(end) / 1e3)
        # Checked against a float64 product on a few rows, so a wrong setup cannot pass.
        ref = (at[:4].double() @ b.double())
        err = (c[:4].double() - ref).abs().max().item() / max(ref.abs().max().item(), 1.0)
        print(json.dumps({
            "problem": name,
            "size": f"{n}x{n}",
            "device": torch.cuda.get_device_name(),
            "peer": "cuBLAS (torch.mm, allow_tf32=False)",
            "seconds": best,
            "gflops": 2 * n**3 / best / 1e9,
            "max_rel_error": err,
        }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
