/* Typed instruction forms (key=value fields of the ptx_templates rows): every
 * (family, key) is unique, and every typed lookup the code makes resolves to
 * the form it means. The lookup domains below are the ones the callers build:
 * src/emit/emit.c ld_form/st_form, src/variants/ldgsts.c, ldstmatrix.c,
 * tcgen05_ldst.c, and the selector rows of ptx_templates/nvvm_matrix.def. */
#include "unit.h"

static bool key_eq(const FormKey *a, const FormKey *b)
{
	return a->shape == b->shape && a->num == b->num && a->trans == b->trans && a->bits == b->bits &&
	       a->fmt == b->fmt && a->space == b->space && a->bytes == b->bytes && a->pack == b->pack &&
	       a->rank == b->rank && a->zfill == b->zfill && a->atype == b->atype && a->btype == b->btype &&
	       a->dtype == b->dtype && a->areg == b->areg;
}

/* the mnemonic (text up to the first blank) contains s */
static bool mn_has(FormId f, const char *s)
{
	const char *t = ptx_forms[f].text;
	size_t n = strcspn(t, " ");
	char mn[128];
	snprintf(mn, sizeof mn, "%.*s", (int)n, t);
	return strstr(mn, s) != NULL;
}

static FormId find(FormFam fam, FormKey k)
{
	return form_find(fam, &k);
}

static void check_unique(void)
{
	int typed = 0;
	for (int i = 0; i < FORM_COUNT; i++) {
		const PtxForm *a = &ptx_forms[i];
		if (a->fam == FAM_NONE)
			continue;
		typed++;
		CHECK(a->fam > FAM_NONE && a->fam < FAM_COUNT, "%s: family %d", a->name, a->fam);
		for (int j = i + 1; j < FORM_COUNT; j++) {
			const PtxForm *b = &ptx_forms[j];
			CHECK(b->fam != a->fam || !key_eq(&a->key, &b->key), "%s and %s share family %s and key", a->name,
			      b->name, form_fam_names[a->fam]);
		}
		/* the lookup by its own key finds exactly this form */
		CHECK(form_find(a->fam, &a->key) == (FormId)i, "%s is not found by its own key", a->name);
		/* the typed fields agree with the instruction text */
		char buf[64];
		if (a->key.shape) {
			snprintf(buf, sizeof buf, ".%s.", form_shape_names[a->key.shape]);
			CHECK(mn_has((FormId)i, buf), "%s: shape %s not in '%s'", a->name, buf, a->text);
		}
		if (a->key.num) {
			snprintf(buf, sizeof buf, ".x%d.", a->key.num);
			CHECK(mn_has((FormId)i, buf), "%s: %s not in '%s'", a->name, buf, a->text);
		}
		CHECK(mn_has((FormId)i, ".trans") == (a->key.trans == 1), "%s: trans=%d vs '%s'", a->name, a->key.trans,
		      a->text);
		if (a->key.space) {
			snprintf(buf, sizeof buf, ".%s.", form_space_names[a->key.space]);
			CHECK(mn_has((FormId)i, buf), "%s: space %s not in '%s'", a->name, buf, a->text);
		}
	}
	CHECK(typed >= 100, "only %d typed forms", typed);
	/* plain forms are never found by a typed lookup */
	CHECK(find(FAM_NONE, (FormKey){0}) == FORM_COUNT, "FAM_NONE lookup found a form");
	CHECK(ptx_forms[FORM_BAR_SYNC].fam == FAM_NONE, "BAR_SYNC became typed");
	/* a key no row has */
	CHECK(find(FAM_LDMATRIX, (FormKey){.shape = SHAPE_M8N8, .num = 8, .bits = 16}) == FORM_COUNT, "ldmatrix .x8");
	char k[160];
	form_key_format(&(FormKey){.shape = SHAPE_M8N8, .num = 4, .trans = 1, .bits = 16}, k, sizeof k);
	CHECK(!strcmp(k, "shape=m8n8 num=4 trans=1 bits=16"), "form_key_format gave '%s'", k);
}

