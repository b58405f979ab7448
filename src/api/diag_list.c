/* The diagnostics of a compilation as a list (tilepx_compile_ex's
 * tilepx_diagnostics): one allocation, the items then their strings, so
 * that one free releases it. */
#include "tilepx.h"
#include "../include/tilepx/tilepx.h"

#include <stdlib.h>
#include <string.h>

typedef struct Fill {
	tilepx_diagnostics *out;
	char *strings; /* where the next string goes; NULL while sizing */
	size_t bytes;  /* the strings' bytes */
	int n;
} Fill;

static const char *keep(Fill *f, const char *s)
{
	size_t n = strlen(s) + 1;
	f->bytes += n;
	if (!f->strings)
		return NULL;
	char *at = memcpy(f->strings, s, n);
	f->strings += n;
	return at;
}

static void item(Fill *f, tilepx_severity sev, Loc loc, const char *file, const char *msg, int parent, bool werror)
{
	const char *m = keep(f, msg);
	if (f->strings) {
		f->out->items[f->n] = (tilepx_diagnostic){
			.severity = sev, .file = file, .line = loc.line, .column = loc.line ? loc.col : 0,
			.message = m, .parent = parent, .werror = werror};
	}
	f->n++;
}

static void fill(const Diags *d, Fill *f)
{
	const char *file = keep(f, d->file ? d->file : "<input>");
	for (size_t i = 0; i < d->n; i++) {
		const Diag *g = &d->items[i];
		int at = f->n;
		item(f, g->is_error ? TILEPX_ERROR : TILEPX_WARNING, g->loc, file, g->msg, -1, g->werror);
		for (size_t k = 0; k < g->nnotes; k++)
			item(f, TILEPX_NOTE, g->loc, file, g->notes[k], at, false);
	}
	char msgs[2][200];
	int n = diag_summaries(d, msgs);
	for (int i = 0; i < n; i++)
		item(f, TILEPX_NOTE, (Loc){0, 0}, file, msgs[i], -1, false);
}

bool diag_list_make(const Diags *d, tilepx_diagnostics *out)
{
	memset(out, 0, sizeof *out);
	Fill size = {.out = out};
	fill(d, &size); /* the count and the strings' bytes */
	size_t head = sizeof(tilepx_diagnostic) * (size_t)size.n;
	char *block = malloc(head + size.bytes + 1);
	if (!block)
		return false;
	out->items = (tilepx_diagnostic *)(void *)block;
	Fill f = {.out = out, .strings = block + head};
	fill(d, &f);
	out->n = f.n;
	return true;
}

void tilepx_diagnostics_free(tilepx_diagnostics *d)
{
	if (!d)
		return;
	free(d->items);
	memset(d, 0, sizeof *d);
}
