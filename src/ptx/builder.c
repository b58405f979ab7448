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

Reg b_reg(Builder *b, RegClass c)
{
	/* %f is a view of %r ids and Special is never allocated: storage is %r */
	if (c == RC_F || c == RC_SPECIAL)
		c = RC_R;
	return (Reg){c, ++b->nregs[c]};
}

const char *b_name(Builder *b, Reg r)
{
	return arena_printf(b->arena, "%s%d", reg_class_prefix(r.cls), r.id);
}

int b_label(Builder *b) { return ++b->labels; }

const char *b_label_name(Builder *b, int label) { return arena_printf(b->arena, "$L__%d", label); }

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
	b->used_form[f] = true;
	if (form->min_ptx > b->min_ptx)
		b->min_ptx = form->min_ptx;
	str_puts(&b->body, b->indent);
	for (const char *p = form->text; *p; p++) {
		if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
			const char *o = ops[p[1] - '0'];
			str_puts(&b->body, o ? o : "<missing operand>");
			p++;
		} else {
			str_putc(&b->body, *p);
		}
	}
	str_putc(&b->body, '\n');
}

const char *b_imm(Builder *b, int64_t v) { return arena_printf(b->arena, "%lld", (long long)v); }

const char *b_addr(Builder *b, Reg base, int64_t off)
{
	if (off == 0)
		return b_name(b, base);
	return arena_printf(b->arena, "%s%+lld", b_name(b, base), (long long)off);
}

const char *b_vec(Builder *b, const Reg *regs, int n)
{
	Str s = {0};
	str_putc(&s, '{');
	for (int i = 0; i < n; i++)
		str_printf(&s, "%s%s", i ? ", " : "", b_name(b, regs[i]));
	str_putc(&s, '}');
	const char *r = arena_strndup(b->arena, s.s, s.n);
	str_free(&s);
	return r;
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
 * (seed 002's print_reg_decls), N+1 as LLVM prints it */
void b_print_decls(const Builder *b, Str *out)
{
	for (int c = 0; c < RC_COUNT; c++) {
		if (c == RC_F || c == RC_SPECIAL || b->nregs[c] == 0)
			continue;
		str_printf(out, "\t.reg %s %s<%d>;\n", reg_class_type((RegClass)c), reg_class_prefix((RegClass)c),
		           b->nregs[c] + 1);
	}
}
