#!/usr/bin/env python3
"""Writes the ping-pong GEMMs with a fused epilogue (issue 34):
bench/gemm_sm90_pingpong_alpha_beta.tile (C = alpha A B^T + beta C, f16 in,
f32 out) and bench/gemm_sm90_pingpong_bf16_bias_gelu.tile (C =
gelu_tanh(A B^T + bias), bf16 in and out), and the plain f16 -> f32 and
e4m3 -> bf16 GEMMs on the same schedule, bench/gemm_sm90_pingpong_f16.tile
and bench/gemm_sm90_pingpong_fp8.tile (issue 37). The consumer warpgroups take
turns at the tensor cores, so one's epilogue overlaps the other's main loop
(CUTLASS's ping-pong schedule), on one ring of stages that the producer
fills with the tile's first half's K blocks, then its second half's: each
consumer warpgroup passes the other's phases with mbarrier.skip (its phase
bits flip without a wait) and takes its turn from the other by a named
barrier, after the other's last wait, so that the phase before its first
wait has completed (the roles proof requires it).
The first version (two rings of 3 stages, one a warpgroup: 0.70 of
cuBLASLt at 4096^3 alpha/beta, latency-bound K loops) is at commit 341cf8c;
the bias+GELU one on clusters of 4 (0.54 on the H200: its 32 clusters of 4
are not all resident) at bf5a714.
Each consumer warpgroup's code is written out once per warpgroup (its turn
barriers, its rows, its staging buffer and its TMA stores, issued by its own
first thread), which is why this is generated.
Run from the repository root: python3 bench/gen_pingpong.py
"""
import sys

from gen_walk import walk_header

S = 6  # stages of the one ring (32 KiB each; the two staging buffers take 32 KiB more)

HEAD = '''{TITLE} Each CTA walks 256 x 128 tiles of
# C as the cooperative kernel does (clusters of 2 along y: a 512-row band,
# B's slice multicast), but its two consumer warpgroups each own a 128 x 128
# half (D0, D1: its rows 0..63 and 64..127) and take turns at the tensor
# cores: warpgroup 1 runs its half's K loop, hands the turn to warpgroup 2
# (named barriers 1 and 2, after its wgmma.wait 0) and does its epilogue
# while warpgroup 2's K loop runs, and so on: an epilogue (the stores and
# their math) no longer idles the tensor cores. One ring of {S} stages (A's
# 128 rows of a half and B's 128 columns, 32 KiB a stage): the producer
# warp fills it with the first half's K blocks, then the second half's, and
# each consumer warpgroup passes the other's blocks with mbarrier.skip (its
# phase bit flips, no wait). A trip releases the previous trip's stage, the
# first of a turn the other warpgroup's last (its wgmmas were retired
# before the hand-off); the turn barrier also orders a warpgroup's first
# wait after the completion of the phase before it (the other's last).
{EPI_DOC}
target sm_90a
# set: {SETS}

{WALK}
{PARAMS}
shared As {IN} [{S}, 128, {BK}] layout {SWZ}   # the ring: a half's A rows
shared Bs {IN} [{S}, 128, {BK}] layout {SWZ}   # and B's columns
{STAGING}
local  D0 f32 [64, 128] layout S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]   # the half's rows 0..63
local  D1 f32 [64, 128] layout S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]   # and 64..127
{LOCALS}
mbarrier full [{S}]
mbarrier empty [{S}]

repeat {S} as s {{
  mbarrier.init full[s]
  mbarrier.init empty[s], 2                  # the stage's consumer warpgroup, in each of the 2 CTAs
}}
cluster.sync                                 # every CTA's barriers exist before a peer signals them
when wgid == 0 {{
  setmaxnreg.dec 40
{PRODUCERS}
}} else {{
  setmaxnreg.inc 232
'''


