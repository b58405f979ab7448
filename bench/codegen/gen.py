#!/usr/bin/env python3
"""Writes the bench/codegen pairs: NAME.tile and its CUDA C++ twin NAME.cu.
Each twin uses the same PTX memory instructions (inline asm, twin.h), the
same parameters, thread count and grid; its address arithmetic is plain C++.
Run from this directory: python3 gen.py (the outputs are checked in)."""
import os

DT = {"f16": ("uint16_t", 2), "bf16": ("uint16_t", 2), "f32": ("float", 4), "u8": ("uint8_t", 1)}
OUT = {}


def emit(name, tile, cu):
    OUT[name] = (tile, '#include "twin.h"\n\n' + cu)


SWZ = "DEV unsigned swz(unsigned m) { unsigned x = m >> 3; return ((x ^ ((x >> 3) & 7)) << 3) | (m & 7); }\n\n"


# ---- gmem_smem: global -> shared, sync, shared -> global -----------------
def gs(name, dt, rows, cols, T, vb, sstride=None, swz=False, grid=1, rep=1, note=""):
    ct, eb = DT[dt]
    v = vb // eb
    outer = rows * cols // (T * v)
    tot = grid * rep * rows
    lay = ""
    if swz:
        lay = " layout swizzle(3, 3, 3)"
    srows = rows
    sbytes = (rows * (sstride or cols)) * eb
    if rep > 1 or grid > 1:
        st = f"ctaid*{rep * rows}" + (f" + j*{rows}" if rep > 1 else "")
        ga = f"A[{st} : {st} + {rows}, :]"
        gb = f"B[{st} : {st} + {rows}, :]"
    else:
        ga, gb = "A", "B"
    sr = f"S[:, 0:{cols}]" if sstride else "S"
    body = f"cta copy {sr}, {ga}\nsync\ncta copy {gb}, {sr}\n"
    if rep > 1:
        body = f"repeat {rep} as j {{\n" + "".join("  " + l + "\n" for l in (body + "sync").splitlines()) + "}\n"
    tile = (f"# {note}\ntarget sm_90\n\nkernel {name}\nthreads {T}\n" + (f"grid {grid}\n" if grid > 1 else "")
            + f"param  A {dt} [{tot}, {cols}]\nparam  B {dt} [{tot}, {cols}]\nshared S {dt} [{srows}, {sstride or cols}]{lay}\n\n"
            + body)
    soff = "r * %d + col" % (sstride or cols)
    if swz:
        soff = "swz(r * %d + col)" % cols
    g0 = f"(blockIdx.x * {rep} + j) * {rows * cols}" if (rep > 1 or grid > 1) else "0"
    loop = (f"\tfor (int j = 0; j < {rep}; j++) {{\n" if rep > 1 else "\t{\n\t\tconst int j = 0;\n")
    cu = (SWZ if swz else "") + f"""KERNEL({T}) {name}(const {ct} *A, {ct} *B)
{{
	__shared__ __align__(16) uint8_t S[{sbytes}];
	const unsigned tid = threadIdx.x;
{loop}		const size_t g0 = (size_t){g0};
		(void)j;
#pragma unroll
		for (int i = 0; i < {outer}; i++) {{
			unsigned c = (i * {T} + tid) * {v}, r = c / {cols}, col = c % {cols};
			Mov<{vb}>::g2s(smem(S) + ({soff}) * {eb}, A + g0 + c);
		}}
		__syncthreads();
#pragma unroll
		for (int i = 0; i < {outer}; i++) {{
			unsigned c = (i * {T} + tid) * {v}, r = c / {cols}, col = c % {cols};
			Mov<{vb}>::s2g(B + g0 + c, smem(S) + ({soff}) * {eb});
		}}
{"		__syncthreads();" if rep > 1 else ""}
	}}
}}
"""
    emit(name, tile, cu)


gs("gs_f16_64x64", "f16", 64, 64, 128, 16, note="gmem_smem: 64x64 f16 round trip, 128-bit accesses, 4 per thread")
gs("gs_f32_32x32", "f32", 32, 32, 128, 16, note="gmem_smem: 32x32 f32 round trip, 128-bit, 2 per thread")
gs("gs_f16_8x16", "f16", 8, 16, 32, 8, note="gmem_smem: one warp, 64-bit accesses")
gs("gs_f16_16x4", "f16", 16, 4, 32, 4, note="gmem_smem: one warp, 32-bit accesses")
gs("gs_u8_8x12", "u8", 8, 12, 32, 1, note="gmem_smem: bytes, scalar, 3 per thread")
gs("gs_f16_pad72", "f16", 64, 64, 128, 16, sstride=72, note="gmem_smem: shared rows padded to 72 elements")
gs("gs_bf16_swz", "bf16", 64, 64, 128, 16, swz=True, note="gmem_smem: swizzled shared (128-byte rows, 8 chunks)")
gs("gs_f16_grid", "f16", 64, 64, 128, 16, grid=256, note="gmem_smem: one 64x64 tile per CTA (ctaid offsets)")
gs("gs_f16_repeat", "f16", 32, 64, 128, 16, grid=64, rep=8, note="gmem_smem: 8 tiles per CTA in a repeat loop")
gs("gs_f16_128x64_t256", "f16", 128, 64, 256, 16, note="gmem_smem: 256 threads, 4 per thread")


