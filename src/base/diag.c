/* Located diagnostics: FILE:LINE:COL: error: MSG, the source line, a caret. */
#include "tilepx.h"

#include <string.h>

static void add(Ctx *cx, bool is_error, Loc loc, const char *fmt, va_list ap)
{
	Diags *d = &cx->diags;
	if (is_error) {
		d->errors++;
		size_t kept = 0; /* the warnings held so far go */
		for (size_t i = 0; i < d->n; i++)
			if (d->items[i].is_error)
				d->items[kept++] = d->items[i];
		d->warnings_dropped += (int)(d->n - kept);
		d->n = kept;
	} else {
		if (d->opt.no_warnings) { /* -w: not reported, nor counted as dropped */
			d->last_dropped = true;
			return;
		}
		d->warnings++;
		if (d->errors) {
			d->warnings_dropped++;
			d->last_dropped = true;
			return;
		}
	}
	int limit = d->opt.max_errors ? d->opt.max_errors : MAX_ERRORS;
	if (limit > 0 && d->n >= (size_t)limit) {
		d->not_shown += is_error;
		d->truncated = true;
		d->last_dropped = true;
		return;
	}
	d->last_dropped = false;
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *msg = arena_alloc(cx->arena, (size_t)n + 1);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	Diag g = {.is_error = is_error, .loc = loc, .msg = msg};
	APUSH(cx->arena, d->items, d->n, d->cap, g);
}

void diag_error(Ctx *cx, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(cx, true, loc, fmt, ap);
	va_end(ap);
}

/* a note attached to the last error or warning (printed after its caret) */
void diag_note(Ctx *cx, const char *fmt, ...)
{
	Diags *d = &cx->diags;
	if (d->n == 0 || d->last_dropped)
		return;
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *msg = arena_alloc(cx->arena, (size_t)n + 1);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	Diag *g = &d->items[d->n - 1];
	APUSH(cx->arena, g->notes, g->nnotes, g->notecap, msg);
}

/* drop the warnings added since the first n diagnostics (a pass run again
 * for its errors only) */
void diag_drop_warnings_since(Ctx *cx, size_t n)
{
	Diags *d = &cx->diags;
	size_t w = n;
	for (size_t i = n; i < d->n; i++)
		if (d->items[i].is_error)
			d->items[w++] = d->items[i];
		else
			d->warnings--;
	d->n = w;
}

/* Levenshtein distance of a and b, or 3 when it is more than 2 (the only
 * distances a suggestion uses) or a name is too long to compare */
static int edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 63 || nb > 63 || (na > nb ? na - nb : nb - na) > 2)
		return 3;
	int row[64];
	for (size_t j = 0; j <= nb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= na; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= nb; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			best = up + 1 < best ? up + 1 : best;
			best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
			diag = up;
			row[j] = best;
		}
	}
	return row[nb] < 3 ? row[nb] : 3;
}

/* note: did you mean 'NAME'? on the last diagnostic, for the one name of
 * names nearest to typed within edit distance 2 (none when two tie) */
void diag_suggest(Ctx *cx, const char *typed, const char *const *names, size_t n)
{
	const char *best = NULL;
	int bestd = 3;
	bool tie = false;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		int d = edit_distance(typed, names[i]);
		if (d < bestd) {
			best = names[i], bestd = d, tie = false;
		} else if (d == bestd && best && strcmp(best, names[i])) {
			tie = true;
		}
	}
	if (best && bestd > 0 && !tie)
		diag_note(cx, "did you mean '%s'?", best);
}

/* -Werror, once the passes are done (they decide their course by the errors
 * they see, and a warning must not change it): every warning is an error */
void diag_promote_warnings(Ctx *cx)
{
	Diags *d = &cx->diags;
	if (!d->opt.werror)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (!d->items[i].is_error) {
			d->items[i].is_error = d->items[i].werror = true;
			d->errors++;
			d->warnings--;
		}
}

void diag_warning(Ctx *cx, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add(cx, false, loc, fmt, ap);
	va_end(ap);
}

/* gcc's colours (GCC_COLORS' defaults): an SGR sequence, "" without --color */
static const char *sgr(const Diags *d, const char *kind)
{
	if (!d->opt.color)
		return "";
	if (!strcmp(kind, "error"))
		return "\033[01;31m";
	if (!strcmp(kind, "warning"))
		return "\033[01;35m";
	if (!strcmp(kind, "note"))
		return "\033[01;36m";
	if (!strcmp(kind, "caret"))
		return "\033[01;32m";
	if (!strcmp(kind, "locus"))
		return "\033[01m";
	return "\033[m"; /* reset */
}

/* FILE:LINE:COL: KIND: (no LINE:COL for line 0), coloured as gcc's */
static void header(const Diags *d, Loc loc, const char *kind, FILE *out)
{
	fputs(sgr(d, "locus"), out);
	if (loc.line > 0)
		fprintf(out, "%s:%d:%d:", d->file, loc.line, loc.col);
	else
		fprintf(out, "%s:", d->file);
	fprintf(out, "%s %s%s:%s ", sgr(d, ""), sgr(d, kind), kind, sgr(d, ""));
}

