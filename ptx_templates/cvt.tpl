# converting copies (docs/language.md "Converting copies"): f32 registers
# rounded to nearest even into f16 / bf16, two to a 32-bit register (the
# first source goes to the upper half), and f16 widened to f32. Sources and
# destinations are .b32 registers (cvt accepts registers wider than its
# types: cvt.f32.f16 reads the low 16 bits). bf16 -> f32 needs no cvt (the
# bits shifted into the upper half: and.b32 / shl.b32 of arith.tpl).
CVT_RN_F16X2_F32    7.0 sm80 fam=cvt atype=f32 dtype=f16    cvt.rn.f16x2.f32 $0:r32, $1:r32/imm, $2:r32/imm;
CVT_RN_BF16X2_F32   7.0 sm80 fam=cvt atype=f32 dtype=bf16   cvt.rn.bf16x2.f32 $0:r32, $1:r32/imm, $2:r32/imm;
CVT_F32_F16         6.3 all  fam=cvt atype=f16 dtype=f32    cvt.f32.f16 $0:r32, $1:r32/imm;
# register-to-register copies f32 -> fp8 (docs/language.md "Register-to-register
# copies"): a pair rounded to nearest even and saturated to the largest finite
# value into a 16-bit register (the first source is the upper byte), widened
# to 32 bits to be packed by prmt. The same rows as the compute branch's
# fmath.tpl (set's conversions): keep one copy when both are merged.
CVT_RN_SATF_E4M3X2_F32 7.8 sm90 cvt.rn.satfinite.e4m3x2.f32 $0:r16, $1:r32, $2:r32;
CVT_RN_SATF_E5M2X2_F32 7.8 sm90 cvt.rn.satfinite.e5m2x2.f32 $0:r16, $1:r32, $2:r32;
CVT_U32_U16         6.3 all   cvt.u32.u16 $0:r32, $1:r16;
