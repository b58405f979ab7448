/* The plan of variant bulk (src/variants/bulk.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.bulk. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_BULK_H
#define TILEPX_VARIANT_BULK_H

typedef struct bulk_plan {
	bool load;
	int64_t bytes;
} BulkPlan;

#endif
