#!/usr/bin/env python3
"""Writes the row kernels (issue 34): bench/softmax_rows.tile, bench/rmsnorm_rows.tile
and their small twins tests/gpu/softmax_rows_small.tile, rmsnorm_rows_small.tile.

One generator so that the benchmarked kernels and the tested ones are the same
program at two sizes: T threads per CTA (one CTA per row), each holding U
contiguous runs of 8 bf16 (16-byte accesses) of a chunk of C = U*T*8 elements.
`set` names each register by an affine index of one name, so the per-thread
folds over a thread's U*8 elements are written out here as expression trees.
Run from the repository root: python3 bench/gen_rows.py
bench/softmax_rows_any.tile is the two-pass softmax of this generator as one
file with compile-time constants (tilepx -D T=64 -D KERNEL=softmax_rows_small
gives the small twin's PTX; make test compares both).
"""
import sys

LOG2E = "1.44269504"


def tree(terms, op):
    """a balanced tree of op over terms: short dependency chains"""
    while len(terms) > 1:
        nxt = [op(terms[i], terms[i + 1]) for i in range(0, len(terms) - 1, 2)]
        if len(terms) % 2:
            nxt.append(terms[-1])
        terms = nxt
    return terms[0]


def elems(T, U):
    """XC's elements thread t holds: run u, element k"""
    out = []
    for u in range(U):
        for k in range(8):
            off = u * T * 8 + k
            out.append("XC[%s8 * t]" % ("%d + " % off if off else ""))
    return out


def header(name, T, U, what, sets, extra_params, small, one_pass=False):
    C = U * T * 8
    W = T // 32
    lines = ["# %s" % l if l else "#" for l in what]
    lines += ["# set: %s" % sets, "target sm_90", "", "kernel %s" % name, "threads %d" % T,
              "param  N u32", "param  R u32"] + extra_params
    lines += ["assume N %% %d == 0" % C, "assume N >= %d" % C,
              "assume N <= %d" % (C if one_pass else 32768), "grid   cdiv(R, 1)",
              "param  X bf16 [R, N]%s" % (" fill small" if small else "")]
    return lines, C, W


def chunk_decl(C, T, U, names):
    out = ["# a chunk: %d bf16 per thread, %d contiguous run%s of 8 (16-byte accesses)" % (U * 8, U, "s" if U > 1 else "")]
    for n in names:
        out.append("local  %s bf16 [%d] layout S[(%d, %d, 8) : (8, 1@tx, 1)]" % (n, C, U, T))
    return out


def cross_warp(T, parts, results):
    """per-thread partials (thread t holds element t), reduced across the
    CTA's warps by reduce (shared scratch and bar.sync 0) into results held
    by every thread"""
    out = ["# per-thread partials, thread t holds element t"]
    out += ["local  %s f32 [%d] layout S[(%d) : (1@tx)]" % (p, T, T) for p in parts]
    out += ["local  %s f32 [1] layout S[1 : 1] + R[%d : 1@tx]" % (r, T) for r in results]
    return out


def softmax(name, T, U, sets, small, what, unroll=1, one_pass=False):
    """one_pass: N is exactly one chunk, read once and kept in registers"""
    lines, C, W = header(name, T, U, what, sets, [], small, one_pass)
    lines += ["param  Y bf16 [R, N]"] + chunk_decl(C, T, U, ["XC"] if one_pass else ["XC", "YC"])
    lines += cross_warp(T, ["PM", "PS"], ["M", "L"])
    if not one_pass:
        lines += ["local  PN f32 [%d] layout S[(%d) : (1@tx)]" % (T, T)]
    lines += [""]
    xs = elems(T, U)
    rowmax = tree(xs, lambda a, b: "max(%s, %s)" % (a, b))
    nm = "PM" if one_pass else "PN"
    expsum = tree(["exp2((%s - %s[t]) * %s)" % (x, nm, LOG2E) for x in xs], lambda a, b: "(%s + %s)" % (a, b))
    loop = "repeat cdiv(N, %d) as c%s {" % (C, " unroll %d" % unroll if unroll > 1 else "")
    region = "X[ctaid, %d * c : %d * c + %d]" % (C, C, C)
    across = ["# across warps: the row's max, each thread's sum rescaled to it, the row's sum (every thread holds both)",
              "reduce.max M, PM", "set PS[t] = PS[t] * exp2((PM[t] - M[0]) * %s)" % LOG2E,
              "reduce.sum L, PS", "set L[0] = rcp(L[0])"]
    if one_pass:
        lines += ["# the row, read once: each thread's max and its sum of exp2((x - max) * log2e)",
                  "cta copy XC, X[ctaid, 0 : %d]" % C, "set PM[t] = %s" % rowmax, "set PS[t] = %s" % expsum] + across
        lines += ["# the row from registers, scaled, in place",
                  "set XC[j] = exp2((XC[j] - M[0]) * %s) * L[0]" % LOG2E, "cta copy Y[ctaid, 0 : %d], XC" % C]
        return "\n".join(lines) + "\n"
    lines += ["set PM[t] = -inf", "set PS[t] = 0.0",
              "# pass 1: each thread's running max and its sum of exp2((x - max) * log2e), rescaled when the max grows",
              loop, "  cta copy XC, " + region,
              "  set PN[t] = max(PM[t], %s)" % rowmax,
              "  set PS[t] = fma(PS[t], exp2((PM[t] - PN[t]) * %s), %s)" % (LOG2E, expsum),
              "  set PM[t] = PN[t]", "}"] + across
    lines += ["# pass 2: the row again (from L2), scaled",
              loop, "  cta copy XC, " + region,
              "  set YC[j] = exp2((XC[j] - M[0]) * %s) * L[0]" % LOG2E,
              "  cta copy Y[ctaid, %d * c : %d * c + %d], YC" % (C, C, C), "}"]
    return "\n".join(lines) + "\n"