/* src/emit/emit.c ld_form / st_form and src/variants/ldgsts.c */
static void check_ldst(void)
{
	static const int bytes[] = {1, 2, 4, 8, 16};
	static const FormSpace spaces[] = {SPACE_SHARED, SPACE_GLOBAL};
	for (int d = 0; d < 2; d++)
		for (int s = 0; s < 2; s++)
			for (int i = 0; i < 5; i++) {
				FormId f = find(d ? FAM_ST : FAM_LD, (FormKey){.space = spaces[s], .bytes = bytes[i]});
				CHECK(f != FORM_COUNT, "%s %s %d bytes", d ? "st" : "ld", form_space_names[spaces[s]], bytes[i]);
				if (f == FORM_COUNT)
					continue;
				CHECK(ptx_forms[f].regs == (bytes[i] < 4 ? 1 : bytes[i] / 4), "%s regs %d", ptx_forms[f].name,
				      ptx_forms[f].regs);
				CHECK(!strncmp(ptx_forms[f].text, d ? "st." : "ld.", 3), "%s", ptx_forms[f].text);
			}
	CHECK(find(FAM_LD, (FormKey){.space = SPACE_SHARED, .bytes = 16}) == FORM_LD_SHARED_V4_B32, "ld.shared.v4");
	CHECK(find(FAM_ST, (FormKey){.space = SPACE_GLOBAL, .bytes = 2}) == FORM_ST_GLOBAL_U16, "st.global.u16");
	for (int b = 4; b <= 16; b *= 2) {
		FormId f = find(FAM_CP_ASYNC, (FormKey){.space = SPACE_SHARED, .bytes = b});
		CHECK(f != FORM_COUNT, "cp.async %d bytes", b);
		char want[16];
		snprintf(want, sizeof want, "], %d;", b);
		CHECK(f != FORM_COUNT && strstr(ptx_forms[f].text, want), "cp.async %d bytes", b);
	}
	CHECK(find(FAM_CP_ASYNC, (FormKey){.space = SPACE_SHARED, .bytes = 16}) == FORM_CP_ASYNC_CG_16, "cp.async.cg");
}

/* src/variants/ldstmatrix.c: m8n8 .b16 num 1/2/4 x trans; b8 ld m16n16 num 1/2, st m16n8 num 1/2/4 */
static void check_ldstmatrix(void)
{
	for (int ld = 0; ld < 2; ld++)
		for (int t = 0; t < 2; t++)
			for (int num = 1; num <= 4; num *= 2) {
				FormId f = find(ld ? FAM_LDMATRIX : FAM_STMATRIX,
				                (FormKey){.shape = SHAPE_M8N8, .num = num, .trans = t, .bits = 16});
				CHECK(f != FORM_COUNT && ptx_forms[f].regs == num, "%smatrix m8n8 x%d trans %d", ld ? "ld" : "st",
				      num, t);
			}
	for (int num = 1; num <= 2; num *= 2) {
		FormId f = find(FAM_LDMATRIX, (FormKey){.shape = SHAPE_M16N16, .num = num, .trans = 1, .bits = 8});
		CHECK(f != FORM_COUNT && ptx_forms[f].regs == 2 * num, "ldmatrix m16n16 x%d", num);
	}
	for (int num = 1; num <= 4; num *= 2) {
		FormId f = find(FAM_STMATRIX, (FormKey){.shape = SHAPE_M16N8, .num = num, .trans = 1, .bits = 8});
		CHECK(f != FORM_COUNT && ptx_forms[f].regs == num, "stmatrix m16n8 x%d", num);
	}
	CHECK(find(FAM_LDMATRIX, (FormKey){.shape = SHAPE_M8N8, .num = 4, .trans = 1, .bits = 16}) == FORM_LDSM_X4_T_B16,
	      "ldmatrix x4 trans");
	CHECK(find(FAM_STMATRIX, (FormKey){.shape = SHAPE_M16N8, .num = 2, .trans = 1, .bits = 8}) ==
	          FORM_STSM_M16N8_X2_T_B8,
	      "stmatrix m16n8 x2");
	/* PTX has no m16n16 .x4: the variant's b8 ld nums stop at 2 */
	CHECK(find(FAM_LDMATRIX, (FormKey){.shape = SHAPE_M16N16, .num = 4, .trans = 1, .bits = 8}) == FORM_COUNT,
	      "ldmatrix m16n16 x4 exists");
}

/* src/variants/tcgen05_ldst.c: each shape's .x1 .. .xMAX (the plan takes the
 * largest num from the forms, so the one past the end must be absent) */
