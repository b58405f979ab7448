"""Attention forward (issue 36): tilepx's kernels against cuDNN and the flash
backend of torch's scaled_dot_product_attention, checked, then timed in one
process on the same random inputs.

Kernels: every `kernel attention_fwd_hd<D>[_causal][_<variant>]` in
examples/attention_fwd_sm90.tile and bench/attention_*.tile (bf16; `_f16`
kernels are checked, not timed). The contract (params BH, S, scale, then Q,
K, V, O, LSE) is in the header of examples/attention_fwd_sm90.tile. Q, K,
V, O are [B, H, S, D] tensors, viewed as the kernel's params declare them
([B*H*S, D], [B*H, S, D] or [B, H, S, D]); LSE is [B, H, S] f32, the
natural-log log-sum-exp of each row's scaled scores.

1. Check (every kernel): at S in CHECK_S (ragged included) on random
   N(0, 1) inputs, O and LSE against an f32 reference (torch's math backend
   on the f32 inputs; LSE as torch.logsumexp of the scaled, masked scores).
   Tolerance: O's largest error at most 2x cuDNN's largest error against the
   same reference (cuDNN's bf16 kernel on the same inputs) plus 2^-9, and
   LSE within 1e-3 absolute (f32 math with ex2.approx/lg2.approx: see
   docs/ptx-notes.md). O and LSE sit between guard elements that must come
   back unchanged.
2. Time (bf16 kernels): for head dim in HD x seq in SEQ x {full, causal},
   batch x seq = 16k tokens and heads x head dim = 2048 (the FA3 paper's
   grid), each candidate is launched ROUNDS times (after WARMUP untimed
   launches), the candidates interleaved launch by launch, one CUDA event
   pair per launch; the median gives TFLOPS = 4*B*H*S^2*D / t (halved for
   causal). SM clock and power are logged with nvidia-smi around each cell.

Run: /opt/torch/.venv/bin/python bench/attention.py [--check-only]
     [--rounds N] [--hd 64,128] [--seq 512,16384] [--mask full,causal] [--only REGEX] [--csv FILE]
Exit 1 when a check fails."""
import argparse
import glob
import math
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))
os.chdir(REPO)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
import tilepx  # noqa: E402

FILES = ["examples/attention_fwd_sm90.tile"] + sorted(glob.glob("bench/attention_*.tile"))
NAME = re.compile(r"^kernel\s+(attention_fwd_hd(\d+)(_causal)?(_\w+)?)\s*$", re.M)
CHECK_S = (1, 7, 128, 1000, 4097)
CHECK_BH = (1, 3)  # batch, heads for the checks
GUARD = 64  # guard elements on each side of O and LSE (keeps 16-byte alignment)
SENTINEL_O = -12345.0
SENTINEL_LSE = -54321.0
LSE_ATOL = 1e-3
O_SLACK = 2.0 ** -9


def kernels():
    """(file, name, hd, causal, dtype) of every attention kernel."""
    found = []
    for path in FILES:
        if not os.path.exists(path):
            continue
        for m in NAME.finditer(open(path).read()):
            name, hd, causal, rest = m.group(1), int(m.group(2)), bool(m.group(3)), m.group(4) or ""
            dtype = torch.float16 if "_f16" in rest else torch.bfloat16
            found.append((path, name, hd, causal, dtype))
    return found


def as_param(t, param):
    """t ([B, H, S, D] or [B, H, S], contiguous) as the kernel's param takes it:
    [S, B*H*D] (heads side by side in each row: a copy), [B*H*S, D],
    [B*H, S, D] or [B, H, S, D] (views); LSE as [B*H, S], [B*H*S] or [B, H, S]."""
    rank, scal = len(param["shape"]), param.get("shape_scalars") or []
    if t.dim() == 4:
        B, H, S, D = t.shape
        if rank == 2 and scal and scal[0] == "S":
            return t.permute(2, 0, 1, 3).reshape(S, B * H * D).contiguous()
        return t.view(*{2: (B * H * S, D), 3: (B * H, S, D), 4: (B, H, S, D)}[rank])
    B, H, S = t.shape
    first = param["shape"][0] if param["shape"] else 0
    return t.view(*{1: (B * H * S,), 2: (1, B * H * S) if first == 1 else (B * H, S), 3: (B, H, S)}[rank])


