/* Inline PTX blocks (asm): text pieces, placeholders, compile-time
 * indices, the optional mma clause. */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* one placeholder after '%{': &REGION, BUFFER[REGION], tid, laneid or an
 * affine expression; leaves the parser on the closing '}' */
static bool asm_placeholder(Parser *p, AsmPiece *pc)
{
	pc->loc = p->tok.loc;
	if (is_punct(p, '&')) {
		next(p);
		pc->kind = ASM_ADDR;
		pc->r = arena_alloc(p->cx->arena, sizeof(Region));
		return parse_region(p, pc->r);
	}
	if (is_ident(p, "tid") || is_ident(p, "laneid")) {
		pc->kind = ASM_VALUE;
		pc->text = is_ident(p, "tid") ? "tid" : "laneid";
		next(p);
		return true;
	}
	if (p->tok.kind == TK_IDENT) {
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(p->tok.len < 127 ? p->tok.len : 127), p->tok.s);
		bool buf = false;
		for (size_t i = 0; i < p->k->nbufs; i++)
			buf |= !strcmp(p->k->bufs[i]->name, name);
		if (buf) {
			pc->kind = ASM_REGS;
			pc->r = arena_alloc(p->cx->arena, sizeof(Region));
			return parse_region(p, pc->r);
		}
		if (lookup_var(p, name) < 0) {
			p->line_failed = true;
			diag_error(p->cx, p->tok.loc,
			           "unknown name '%s' in placeholder (a buffer, tid, laneid, ctaid, ctaid_y, cluster_ctarank, "
			           "warpid, wgid, "
			           "a repeat index or an asm index)",
			           name);
			return false;
		}
	}
	pc->kind = ASM_VALUE;
	return expr(p, &pc->val);
}

static void asm_text(Parser *p, AsmBlock *a, const char *s, size_t n, int line)
{
	if (!n)
		return;
	/* called with the parser just past the text: its first byte's column */
	AsmPiece pc = {.kind = ASM_TEXT, .text = arena_strndup(p->cx->arena, s, n), .line = line,
	               .loc = {p->line, p->col - (int)n}};
	APUSH(p->cx->arena, a->p, a->n, a->cap, pc);
}

/* after an error inside an asm block: skip to its closing '}' line, so that
 * the rest of the PTX is not read as statements (one error per block) */
static void asm_skip_block(Parser *p)
{
	p->nu = 0;
	while (p->pos < p->len && p->src[p->pos] != '\n')
		advance_char(p);
	while (p->pos < p->len) {
		advance_char(p); /* the '\n' */
		size_t t = p->pos;
		while (t < p->len && (p->src[t] == ' ' || p->src[t] == '\t'))
			t++;
		size_t e = t;
		while (e < p->len && p->src[e] != '\n')
			e++;
		size_t te = e;
		while (te > t && (p->src[te - 1] == ' ' || p->src[te - 1] == '\t' || p->src[te - 1] == '\r'))
			te--;
		while (p->pos < e)
			advance_char(p);
		if (te == t + 1 && p->src[t] == '}')
			break;
	}
	next(p);
}

/* does the rest of the current line end with '{' (comments aside)? */
static bool header_opens_block(const Parser *p)
{
	size_t e = p->pos, last = p->pos;
	while (e < p->len && p->src[e] != '\n' && p->src[e] != '#') {
		if (p->src[e] != ' ' && p->src[e] != '\t' && p->src[e] != '\r')
			last = e;
		e++;
	}
	return last < p->len && p->src[last] == '{';
}

/* after 'asm for': NAME COUNT, ... (compile-time indices, bounded instances) */
static bool asm_indices(Parser *p, AsmBlock *a)
{
	for (;;) {
		if (a->nunroll == MAX_ASM_UNROLL)
			return fail(p, "an asm block unrolls over at most %d indices", MAX_ASM_UNROLL);
		Loc vl = p->tok.loc;
		const char *nm = take_ident(p, "an index name");
		if (!nm)
			return false;
		if (lookup_var(p, nm) >= 0 || !strcmp(nm, "tid") || !strcmp(nm, "laneid")) {
			p->line_failed = true;
			diag_error(p->cx, vl, "index '%s' shadows a variable already in scope", nm);
			return false;
		}
		int64_t n;
		Loc nl = p->tok.loc;
		if (!take_int(p, "index count", &n))
			return false;
		if (n < 1 || n > 4096) {
			p->line_failed = true;
			diag_error(p->cx, nl, "asm index count must be in 1..4096");
			return false;
		}
		/* the block is copied once per instance: bounded, like every expansion */
		int64_t inst = n;
		for (int v = 0; v < a->nunroll; v++)
			inst *= a->uext[v];
		if (inst > MAX_ASM_INSTANCES) {
			p->line_failed = true;
			diag_error(p->cx, nl, "asm block expands to %lld instances; at most %d", (long long)inst,
			           MAX_ASM_INSTANCES);
			diag_note(p->cx, "the indices' counts multiply: split the block or use a repeat loop");
			if (header_opens_block(p))
				asm_skip_block(p); /* its PTX is not statements */
			return false;
		}
		int u = a->nunroll++;
		a->uext[u] = n;
		a->uvar[u] = new_var(p, n, nm);
		p->uname[p->nu] = nm;
		p->uvar[p->nu++] = a->uvar[u];
		if (!is_punct(p, ','))
			break;
		next(p);
	}
	return true;
}

