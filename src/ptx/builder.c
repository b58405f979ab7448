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

void b_loc(Builder *b)
{
	if (!b->lineinfo || b->at.line <= 0 || (b->at.line == b->loc_written.line && b->at.col == b->loc_written.col))
		return;
	str_printf(&b->body, "\t.loc 1 %d %d\n", b->at.line, b->at.col);
	b->loc_written = b->at;
}

void b_loc_reset(Builder *b) { b->loc_written = (Loc){0, 0}; }

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

/* "%r12" with prefix "%r": the prefix and then only digits */
static bool is_reg(const char *o, const char *prefix, size_t n)
{
	size_t k = strlen(prefix);
	if (n <= k || memcmp(o, prefix, k))
		return false;
	for (size_t i = k; i < n; i++)
		if (o[i] < '0' || o[i] > '9')
			return false;
	return true;
}

/* an integer literal: decimal (with a sign) or 0x hex */
static bool is_imm(const char *o, size_t n)
{
	size_t i = o[0] == '-';
	bool hex = n > i + 2 && o[i] == '0' && (o[i + 1] == 'x' || o[i + 1] == 'X');
	if (hex)
		i += 2;
	if (i >= n)
		return false;
	for (; i < n; i++)
		if (!(o[i] >= '0' && o[i] <= '9') && !(hex && ((o[i] | 32) >= 'a' && (o[i] | 32) <= 'f')))
			return false;
	return true;
}

/* a PTX identifier: a letter, then letters, digits, '_' and '$' (tilepx's
 * generated names hold a '$': "k$param_0", "S$sm"); or '_' or '$' then at
 * least one of those */
static bool is_ident(const char *o, size_t n)
{
	bool letter = n && (o[0] | 32) >= 'a' && (o[0] | 32) <= 'z';
	if (!letter && !(n > 1 && (o[0] == '_' || o[0] == '$')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(o[i] == '_' || o[i] == '$' || (o[i] >= '0' && o[i] <= '9') || ((o[i] | 32) >= 'a' && (o[i] | 32) <= 'z')))
			return false;
	return true;
}

/* BASE or BASE+OFFSET ([%r+-8] too), BASE accepted by base() */
static bool is_offset_of(const char *o, bool (*base)(const char *, size_t, const char *), const char *arg)
{
	size_t n = strcspn(o, "+");
	if (!base(o, n, arg))
		return false;
	return !o[n] || is_imm(o + n + 1, strlen(o + n + 1));
}
static bool base_reg(const char *o, size_t n, const char *prefix) { return is_reg(o, prefix, n); }
static bool base_ident(const char *o, size_t n, const char *unused) { return (void)unused, is_ident(o, n); }

/* operand text o is of one class (the holes of the .tpl rows, tools/gen_forms.awk) */
static bool fits_one(const char *cls, size_t cn, const char *o)
{
	size_t n = strlen(o);
#define IS(c) (cn == sizeof(c) - 1 && !memcmp(cls, c, cn))
	if (IS("r16"))
		return is_reg(o, "%rs", n);
	if (IS("r32"))
		return is_reg(o, "%r", n);
	if (IS("r64"))
		return is_reg(o, "%rd", n);
	if (IS("pred"))
		return is_reg(o, "%p", n);
	if (IS("imm"))
		return is_imm(o, n);
	if (IS("fimm")) /* an f32 literal: 0f and 8 hex digits */
		return n == 10 && o[0] == '0' && o[1] == 'f' && strspn(o + 2, "0123456789ABCDEFabcdef") == 8;
	if (IS("vec")) /* {%r1, %r2, ...} */
		return n >= 2 && o[0] == '{' && o[n - 1] == '}';
	if (IS("label"))
		return n > 4 && !memcmp(o, "$L__", 4) && is_imm(o + 4, n - 4);
	if (IS("sym")) /* a .param or .shared symbol, with an offset */
		return is_offset_of(o, base_ident, NULL);
	if (IS("a32")) /* a 32-bit address: a %r register or a symbol, with an offset */
		return is_offset_of(o, base_reg, "%r") || is_offset_of(o, base_ident, NULL);
	if (IS("a64")) /* a 64-bit address: a %rd register, with an offset */
		return is_offset_of(o, base_reg, "%rd");
#undef IS
	return false;
}

/* o fits one of the '/'-separated classes of cls */
static bool operand_fits(const char *cls, const char *o)
{
	for (const char *c = cls; *c;) {
		size_t cn = strcspn(c, "/");
		if (fits_one(c, cn, o))
			return true;
		c += cn + (c[cn] == '/');
	}
	return false;
}

/* every hole of the form gets an operand of its class, and no operand is
 * left over; else an internal error (the emitter reports it, nothing is
 * written) rather than text only ptxas would catch */
static void check_operands(Builder *b, const PtxForm *form, const char *const *ops)
{
	for (int i = 0; i < 10 && !b->internal; i++) {
		const char *cls = form->holes[i];
		if (cls[0] && !ops[i])
			b->internal = arena_printf(b->arena, "form %s: operand $%d (%s) is missing", form->name, i, cls);
		else if (cls[0] && !operand_fits(cls, ops[i]))
			b->internal = arena_printf(b->arena, "form %s: operand $%d '%s' is not %s", form->name, i, ops[i], cls);
		else if (!cls[0] && ops[i])
			b->internal = arena_printf(b->arena, "form %s: operand $%d '%s' has no hole", form->name, i, ops[i]);
	}
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
	check_operands(b, form, ops);
	b_use_form(b, f);
	b_loc(b);
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
			str_puts(out, o ? o : "<missing operand>"); /* check_operands reported it */
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