EPI_COMMON = """# in its epilogue. Epilogue per warpgroup, on its own staging buffer
# (2 x {BOX} {OUT}, TMA's 128-byte swizzle) and named barrier (3 or 4, 128
# threads): for each {COLS}-column chunk of D0 then D1, bulk.wait_read 1,
# bar.sync, the writes{HOW}, fence.proxy_async, bar.sync, a TMA store of
# the {BOX} box by the warpgroup's first thread, bulk.commit."""
ACC = "S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]"
GELU = "fma(0.5 * {x}, tanh({x} * fma(0.0356774081, {x} * {x}, 0.7978845608)), 0.5 * {x})"
KINDS = {
 "alpha_beta": dict(
  NAME="gemm_sm90_pingpong_alpha_beta", IN="f16", COLS=32, OUTT="f32",
  TITLE="# C = alpha * A * B^T + beta * C, f16 in, f32 out, f32 alpha and beta: the\n"
        "# ping-pong schedule (issue 34; bench/gemm_sm90_walk_alpha_beta.tile is the\n"
        "# cooperative kernel it is compared with).",
  EXTRA="# C's old values of D0's rows are loaded into registers before the\n"
        "# warpgroup's turn, D1's after D0's first two chunks (as the cooperative\n"
        "# kernel).",
  SETS="M=300 N=300 K=136 P=2 Q=2 alpha=0.5 beta=-1.5", KMAX=65536,
  NASSUME="assume N % 4 == 0                # C's rows: a multiple of 16 bytes (the TMA store)",
  PARAMS="param  A f16 [M, K] fill small tma\nparam  B f16 [N, K] fill small tma\n"
         "param  C f32 [M, N] fill small tma   # read (beta * C) and written (TMA stores)\nparam  alpha f32\nparam  beta f32",
  LOCALS="local  Cin f32 [64, 128] layout " + ACC + "   # C's values, as the accumulator holds them"),
 "plain": dict(
  NAME="gemm_sm90_pingpong_f16", IN="f16", COLS=32, OUTT="f32",
  TITLE="# C = A * B^T, f16 in, f32 accumulate and out: the ping-pong schedule on\n"
        "# the plain GEMM (issue 37), whose f32 epilogue (twice bf16's bytes) the\n"
        "# cooperative kernels leave on the tensor cores' time.",
  EXTRA="# No epilogue math: the accumulators leave as they are.",
  SETS="M=300 N=300 K=136 P=2 Q=2", KMAX=65536,
  NASSUME="assume N % 4 == 0                # C's rows: a multiple of 16 bytes (the TMA store)",
  PARAMS="param  A f16 [M, K] fill small tma\nparam  B f16 [N, K] fill small tma\nparam  C f32 [M, N] tma",
  LOCALS=""),
 "fp8": dict(
  NAME="gemm_sm90_pingpong_fp8", IN="e4m3", COLS=64, OUTT="bf16", BK=128,
  TITLE="# C = A * B^T, e4m3 in, f32 accumulate, bf16 out: the ping-pong schedule\n"
        "# on the FP8 GEMM (issue 37), whose K loop runs at twice the f16 rate, so\n"
        "# an epilogue left on the tensor cores' time costs twice as much. A K block\n"
        "# is 128 e4m3 elements (128 bytes: the 128-byte swizzle atom over bytes),\n"
        "# each K step two wgmma m64n128k32 x 4; A [M, K] and B [N, K] are both\n"
        "# K-major (wgmma transposes only 16-bit operands).",
  EXTRA="# No epilogue math: the accumulators leave as they are.",
  SETS="M=300 N=304 K=272 P=2 Q=2", KMAX=65536,
  NASSUME="assume N % 8 == 0                # C's rows: a multiple of 16 bytes (the TMA store)",
  KEXTRA="assume K % 16 == 0               # A's and B's rows: a multiple of 16 bytes (TMA)",
  PARAMS="param  A e4m3 [M, K] fill small tma\nparam  B e4m3 [N, K] fill small tma\nparam  C bf16 [M, N] tma",
  LOCALS=""),
 "bias_gelu": dict(
  NAME="gemm_sm90_pingpong_bf16_bias_gelu", IN="bf16", COLS=64, OUTT="bf16",
  TITLE="# C = gelu_tanh(A * B^T + bias), bf16 in and out, f32 accumulate and f32\n"
        "# epilogue math (tanh.approx.f32, as cuBLASLt's GELU_BIAS): the ping-pong\n"
        "# schedule (issue 34; bench/gemm_sm90_walk_bf16_bias_gelu.tile is the\n"
        "# cooperative kernel it is compared with).",
  EXTRA="# The strip's bias is loaded into registers laid out as the accumulators'\n"
        "# columns before the warpgroup's turn (as the cooperative kernel).",
  SETS="M=300 N=304 K=136 P=2 Q=2", KMAX=65536,
  NASSUME="assume N % 8 == 0                # C's rows: a multiple of 16 bytes (the TMA store)",
  PARAMS="param  A bf16 [M, K] fill small tma\nparam  B bf16 [N, K] fill small tma\nparam  C bf16 [M, N] tma\n"
         "param  BIAS bf16 [1, N] fill small",
  LOCALS="# the bias row of a 128-column strip as the accumulators' columns, replicated\n"
         "# over the 8 lane groups and 4 warps that hold each column\n"
         "local  bias f32 [1, 128] layout S[(1, 16, 4, 2) : (1, 4, 1@laneid, 1)] + R[(4, 8) : (1@wid_in_wg, 4@laneid)]"),
}


