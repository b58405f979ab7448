/* Compile-time constants: 'define NAME [VALUE]' and -D NAME=VALUE
 * (docs/language.md, "Compile-time constants"). The lexer replaces every
 * later use of NAME by the value (lex.c), so a constant is usable wherever
 * a number (or, for a name value, a name) is. */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool defines_check(const char *const *defs, int n, char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		const char *d = defs[i] ? defs[i] : "(null)", *eq = strchr(d, '=');
		bool ok = eq && eq > d && eq[1] && !isdigit((unsigned char)*d);
		for (const char *c = d; ok && c < eq; c++)
			ok = isalnum((unsigned char)*c) || *c == '_';
		if (!ok) {
			snprintf(why, len, "%s: not NAME=VALUE (an identifier, '=', a value)", d);
			return false;
		}
		for (int j = 0; j < i; j++)
			if (!strncmp(defs[j], d, (size_t)(eq - d) + 1)) {
				snprintf(why, len, "'%.*s' is given twice ('%s', '%s')", (int)(eq - d), d, defs[j], d);
				return false;
			}
	}
	return true;
}

const char *define_of(const Ctx *cx, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < cx->ndefines; i++)
		if (!strncmp(cx->defines[i], name, n) && cx->defines[i][n] == '=')
			return cx->defines[i];
	return NULL;
}

/* names a constant may not take: the words that start lines and the
 * predefined variables (a constant would silently replace them) */
static bool reserved(const char *nm)
{
	static const char *const words[] = {
		"target", "ptx", "kernel", "func", "arg", "extern", "threads", "grid", "param", "shared",
		"local", "tmem", "mbarrier", "cluster", "assume", "define", "thread", "warp", "warpgroup",
		"wg", "cta", "repeat", "when", "else", "as", "across", "running", "unroll", "reversed", "ctaid",
		"ctaid_y", "warpid", "wgid", "cluster_ctarank", "tid", "laneid", "cdiv", "min", "max",
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(nm, words[i]))
			return true;
	DType dt;
	if (dtype_parse(nm, &dt))
		return true;
	for (int k = 0; k < ST_COUNT; k++)
		if (!strcmp(stmt_info[k].keyword, nm))
			return true;
	return false;
}

/* what a value's text reads as: an integer (decimal or 0x hex, at most
 * 2^63-1), a name, or neither */
static TokKind value_kind(const char *v, int64_t *val)
{
	if (isalpha((unsigned char)v[0]) || v[0] == '_') {
		for (const char *c = v; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_')
				return TK_BAD;
		return TK_IDENT;
	}
	if (!isdigit((unsigned char)v[0]))
		return TK_BAD;
	bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
	const char *d = v + (hex ? 2 : 0);
	if (!*d)
		return TK_BAD;
	for (const char *c = d; *c; c++)
		if (!(hex ? isxdigit((unsigned char)*c) : isdigit((unsigned char)*c)))
			return TK_BAD;
	errno = 0;
	unsigned long long u = strtoull(d, NULL, hex ? 16 : 10);
	if (errno || u > (unsigned long long)INT64_MAX)
		return TK_BAD;
	*val = (int64_t)u;
	return TK_INT;
}

/* the file's value after the name: one name, or an integer expression of
 * numbers and earlier constants; false after an error */
static bool file_value(Parser *p, Const *c)
{
	if (p->tok.kind == TK_NL || p->tok.kind == TK_EOF)
		return true; /* no default: -D must give it */
	Loc vl = p->tok.loc;
	if (p->tok.kind == TK_IDENT) { /* a name alone is a name value; 'ctaid * 2' is an expression */
		Tok name = p->tok;
		size_t pos = p->pos;
		int line = p->line, col = p->col;
		next(p);
		if (p->tok.kind == TK_NL || p->tok.kind == TK_EOF) {
			c->value = arena_strndup(p->cx->arena, name.s, name.len);
			c->kind = TK_IDENT;
			return true;
		}
		p->tok = name;
		p->pos = pos;
		p->line = line;
		p->col = col;
	}
	Affine a;
	if (!expr(p, &a) || !end_of_line(p))
		return false;
	if (a.n || a.c < 0) {
		p->line_failed = true;
		diag_error(p->cx, vl, "a constant's value is a number 0 or more or a name%s",
		           a.n ? " (this expression depends on run-time values)" : " (this one is negative)");
		return false;
	}
	c->kind = TK_INT;
	c->val = a.c;
	c->value = arena_printf(p->cx->arena, "%lld", (long long)a.c);
	return true;
}

/* define NAME [VALUE]: a constant from this line on; -D NAME=VALUE replaces
 * VALUE (or gives the value a define without one lacks) */
void decl_define(Parser *p, Loc loc)
{
	if (p->depth) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'define' inside a block (constants are defined at the top level)");
		return;
	}
	Loc nl = p->tok.loc;
	if (p->tok.from) {
		p->line_failed = true;
		diag_error(p->cx, nl, "constant '%s' is already defined (line %d)", p->tok.from->name, p->tok.from->loc.line);
		return;
	}
	const char *nm = take_ident(p, "the constant's name");
	if (!nm)
		return;
	if (reserved(nm) || lookup_var(p, nm) >= 0 || (p->k && kernel_find_buffer(p->k, nm))) {
		p->line_failed = true;
		diag_error(p->cx, nl, "'%s' is %s; a constant needs a name of its own", nm,
		           reserved(nm) ? "a keyword or predefined name" : "already a name in this kernel");
		return;
	}
	Const c = {.name = nm, .loc = loc, .kind = TK_BAD};
	if (!file_value(p, &c)) { /* kept, so that its uses fail without more errors */
		c = (Const){.name = nm, .loc = loc, .kind = TK_BAD, .broken = true};
	}
	if ((c.dflag = define_of(p->cx, nm))) {
		c.value = c.dflag + strlen(nm) + 1;
		c.kind = value_kind(c.value, &c.val);
		c.broken = false;
	}
	APUSH(p->cx->arena, p->consts, p->nconsts, p->constcap, c);
	APUSH(p->cx->arena, p->m->consts, p->m->nconsts, p->m->constcap, nm);
}
