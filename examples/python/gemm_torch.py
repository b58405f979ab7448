"""A .tile GEMM on torch tensors, checked against torch.matmul.

    make && /opt/torch/.venv/bin/python examples/python/gemm_torch.py

examples/gemm_sm90.tile computes C[M, N] = A[M, K] * B[N, K]^T (f16 in, f32
out, runtime M, N, K). tilepx reads M, N and K from the tensors' shapes,
checks every tensor against the kernel's launch record (dtype, shape,
strides, alignment, the program's `assume` facts) and launches on torch's
current stream."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import torch  # noqa: E402

import tilepx  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
gemm = tilepx.compile(os.path.join(here, "..", "gemm_sm90.tile"))

M, N, K = 4096, 4096, 4096
A = torch.randn(M, K, device="cuda", dtype=torch.float16)
B = torch.randn(N, K, device="cuda", dtype=torch.float16)
C = torch.empty(M, N, device="cuda", dtype=torch.float32)

gemm(A, B, C)  # the launch: grid, tensor maps, dynamic shared memory from the record
want = torch.matmul(A.float(), B.float().T)
err = ((C - want).abs().max() / want.abs().max()).item()
print("%s: %d x %d x %d, largest difference from torch.matmul %.2g of the largest value" % (gemm.name, M, N, K, err))

try:  # a mistake is refused before anything runs, at the param's line
    gemm(A, B, C.half())
except tilepx.Error as e:
    print(e)