/* the text of line `line` (1-based), printable bytes only */
static void print_line(const Diags *d, int line, int col, FILE *out)
{
	size_t i = 0;
	for (int l = 1; l < line && i < d->len; i++)
		if (d->src[i] == '\n')
			l++;
	size_t end = i;
	while (end < d->len && d->src[end] != '\n' && end - i < 400)
		end++;
	fputc(' ', out);
	for (size_t k = i; k < end; k++) {
		unsigned char c = (unsigned char)d->src[k];
		fputc(c == '\t' ? ' ' : (c < 32 || c > 126) ? '?' : c, out);
	}
	fputc('\n', out);
	fputc(' ', out);
	for (int k = 1; k < col && k < 400; k++)
		fputc(' ', out);
	fprintf(out, "%s^%s\n", sgr(d, "caret"), sgr(d, ""));
}

/* s as a JSON string */
static void json_string(const char *s, FILE *out)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 32 || *c == 127)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

/* one diagnostic object as gcc's -fdiagnostics-format=json writes it: kind,
 * message, locations (a caret; none at line 0), children (its notes) */
static void json_item(const Diags *d, const char *kind, const char *msg, const char *option, Loc loc, char **notes,
                      size_t nnotes, FILE *out)
{
	fprintf(out, "{\"kind\": \"%s\", \"column-origin\": 1, \"message\": ", kind);
	json_string(msg, out);
	if (option) {
		fputs(", \"option\": ", out);
		json_string(option, out);
	}
	fputs(", \"locations\": [", out);
	if (loc.line > 0) {
		fputs("{\"caret\": {\"file\": ", out);
		json_string(d->file, out);
		fprintf(out, ", \"line\": %d, \"display-column\": %d, \"byte-column\": %d, \"column\": %d}}", loc.line,
		        loc.col, loc.col, loc.col);
	}
	fputs("], \"children\": [", out);
	for (size_t k = 0; k < nnotes; k++) {
		fputs(k ? ", " : "", out);
		json_item(d, "note", notes[k], NULL, loc, NULL, 0, out);
	}
	fputs("]}", out);
}

int diag_summaries(const Diags *d, char msgs[2][200])
{
	int n = 0;
	if (d->truncated)
		snprintf(msgs[n++], sizeof msgs[0], "%d more error%s not shown (--max-errors %d; 0 shows all)", d->not_shown,
		         d->not_shown == 1 ? "" : "s", d->opt.max_errors ? d->opt.max_errors : MAX_ERRORS);
	if (d->warnings_dropped)
		snprintf(msgs[n++], sizeof msgs[0],
		         "%d warning%s not shown: the analyses that give %s assume a program without errors",
		         d->warnings_dropped, d->warnings_dropped == 1 ? "" : "s", d->warnings_dropped == 1 ? "it" : "them");
	return n;
}

/* --diagnostics-format=json: one array (on one line) of every diagnostic,
 * and the summaries text gives as notes, as top-level notes without a location */
static void diag_print_json(const Diags *d, FILE *out)
{
	fputc('[', out);
	for (size_t i = 0; i < d->n; i++) {
		const Diag *g = &d->items[i];
		fputs(i ? ", " : "", out);
		json_item(d, g->is_error ? "error" : "warning", g->msg, g->werror ? "-Werror" : NULL, g->loc, g->notes,
		          g->nnotes, out);
	}
	char msgs[2][200];
	int n = diag_summaries(d, msgs);
	for (int i = 0; i < n; i++) {
		fputs(d->n || i ? ", " : "", out);
		json_item(d, "note", msgs[i], NULL, (Loc){0, 0}, NULL, 0, out);
	}
	fputs("]\n", out);
}

void diag_print(const Diags *d, FILE *out)
{
	if (d->opt.json) {
		diag_print_json(d, out);
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		const Diag *g = &d->items[i];
		header(d, g->loc, g->is_error ? "error" : "warning", out);
		fprintf(out, "%s%s\n", g->msg, g->werror ? " [-Werror]" : "");
		if (g->loc.line > 0)
			print_line(d, g->loc.line, g->loc.col, out);
		for (size_t k = 0; k < g->nnotes; k++) {
			header(d, g->loc, "note", out);
			fprintf(out, "%s\n", g->notes[k]);
		}
	}
	Loc none = {0, 0};
	if (d->truncated) {
		header(d, none, "note", out);
		fprintf(out, "%d more error%s not shown (--max-errors %d; 0 shows all)\n", d->not_shown,
		        d->not_shown == 1 ? "" : "s", d->opt.max_errors ? d->opt.max_errors : MAX_ERRORS);
	}
	if (d->warnings_dropped) {
		header(d, none, "note", out);
		fprintf(out, "%d warning%s not shown: the analyses that give %s assume a program without errors\n",
		        d->warnings_dropped, d->warnings_dropped == 1 ? "" : "s", d->warnings_dropped == 1 ? "it" : "them");
	}
}
