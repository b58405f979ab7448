#!/usr/bin/env python3
"""Writes the attention forward kernels (issue 36): examples/attention_fwd_sm90.tile
(head dim 128, bf16, full and causal: the showcase), bench/attention_fwd_sm90.tile
(every other variant: head dim 64, 128, 256, full and causal, bf16 and f16;
the GPU harness reads both files) and tests/gpu/attention_*_small.tile (each other
variant alone, at the sizes ptxemu runs).

One generator so that the benchmarked kernels and the tested ones are the same
program. Each kernel: a producer warp loads Q once and K, V through a ring of
STAGES stages by TMA; two consumer warpgroups of 64 query rows each run the
online softmax over the K blocks of BLOCK_N keys. Tensors are [S, BH * D]
(heads side by side in a row: BSHD with the batch folded into the heads), so
a head is a column slice and its ragged last rows end at S exactly.
Run from the repository root: python3 bench/gen_attention.py
"""
import re
import sys

# Q, K, V, O as [BH, S, D] (rank 3, runtime extents); --flat: [S, BH * D]
RANK3 = "--flat" not in sys.argv
# causal kernels run only the K blocks at or below the diagonal (a loop count from ctaid)
TILE_COUNTS = "--every-block" not in sys.argv
# the ping-pong's barrier ids from wgid (bar.sync wgid, 256) rather than a when block per warpgroup
WGID_BARS = "--when-bars" not in sys.argv
# the intra-warpgroup overlap kernels (_ov): loops that share one running count
SIBLINGS = "--no-siblings" not in sys.argv

LOG2E = "1.44269504"
LN2 = "0.693147181"
SCALE_L2 = "(scale * %s)" % LOG2E

# head dim: (consumer warpgroups (BLOCK_M = 64 each), BLOCK_N, STAGES), the default kernels'
SHAPES = {64: (2, 128, 2), 128: (2, 128, 2), 256: (2, 64, 2)}
# further shapes the GPU harness times beside them (suffix _m<BLOCK_M>_n<BLOCK_N>): FA3's
# choices (hd64: 3 warpgroups, hd128: 176 keys, hd256: 80 keys) and a deeper ring
TUNED = [(64, (3, 128, 2)), (64, (2, 192, 2)), (128, (2, 176, 2)), (128, (2, 192, 2)), (128, (2, 128, 3)),
         (256, (2, 80, 2))]
# the ping-pong schedule (suffix _pp; two consumer warpgroups) at each head dim's default shape and
# at the shapes that measured fastest (bench/results/gpu-2026-11-28-attention-first-h200.log)
PINGPONG = [(64, None), (128, None), (256, None), (64, (2, 192, 2)), (128, (2, 176, 2)), (256, (2, 80, 2)),
            (64, (2, 128, 3)), (128, (2, 128, 3))]
# (the ping-pong releases trip j - 1's stage during trip j, so with 2 stages the next block's load
# has only the softmax of one trip to land in: _s3 gives it a trip more)


