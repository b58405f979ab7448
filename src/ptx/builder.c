/* The PTX builder: virtual registers per class (numbered from 1, never
 * reused: ptxas allocates), labels, and instructions built only from the
 * forms in ptx_templates/. */
#include "../tilepx.h"

#include <string.h>

void b_init(Builder *b, Arena *a, const Target *t)
{
	memset(b, 0, sizeof *b);
	b->arena = a;
	b->target = t;
	b->min_ptx = t->min_ptx;
	b->indent = "\t";
}

void b_use_form(Builder *b, FormId f)
{
	if (!b->used_form[f])
		b->form_at[f] = b->at;
	b->used_form[f] = true;
	if (ptx_forms[f].min_ptx > b->min_ptx)
		b_need_ptx(b, ptx_forms[f].min_ptx,
		           arena_printf(b->arena, "%.*s", (int)strcspn(ptx_forms[f].text, " ;"), ptx_forms[f].text));
}

void b_need_ptx(Builder *b, int v, const char *what)
{
	if (v > b->min_ptx) {
		b->min_ptx = v;
		b->min_ptx_at = b->at;
		b->min_ptx_what = what;
	}
}

Reg b_reg(Builder *b, RegClass c)
{
	/* %f is a view of %r ids and Special is never allocated: storage is %r */
	if (c == RC_F || c == RC_SPECIAL)
		c = RC_R;
	return (Reg){c, ++b->nregs[c]};
}

/* operand text without printf: digits written backwards into a small buffer */
static int put_i64(char *out, int64_t v)
{
	char t[24];
	int n = 0, k = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		out[k++] = '-';
	while (n)
		out[k++] = t[--n];
	return k;
}

static const char *text2(Builder *b, const char *pre, int64_t v, const char *mid, int64_t w, bool has_w)
{
	char buf[96];
	size_t n = strlen(pre);
	memcpy(buf, pre, n);
	n += (size_t)put_i64(buf + n, v);
	if (has_w) {
		if (mid) /* [%r+8], [%r+-8]: ptxas reads the sign after the '+' */
			buf[n++] = '+';
		n += (size_t)put_i64(buf + n, w);
	}
	char *p = arena_str(b->arena, n + 1);
	memcpy(p, buf, n);
	p[n] = 0;
	return p;
}

const char *b_name(Builder *b, Reg r)
{
	return text2(b, reg_class_prefix(r.cls), r.id, NULL, 0, false);
}

int b_label(Builder *b) { return ++b->labels; }

const char *b_label_name(Builder *b, int label) { return text2(b, "$L__", label, NULL, 0, false); }

void b_place_label(Builder *b, int label) { str_printf(&b->body, "%s:\n", b_label_name(b, label)); }

void b_comment(Builder *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	str_printf(&b->body, "%s// %s\n", b->indent, buf);
}

FormId b_form(Builder *b, FormFam fam, const FormKey *k)
{
	FormId f = form_find(fam, k);
	if (f == FORM_COUNT && !b->missing_form) {
		char key[160];
		form_key_format(k, key, sizeof key);
		b->missing_form = arena_printf(b->arena, "%s %s", form_fam_names[fam], key);
	}
	return f;
}

void b_ins(Builder *b, FormId f, ...)
{
	if ((unsigned)f >= FORM_COUNT)
		return; /* a failed b_form lookup, already recorded */
	const PtxForm *form = &ptx_forms[f];
	const char *ops[10] = {0};
	va_list ap;
	va_start(ap, f);
	for (int i = 0; i < 10; i++) {
		const char *o = va_arg(ap, const char *);
		if (!o)
			break;
		ops[i] = o;
	}
	va_end(ap);
	b_use_form(b, f);
	Str *out = &b->body;
	str_puts(out, b->indent);
	if (b->guard) {
		str_putc(out, '@');
		str_puts(out, b->guard);
		str_putc(out, ' ');
	}
	for (const char *p = form->text; *p;) {
		if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
			const char *o = ops[p[1] - '0'];
			str_puts(out, o ? o : "<missing operand>");
			p += 2;
		} else {
			const char *q = p;
			while (*q && !(*q == '$' && q[1] >= '0' && q[1] <= '9'))
				q++;
			str_putn(out, p, (size_t)(q - p));
			p = q;
		}
	}
	str_putc(out, '\n');
}

const char *b_imm(Builder *b, int64_t v) { return text2(b, "", v, NULL, 0, false); }

const char *b_addr(Builder *b, Reg base, int64_t off)
{
	if (off == 0)
		return b_name(b, base);
	return text2(b, reg_class_prefix(base.cls), base.id, "+", off, true);
}

const char *b_vec(Builder *b, const Reg *regs, int n)
{
	size_t len = 2;
	for (int i = 0; i < n; i++)
		len += strlen(reg_class_prefix(regs[i].cls)) + 12;
	char *p = arena_str(b->arena, len + 1), *q = p;
	*q++ = '{';
	for (int i = 0; i < n; i++) {
		if (i) {
			*q++ = ',';
			*q++ = ' ';
		}
		const char *pre = reg_class_prefix(regs[i].cls);
		size_t k = strlen(pre);
		memcpy(q, pre, k);
		q += k;
		q += put_i64(q, regs[i].id);
	}
	*q++ = '}';
	*q = 0;
	return p;
}

Reg b_const32(Builder *b, int64_t v)
{
	Reg r = b_reg(b, RC_R);
	b_ins(b, FORM_MOV_U32, b_name(b, r), b_imm(b, (int64_t)(uint32_t)v), NULL);
	return r;
}

Reg b_add32_imm(Builder *b, Reg x, int64_t v)
{
	if (v == 0)
		return x;
	Reg r = b_reg(b, RC_R);
	b_ins(b, FORM_ADD_U32, b_name(b, r), b_name(b, x), b_imm(b, (int64_t)(uint32_t)v), NULL);
	return r;
}

/* one .reg line per non-empty declared class; %f and Special are skipped
 * (the NVVM selector's print_reg_decls), N+1 as LLVM prints it */
void b_print_decls(const Builder *b, Str *out)
{
	for (int c = 0; c < RC_COUNT; c++) {
		if (c == RC_F || c == RC_SPECIAL || b->nregs[c] == 0)
			continue;
		str_printf(out, "\t.reg %s %s<%d>;\n", reg_class_type((RegClass)c), reg_class_prefix((RegClass)c),
		           b->nregs[c] + 1);
	}
}