# ---- ldgsts: cp.async global -> shared, then shared -> global -------------
def ldgsts(name, dt, rows, cols, T, vb, sstride=None, swz=False, grid=1, rep=1, note=""):
    ct, eb = DT[dt]
    v = vb // eb
    outer = rows * cols // (T * v)
    tot = grid * rep * rows
    lay = ""
    if swz:
        lay = " layout swizzle(3, 3, 3)"
    sbytes = rows * (sstride or cols) * eb
    if rep > 1 or grid > 1:
        st = f"ctaid*{rep * rows}" + (f" + j*{rows}" if rep > 1 else "")
        ga, gb = f"A[{st} : {st} + {rows}, :]", f"B[{st} : {st} + {rows}, :]"
    else:
        ga, gb = "A", "B"
    sr = f"S[:, 0:{cols}]" if sstride else "S"
    body = f"cta copy_async {sr}, {ga} dispatch=ldgsts\ncp_async.commit\ncp_async.wait 0\nsync\ncta copy {gb}, {sr}\n"
    if rep > 1:
        body = f"repeat {rep} as j {{\n" + "".join("  " + l + "\n" for l in (body + "sync").splitlines()) + "}\n"
    tile = (f"# {note}\ntarget sm_90\n\nkernel {name}\nthreads {T}\n" + (f"grid {grid}\n" if grid > 1 else "")
            + f"param  A {dt} [{tot}, {cols}]\nparam  B {dt} [{tot}, {cols}]\nshared S {dt} [{rows}, {sstride or cols}]{lay}\n\n"
            + body)
    soff = "swz(r * %d + col)" % cols if swz else "r * %d + col" % (sstride or cols)
    g0 = f"(blockIdx.x * {rep} + j) * {rows * cols}" if (rep > 1 or grid > 1) else "0"
    loop = (f"\tfor (int j = 0; j < {rep}; j++) {{\n" if rep > 1 else "\t{\n\t\tconst int j = 0;\n")
    cu = (SWZ if swz else "") + f"""KERNEL({T}) {name}(const {ct} *A, {ct} *B)
{{
	__shared__ __align__(16) uint8_t S[{sbytes}];
	const unsigned tid = threadIdx.x;
{loop}		const size_t g0 = (size_t){g0};
		(void)j;
#pragma unroll
		for (int i = 0; i < {outer}; i++) {{
			unsigned c = (i * {T} + tid) * {v}, r = c / {cols}, col = c % {cols};
			cp_async<{vb}>(smem(S) + ({soff}) * {eb}, A + g0 + c);
		}}
		cp_async_commit();
		cp_async_wait0();
		__syncthreads();
#pragma unroll
		for (int i = 0; i < {outer}; i++) {{
			unsigned c = (i * {T} + tid) * {v}, r = c / {cols}, col = c % {cols};
			Mov<{vb}>::s2g(B + g0 + c, smem(S) + ({soff}) * {eb});
		}}
{"		__syncthreads();" if rep > 1 else ""}
	}}
}}
"""
    emit(name, tile, cu)


ldgsts("ldgsts_f16_128x32", "f16", 128, 32, 128, 16, note="ldgsts: cp.async.cg 16 bytes, 4 per thread")
ldgsts("ldgsts_f16_pad36", "f16", 64, 32, 128, 8, sstride=36, note="ldgsts: cp.async.ca 8 bytes (rows padded to 36)")
ldgsts("ldgsts_f32_pad33", "f32", 32, 32, 128, 4, sstride=33, note="ldgsts: cp.async.ca 4 bytes (rows padded to 33)")
ldgsts("ldgsts_f16_swz", "f16", 64, 64, 128, 16, swz=True, note="ldgsts: swizzled shared")
ldgsts("ldgsts_f16_repeat", "f16", 64, 64, 128, 16, grid=64, rep=4, note="ldgsts: 4 tiles per CTA in a repeat loop")


# ---- ldmatrix: global -> shared (gmem_smem), ldmatrix, dump -------------
def frag_layout(num, mo):
    if mo == 1:
        return f"S[(1, 8, {num}, 4, 2) : (32@laneid, 4@laneid, 2, 1@laneid, 1)]"
    return f"S[({mo}, 8, {num}, 4, 2) : ({2 * num}, 4@laneid, 2, 1@laneid, 1)]"


def lane_addr(num, trans, cols, swz):
    # row q = lane % 8 of matrix j = (lane / 8) % num; m: the m_outer step
    if trans:  # column-major storage: matrix j's row q is column 8j + q
        off = f"(8 * m + q) + {8 * 0}"
        return None
    return None


def ldm(name, num, trans, mo=1, swz=False, note=""):
    rows, cols = 8 * mo, 8 * num
    words = num * mo
    scols = 64 if swz else cols
    if trans:
        slay = f" layout S[({rows}, {cols}) : (1, {rows})]"
        # element (r, c) at r + rows*c; matrix (m, j) row q = column 8j+q, rows 8m..8m+7
        addr = f"(8 * m) + {rows} * (8 * j + q)"
    elif swz:
        slay = " layout swizzle(3, 3, 3)"
        addr = f"swz((8 * m + q) * {scols} + 8 * j)"
    else:
        slay = ""
        addr = f"(8 * m + q) * {cols} + 8 * j"
    sreg = "S" if not swz else f"S[:, 0:{cols}]"
    gcopy = f"cta copy {sreg}, A"
    tile = f"""# {note}
target sm_90

kernel {name}
threads 32
param  A f16 [{rows}, {cols}]
param  D f16 [{rows * cols}]
shared S f16 [{rows}, {scols}]{slay}
local  R f16 [{rows}, {cols}] layout {frag_layout(num, mo)}

{gcopy}
sync
warp copy R, {sreg}
dump R, D
"""
    # the global -> shared copy is gmem_smem's, in the twin as in test programs
    cu = (SWZ if swz else "") + f"""KERNEL(32) {name}(const uint16_t *A, uint16_t *D)
{{
	__shared__ __align__({128 if swz else 16}) uint16_t S[{rows * scols}];
	const unsigned lane = threadIdx.x;
	{stage_in(rows, cols, scols, trans, swz)}
	__syncthreads();
	uint32_t r[{words}];
	const unsigned q = lane % 8, j = (lane / 8) % {num};
#pragma unroll
	for (int m = 0; m < {mo}; m++)
		ldsm<{num}, {"true" if trans else "false"}>(r + {num} * m, smem(S) + ({addr}) * 2);
	dump<{words}>(D, r, 32);
}}
"""
    emit(name, tile, cu)


