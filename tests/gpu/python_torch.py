"""make gpu-test: the Python binding on torch tensors. Runs the Hopper GEMMs
through python/tilepx (launch layer: tensor maps, cluster, dynamic shared
memory, torch's stream) and compares with torch.matmul; one PASS, FAIL or
SKIP line per check (tests/gpu.sh counts them), exit 1 on a FAIL.
Run: /opt/torch/.venv/bin/python tests/gpu/python_torch.py"""
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
os.chdir(REPO)

try:
    import torch
except ImportError as e:
    print("SKIP python_torch (no torch: %s)" % e)
    sys.exit(0)
if not torch.cuda.is_available():
    print("SKIP python_torch (torch sees no CUDA GPU)")
    sys.exit(0)
if torch.cuda.get_device_capability() != (9, 0):
    print("SKIP python_torch (the GEMMs are sm_90a; this GPU is sm_%d%d)" % torch.cuda.get_device_capability())
    sys.exit(0)

import tilepx  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
failed = 0


def report(ok, what, detail=""):
    global failed
    failed += not ok
    print("%s python_torch %s%s" % ("PASS" if ok else "FAIL", what, (": " + detail) if detail else ""))


def small_ints(*shape, dtype):
    """values -2..2: every product and sum of the GEMMs below is exact"""
    return torch.randint(-2, 3, shape, device="cuda").to(dtype)


def gemm_f16(k, M, N, K):
    """examples/gemm_sm90.tile: C f32 = A f16 [M, K] * B f16 [N, K]^T, exact on small integers"""
    A, B = small_ints(M, K, dtype=torch.float16), small_ints(N, K, dtype=torch.float16)
    C = torch.full((M, N), float("nan"), device="cuda")
    k(A, B, C)  # M, N, K from the shapes; torch's current stream
    torch.cuda.synchronize()
    want = A.float() @ B.float().T
    bad = (C != want).sum().item()
    report(bad == 0, "gemm_sm90 %dx%dx%d f16 (__cuda_array_interface__), exact against torch.matmul" % (M, N, K),
           "%d of %d elements differ" % (bad, M * N) if bad else "")


def gemm_f16_random(k, M, N, K):
    A, B = torch.randn(M, K, device="cuda").half(), torch.randn(N, K, device="cuda").half()
    C = torch.empty(M, N, device="cuda")
    k(A, B, C, sync=True)
    want = A.float() @ B.float().T
    err = ((C - want).abs().max() / want.abs().max()).item()
    report(err < 1e-4, "gemm_sm90 %dx%dx%d f16 random data against torch.matmul" % (M, N, K),
           "" if err < 1e-4 else "largest error %.3g of the largest value" % err)


def gemm_bf16(k, M, N, K):
    """bench/gemm_sm90_walk_bf16_any.tile: bf16 in and out (DLPack: torch's
    bf16 has no __cuda_array_interface__), a cluster of 2, a window P x Q"""
    A, B = small_ints(M, K, dtype=torch.bfloat16), small_ints(N, K, dtype=torch.bfloat16)
    C = torch.zeros(M, N, device="cuda", dtype=torch.bfloat16)
    k(A, B, C, P=32, Q=4)
    want = (A.float() @ B.float().T).bfloat16()  # |sums| <= 4K: exact in f32, rounded once to bf16
    torch.cuda.synchronize()
    bad = (C != want).sum().item()
    report(bad == 0, "%s %dx%dx%d bf16 (DLPack), against torch.matmul" % (k.name, M, N, K),
           "%d of %d elements differ" % (bad, M * N) if bad else "")


def on_a_side_stream(k):
    """a launch goes on torch's current stream: ordered after the producer's
    writes there, and before the consumer's reads"""
    s = torch.cuda.Stream()
    M, N, K = 256, 512, 256
    with torch.cuda.stream(s):
        A, B = small_ints(M, K, dtype=torch.float16), small_ints(N, K, dtype=torch.float16)
        C = torch.zeros(M, N, device="cuda")
        launch = k(A, B, C)
        want = A.float() @ B.float().T
        same = torch.equal(C, want)  # torch's ops on s see the kernel's result
    s.synchronize()
    report(launch.stream == s.cuda_stream and same, "gemm_sm90 on a side stream (torch.cuda.current_stream())",
           "" if same else "the result on the stream differs")


