/* The NVVM matrix-copy selector: legality checks first (with the table's
 * exact messages), then a lookup in the table of ptx_templates/nvvm_matrix.def.
 * Each row also gives the typed key (family, shape, num, trans, bits, format)
 * of the ptxas-valid form tilepx emits for it: the selector finds that form
 * with form_find among the same records the ldstmatrix variant uses. */
#include "tilepx.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct MatrixRow {
	int family; /* 0 ldmatrix, 1 stmatrix, 2 movmatrix, 3 stmatrix alt, 4 ldmatrix sibling */
	const char *shape;
	int shape_enum, num, trans, layout, sz;
	const char *width, *props;
	int id;
	const char *mnemonic;
	FormFam valid_fam; /* FAM_NONE: no valid form */
	FormKey valid;
	const char *note;
} MatrixRow;

static const MatrixRow rows[] = {
#define MATRIX_ROW(f, sh, se, n, t, l, sz, w, p, id, mn, vf, vs, vn, vt, vb, vfmt, note)                          \
	{f, sh, se, n, t, l, sz, w, p, id, mn, FAM_##vf, {.shape = SHAPE_##vs, .num = vn, .trans = vt, .bits = vb,   \
	                                                  .fmt = FMT_##vfmt}, note},
#include "../ptx_templates/nvvm_matrix.def"
#undef MATRIX_ROW
};

static const char *family_names[] = {"ldmatrix", "stmatrix", "movmatrix", "stmatrix (alt import)", "ldmatrix sibling"};

/* the row's valid form (FORM_COUNT: none) */
FormId nvvm_row_form(size_t i)
{
	if (i >= sizeof rows / sizeof rows[0] || rows[i].valid_fam == FAM_NONE)
		return FORM_COUNT;
	return form_find(rows[i].valid_fam, &rows[i].valid);
}

size_t nvvm_nrows(void) { return sizeof rows / sizeof rows[0]; }

/* the form text without operand holes, e.g. "ldmatrix.sync.aligned.m8n8.x2.shared.b16" */
static void valid_text(FormId f, char *buf, size_t n)
{
	if (f == FORM_COUNT) {
		snprintf(buf, n, "(none)");
		return;
	}
	const char *t = ptx_forms[f].text;
	size_t k = strcspn(t, " ");
	snprintf(buf, n, "%.*s", (int)k, t);
}

static const MatrixRow *select_row(int family, const char *shape, int num, int sz, int trans, int layout,
                                   const char **err)
{
	if (family == 0) {
		if (!strcmp(shape, "m8n16") && trans) {
			*err = "Transposed layout is not supported for m8n16 shape for nvvm.ldmatrix";
			return NULL;
		}
		if (!strcmp(shape, "m16n16") && num == 1) {
			*err = "m16n16 ldmatrix requires num=2 or num=4";
			return NULL;
		}
	}
	if (family == 2 && !trans) {
		*err = "movmatrix requires .trans";
		return NULL;
	}
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const MatrixRow *r = &rows[i];
		if (r->family != family || strcmp(r->shape, shape) || r->num != num || r->trans != trans)
			continue;
		if (r->sz >= 0 && r->sz != sz)
			continue;
		if (layout >= 0 && r->layout != layout)
			continue;
		return r;
	}
	*err = "no row of the selector table matches these properties";
	return NULL;
}

int nvvm_select_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"family", required_argument, 0, 'f'}, {"shape", required_argument, 0, 's'},
		{"num", required_argument, 0, 'n'},    {"sz", required_argument, 0, 'z'},
		{"trans", no_argument, 0, 't'},        {"layout", required_argument, 0, 'l'},
		{"table", no_argument, 0, 'T'},        {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static const char *usage =
		"usage: tilepx nvvm-select --family ldmatrix|stmatrix|movmatrix --shape m8n8|m8n16|m16n16\n"
		"                          --num N [--sz 0|1|2] [--trans] [--layout row|col]\n"
		"       tilepx nvvm-select --table\n\n"
		"Prints 'ID MNEMONIC' (the NVVM selector's table) and the ptxas-valid form, or the legality error.\n";
	int family = -1, num = -1, sz = 0, trans = 0, layout = -1, table = 0, c;
	const char *shape = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			family = !strcmp(optarg, "ldmatrix") ? 0 : !strcmp(optarg, "stmatrix") ? 1
			       : !strcmp(optarg, "movmatrix") ? 2 : -2;
			break;
		case 's': shape = optarg; break;
		case 'n': num = atoi(optarg); break;
		case 'z': sz = atoi(optarg); break;
		case 't': trans = 1; break;
		case 'l': layout = !strcmp(optarg, "row") ? 0 : !strcmp(optarg, "col") ? 1 : -2; break;
		case 'T': table = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (table) {
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
			const MatrixRow *r = &rows[i];
			char v[160];
			valid_text(nvvm_row_form(i), v, sizeof v);
			printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t", family_names[r->family], r->shape, r->width, r->props,
			       r->num < 0 ? "-" : r->num == 1 ? "1" : r->num == 2 ? "2" : "4",
			       r->trans < 0 ? "-" : r->trans ? "trans" : "notrans", r->layout ? "col" : "row");
			if (r->id < 0)
				printf("(none)");
			else
				printf("%d", r->id);
			printf("\t%s\t%s\t%s\n", r->mnemonic, v, r->note);
		}
		return 0;
	}
	if (family < 0 || layout == -2 || !shape || num < 0 || sz < 0 || sz > 2 || optind != argc) {
		fputs(family == -2 ? "tilepx nvvm-select: unknown family\n" : "", stderr);
		fputs(usage, stderr);
		return 2;
	}
	if (family == 2 && num < 0)
		num = 1;
	const char *err = NULL;
	const MatrixRow *r = select_row(family, shape, num, sz, trans, layout, &err);
	if (!r) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	char v[160];
	valid_text(nvvm_row_form((size_t)(r - rows)), v, sizeof v);
	if (r->id < 0)
		printf("(none) %s\n", r->mnemonic);
	else
		printf("%d %s\n", r->id, r->mnemonic);
	printf("valid: %s\n", v);
	return 0;
}
