/* The public API: one arena per compilation, nothing global. */
#define _POSIX_C_SOURCE 200809L
#include "tilepx.h"
#include "../include/tilepx/tilepx.h"

#include <stdlib.h>
#include <string.h>

const char *tilepx_version(void) { return TILEPX_VERSION; }

/* a result that carries one argument error and no output */
static int usage_error(tilepx_result *out, const char *msg)
{
	out->ok = 0;
	out->diagnostics = strdup(msg);
	return 0;
}

int tilepx_compile(const char *path, const char *src, size_t len, const char *target, tilepx_mode mode,
                   tilepx_result *out)
{
	if (!out)
		return 0; /* nowhere to report: the documented contract is a non-NULL out */
	memset(out, 0, sizeof *out);
	if (!src && len > 0)
		return usage_error(out, "tilepx_compile: error: src is NULL but len is not 0\n");
	if ((unsigned)mode > TILEPX_EXPLAIN_JSON)
		return usage_error(out, "tilepx_compile: error: mode is not a tilepx_mode value\n");
	if (!src)
		src = "";
	if (!path)
		path = "<input>";
	Ctx cx = {0};
	cx.arena = arena_new();
	cx.diags.file = path;
	cx.diags.src = src;
	cx.diags.len = len;
	const Target *override = NULL;
	if (target && !(override = target_find(target))) {
		diag_error(&cx, (Loc){0, 0}, "unknown target '%s' (known: %s)", target, target_list());
	}
	Str text = {0};
	bool ok = false;
	if (!cx.diags.errors) {
		Module *m = parse_module(&cx, path, src, len);
		if (!cx.diags.errors) {
			if (override)
				m->target = override;
			switch (mode) {
			case TILEPX_CHECK: ok = check_and_dispatch(&cx, m); break;
			case TILEPX_EMIT: ok = emit_module(&cx, m, NULL, &text); break;
			case TILEPX_EXPLAIN: ok = explain_module(&cx, m, false, &text); break;
			case TILEPX_EXPLAIN_JSON: ok = explain_module(&cx, m, true, &text); break;
			}
		}
	}
	ok = ok && cx.diags.errors == 0;
	char *d = NULL;
	size_t dn = 0;
	FILE *f = open_memstream(&d, &dn);
	if (f) {
		diag_print(&cx.diags, f);
		fclose(f);
	}
	out->ok = ok;
	out->diagnostics = d;
	/* explain's table is the answer even when a copy has no variant (then exit 1) */
	bool explaining = mode == TILEPX_EXPLAIN || mode == TILEPX_EXPLAIN_JSON;
	if ((ok || explaining) && text.s) {
		out->output = text.s;
		out->output_len = text.n;
	} else {
		str_free(&text);
	}
	arena_free(cx.arena);
	return ok;
}

void tilepx_result_free(tilepx_result *r)
{
	if (!r)
		return;
	free(r->output);
	free(r->diagnostics);
	memset(r, 0, sizeof *r);
}
