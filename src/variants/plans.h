/* The copy variants' plans: Plan.u holds the chosen variant's, one member
 * per row of variants.def. Variant NAME declares its plan, struct NAME_plan,
 * in variants/NAME.h, included here (a row without it does not compile). */
#ifndef TILEPX_VARIANT_PLANS_H
#define TILEPX_VARIANT_PLANS_H
#include "bulk.h"
#include "fallback.h"
#include "gmem_smem.h"
#include "ldgsts.h"
#include "ldstmatrix.h"
#include "red.h"
#include "reg.h"
#include "regmove.h"
#include "regshfl.h"
#include "tcgen05_ldst.h"
#include "tma.h"

typedef union VariantPlan {
#define VARIANT(name) struct name##_plan name;
#include "variants.def"
} VariantPlan;

/* the bytes of v's plan, its member of the union (src/dispatch/dispatch.c) */
size_t variant_plan_bytes(const Variant *v);

#endif
