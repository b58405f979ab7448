/* jsonsub WANT GOT: do GOT's JSON records contain WANT's? Each file holds one
 * JSON value per line (blank lines are skipped). The files must hold the same
 * number of records, and record i of GOT must match record i of WANT: an
 * object matches when every field WANT names is in GOT with a matching value
 * (fields WANT leaves out are not compared, so `tilepx explain` may gain
 * fields without rewriting every expectation); arrays match element by
 * element and have the same length; strings, numbers, true, false and null
 * match when their text is equal. Prints one line per mismatch, naming the
 * record's line in each file and the field's path; exit 0 on a match, 1 on a
 * mismatch, 2 on a usage or syntax error. Used by tests/lib.sh for the
 * '# explain:' expectations of tests/explain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Val Val;
struct Val {
	char kind;          /* o(bject) a(rray) s(tring) n(umber or literal) */
	const char *text;   /* s, n: the token as written (strings without quotes) */
	size_t len;
	Val **items;        /* o: values, a: elements */
	Val **keys;         /* o: the keys (kind s) */
	size_t n;
};

typedef struct {
	const char *p, *end, *file;
	int line;
	int failed;
} Parser;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "jsonsub: out of memory\n");
		exit(2);
	}
	return p;
}

static void free_val(Val *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		free_val(v->items[i]);
		free_val(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v);
}

static void syntax(Parser *ps, const char *what)
{
	if (!ps->failed)
		fprintf(stderr, "%s:%d: jsonsub: %s\n", ps->file, ps->line, what);
	ps->failed = 1;
}

static void skip_ws(Parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r'))
		ps->p++;
}

static Val *parse_value(Parser *ps, int depth);

static Val *parse_string(Parser *ps)
{
	Val *v = xrealloc(NULL, sizeof *v);
	memset(v, 0, sizeof *v);
	v->kind = 's';
	v->text = ++ps->p;
	while (ps->p < ps->end && *ps->p != '"')
		ps->p += *ps->p == '\\' && ps->p + 1 < ps->end ? 2 : 1;
	if (ps->p >= ps->end) {
		syntax(ps, "unterminated string");
		return v;
	}
	v->len = (size_t)(ps->p - v->text);
	ps->p++;
	return v;
}

static Val *parse_container(Parser *ps, int depth)
{
	Val *v = xrealloc(NULL, sizeof *v);
	memset(v, 0, sizeof *v);
	v->kind = *ps->p == '{' ? 'o' : 'a';
	char close = v->kind == 'o' ? '}' : ']';
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return v;
	}
	for (;;) {
		Val *key = NULL;
		skip_ws(ps);
		if (v->kind == 'o') {
			if (ps->p >= ps->end || *ps->p != '"') {
				syntax(ps, "expected a field name");
				return v;
			}
			key = parse_string(ps);
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				syntax(ps, "expected ':'");
				free_val(key);
				return v;
			}
			ps->p++;
		}
		Val *item = parse_value(ps, depth + 1);
		v->items = xrealloc(v->items, sizeof *v->items * (v->n + 1));
		v->keys = xrealloc(v->keys, sizeof *v->keys * (v->n + 1));
		v->items[v->n] = item;
		v->keys[v->n++] = key;
		if (ps->failed)
			return v;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return v;
		}
		syntax(ps, v->kind == 'o' ? "expected ',' or '}'" : "expected ',' or ']'");
		return v;
	}
}

static Val *parse_value(Parser *ps, int depth)
{
	skip_ws(ps);
	if (depth > 64) {
		syntax(ps, "nested too deeply");
		return NULL;
	}
	if (ps->p >= ps->end) {
		syntax(ps, "expected a value");
		return NULL;
	}
	if (*ps->p == '{' || *ps->p == '[')
		return parse_container(ps, depth);
	if (*ps->p == '"')
		return parse_string(ps);
	Val *v = xrealloc(NULL, sizeof *v);
	memset(v, 0, sizeof *v);
	v->kind = 'n';
	v->text = ps->p;
	while (ps->p < ps->end && strchr("+-.0123456789eEtrufalsn", *ps->p))
		ps->p++;
	v->len = (size_t)(ps->p - v->text);
	if (!v->len)
		syntax(ps, "expected a value");
	return v;
}

typedef struct {
	Val **recs;
	int *lines;
	size_t n;
	char *buf; /* the file's text, which the values point into */
} Records;

static void free_records(Records *r)
{
	for (size_t i = 0; i < r->n; i++)
		free_val(r->recs[i]);
	free(r->recs);
	free(r->lines);
}

