/* The plan of variant fallback (src/variants/fallback.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.fallback. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_FALLBACK_H
#define TILEPX_VARIANT_FALLBACK_H

typedef struct fallback_plan {
	int vec;  /* elements one thread moves per step */
	int svec; /* elements per source access (vec or fewer: the pieces of a step) */
	int dvec; /* elements per destination access */
	int64_t flat;    /* flat index distance of a step's elements: 1, or along a column of one side */
	int64_t col_ext; /* that column's extent (flat > 1) */
} FallbackPlan;

#endif