def head(kind):
    k = KINDS[kind]
    box = "64 x %d" % k["COLS"]
    doc = EPI_COMMON.format(BOX=box, OUT=k["OUTT"], COLS=k["COLS"],
                            HOW=" (stmatrix.x4 of bf16 pairs)" if k["OUTT"] == "bf16" else "")
    doc += "\n" + k["EXTRA"] + "\n# Written by bench/gen_pingpong.py (edit it, not this file)."
    sw = "swizzle(2, 3, 3)" if k["OUTT"] == "f32" else "swizzle(3, 3, 3)"
    staging = ("shared Cs1 %s [2, 64, %d] layout %s  # warpgroup 1's epilogue staging, double-buffered (TMA's 128-byte swizzle)\n"
               "shared Cs2 %s [2, 64, %d] layout %s  # warpgroup 2's") % (k["OUTT"], k["COLS"], sw, k["OUTT"], k["COLS"], sw)
    bk = k.get("BK", 64)
    kassume = "assume K <= %d" % k["KMAX"] + ("\n" + k["KEXTRA"] if "KEXTRA" in k else "")
    return HEAD.format(S=S, PRODUCERS=producer(bk), TITLE=k["TITLE"], EPI_DOC=doc, BK=bk,
                       SWZ="swizzle(4, 3, 3)" if bk == 128 else "swizzle(3, 3, 3)",
                       SETS=k["SETS"], WALK=walk_header(k["NAME"], k["NASSUME"], kassume),
                       PARAMS=k["PARAMS"], IN=k["IN"],
                       STAGING=staging, LOCALS=k["LOCALS"])




def producer(bk):
    """warp 0 fills the ring: each tile's first half's K blocks (of bk elements), then its second's"""
    p = " " * 10
    rows = "tp*512 + cluster_ctarank*256 + h*128"
    return "\n".join([
        "  when warpid == 0 {",
        "    repeat cdiv(N, 128) as tn across ctaid {        # the CTA's columns and, in each,",
        "      repeat cdiv(M, 512) as tp across ctaid_y {  # the cluster's bands; this CTA's half of each",
        "       repeat 2 as h {                              # the halves: warpgroup 1's rows, then 2's",
        "        repeat cdiv(K, %d) as k running g {" % bk,
        p + "mbarrier.wait empty[g %% %d]" % S,
        p + "mbarrier.expect_tx full[g %% %d], 32768       # A's 16 KiB and both halves of B (16 KiB)" % S,
        p + "cta copy_async As[g %% %d, :, :], A[%s : %s + 128, k*%d : k*%d + %d] mbarrier full[g %% %d]" % (S, rows, rows, bk, bk, bk, S),
        p + "cta copy_async Bs[g %% %d, cluster_ctarank*64 : cluster_ctarank*64 + 64, :], B[tn*128 + cluster_ctarank*64 : tn*128 + cluster_ctarank*64 + 64, k*%d : k*%d + %d] mbarrier full[g %% %d] multicast 0x3" % (S, bk, bk, bk, S),
        "        }", "       }", "      }", "    }", "  }"])


def mma_step(w, ind):
    p = " " * ind
    return [p + "mbarrier.wait full[g %% %d]" % S, p + "wgmma.fence",
            p + "warpgroup mma D0, As[g %% %d, 0 : 64, :], Bs[g %% %d, :, :]" % (S, S),
            p + "warpgroup mma D1, As[g %% %d, 64 : 128, :], Bs[g %% %d, :, :]" % (S, S),
            p + "wgmma.commit"]


def chunk(w, acc, row, c, buf, cols=32):
    """one chunk of cols columns of an accumulator through the warpgroup's staging buffer"""
    p = " " * 8
    rows = "%s : %s + 64" % (row, row)
    return [p + "bulk.wait_read 1                         # the store two chunks ago has read Cs%d[%d]" % (w, buf),
            p + "bar.sync %d, 128                          # ... and every thread of the warpgroup knows it" % (2 + w),
            p + "warpgroup copy Cs%d[%d, :, :], %s[:, %d : %d]" % (w, buf, acc, cols * c, cols * c + cols),
            p + "fence.proxy_async",
            p + "bar.sync %d, 128" % (2 + w),
            p + "cta copy_async C[%s, tn*128 + %d : tn*128 + %d], Cs%d[%d, :, :]" % (rows, cols * c, cols * c + cols, w, buf),
            p + "bulk.commit"]


