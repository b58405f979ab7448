#!/usr/bin/env python3
"""Writes the bf16 fused-epilogue bench kernels (issue 34):
bench/gemm_sm90_walk_bf16_bias{,_relu,_gelu,_silu}.tile and their plain twin
bench/gemm_sm90_walk_bf16_tmast.tile (no bias, no activation: the same
kernel's cost without the epilogue math, for the same run's comparison).
One generator so that the five differ only in the epilogue's `set`s. GELU
has twins: _ov (D0's epilogue under D1's last wgmma), _ovh (that, with GELU
from h = (x + bias) / 2: the same bits, one FP32 instruction an element
fewer), _ovh_wg (that, each consumer warpgroup storing on its own barrier),
and the two on a linear tile walk (bench/gemm_sm90_linear_bf16_bias_gelu_ovh{,_wg}.tile);
_ew: GELU in the producer warpgroup's idle warps, under the next tile's K loop;
_ewd1: only D1's half there; _ovh_s3: _ovh on the _ew kernels' 3-stage ring. Their twins on clusters of 4 CTAs (B multicast to 4; 0.55 of
cuBLASLt on the H200: 32 clusters of 4 are not all resident) are at commit
bf5a714 (docs/benchmarks.md, session 14).
Run from the repository root: python3 bench/gen_epilogues.py
"""
from gen_walk import walk_header

ACTS = {
 "tmast": ("the plain twin of the fused kernels below: compare its time with theirs", None, ""),
 "bias": ("CUBLASLT_EPILOGUE_BIAS", None, ""),
 "bias_relu": ("CUBLASLT_EPILOGUE_RELU_BIAS", "max({x}, 0.0)", "then ReLU "),
 "bias_gelu": ("CUBLASLT_EPILOGUE_GELU_BIAS",
   "fma(0.5 * {x}, tanh({x} * fma(0.0356774081, {x} * {x}, 0.7978845608)), 0.5 * {x})",
   "then GELU in its tanh form (tanh.approx.f32, as cuBLASLt's GELU_BIAS) "),
 "bias_silu": ("no cuBLASLt twin: bench against its BIAS epilogue",
   "{x} * rcp(1.0 + exp2({x} * -1.44269504))",
   "then SiLU, x * sigmoid(x) = x * rcp(1 + exp2(-x log2 e)) (ex2.approx, rcp.approx; the bound in docs/ptx-notes.md \"Approximate math\") "),
}
HEAD = '''# C = {formula}, bf16 in and out, f32 accumulate and f32 epilogue math.
# (bench variant: bench/gemm_sm90_walk_bf16_512x128.tile with a fused epilogue, issue 34;
# {lt}.)
# Each 128-column strip's bias is loaded into registers laid out as the
# accumulators' columns before the K loop; after wgmma.wait 0 every thread
# adds it to the accumulator registers it holds {act}(set: per thread, the
# colocation of bias[0, j] with D[i, j] proved from the two layouts).
# The output leaves through stmatrix and TMA stores: each half of an
# accumulator (64 rows x 64 columns a warpgroup) is converted to bf16 in
# registers and written with stmatrix.x4 into one of two 128 x 64 staging
# buffers (TMA's 128-byte swizzle), and the first consumer thread stores the
# CTA's 128 x 64 box with one TMA store; the store of one half overlaps the
# next half's conversion and D1's epilogue math. The warpgroups take rows so
# that each accumulator's box is contiguous: D0 is rows 64 (wgid - 1) ..,
# D1 rows 128 + 64 (wgid - 1) .. of the CTA's 256. Per half: bulk.wait_read 1
# (the store two halves ago has read the buffer), bar.sync, the writes,
# fence.proxy_async, bar.sync, the store, bulk.commit (as
# bench/gemm_sm90_walk_tmast.tile; the roles proof checks each step).
# Written by bench/gen_epilogues.py (edit it, not this file).
target sm_90a
# set: M=300 N=304 K=136 P=2 Q=2

{walk}
param  A bf16 [M, K] fill small tma
param  B bf16 [N, K] fill small tma
param  C bf16 [M, N] tma
param  BIAS bf16 [1, N] fill small
shared As bf16 [4, 256, 64] layout swizzle(3, 3, 3)
shared Bs bf16 [4, 128, 64] layout swizzle(3, 3, 3)
shared Cs bf16 [2, 128, 64] layout swizzle(3, 3, 3)   # the epilogue's staging, double-buffered (TMA's 128-byte swizzle)
local  D0 f32 [64, 128] layout S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]   # the CTA's rows 64 (wgid - 1) ..
local  D1 f32 [64, 128] layout S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]   # and 128 + 64 (wgid - 1) ..
# the bias row of a 128-column strip as the accumulators' columns (16 register
# pairs, 4 lanes), replicated over the 8 lane groups and 4 warps that hold each column
local  bias f32 [1, 128] layout S[(1, 16, 4, 2) : (1, 4, 1@laneid, 1)] + R[(4, 8) : (1@wid_in_wg, 4@laneid)]
mbarrier full [4]
mbarrier empty [4]

repeat 4 as s {{
  mbarrier.init full[s]
  mbarrier.init empty[s], 4                  # 2 consumer warpgroups in each of the 2 CTAs
}}
cluster.sync                                 # every CTA's barriers exist before a peer signals them
when wgid == 0 {{
  setmaxnreg.dec 40
  when warpid == 0 {{
    repeat cdiv(N, 128) as tn across ctaid {{        # the CTA's columns and, in each,
      repeat cdiv(M, 512) as tp across ctaid_y {{  # the cluster's bands; this CTA's half of each
        repeat cdiv(K, 64) as k running g {{
          mbarrier.wait empty[g % 4]
          mbarrier.expect_tx full[g % 4], 49152       # A's 32 KiB and both halves of B (16 KiB)
          cta copy_async As[g % 4, :, :], A[tp*512 + cluster_ctarank*256 : tp*512 + cluster_ctarank*256 + 256, k*64 : k*64 + 64] mbarrier full[g % 4]
          cta copy_async Bs[g % 4, cluster_ctarank*64 : cluster_ctarank*64 + 64, :], B[tn*128 + cluster_ctarank*64 : tn*128 + cluster_ctarank*64 + 64, k*64 : k*64 + 64] mbarrier full[g % 4] multicast 0x3
        }}
      }}
    }}
  }}
}} else {{
  setmaxnreg.inc 232
  repeat 3 as s {{
    mbarrier.arrive empty[s] per warpgroup cluster   # stages 0..2 start free in both CTAs
  }}
  repeat cdiv(N, 128) as tn across ctaid {{        # the CTA's columns and, in each,
    repeat cdiv(M, 512) as tp across ctaid_y {{  # the cluster's bands; this CTA's half of each
      init D0, 0
      init D1, 0
      warpgroup copy bias, BIAS[:, tn*128 : tn*128 + 128]   # bf16 -> f32; columns past N read 0
      repeat cdiv(K, 64) as k running g {{
        mbarrier.wait full[g % 4]
        wgmma.fence
        warpgroup mma D0, As[g % 4, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], Bs[g % 4, :, :]
        warpgroup mma D1, As[g % 4, 128 + (wgid - 1)*64 : 128 + (wgid - 1)*64 + 64, :], Bs[g % 4, :, :]
        wgmma.commit
        wgmma.wait 1                             # the previous trip's wgmma is done:
        mbarrier.arrive empty[(g + 3) % 4] per warpgroup cluster   # its stage is free, for both producers
      }}
      wgmma.wait 0
{body}
    }}
  }}
  bulk.wait 0                                  # C written before the CTA ends
}}
cluster.sync                                 # no CTA exits while its peer may still signal or write it
'''
NASSUME = "assume N % 8 == 0                # C's rows: a multiple of 16 bytes (the TMA store)"