def from_param(arr, like):
    """The kernel's O back as [B, H, S, D]."""
    B, H, S, D = like.shape
    if arr.dim() == 2 and arr.shape[0] == S and arr.shape[1] == B * H * D and S != B * H * S:
        return arr.view(S, B, H, D).permute(1, 2, 0, 3)
    return arr.view(B, H, S, D)


def kernel_source(path, name):
    """The program's header and kernel NAME alone: the binding JIT-compiles the
    whole module it is given, and a bench file holds dozens of kernels."""
    text = open(path).read()
    first = re.search(r"^kernel\s", text, re.M)
    at = re.search(r"^kernel\s+%s\s*$" % re.escape(name), text, re.M)
    nxt = re.search(r"^kernel\s", text[at.end():], re.M)
    return text[:first.start()] + text[at.start():at.end() + (nxt.start() if nxt else len(text) - at.end())]


_compiled = {}
SMS = torch.cuda.get_device_properties(0).multi_processor_count if torch.cuda.is_available() else 1


class Tilepx:
    def __init__(self, path, name):
        if (path, name) not in _compiled:
            _compiled[(path, name)] = tilepx.compile(kernel_source(path, name), kernel=name)
        self.k = _compiled[(path, name)]
        self.name = name

    def args(self, q, k, v, o, lse, scale):
        """The arrays and values of a launch; O's array (which may be a
        rearranged copy of o: copy it back with from_param)."""
        B, H, S, D = q.shape
        arrays = [as_param(t, p) for t, p in zip((q, k, v, o, lse), self.k.params)]
        values = {"BH": B * H, "S": S, "scale": scale, "R": B * H * S, "B": B, "H": H, "W": B * H * D,
                  "CTAS": SMS}  # a persistent kernel's grid (_ps): one CTA per SM
        return arrays, {n: values[n] for n in self.k.scalars if n in values}

    def launch(self, q, k, v, o, lse, scale):
        arrays, values = self.args(q, k, v, o, lse, scale)
        return self.k(*arrays, **values), arrays[3]


def guarded(shape, dtype, sentinel):
    n = math.prod(shape)
    buf = torch.full((n + 2 * GUARD,), sentinel, device="cuda", dtype=dtype)
    return buf, buf[GUARD:GUARD + n].view(*shape)


def reference(q, k, v, scale, causal):
    """f32 O and LSE (natural log) from f32 inputs."""
    qf, kf, vf = q.float(), k.float(), v.float()
    s = torch.matmul(qf, kf.transpose(-1, -2)) * scale
    if causal:
        S = q.shape[2]
        mask = torch.ones(S, S, device="cuda", dtype=torch.bool).tril()
        s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    with sdpa_kernel(SDPBackend.MATH):
        o = F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal, scale=scale)
    return o, lse


def sdpa(backend, q, k, v, causal, scale):
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)


