/* The plan of variants red_add and red_max (src/variants/red.c, one
 * lowering for both ops): what its plan hook decides and its emit hook
 * reads, Plan.u.red_add (red_max's member has the same bytes). Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_RED_H
#define TILEPX_VARIANT_RED_H
#include "part.h"

typedef struct red_add_plan {
	View rv; /* register view, thread axes fused to the owner */
	Part part;
} RedAtomPlan;

struct red_max_plan {
	RedAtomPlan same; /* red_max is red_add's lowering with another op */
};

#endif
