/* The plan of variant regshfl (src/variants/regshfl.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.regshfl. The per-element
 * shuffle table is large (REG_MAX_ELEMS entries): the plan holds it in the
 * compilation's arena. Included by tilepx.h (variants/plans.h). */
#ifndef TILEPX_VARIANT_REGSHFL_H
#define TILEPX_VARIANT_REGSHFL_H

typedef struct regshfl_plan {
	const struct ShflPlan *sp;
} RegshflPlan;

#endif
