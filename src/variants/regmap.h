/* The register map type (regpair.h builds it) that variant plans hold:
 * types only, on tilepx.h's, so that tilepx.h's end can include the plans
 * (variants/plans.h) through them. */
#ifndef TILEPX_REGMAP_H
#define TILEPX_REGMAP_H

enum { REG_MAX_ELEMS = 1024 }; /* 1020 bytes of registers per thread, at most one byte an element */

typedef struct RegMap {
	int elems;                   /* DST register elements the map covers (the highest copied + 1) */
	int words;                   /* DST words the copy writes */
	int16_t from[REG_MAX_ELEMS]; /* per DST register element: its SRC register element, -1 when not copied */
} RegMap;

#endif
