"""The row kernels' benchmark (issue 34): bench/softmax_rows.tile and
bench/rmsnorm_rows.tile through python/tilepx, against torch.softmax,
torch.nn.functional.rms_norm and a plain device copy (Tensor.copy_ of the
same bytes), in one process on the same GPU.

For each row length (4096, 8192, 16384, 32768 bf16 elements) it allocates
enough rows that a kernel reads 512 MiB and writes 512 MiB, checks both
tilepx kernels against torch (bf16 tolerance: rtol 1.6e-2, atol 1e-5 for
softmax and 1e-2 for RMSNorm; the worst element is printed), then times
every candidate with CUDA events, one event pair per launch, the candidates
interleaved round by round (ROUNDS rounds, default 200, after 10 untimed
ones), and prints the median and best GB/s, counted as bytes read + bytes
written, and each kernel's ratio to the copy and to torch (medians).

Run: /opt/torch/.venv/bin/python bench/rows_bench.py [ROUNDS [N...]]
Exit 1 when a check fails."""
import os
import statistics
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))
os.chdir(REPO)

import torch  # noqa: E402
import tilepx  # noqa: E402

CHUNK = 4096  # the kernels' chunk: N must be a multiple (their `assume N % 4096 == 0`)
BYTES_EACH_WAY = 512 << 20
EPS = 1e-6


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def worst(got, want, atol, rtol):
    """the element furthest outside atol + rtol * |want|, as (excess, got, want, index); excess <= 0 passes"""
    g, w = got.float(), want.float()
    excess = (g - w).abs() - (atol + rtol * w.abs())
    excess = torch.where(torch.isnan(g) | torch.isnan(w), torch.full_like(excess, float("inf")), excess)
    i = int(torch.argmax(excess))
    return float(excess.view(-1)[i]), float(g.view(-1)[i]), float(w.view(-1)[i]), divmod(i, got.shape[-1])


def check(name, got, want, atol, rtol):
    ex, g, w, at = worst(got, want, atol, rtol)
    ok = ex <= 0
    print("%s check %s: worst element row %d col %d: %.6g vs torch %.6g (%s atol %g rtol %g)" % (
        "PASS" if ok else "FAIL", name, at[0], at[1], g, w, "within" if ok else "outside", atol, rtol))
    return ok


def time_round(fns, times):
    """one launch of each candidate, timed by its own event pair"""
    evs = []
    for name, fn in fns:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        evs.append((name, a, b))
    torch.cuda.synchronize()
    for name, a, b in evs:
        times[name].append(a.elapsed_time(b))


def bench_size(N, rounds, softmax_k, rms_k):
    R = BYTES_EACH_WAY // (2 * N)
    torch.manual_seed(N)
    x = (torch.randn(R, N, device="cuda") * 3).to(torch.bfloat16)
    w = (torch.rand(N, device="cuda") + 0.5).to(torch.bfloat16)
    y_sm, y_rms, dst = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
    ok = True
    softmax_k(x, y_sm, sync=True)
    rms_k(x, w, y_rms, eps=EPS, sync=True)
    ok &= check("softmax N=%d R=%d" % (N, R), y_sm, torch.softmax(x, dim=-1), 1e-5, 1.6e-2)
    ok &= check("rmsnorm N=%d R=%d" % (N, R), y_rms, torch.nn.functional.rms_norm(x, (N,), w, EPS), 1e-2, 1.6e-2)
    launch_sm = softmax_k.check(x, y_sm)  # checked once; run() launches again without checking
    launch_rms = rms_k.check(x, w, y_rms, eps=EPS)
    fns = [
        ("copy", lambda: dst.copy_(x)),
        ("tilepx softmax", launch_sm.run),
        ("torch softmax", lambda: torch.softmax(x, dim=-1)),
        ("tilepx rmsnorm", launch_rms.run),
        ("torch rms_norm", lambda: torch.nn.functional.rms_norm(x, (N,), w, EPS)),
    ]
    times = {name: [] for name, _ in fns}
    for _ in range(10):
        time_round(fns, {name: [] for name, _ in fns})
    for _ in range(rounds):
        time_round(fns, times)
    moved = {name: 2 * R * N * 2 for name, _ in fns}
    moved["tilepx rmsnorm"] += N * 2
    moved["torch rms_norm"] += N * 2
    med = {name: gbps(moved[name], statistics.median(t)) for name, t in times.items()}
    best = {name: gbps(moved[name], min(t)) for name, t in times.items()}
    print("N=%d R=%d (%d MiB each way), %d timed launches each, interleaved" % (N, R, R * N * 2 >> 20, rounds))
    for name, _ in fns:
        extra = ""
        if name.startswith("tilepx"):
            twin = "torch softmax" if "softmax" in name else "torch rms_norm"
            extra = "  %.3fx copy  %.3fx torch" % (med[name] / med["copy"], med[name] / med[twin])
        elif name.startswith("torch"):
            extra = "  %.3fx copy" % (med[name] / med["copy"])
        print("  %-15s median %7.1f GB/s  best %7.1f GB/s  (%.4f ms)%s" % (
            name, med[name], best[name], statistics.median(times[name]), extra))
    return ok


def odd_sizes(softmax_k, rms_k):
    """correctness only: 3 chunks per row, a handful of rows"""
    ok = True
    for N, R in ((12288, 7), (4096, 1)):
        x = (torch.randn(R, N, device="cuda") * 8).to(torch.bfloat16)
        w = torch.randn(N, device="cuda").to(torch.bfloat16)
        y1, y2 = torch.empty_like(x), torch.empty_like(x)
        softmax_k(x, y1, sync=True)
        rms_k(x, w, y2, eps=EPS, sync=True)
        ok &= check("softmax N=%d R=%d" % (N, R), y1, torch.softmax(x, dim=-1), 1e-5, 1.6e-2)
        ok &= check("rmsnorm N=%d R=%d" % (N, R), y2, torch.nn.functional.rms_norm(x, (N,), w, EPS), 1e-2, 1.6e-2)
    return ok


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    sizes = [int(a) for a in sys.argv[2:]] or [4096, 8192, 16384, 32768]
    if any(n % CHUNK for n in sizes):
        sys.exit("row lengths must be multiples of %d" % CHUNK)
    print("device: %s, torch %s, CUDA %s" % (torch.cuda.get_device_name(), torch.__version__, torch.version.cuda))
    softmax_k = tilepx.compile("bench/softmax_rows.tile")
    rms_k = tilepx.compile("bench/rmsnorm_rows.tile")
    ok = odd_sizes(softmax_k, rms_k)
    for N in sizes:
        ok &= bench_size(N, rounds, softmax_k, rms_k)
    print("rows_bench: %s" % ("all checks passed" if ok else "a check FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