def softmax_smem(name, T, U, nmax, sets, small, what, unroll=1):
    """one read from DRAM, the row staged in shared memory (bf16, nmax
    elements at most): pass 1 streams chunks into registers, folds them into
    the running (max, sum) and writes each chunk to shared memory; pass 2
    reads the chunks back from shared memory, so a CTA holds few registers
    and several CTAs share an SM (their loads overlap each other's reductions)"""
    lines, C, W = header(name, T, U, what, sets, [], small)
    lines[lines.index("assume N <= 32768")] = "assume N <= %d" % nmax
    lines += ["param  Y bf16 [R, N]", "shared S bf16 [%d]   # the row, as pass 1 read it" % nmax]
    lines += chunk_decl(C, T, U, ["XC", "YC"])
    lines += cross_warp(T, ["PM", "PS"], ["M", "L"])
    lines += ["local  PN f32 [%d] layout S[(%d) : (1@tx)]" % (T, T), ""]
    xs = elems(T, U)
    rowmax = tree(xs, lambda a, b: "max(%s, %s)" % (a, b))
    expsum = tree(["exp2((%s - PN[t]) * %s)" % (x, LOG2E) for x in xs], lambda a, b: "(%s + %s)" % (a, b))
    loop = "repeat cdiv(N, %d) as c%s {" % (C, " unroll %d" % unroll if unroll > 1 else "")
    chunk = "%d * c : %d * c + %d" % (C, C, C)
    lines += ["set PM[t] = -inf", "set PS[t] = 0.0",
              "# pass 1: each thread's running max and sum (online), and the chunk into shared memory",
              loop, "  cta copy XC, X[ctaid, %s]" % chunk,
              "  set PN[t] = max(PM[t], %s)" % rowmax,
              "  set PS[t] = fma(PS[t], exp2((PM[t] - PN[t]) * %s), %s)" % (LOG2E, expsum),
              "  set PM[t] = PN[t]", "  cta copy S[%s], XC   # each thread keeps its own 16-byte runs: no barrier needed" % chunk,
              "}",
              "# across warps: the row's max, each thread's sum rescaled to it, the row's sum (every thread holds both)",
              "reduce.max M, PM", "set PS[t] = PS[t] * exp2((PM[t] - M[0]) * %s)" % LOG2E,
              "reduce.sum L, PS", "set L[0] = rcp(L[0])",
              "# pass 2: the row from shared memory, scaled",
              loop, "  cta copy XC, S[%s]" % chunk,
              "  set YC[j] = exp2((XC[j] - M[0]) * %s) * L[0]" % LOG2E,
              "  cta copy Y[ctaid, %s], YC" % chunk, "}"]
    return "\n".join(lines) + "\n"