def pre_turn(kind, row0):
    """what a warpgroup loads before its turn: C's old values (alpha/beta), the bias row, or nothing"""
    p8 = " " * 8
    if kind == "alpha_beta":
        return [p8 + "warpgroup copy Cin, C[%s : %s + 64, tn*128 : tn*128 + 128]   # D0's rows of C, loaded before the turn; rows past M, columns past N read 0" % (row0, row0)]
    if kind == "bias_gelu":
        return [p8 + "warpgroup copy bias, BIAS[:, tn*128 : tn*128 + 128]   # bf16 -> f32, before the turn; columns past N read 0"]
    return []


def consumer(w, kind):
    """warpgroup w's code (w = 1, 2): its turns, its ring, its half's rows, its epilogue"""
    row0 = "tp*512 + cluster_ctarank*256 + %d" % ((w - 1) * 128)
    row1 = "tp*512 + cluster_ctarank*256 + %d" % ((w - 1) * 128 + 64)
    p4, p8 = " " * 4, " " * 8
    bk = KINDS[kind].get("BK", 64)
    skip = [p8 + "repeat cdiv(K, %d) as k running g {        # the other half's blocks pass this warpgroup by" % bk,
            p8 + "  mbarrier.skip full[g %% %d]" % S, p8 + "}"]
    out = []
    if w == 1:
        out += [p4 + "repeat %d as s {" % (S - 1),
                p4 + "  mbarrier.arrive empty[s] per warpgroup cluster   # stages 0..%d start free in both CTAs" % (S - 2),
                p4 + "}"]
    else:
        out += [p4 + "bar.arrive 1, 256                          # warpgroup 1 takes the first turn"]
    out += [p4 + "repeat cdiv(N, 128) as tn across ctaid {",
            p4 + "  repeat cdiv(M, 512) as tp across ctaid_y {",
            p8 + "init D0, 0", p8 + "init D1, 0",
        ] + pre_turn(kind, row0) + (skip if w == 2 else []) + [
            p8 + "bar.sync %d, 256                          # this warpgroup's turn at the tensor cores" % w,
            p8 + "repeat cdiv(K, %d) as k running g {" % bk]
    out += mma_step(w, 10)
    out += [p8 + "  wgmma.wait 1                             # the previous step's wgmma is done:",
            p8 + "  mbarrier.arrive empty[(g + %d) %% %d] per warpgroup cluster   # its stage is free, for both producers" % (S - 1, S),
            p8 + "}",
            p8 + "wgmma.wait 0                               # this turn's wgmmas retired: the other may free their last stage",
            p8 + "bar.arrive %d, 256                        # the other warpgroup's turn" % (3 - w)]
    if w == 1:
        out += skip
    if kind == "plain":
        for n, (acc, row, c) in enumerate([(a, r, c) for a, r in (("D0", row0), ("D1", row1)) for c in range(4)]):
            out += chunk(w, acc, row, c, n % 2)
    elif kind == "alpha_beta":
        out += [p8 + "set D0[i, j] = alpha * D0[i, j] + beta * Cin[i, j]"]
        n = 0
        for c in range(4):
            out += chunk(w, "D0", row0, c, n % 2)
            n += 1
            if c == 1:
                out += [p8 + "warpgroup copy Cin, C[%s : %s + 64, tn*128 : tn*128 + 128]   # D1's rows of C" % (row1, row1)]
        out += [p8 + "set D1[i, j] = alpha * D1[i, j] + beta * Cin[i, j]"]
        for c in range(4):
            out += chunk(w, "D1", row1, c, n % 2)
            n += 1
    elif kind == "fp8":
        for acc, row in (("D0", row0), ("D1", row1)):
            for c in range(2):
                out += chunk(w, acc, row, c, c, 64)
    else:
        for acc, row in (("D0", row0), ("D1", row1)):
            x = "%s[i, j]" % acc
            out += [p8 + "set %s = %s + bias[0, j]" % (x, x), p8 + "set %s = %s" % (x, GELU.format(x=x))]
            for c in range(2):
                out += chunk(w, acc, row, c, c, 64)
    out += [p4 + "  }", p4 + "}"]
    if w == 1:
        out += [p4 + "bar.sync 1, 256                            # warpgroup 2's last hand-off"]
    out += [p4 + "bulk.wait 0                                # C written before the CTA ends"]
    return out


def main():
    for kind in KINDS:
        lines = head(kind).rstrip("\n").split("\n")
        lines += ["  when wgid == 1 {"] + consumer(1, kind) + ["  } else {"] + consumer(2, kind) + ["  }", "}",
                  "cluster.sync                                 # no CTA exits while its peer may still signal or write it"]
        path = "bench/%s.tile" % KINDS[kind]["NAME"]
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