def refused_before_launch(k):
    A, B = small_ints(128, 64, dtype=torch.float16), small_ints(256, 64, dtype=torch.float16)
    C = torch.zeros(128, 256, device="cuda", dtype=torch.float16)  # f16: the param is f32
    try:
        k(A, B, C)
        report(False, "a wrong dtype is refused", "no error")
    except tilepx.Error as e:
        torch.cuda.synchronize()
        report(e.line == 27 and "its elements are f16, the param's are f32" in e.message and not C.any().item(),
               "a wrong dtype is refused before launch (%s:%d:%d)" % (e.file, e.line, e.column))
    try:
        k(A[:, :60], B[:, :60], C.float(), K=60)
        report(False, "a broken fact is refused", "no error")
    except tilepx.Error as e:
        report("breaks the fact 'K % 8 == 0'" in e.message, "a broken fact is refused before launch")


def ld_view():
    """tests/gpu/ragged_ld.tile copies A, an M x K view of rows LDA apart,
    to B and C (cp.async and a TMA map of stride LDA): LDA is read from the
    slice's row stride"""
    k = tilepx.compile("tests/gpu/ragged_ld.tile", target=None)
    M, K, LDA = 70, 40, 56
    full = torch.randn(M, LDA, device="cuda").bfloat16()
    A = full[:, :K]
    B, C = torch.zeros(M, K, device="cuda").bfloat16(), torch.zeros(M, K, device="cuda").bfloat16()
    launch = k(A, B, C, sync=True)
    ok = launch.values == {"M": M, "K": K, "LDA": LDA} and torch.equal(B, A) and torch.equal(C, A)
    report(ok, "ragged_ld: a torch slice as an 'ld' param (LDA=%d from its stride), through cp.async and TMA" % LDA,
           "" if ok else "values %s, B %s, C %s" % (launch.values, torch.equal(B, A), torch.equal(C, A)))


def timing(k, M, N, K, **values):
    """TFLOPS of the tilepx kernel and of torch.matmul at one size (information)"""
    dt = torch.bfloat16 if "bf16" in k.name else torch.float16
    A, B = torch.randn(M, K, device="cuda").to(dt), torch.randn(N, K, device="cuda").to(dt)
    C = torch.empty(M, N, device="cuda", dtype=dt if "bf16" in k.name else torch.float32)
    launch = k.check(A, B, C, **values)
    for f in (launch.run, lambda: torch.matmul(A, B.T)):
        f()
    res = []
    for f in (launch.run, lambda: torch.matmul(A, B.T)):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(20):
            f()
        torch.cuda.synchronize()
        res.append(2.0 * M * N * K * 20 / (time.perf_counter() - t) / 1e12)
    print("INFO python_torch %s %dx%dx%d: %.1f TFLOPS through tilepx (Python launch), torch.matmul %.1f" %
          (k.name, M, N, K, res[0], res[1]))


def main():
    k = tilepx.compile("examples/gemm_sm90.tile")
    for M, N, K in ((200, 300, 136), (128, 256, 64), (1, 1, 8), (4095, 4097, 520)):
        gemm_f16(k, M, N, K)
    gemm_f16_random(k, 1024, 1024, 1024)
    on_a_side_stream(k)
    refused_before_launch(k)
    ld_view()
    fast = tilepx.compile("bench/gemm_sm90_walk_bf16_any.tile")
    for M, N, K in ((300, 301, 136), (4095, 4097, 520)):
        gemm_bf16(fast, M, N, K)
    timing(fast, 4096, 4096, 4096, P=32, Q=4)
    timing(k, 4096, 4096, 4096)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