def rmsnorm(name, T, U, sets, small, what, unroll=1, one_pass=False):
    """one_pass: N is exactly one chunk, read once and kept in registers"""
    lines, C, W = header(name, T, U, what, sets, ["param  eps f32"], small, one_pass)
    lines += ["param  W bf16 [N]%s" % (" fill small" if small else ""), "param  Y bf16 [R, N]"]
    lines += chunk_decl(C, T, U, ["XC", "WC"] if one_pass else ["XC", "WC", "YC"])
    lines += cross_warp(T, ["PS"], ["L"])
    lines += [""]
    sq = tree(["%s * %s" % (x, x) for x in elems(T, U)], lambda a, b: "(%s + %s)" % (a, b))
    loop = "repeat cdiv(N, %d) as c%s {" % (C, " unroll %d" % unroll if unroll > 1 else "")
    region = "X[ctaid, %d * c : %d * c + %d]" % (C, C, C)
    across = ["# across warps: the row's sum of squares in every thread, then rsqrt(mean(x^2) + eps)",
              "reduce.sum L, PS", "set L[0] = rsqrt(L[0] / N + eps)"]
    if one_pass:
        lines += ["# the row, read once: each thread's sum of squares", "cta copy XC, X[ctaid, 0 : %d]" % C,
                  "set PS[t] = %s" % sq] + across
        lines += ["# the row from registers, scaled and weighted, in place", "cta copy WC, W[0 : %d]" % C,
                  "set XC[j] = XC[j] * L[0] * WC[j]", "cta copy Y[ctaid, 0 : %d], XC" % C]
        return "\n".join(lines) + "\n"
    lines += ["set PS[t] = 0.0", "# pass 1: each thread's sum of squares", loop,
              "  cta copy XC, " + region, "  set PS[t] = PS[t] + %s" % sq, "}"] + across
    lines += [
              "# pass 2: the row again (from L2), scaled and weighted",
              loop, "  cta copy XC, " + region, "  cta copy WC, W[%d * c : %d * c + %d]" % (C, C, C),
              "  set YC[j] = XC[j] * L[0] * WC[j]",
              "  cta copy Y[ctaid, %d * c : %d * c + %d], YC" % (C, C, C), "}"]
    return "\n".join(lines) + "\n"


SOFTMAX_WHAT = [
    "y = softmax(x) over rows of runtime length N, bf16 in and out, f32 math.",
    "One CTA of %d threads per row; a chunk of %d elements per loop trip, each",
    "thread holding %d contiguous runs of 8 (16-byte loads and stores).",
    "Pass 1 keeps a running (max, sum) per thread (an online softmax: the sum",
    "is rescaled by exp2 of the max's change, one exp2 per thread and chunk);",
    "the per-thread pairs meet across warps in reduce (shared scratch words",
    "and bar.sync 0: the max first, then each sum rescaled to it).",
    "Pass 2 reads the row again (an L2 hit: a CTA's row is read moments",
    "before) and writes exp2((x - max) * log2e) * (1 / sum). exp2 and rcp are",
    "PTX's .approx forms, compared within their documented bounds.",
    "Generated by bench/gen_rows.py (edit it, not this file).",
]
RMS_WHAT = [
    "y = x * rsqrt(mean(x^2) + eps) * w over rows of runtime length N, bf16",
    "in and out (w a bf16 [N] weight), f32 math. One CTA of %d threads per",
    "row; a chunk of %d elements per loop trip, each thread holding %d",
    "contiguous runs of 8 (16-byte loads and stores). Pass 1 sums squares",
    "per thread; the sums meet across warps in reduce (shared scratch",
    "words and bar.sync 0); pass 2 reads the row",
    "again (from L2) and writes y. rsqrt is compared within its documented",
    "bound, everything else bit for bit.",
    "Generated by bench/gen_rows.py (edit it, not this file).",
]


def what_of(what, T, U):
    text = "\n".join(what)
    C = U * T * 8
    return (text.replace("%d threads", "%d threads" % T, 1).replace("%d elements", "%d elements" % C, 1)
            .replace("%d contiguous", "%d contiguous" % U, 1).replace("holding %d", "holding %d" % U, 1)
            .split("\n"))


ONE_PASS_WHAT = [
    "One pass (N is exactly one chunk): the row is read once into registers,",
    "reduced across all %d warps, and written from the same registers, so",
    "nothing is read twice (at 32k elements a two-pass kernel's second read",
    "no longer hits L2: every SM's rows in flight outgrow it).",
]


