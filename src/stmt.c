/* The statement table's shared columns (keyword, flags, capability, and the
 * semantics the analyses read); each pass instantiates its own hook column
 * from stmt.def. */
#include "tilepx.h"

const StmtInfo stmt_info[ST_COUNT] = {
#define STMT(kind, kw, flags, cap, parse, check, emit, ref, bar, cbar, issue, wait, shared) [ST_##kind] = {kw, flags, cap, bar, cbar, issue, wait, shared},
#include "stmt.def"
};

void stmt_walk(Stmt **body, size_t n, void (*fn)(void *ctx, const Stmt *s), void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		fn(ctx, body[i]);
		if (stmt_info[body[i]->kind].flags & SF_BLOCK)
			stmt_walk(body[i]->body, body[i]->nbody, fn, ctx);
	}
}

void kernel_set_var(const Kernel *k, int64_t *vals, int var, int64_t v)
{
	vals[var] = v;
	for (int d = VAR_REPEAT0; d < k->nvars; d++)
		if (k->var_base && k->var_base[d] == var)
			vals[d] = (v + k->var_off[d]) % k->var_mod[d];
}