def stage_in(rows, cols, scols, trans, swz):
    """the twin of `cta copy S, A` for 32 threads: gmem_smem's partition"""
    n = rows * cols
    if trans and cols == 32 and rows > 8:
        # each lane's column: rows elements adjacent in shared, scalar in
        # global; gmem_smem packs each 8 of them into one 16-byte shared store
        return (f"#pragma unroll\n\tfor (int c = 0; c < {rows // 8}; c++) {{\n\t\tuint32_t w[4];\n#pragma unroll\n"
                f"\t\tfor (int k = 0; k < 4; k++)\n\t\t\tw[k] = ldg_u16(A + (8 * c + 2 * k) * 32 + lane) | "
                f"ldg_u16(A + (8 * c + 2 * k + 1) * 32 + lane) << 16;\n\t\tsts(smem(S) + lane * {rows * 2} + 16 * c, w, 16);\n\t}}")
    if trans and cols == 32:
        # each lane's column: 8 elements adjacent in shared, scalar in global;
        # gmem_smem packs them into one 16-byte shared store (gs_widen_shared)
        return ("uint32_t w[4];\n#pragma unroll\n\tfor (int k = 0; k < 4; k++)\n\t\tw[k] = ldg_u16(A + (2 * k) * 32 + lane) | "
                "ldg_u16(A + (2 * k + 1) * 32 + lane) << 16;\n\tsts(smem(S) + lane * 16, w, 16);")
    if trans:
        # global row-major, shared column-major: the shared side has no
        # contiguous run, so gmem_smem copies elements (16-bit) in global order
        per = n // 32
        return (f"#pragma unroll\n\tfor (int i = 0; i < {per}; i++) {{\n\t\tunsigned c = i * 32 + lane, rr = c / {cols}, "
                f"cc = c % {cols};\n\t\tMov<2>::g2s(smem(S) + (rr + {rows} * cc) * 2, A + c);\n\t}}")
    vb = 16 if n * 2 >= 32 * 16 else n * 2 // 32
    v = vb // 2
    per = n // (32 * v)
    so = f"swz(rr * {scols} + cc)" if swz else f"rr * {scols} + cc"
    return (f"#pragma unroll\n\tfor (int i = 0; i < {per}; i++) {{\n\t\tunsigned c = (i * 32 + lane) * {v}, rr = c / {cols}, "
            f"cc = c % {cols};\n\t\tMov<{vb}>::g2s(smem(S) + ({so}) * 2, A + c);\n\t}}")


ldm("ldm_x1", 1, False, note="ldstmatrix: ldmatrix.x1")
ldm("ldm_x2", 2, False, note="ldstmatrix: ldmatrix.x2")
ldm("ldm_x4", 4, False, note="ldstmatrix: ldmatrix.x4")
ldm("ldm_x1_trans", 1, True, note="ldstmatrix: ldmatrix.x1.trans (column-major shared)")
ldm("ldm_x2_trans", 2, True, note="ldstmatrix: ldmatrix.x2.trans")
ldm("ldm_x4_trans", 4, True, note="ldstmatrix: ldmatrix.x4.trans")
ldm("ldm_x4_swz", 4, False, swz=True, note="ldstmatrix: ldmatrix.x4 from swizzled shared")
ldm("ldm_x4_m8", 4, False, mo=8, note="ldstmatrix: eight ldmatrix.x4 per lane (64x32 tile)")