def check(path, name, hd, causal, dtype):
    ok = True
    kern = Tilepx(path, name)
    for S in CHECK_S:
        B, H = CHECK_BH
        g = torch.Generator(device="cuda").manual_seed(1000 + S + hd)
        q, k, v = (torch.randn(B, H, S, hd, device="cuda", dtype=dtype, generator=g) for _ in range(3))
        scale = 1.0 / math.sqrt(hd)
        arrays, values = kern.args(q, k, v, torch.empty_like(q), torch.empty(B, H, S, device="cuda"), scale)
        # O and LSE as the kernel takes them, between guard elements
        obuf, o_arg = guarded(tuple(arrays[3].shape), dtype, SENTINEL_O)
        lbuf, lse_arg = guarded(tuple(arrays[4].shape), torch.float32, SENTINEL_LSE)
        kern.k(*arrays[:3], o_arg, lse_arg, **values)
        torch.cuda.synchronize()
        o, lse = from_param(o_arg, q), lse_arg.reshape(B, H, S)
        o_ref, lse_ref = reference(q, k, v, scale, causal)
        try:
            o_cudnn = sdpa(SDPBackend.CUDNN_ATTENTION, q, k, v, causal, scale).float()
            base = (o_cudnn - o_ref).abs().max().item()
        except RuntimeError:
            o_cudnn = sdpa(SDPBackend.FLASH_ATTENTION, q, k, v, causal, scale).float()
            base = (o_cudnn - o_ref).abs().max().item()
        err_o = (o.float() - o_ref).abs().max().item()
        err_lse = (lse - lse_ref).abs().max().item()
        guards = (torch.all(obuf[:GUARD] == SENTINEL_O) and torch.all(obuf[-GUARD:] == SENTINEL_O)
                  and torch.all(lbuf[:GUARD] == SENTINEL_LSE) and torch.all(lbuf[-GUARD:] == SENTINEL_LSE))
        good = (err_o <= 2 * base + O_SLACK) and err_lse <= LSE_ATOL and bool(guards) \
            and math.isfinite(err_o) and math.isfinite(err_lse)
        ok &= good
        print(f"check {name:36s} {str(dtype)[6:]:8s} S={S:5d} O err {err_o:.3e} (cuDNN {base:.3e}) "
              f"LSE err {err_lse:.3e} guards {'ok' if guards else 'CLOBBERED'} "
              f"{'PASS' if good else 'FAIL'}", flush=True)
    return ok


def clocks():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu",
                               "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "nvidia-smi unavailable"


