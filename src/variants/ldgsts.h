/* The plan of variant ldgsts (src/variants/ldgsts.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.ldgsts. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_LDGSTS_H
#define TILEPX_VARIANT_LDGSTS_H
#include "part.h"

typedef struct ldgsts_plan {
	Part part; /* a = global, b = shared (gs_partition) */
} LdgstsPlan;

#endif
