/* The plan of variant fallback (src/variants/fallback.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.fallback. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_FALLBACK_H
#define TILEPX_VARIANT_FALLBACK_H

typedef struct fallback_plan {
	int vec; /* elements one thread moves at once */
} FallbackPlan;

#endif