def time_cell(hd, S, causal, rounds, warmup, tilepx_kernels):
    B, H = 16384 // S, 2048 // hd
    g = torch.Generator(device="cuda").manual_seed(S * 7 + hd)
    q, k, v = (torch.randn(B, H, S, hd, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
    scale = 1.0 / math.sqrt(hd)
    o = torch.empty_like(q)
    lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
    cands = {}
    for be, label in ((SDPBackend.CUDNN_ATTENTION, "cudnn"), (SDPBackend.FLASH_ATTENTION, "flash")):
        try:
            sdpa(be, q, k, v, causal, scale)
            cands[label] = (lambda be=be: sdpa(be, q, k, v, causal, scale))
        except RuntimeError as e:
            print(f"# {label} unavailable at hd {hd} S {S}: {str(e).splitlines()[0]}")
    for kern in tilepx_kernels:
        launch, _ = kern.launch(q, k, v, o, lse, scale)
        cands[kern.name] = launch.run
    torch.cuda.synchronize()
    for _ in range(warmup):
        for f in cands.values():
            f()
    times = {n: [] for n in cands}
    before = clocks()
    for _ in range(rounds):
        for n, f in cands.items():
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            f()
            b.record()
            times[n].append((a, b))
    torch.cuda.synchronize()
    after = clocks()
    flops = 4.0 * B * H * S * S * hd / (2 if causal else 1)
    tf = {n: flops / (statistics.median(x.elapsed_time(y) for x, y in ev) * 1e-3) / 1e12
          for n, ev in times.items()}
    return tf, before, after


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--no-check", action="store_true", help="time only (the kernels checked elsewhere)")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--hd", default="64,128,256")
    ap.add_argument("--seq", default="512,1024,2048,4096,8192,16384")
    ap.add_argument("--mask", default="full,causal")
    ap.add_argument("--only", default=None, help="a regular expression: only the kernels whose name it matches")
    ap.add_argument("--csv", default=None, help="also write the TFLOPS table as CSV (bench/plot.py attention draws it)")
    args = ap.parse_args()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}, tilepx {tilepx.version()}")
    found = kernels()
    if args.only:
        found = [f for f in found if re.search(args.only, f[1])]
    if not found:
        print("no attention kernels found in", FILES)
        return 1
    ok = True
    for path, name, hd, causal, dtype in ([] if args.no_check else found):
        ok &= check(path, name, hd, causal, dtype)
    print("# checks:", "all passed" if ok else "FAILED")
    if args.check_only or not ok:
        return 0 if ok else 1
    hds = [int(x) for x in args.hd.split(",")]
    seqs = [int(x) for x in args.seq.split(",")]
    masks = args.mask.split(",")
    ratios, dratios, cratios, csv_rows = [], [], [], []
    print(f"# TFLOPS (median of {args.rounds} interleaved launches each); ratio = best tilepx / cuDNN; "
          "default = attention_fwd_hd<D>[_causal]; chosen = tilepx.attention_choose's kernel (when they ran)")
    print("| hd | seq | mask | cuDNN | flash | tilepx (best) | kernel | ratio to cuDNN | default | default / cuDNN "
          "| chosen | chosen / cuDNN |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for hd in hds:
        for S in seqs:
            for mask in masks:
                causal = mask == "causal"
                mine = [Tilepx(p, n) for p, n, h, c, d in found
                        if h == hd and c == causal and d == torch.bfloat16]
                if not mine:
                    continue
                tf, before, after = time_cell(hd, S, causal, args.rounds, args.warmup, mine)
                best = max(mine, key=lambda kk: tf[kk.name])
                ref = tf.get("cudnn")
                ratio = tf[best.name] / ref if ref else float("nan")
                if ref:
                    ratios.append(ratio)
                plain = "attention_fwd_hd%d%s" % (hd, "_causal" if causal else "")  # the cell's default kernel
                dtf = tf.get(plain, float("nan"))
                dratio = dtf / ref if ref else float("nan")
                if ref and plain in tf:
                    dratios.append(dratio)
                chosen = tilepx.attention_choose(hd, causal, S, "bf16", SMS)["kernel"]  # what a user gets
                ctf = tf.get(chosen, float("nan"))
                cratio = ctf / ref if ref else float("nan")
                if ref and chosen in tf:
                    cratios.append(cratio)
                others = " ".join(f"{kk.name}={tf[kk.name]:.0f}" for kk in mine if kk is not best)
                print(f"| {hd} | {S} | {mask} | {ref or float('nan'):.0f} | {tf.get('flash', float('nan')):.0f} "
                      f"| {tf[best.name]:.0f} | {best.name} | {ratio:.3f} | {dtf:.0f} | {dratio:.3f} "
                      f"| {ctf:.0f} | {cratio:.3f} |"
                      + (f" <!-- {others} -->" if others else ""), flush=True)
                print(f"<!-- clocks before: {before}; after: {after} -->", flush=True)
                csv_rows.append([hd, S, mask, "%.1f" % (ref or float("nan")), "%.1f" % tf.get("flash", float("nan")),
                                 "%.1f" % tf[best.name], best.name, "%.1f" % dtf, "%.1f" % ctf,
                                 chosen])
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("# bench/attention.py on %s, %s; TFLOPS, median of %d\n" % (
                torch.cuda.get_device_name(), time.strftime("%Y-%m-%d"), args.rounds))
            f.write("hd,seq,mask,cudnn,flash,tilepx,kernel,default,chosen,chosen_kernel\n")
            for r in csv_rows:
                f.write(",".join(str(x) for x in r) + "\n")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"# geometric mean of tilepx/cuDNN over {len(ratios)} cells: {geo:.3f}, min {min(ratios):.3f}")
    for what, rs in (("the defaults alone: default", dratios), ("tilepx.attention_choose's picks: chosen", cratios)):
        if rs:
            geo = math.exp(sum(math.log(r) for r in rs) / len(rs))
            print(f"# {what}/cuDNN, geometric mean over {len(rs)} cells: {geo:.3f}, min {min(rs):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
