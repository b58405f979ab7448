/* The plan of variant gmem_smem (src/variants/gmem_smem.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.gmem_smem. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_GMEM_SMEM_H
#define TILEPX_VARIANT_GMEM_SMEM_H
#include "part.h"

typedef struct gmem_smem_plan {
	bool global_is_dst;
	Part part;
} GsPlan;

#endif
