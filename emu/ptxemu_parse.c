/* The PTX text tilepx prints, read into a Prog (emu/ptxemu_machine.h): an
 * entry's body into instructions (opcode text, guard, flattened operands),
 * labels, register slots and declared widths, shared symbols, the .param
 * space of calls and every .func a module defines. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"

static unsigned hash_name(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

int reg_find(const Prog *p, const char *name)
{
	if (!p->hcap)
		return -1;
	for (unsigned k = hash_name(name) & (unsigned)(p->hcap - 1); p->hash[k] >= 0; k = (k + 1) & (unsigned)(p->hcap - 1))
		if (!strcmp(p->regs[p->hash[k]], name))
			return p->hash[k];
	return -1;
}

int reg_slot(Prog *p, const char *name)
{
	if (p->nregs * 2 >= p->hcap) { /* grow and rehash */
		int cap = p->hcap ? p->hcap * 2 : 1024;
		int *h = malloc(sizeof(int) * (size_t)cap);
		for (int i = 0; i < cap; i++)
			h[i] = -1;
		for (int i = 0; i < p->nregs; i++) {
			unsigned k = hash_name(p->regs[i]) & (unsigned)(cap - 1);
			while (h[k] >= 0)
				k = (k + 1) & (unsigned)(cap - 1);
			h[k] = i;
		}
		free(p->hash);
		p->hash = h;
		p->hcap = cap;
	}
	unsigned k = hash_name(name) & (unsigned)(p->hcap - 1);
	while (p->hash[k] >= 0) {
		if (!strcmp(p->regs[p->hash[k]], name))
			return p->hash[k];
		k = (k + 1) & (unsigned)(p->hcap - 1);
	}
	if (p->nregs == p->rcap) {
		p->rcap = p->rcap ? p->rcap * 2 : 256;
		p->regs = realloc(p->regs, sizeof(char *) * (size_t)p->rcap);
	}
	p->regs[p->nregs] = strdup(name);
	p->hash[k] = p->nregs;
	return p->nregs++;
}

