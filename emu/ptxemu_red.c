/* ptxemu: red.global (the atomics of red.add / red.max) and the global
 * memory they reach. red.global.add.f32 (and .v2/.v4: one atomic per
 * element) rounds to nearest even and flushes subnormal inputs and results
 * to sign-preserving zero, a NaN result the canonical NaN; .noftz.f16x2
 * and .bf16x2 (and their .v2/.v4) add each half in its type, subnormals
 * kept, rounded to nearest even; max.s32 and min.u32 compare the 32-bit
 * patterns. The emulator runs the CTAs one
 * cluster after another, so the atomics land in that order.
 *
 * The race state they update: ptxemu_red_track.c.
 *
 * Races: atomics to one word from different threads do not race with each
 * other, but a plain access (ld, st) to a word that another thread reduces
 * into does, in either order: nothing orders two CTAs' accesses within a
 * launch. In a program with red instructions every tracked global word
 * keeps its state for the launch: untouched, the one thread that reached
 * it (4 g + 1 reduced, + 2 plainly accessed, both bits possible), or
 * reduced by several threads and nothing else (RED_MANY). A plain access
 * remembers its last thread only, so a plain access of a third thread in
 * between may go unseen; every race it reports is one. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"
#include "ptxemu_float.h"
#include "ptxemu_cvt.h"
#include "ptxemu_half.h"

static uint32_t flush(uint32_t x) { return (x & 0x7f800000u) ? x : x & 0x80000000u; }

static uint32_t red_add_f32(uint32_t a, uint32_t b)
{
	return flush(ptxemu_float_exec(ptxemu_float_decode("add.rn.f32"), flush(a), flush(b), 0));
}

/* one f16 or bf16 half of a .noftz x2 add: both widened exactly, added in
 * f32 (exact, or within the type's half unit: the one rounding to the type
 * is then the correctly rounded sum), rounded to nearest even */
static uint16_t red_add_half(uint16_t a, uint16_t b, bool bf)
{
	uint32_t fa = bf ? emu_half_bits(a, true) : ptxemu_cvt_f32_f16(a), fb = bf ? emu_half_bits(b, true) : ptxemu_cvt_f32_f16(b);
	return ptxemu_cvt_rn_half(ptxemu_float_exec(ptxemu_float_decode("add.rn.f32"), fa, fb, 0), bf);
}

static uint32_t red_add_x2(uint32_t a, uint32_t b, bool bf)
{
	return (uint32_t)red_add_half((uint16_t)a, (uint16_t)b, bf) |
	       (uint32_t)red_add_half((uint16_t)(a >> 16), (uint16_t)(b >> 16), bf) << 16;
}

void exec_red(Machine *m, Thread *t, Ins *in)
{
	const char *op = in->op;
	int n = strstr(op, ".v4.") ? 4 : strstr(op, ".v2.") ? 2 : 1;
	bool bf2 = strstr(op, ".bf16x2") != NULL, h2 = bf2 || strstr(op, ".f16x2") != NULL;
	bool add = strstr(op, ".add.") && (strstr(op, ".f32") || h2), max = strstr(op, ".max.s32") != NULL,
	     min = strstr(op, ".min.u32") != NULL;
	if (!strstr(op, ".global.") || (!add && !max && !min) || in->nops != 1 + n) {
		snprintf(m->errbuf, sizeof m->errbuf, "unsupported instruction '%s'", op);
		m->err = m->errbuf;
		return;
	}
	track(m, t, in, true); /* its line, for a report; the access is checked as an atomic below */
	m->acc_warp = -1;
	uint64_t a = oaddr(m, t, &in->od[0]);
	unsigned char *p = mem(m, false, a, 4 * n);
	if (!p || !red_global_access(m, (a >> 40) - 1, a & ((1ull << 40) - 1), 4 * n, true, (int)(t - m->t)))
		return;
	for (int i = 0; i < n; i++) {
		uint32_t old, v = (uint32_t)oval(m, t, &in->od[1 + i]);
		memcpy(&old, p + 4 * i, 4);
		uint32_t r = h2 ? red_add_x2(old, v, bf2) : add ? red_add_f32(old, v) : max ? ((int32_t)v > (int32_t)old ? v : old) : (v < old ? v : old);
		memcpy(p + 4 * i, &r, 4);
	}
}
