/* The plan of variant regmove (src/variants/regmove.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.regmove. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_REGMOVE_H
#define TILEPX_VARIANT_REGMOVE_H
#include "regmap.h"

typedef struct regmove_plan {
	RegMap map;
} MovePlan;

#endif
