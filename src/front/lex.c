/* The lexer and the token helpers of the .tile parser (docs/language.md). */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void advance_char(Parser *p)
{
	if (p->src[p->pos] == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->pos++;
}

void next(Parser *p)
{
	/* skip blanks and comments */
	for (;;) {
		if (p->pos >= p->len)
			break;
		char c = p->src[p->pos];
		if (c == ' ' || c == '\t' || c == '\r') {
			advance_char(p);
		} else if (c == '#') {
			while (p->pos < p->len && p->src[p->pos] != '\n')
				advance_char(p);
		} else {
			break;
		}
	}
	Tok t = {0};
	t.loc = (Loc){p->line, p->col};
	t.s = p->src + p->pos;
	if (p->pos >= p->len) {
		t.kind = TK_EOF;
		p->tok = t;
		return;
	}
	unsigned char c = (unsigned char)p->src[p->pos];
	if (c == '\n') {
		t.kind = TK_NL;
		advance_char(p);
	} else if (isalpha(c) || c == '_') {
		t.kind = TK_IDENT;
		while (p->pos < p->len && (isalnum((unsigned char)p->src[p->pos]) || p->src[p->pos] == '_'))
			advance_char(p);
	} else if (isdigit(c)) {
		t.kind = TK_INT;
		int base = 10;
		if (c == '0' && p->pos + 1 < p->len && (p->src[p->pos + 1] == 'x' || p->src[p->pos + 1] == 'X')) {
			base = 16;
			advance_char(p);
			advance_char(p);
		}
		bool overflow = false, any = false;
		uint64_t v = 0;
		while (p->pos < p->len) {
			int d = -1;
			char ch = p->src[p->pos];
			if (isdigit((unsigned char)ch))
				d = ch - '0';
			else if (base == 16 && isxdigit((unsigned char)ch))
				d = (tolower((unsigned char)ch) - 'a') + 10;
			else if (isalnum((unsigned char)ch) || ch == '_')
				d = 99;
			if (d < 0)
				break;
			if (d >= base) {
				t.kind = TK_BAD;
				break;
			}
			any = true;
			if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base)
				overflow = true;
			else
				v = v * (uint64_t)base + (uint64_t)d;
			advance_char(p);
		}
		if (!any && t.kind == TK_INT)
			t.kind = TK_BAD;
		if (t.kind == TK_BAD) {
			while (p->pos < p->len && (isalnum((unsigned char)p->src[p->pos]) || p->src[p->pos] == '_'))
				advance_char(p);
		} else if (overflow) {
			t.kind = TK_BAD;
			t.val = -1; /* marks overflow */
		} else {
			t.val = (int64_t)v;
		}
	} else if (strchr("[](){},:@=+-*/%.&<>!", c)) {
		t.kind = TK_PUNCT;
		t.c = (char)c;
		advance_char(p);
	} else {
		t.kind = TK_BAD;
		advance_char(p);
	}
	t.len = (size_t)(p->src + p->pos - t.s);
	if (t.kind == TK_IDENT && !(t.s > p->src && t.s[-1] == '.')) /* not 'init' of 'mbarrier.init' */
		for (size_t i = 0; i < p->nconsts; i++)
			if (strlen(p->consts[i].name) == t.len && !memcmp(p->consts[i].name, t.s, t.len)) {
				const_token(&t, &p->consts[i]);
				break;
			}
	p->tok = t;
}

/* a use of c reads as its value; s stays the name for messages ('BM'), but
 * a name value is the token's text (a dtype, a scalar's name) */
void const_token(Tok *t, const Const *c)
{
	t->from = c;
	t->kind = c->kind;
	t->val = c->val;
	if (c->kind == TK_IDENT) {
		t->s = c->value;
		t->len = strlen(c->value);
	}
}

/* a failure at a use of a constant: say what the constant is and where it
 * got its value */
