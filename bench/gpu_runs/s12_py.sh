#!/usr/bin/env bash
# session 12: the Python package's chooser path after the GemmChoice fix: an f16 -> f32 GEMM picked by
# tilepx.gemm_choose (a linear tile walk: P, no Q) on torch tensors against torch.matmul, then the
# torch example (bf16 GEMM, attention) with its burst timing.
set -u
make -j16 build/libtilepx.so >/dev/null 2>&1 || { echo "build failed"; exit 1; }
PY=/opt/torch/.venv/bin/python
timeout 60 $PY - <<'PYEOF'
import sys; sys.path.insert(0, "python")
import torch, tilepx
for M, N, K in ((4096, 4096, 4096), (1000, 3000, 1024)):
    c = tilepx.gemm_choose(M, N, K, "f16", "f32", torch.cuda.get_device_properties(0).multi_processor_count)
    k = tilepx.compile(c["tile"], kernel=c["kernel"])
    A = torch.randint(-3, 4, (M, K), device="cuda").half(); B = torch.randint(-3, 4, (N, K), device="cuda").half()
    C = torch.zeros(M, N, device="cuda")
    if c["zero_c"]: C.zero_()
    k(A, B, C, **c["values"]); torch.cuda.synchronize()
    want = A.float() @ B.float().T
    print("%s %s %s: %s" % ((M, N, K), c["kernel"], c["values"], "bit-exact" if torch.equal(C, want) else "DIFFERS"))
PYEOF
timeout 90 $PY examples/python/gemm_attention_torch.py --size 4096 2>&1 | tail -6
