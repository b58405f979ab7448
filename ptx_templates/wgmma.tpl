# warpgroup matrix multiply-accumulate (Hopper, sm_90a only; PTX 8.0).
# Operands: $0 the accumulator registers {d0, ...}, $1 the A descriptor, $2 the
# B descriptor (64-bit, src/front/wgmma.c), $3 scale-d (an immediate: 0 overwrites,
# 1 accumulates), imm-scale-a/b 1; f16/bf16 take imm-trans-a ($4) and
# imm-trans-b ($5): 1 reads that operand MN-major. regs = accumulator registers.
WGMMA_FENCE        8.0 sm90a  wgmma.fence.sync.aligned;
WGMMA_COMMIT       8.0 sm90a  wgmma.commit_group.sync.aligned;
WGMMA_WAIT         8.0 sm90a  wgmma.wait_group.sync.aligned $0:imm;
# descriptor arithmetic: (shared address >> 4) | the layout's constant fields
OR_B64             6.3 all    or.b64 $0:r64, $1:r64/imm, $2:r32/imm;
@foreach N 8 256 8
WGMMA_M64N${N}K16_F32_F16       8.0 sm90a shape=m64n${N}k16 atype=f16 btype=f16 dtype=f32 regs=${N/2}    wgmma.mma_async.sync.aligned.m64n${N}k16.f32.f16.f16 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1, $4:r32/imm, $5:r32/imm;
@foreach N 8 256 8
WGMMA_M64N${N}K16_F16_F16       8.0 sm90a shape=m64n${N}k16 atype=f16 btype=f16 dtype=f16 regs=${N/4}    wgmma.mma_async.sync.aligned.m64n${N}k16.f16.f16.f16 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1, $4:r32/imm, $5:r32/imm;
@foreach N 8 256 8
WGMMA_M64N${N}K16_F32_BF16      8.0 sm90a shape=m64n${N}k16 atype=bf16 btype=bf16 dtype=f32 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k16.f32.bf16.bf16 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1, $4:r32/imm, $5:r32/imm;
@foreach N 8 256 8
WGMMA_M64N${N}K8_F32_TF32       8.0 sm90a shape=m64n${N}k8 atype=tf32 btype=tf32 dtype=f32 regs=${N/2}   wgmma.mma_async.sync.aligned.m64n${N}k8.f32.tf32.tf32 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F32_E4M3_E4M3 8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e4m3 dtype=f32 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e4m3.e4m3 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F32_E4M3_E5M2 8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e5m2 dtype=f32 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e4m3.e5m2 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F32_E5M2_E4M3 8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e4m3 dtype=f32 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e5m2.e4m3 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F32_E5M2_E5M2 8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e5m2 dtype=f32 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e5m2.e5m2 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F16_E4M3_E4M3 8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e4m3 dtype=f16 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e4m3.e4m3 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F16_E4M3_E5M2 8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e5m2 dtype=f16 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e4m3.e5m2 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F16_E5M2_E4M3 8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e4m3 dtype=f16 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e5m2.e4m3 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_M64N${N}K32_F16_E5M2_E5M2 8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e5m2 dtype=f16 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e5m2.e5m2 $0:vec, $1:r64/imm, $2:r64/imm, $3:r32/imm, 1, 1;
# the RS form: A from registers ($1: four .b32 words per thread, the A
# fragment), B by descriptor ($2); f16/bf16 take imm-trans-b ($4) only
@foreach N 8 256 8
WGMMA_RS_M64N${N}K16_F32_F16  8.0 sm90a shape=m64n${N}k16 atype=f16 btype=f16 dtype=f32 areg=1 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k16.f32.f16.f16 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1, $4:r32/imm;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K16_F16_F16  8.0 sm90a shape=m64n${N}k16 atype=f16 btype=f16 dtype=f16 areg=1 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k16.f16.f16.f16 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1, $4:r32/imm;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K16_F32_BF16  8.0 sm90a shape=m64n${N}k16 atype=bf16 btype=bf16 dtype=f32 areg=1 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k16.f32.bf16.bf16 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1, $4:r32/imm;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K8_F32_TF32  8.0 sm90a shape=m64n${N}k8 atype=tf32 btype=tf32 dtype=f32 areg=1 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k8.f32.tf32.tf32 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F32_E4M3_E4M3  8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e4m3 dtype=f32 areg=1 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e4m3.e4m3 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F32_E4M3_E5M2  8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e5m2 dtype=f32 areg=1 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e4m3.e5m2 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F32_E5M2_E4M3  8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e4m3 dtype=f32 areg=1 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e5m2.e4m3 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F32_E5M2_E5M2  8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e5m2 dtype=f32 areg=1 regs=${N/2}  wgmma.mma_async.sync.aligned.m64n${N}k32.f32.e5m2.e5m2 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F16_E4M3_E4M3  8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e4m3 dtype=f16 areg=1 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e4m3.e4m3 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F16_E4M3_E5M2  8.0 sm90a shape=m64n${N}k32 atype=e4m3 btype=e5m2 dtype=f16 areg=1 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e4m3.e5m2 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F16_E5M2_E4M3  8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e4m3 dtype=f16 areg=1 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e5m2.e4m3 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
@foreach N 8 256 8
WGMMA_RS_M64N${N}K32_F16_E5M2_E5M2  8.0 sm90a shape=m64n${N}k32 atype=e5m2 btype=e5m2 dtype=f16 areg=1 regs=${N/4}  wgmma.mma_async.sync.aligned.m64n${N}k32.f16.e5m2.e5m2 $0:vec, $1:vec, $2:r64/imm, $3:r32/imm, 1, 1;
