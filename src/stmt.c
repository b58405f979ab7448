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
