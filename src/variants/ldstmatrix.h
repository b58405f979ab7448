/* The plan of variant ldstmatrix (src/variants/ldstmatrix.c): what its plan hook
 * decides and its emit and trace hooks read, Plan.u.ldstmatrix. Included by
 * tilepx.h (variants/plans.h), after the types it names. */
#ifndef TILEPX_VARIANT_LDSTMATRIX_H
#define TILEPX_VARIANT_LDSTMATRIX_H
#include "part.h"

typedef struct ldstmatrix_plan {
	bool ld, trans;
	bool b8;        /* ldmatrix m16n16 / stmatrix m16n8 .trans .b8 */
	int64_t rs[3];  /* b8: shared strides of the row digits (row/4, row/2%2, row%2 for ld; row/2, row%2 for st) */
	int num;
	int64_t p;      /* shared stride between the 8 rows a lane group addresses */
	int64_t warps;  /* T / 32 */
	int64_t s_warp; /* shared stride per warp */
	int nm, nn;     /* pairs in the m_outer and num groups */
	Pair m[MAX_ITERS], n[MAX_ITERS];
	int64_t m_outer;
	int64_t r_off;  /* register offset of the region (elements) */
	View sv;
} LdstPlan;

#endif