def one_pass_what(kind, T, U):
    return what_of(SOFTMAX_WHAT if kind == "softmax" else RMS_WHAT, T, U) + [
        l.replace("%d warps", "%d warps" % (T // 32)) for l in ONE_PASS_WHAT]


SMEM_WHAT = [
    "y = softmax(x) over rows of runtime length N, bf16 in and out, f32 math,",
    "one CTA per row. The row is read from global memory once: pass 1 keeps a",
    "running (max, sum) per thread (online softmax) and writes each chunk it",
    "read into shared memory; the pairs meet across warps in reduce; pass 2",
    "reads the chunks back from shared memory (each thread its own runs) and",
    "writes exp2((x - max) * log2e) * (1 / sum). The row lives in shared",
    "memory, not registers, so CTAs stay small in registers and several share",
    "an SM: one CTA's loads overlap another's reductions (at 32k rows the",
    "register-resident one-pass kernel holds an SM with one CTA).",
    "Generated by bench/gen_rows.py (edit it, not this file).",
]


# the shape per row length: threads T and runs of 8 per thread U, and
# whether the row is one chunk held in registers (bench/rows_bench.py
# times each N's kernel as "tilepx softmax"/"tilepx rmsnorm"); 32k rows
# take 1024 threads (32 warps) holding 32 elements each
SHAPE_PER_N = {4096: (256, 2, False), 8192: (256, 2, False), 16384: (1024, 2, True), 32768: (1024, 4, True)}


def variant(kind, T, U, unroll=1, one_pass=False):
    """a kernel's text at another shape (bench/rows_bench.py times these too)"""
    name = "%s_rows_t%du%d%s%s" % (kind, T, U, "_unroll%d" % unroll if unroll > 1 else "", "_1pass" if one_pass else "")
    make = softmax if kind == "softmax" else rmsnorm
    sets = "N=%d R=8" % (U * T * 8) + (" eps=1e-6" if kind == "rmsnorm" else "")
    what = one_pass_what(kind, T, U) if one_pass else what_of(SOFTMAX_WHAT if kind == "softmax" else RMS_WHAT, T, U)
    return make(name, T, U, sets, False, what, unroll, one_pass)


# the shared-memory softmax's shapes (threads T, runs of 8 per thread U, the
# chunk loops unrolled F times so that a thread's next loads are in flight
# during this chunk's math) that bench/rows_bench.py times at 16k and 32k, each
# with the row's length as its shared buffer: registers at 32k (ptxas -v,
# sm_90) 31, 32, 32, 32, 40, 40, 48
SMEM_SHAPES = ((1024, 1, 1), (1024, 1, 4), (512, 1, 4), (512, 2, 1), (512, 2, 2), (256, 2, 4), (256, 4, 1))


def smem_variant(T, U, nmax, unroll=1):
    """the shared-memory softmax at shape T x U for rows of at most nmax"""
    return softmax_smem("softmax_rows_smem_t%du%d%s_%dk" % (T, U, "_unroll%d" % unroll if unroll > 1 else "", nmax // 1024),
                        T, U, nmax, "N=%d R=8" % nmax, False, SMEM_WHAT, unroll)


def main():
    outs = {
        "bench/softmax_rows.tile": softmax("softmax_rows", 256, 2, "N=4096 R=264", False, what_of(SOFTMAX_WHAT, 256, 2)),
        "bench/rmsnorm_rows.tile": rmsnorm("rmsnorm_rows", 256, 2, "N=4096 R=264 eps=1e-6", False,
                                           what_of(RMS_WHAT, 256, 2)),
        "tests/gpu/softmax_rows_small.tile": softmax(
            "softmax_rows_small", 64, 2, "N=2048 R=3", True,
            ["bench/softmax_rows.tile at a size ptxemu handles (64 threads, 2 chunks", "per row, 3 rows):"]
            + what_of(SOFTMAX_WHAT, 64, 2)),
        "tests/gpu/rmsnorm_rows_small.tile": rmsnorm(
            "rmsnorm_rows_small", 64, 2, "N=2048 R=3 eps=1e-5", True,
            ["bench/rmsnorm_rows.tile at a size ptxemu handles (64 threads, 2 chunks", "per row, 3 rows):"]
            + what_of(RMS_WHAT, 64, 2)),
    }
    for kind in ("softmax", "rmsnorm"):
        make = softmax if kind == "softmax" else rmsnorm
        eps = " eps=1e-6" if kind == "rmsnorm" else ""
        outs["bench/%s_rows_32k.tile" % kind] = make(
            "%s_rows_32k" % kind, 1024, 4, "N=32768 R=2" + eps, False, one_pass_what(kind, 1024, 4), 1, True)
        outs["tests/gpu/%s_rows_1pass_small.tile" % kind] = make(
            "%s_rows_1pass_small" % kind, 128, 2, "N=2048 R=3" + eps.replace("6", "5"), True,
            ["bench/%s_rows_32k.tile at a size ptxemu handles (128 threads, one" % kind,
             "chunk of 2048 per row, 3 rows):"] + one_pass_what(kind, 128, 2), 1, True)
    outs["tests/gpu/softmax_rows_smem_small.tile"] = softmax_smem(
        "softmax_rows_smem_small", 64, 2, 3072, "N=3072 R=3", True,
        ["bench/gen_rows.py's shared-memory softmax (rows_bench.py's \"smem\" variants)",
         "at a size ptxemu handles (64 threads, 3 chunks of 1024 per row, 3 rows; the",
         "chunk loops unrolled twice, so one trip of two copies and one single):"] + SMEM_WHAT, 2)
    for path, text in outs.items():
        with open(path, "w") as f:
            f.write(text)
        print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