def half(acc, rows, buf, c0):
    r = "tp*512 + cluster_ctarank*256" + (" + 128" if rows else "")
    return f'''      bulk.wait_read 1                         # the store two halves ago has read Cs[{buf}]
      bar.sync 1, 256                          # ... and every consumer thread knows it
      warpgroup copy Cs[{buf}, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], {acc}[:, {c0} : {c0 + 64}]   # cvt pairs, stmatrix.x4
      fence.proxy_async
      bar.sync 1, 256
      cta copy_async C[{r} : {r} + 128, tn*128 + {c0} : tn*128 + {c0 + 64}], Cs[{buf}, :, :]
      bulk.commit'''
def overlapped(text, name):
    """The kernel with D0's and D1's wgmmas committed as two groups a K trip
    (wgmma.wait 2 frees the previous trip's stage), so that after the K loop
    wgmma.wait 1 retires D0 alone: D0's epilogue (math and stores) runs while
    the tensor cores finish D1's last block; wgmma.wait 0 before D1's."""
    mma0 = "        warpgroup mma D0, As[g % 4, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], Bs[g % 4, :, :]\n"
    wait1 = "        wgmma.wait 1                             # the previous trip's wgmma is done:\n"
    d1 = "      set D1[i, j] = D1[i, j] + bias[0, j]\n"
    for piece in (mma0, wait1, d1, "      wgmma.wait 0\n"):
        assert text.count(piece) == 1, piece
    text = text.replace(mma0, mma0 + "        wgmma.commit                             # D0's block: a group of its own\n"
                        "        wgmma.fence\n")
    text = text.replace(wait1, "        wgmma.wait 2                             # the previous trip's two groups are done:\n")
    text = text.replace("      wgmma.wait 0\n", "      wgmma.wait 1                             # D0's last group is done; D1's runs on under D0's epilogue\n")
    text = text.replace(d1, "      wgmma.wait 0                             # D1's last group\n" + d1)
    text = text.replace(f"kernel gemm_sm90_walk_bf16_{name}\n", f"kernel gemm_sm90_walk_bf16_{name}_ov\n")
    return ("# bench/gemm_sm90_walk_bf16_bias_gelu.tile with D0's epilogue under D1's last\n"
            "# wgmma (issue 34): each K trip commits D0's and D1's wgmmas as two groups\n"
            "# (wgmma.wait 2 then frees the previous trip's stage), so after the K loop\n"
            "# wgmma.wait 1 retires D0 alone and D0's bias, GELU and stores run while the\n"
            "# tensor cores finish D1's last block; wgmma.wait 0 comes before D1's math.\n#\n" + text)
