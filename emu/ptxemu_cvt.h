/* ptxemu: the cvt forms tilepx emits (ptx_templates/cvt.tpl), bit-exact */
#ifndef PTXEMU_CVT_H
#define PTXEMU_CVT_H
#include <stdbool.h>
#include <stdint.h>

/* one f32 -> f16 (bf16 when bf) conversion, round to nearest even */
uint16_t ptxemu_cvt_rn_half(uint32_t f32, bool bf);
/* cvt.f32.f16 of the low 16 bits */
uint32_t ptxemu_cvt_f32_f16(uint32_t h);
/* the result of instruction `op` on sources a, b (b unused by one-source
 * forms); false: not a cvt form this file models */
bool ptxemu_cvt(const char *op, uint32_t a, uint32_t b, uint32_t *d);
#endif
