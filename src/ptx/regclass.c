/* The NVPTX register-class model of the NVVM selector model, read from regclass.def. */
#include "../tilepx.h"

static const RegClassInfo classes[RC_COUNT] = {
#define REGCLASS(id, name, bits, type, prefix, sub, super, decl, note) \
	[id] = {id, name, bits, type, prefix, sub, super, decl, note},
#include "../../ptx_templates/regclass.def"
#undef REGCLASS
};

const RegClassInfo *regclass_info(RegClass c) { return &classes[c]; }

/* the declaration type; "INTERNAL" for classes that are never declared */
const char *reg_class_type(RegClass c) { return classes[c].decl_type; }
const char *reg_class_prefix(RegClass c) { return classes[c].prefix; }

/* The NVVM selector model prints floats as %f / %fd views of %r / %rd ids. Those names are
 * never declared, so ptxas rejects them: tilepx keeps the choice in the model
 * (this function) but emitted PTX always uses the storage prefix, which is
 * legal for .f32/.f64 instructions (docs/register-classes.md). */
const char *regclass_operand_prefix(RegClass storage, bool is_float)
{
	if (is_float && storage == RC_R)
		return "%f";
	if (is_float && storage == RC_RD)
		return "%fd";
	return classes[storage].prefix;
}

void regclass_print_table(FILE *out)
{
	fprintf(out, "%-8s %-3s %-5s %-9s %-9s %-10s %-10s %-8s %s\n", "class", "id", "bits", "decl", "prefix",
	        "subclasses", "superclass", "declared", "note");
	for (int c = 0; c < RC_COUNT; c++) {
		const RegClassInfo *r = &classes[c];
		char sub[64] = "", sup[64] = "";
		for (int i = 0, ns = 0, np = 0; i < RC_COUNT; i++) {
			if (r->sub_mask & (1u << i))
				ns += snprintf(sub + ns, sizeof sub - (size_t)ns, "%s%s", ns ? "," : "", classes[i].name);
			if (r->super_mask & (1u << i))
				np += snprintf(sup + np, sizeof sup - (size_t)np, "%s%s", np ? "," : "", classes[i].name);
		}
		fprintf(out, "%-8s %-3d %-5d %-9s %-9s %-10s %-10s %-8s %s\n", r->name, r->id, r->bits, r->decl_type,
		        r->prefix, sub, sup[0] ? sup : "-", r->declared ? "yes" : "no", r->note);
	}
	fprintf(out, "%-8s %-3s %-5d %-9s %-9s %-10s %-10s %-8s %s\n", "%fd", "-", 64, "INTERNAL", "INTERNAL", "-", "%rd",
	        "no", "print-time float-double view over %rd ids (no class)");
}