def replace_once(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


def halved(text, name):
    """The _ov kernel with GELU computed from h = x / 2: h = fma(0.5, D, bias / 2)
    (the bias row halved once a tile), u = h * fma(8 c1, h * h, 2 c0), y =
    fma(h, tanh(u), h). Scaling by 2 is exact, so every rounded step equals
    the plain form's (h * h = (x * x) / 4, 8 c1 and 2 c0 are the literals'
    f32 values times 8 and 2, u = x * fma(c1, x * x, c0)) and the results are
    bit for bit the same, barring f32 overflow and subnormals: one FP32
    instruction an element fewer (5 and one tanh.approx, against 6)."""
    text = replace_once(text, "   # bf16 -> f32; columns past N read 0\n",
                        "   # bf16 -> f32; columns past N read 0\n"
                        "      set bias[0, j] = 0.5 * bias[0, j]            # bias / 2, once a tile\n")
    for acc in ("D0", "D1"):
        x = acc + "[i, j]"
        text = replace_once(text, f"      set {x} = {x} + bias[0, j]\n",
                            f"      set {x} = fma(0.5, {x}, bias[0, j])      # h = (x + bias) / 2, rounded once\n")
        text = replace_once(text, f"      set {x} = fma(0.5 * {x}, tanh({x} * fma(0.0356774081, {x} * {x}, 0.7978845608)), 0.5 * {x})\n",
                            f"      set {x} = fma({x}, tanh({x} * fma(0.2854192648, {x} * {x}, 1.5957691216)), {x})\n")
    text = replace_once(text, f"kernel gemm_sm90_walk_bf16_{name}_ov\n", f"kernel gemm_sm90_walk_bf16_{name}_ovh\n")
    return ("# bench/gemm_sm90_walk_bf16_bias_gelu_ov.tile with GELU computed from h = (x + bias) / 2\n"
            "# (bench/gen_epilogues.py, halved(): the same bits, one FP32 instruction an\n"
            "# element fewer):\n#\n" + text)


def half_wg(acc, rows, wg):
    """both halves of acc's epilogue stores for consumer warpgroup wg (1, 2)
    alone: its own 64 rows of each staging buffer, its own named barrier
    (bar.sync wg, 128) and its own TMA store of a 64 x 64 box, issued by its
    first thread (which also waits for its own stores' reads)"""
    r = "tp*512 + cluster_ctarank*256" + (" + 128" if rows else "") + (" + 64" if wg == 2 else "")
    s0 = (wg - 1) * 64
    out = []
    for buf, c0 in ((0, 0), (1, 64)):
        out.append(f'''        bulk.wait_read 1                       # this warpgroup's store two halves ago has read its rows of Cs[{buf}]
        bar.sync {wg}, 128
        warpgroup copy Cs[{buf}, {s0} : {s0 + 64}, :], {acc}[:, {c0} : {c0 + 64}]   # cvt pairs, stmatrix.x4
        fence.proxy_async
        bar.sync {wg}, 128
        cta copy_async C[{r} : {r} + 64, tn*128 + {c0} : tn*128 + {c0 + 64}], Cs[{buf}, {s0} : {s0 + 64}, :]
        bulk.commit''')
    return "\n".join(out)


def per_warpgroup(text, name):
    """The _ovh kernel with each consumer warpgroup's stores decoupled from
    the other's (as bench/gemm_sm90_walk_fp8_wgbar.tile): a warpgroup stages
    its own 64 rows and stores them with its own 64 x 64 TMA box after its own
    named barrier, so neither waits for the other at the 8 bar.syncs a tile."""
    for n, acc in enumerate(("D0", "D1")):
        old = half(acc, n, 0, 0) + "\n" + half(acc, n, 1, 64) + "\n"
        new = ("      when wgid == 1 {                         # each warpgroup stores its own rows, on its own barrier\n"
               + half_wg(acc, n, 1) + "\n      } else {\n" + half_wg(acc, n, 2) + "\n      }\n")
        text = replace_once(text, old, new)
    text = replace_once(text, "  bulk.wait 0                                  # C written before the CTA ends\n",
                        "  when wgid == 1 {                             # C written before the CTA ends: each\n"
                        "    bulk.wait 0                                # warpgroup's first thread waits for its own stores\n"
                        "  } else {\n    bulk.wait 0\n  }\n")
    text = replace_once(text, f"kernel gemm_sm90_walk_bf16_{name}_ovh\n", f"kernel gemm_sm90_walk_bf16_{name}_ovh_wg\n")
    return ("# bench/gemm_sm90_walk_bf16_bias_gelu_ovh.tile with each consumer warpgroup's\n"
            "# stores on its own named barrier and its own 64 x 64 TMA boxes (bench/gen_epilogues.py,\n"
            "# per_warpgroup(); the same bits):\n#\n" + text)


LINEAR_WALK = "repeat cdiv(M, 512) * cdiv(N, 128) as t across ctaid_y tiles tp, tn group 4 {   # the cluster's tiles"


def linear(text, name, kind="_ovh"):
    """The _ovh kernel on a linear tile walk (as bench/gemm_sm90_linear_bf16_tmast_ov.tile):
    the cluster tiles t = ctaid_y / 2, + P / 2, ... in bands of 4 tile rows
    walked column by column (docs/language.md, "Linear tile walks"), grid
    1 x P, no Q. Each role's two nested walk loops become one; their bodies
    are unchanged."""
    lines = text.split("\n")
    outer = "repeat cdiv(N, 128) as tn across ctaid {"
    inner = "repeat cdiv(M, 512) as tp across ctaid_y {"
    while any(l.strip().startswith(outer) for l in lines):
        i = next(n for n, l in enumerate(lines) if l.strip().startswith(outer))
        assert lines[i + 1].strip().startswith(inner), lines[i + 1]
        depth, j = 0, i + 1
        while True:  # the inner loop's closing line
            depth += lines[j].count("{") - lines[j].count("}")
            if depth == 0:
                break
            j += 1
        assert lines[j + 1].strip() == "}", lines[j + 1]
        indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
        body = [l[2:] if l.startswith("  ") else l for l in lines[i + 2:j]]
        lines[i:j + 2] = [indent + LINEAR_WALK] + body + [indent + "}"]
    text = "\n".join(lines)
    for old, new in (("param  P u32                 # CTAs along y (even): each cluster walks the 512-row bands ctaid_y / 2, + P / 2, ...\n",
                      "param  P u32                 # CTAs along y (even): P / 2 clusters walk the tiles t = ctaid_y / 2, + P / 2, ...\n"),
                     ("param  Q u32                 # CTAs along x: each walks the 128-column strips ctaid, ctaid + Q, ...\n", ""),
                     ("assume Q >= 1\n", ""), ("assume Q <= 1024\n", ""),
                     ("grid   cdiv(Q, 1), cdiv(P, 1)", "grid   1, cdiv(P, 1)"),
                     ("# set: M=300 N=304 K=136 P=2 Q=2", "# set: M=300 N=304 K=136 P=4"),
                     (f"kernel gemm_sm90_walk_bf16_{name}{kind}\n", f"kernel gemm_sm90_linear_bf16_{name}{kind}\n")):
        text = replace_once(text, old, new)
    return (f"# bench/gemm_sm90_walk_bf16_bias_gelu{kind}.tile on a linear tile walk (bench/gen_epilogues.py,\n"
            "# linear(): the walk of bench/gemm_sm90_linear_bf16_tmast_ov.tile, grid 1 x P, P = 2 floor(SMs / 2);\n"
            "# the same bits):\n#\n" + text)


EW_BODY = """shared As bf16 [3, 256, 64] layout swizzle(3, 3, 3)
shared Bs bf16 [3, 128, 64] layout swizzle(3, 3, 3)
shared Cs bf16 [4, 128, 64] layout swizzle(3, 3, 3)   # a tile's h = (x + bias) / 2: D0's two column halves, D1's two
local  D0 f32 [64, 128] layout S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]   # the CTA's rows 64 (wgid - 1) ..
local  D1 f32 [64, 128] layout S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]   # and 128 + 64 (wgid - 1) ..
local  bias f32 [1, 128] layout S[(1, 16, 4, 2) : (1, 4, 1@laneid, 1)] + R[(4, 8) : (1@wid_in_wg, 4@laneid)]
local  X bf16 [4, 64] layout S[(4, 8, 8) : (8@laneid, 1@laneid, 1)]   # an epilogue warp's 4 rows of a box: 8 elements a lane
mbarrier full [3]
mbarrier empty [3]

repeat 3 as s {
  mbarrier.init full[s]
  mbarrier.init empty[s], 4                  # 2 consumer warpgroups in each of the 2 CTAs
}
cluster.sync                                 # every CTA's barriers exist before a peer signals them
when wgid == 0 {
  setmaxnreg.dec 40
  when warpid == 0 {
    repeat cdiv(N, 128) as tn across ctaid {        # the CTA's columns and, in each,
      repeat cdiv(M, 512) as tp across ctaid_y {  # the cluster's bands; this CTA's half of each
        repeat cdiv(K, 64) as k running g {
          mbarrier.wait empty[g % 3]
          mbarrier.expect_tx full[g % 3], 49152       # A's 32 KiB and both halves of B (16 KiB)
          cta copy_async As[g % 3, :, :], A[tp*512 + cluster_ctarank*256 : tp*512 + cluster_ctarank*256 + 256, k*64 : k*64 + 64] mbarrier full[g % 3]
          cta copy_async Bs[g % 3, cluster_ctarank*64 : cluster_ctarank*64 + 64, :], B[tn*128 + cluster_ctarank*64 : tn*128 + cluster_ctarank*64 + 64, k*64 : k*64 + 64] mbarrier full[g % 3] multicast 0x3
        }
      }
    }
  } else {
    when warpid <= 2 {                         # the epilogue warps: GELU on the staged tile, then its TMA stores
      repeat cdiv(N, 128) as tn across ctaid {
        repeat cdiv(M, 512) as tp across ctaid_y {
          bar.arrive 3, 320                    # Cs is free (the previous tile's stores have read it)
          bar.sync 2, 320                      # the consumers have staged this tile's h
          repeat 4 as b {
            repeat 16 as r {                   # this warp's 64 rows of box b, 4 at a time
              warp copy X, Cs[b, (warpid - 1)*64 + r*4 : (warpid - 1)*64 + r*4 + 4, :]
              set X[i, j] = fma(X[i, j], tanh(X[i, j] * fma(0.2854192648, X[i, j] * X[i, j], 1.5957691216)), X[i, j])
              warp copy Cs[b, (warpid - 1)*64 + r*4 : (warpid - 1)*64 + r*4 + 4, :], X
            }
          }
          fence.proxy_async
          bar.sync 4, 64
          cta copy_async C[tp*512 + cluster_ctarank*256 : tp*512 + cluster_ctarank*256 + 128, tn*128 : tn*128 + 64], Cs[0, :, :]
          cta copy_async C[tp*512 + cluster_ctarank*256 : tp*512 + cluster_ctarank*256 + 128, tn*128 + 64 : tn*128 + 128], Cs[1, :, :]
          cta copy_async C[tp*512 + cluster_ctarank*256 + 128 : tp*512 + cluster_ctarank*256 + 256, tn*128 : tn*128 + 64], Cs[2, :, :]
          cta copy_async C[tp*512 + cluster_ctarank*256 + 128 : tp*512 + cluster_ctarank*256 + 256, tn*128 + 64 : tn*128 + 128], Cs[3, :, :]
          bulk.commit
          bulk.wait_read 0                     # the stores have read Cs
          bar.sync 4, 64                       # ... and both epilogue warps know it
        }
      }
      bulk.wait 0                              # C written before the CTA ends
    }
  }
} else {
  setmaxnreg.inc 232
  repeat 2 as s {
    mbarrier.arrive empty[s] per warpgroup cluster   # stages 0..1 start free in both CTAs
  }
  repeat cdiv(N, 128) as tn across ctaid {        # the CTA's columns and, in each,
    repeat cdiv(M, 512) as tp across ctaid_y {  # the cluster's bands; this CTA's half of each
      init D0, 0
      init D1, 0
      warpgroup copy bias, BIAS[:, tn*128 : tn*128 + 128]   # bf16 -> f32; columns past N read 0
      set bias[0, j] = 0.5 * bias[0, j]            # bias / 2, once a tile
      repeat cdiv(K, 64) as k running g {
        mbarrier.wait full[g % 3]
        wgmma.fence
        warpgroup mma D0, As[g % 3, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], Bs[g % 3, :, :]
        wgmma.commit                             # D0's block: a group of its own
        wgmma.fence
        warpgroup mma D1, As[g % 3, 128 + (wgid - 1)*64 : 128 + (wgid - 1)*64 + 64, :], Bs[g % 3, :, :]
        wgmma.commit
        wgmma.wait 2                             # the previous trip's two groups are done:
        mbarrier.arrive empty[(g + 2) % 3] per warpgroup cluster   # its stage is free, for both producers
      }
      wgmma.wait 1                             # D0's last group is done; D1's runs on under D0's staging
      set D0[i, j] = fma(0.5, D0[i, j], bias[0, j])      # h = (x + bias) / 2, rounded once
      bar.sync 3, 320                          # the epilogue warps are done with the previous tile's Cs
      warpgroup copy Cs[0, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], D0[:, 0 : 64]   # cvt pairs, stmatrix.x4
      warpgroup copy Cs[1, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], D0[:, 64 : 128]
      wgmma.wait 0                             # D1's last group
      set D1[i, j] = fma(0.5, D1[i, j], bias[0, j])
      warpgroup copy Cs[2, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], D1[:, 0 : 64]
      warpgroup copy Cs[3, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], D1[:, 64 : 128]
      fence.proxy_async                        # (the epilogue warps overwrite every element; the proof asks for it all the same)
      bar.sync 2, 320                          # h staged: the epilogue warps take it
    }
  }
}
cluster.sync                                 # no CTA exits while its peer may still signal or write it
"""


def epilogue_warps(text, name):
    """The _ovh kernel with its GELU moved to the producer warpgroup's idle
    warps 1 and 2: after the K loop the consumers stage h = (x + bias) / 2
    as bf16 (h's rounding is the one numeric change: GELU of the rounded h,
    within gemm_bench's GELU tolerance) into a 4-box tile buffer and go on to
    the next tile's K loop; the epilogue warps compute fma(h, tanh(..), h)
    in place and store the tile by TMA while the next tile's wgmmas run.
    The tile buffer (64 KiB) leaves room for 3 stages of the ring, not 4."""
    head = text[text.index("target sm_90a"):text.index("shared As")]
    head = replace_once(head, f"kernel gemm_sm90_walk_bf16_{name}_ovh\n", f"kernel gemm_sm90_walk_bf16_{name}_ew\n")
    head = replace_once(head, "assume K % 8 == 0\n", "assume K % 8 == 0\n"
                        "assume K >= 8                    # a K block a tile: the producer stays within the ring of the epilogue warps\n")
    return ("# bench/gemm_sm90_walk_bf16_bias_gelu_ovh.tile with its GELU in epilogue warps (issue 34;\n"
            "# bench/gen_epilogues.py, epilogue_warps()). C = gelu_tanh(A * B^T + bias), bf16 in and\n"
            "# out. The consumer warpgroups stage h = (x + bias) / 2 in bf16 (D0's under D1's last\n"
            "# wgmma, as _ov) into Cs, a whole tile (4 boxes of 128 x 64), and go on to the next\n"
            "# tile's K loop; warps 1 and 2 of the producer warpgroup, idle until now, compute\n"
            "# y = fma(h, tanh(h * fma(8 c1, h * h, 2 c0)), h) on Cs in place, 4 rows at a time,\n"
            "# and store the tile with 4 TMA stores while the tensor cores run the next tile.\n"
            "# Hand-offs on named barriers: 3 (Cs free: the epilogue warps' arrival after their\n"
            "# stores have read it) and 2 (h staged), 320 threads each. GELU of the bf16-rounded h\n"
            "# differs from _ovh's by h's rounding (2^-9 relative; within gemm_bench's GELU\n"
            "# tolerance, 2 ulps + 2^-10 max |C|). Cs takes 64 KiB, so the ring has 3 stages.\n"
            "# K >= 8: with K = 0 the producer would walk free of the epilogue warps (the roles\n"
            "# proof finds no invariant).\n" + head + EW_BODY)


C_ROWS = "tp*512 + cluster_ctarank*256"
EWD1_EDITS = [  # (old, new) in _ew's body, each once
    ("shared Cs bf16 [4, 128, 64] layout swizzle(3, 3, 3)   # a tile's h = (x + bias) / 2: D0's two column halves, D1's two\n",
     "shared Cs bf16 [2, 128, 64] layout swizzle(3, 3, 3)   # D0's staging, double-buffered (as _ovh)\n"
     "shared Ce bf16 [2, 128, 64] layout swizzle(3, 3, 3)   # D1's h = (x + bias) / 2, its two column halves, for the epilogue warps\n"),
    ("          repeat 4 as b {\n", "          repeat 2 as b {\n"),
    ("warp copy X, Cs[b, (warpid", "warp copy X, Ce[b, (warpid"),
    ("warp copy Cs[b, (warpid", "warp copy Ce[b, (warpid"),
    (f"          cta copy_async C[{C_ROWS} : {C_ROWS} + 128, tn*128 : tn*128 + 64], Cs[0, :, :]\n"
     f"          cta copy_async C[{C_ROWS} : {C_ROWS} + 128, tn*128 + 64 : tn*128 + 128], Cs[1, :, :]\n"
     f"          cta copy_async C[{C_ROWS} + 128 : {C_ROWS} + 256, tn*128 : tn*128 + 64], Cs[2, :, :]\n"
     f"          cta copy_async C[{C_ROWS} + 128 : {C_ROWS} + 256, tn*128 + 64 : tn*128 + 128], Cs[3, :, :]\n",
     f"          cta copy_async C[{C_ROWS} + 128 : {C_ROWS} + 256, tn*128 : tn*128 + 64], Ce[0, :, :]\n"
     f"          cta copy_async C[{C_ROWS} + 128 : {C_ROWS} + 256, tn*128 + 64 : tn*128 + 128], Ce[1, :, :]\n"),
    ("# the stores have read Cs", "# the stores have read Ce"),
    ("# Cs is free (the previous tile", "# Ce is free (the previous tile"),
    ("# the consumers have staged this tile's h", "# the consumers have staged D1's h"),
    ("    }\n  }\n}\ncluster.sync", "    }\n  }\n  bulk.wait 0                                  # D0's C written before the CTA ends\n}\ncluster.sync"),
]
EWD1_D1 = """      wgmma.wait 0                             # D1's last group
      set D1[i, j] = fma(0.5, D1[i, j], bias[0, j])      # h = (x + bias) / 2
      bar.sync 3, 320                          # the epilogue warps are done with the previous tile's Ce
      warpgroup copy Ce[0, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], D1[:, 0 : 64]
      warpgroup copy Ce[1, (wgid - 1)*64 : (wgid - 1)*64 + 64, :], D1[:, 64 : 128]
      fence.proxy_async                        # (the epilogue warps overwrite every element; the proof asks for it all the same)
"""


def epilogue_warps_d1(ew, ovh, name):
    """_ew with only D1's half of the tile handed to the epilogue warps: the
    consumers compute and store D0's GELU under D1's last wgmma as _ovh does
    (its staging Cs, double-buffered), then stage D1's h in Ce (2 boxes) for
    warps 1 and 2; the last tile of a CTA then leaves half the epilogue
    warps' work exposed at its end, not all of it."""
    body = ew[ew.index("shared As"):]
    for old, new in EWD1_EDITS:
        body = replace_once(body, old, new)
    mark = "      wgmma.wait 1                             # D0"
    end = "      bar.sync 2, 320                          # h staged"
    d0 = ovh[ovh.index(mark):ovh.index("      wgmma.wait 0                             # D1")]
    body = body[:body.index(mark)] + d0 + EWD1_D1 + body[body.index(end):]
    head = ew[ew.index("target sm_90a"):ew.index("shared As")]
    head = replace_once(head, f"kernel gemm_sm90_walk_bf16_{name}_ew\n", f"kernel gemm_sm90_walk_bf16_{name}_ewd1\n")
    return ("# bench/gemm_sm90_walk_bf16_bias_gelu_ew.tile with only D1's half of the tile in the epilogue\n"
            "# warps (bench/gen_epilogues.py, epilogue_warps_d1()): D0's GELU and stores stay with the\n"
            "# consumers under D1's last wgmma (as _ovh, through Cs); D1's h goes to Ce for warps 1 and 2,\n"
            "# which compute its GELU and store it while the next tile's K loop runs. A CTA's last tile\n"
            "# then waits for half the epilogue warps' work, not all of it. 3 stages (Cs and Ce: 64 KiB).\n#\n"
            + head + body)

def three_stages(text, name):
    """_ovh on a ring of 3 stages (what the _ew kernels' 64 KiB of staging
    leaves): a diagnostic twin, the cost of the shorter ring alone."""
    for old, new in (("shared As bf16 [4,", "shared As bf16 [3,"), ("shared Bs bf16 [4,", "shared Bs bf16 [3,"),
                     ("mbarrier full [4]", "mbarrier full [3]"), ("mbarrier empty [4]", "mbarrier empty [3]"),
                     ("repeat 4 as s {", "repeat 3 as s {"),
                     ("  repeat 3 as s {\n    mbarrier.arrive empty[s] per warpgroup cluster   # stages 0..2 start free",
                      "  repeat 2 as s {\n    mbarrier.arrive empty[s] per warpgroup cluster   # stages 0..1 start free"),
                     ("mbarrier.arrive empty[(g + 3) % 4]", "mbarrier.arrive empty[(g + 2) % 3]"),
                     (f"kernel gemm_sm90_walk_bf16_{name}_ovh\n", f"kernel gemm_sm90_walk_bf16_{name}_ovh_s3\n")):
        text = replace_once(text, old, new)
    text = text.replace("g % 4", "g % 3")
    return ("# bench/gemm_sm90_walk_bf16_bias_gelu_ovh.tile on a ring of 3 stages (bench/gen_epilogues.py,\n"
            "# three_stages(): the _ew kernels' ring, without their epilogue warps; the same bits):\n#\n" + text)


for name, (lt, act, actdoc) in ACTS.items():
    body = []
    for n, acc in enumerate(("D0", "D1")):
        x = f"{acc}[i, j] + bias[0, j]"
        if name == "tmast":
            pass
        elif act is None:
            body.append(f"      set {acc}[i, j] = {x}")
        else:
            body.append(f"      set {acc}[i, j] = {acc}[i, j] + bias[0, j]")
            body.append(f"      set {acc}[i, j] = " + act.format(x=f"{acc}[i, j]"))
        body.append(half(acc, n, 0, 0))
        body.append(half(acc, n, 1, 64))
    formula = {"tmast": "A * B^T", "bias": "A * B^T + bias", "bias_relu": "relu(A * B^T + bias)",
               "bias_gelu": "gelu_tanh(A * B^T + bias)", "bias_silu": "silu(A * B^T + bias)"}[name]
    text = HEAD.format(formula=formula, lt=lt, act=actdoc, body="\n".join(body),
                       walk=walk_header("gemm_sm90_walk_bf16_" + name, NASSUME))
    if name == "tmast":  # the first lines say what it is
        text = text.replace("""# C = A * B^T, bf16 in and out, f32 accumulate and f32 epilogue math.
# (bench variant: bench/gemm_sm90_walk_bf16_512x128.tile with a fused epilogue, issue 34;
# the plain twin of the fused kernels below: compare its time with theirs.)""", """# C = A * B^T, bf16 in and out, f32 accumulate (bench variant:
# bench/gemm_sm90_walk_bf16_512x128.tile with the output path of the fused
# epilogue kernels bench/gemm_sm90_walk_bf16_bias*.tile and no epilogue math:
# their plain twin, timed beside them; written by bench/gen_epilogues.py).""")
    if name == "tmast":  # no bias: its param, register vector, load and comment lines go
        drop = ("param  BIAS", "local  bias", "warpgroup copy bias", "# the bias row", "# pairs, 4 lanes)",
                "# Each 128-column strip", "# accumulators' columns", "# adds it to", "# colocation of bias")
        text = "\n".join(l for l in text.split("\n") if not l.strip().startswith(drop)) + "\n"
    with open(f"bench/gemm_sm90_walk_bf16_{name}.tile", "w") as f:
        f.write(text)
    if name == "bias_gelu":  # and its twin with D0's epilogue under D1's last wgmma
        ov = overlapped(text, name)
        with open(f"bench/gemm_sm90_walk_bf16_{name}_ov.tile", "w") as f:
            f.write(ov)
        ovh = halved(ov, name)  # the same bits, one instruction an element fewer
        with open(f"bench/gemm_sm90_walk_bf16_{name}_ovh.tile", "w") as f:
            f.write(ovh)
        with open(f"bench/gemm_sm90_walk_bf16_{name}_ovh_wg.tile", "w") as f:
            f.write(per_warpgroup(ovh, name))
        with open(f"bench/gemm_sm90_linear_bf16_{name}_ovh.tile", "w") as f:
            f.write(linear(ovh, name))
        with open(f"bench/gemm_sm90_linear_bf16_{name}_ovh_wg.tile", "w") as f:
            f.write(linear(per_warpgroup(ovh, name), name, "_ovh_wg"))
        with open(f"bench/gemm_sm90_walk_bf16_{name}_ew.tile", "w") as f:
            f.write(epilogue_warps(ovh, name))
        with open(f"bench/gemm_sm90_walk_bf16_{name}_ewd1.tile", "w") as f:
            f.write(epilogue_warps_d1(epilogue_warps(ovh, name), ovh, name))
        with open(f"bench/gemm_sm90_walk_bf16_{name}_ovh_s3.tile", "w") as f:
            f.write(three_stages(ovh, name))
