# warp-level mma (tensor cores, sm_80+). tilepx does not emit these itself:
# asm blocks name them, and a block that does raises .version and needs the
# capability (src/front/asm.c). Operand widths: D/C 4 registers, A 4, B 2.
MMA_M16N8K16_F32_F16   7.0 sm80 mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0:r32, $1:r32/imm, $2:r32/imm, $3:r32/imm}, {$4:r32/imm, $5:r32/imm, $6:r32/imm, $7:r32/imm}, {$8:r32/imm, $9:r32/imm}, {$0, $1, $2, $3};
MMA_M16N8K16_F32_BF16  7.0 sm80 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0:r32, $1:r32/imm, $2:r32/imm, $3:r32/imm}, {$4:r32/imm, $5:r32/imm, $6:r32/imm, $7:r32/imm}, {$8:r32/imm, $9:r32/imm}, {$0, $1, $2, $3};
