/* The plan of variant tma (src/variants/tma.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.tma. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_TMA_H
#define TILEPX_VARIANT_TMA_H

typedef struct tma_plan {
	bool load;
	int64_t bytes;
} TmaPlan;

#endif