static void const_failure(Parser *p, const char *msg)
{
	const Const *c = p->tok.from;
	const char *where = c->dflag ? arena_printf(p->cx->arena, "-D %s", c->dflag)
	                             : arena_printf(p->cx->arena, "'define %s' at line %d", c->name, c->loc.line);
	if (c->broken)
		return; /* the define line said why */
	if (!c->value)
		diag_error(p->cx, p->tok.loc, "constant '%s' has no value ('define %s' at line %d gives none): give one with -D %s=VALUE",
		           c->name, c->name, c->loc.line, c->name);
	else if (c->kind == TK_BAD)
		diag_error(p->cx, p->tok.loc, "constant '%s' is '%s' (%s), which is neither a number nor a name", c->name,
		           c->value, where);
	else {
		diag_error(p->cx, p->tok.loc, "%s", msg);
		diag_note(p->cx, "'%s' is the constant %s here (%s)", c->name, c->value, where);
	}
}

bool is_ident(Parser *p, const char *s)
{
	return p->tok.kind == TK_IDENT && p->tok.len == strlen(s) && !memcmp(p->tok.s, s, p->tok.len);
}

bool is_punct(Parser *p, char c) { return p->tok.kind == TK_PUNCT && p->tok.c == c; }

const char *tok_text(Parser *p)
{
	switch (p->tok.kind) {
	case TK_EOF: return "end of file";
	case TK_NL: return "end of line";
	case TK_BAD:
		if (p->tok.len == 1 && ((unsigned char)p->tok.s[0] < 32 || (unsigned char)p->tok.s[0] > 126))
			return arena_printf(p->cx->arena, "byte 0x%02x", (unsigned char)p->tok.s[0]);
		/* fallthrough */
	default: {
		size_t n = p->tok.len > 40 ? 40 : p->tok.len;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p->tok.s[i] < 32 || (unsigned char)p->tok.s[i] > 126)
				return arena_printf(p->cx->arena, "byte 0x%02x", (unsigned char)p->tok.s[i]);
		return arena_printf(p->cx->arena, "'%.*s'", (int)n, p->tok.s);
	}
	}
}

/* report at the current token, once per line */
bool fail(Parser *p, const char *fmt, ...)
{
	if (p->line_failed)
		return false;
	p->line_failed = true;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (p->tok.from)
		const_failure(p, buf);
	else if (p->tok.kind == TK_BAD && p->tok.val == -1 && p->tok.len && isdigit((unsigned char)p->tok.s[0]))
		diag_error(p->cx, p->tok.loc, "integer literal %s is too large (limit 2^63-1)", tok_text(p));
	else if (p->tok.kind == TK_BAD)
		diag_error(p->cx, p->tok.loc, "unexpected %s", tok_text(p));
	else
		diag_error(p->cx, p->tok.loc, "%s", buf);
	return false;
}

bool expect_punct(Parser *p, char c, const char *what)
{
	if (!is_punct(p, c))
		return fail(p, "expected '%c' %s, found %s", c, what, tok_text(p));
	next(p);
	return true;
}

const char *take_ident(Parser *p, const char *what)
{
	if (p->tok.kind != TK_IDENT) {
		fail(p, "expected %s, found %s", what, tok_text(p));
		return NULL;
	}
	const char *s = arena_strndup(p->cx->arena, p->tok.s, p->tok.len);
	next(p);
	return s;
}

bool take_int(Parser *p, const char *what, int64_t *out)
{
	if (p->tok.kind != TK_INT) {
		if (is_punct(p, '-'))
			return fail(p, "%s must not be negative", what);
		if (p->tok.kind == TK_IDENT && !p->tok.from && !p->line_failed) {
			fail(p, "expected %s (an integer), found %s", what, tok_text(p));
			diag_note(p->cx, "%s is no constant: 'define %.*s VALUE' makes it one (-D %.*s=VALUE sets it)",
			          tok_text(p), (int)p->tok.len, p->tok.s, (int)p->tok.len, p->tok.s);
			return false;
		}
		return fail(p, "expected %s (an integer), found %s", what, tok_text(p));
	}
	*out = p->tok.val;
	next(p);
	return true;
}

bool end_of_line(Parser *p)
{
	if (p->tok.kind != TK_NL && p->tok.kind != TK_EOF)
		return fail(p, "unexpected %s at end of statement", tok_text(p));
	return true;
}
