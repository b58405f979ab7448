/* Typed operand holes ($0:r32 [$1:a32] in the .tpl rows): every hole
 * of every form has a class and no class is given for a hole the text lacks;
 * b_ins refuses a missing operand, an operand of another class and one left
 * over, as an internal error at build time (before, a missing operand
 * printed "<missing operand>" and only ptxas caught it), and prints the same
 * text as before for operands that fit. */
#include "unit.h"

/* the hole numbers the form's text uses */
static unsigned holes_in(const char *text)
{
	unsigned m = 0;
	for (const char *p = text; *p; p++)
		if (p[0] == '$' && p[1] >= '0' && p[1] <= '9')
			m |= 1u << (p[1] - '0');
	return m;
}

/* b_ins of form f with operands ops (NULL-terminated, at most 4) into a
 * fresh builder: its internal error (NULL: none), its text in *text */
static const char *build(Arena *a, FormId f, const char *o0, const char *o1, const char *o2, const char **text)
{
	Builder b;
	b_init(&b, a, target_find("sm_100a"));
	b_ins(&b, f, o0, o1, o2, NULL);
	*text = b.body.s ? arena_printf(a, "%s", b.body.s) : "";
	str_free(&b.body);
	return b.internal;
}

int main(void)
{
	for (int f = 0; f < FORM_COUNT; f++) {
		unsigned used = holes_in(ptx_forms[f].text);
		for (int i = 0; i < 10; i++) {
			bool has = ptx_forms[f].holes[i][0] != 0;
			CHECK(has == ((used >> i & 1) != 0), "%s: hole $%d %s a class", ptx_forms[f].name, i,
			      has ? "has" : "lacks");
		}
		CHECK(!strstr(ptx_forms[f].text, ":r") && !strstr(ptx_forms[f].text, ":a32"), "%s: the text keeps no class",
		      ptx_forms[f].name);
	}
	Arena *a = arena_new();
	const char *text, *err;
	/* fits: the text is the form's, operands in place */
	err = build(a, FORM_LD_SHARED_B32, "%r1", "%r2+16", NULL, &text);
	CHECK(!err && !strcmp(text, "\tld.shared.b32 %r1, [%r2+16];\n"), "fits: %s / %s", err ? err : "-", text);
	err = build(a, FORM_LD_SHARED_B32, "%r1", "S$sm+-8", NULL, &text);
	CHECK(!err, "a shared symbol with an offset is an a32 address: %s", err ? err : "-");
	err = build(a, FORM_MOV_U32, "%r3", "0x10", NULL, &text);
	CHECK(!err, "a hex immediate: %s", err ? err : "-");
	/* a missing operand: an internal error, not "<missing operand>" for ptxas */
	err = build(a, FORM_LD_SHARED_B32, "%r1", NULL, NULL, &text);
	CHECK(err && strstr(err, "LD_SHARED_B32: operand $1 (a32) is missing"), "missing: %s", err ? err : "(none)");
	/* another class: a 64-bit register where a 32-bit one goes */
	err = build(a, FORM_LD_SHARED_B32, "%rd1", "%r2", NULL, &text);
	CHECK(err && strstr(err, "operand $0 '%rd1' is not r32"), "wrong class: %s", err ? err : "(none)");
	err = build(a, FORM_LD_SHARED_B32, "%r1", "%rd2", NULL, &text);
	CHECK(err && strstr(err, "operand $1 '%rd2' is not a32"), "a 64-bit shared address: %s", err ? err : "(none)");
	err = build(a, FORM_LD_GLOBAL_B32, "%r1", "%r2", NULL, &text);
	CHECK(err && strstr(err, "is not a64"), "a 32-bit global address: %s", err ? err : "(none)");
	err = build(a, FORM_BRA, "%r1", NULL, NULL, &text);
	CHECK(err && strstr(err, "is not label"), "a branch to a register: %s", err ? err : "(none)");
	err = build(a, FORM_MOV_U32, "%r3", "%p1", NULL, &text);
	CHECK(err && strstr(err, "is not r32/imm/sym"), "a predicate moved as u32: %s", err ? err : "(none)");
	/* an operand left over */
	err = build(a, FORM_LD_SHARED_B32, "%r1", "%r2", "%r3", &text);
	CHECK(err && strstr(err, "operand $2 '%r3' has no hole"), "left over: %s", err ? err : "(none)");
	arena_free(a);
	UNIT_END();
}