def acc_layout(n):
    """the m64nN wgmma accumulator fragment, registers in fragment order"""
    return "S[(4, 2, 8, %d, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]" % (n // 8)


def rs_layout(k):
    """the RS A operand of K columns (16-bit): k-steps of 16, each two 8-column halves"""
    return "S[(4, 2, 8, %d, 2, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 8, 4, 1@laneid, 1)]" % (k // 16)


def tile_layout(rows, d, stages=0):
    """a [rows, d] tile as d / 64 column atoms of 64 (128 bytes: the 128-byte
    swizzle's row, one TMA box each), stacked; with stages, a ring of them"""
    a = d // 64
    if a == 1 and not stages:
        return "swizzle(3, 3, 3)"
    if a == 1:
        return "S[(%d, %d, 64) : (%d, 64, 1)] swizzle(3, 3, 3)" % (stages, rows, rows * 64)
    if not stages:
        return "S[(%d, %d, 64) : (64, %d, 1)] swizzle(3, 3, 3)" % (rows, a, rows * 64)
    return "S[(%d, %d, %d, 64) : (%d, 64, %d, 1)] swizzle(3, 3, 3)" % (stages, rows, a, rows * d, rows * 64)


# the default kernel of each (head dim, causal): the structure that measured fastest on the H200
# (docs/benchmarks.md, "Session 12"): (shape, pp, ov, tm). Its name has no suffix (the harness's
# contract: attention_fwd_hd<D>[_causal][_f16]); every other structure names its shape and parts.
DEFAULT = {(64, False): ((3, 128, 2), False, False, False), (64, True): ((2, 128, 2), False, False, True),
           (128, False): ((2, 176, 2), True, True, False), (128, True): ((2, 128, 2), True, True, True),
           (256, False): ((2, 80, 2), True, True, False), (256, True): ((2, 80, 2), True, True, False)}


# each cell's default kernel (attention_fwd_hd<D>[_causal][_f16]) is the program of its winner in
# session 14's one-run table on the H200 (docs/benchmarks.md, "Session 14: every cell from one run"),
# kernel()'s arguments after `small` (shape, pp, ov, tm, tmast, gqa, ps, order), under the plain name;
# hd64 causal: session 15's first call's winner at 2k and 4k (_causal_pp_ov_tm_sq_rev_chain_ftz: 358 and
# 393 TFLOPS against 336 and 381 for BLOCK_M 192; at 16k 450 against 471, still above cuDNN's 445).
# The suffixes of every other kernel stay relative to DEFAULT above (session 13's structures), so a
# candidate's name means what it meant when it was timed.
WINNER = {(64, False): ((3, 128, 2), False, True, False, False, False, True, "chain_ftz"),
          (64, True): ((2, 128, 2), True, True, True, "q", False, False, "rev_chain_ftz"),
          (128, False): ((2, 192, 2), True, True, False, "q", False, False, "chain_ftz"),
          (128, True): (None, False, False, False, "q", False, False, "rev_chain_ftz"),
          (256, False): (None, False, False, False, "q", False, False, "chain_ftz"),
          (256, True): (None, False, False, False, "q", False, False, "rev_chain_ftz")}


def winner_structure(d, causal):
    """(shape, pp, ov, tm) of the default kernel's program"""
    sh, pp, ov, tm = WINNER[(d, causal)][:4]
    return structure(d, causal, sh, pp, ov, tm)


def structure(d, causal, shape=None, pp=False, ov=False, tm=False):
    """the default structure when shape is None and no part is asked for"""
    if shape is None and not (pp or ov or tm):
        return DEFAULT[(d, causal)]
    return (shape or SHAPES[d], pp, ov, tm)


def shape_suffix(d, shape, plain_clash=False):
    """_m<BLOCK_M>_n<BLOCK_N>[_s<STAGES>]; none for the base shape unless the name would be the default's"""
    if shape is None or (shape == SHAPES[d] and not plain_clash):
        return ""
    nw, bn, st = shape
    return "_m%d_n%d%s" % (64 * nw, bn, "_s%d" % st if st != 2 else "")


def name(d, causal, dt, shape=None, pp=False, ov=False, tm=False, st=False, gqa=False):
    sh, pp, ov, tm = (shape or SHAPES[d], pp, ov, tm) if gqa else structure(d, causal, shape, pp, ov, tm)
    default = not gqa and (sh, pp, ov, tm) == DEFAULT[(d, causal)]
    parts = "" if default else "%s%s%s%s" % (shape_suffix(d, sh, not (gqa or pp or ov or tm)), "_pp" if pp else "",
                                            "_ov" if ov else "", "_tm" if tm else "")
    return "attention_fwd_hd%d%s%s%s%s%s" % (d, "_causal" if causal else "", "_f16" if dt == "f16" else "", parts,
                                         ("_sq" if st == "q" else "_st") if st else "", "_gqa2" if gqa else "")


def consumer_overlap(w, st, bm, bn, causal, pp, tm=False):
    """FA3's intra-warpgroup overlap: block 0 peeled, then per block S of this
    block and P V of the previous one in flight together, the softmax of this
    block running while P V still does (wgmma.wait 1), then a last P V; the
    three loops share the running count g, so the stage goes on from one to
    the next. K and V have rings of their own (fullk/emptyk, fullv/emptyv,
    as FA3's pipeline_k and pipeline_v): a block's K is read by the S of one
    trip and its V by the P V of the next, so on one ring a stage would be
    held two trips and 2 stages would leave the producer no block ahead; K
    is released as soon as its S is done (wgmma.wait 1). pp: each
    warpgroup's S and P V issue is its turn at the tensor cores (named
    barriers 1 and 2), so one's softmax runs under the other's GEMMs.
    tm (causal, BLOCK_M = BLOCK_N): the diagonal block first (the peeled
    one, masked by the row only: FA3 also walks the masked blocks first),
    then blocks 0 .. ctaid - 1 unmasked (the order of the blocks is the
    online softmax's to choose)"""
    n = kv_count(bm, bn, causal)
    prev = "(g + %d) %% %d" % (st - 1, st)

    def turn_begins():
        if pp:
            when_wg(w, "    ", "bar.sync 1, 256", "bar.sync 2, 256")

    def turn_ends():
        if pp:
            when_wg(w, "    ", "bar.arrive 2, 256", "bar.arrive 1, 256")
    if pp:
        w("  when wgid == 2 {")
        w("    bar.arrive 1, 256                        # warpgroup 1 takes the first turn")
        w("  }")
    qk = "warpgroup mma Sc, Qs[(wgid - 1)*64 : (wgid - 1)*64 + 64, :], Ks[g %% %d, :, :] scale_d 0   # S = Q K^T" % st
    pv = "warpgroup mma Oc, P, Vs[%s, :, :] b_kn   # O += P V of the previous block" % prev
    w("  repeat 1 as p running g {                # %s" % ("the diagonal block" if tm else "block 0"))
    w("    mbarrier.wait fullk[g %% %d]" % st)
    turn_begins()
    w("    wgmma.fence")
    w("    " + qk)
    w("    wgmma.commit")
    turn_ends()
    w("    wgmma.wait 0")
    w("    mbarrier.arrive emptyk[g %% %d] per warpgroup   # K is read" % st)
    softmax(w, "    ", "j0", causal, bm, bn, "row" if tm else None)
    w("    warpgroup copy P, Sc")
    w("  }")
    if tm:
        w("  repeat ctaid as k running g {            # blocks 0 .. ctaid - 1, below the diagonal")
    else:
        w("  repeat %s - 1 as k running g {           # blocks 1 .. n-1: block k + 1" % n)
    w("    mbarrier.wait fullk[g %% %d]" % st)
    turn_begins()
    w("    wgmma.fence")
    w("    " + qk)
    w("    wgmma.commit")
    w("    set Oc[i, c] = Oc[i, c] * C[i, 0]        # O rescaled for the previous block, while S runs")
    w("    mbarrier.wait fullv[%s]                # V of the previous block (loaded a trip ago)" % prev)
    w("    wgmma.fence")
    w("    " + pv)
    w("    wgmma.commit")
    turn_ends()
    w("    wgmma.wait 1                             # S; P V still runs")
    w("    mbarrier.arrive emptyk[g %% %d] per warpgroup   # this block's K is read" % st)
    softmax(w, "    ", "k+1", causal, bm, bn, "none" if tm else None)
    w("    wgmma.wait 0")
    w("    mbarrier.arrive emptyv[%s] per warpgroup   # the previous block's V is read" % prev)
    w("    warpgroup copy P, Sc")
    w("  }")
    w("  repeat 1 as p running g {                # the last block's P V")
    w("    mbarrier.wait fullv[%s]" % prev)
    w("    set Oc[i, c] = Oc[i, c] * C[i, 0]")
    w("    wgmma.fence")
    w("    " + pv)
    w("    wgmma.commit")
    w("    wgmma.wait 0")
    w("    mbarrier.arrive emptyv[%s] per warpgroup" % prev)
    w("  }")
    if pp:
        w("  when wgid == 1 {")
        w("    bar.sync 1, 256                          # warpgroup 2's last turn ended")
        w("  }")


def kv_count(bm, bn, causal):
    """the K blocks of Q row tile ctaid"""
    if causal and TILE_COUNTS:  # keys up to the tile's last row
        return "min(cdiv(%d*ctaid + %d, %d), cdiv(S, %d))" % (bm, bm, bn, bn)
    return "cdiv(S, %d)" % bn


def when_wg(w, ind, first, other):
    """a statement that names a barrier per warpgroup: warpgroup 1's, else warpgroup 2's"""
    if WGID_BARS:
        w("%s%s" % (ind, first.replace(" 1, 256", " wgid, 256").replace(" 2, 256", " 3 - wgid, 256")))
        return
    w("%swhen wgid == 1 {" % ind)
    w("%s  %s" % (ind, first))
    w("%s} else {" % ind)
    w("%s  %s" % (ind, other))
    w("%s}" % ind)


def softmax(w, ind, blk, causal, bm, bn, mask=None, gqa=False):
    """the online softmax of block `blk` (an index expression) on Sc: the
    mask, the new row max MB, the rescale C, P unnormalized, l. mask: None
    masks keys past S (and, causal, past the row); "row" only past the row
    (a causal tile's diagonal blocks: keys there are past S only for rows
    past S); "none" masks nothing (blocks wholly below the diagonal)"""
    key = {"j": "c + %d*j" % bn, "j0": "c", "k+1": "c + %d*k + %d" % (bn, bn),
           "t": "c + %d*t" % bn}[blk]
    row = "i + 64*ctaid" if gqa else "i + %d*ctaid + 64*(wgid - 1)" % bm  # gqa: a head per warpgroup
    if mask == "row":  # key c + bn*t + bm*ctaid against the row: ctaid cancels
        w("%sset Sc[i, c] = select(%s <= i + 64*(wgid - 1), Sc[i, c], -inf)   # keys past the row"
          % (ind, key))
    elif mask == "none":
        pass
    elif causal:
        w("%sset Sc[i, c] = select(%s < S && %s <= %s, Sc[i, c], -inf)   # keys past S or the row"
          % (ind, key, key, row))
    else:
        w("%sset Sc[i, c] = select(%s < S, Sc[i, c], -inf)   # keys past S" % (ind, key))
    w("%sreduce.max MB, Sc                        # the block's row max: registers, then the quad" % ind)
    w("%sset MB[i, 0] = max(MB[i, 0], M[i, 0])" % ind)
    w("%sset C[i, 0] = exp2((M[i, 0] - MB[i, 0]) * %s)   # rescales the old O and l" % (ind, SCALE_L2))
    w("%sset Sc[i, c] = exp2(fma(Sc[i, c], %s, -(MB[i, 0] * %s)))   # P, unnormalized" % (ind, SCALE_L2, SCALE_L2))
    w("%sreduce.sum LB, Sc" % ind)
    w("%sset L[i, 0] = fma(L[i, 0], C[i, 0], LB[i, 0])" % ind)
    w("%sset M[i, 0] = MB[i, 0]" % ind)


def segments(bm, bn, causal, tm):
    """the consumer's K blocks as loops on one running count: (count, index,
    rows of K and V, mask). tm (causal, BLOCK_N dividing BLOCK_M): the blocks
    wholly below the tile's diagonal unmasked, then the BLOCK_M / BLOCK_N
    diagonal blocks masked by the row only (past S they hold keys only rows
    past S could see, so TMA's zero fill is enough there)"""
    if not tm:
        return [(kv_count(bm, bn, causal), "j", "j*%d : j*%d + %d" % (bn, bn, bn), None)]
    r = bm // bn
    return [("%d*ctaid" % r if r > 1 else "ctaid", "j", "j*%d : j*%d + %d" % (bn, bn, bn), "none"),
            ("%d" % r, "t", "ctaid*%d + t*%d : ctaid*%d + t*%d + %d" % (bm, bn, bm, bn, bn), "row")]


def consumer_block(w, st, bn, bm, causal, pp, count, ix, mask, running, gqa=False):
    """one loop of K blocks of the plain (and pp) consumer: S, the softmax,
    O += P V; the stage is the loop index, or with several loops their
    running count g"""
    c = "g" if running else ix
    w("  repeat %s as %s%s {" % (count, ix, " running g" if running else ""))
    w("    mbarrier.wait full[%s %% %d]" % (c, st))
    w("    wgmma.fence")
    w("    warpgroup mma Sc, Qs[(wgid - 1)*64 : (wgid - 1)*64 + 64, :], Ks[%s %% %d, :, :] scale_d 0   # S = Q K^T"
      % (c, st))
    w("    wgmma.commit")
    if pp:  # this warpgroup's turn ends with its S: the other's begins
        when_wg(w, "    ", "bar.arrive 2, 256", "bar.arrive 1, 256")
        w("    wgmma.wait 0                             # S, and the previous trip's P V")
        w("    mbarrier.arrive empty[(%s + %d) %% %d] per warpgroup   # the previous trip's K and V are read"
          % (c, st - 1, st))
    else:
        w("    wgmma.wait 0")
    softmax(w, "    ", ix, causal, bm, bn, mask, gqa)
    w("    set Oc[i, c] = Oc[i, c] * C[i, 0]")
    w("    warpgroup copy P, Sc                     # regmove: one cvt per word, in each thread")
    if pp:  # this warpgroup's turn at the tensor cores
        when_wg(w, "    ", "bar.sync 1, 256", "bar.sync 2, 256")
    w("    wgmma.fence                              # after the writes of P and O")
    w("    warpgroup mma Oc, P, Vs[%s %% %d, :, :] b_kn   # O += P V (RS; V is [keys, D], D contiguous)" % (c, st))
    w("    wgmma.commit")
    if not pp:
        w("    wgmma.wait 0")
        w("    mbarrier.arrive empty[%s %% %d] per warpgroup   # K and V of this stage are read" % (c, st))
    w("  }")


def kernel(d, causal, dt, small, shape=None, pp=False, ov=False, tm=False, tmast=False, gqa=False, ps=False,
           order=""):
    L = kernel_tiles(d, causal, dt, small, shape, pp, ov, tm, tmast, gqa)
    if ps:
        nw = (shape or SHAPES[d])[0]
        L = persistent(L, nw, 64 * nw)
        L[0] += "_ps"
    if not order and L[0] == "kernel " + name(d, causal, dt) and not (tmast or gqa or ps):
        W = kernel(d, causal, dt, small, *WINNER[(d, causal)])  # the cell's winner, under the plain name
        return ["kernel " + name(d, causal, dt)] + W[1:]
    return reordered(L, order) if order else L


# the launch orders and reduce spellings (suffixes): _rev: the row tiles walked last first (grid
# cdiv(S, BM) reversed: a causal kernel's longest tiles start first and its shortest fill the tail,
# FA3's longest-first order); _hm: head-major, the heads along x and the row tiles along y reversed
# (every head's longest tile before any head's shorter ones); _chain: reduce.max in register order (a
# keyword in the candidates' call, every reduce.max's order since: the name stays, the program is the base's);
# _ftz: the softmax's exp2 as exp2_ftz (ex2.approx.ftz: one MUFU.EX2; without .ftz ptxas scales around
# it to keep subnormal results, three more instructions an element; only p < 2^-126 changes, to 0)
ORDERS = ("rev", "hm", "chain_ftz", "rev_chain_ftz")


def reordered(L, order, suffix=True):
    """kernel L (lines) in launch order / reduce spelling `order` (ORDERS), its name suffixed _ORDER"""
    out = []
    for l in L:
        if l.startswith("grid ") and "rev" in order:
            l = re.sub(r"^grid   (cdiv\(S, \d+\))", r"grid   \1 reversed", l)
        elif l.startswith("grid ") and "hm" in order:
            l = re.sub(r"^grid   (cdiv\(S, \d+\)), BH$", r"grid   BH, \1 reversed", l)
        elif "hm" in order:  # the row tile is ctaid_y, the head ctaid
            l = re.sub(r"\bctaid\b", "ctaid_y", l.replace("ctaid_y", "\0")).replace("\0", "ctaid")
        if "ftz" in order and l.lstrip().startswith(("set Sc[i, c] = exp2(", "set C[i, 0] = exp2(")):
            l = l.replace("= exp2(", "= exp2_ftz(", 1)  # the softmax's exponentials: one MUFU, no subnormal fix-up
        out.append(l)
    assert out != L, order
    out[0] += "_" + order if suffix else ""
    return out


def kernel_tiles(d, causal, dt, small, shape=None, pp=False, ov=False, tm=False, tmast=False, gqa=False):
    """pp: the two consumer warpgroups take turns at the tensor cores (FA3's
    ping-pong on named barriers 1 and 2): each issues its P V of block j and
    its S of block j + 1 back to back while the other runs its softmax, and
    the P V stays in flight across the loop's back edge. gqa: grouped-query
    attention with G = 2 query heads per K/V head, packed as FA3's PackGQA:
    the CTA's consumer warpgroups take the same 64 rows of the group's two
    query heads (Q, O as [BH, 2, S, D], LSE [BH, 2, S]; BH counts K/V heads),
    so each K and V block loaded serves both"""
    if not gqa:
        shape, pp, ov, tm = structure(d, causal, shape, pp, ov, tm)
    nw, bn, st = shape or SHAPES[d]
    bm = 64 if gqa else 64 * nw  # the query rows of one head a CTA takes
    a = d // 64
    rowq = "ctaid*%d : ctaid*%d + %d" % (bm, bm, bm)
    fill = " fill small" if small else ""
    L = []
    w = L.append
    w("kernel %s" % name(d, causal, dt, shape, pp, ov, tm, tmast, gqa))
    w("threads %d" % (128 * (nw + 1)))
    w("param  BH u32")
    w("param  S u32")
    w("param  scale f32")
    if not RANK3:
        w("param  W u32                 # BH * %d: the row length of Q, K, V and O" % d)
        w("assume W %% %d == 0" % d)
    w("assume S >= 1")
    w("assume S <= 65536")
    w("assume BH <= 1024")
    w("grid   cdiv(S, %d), %s" % (bm, "BH" if RANK3 else "cdiv(BH, 1)"))
    grouped = "[BH, %d, S, %d]" % (nw, d)
    for t in "QKV":
        w("param  %s %s %s%s tma" % (t, dt, grouped if gqa and t == "Q" else tensor(d), fill))
    w("param  O %s %s%s" % (dt, grouped if gqa else tensor(d), " tma" if tmast else ""))
    w("param  LSE f32 %s" % ("[BH, %d, S]" % nw if gqa else "[BH, S]"))
    # _sq at head dims 128, 256: each warpgroup's 64 rows of Q one contiguous span (as _st's Os), so the
    # O one warpgroup stages there is provably apart from the other's S = Q K^T (loaded 64 rows a box)
    q_per_wg = tmast == "q" and a > 1
    qlay = "S[(%d, 64, %d, 64) : (%d, 64, 4096, 1)] swizzle(3, 3, 3)" % (nw, a, 64 * d) if q_per_wg else \
        tile_layout(64 * nw, d)
    w("shared Qs %s [%d, %d] layout %s" % (dt, 64 * nw, d, qlay))
    w("shared Ks %s [%d, %d, %d] layout %s" % (dt, st, bn, d, tile_layout(bn, d, st)))
    w("shared Vs %s [%d, %d, %d] layout %s" % (dt, st, bn, d, tile_layout(bn, d, st)))
    if tmast and tmast != "q":  # each warpgroup's 64 rows one contiguous span (its 64-column atoms side by side)
        w("shared Os %s [%d, %d] layout %s   # O's staging for the TMA stores"
          % (dt, bm, d, "S[(%d, 64, %d, 64) : (%d, 64, 4096, 1)] swizzle(3, 3, 3)" % (nw, d // 64, 64 * d)))
    w("local  Sc f32 [64, %d] layout %s" % (bn, acc_layout(bn)))
    w("local  Oc f32 [64, %d] layout %s" % (d, acc_layout(d)))
    w("local  P %s [64, %d] layout %s" % (dt, bn, rs_layout(bn)))
    for v in ("M", "L", "MB", "LB", "C"):
        w("local  %-2s f32 [64, 1] layout S[(4, 2, 8) : (1@wid_in_wg, 1, 4@laneid)] + R[4 : 1@laneid]" % v)
    rings = ("k", "v") if ov else ("",)  # _ov: K and V on rings of their own
    w("mbarrier qfull [1]")
    for r in rings:
        w("mbarrier full%s [%d]" % (r, st))
        w("mbarrier empty%s [%d]" % (r, st))
    w("")
    w("mbarrier.init qfull[0]")
    w("repeat %d as s {" % st)
    for r in rings:
        w("  mbarrier.init full%s[s]" % r)
        w("  mbarrier.init empty%s[s], %d                  # one arrival per consumer warpgroup" % (r, nw))
    w("}")
    w("when wgid == 0 {                             # the producer warpgroup: warp 0 issues the TMA loads")
    w("  setmaxnreg.dec 24")
    w("  when warpid == 0 {")
    w("    mbarrier.expect_tx qfull[0]")
    for i in range(a):
        cs = "%d:%d" % (i * 64, i * 64 + 64) if a > 1 else ":"
        for h in range(nw) if gqa else ():  # query head h of the group: warpgroup h + 1's rows
            w("    cta copy_async Qs[%d:%d, %s], Q[ctaid_y, %d, %s, %d : %d] mbarrier qfull[0]"
              % (64 * h, 64 * h + 64, cs, h, rowq, i * 64, i * 64 + 64))
        for h in range(nw) if q_per_wg else ():  # warpgroup h + 1's rows, a box each
            rh = "ctaid*%d + %d : ctaid*%d + %d" % (bm, 64 * h, bm, 64 * h + 64)
            w("    cta copy_async Qs[%d:%d, %s], %s mbarrier qfull[0]" % (64 * h, 64 * h + 64, cs, head("Q", rh, d, i * 64)))
        if not gqa and not q_per_wg:
            w("    cta copy_async Qs[:, %s], %s mbarrier qfull[0]" % (cs, head("Q", rowq, d, i * 64)))
    def loads(stage, rows):
        for t in "KV":
            r = t.lower() if ov else ""
            if t == "K" or ov:
                w("      mbarrier.wait empty%s[%s]" % (r, stage))
                w("      mbarrier.expect_tx full%s[%s]" % (r, stage))
            for i in range(a):
                cs = "%d:%d" % (i * 64, i * 64 + 64) if a > 1 else ":"
                w("      cta copy_async %ss[%s, :, %s], %s mbarrier full%s[%s]"
                  % (t, stage, cs, head(t, rows, d, i * 64), r, stage))
    if ov and tm:  # the diagonal block, then blocks 0 .. ctaid - 1
        w("    repeat 1 as p running g {")
        loads("g %% %d" % st, "ctaid*%d : ctaid*%d + %d" % (bm, bm, bn))
        w("    }")
        w("    repeat ctaid as k running g {")
        loads("g %% %d" % st, "k*%d : k*%d + %d" % (bn, bn, bn))
        w("    }")
    elif ov:  # the consumers' loops: block 0, then blocks 1 .. n-1, one running count
        w("    repeat 1 as p running g {")
        loads("g %% %d" % st, "0 : %d" % bn)
        w("    }")
        w("    repeat %s - 1 as k running g {" % kv_count(bm, bn, causal))
        loads("g %% %d" % st, "k*%d + %d : k*%d + %d" % (bn, bn, bn, 2 * bn))
        w("    }")
    else:
        segs = segments(bm, bn, causal, tm)
        for (count, ix, rows, _) in segs:
            w("    repeat %s as %s%s {" % (count, ix, " running g" if len(segs) > 1 else ""))
            loads("%s %% %d" % ("g" if len(segs) > 1 else ix, st), rows)
            w("    }")
    w("  }")
    w("} else {")
    w("  setmaxnreg.inc %d                         # %s consumer warpgroups, 64 query rows each"
      % (240 if nw == 2 else 160, "two" if nw == 2 else "three"))
    w("  init Oc, 0")
    w("  set M[i, 0] = -inf")
    w("  set L[i, 0] = 0.0")
    w("  repeat %d as s {" % (st - 1 if pp and not ov else st))
    for r in rings:
        w("    mbarrier.arrive empty%s[s] per warpgroup   # every stage starts free%s" % (
          r, " (the last one: trip 0's release)" if pp and not ov else ""))
    w("  }")
    w("  mbarrier.wait qfull[0]")
    if pp and not ov:
        w("  when wgid == 2 {")
        w("    bar.sync 2, 256                          # warpgroup 2's first S after warpgroup 1's")
        w("  }")
    if ov:
        consumer_overlap(w, st, bm, bn, causal, pp, tm)
    else:
        segs = segments(bm, bn, causal, tm)
        for (count, ix, _, mask) in segs:
            consumer_block(w, st, bn, bm, causal, pp, count, ix, mask, len(segs) > 1, gqa)
        if pp:
            w("  wgmma.wait 0                               # the last P V")
            w("  when wgid == 1 {")
            w("    bar.arrive 2, 256                        # the turn warpgroup 2's last sync waits for")
            w("  }")
    w("  set LB[i, 0] = (M[i, 0] * %s + log2(L[i, 0])) * %s   # LSE, natural log" % (SCALE_L2, LN2))
    w("  set C[i, 0] = rcp(L[i, 0])")
    w("  set Oc[i, c] = Oc[i, c] * C[i, 0]")
    rows = "ctaid*%d + (wgid - 1)*64 : ctaid*%d + (wgid - 1)*64 + 64" % (bm, bm)
    if gqa:
        w("  warpgroup copy O[ctaid_y, wgid - 1, %s, 0 : %d], Oc" % (rowq, d))
        w("  warpgroup copy LSE[ctaid_y, wgid - 1, %s], LB" % rowq)
    elif tmast:  # O through a staging buffer and TMA stores, which clip at row S
        w("  warpgroup copy LSE[ctaid_y, %s], LB" % rows)
        epilogue_tma_store(w, d, bm, nw, "Qs" if tmast == "q" else "Os")
    else:
        w("  warpgroup copy %s, Oc" % head("O", rows, d, 0, d))
        w("  warpgroup copy LSE[ctaid_y, %s], LB" % rows)
    w("}")
    return L


def persistent(L, nw, bm):
    """the full overlap kernel L (lines) made persistent (suffix _ps, FA3's
    persistent schedule): a grid of P CTAs (one per SM, P at launch), each
    walking the (head, row tile) pairs bh, tm of t = c, c + P, ... with its
    K and V rings turning on across tiles, so the producer loads the next
    tile's Q and first blocks while the consumers finish the last P V and
    store O. Q has one buffer: the consumers release it (qempty) once their
    last S = Q K^T is complete; the ping-pong's turns go on across tiles"""
    walk = "repeat cdiv(BH, 1) * cdiv(S, %d) as t across ctaid tiles bh, tm {" % bm
    tile = lambda l: re.sub(r"\bctaid\b", "tm", l.replace("ctaid_y", "bh"))
    out, i = [], 0
    while i < len(L):
        l = L[i]
        if l.startswith("grid "):
            out += ["grid   cdiv(CTAS, 1)                  # persistent: CTAS CTAs (one per SM) walk the tiles"]
        elif l.startswith("param  scale"):
            out += [l, "param  CTAS u32"]
        elif l == "assume S >= 1":
            out += [l, "assume CTAS >= 1", "assume CTAS <= 1024"]
        elif l.startswith("mbarrier qfull"):
            out += [l, "mbarrier qempty [1]"]
        elif l == "mbarrier.init qfull[0]":
            out += [l, "mbarrier.init qempty[0], %d                  # one arrival per consumer warpgroup" % nw]
        elif l == "    mbarrier.expect_tx qfull[0]":  # the producer's tiles: to the end of its when block
            j, q = L.index("  }", i), L.index("    repeat 1 as p running g {", i)
            out += ["    " + walk, "      repeat 1 as p running g {              # Q: a trip of the ring's count, as "
                    "the consumers' last P V is",
                    "        mbarrier.wait qempty[0]                # the last tile's S are done"]
            out += ["    " + tile(x) for x in L[i:q]] + ["      }"]
            out += ["  " + tile(x) for x in L[q:j]] + ["    }"]
            i = j - 1
        elif l == "  init Oc, 0":  # the consumer's per-tile state moves into the walk
            tile_init, i = L[i:i + 3], i + 2
        elif l == "  mbarrier.wait qfull[0]":
            pp = L[i + 1] == "  when wgid == 2 {"  # the ping-pong's first and last turns stay outside the walk
            j = i + 1
            last = next(k for k in range(j, len(L)) if L[k].startswith("  repeat 1 as p running g {") and
                        "last block" in L[k])
            end = L.index("  when wgid == 1 {", last) if pp else next(
                k for k in range(last, len(L)) if L[k].startswith("  set LB"))
            out += ["  mbarrier.arrive qempty[0] per warpgroup   # Q's buffer starts free"] + L[j:j + (3 if pp else 0)]
            out += ["  " + walk] + ["  " + x for x in tile_init + [l] + L[j + (3 if pp else 0):last]]
            # _sq: O is staged in Q's buffer, so Q is free only once the tile's O stores have read it
            release = ["    mbarrier.arrive qempty[0] per warpgroup   # every S of this tile is complete: Q is read"]
            staged = ["    mbarrier.arrive qempty[0] per warpgroup   # this tile's O, staged in Q's buffer, is stored"]
            sq = any(x.startswith("    warpgroup copy Qs[") for x in L)
            out += [] if sq else release
            k3 = 3 if pp else 0
            ep, bar = [], None
            for x in [tile(x) for x in L[last:end] + L[end + k3:-1]]:
                ep.append(x)
                if x.strip().startswith("bar.sync") and x.split("#")[0].rstrip().endswith(", 128"):
                    bar = x.split()[1].rstrip(",")  # the epilogue's barrier of this warpgroup
                if sq and x.strip().startswith("bulk.wait 0"):  # the store's read of Qs is retired in the
                    ep.append("    bar.sync %s, 128                          # issuing thread: its warpgroup meets it"
                              % bar)
            out += ["  " + x for x in ep] + (staged if sq else []) + ["  }"] + L[end:end + k3] + ["}"]
            i = len(L)
            # the producer's block b is trip b + 1 of its tile (Q is trip 0), the consumers' is trip b
            # (their last P V the tile's last): K of this trip is stage (g + 1) % 2, V of the last one g % 2
            for k in range(out.index("} else {"), len(out)):
                if "running" not in out[k]:
                    out[k] = out[k].replace("(g + 1) % 2", "@").replace("g % 2", "(g + 1) % 2").replace("@", "g % 2")
        else:
            out.append(l)
        i += 1
    return out


def epilogue_tma_store(w, d, bm, nw, buf):
    """O rounded to 16 bits and written by stmatrix into a staging buffer
    buf, each warpgroup its own 64 rows, then each warpgroup's TMA stores of
    its rows by 64-column atoms: a box crossing row S of the head is
    clipped there. buf Os: a buffer of its own (head dims up to 128: at 256,
    Q, K and V fill shared memory); Qs (suffix _sq): Q's own buffer, whose
    rows of a warpgroup only that warpgroup's S = Q K^T reads, all of them
    complete (wgmma.wait 0) before its O is written there"""
    for g in range(1, nw + 1):  # a block per warpgroup: its rows are constants there, for the race proof
        r0 = 64 * (g - 1)
        w("  when wgid == %d {" % g)
        w("    warpgroup copy %s[%d:%d, :], Oc           # cvt pairs, stmatrix" % (buf, r0, r0 + 64))
        w("    fence.proxy_async                        # the writes, visible to TMA")
        w("    bar.sync %d, 128                          # the writers meet the issuing thread" % (2 + g))
        for i in range(d // 64):
            w("    cta copy_async %s, %s[%d:%d, %d:%d]" % (head("O", "ctaid*%d + %d : ctaid*%d + %d" % (bm, r0, bm, r0 + 64),
                                                                d, i * 64), buf, r0, r0 + 64, i * 64, i * 64 + 64))
        w("    bulk.commit")
        w("    bulk.wait 0                              # O written before the CTA ends")
        w("  }")


def comment_block(causal):
    return [
        "Attention forward on Hopper (FlashAttention-3's structure), f32 accumulation:",
        "  O[i, :] = sum_j softmax_j(scale * Q[i, :] . K[j, :]) V[j, :]   (j < S%s)" % (", j <= i" if causal else ""),
        "  LSE[i]  = ln sum_j exp(scale * Q[i, :] . K[j, :])",
    ] + ([
        "for every head h < BH and row i < S. Tensors are [BH, S, D] (LSE [BH, S]): a",
        "TMA box that crosses row S of a head zero-fills (loads) there, never reading",
        "the next head's rows, and the stores are guarded at S.",
    ] if RANK3 else [
        "for every head h < BH and row i < S. Tensors are [S, W], W = BH * D, row-major",
        "(heads side by side: Q[i, h*D + d]), so a head's rows are a column slice and",
        "its ragged last rows end at S exactly (rows past S read zeros, are not written).",
    ]) + [
        "One CTA per BLOCK_M query rows of one head (grid cdiv(S, BLOCK_M), BH): a producer",
        "warp loads Q once and K, V (BLOCK_N keys) by TMA through a ring of stages on",
        "full/empty mbarriers; consumer warpgroups of 64 query rows each compute S = Q K^T",
        "(SS wgmma, f32), the online softmax (row max by reduce.max over the",
        "accumulator's quad, exp2 with scale * log2(e) folded in, row sum by",
        "reduce.sum, O rescaled by exp2(m_old - m_new)), P = S rounded to 16 bits in",
        "registers (regmove: the accumulator's fragment is the RS A operand's), and",
        "O += P V (RS wgmma, V MN-major: b_kn). Keys past S (%s)" % (
            "and past the query row" if causal else "the ragged last block"),
        "are -inf before the max.",
        "Finally O / l (rcp) and LSE = (m * scale * log2(e) + log2(l)) * ln(2).",
        "Generated by bench/gen_attention.py (edit it, not this file).",
    ]


VARIANTS = [(d, c, t) for t in ("bf16", "f16") for c in (False, True) for d in (64, 128, 256)]
RUNS = "BH=1,S=1,W=%d BH=2,S=7,W=%d BH=1,S=%d,W=%d BH=1,S=300,W=%d"


def write(path, lines):
    if RANK3:  # no W: the heads are the first dimension
        lines = [re.sub(r"[ ,]W=\d+", "", l) for l in lines]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def tensor(d):
    return "[BH, S, %d]" % d if RANK3 else "[S, W]"


def head(t, rows, d, c0, n=64):
    """columns c0 .. c0 + n of head ctaid_y's rows `rows` of tensor t"""
    if RANK3:
        return "%s[ctaid_y, %s, %d : %d]" % (t, rows, c0, c0 + n)
    if n == d:
        return "%s[%s, ctaid_y*%d : ctaid_y*%d + %d]" % (t, rows, d, d, d)
    return "%s[%s, ctaid_y*%d + %d : ctaid_y*%d + %d]" % (t, rows, d, c0, d, c0 + n)


def module(kernels, what, small_sets, harness=True):
    """harness None: a tests/gpu program (with the harness line), its kernel not
    counted among the example's and bench files' (where each name is emitted once)"""
    L = ["# " + l if l else "#" for l in what]
    L.append("target sm_90a")
    if harness is not False:  # the runners check O and LSE against attention in double too
        L.append("# harness: --attention")
    L += small_sets
    for k in kernels:
        n = kernel(*k)[0]
        if harness is not None and n in EMITTED:  # a structure that is also a default (or listed twice): once
            continue
        EMITTED.add(n)
        L.append("")
        L += kernel(*k)
    if any(l.strip().startswith("wgmma.wait 1") for l in L):  # an overlap consumer releases K after it
        at = L.index("target sm_90a")
        L[at:at] = ["# " + l for l in RELEASE_MUTANT_NOTE]
    return L


# a module of overlap kernels: its first fence stands before the peeled block's scale_d 0 wgmma of S, not of O
OV_MUTANT_NOTE = ["wgmma mutants: no fencebeforeinit (that fence moved above 'init O' is still legal: the",
                  "peeled S = Q K^T reads no register the init writes, and the loop has fences of its own)"]
# a module whose consumers release K after 'wgmma.wait 1' (the overlap): the release moved above that wait is
# ordered all the same (tests/bad/roles_attn_ov_release_k_before_wait1_split_producer.tile is the race)
RELEASE_MUTANT_NOTE = [
    "wgmma mutants: no releasebeforewait (the K release moved above 'wgmma.wait 1' in the loop is still",
    "ordered after that wait: the producer thread refills a K stage only after its wait on emptyv for the",
    "previous V block, which the consumers arrive on after the same trip's 'wgmma.wait 0')"]
EMITTED = set()  # the kernels of the example and the bench files, by name
# the causal defaults in other launch orders (and hd64's with the chain max): session 14's candidates
ORDERED = [(d, True, "bf16", False, None, False, False, False, False, False, False, o)
           for (d, o) in ((64, "rev"), (64, "hm"), (128, "rev"), (128, "hm"), (256, "rev"))]
# and FA3's hd64 structure (BLOCK_M 192, the overlap), whose causal mask now skips itself below the diagonal
ORDERED += [(64, True, "bf16", False, (3, 128, 2), False, True, False, False, False, False, "rev")]
# exp2_ftz on the session's best kernels (with the chain max, which won hd64 causal by 7-9% on the H200 and
# is every reduce.max's order now)
CHAIN_FTZ = [k for o in ("chain_ftz",) for k in (
    (64, True, "bf16", False, None, False, False, False, False, False, False, "rev_" + o),
    (64, True, "bf16", False, (3, 128, 2), False, True, False, False, False, False, "rev_" + o),
    (128, True, "bf16", False, None, False, False, False, "q", False, False, "rev_" + o),
    (256, True, "bf16", False, None, False, False, False, "q", False, False, "rev_" + o),
    (64, False, "bf16", False, (3, 128, 2), False, True, False, False, False, True, o),
    (128, False, "bf16", False, (2, 192, 2), True, True, False, "q", False, False, o),
    (256, False, "bf16", False, None, False, False, False, "q", False, False, o))]
# session 15's candidates (the grid's 2k cells and hd64 causal): hd64 causal on BLOCK_M 128 with the ping-pong and
# the overlap (the hd128 causal winner's structure, with and without _sq) and on 192 keys; the persistent walk with
# 192 keys at hd128 and at hd256's BLOCK_N 80 (fewer K blocks per tile at 2k: the tail and the prologue weigh more)
S15 = [(64, True, "bf16", False, (2, 128, 2), True, True, True, st, False, False, "rev_chain_ftz") for st in (False, "q")]
S15 += [(64, True, "bf16", False, (2, 192, 2), True, True, False, False, False, False, "rev_chain_ftz"),
        (128, False, "bf16", False, (2, 192, 2), True, True, False, False, False, True, "chain_ftz"),
        (256, False, "bf16", False, (2, 80, 2), True, True, False, False, False, True, "chain_ftz")]
# and: hd64 causal's BLOCK_M 192 kernel with the heads along x and the row tiles along y reversed (every head's
# longest tile before any shorter one: the whole grid longest first) and with rings of 3 stages; 128 keys at hd128
# full (2048 = 16 blocks, where 192 keys leave the last block a third empty) and hd64 full persistent on BLOCK_M 128
S15 += [(64, True, "bf16", False, (3, 128, 2), False, True, False, False, False, False, "hm_chain_ftz"),
        (64, True, "bf16", False, (3, 128, 3), False, True, False, False, False, False, "rev_chain_ftz"),
        (128, False, "bf16", False, (2, 128, 2), True, True, False, "q", False, False, "chain_ftz"),
        (64, False, "bf16", False, (2, 128, 2), True, True, False, False, False, True, "chain_ftz"),
        (64, True, "bf16", False, (2, 128, 2), False, True, True, False, False, False, "rev_chain_ftz"),
        (64, True, "bf16", False, (2, 128, 2), True, True, True, False, False, False, "rev"),
        (128, False, "bf16", False, (2, 192, 2), True, True, False, "q", False, True, "chain_ftz"),
        (256, False, "bf16", False, (2, 80, 2), True, True, False, "q", False, True, "chain_ftz")]
# after the first call: the hd64 causal default (BLOCK_M 128 pp_ov_tm_sq) with the whole grid longest first (_hm)
# and with 3-stage rings; hd128 full on 176 keys with O through Q's buffer and exp2_ftz (2048 = 11 2/3 blocks)
S15 += [(64, True, "bf16", False, (2, 128, 2), True, True, True, "q", False, False, "hm_chain_ftz"),
        (64, True, "bf16", False, (2, 128, 3), True, True, True, "q", False, False, "rev_chain_ftz"),
        (128, False, "bf16", False, (2, 176, 2), True, True, False, "q", False, False, "chain_ftz")]
# (the last without exp2_ftz: on the 128-row _causal_tm kernel exp2_ftz measured slower, 445 -> 400 at 16k)
# (hd64 causal at 4k: 4096 = 21 1/3 row tiles of 192, and the third-full last tile is the longest, 32 K blocks:
# 384 blocks of 192 x 128 for 341 of work; on 128 rows 528 blocks of 128 x 128 for 512)
CHAIN_FTZ += S15
# O staged in Q's buffer and stored by TMA (_sq): the defaults with the room _st had no shared memory for
STAGED_IN_Q = [(d, c, "bf16", False, None, False, False, False, "q") for d in (64, 128, 256) for c in (False, True)]
STAGED_IN_Q += [(d, True, "bf16", False, None, False, False, False, "q", False, False, "rev") for d in (128, 256)]
# full attention: hd128 on 192 keys with the ping-pong and the overlap (224 KiB of stages: the plain loop's
# fastest BLOCK_N in session 12), with and without _sq; hd64's BLOCK_M 192 overlap kernel with _sq
STAGED_IN_Q += [(128, False, "bf16", False, (2, 192, 2), True, True, False, st) for st in (False, "q")]
STAGED_IN_Q += [(64, False, "bf16", False, (3, 128, 2), False, True, False, "q")]


def main():
    scale = "scale=0.0883883476"
    ex = comment_block(False) + [
        "attention_fwd_hd128: BLOCK_M 128 (two consumer warpgroups), BLOCK_N 192, 2 stages; K and V on",
        "rings of their own; FA3's intra-warpgroup overlap (block 0 peeled, then the softmax of block",
        "k + 1 under the P V of block k) and the ping-pong (each warpgroup's GEMMs are its turn at the",
        "tensor cores, on named barriers wgid and 3 - wgid). Keys past S are masked in the last K block",
        "only (the mask's select branches past itself where every key of the thread is below S). The",
        "softmax's exponentials are exp2_ftz (one ex2.approx.ftz each). O is rounded to bf16, written",
        "by stmatrix into Q's buffer (each warpgroup its own 64 rows, read by its own S only) and",
        "stored by TMA (clipped at row S).",
        "attention_fwd_hd128_causal: the same with BLOCK_N 128 and the diagonal block first (masked by",
        "the row), then the blocks below it unmasked; it runs the K blocks up to its last row. Its grid",
        "is cdiv(S, 128) reversed, BH: ctaid = nctaid.x - 1 - %ctaid.x, the longest row tiles first.",
        "(Session 14's winners of these cells on the H200, bench/attention_fwd_sm90_tuned.tile's",
        "_m128_n192_pp_ov_sq_chain_ftz and _causal_sq_rev_chain_ftz.)"] + OV_MUTANT_NOTE
    sets = ["# set: BH=2 S=130 W=256 " + scale, "# runs: BH=1,S=1,W=128 BH=2,S=7,W=256 BH=1,S=300,W=128"]
    write("examples/attention_fwd_sm90.tile",
          module([(128, False, "bf16", True), (128, True, "bf16", True)], ex, sets))
    bench = comment_block(False) + [
        "The default kernel of each head dim and mask is the cell's fastest kernel on the H200",
        "(docs/benchmarks.md: session 14's one-run table; hd64 causal: session 15's 2k and 4k cells),",
        "its program under the plain name:",
        "hd64: BLOCK_M 192 (three consumer warpgroups), BLOCK_N 128, the overlap, persistent (grid",
        "cdiv(CTAS, 1), CTAS a u32 param after scale: one CTA per SM) = the tuned file's",
        "_m192_n128_ov_ps_chain_ftz; hd64_causal: BLOCK_M 128, the ping-pong and the overlap, the",
        "diagonal block first, O staged in Q's buffer, grid cdiv(S, 128) reversed (longest row tiles",
        "first) = _causal_pp_ov_tm_sq_rev_chain_ftz (hd128_causal's structure);",
        "hd256 (and _causal): BLOCK_N 80, the ping-pong and the overlap, O staged in Q's buffer and",
        "stored by TMA (_sq; causal: reversed grid) = _sq_chain_ftz, _causal_sq_rev_chain_ftz. All",
        "take exp2_ftz in the softmax; 2 stages. _f16 is f16 in and out, the same programs. The bf16",
        "hd128 kernels are examples/attention_fwd_sm90.tile's; bench/attention_fwd_sm90_tuned.tile",
        "has the other structures."]
    write("bench/attention_fwd_sm90.tile",
          module([(d, c, t, False) for (d, c, t) in VARIANTS if (d, t) != (128, "bf16")], bench,
                 ["# set: BH=2 S=200 W=512 " + scale], harness=False))
    tuned = comment_block(False) + [
        "Other structures, bf16, to time beside the default ones (suffix _m<BLOCK_M>_n<BLOCK_N>",
        "[_s<STAGES>]; no suffix: BLOCK_M 128, BLOCK_N 128 (64 at head dim 256), 2 stages; the plain",
        "loop at that shape, the defaults before session 13, is _m128_n128 (_m128_n64))."]
    if SIBLINGS:
        tuned += ["_ov: FA3's intra-warpgroup overlap (block 0 peeled; the softmax of block j under the",
                  "P V of block j - 1; K and V on rings of their own), _pp_ov: and the ping-pong."]
    tuned += ["_causal_tm: the K blocks wholly below the diagonal unmasked, the diagonal ones masked by",
              "the row only (one loop each, on one running count). _st: O through stmatrix into a staging",
              "buffer and TMA stores (clipped at row S), each warpgroup its own rows.",
              "_ps: persistent (full attention): grid cdiv(CTAS, 1), CTAS a u32 param after scale (the",
              "number of CTAs: one per SM; bench/attention.py passes the SM count), the CTAs walking the",
              "(head, row tile) pairs with the K/V rings and the ping-pong turning on across tiles.",
              "_rev: the causal default launched longest tile first (grid cdiv(S, BLOCK_M) reversed, BH);",
              "_hm: the heads along x, the row tiles along y reversed (grid BH, cdiv(S, BLOCK_M) reversed);",
              "_chain_ftz: the softmax's exp2 as exp2_ftz (_chain: named when the chain max was a keyword);",
              "_sq: O staged in Q's buffer (each warpgroup's own rows) and stored by TMA."]
    # the overlap kernels, alone and with the ping-pong, at the ping-pong's shapes
    overlap = [(d, c, "bf16", False, sh, pp, True) for (d, sh) in PINGPONG for c in (False, True)
               for pp in (False, True)] if SIBLINGS else []
    # and at head dim 64 on three consumer warpgroups (BLOCK_M 192, the fastest hd64 shape measured)
    overlap += [(64, c, "bf16", False, (3, 128, 2), False, True) for c in (False, True)]
    # the causal kernels masking only the diagonal blocks (_tm), alone and with the ping-pong
    diag = [(d, True, "bf16", False, None, pp, False, True) for d in (64, 128, 256) for pp in (False, True)]
    # and with the overlap: the diagonal block peeled, first (BLOCK_M = BLOCK_N: head dims 64, 128)
    diag += [(d, True, "bf16", False, None, pp, True, True) for d in (64, 128) for pp in (False, True)]
    # O through stmatrix and TMA stores (_st), at head dims 64 and 128, on the ping-pong kernels
    diag += [(d, c, "bf16", False, None, True, ov, tm, True) for d in (64, 128)
             for (c, ov, tm) in ((False, False, False), (True, False, True), (False, True, False))]
    # the plain loop at the base shape (the defaults before session 13), to time against
    plain = [(d, c, "bf16", False, SHAPES[d]) for d in (64, 128, 256) for c in (False, True)]
    # the persistent overlap kernels (_ps, full attention: FA3's persistent schedule for the non-causal case)
    diag += [(128, False, "bf16", False, (2, 176, 2), True, True, False, False, False, True),
             (64, False, "bf16", False, (3, 128, 2), False, True, False, False, False, True),
             (64, False, "bf16", False, (2, 128, 2), True, True, False, False, False, True)]
    # (hd256 BLOCK_N 80 is proved too, in 0.1 s since the roles proof's round state leaves out a
    # waited-for wgmma's group; not added: it has not been timed on the GPU)
    diag += ORDERED + STAGED_IN_Q + CHAIN_FTZ
    write("bench/attention_fwd_sm90_tuned.tile",
          module(plain + [(d, c, "bf16", False, sh) for (d, sh) in TUNED for c in (False, True)] +
                 [(d, c, "bf16", False, sh, True) for (d, sh) in PINGPONG for c in (False, True)] + overlap + diag,
                 tuned,
                 ["# set: BH=2 S=200 W=512 " + scale], harness=False))
    small = [(d, c, t, None) for (d, c, t) in VARIANTS if (d, t) != (128, "bf16")]
    ov_small = [(128, False, "bf16", None, False, True), (128, True, "bf16", None, True, True),
                (64, False, "bf16", None, True, True), (256, True, "bf16", None, True, True)] if SIBLINGS else []
    tm_small = [(128, False, "bf16", (2, 128, 3), True, False, False, False),
                (64, True, "bf16", (3, 128, 2), False, True, False, False),
                (128, True, "bf16", None, True, True, True, False), (64, True, "bf16", None, False, True, True, False),
                (128, True, "bf16", None, False, False, True, False), (256, True, "bf16", None, False, False, True, False),
                (128, True, "bf16", None, True, False, True, False), (128, False, "bf16", None, True, False, False, True),
                (64, True, "bf16", None, True, False, True, True), (128, False, "bf16", None, True, True, False, True)]
    twins = set()
    # the persistent kernels (_ps): a grid of CTAS CTAs; 1 here, so the CTA walks every tile
    ps_small = [(128, False, "bf16", (2, 176, 2), True, True, False, False, True),
                (64, False, "bf16", (3, 128, 2), False, True, False, False, True)]
    for (d, c, t, sh, pp, ov, tm, ts, *ps) in [k + (False, False, False, False) for k in small] + \
            [(d, False, "bf16", sh, False, False, False, False) for (d, sh) in TUNED] + \
            [(d, c, "bf16", sh, True, False, False, False) for (d, sh) in PINGPONG[:3] for c in (False, True)
             if d == 128 or not c] + [k + (False, False) for k in ov_small] + tm_small + ps_small:
        ps = bool(ps and ps[0])
        nm = name(d, c, t, sh, pp, ov, tm, ts) + ("_ps" if ps else "")
        if nm in twins:
            continue
        twins.add(nm)
        plain = nm == name(d, c, t)  # a default kernel: its cell's winner's program
        struct = winner_structure(d, c) if plain else structure(d, c, sh, pp, ov, tm)
        nw, bn, _ = struct[0]
        what = comment_block(c) + ["(%s at a size ptxemu runs.)" % nm]
        if struct[2]:  # its first fence stands before the peeled block's S wgmma
            what += OV_MUTANT_NOTE
        ctas = ps or (plain and WINNER[(d, c)][6])  # a persistent kernel: CTAS = 1 walks every tile
        sets = ["# set: BH=1 S=%d W=%d %s%s" % (bn + 9, d, "CTAS=1 " if ctas else "", scale),
                "# runs: " + RUNS % (d, 2 * d, bn + 1, d, d)]
        write("tests/gpu/%s_small.tile" % nm.replace("attention_fwd_", "attention_"),
              module([(d, c, t, True, sh, pp, ov, tm, ts, False, ps)], what, sets, None))
    for k in ORDERED + STAGED_IN_Q + CHAIN_FTZ:  # the launch orders', the chain's and the staged epilogues' small twins
        d, c, nm = k[0], k[1], kernel(*k)[0][len("kernel "):]
        sh = structure(d, c, k[4], k[5], k[6], k[7])
        bn = sh[0][1]
        what = comment_block(c) + ["(%s at a size ptxemu runs: more than one row tile, so the order shows.)" % nm]
        what += OV_MUTANT_NOTE if sh[2] else []
        ps = len(k) > 10 and k[10]  # a persistent kernel: CTAS CTAs (2: each walks more than one tile)
        sets = ["# set: BH=2 S=%d W=%d %s%s" % (2 * bn + 9, 2 * d, "CTAS=2 " if ps else "", scale),
                "# runs: " + RUNS % (d, 2 * d, bn + 1, d, d)]
        write("tests/gpu/%s_small.tile" % nm.replace("attention_fwd_", "attention_"),
              module([k[:3] + (True,) + k[4:]], what, sets, None))
    # grouped-query attention (2 query heads per K/V head), tests/gpu only: bench/attention.py
    # takes Q as [B*H, S, D] (its GQA views are to come)
    for (d, c, pp) in ((128, False, False), (128, True, True), (64, True, False)):
        n = name(d, c, "bf16", None, pp, gqa=True)
        what = comment_block(c) + [
            "Grouped-query attention: BH counts the K/V heads; Q, O are [BH, 2, S, D] and LSE [BH, 2, S],",
            "query head (h, g) reading K/V head h (FA3's PackGQA: warpgroup g + 1 takes query head g's",
            "rows ctaid*64 .. ctaid*64 + 63, so each K/V block serves both). (%s at a size ptxemu runs.)" % n]
        sets = ["# set: BH=1 S=137 %s" % scale, "# runs: BH=1,S=1 BH=2,S=7 BH=1,S=65 BH=1,S=300"]
        write("tests/gpu/%s_small.tile" % n.replace("attention_fwd_", "attention_"),
              module([(d, c, "bf16", True, None, pp, False, False, False, True)], what, sets, None))


if __name__ == "__main__":
    sys.exit(main())
