/* The reference's hook of every statement kind (stmt.def's ref column):
 * above ref.c and red.c, whose hooks it names, so neither names the other's
 * table. */
#include "ref.h"

const RefHook ref_hook[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, ...) [ST_##kind] = ref,
#include "../stmt.def"
};
const char *const ref_keyword[ST_COUNT] = {
#define STMT(kind, kw, ...) [ST_##kind] = kw,
#include "../stmt.def"
};