/* give every register an operand names its slot before threads are sized */
void collect_regs(Prog *p)
{
	for (int i = 0; i < p->n; i++)
		for (int k = 0; k < p->ins[i].nops && strncmp(p->ins[i].op, "call", 4); k++) {
			const char *o = p->ins[i].ops[k] + (p->ins[i].ops[k][0] == '[');
			if (o[0] != '%')
				continue;
			char *buf = strndup(o, strcspn(o, "]+-")); /* names of any length */
			if (strcmp(buf, "%tid.x") && strcmp(buf, "%ctaid.x") && strcmp(buf, "%ctaid.y") &&
			    strcmp(buf, "%nctaid.x") && strcmp(buf, "%nctaid.y") &&
			    strncmp(buf, "%cluster_", 9))
				reg_slot(p, buf);
			free(buf);
		}
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int psym_find(const Prog *p, const char *name)
{
	for (int i = 0; i < p->npsym; i++)
		if (!strcmp(p->psym[i], name))
			return i;
	return -1;
}

/* ".param .u32 x", ".param .align 16 .b8 x[160]": declare (once) and return the psym */
static int psym_decl(Prog *p, const char *decl)
{
	char *buf = strdup(decl), *name; /* names of any length */
	int64_t size = strstr(buf, "64") && !strchr(buf, '[') ? 8 : 4;
	char *lb = strchr(buf, '[');
	if (lb) {
		size = atoll(lb + 1);
		*lb = 0;
	}
	char *e = buf + strlen(buf);
	while (e > buf && (isspace((unsigned char)e[-1]) || e[-1] == ';' || e[-1] == ',' || e[-1] == ')'))
		*--e = 0;
	name = e;
	while (name > buf && (isalnum((unsigned char)name[-1]) || name[-1] == '_' || name[-1] == '$'))
		name--;
	int i = psym_find(p, name);
	if (i >= 0) {
		free(buf);
		return i;
	}
	if (p->npsym == p->pcap) {
		p->pcap = p->pcap ? p->pcap * 2 : 32;
		p->psym = realloc(p->psym, sizeof(char *) * (size_t)p->pcap);
		p->psym_off = realloc(p->psym_off, sizeof(int64_t) * (size_t)p->pcap);
		p->psym_size = realloc(p->psym_size, sizeof(int64_t) * (size_t)p->pcap);
	}
	p->psym[p->npsym] = strdup(name);
	free(buf);
	p->psym_off[p->npsym] = (p->pbytes + 15) / 16 * 16;
	p->psym_size[p->npsym] = size;
	p->pbytes = p->psym_off[p->npsym] + size;
	return p->npsym++;
}

/* "[name+off]" in the .param space, or -1 */
/* a kernel's scalar param named by "[NAME]", or -1 */
int scalar_param(const Prog *p, const char *op)
{
	size_t n = strcspn(op + (op[0] == '['), "]");
	for (int i = 0; i < p->nscalars; i++)
		if (strlen(p->scalars[i]) == n && !strncmp(p->scalars[i], op + (op[0] == '['), n))
			return i;
	return -1;
}

int64_t param_addr(const Prog *p, const char *op, int64_t *size)
{
	char *buf = strdup(op + (op[0] == '[')); /* names of any length */
	char *e = strchr(buf, ']');
	if (e)
		*e = 0;
	int64_t off = 0;
	char *plus = strchr(buf, '+');
	if (plus) {
		off = atoll(plus + 1);
		*plus = 0;
	}
	int i = psym_find(p, buf);
	free(buf);
	if (i < 0)
		return -1;
	*size = p->psym_size[i] - off;
	return p->psym_off[i] + off;
}

/* names in function f's lines get a prefix so that every function has its
 * own registers and labels: "%r1" -> "%F2_r1", "$L__1" -> "$F2_L__1" (a '$'
 * inside a name, "f$param_0", is part of it) */
static char *mangle(const char *l, int f)
{
	size_t n = strlen(l);
	char *o = malloc(n * 2 + 64), *q = o;
	for (size_t i = 0; i < n; i++) {
		*q++ = l[i];
		bool reg = l[i] == '%' && (isalpha((unsigned char)l[i + 1]) || l[i + 1] == '_') &&
		           strncmp(l + i + 1, "tid.", 4) && strncmp(l + i + 1, "ctaid.", 6);
		bool inside = i > 0 && (isalnum((unsigned char)l[i - 1]) || l[i - 1] == '_' || l[i - 1] == '$');
		if (reg || (l[i] == '$' && !inside && (isalpha((unsigned char)l[i + 1]) || l[i + 1] == '_')))
			q += sprintf(q, "F%d_", f);
	}
	*q = 0;
	return o;
}

/* ".reg .b32 t, u;" (named registers get a slot now; numbered "%r<9>" are
 * found by use), several declarations per line */
static void parse_reg_decls(Prog *p, char *l)
{
	/* named registers: ".reg .b32 t, u;" (numbered "%r<9>" are found by use) */
	/* one declaration per ';': ".reg .b32 c; .reg .b64 a, o;" on one line */
	for (char *decl = l, *semi; decl; decl = semi ? semi + 1 : NULL) {
		semi = strchr(decl, ';');
		if (semi)
			*semi = 0;
		decl = trim(decl);
		if (strncmp(decl, ".reg", 4))
			continue;
		char *q = strchr(decl + 4, '.');
		int bits = !q ? 0 : !strncmp(q, ".pred", 5) ? 1 : atoi(q + strcspn(q, "0123456789"));
		q = q ? q + strcspn(q, " \t") : NULL;
		for (char *tok = q ? strtok(q, " \t,") : NULL; tok; tok = strtok(NULL, " \t,")) {
			p->rdecl = realloc(p->rdecl, sizeof *p->rdecl * (size_t)(p->nrdecl + 1));
			p->rdecl[p->nrdecl++] = (struct RegDecl){strndup(tok, strcspn(tok, "<")), bits, strchr(tok, '<') != NULL};
			if (!strchr(tok, '<')) {
				p->named = realloc(p->named, sizeof(char *) * (size_t)(p->nnamed + 1));
				p->named[p->nnamed++] = strdup(tok);
				reg_slot(p, tok);
			}
		}
	}
}

/* ".shared .align A .b8 NAME[BYTES]": a static shared symbol at its offset */
static void parse_shared_decl(Prog *p, const char *l)
{
	char *name = malloc(strlen(l) + 1); /* names of any length */
	long long align, bytes;
	if (sscanf(l, ".shared .align %lld .b8 %[^[][%lld]", &align, name, &bytes) == 3) {
		p->shared_bytes = (p->shared_bytes + align - 1) / align * align;
		if (p->nsyms == p->scap) {
			p->scap = p->scap ? p->scap * 2 : 16;
			p->syms = realloc(p->syms, sizeof(char *) * (size_t)p->scap);
			p->sym_off = realloc(p->sym_off, sizeof(int64_t) * (size_t)p->scap);
		}
		p->syms[p->nsyms] = strdup(name);
		p->sym_off[p->nsyms++] = p->shared_bytes;
		p->shared_bytes += bytes;
	}
	free(name);
}

/* call[.uni] [(ret),] fn, (a, b, ...): ops = ret or "", fn, args */
static void parse_call_operands(Ins *in, char *rest)
{
	char *c = rest;
	while (*c == ' ' || *c == '\t')
		c++;
	char *ret = NULL;
	if (*c == '(') {
		char *e = strchr(c, ')');
		ret = strndup(c + 1, (size_t)(e - c - 1));
		c = strchr(e, ',') + 1;
	}
	in->ops[in->nops++] = strdup(ret ? trim(ret) : "");
	free(ret);
	char *args = strchr(c, '(');
	if (args)
		*args++ = 0;
	char *semi2 = strrchr(c, ',');
	if (semi2)
		*semi2 = 0;
	in->ops[in->nops++] = strdup(trim(c));
	for (char *tok = args ? strtok(args, " ,);") : NULL; tok && in->nops < MAXOPS; tok = strtok(NULL, " ,);"))
		in->ops[in->nops++] = strdup(tok);
}

/* operands: split on commas outside braces; vectors and addresses are flattened */
static void parse_operands(Ins *in, char *rest)
{
	char *semi = strrchr(rest, ';');
	if (semi)
		*semi = 0;
	char *q = rest;
	while (*q) {
		q = trim(q);
		if (!*q)
			break;
		char *start = q;
		int depth = 0;
		while (*q && (depth || *q != ',')) {
			depth += (*q == '{' || *q == '[') - (*q == '}' || *q == ']');
			q++;
		}
		if (*q)
			*q++ = 0;
		start = trim(start);
		if (*start == '{') { /* a register vector: one operand each */
			char *v = start + 1, *end = strchr(v, '}');
			*end = 0;
			for (char *tok = strtok(v, ", "); tok; tok = strtok(NULL, ", "))
				if (in->nops < MAXOPS)
					in->ops[in->nops++] = strdup(tok);
			continue;
		}
		char *bar = strchr(start, '|'); /* "d|p" (setp, shfl): two destinations, one operand each */
		if (bar && in->nops + 1 < MAXOPS) {
			*bar = 0;
			in->ops[in->nops++] = strdup(trim(start));
			start = trim(bar + 1);
		}
		if (in->nops < MAXOPS)
			in->ops[in->nops++] = strdup(start);
	}
}

/* parse one entry's body (from "{" to the matching "}") */
void parse_entry(Prog *p, char **lines, int n)
{
	bool body = false;
	int tile_line = 0;
	for (int i = 0; i < n; i++) {
		char *l = trim(lines[i]);
		if (!body) {
			body = *l == '{';
			continue;
		}
		char *c = strstr(l, "//");
		if (c) {
			int tl;
			if (sscanf(c, "// line %d:", &tl) == 1)
				tile_line = tl;
			*c = 0;
		}
		l = trim(l);
		while (*l == '{' || *l == '}') /* nested scopes of asm blocks */
			l = trim(l + 1);
		if (!strncmp(l, ".param", 6)) {
			psym_decl(p, l);
			continue;
		}
		if (!strncmp(l, ".reg", 4)) {
			parse_reg_decls(p, l);
			continue;
		}
		if (!*l || !strncmp(l, ".pragma", 7)) /* a hint to ptxas ("nounroll"): no effect on what runs */
			continue;
		if (!strncmp(l, ".loc", 4) && (l[4] == ' ' || l[4] == '\t')) { /* tilepx -lineinfo: .loc 1 LINE COL */
			int ll;
			if (sscanf(l + 4, "%*d %d", &ll) == 1)
				tile_line = ll;
			continue;
		}
		if (!strncmp(l, ".shared", 7)) {
			parse_shared_decl(p, l);
			continue;
		}
		size_t len = strlen(l);
		if (l[len - 1] == ':') {
			l[len - 1] = 0;
			if (p->nlabels == p->lcap) {
				p->lcap = p->lcap ? p->lcap * 2 : 64;
				p->labels = realloc(p->labels, sizeof(char *) * (size_t)p->lcap);
				p->label_pc = realloc(p->label_pc, sizeof(int) * (size_t)p->lcap);
			}
			p->labels[p->nlabels] = strdup(l);
			p->label_pc[p->nlabels++] = p->n;
			continue;
		}
		if (p->n == p->cap) {
			p->cap = p->cap ? p->cap * 2 : 1024;
			p->ins = realloc(p->ins, sizeof(Ins) * (size_t)p->cap);
		}
		Ins *in = &p->ins[p->n++];
		memset(in, 0, sizeof *in);
		in->pred = -1;
		in->line = i;
		in->tile_line = tile_line;
		if (*l == '@') {
			l++;
			if (*l == '!') {
				in->pred_neg = true;
				l++;
			}
			char *sp = strchr(l, ' ');
			*sp = 0;
			in->pred = reg_slot(p, l);
			l = trim(sp + 1);
		}
		char *sp = l + strcspn(l, " \t;");
		snprintf(in->op, sizeof in->op, "%.*s", (int)(sp - l), l);
		char *rest = *sp ? sp + 1 : sp;
		if (!strncmp(in->op, "call", 4)) {
			parse_call_operands(in, rest);
			continue;
		}
		parse_operands(in, rest);
	}
}

void free_prog(Prog *p)
{
	for (int i = 0; i < p->n; i++) {
		for (int k = 0; k < p->ins[i].nops; k++)
			free(p->ins[i].ops[k]);
		free(p->ins[i].od);
	}
	for (int i = 0; i < p->nlabels; i++)
		free(p->labels[i]);
	for (int i = 0; i < p->nregs; i++)
		free(p->regs[i]);
	for (int i = 0; i < p->nsyms; i++)
		free(p->syms[i]);
	for (int i = 0; i < p->nparams; i++)
		free(p->params[i]);
	for (int i = 0; i < p->nscalars; i++)
		free(p->scalars[i]);
	free(p->scalars);
	free(p->scalar_val);
	for (int i = 0; i < p->ntmaps; i++)
		free(p->tmaps[i]);
	free(p->tmaps);
	for (int i = 0; i < p->nnamed; i++)
		free(p->named[i]);
	free(p->named);
	for (int i = 0; i < p->nrdecl; i++)
		free(p->rdecl[i].name);
	free(p->rdecl);
	free(p->wg_slots);
	free(p->wg_slot);
	for (int i = 0; i < p->npsym; i++)
		free(p->psym[i]);
	free(p->psym);
	free(p->psym_off);
	free(p->psym_size);
	for (int i = 0; i < p->nfuncs; i++) {
		free(p->funcs[i].name);
		free(p->funcs[i].params);
	}
	free(p->funcs);
	free(p->ins);
	free(p->labels);
	free(p->label_pc);
	free(p->regs);
	free(p->hash);
	free(p->syms);
	free(p->sym_off);
	free(p->params);
}

/* the line after the body that starts at line b (braces back to depth 0) */
int unit_end(char **lines, int b, int nl)
{
	int depth = 0;
	bool started = false;
	for (int i = b; i < nl; i++) {
		const char *l = lines[i], *c = strstr(l, "//");
		size_t n = c ? (size_t)(c - l) : strlen(l);
		for (size_t j = 0; j < n; j++) {
			if (l[j] == '{') {
				depth++;
				started = true;
			} else if (l[j] == '}') {
				depth--;
			}
		}
		if (started && depth <= 0)
			return i + 1;
	}
	return nl;
}

/* every .func defined in lines[0..nl): header (return and formal .params), body */
void load_funcs(Prog *p, char **lines, int nl)
{
	int fi = 0;
	for (int i = 0; i < nl; i++) {
		if (!strstr(lines[i], ".func") || strstr(lines[i], ".extern"))
			continue;
		int e = unit_end(lines, i, nl);
		Str hdr = {0};
		for (int j = i; j < e && !strchr(lines[j], '{'); j++)
			str_printf(&hdr, "%s ", lines[j]);
		struct Func fn = {0};
		fn.ret = -1;
		char *h = strstr(hdr.s ? hdr.s : "", ".func") + 5;
		while (*h == ' ' || *h == '\t')
			h++;
		if (*h == '(') {
			char *c = strchr(h, ')');
			*c = 0;
			fn.ret = psym_decl(p, h + 1);
			h = c + 1;
		}
		while (*h == ' ' || *h == '\t')
			h++;
		char *lp = strchr(h, '(');
		if (!lp) {
			str_free(&hdr);
			continue;
		}
		*lp = 0;
		fn.name = strdup(trim(h));
		for (char *a = lp + 1, *c; a && *a; a = c ? c + 1 : NULL) {
			c = strchr(a, ',');
			if (c)
				*c = 0;
			if (strstr(a, ".param")) {
				fn.params = realloc(fn.params, sizeof(int) * (size_t)(fn.nparams + 1));
				fn.params[fn.nparams++] = psym_decl(p, a);
			}
		}
		str_free(&hdr);
		fi++;
		char **ml = malloc(sizeof(char *) * (size_t)(e - i));
		for (int j = i; j < e; j++)
			ml[j - i] = mangle(lines[j], fi);
		fn.pc = p->n;
		parse_entry(p, ml, e - i);
		for (int j = 0; j < e - i; j++)
			free(ml[j]);
		free(ml);
		p->funcs = realloc(p->funcs, sizeof(struct Func) * (size_t)(p->nfuncs + 1));
		p->funcs[p->nfuncs++] = fn;
		i = e - 1;
	}
}