# ---- stmatrix: global -> registers (reg), stmatrix, shared -> global ----
def stm(name, num, trans, mo=1, note=""):
    rows, cols = 8 * mo, 8 * num
    words = num * mo
    if trans:
        slay = f" layout S[({rows}, {cols}) : (1, {rows})]"
        addr = f"(8 * m) + {rows} * (8 * j + q)"
    else:
        slay = ""
        addr = f"(8 * m + q) * {cols} + 8 * j"
    tile = f"""# {note}
target sm_90

kernel {name}
threads 32
param  A f16 [{rows}, {cols}]
param  B f16 [{rows}, {cols}]
shared S f16 [{rows}, {cols}]{slay}
local  R f16 [{rows}, {cols}] layout {frag_layout(num, mo)}

warp copy R, A
warp copy S, R
sync
cta copy B, S
"""
    n = rows * cols
    if trans and cols == 32 and rows > 8:  # rows / 8 16-byte shared loads per lane, 16-bit global stores
        out = (f"#pragma unroll\n\tfor (int c = 0; c < {rows // 8}; c++) {{\n\t\tuint32_t w[4];\n"
               f"\t\tlds(w, smem(S) + lane * {rows * 2} + 16 * c, 16);\n#pragma unroll\n\t\tfor (int k = 0; k < 4; k++) {{\n"
               "\t\t\tstg_u16(B + (8 * c + 2 * k) * 32 + lane, w[k] & 0xffff);\n"
               "\t\t\tstg_u16(B + (8 * c + 2 * k + 1) * 32 + lane, w[k] >> 16);\n\t\t}\n\t}")
    elif trans and cols == 32:  # one 16-byte shared load per lane (gs_widen_shared), 16-bit global stores
        out = ("uint32_t w[4];\n\tlds(w, smem(S) + lane * 16, 16);\n#pragma unroll\n\tfor (int k = 0; k < 4; k++) {\n"
               "\t\tstg_u16(B + (2 * k) * 32 + lane, w[k] & 0xffff);\n\t\tstg_u16(B + (2 * k + 1) * 32 + lane, w[k] >> 16);\n\t}")
    elif trans:
        out = (f"#pragma unroll\n\tfor (int i = 0; i < {n // 32}; i++) {{\n\t\tunsigned c = i * 32 + lane, rr = c / {cols}, "
               f"cc = c % {cols};\n\t\tMov<2>::s2g(B + c, smem(S) + (rr + {rows} * cc) * 2);\n\t}}")
    else:
        vb = 16 if n * 2 >= 32 * 16 else n * 2 // 32
        v = vb // 2
        out = (f"#pragma unroll\n\tfor (int i = 0; i < {n // (32 * v)}; i++) {{\n\t\tunsigned c = (i * 32 + lane) * {v};"
               f"\n\t\tMov<{vb}>::s2g(B + c, smem(S) + c * 2);\n\t}}")
    cu = f"""KERNEL(32) {name}(const uint16_t *A, uint16_t *B)
{{
	__shared__ __align__(16) uint16_t S[{n}];
	const unsigned lane = threadIdx.x;
	uint32_t r[{words}];
	// the m8n8 fragment: word 2-element pairs, row lane/4 of each 8x8 matrix
#pragma unroll
	for (int m = 0; m < {mo}; m++)
#pragma unroll
		for (int k = 0; k < {num}; k++)
			ldg(r + {num} * m + k, A + (8 * m + lane / 4) * {cols} + 8 * k + 2 * (lane % 4), 4);
	const unsigned q = lane % 8, j = (lane / 8) % {num};
#pragma unroll
	for (int m = 0; m < {mo}; m++)
		stsm<{num}, {"true" if trans else "false"}>(smem(S) + ({addr}) * 2, r + {num} * m);
	__syncthreads();
	{out}
}}
"""
    emit(name, tile, cu)


stm("stm_x1", 1, False, note="ldstmatrix: stmatrix.x1")
stm("stm_x2", 2, False, note="ldstmatrix: stmatrix.x2")
stm("stm_x4", 4, False, note="ldstmatrix: stmatrix.x4")
stm("stm_x2_trans", 2, True, note="ldstmatrix: stmatrix.x2.trans")
stm("stm_x4_trans", 4, True, note="ldstmatrix: stmatrix.x4.trans")
stm("stm_x4_m8", 4, False, mo=8, note="ldstmatrix: eight stmatrix.x4 per lane (64x32 tile)")

# ---- reg --------------------------------------------------------------
emit("reg_32x8", """# reg: a warp round-trips a 32x8 f32 tile shared -> registers -> shared
target sm_90

kernel reg_32x8
threads 32
param  A f32 [32, 8]
param  B f32 [32, 8]
param  D f32 [256]
shared S f32 [32, 8]
local  R f32 [32, 8] layout S[(32, 8) : (1@laneid, 1)]

cta  copy S, A
sync
warp copy R, S
dump R, D
sync
warp copy S, R
sync
cta  copy B, S
""", """KERNEL(32) reg_32x8(const float *A, float *B, float *D)
{
	__shared__ __align__(16) float S[256];
	const unsigned lane = threadIdx.x;
#pragma unroll
	for (int i = 0; i < 2; i++)
		Mov<16>::g2s(smem(S) + ((i * 32 + lane) * 4) * 4, A + (i * 32 + lane) * 4);
	__syncthreads();
	uint32_t r[8];
	lds(r, smem(S) + lane * 32, 16);
	lds(r + 4, smem(S) + lane * 32 + 16, 16);
	dump<8>(D, r, 32);
	__syncthreads();
	sts(smem(S) + lane * 32, r, 16);
	sts(smem(S) + lane * 32 + 16, r + 4, 16);
	__syncthreads();
#pragma unroll
	for (int i = 0; i < 2; i++)
		Mov<16>::s2g(B + (i * 32 + lane) * 4, smem(S) + ((i * 32 + lane) * 4) * 4);
}
""")

emit("reg_frag_g", """# reg: an m8n8 x4 fragment straight from global memory (32-bit accesses) and back
target sm_90

kernel reg_frag_g
threads 32
param  A f16 [8, 32]
param  B f16 [8, 32]
local  R f16 [8, 32] layout S[(1, 8, 4, 4, 2) : (32@laneid, 4@laneid, 2, 1@laneid, 1)]

warp copy R, A
warp copy B, R
""", """KERNEL(32) reg_frag_g(const uint16_t *A, uint16_t *B)
{
	const unsigned lane = threadIdx.x;
	uint32_t r[4];
#pragma unroll
	for (int k = 0; k < 4; k++)
		ldg(r + k, A + (lane / 4) * 32 + 8 * k + 2 * (lane % 4), 4);
#pragma unroll
	for (int k = 0; k < 4; k++)
		stg(B + (lane / 4) * 32 + 8 * k + 2 * (lane % 4), r + k, 4);
}
""")