/* one PTX line of the block up to e: text, placeholders, '//' comments dropped */
static bool asm_line(Parser *p, AsmBlock *a, size_t e, int line, int *depth, Loc *brace)
{
	size_t run = p->pos;
	while (p->pos < e) {
		char c = p->src[p->pos];
		unsigned char uc = (unsigned char)c;
		if ((uc < 32 && c != '\t' && c != '\r') || uc >= 127) { /* ptxas reads ASCII text */
			p->nu = 0;
			p->line_failed = true;
			diag_error(p->cx, (Loc){p->line, p->col}, "byte 0x%02x in an asm block: PTX is printable ASCII text", uc);
			asm_skip_block(p);
			return false;
		}
		if (c == '/' && p->pos + 1 < e && p->src[p->pos + 1] == '/') {
			asm_text(p, a, p->src + run, p->pos - run, line);
			while (p->pos < e)
				advance_char(p);
			run = p->pos;
			break;
		}
		if (c == '%' && p->pos + 1 < e && p->src[p->pos + 1] == '{') {
			asm_text(p, a, p->src + run, p->pos - run, line);
			advance_char(p);
			advance_char(p);
			next(p);
			AsmPiece pc = {0};
			p->line_failed = false;
			bool pok = asm_placeholder(p, &pc);
			if (pok && !is_punct(p, '}'))
				pok = fail(p, "expected '}' to close the placeholder, found %s", tok_text(p));
			if (!pok) {
				asm_skip_block(p);
				return false;
			}
			pc.line = line;
			APUSH(p->cx->arena, a->p, a->n, a->cap, pc);
			run = p->pos;
			continue;
		}
		if (c == '{') {
			if ((*depth)++ == 0)
				*brace = (Loc){p->line, p->col};
		} else if (c == '}') {
			if (*depth == 0) {
				p->nu = 0;
				p->line_failed = true;
				diag_error(p->cx, (Loc){p->line, p->col}, "'}' without a matching '{' in the asm block");
				asm_skip_block(p);
				return false;
			}
			(*depth)--;
		}
		advance_char(p);
	}
	asm_text(p, a, p->src + run, p->pos - run, line);
	return true;
}

/* asm [for I N, ...] [mma C, A, B] {   then PTX lines, then '}' alone */
bool parse_asm(Parser *p, Stmt *s)
{
	AsmBlock *a = arena_alloc(p->cx->arena, sizeof *a);
	s->asm_blk = a;
	p->nu = 0;
	if (is_ident(p, "for")) {
		next(p);
		if (!asm_indices(p, a))
			return false;
	}
	bool ok = true;
	if (is_ident(p, "mma")) {
		a->mma_loc = p->tok.loc;
		next(p);
		for (int i = 0; ok && i < 3; i++) {
			a->mma[i] = arena_alloc(p->cx->arena, sizeof(Region));
			ok = parse_region(p, a->mma[i]) && (i == 2 || expect_punct(p, ',', "between mma operands"));
		}
	}
	if (ok && !is_punct(p, '{'))
		ok = fail(p, "expected '{' to open the asm block, found %s", tok_text(p));
	if (!ok) {
		p->nu = 0;
		return false;
	}
	/* the rest of the '{' line must be blank or a comment */
	Loc open = p->tok.loc;
	size_t q = p->pos;
	while (q < p->len && (p->src[q] == ' ' || p->src[q] == '\t' || p->src[q] == '\r'))
		q++;
	if (q < p->len && p->src[q] != '\n' && p->src[q] != '#') {
		next(p);
		p->nu = 0;
		return fail(p, "'{' ends the line of an asm block");
	}
	while (p->pos < p->len && p->src[p->pos] != '\n')
		advance_char(p);
	int depth = 0, line = 0;
	Loc brace = open;
	for (;;) {
		if (p->pos >= p->len) {
			p->nu = 0;
			p->line_failed = true;
			diag_error(p->cx, depth ? brace : open, depth ? "'{' in the asm block is not closed"
			                                                 : "asm block is not closed with '}'");
			return false;
		}
		advance_char(p); /* the '\n' */
		size_t b = p->pos;
		size_t e = b;
		while (e < p->len && p->src[e] != '\n')
			e++;
		size_t t = b;
		while (t < e && (p->src[t] == ' ' || p->src[t] == '\t'))
			t++;
		size_t te = e;
		while (te > t && (p->src[te - 1] == ' ' || p->src[te - 1] == '\t' || p->src[te - 1] == '\r'))
			te--;
		if (depth == 0 && te == t + 1 && p->src[t] == '}') {
			while (p->pos < t)
				advance_char(p);
			advance_char(p);
			next(p); /* the end of line */
			p->nu = 0;
			if (!a->n) {
				p->line_failed = true;
				diag_error(p->cx, open, "empty asm block");
				return false;
			}
			for (int i = 0; i < p->depth; i++) /* labels then repeat (check_asm) */
				a->copied |= p->stack[i]->unroll && (stmt_runtime_trips(p->stack[i]) || p->stack[i]->n > 1);
			return true;
		}
		if (!asm_line(p, a, e, line, &depth, &brace))
			return false;
		line++;
	}
}
