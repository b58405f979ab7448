/* The plan of variant reg (src/variants/reg.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.reg. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_REG_H
#define TILEPX_VARIANT_REG_H
#include "part.h"

typedef struct reg_plan {
	bool load; /* into registers */
	View rv;   /* register view, thread axes fused to the owner */
	Part part;
} RegPlan;

#endif