# ---- fallback: shared -> shared, one thread ---------------------------
emit("fallback_s2s", """# fallback: a shared -> shared transpose-free copy (no vector variant accepts
# memory to memory within shared); thread 0 walks the elements, 16 bytes at a time
target sm_90

kernel fallback_s2s
threads 32
param  A f16 [8, 16]
param  B f16 [8, 16]
shared S f16 [8, 16]
shared S2 f16 [8, 16]

cta copy S, A
sync
cta copy S2, S
sync
cta copy B, S2
""", """KERNEL(32) fallback_s2s(const uint16_t *A, uint16_t *B)
{
	__shared__ __align__(16) uint16_t S[128], S2[128];
	const unsigned lane = threadIdx.x;
	Mov<8>::g2s(smem(S) + lane * 8, A + lane * 4);
	__syncthreads();
	if (threadIdx.x == 0)
		for (int i = 0; i < 16; i++) // the fallback's 16-byte vectors (vec_bits 128)
			Mov<16>::s2s(smem(S2) + i * 16, smem(S) + i * 16);
	__syncthreads();
	Mov<8>::s2g(B + lane * 4, smem(S2) + lane * 8);
}
""")


# ---- pipelines: STAGES cp.async stages per trip, each drained in order ----
def pipe(name, dt, stages, rows, cols, T, grid, rep, swz=False, note=""):
    ct, eb = DT[dt]
    v = 16 // eb
    outer = rows * cols // (T * v)
    per_cta = rep * stages * rows
    tot = grid * per_cta
    lay = f" layout S[({stages}, {rows}, {cols}) : ({rows * cols}, {cols}, 1)]" + (" swizzle(3, 3, 3)" if swz else "")
    body = ""
    for st in range(stages):
        r0 = f"ctaid*{per_cta} + j*{stages * rows}" + (f" + {st * rows}" if st else "")
        body += f"  cta copy_async S[{st}, :, :], A[{r0} : {r0} + {rows}, :] dispatch=ldgsts\n  cp_async.commit\n"
    for st in range(stages):
        r0 = f"ctaid*{per_cta} + j*{stages * rows}" + (f" + {st * rows}" if st else "")
        body += f"  cp_async.wait {stages - 1 - st}\n  sync\n  cta copy B[{r0} : {r0} + {rows}, :], S[{st}, :, :]\n"
    body += "  sync\n"
    tile = (f"# {note}\ntarget sm_90\n\nkernel {name}\nthreads {T}\ngrid {grid}\n"
            f"param  A {dt} [{tot}, {cols}]\nparam  B {dt} [{tot}, {cols}]\nshared S {dt} [{stages}, {rows}, {cols}]{lay}\n\n"
            f"repeat {rep} as j {{\n{body}}}\n")
    so = (lambda e: f"swz({e})") if swz else (lambda e: f"({e})")
    waits = "".join(f"DEV void cp_async_wait_{n}() {{ asm volatile(\"cp.async.wait_group {n};\"); }}\n" for n in range(1, stages))
    drain = ""
    for st in range(stages):
        w = stages - 1 - st
        drain += (f"\t\tcp_async_wait_{w}();\n" if w else "\t\tcp_async_wait0();\n") + f"""\t\t__syncthreads();
#pragma unroll
\t\tfor (int i = 0; i < {outer}; i++) {{
\t\t\tunsigned c = (i * {T} + tid) * {v};
\t\t\tMov<16>::s2g(B + g0 + {st * rows * cols} + c, smem(S) + {so(f"{st * rows * cols} + c")} * {eb});
\t\t}}
"""
    cu = (SWZ if swz else "") + waits + f"""
KERNEL({T}) {name}(const {ct} *A, {ct} *B)
{{
	__shared__ __align__(128) uint8_t S[{stages * rows * cols * eb}];
	const unsigned tid = threadIdx.x;
	for (int j = 0; j < {rep}; j++) {{
		const size_t g0 = ((size_t)blockIdx.x * {per_cta} + j * {stages * rows}) * {cols};
#pragma unroll
		for (int s = 0; s < {stages}; s++) {{
#pragma unroll
			for (int i = 0; i < {outer}; i++) {{
				unsigned c = (i * {T} + tid) * {v};
				cp_async<16>(smem(S) + {so(f"s * {rows * cols} + c")} * {eb}, A + g0 + s * {rows * cols} + c);
			}}
			cp_async_commit();
		}}
{drain}		__syncthreads();
	}}
}}
"""
    emit(name, tile, cu)


# ---- held out (issue 23 section 5): added after the emitter fixes, not tuned for
ldm("ldm_x4_trans_m2", 4, True, mo=2, note="ldstmatrix: two ldmatrix.x4.trans per lane (16x32 column-major tile)")
ldm("ldm_x4_trans_m4", 4, True, mo=4, note="ldstmatrix: four ldmatrix.x4.trans per lane (32x32 column-major tile)")
stm("stm_x4_trans_m2", 4, True, mo=2, note="ldstmatrix: two stmatrix.x4.trans per lane (16x32 column-major tile)")
stm("stm_x4_trans_m4", 4, True, mo=4, note="ldstmatrix: four stmatrix.x4.trans per lane (32x32 column-major tile)")
gs("gs_f16_swz_t64", "f16", 32, 64, 64, 16, swz=True, note="gmem_smem: swizzled shared, 64 threads, 4 per thread")
ldgsts("ldgsts_bf16_swz_grid", "bf16", 64, 64, 128, 16, swz=True, grid=32, note="ldgsts: swizzled shared, one tile per CTA")
pipe("pipe3_ldgsts_f16_swz", "f16", 3, 16, 64, 128, 16, 2, swz=True, note="pipeline: three cp.async stages into a swizzled tile, 2 trips")
pipe("pipe2_ldgsts_f32", "f32", 2, 32, 32, 256, 8, 4, note="pipeline: two cp.async stages of f32 rows, 256 threads, 4 trips")


