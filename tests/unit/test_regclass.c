/* The register-class model of seed 002, row by row, and the builder's
 * declaration printer. */
#include "unit.h"

int main(void)
{
	static const struct { RegClass c; int id, bits; const char *type, *prefix; bool declared; } want[] = {
		{RC_P, 0, 1, ".pred", "%p", true},        {RC_RS, 1, 16, ".b16", "%rs", true},
		{RC_SPECIAL, 2, 32, "INTERNAL", "INTERNAL", false}, {RC_R, 3, 32, ".b32", "%r", true},
		{RC_F, 4, 32, "INTERNAL", "INTERNAL", false}, {RC_RD, 5, 64, ".b64", "%rd", true},
		{RC_RQ, 6, 128, ".b128", "%rq", true},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const RegClassInfo *r = regclass_info(want[i].c);
		CHECK((int)r->id == want[i].id, "id of %s", r->name);
		CHECK(r->bits == want[i].bits, "bits of %s", r->name);
		CHECK(!strcmp(reg_class_type(want[i].c), want[i].type), "type of %s", r->name);
		CHECK(!strcmp(reg_class_prefix(want[i].c), want[i].prefix), "prefix of %s", r->name);
		CHECK(r->declared == want[i].declared, "declared of %s", r->name);
	}
	/* %r and Special include %f among their subclasses; %f lists both as superclasses */
	CHECK(regclass_info(RC_R)->sub_mask & (1u << RC_F), "%%r sub %%f");
	CHECK(regclass_info(RC_SPECIAL)->sub_mask & (1u << RC_F), "Special sub %%f");
	CHECK(regclass_info(RC_F)->super_mask == ((1u << RC_R) | (1u << RC_SPECIAL)), "%%f supers");
	CHECK(!strcmp(regclass_operand_prefix(RC_R, true), "%f"), "f32 view");
	CHECK(!strcmp(regclass_operand_prefix(RC_RD, true), "%fd"), "f64 view");
	CHECK(!strcmp(regclass_operand_prefix(RC_R, false), "%r"), "int view");

	/* the builder never names %f: float requests get %r storage */
	Arena *a = arena_new();
	Builder b;
	b_init(&b, a, target_find("sm_90"));
	Reg f = b_reg(&b, RC_F), r = b_reg(&b, RC_R), p = b_reg(&b, RC_P), d = b_reg(&b, RC_RD);
	CHECK(f.cls == RC_R && f.id == 1 && r.id == 2, "%%f allocates %%r ids");
	CHECK(!strcmp(b_name(&b, f), "%r1"), "named %s", b_name(&b, f));
	Str s = {0};
	b_print_decls(&b, &s);
	CHECK(!strcmp(s.s, "\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"), "decls:\n%s", s.s);
	(void)p;
	(void)d;
	str_free(&s);
	str_free(&b.body);
	arena_free(a);
	UNIT_END();
}