static void check_tcgen05(void)
{
	static const FormShape sh[] = {SHAPE_32X32B, SHAPE_16X64B, SHAPE_16X128B, SHAPE_16X256B, SHAPE_16X32BX2};
	static const int max[] = {128, 128, 64, 32, 128}, base[] = {1, 1, 2, 4, 1};
	for (int d = 0; d < 2; d++)
		for (int s = 0; s < 5; s++) {
			FormFam fam = d ? FAM_TC_ST : FAM_TC_LD;
			for (int num = 1; num <= max[s]; num *= 2) {
				FormId f = find(fam, (FormKey){.shape = sh[s], .num = num});
				CHECK(f != FORM_COUNT && ptx_forms[f].regs == num * base[s], "%s %s x%d", form_fam_names[fam],
				      form_shape_names[sh[s]], num);
				if (sh[s] == SHAPE_32X32B) {
					f = find(fam, (FormKey){.shape = sh[s], .num = num, .pack = 1});
					CHECK(f != FORM_COUNT && mn_has(f, d ? ".unpack::16b" : ".pack::16b"), "%s pack x%d",
					      form_fam_names[fam], num);
				}
			}
			CHECK(find(fam, (FormKey){.shape = sh[s], .num = 2 * max[s]}) == FORM_COUNT, "%s %s x%d exists",
			      form_fam_names[fam], form_shape_names[sh[s]], 2 * max[s]);
			CHECK(find(fam, (FormKey){.shape = sh[s], .num = 3}) == FORM_COUNT, "x3 exists");
		}
}

/* ptx_templates/nvvm_matrix.def: every selectable row finds its form */
static void check_selector(void)
{
	size_t n = nvvm_nrows(), found = 0;
	for (size_t i = 0; i < n; i++) {
		FormId f = nvvm_row_form(i);
		if (f == FORM_COUNT)
			continue;
		found++;
		CHECK(ptx_forms[f].fam == FAM_LDMATRIX || ptx_forms[f].fam == FAM_STMATRIX ||
		          ptx_forms[f].fam == FAM_MOVMATRIX,
		      "row %zu: %s", i, ptx_forms[f].name);
	}
	/* 18 ldmatrix + 9 stmatrix + 1 movmatrix rows name a form; 5 listed-only rows do not */
	CHECK(found == 28, "%zu selector rows resolve", found);
	CHECK(n == 33, "%zu selector rows", n);
	CHECK(nvvm_row_form(0) == FORM_LDSM_X1_B16, "row 0");
	CHECK(nvvm_row_form(n - 1) == FORM_MOVMATRIX_T_B16, "movmatrix row");
	CHECK(nvvm_row_form(n) == FORM_COUNT, "row past the end");
}

/* src/front/wgmma.c find_form: every N of every type combination the check accepts */
static int enum_of(const char *const *names, int count, const char *v)
{
	for (int i = 1; i < count; i++)
		if (!strcmp(names[i], v))
			return i;
	return 0;
}

static void check_wgmma_forms(void)
{
	static const struct { const char *a, *b, *d; int k; } ty[] = {
		{"f16", "f16", "f32", 16}, {"f16", "f16", "f16", 16}, {"bf16", "bf16", "f32", 16}, {"tf32", "tf32", "f32", 8},
		{"e4m3", "e4m3", "f32", 32}, {"e4m3", "e5m2", "f32", 32}, {"e5m2", "e4m3", "f32", 32}, {"e5m2", "e5m2", "f32", 32},
		{"e4m3", "e4m3", "f16", 32}, {"e4m3", "e5m2", "f16", 32}, {"e5m2", "e4m3", "f16", 32}, {"e5m2", "e5m2", "f16", 32},
	};
	for (size_t t = 0; t < sizeof ty / sizeof ty[0]; t++)
		for (int n = 8; n <= 256; n += 8) {
			char shape[32], mn[96];
			snprintf(shape, sizeof shape, "m64n%dk%d", n, ty[t].k);
			FormKey k = {.shape = (FormShape)enum_of(form_shape_names, SHAPE_COUNT, shape),
			             .atype = (FormAtype)enum_of(form_atype_names, ATYPE_COUNT, ty[t].a),
			             .btype = (FormBtype)enum_of(form_btype_names, BTYPE_COUNT, ty[t].b),
			             .dtype = (FormDtype)enum_of(form_dtype_names, DTYPE_COUNT, ty[t].d)};
			FormId f = find(FAM_WGMMA, k);
			snprintf(mn, sizeof mn, ".%s.%s.%s.%s", shape, ty[t].d, ty[t].a, ty[t].b);
			CHECK(f != FORM_COUNT && mn_has(f, mn) && ptx_forms[f].cap == CAP_SM90A &&
			      ptx_forms[f].regs == n / (strcmp(ty[t].d, "f32") ? 4 : 2), "wgmma %s", mn);
			k.areg = 1; /* the RS form: A from registers, no imm-trans-a */
			FormId r = find(FAM_WGMMA, k);
			CHECK(r != FORM_COUNT && r != f && mn_has(r, mn) && strstr(ptx_forms[r].text, "$0, $1, $2, $3, 1, 1") &&
			      !strstr(ptx_forms[r].text, "$5"), "wgmma RS %s", mn);
		}
}

int main(void)
{
	check_wgmma_forms();
	check_unique();
	check_ldst();
	check_ldstmatrix();
	check_tcgen05();
	check_selector();
	UNIT_END();
}
