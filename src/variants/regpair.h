/* Register-to-register copies (regmove): which source register element
 * feeds each destination register element, decided exactly from the two
 * layouts, and the per-word code that moves, converts and packs them. */
#ifndef TILEPX_REGPAIR_H
#define TILEPX_REGPAIR_H

#include "../tilepx.h"
#include "regmap.h"

/* the instructions of a copy's words, by kind */
typedef struct RegCounts {
	int mov, prmt, cvt;
	int temps; /* stand-in temporaries while counting */
} RegCounts;

/* both operands registers, owned alike and no wider than the scope, their
 * regions at constant registers and thread offset 0 */
const char *regpair_accepts(const CopyOp *op);
/* where DST and SRC hold element x of the regions (threads inside the owner group) */
typedef struct RegPlace {
	int64_t dthr, dreg, sthr, sreg;
} RegPlace;
/* every element's places, an arena array of op->elems */
RegPlace *regpair_places(const CopyOp *op);
/* the reason for a DST register copied in only `count` threads of its group */
const char *regpair_partial(const CopyOp *op, int r, int64_t count);
/* m->words from m->from */
void regpair_count_words(const CopyOp *op, RegMap *m);
/* NULL and m filled when every DST element's SRC element is in the same
 * thread, at one register for every thread; else the reason, naming an element */
const char *regpair_map(const CopyOp *op, RegMap *m);
/* element x (row-major over the region) of region r, as "NAME[i, j]" */
const char *regpair_coord(const CopyOp *op, const Region *r, int64_t x);
/* the instructions regpair_emit makes; via NULL: from SRC's words, else with
 * a register per element, elements of equal via[r] sharing one */
void regpair_count(const CopyOp *op, const RegMap *m, const int *via, bool converted, RegCounts *n);
/* every DST word the map writes, from SRC's words; via (regshfl), when not
 * NULL: per DST element, the register that holds its source word (brought
 * from another lane), the byte inside it as in SRC's word; converted: those
 * words hold elements already in DST's dtype (regpair_converted_source's
 * arrangement), so they are only moved */
void regpair_emit(const CopyOp *op, const RegMap *m, const Reg *via, bool converted, Emit *e);
/* a converting copy's SRC elements (used[r], and the rest of their words)
 * rounded to DST's dtype where SRC holds them: element r at byte
 * (r * size) % 4 of word r * size / 4 of the fresh words returned; e NULL:
 * only counted into n */
Reg *regpair_converted_source(const CopyOp *op, const bool *used, RegCounts *n, Emit *e);

#endif