static int read_records(const char *file, Records *r)
{
	FILE *f = fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "jsonsub: cannot read %s\n", file);
		return 0;
	}
	char *buf = NULL;
	size_t cap = 0, len = 0, got;
	do {
		if (cap - len < 65536)
			buf = xrealloc(buf, cap = cap * 2 + 65536);
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	r->buf = buf;
	Parser ps = {buf, buf, file, 0, 0};
	for (const char *s = buf; s < buf + len;) {
		const char *e = memchr(s, '\n', (size_t)(buf + len - s));
		if (!e)
			e = buf + len;
		ps.line++;
		ps.p = s;
		ps.end = e;
		skip_ws(&ps);
		if (ps.p < e) {
			Val *v = parse_value(&ps, 0);
			skip_ws(&ps);
			if (!ps.failed && ps.p < e)
				syntax(&ps, "text after the record");
			if (ps.failed) {
				free_val(v);
				return 0;
			}
			r->recs = xrealloc(r->recs, sizeof *r->recs * (r->n + 1));
			r->lines = xrealloc(r->lines, sizeof *r->lines * (r->n + 1));
			r->recs[r->n] = v;
			r->lines[r->n++] = ps.line;
		}
		s = e + 1;
	}
	return 1;
}

static void print_val(const Val *v)
{
	if (v->kind == 's')
		printf("\"%.*s\"", (int)v->len, v->text);
	else if (v->kind == 'n')
		printf("%.*s", (int)v->len, v->text);
	else {
		printf("%c", v->kind == 'o' ? '{' : '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				printf(", ");
			if (v->keys[i])
				printf("\"%.*s\": ", (int)v->keys[i]->len, v->keys[i]->text);
			print_val(v->items[i]);
		}
		printf("%c", v->kind == 'o' ? '}' : ']');
	}
}

/* prints the first difference under path and returns 0, or returns 1 */
static int match(const Val *want, const Val *got, char *path, size_t plen, size_t pcap, const char *where)
{
	if (want->kind != got->kind || ((want->kind == 's' || want->kind == 'n') &&
	                                 (want->len != got->len || memcmp(want->text, got->text, want->len)))) {
		printf("%s: %s: want ", where, plen ? path : "(the record)");
		print_val(want);
		printf(", got ");
		print_val(got);
		printf("\n");
		return 0;
	}
	if (want->kind == 'a' && want->n != got->n) {
		printf("%s: %s: want %zu elements, got %zu: ", where, plen ? path : "(the record)", want->n, got->n);
		print_val(got);
		printf("\n");
		return 0;
	}
	for (size_t i = 0; i < want->n; i++) {
		const Val *g = NULL;
		int n;
		if (want->kind == 'a') {
			g = got->items[i];
			n = snprintf(path + plen, pcap - plen, "[%zu]", i);
		} else {
			const Val *k = want->keys[i];
			for (size_t j = 0; j < got->n && !g; j++)
				if (got->keys[j]->len == k->len && !memcmp(got->keys[j]->text, k->text, k->len))
					g = got->items[j];
			n = snprintf(path + plen, pcap - plen, "%s%.*s", plen ? "." : "", (int)k->len, k->text);
			if (!g) {
				printf("%s: %s: missing (want ", where, path);
				print_val(want->items[i]);
				printf(")\n");
				return 0;
			}
		}
		size_t next = plen + (n > 0 ? (size_t)n : 0);
		if (next >= pcap)
			next = pcap - 1;
		if (!match(want->items[i], g, path, next, pcap, where))
			return 0;
		path[plen] = 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: jsonsub WANT GOT (one JSON record a line in each)\n");
		return 2;
	}
	Records want = {0}, got = {0};
	int ok = read_records(argv[1], &want) && read_records(argv[2], &got) ? 1 : 2;
	if (ok == 2) {
		free_records(&want);
		free_records(&got);
		free(want.buf);
		free(got.buf);
		return 2;
	}
	if (want.n != got.n) {
		printf("%zu records expected, %zu produced\n", want.n, got.n);
		ok = 0;
	}
	for (size_t i = 0; i < want.n && i < got.n; i++) {
		char path[4096] = "", where[128];
		snprintf(where, sizeof where, "record %zu (want line %d, got line %d)", i + 1, want.lines[i], got.lines[i]);
		ok &= match(want.recs[i], got.recs[i], path, 0, sizeof path, where);
	}
	free_records(&want);
	free_records(&got);
	free(want.buf);
	free(got.buf);
	return ok ? 0 : 1;
}