# ---- tcgen05 (sm_100a) ------------------------------------------------
def tc(name, dt, cols, note):
    ct, eb = DT[dt]
    words = cols * eb // 4
    tcols = max(32, 1 << (words - 1).bit_length())
    tile = f"""# {note}
target sm_100a

kernel {name}
threads 128
param  A {dt} [128, {cols}]
param  B {dt} [128, {cols}]
tmem   T {dt} [128, {cols}] layout S[(128, {cols}) : (1@TLane, 1@TCol)]
local  A_reg {dt} [128, {cols}] layout S[(128, {cols}) : (1@tid_in_wg, 1)]
local  B_reg {dt} [128, {cols}] layout S[(128, {cols}) : (1@tid_in_wg, 1)]

wg copy A_reg, A
wg copy_async T, A_reg
tcgen05.wait.st
sync
wg copy_async B_reg, T
tcgen05.wait.ld
wg copy B, B_reg
"""
    regs_o = ", ".join(f"%{i}" for i in range(1, words + 1))
    regs_i = ", ".join(f"%{i}" for i in range(0, words))
    cons_i = ", ".join(f'"=r"(r[{i}])' for i in range(words))
    cons_o = ", ".join(f'"r"(r[{i}])' for i in range(words))
    cu = f"""KERNEL(128) {name}(const {ct} *A, {ct} *B)
{{
	__shared__ uint32_t tm;
	const unsigned tid = threadIdx.x, warp = tid / 32;
	if (warp == 0) {{
		asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], {tcols};" ::"r"(smem(&tm)));
		asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
	}}
	asm volatile("tcgen05.fence::before_thread_sync;");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;");
	uint32_t taddr;
	asm volatile("ld.shared.b32 %0, [%1];" : "=r"(taddr) : "r"(smem(&tm)));
	uint32_t r[{words}];
#pragma unroll
	for (int i = 0; i < {words}; i += 4)
		ldg(r + i, (const uint32_t *)A + tid * {words} + i, 16);
	const uint32_t ta = taddr + ((uint32_t)(warp & 3) << 21);
	asm volatile("tcgen05.st.sync.aligned.32x32b.x{words}.b32 [%0], {{{regs_o}}};" ::"r"(ta), {cons_o});
	asm volatile("tcgen05.wait::st.sync.aligned;");
	__syncthreads();
	asm volatile("tcgen05.ld.sync.aligned.32x32b.x{words}.b32 {{{regs_i}}}, [%{words}];" : {cons_i} : "r"(ta));
	asm volatile("tcgen05.wait::ld.sync.aligned;");
#pragma unroll
	for (int i = 0; i < {words}; i += 4)
		stg((uint32_t *)B + tid * {words} + i, r + i, 16);
	asm volatile("tcgen05.fence::before_thread_sync;");
	__syncthreads();
	asm volatile("tcgen05.fence::after_thread_sync;");
	if (warp == 0)
		asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, {tcols};" ::"r"(taddr));
}}
"""
    emit(name, tile, cu)


tc("tc_f16_128x8", "f16", 8, "tcgen05_ldst: .32x32b.x4 round trip registers -> tensor memory -> registers")
tc("tc_f32_128x32", "f32", 32, "tcgen05_ldst: .32x32b.x32 round trip (32 columns)")

