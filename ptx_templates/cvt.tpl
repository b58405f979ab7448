# converting copies (docs/language.md "Converting copies"): f32 registers
# rounded to nearest even into f16 / bf16, two to a 32-bit register (the
# first source goes to the upper half), and f16 widened to f32. Sources and
# destinations are .b32 registers (cvt accepts registers wider than its
# types: cvt.f32.f16 reads the low 16 bits). bf16 -> f32 needs no cvt (the
# bits shifted into the upper half: and.b32 / shl.b32 of arith.tpl).
CVT_RN_F16X2_F32    7.0 sm80 fam=cvt atype=f32 dtype=f16    cvt.rn.f16x2.f32 $0:r32, $1:r32/imm, $2:r32/imm;
CVT_RN_BF16X2_F32   7.0 sm80 fam=cvt atype=f32 dtype=bf16   cvt.rn.bf16x2.f32 $0:r32, $1:r32/imm, $2:r32/imm;
CVT_F32_F16         6.3 all  fam=cvt atype=f16 dtype=f32    cvt.f32.f16 $0:r32, $1:r32/imm;
