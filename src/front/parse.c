/* Parser for the .tile language (docs/language.md): the line loop and its
 * tables of declarations and scopes; the lexer, expressions, declarations,
 * statements and asm blocks are lex.c and parse_*.c (parse.h). Line
 * oriented: a statement that fails to parse is reported and skipped to the
 * end of its line, so every bad line in a file gets its own error; a block
 * whose header fails is skipped to its '}'. */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* the declaration keywords; the hook runs after the keyword is consumed */
static const struct {
	const char *kw;
	void (*parse)(Parser *p, Loc loc);
} decls[] = {
	{"target", decl_target}, {"ptx", decl_ptx},       {"kernel", decl_kernel}, {"func", decl_func},
	{"arg", decl_arg},       {"extern", decl_extern}, {"threads", decl_threads},
	{"grid", decl_grid},     {"param", decl_param},   {"shared", decl_shared}, {"local", decl_local},
	{"tmem", decl_tmem},     {"mbarrier", decl_mbarrier}, {"cluster", decl_cluster},
	{"assume", decl_assume}, {"define", decl_define},
};

static const struct {
	const char *kw;
	Scope scope;
} scopes[] = {
	{"thread", SC_THREAD}, {"warp", SC_WARP}, {"warpgroup", SC_WARPGROUP}, {"wg", SC_WARPGROUP}, {"cta", SC_CTA},
};

static void close_block(Parser *p, Loc loc)
{
	next(p);
	if (p->depth == 0) {
		p->line_failed = true;
		diag_error(p->cx, loc, "'}' without an open block");
		return;
	}
	p->depth--;
	Stmt *closed = p->stack[p->depth];
	if (is_ident(p, "else")) { /* } else {: the rest of the enclosing warps */
		Loc el = p->tok.loc;
		next(p);
		if (closed->kind != ST_WHEN || closed->else_of) {
			p->line_failed = true;
			diag_error(p->cx, el, "'else' follows a when block only (and once)");
			return;
		}
		if (!expect_punct(p, '{', "to open the else block"))
			return;
		Stmt *s = arena_alloc(p->cx->arena, sizeof *s);
		s->kind = ST_WHEN;
		s->loc = el;
		s->else_of = closed;
		if (!end_of_line(p))
			return;
		add_stmt(p, s);
		p->stack[p->depth++] = s;
		return;
	}
	end_of_line(p);
}


/* the token starts the keyword of a statement that takes a scope (its
 * first dotted component: 'copy', 'mma', 'red' of 'red.add') */
static bool scoped_keyword(Parser *p)
{
	for (int k = 0; k < ST_COUNT; k++) {
		const char *kw = stmt_info[k].keyword;
		size_t n = strcspn(kw, ".");
		if ((stmt_info[k].flags & SF_SCOPED) && p->tok.kind == TK_IDENT && p->tok.len == n &&
		    !strncmp(p->tok.s, kw, n))
			return true;
	}
	return false;
}

void statement(Parser *p)
{
	Loc loc = p->tok.loc;
	if (is_punct(p, '}')) {
		close_block(p, loc);
		return;
	}
	if (p->tok.kind != TK_IDENT) {
		fail(p, "expected a statement, found %s", tok_text(p));
		return;
	}
	/* 'mbarrier NAME' declares; 'mbarrier.init ...' is a statement */
	bool dotted = p->tok.s + p->tok.len < p->src + p->len && p->tok.s[p->tok.len] == '.';
	for (size_t i = 0; i < sizeof decls / sizeof decls[0] && !dotted; i++)
		if (is_ident(p, decls[i].kw)) {
			next(p);
			decls[i].parse(p, loc);
			return;
		}
	for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++)
		if (is_ident(p, scopes[i].kw)) {
			next(p);
			if (!scoped_keyword(p)) {
				fail(p, "expected 'copy', 'copy_async', 'mma', 'red.add' or 'red.max' after the scope, found %s",
				     tok_text(p));
				return;
			}
			table_statement(p, loc, scopes[i].scope, true);
			return;
		}
	table_statement(p, loc, SC_THREAD, false);
}

Module *parse_module(Ctx *cx, const char *file, const char *src, size_t len)
{
	Parser p = {.cx = cx, .src = src, .len = len, .line = 1, .col = 1};
	Module *m = arena_alloc(cx->arena, sizeof *m);
	m->file = file;
	p.m = m;
	next(&p);
	while (p.tok.kind != TK_EOF) {
		if (p.tok.kind == TK_NL) {
			next(&p);
			continue;
		}
		p.line_failed = false;
		statement(&p);
		if (p.cx->diags.errors >= MAX_ERRORS * 4)
			break;
		/* skip the rest of the line: recovery after an error */
		while (p.tok.kind != TK_NL && p.tok.kind != TK_EOF)
			next(&p);
	}
	if (p.depth > 0)
		diag_error(cx, p.stack[p.depth - 1]->loc, "repeat block is not closed with '}'");
	if (!m->target && cx->diags.errors == 0)
		diag_error(cx, (Loc){1, 1}, "missing 'target' statement (e.g. 'target sm_90')");
	return m;
}