# ---- runtime sizes: ragged guards, runtime strides, runtime loops; the twins index
# in 32 bits, as CUDA C++ usually does (tilepx proves its offsets from the facts)
RAGGED = [
    ('ragged_gs_ld',
     '# gmem_smem with a runtime row stride (ld LDA), guarded at M and K, in a runtime loop over K\ntarget sm_90\n# set: M=70 K=40 LDA=56\n# sizes: M=1,64,65 K=8,64,72 LDA=72,136\nkernel ragged_gs_ld\nthreads 128\nparam M u32\nparam K u32\nparam LDA u32\nassume K % 8 == 0\nassume LDA % 8 == 0\nassume K <= 65536\nassume M <= 65536\ngrid cdiv(M, 64)\nparam A f16 [M, K] ld LDA\nparam B f16 [M, K] ld LDA\nshared S f16 [64, 64]\nrepeat cdiv(K, 64) as k {\n  cta copy S, A[ctaid*64 : ctaid*64+64, k*64 : k*64+64]\n  sync\n  cta copy B[ctaid*64 : ctaid*64+64, k*64 : k*64+64], S\n  sync\n}\n',
     'KERNEL(128) ragged_gs_ld(const uint16_t *A, uint16_t *B, unsigned M, unsigned K, unsigned LDA)\n{\n\t__shared__ __align__(16) uint16_t S[64 * 64];\n\tunsigned t = threadIdx.x, r0 = blockIdx.x * 64 + t / 8, c0 = t % 8 * 8;\n\tuint32_t s = smem(&S[t / 8 * 64 + c0]);\n\t#pragma unroll 1\n\tfor (unsigned k = 0; k < (K + 63) / 64; k++) {\n\t\tunsigned c = k * 64 + c0;\n\t\tfor (int j = 0; j < 4; j++) {\n\t\t\tunsigned r = r0 + 16 * j;\n\t\t\tuint32_t v[4] = {0, 0, 0, 0};\n\t\t\tif ((int)(M - r) > 0 && (int)(K - c) > 0)\n\t\t\t\tldg(v, A + (r * LDA + c), 16);\n\t\t\tsts(s + j * 2048, v, 16);\n\t\t}\n\t\t__syncthreads();\n\t\tfor (int j = 0; j < 4; j++) {\n\t\t\tunsigned r = r0 + 16 * j;\n\t\t\tuint32_t v[4];\n\t\t\tlds(v, s + j * 2048, 16);\n\t\t\tif ((int)(M - r) > 0 && (int)(K - c) > 0)\n\t\t\t\tstg(B + (r * LDA + c), v, 16);\n\t\t}\n\t\t__syncthreads();\n\t}\n}\n'),
    ('ragged_reg_loop',
     '# reg: an m8n8 x4 fragment from a ragged global tile and back, in a runtime loop over N\ntarget sm_90\n# set: M=13 N=70\n# sizes: M=1,8,9 N=2,32,34\nkernel ragged_reg_loop\nthreads 32\nparam M u32\nparam N u32\nassume N % 2 == 0\nassume M <= 65536\nassume N <= 65536\ngrid cdiv(M, 8)\nparam A f16 [M, N]\nparam B f16 [M, N]\nlocal R f16 [8, 32] layout S[(1, 8, 4, 4, 2) : (32@laneid, 4@laneid, 2, 1@laneid, 1)]\nrepeat cdiv(N, 32) as n {\n  warp copy R, A[ctaid*8 : ctaid*8+8, n*32 : n*32+32]\n  warp copy B[ctaid*8 : ctaid*8+8, n*32 : n*32+32], R\n}\n',
     'KERNEL(32) ragged_reg_loop(const uint16_t *A, uint16_t *B, unsigned M, unsigned N)\n{\n\tconst unsigned lane = threadIdx.x, r = blockIdx.x * 8 + lane / 4;\n\t#pragma unroll 1\n\tfor (unsigned n = 0; n < (N + 31) / 32; n++) {\n\t\tuint32_t v[4];\n#pragma unroll\n\t\tfor (int k = 0; k < 4; k++) {\n\t\t\tunsigned c = n * 32 + 8 * k + 2 * (lane % 4);\n\t\t\tv[k] = 0;\n\t\t\tif ((int)(M - r) > 0 && (int)(N - c) > 0)\n\t\t\t\tldg(v + k, A + (r * N + c), 4);\n\t\t}\n#pragma unroll\n\t\tfor (int k = 0; k < 4; k++) {\n\t\t\tunsigned c = n * 32 + 8 * k + 2 * (lane % 4);\n\t\t\tif ((int)(M - r) > 0 && (int)(N - c) > 0)\n\t\t\t\tstg(B + (r * N + c), v + k, 4);\n\t\t}\n\t}\n}\n'),
    ('ragged_gs_f32_2d',
     '# gmem_smem f32 on a 2-D grid of 32x32 tiles, guarded at M and N\ntarget sm_90\n# set: M=45 N=36\n# sizes: M=1,32,33 N=4,32,36\nkernel ragged_gs_f32_2d\nthreads 256\nparam M u32\nparam N u32\nassume N % 4 == 0\nassume M <= 65536\nassume N <= 65536\ngrid cdiv(M, 32), cdiv(N, 32)\nparam A f32 [M, N]\nparam B f32 [M, N]\nshared S f32 [32, 32]\ncta copy S, A[ctaid*32 : ctaid*32+32, ctaid_y*32 : ctaid_y*32+32]\nsync\ncta copy B[ctaid*32 : ctaid*32+32, ctaid_y*32 : ctaid_y*32+32], S\n',
     'KERNEL(256) ragged_gs_f32_2d(const float *A, float *B, unsigned M, unsigned N)\n{\n\t__shared__ __align__(16) float S[32 * 32];\n\tunsigned t = threadIdx.x, r = blockIdx.x * 32 + t / 8, c = blockIdx.y * 32 + t % 8 * 4;\n\tuint32_t s = smem(&S[t / 8 * 32 + t % 8 * 4]);\n\tuint32_t v[4] = {0, 0, 0, 0};\n\tif ((int)(M - r) > 0 && (int)(N - c) > 0)\n\t\tldg(v, A + (r * N + c), 16);\n\tsts(s, v, 16);\n\t__syncthreads();\n\tlds(v, s, 16);\n\tif ((int)(M - r) > 0 && (int)(N - c) > 0)\n\t\tstg(B + (r * N + c), v, 16);\n}\n'),
    ('ragged_ldm_loop',
     '# ragged global -> shared, then ldmatrix x4 fragments stored to a ragged global tile, in a runtime loop over N\ntarget sm_90\n# set: M=70 N=72\n# sizes: M=1,64,65 N=8,64,72\nkernel ragged_ldm_loop\nthreads 128\nparam M u32\nparam N u32\nassume N % 8 == 0\nassume M <= 65536\nassume N <= 65536\ngrid cdiv(M, 64)\nparam A f16 [M, N]\nparam D f16 [M, N]\nshared S f16 [64, 64]\nlocal R f16 [8, 32] layout S[(1, 8, 4, 4, 2) : (32@laneid, 4@laneid, 2, 1@laneid, 1)]\nrepeat cdiv(N, 64) as n {\n  cta copy S, A[ctaid*64 : ctaid*64+64, n*64 : n*64+64]\n  sync\n  repeat 2 as j {\n    warp copy R, S[warpid*16 + j*8 : warpid*16 + j*8 + 8, j*32 : j*32 + 32]\n    warp copy D[ctaid*64 + warpid*16 + j*8 : ctaid*64 + warpid*16 + j*8 + 8, n*64 + j*32 : n*64 + j*32 + 32], R\n  }\n  sync\n}\n',
     'KERNEL(128) ragged_ldm_loop(const uint16_t *A, uint16_t *D, unsigned M, unsigned N)\n{\n\t__shared__ __align__(16) uint16_t S[64 * 64];\n\tunsigned t = threadIdx.x, lane = t % 32, w = t / 32, r0 = blockIdx.x * 64 + t / 8, c0 = t % 8 * 8;\n\tuint32_t s = smem(&S[t / 8 * 64 + c0]);\n\t#pragma unroll 1\n\tfor (unsigned n = 0; n < (N + 63) / 64; n++) {\n\t\tunsigned c = n * 64 + c0;\n#pragma unroll\n\t\tfor (int q = 0; q < 4; q++) {\n\t\t\tunsigned r = r0 + 16 * q;\n\t\t\tuint32_t v[4] = {0, 0, 0, 0};\n\t\t\tif ((int)(M - r) > 0 && (int)(N - c) > 0)\n\t\t\t\tldg(v, A + (r * N + c), 16);\n\t\t\tsts(s + q * 2048, v, 16);\n\t\t}\n\t\t__syncthreads();\n#pragma unroll\n\t\tfor (int j = 0; j < 2; j++) {\n\t\t\tuint32_t f[4];\n\t\t\tldsm<4, false>(f, smem(&S[(w * 16 + j * 8 + lane % 8) * 64 + j * 32 + lane / 8 * 8]));\n\t\t\tunsigned r = blockIdx.x * 64 + w * 16 + j * 8 + lane / 4;\n#pragma unroll\n\t\t\tfor (int k = 0; k < 4; k++) {\n\t\t\t\tunsigned cc = n * 64 + j * 32 + 8 * k + 2 * (lane % 4);\n\t\t\t\tif ((int)(M - r) > 0 && (int)(N - cc) > 0)\n\t\t\t\t\tstg(D + (r * N + cc), f + k, 4);\n\t\t\t}\n\t\t}\n\t\t__syncthreads();\n\t}\n}\n'),
    ('ragged_ldgsts_gs',
     '# cp.async with zero fill at the ragged edges, then shared -> ragged global, in a runtime loop over N\ntarget sm_90\n# set: M=70 N=72\n# sizes: M=1,64,65 N=8,64,72\nkernel ragged_ldgsts_gs\nthreads 128\nparam M u32\nparam N u32\nassume N % 8 == 0\nassume M <= 65536\nassume N <= 65536\ngrid cdiv(M, 64)\nparam A f16 [M, N]\nparam B f16 [M, N]\nshared S f16 [64, 64]\nrepeat cdiv(N, 64) as n {\n  cta copy_async S, A[ctaid*64 : ctaid*64+64, n*64 : n*64+64]\n  cp_async.commit\n  cp_async.wait 0\n  sync\n  cta copy B[ctaid*64 : ctaid*64+64, n*64 : n*64+64], S\n  sync\n}\n',
     'DEV void cp_async16_zfill(uint32_t s, const void *g, bool outside)\n{\n\tasm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %2, 0;\\ncp.async.cg.shared.global [%0], [%1], 16, p;\\n}" ::"r"(s), "l"(g), "r"((int)outside));\n}\nKERNEL(128) ragged_ldgsts_gs(const uint16_t *A, uint16_t *B, unsigned M, unsigned N)\n{\n\t__shared__ __align__(16) uint16_t S[64 * 64];\n\tunsigned t = threadIdx.x, r0 = blockIdx.x * 64 + t / 8, c0 = t % 8 * 8;\n\tuint32_t s = smem(&S[t / 8 * 64 + c0]);\n#pragma unroll 1\n\tfor (unsigned n = 0; n < (N + 63) / 64; n++) {\n\t\tunsigned c = n * 64 + c0;\n#pragma unroll\n\t\tfor (int j = 0; j < 4; j++) {\n\t\t\tunsigned r = r0 + 16 * j;\n\t\t\tcp_async16_zfill(s + j * 2048, A + (r * N + c), !((int)(M - r) > 0 && (int)(N - c) > 0));\n\t\t}\n\t\tcp_async_commit();\n\t\tcp_async_wait0();\n\t\t__syncthreads();\n#pragma unroll\n\t\tfor (int j = 0; j < 4; j++) {\n\t\t\tunsigned r = r0 + 16 * j;\n\t\t\tuint32_t v[4];\n\t\t\tlds(v, s + j * 2048, 16);\n\t\t\tif ((int)(M - r) > 0 && (int)(N - c) > 0)\n\t\t\t\tstg(B + (r * N + c), v, 16);\n\t\t}\n\t\t__syncthreads();\n\t}\n}\n'),
]
for _n, _tile, _cu in RAGGED:
    emit(_n, _tile, _cu)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, (tile, cu) in OUT.items():
        with open(os.path.join(here, name + ".tile"), "w") as f:
            f.write(tile)
        with open(os.path.join(here, name + ".cu"), "w") as f:
            f.write(cu)
    print(len(OUT), "pairs")
