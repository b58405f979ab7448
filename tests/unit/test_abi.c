/* The launch ABI (src/abi.h) is the one description of a kernel entry's
 * params that the emitter, both runners (emu/runcore.c rc_abi_check: the
 * check ptxemu and tilepx-run make before they run a kernel) and the C API
 * read. A kernel with every kind of param: its ABI is the one
 * docs/language.md writes down, the emitted entry agrees with it, an entry
 * that declares a param otherwise (a u64 scalar as .u32: the class of the bug
 * that once read u64 scalars as 0; two params swapped; a missing tensor map;
 * other cluster dims) is caught, and the C API numbers params as the entry
 * declares them. */
#include "unit.h"
#include <ctype.h>
#include "runcore.h"
#include "../../include/tilepx/tilepx.h"

/* tests/gpu/ragged_abi_every_param.tile (which the emulator and the GPU run) */
static const char prog[] =
	"target sm_90a\n"
	"kernel abi_every_param\nthreads 128\ngrid 2\ncluster 2\n"
	"param  M u32\nparam  K u64\nparam  N i32\nparam  L i64\n"
	"assume M <= 64\nassume K <= 64\nassume K % 8 == 0\nassume N <= 128\nassume L <= 64\n"
	"param  A bf16 [M, K] tma\nparam  D u16 [L, 64] tma\nparam  B bf16 [N, 64]\nparam  E u16 [128, 64]\n"
	"shared S bf16 [64, 64] layout swizzle(3, 3, 3)\nshared P u16 [384, 64]\nmbarrier bar\n"
	"mbarrier.init bar\nmbarrier.expect_tx bar\n"
	"cta copy_async S, A[0:64, 0:64] mbarrier bar\n"
	"cta copy_async P[64:128, :], D[0:64, 0:64] mbarrier bar\n"
	"mbarrier.wait bar\nsync\n"
	"cta copy B[ctaid*64 : ctaid*64 + 64, :], S\n"
	"cta copy E[ctaid*64 : ctaid*64 + 64, :], P[64:128, :]\n";

/* the entry's params as docs/language.md ("Kernel ABI") writes them */
static const char *const want_decl[] = {
	".param .u64 abi_every_param$param_0", ".param .u64 abi_every_param$param_1",
	".param .u64 abi_every_param$param_2", ".param .u64 abi_every_param$param_3",
	".param .u32 abi_every_param$arg_M",   ".param .u64 abi_every_param$arg_K",
	".param .s32 abi_every_param$arg_N",   ".param .s64 abi_every_param$arg_L",
	".param .align 64 .b8 abi_every_param$tmap_0[128]", ".param .align 64 .b8 abi_every_param$tmap_1[128]",
};
static const AbiKind want_kind[] = {ABI_POINTER, ABI_POINTER, ABI_POINTER, ABI_POINTER, ABI_SCALAR,
                                    ABI_SCALAR,  ABI_SCALAR,  ABI_SCALAR,  ABI_TENSOR_MAP, ABI_TENSOR_MAP};
static const int want_bytes[] = {8, 8, 8, 8, 4, 8, 4, 8, 128, 128};
static const char *const want_buf[] = {"A", "D", "B", "E", NULL, NULL, NULL, NULL, "A", "D"};

/* text with the first `from` replaced by `to` (static storage) */
static const char *edit(const char *text, const char *from, const char *to)
{
	static Str out;
	str_free(&out);
	const char *at = strstr(text, from);
	if (!at)
		return "";
	str_putn(&out, text, (size_t)(at - text));
	str_puts(&out, to);
	str_puts(&out, at + strlen(from));
	return out.s;
}

/* the position of `name` among the .param declarations of the PTX entry,
 * counted in the text itself (not from the ABI), or -1 */
static int position_in_entry(const char *ptx, const char *name)
{
	const char *h = strstr(ptx, ".entry "), *close = h ? strchr(h, ')') : NULL;
	int i = 0;
	for (const char *p = h ? strstr(h, ".param") : NULL; p && p < close; p = strstr(p + 1, ".param"), i++) {
		const char *e = p + strcspn(p, ",)");
		const char *n = strstr(p, name);
		if (n && n < e && !(isalnum((unsigned char)n[strlen(name)]) || n[strlen(name)] == '_'))
			return i;
	}
	return -1;
}

static void check_mismatch(const KernelAbi *abi, const char *ptx, const char *what, const char *from, const char *to,
                           const char *says)
{
	char why[512] = "";
	const char *bad = edit(ptx, from, to);
	CHECK(bad[0], "%s: the edit applies", what);
	CHECK(rc_abi_check(abi, bad, why, sizeof why) == 0, "%s is caught", what);
	CHECK(strstr(why, says) != NULL, "%s: the reason names it: %s", what, why);
}

int main(void)
{
	Ctx cx = {0};
	cx.arena = arena_new();
	cx.diags.file = "abi.tile";
	cx.diags.src = prog;
	cx.diags.len = strlen(prog);
	Module *m = parse_module(&cx, "abi.tile", prog, strlen(prog));
	Str ptx = {0};
	bool ok = !cx.diags.errors && emit_module(&cx, m, NULL, &ptx);
	CHECK(ok, "the program compiles");
	if (!ok) {
		diag_print(&cx.diags, stderr);
		UNIT_END();
	}
	const Kernel *k = m->kernels[0];
	KernelAbi abi = kernel_abi(cx.arena, k);

	/* the ABI is the documented one */
	int n = (int)(sizeof want_decl / sizeof *want_decl);
	CHECK(abi.nparams == n && abi.npointers == 4 && abi.nscalars == 4 && abi.ntmaps == 2, "%d params", abi.nparams);
	for (int i = 0; i < n && i < abi.nparams; i++) {
		const AbiParam *p = &abi.params[i];
		CHECK(!strcmp(p->decl, want_decl[i]), "param %d: '%s', want '%s'", i, p->decl, want_decl[i]);
		CHECK(p->kind == want_kind[i] && p->bytes == want_bytes[i], "param %d: kind %d, %d bytes", i, p->kind,
		      p->bytes);
		CHECK(want_buf[i] ? p->buf && !strcmp(p->buf->name, want_buf[i]) : !p->buf, "param %d's buffer", i);
		CHECK(p->is_signed == (i == 6 || i == 7), "param %d's signedness", i);
		CHECK(abi_position(&abi, p->kind, p->index) == i, "param %d is found by its kind and index", i);
	}
	for (int i = 0; i < 4; i++)
		CHECK(abi.params[4 + i].index == i && k->scalars[i].name[0] == "MKNL"[i] && !k->scalars[i].name[1],
		      "scalar %d is %s", i, k->scalars[i].name);
	CHECK(abi.threads == 128 && abi.cluster_x == 2 && abi.cluster_y == 1 && abi.maxnreg == 0, "launch facts");
	CHECK(abi.dyn_shared == k->dyn_shared && abi.dyn_shared > 48 * 1024, "dynamic shared: %lld bytes",
	      (long long)abi.dyn_shared);

	/* the emitted entry agrees with it: what both runners check before a run */
	char why[512] = "";
	CHECK(rc_abi_check(&abi, ptx.s, why, sizeof why) == 1, "the emitted entry agrees: %s", why);
	CHECK(rc_abi_check(&(KernelAbi){.kernel = "abi_every"}, ptx.s, why, sizeof why) == -1, "no entry of another name");

	/* and an entry that declares the params otherwise does not */
	check_mismatch(&abi, ptx.s, "a u64 scalar declared .u32", ".param .u64 abi_every_param$arg_K",
	               ".param .u32 abi_every_param$arg_K", "param 5");
	check_mismatch(&abi, ptx.s, "an i32 scalar declared .u32", ".param .s32 abi_every_param$arg_N",
	               ".param .u32 abi_every_param$arg_N", "param 6");
	check_mismatch(&abi, ptx.s, "two scalars swapped",
	               ".param .u32 abi_every_param$arg_M,\n\t.param .u64 abi_every_param$arg_K",
	               ".param .u64 abi_every_param$arg_K,\n\t.param .u32 abi_every_param$arg_M", "param 4");
	check_mismatch(&abi, ptx.s, "a missing tensor map",
	               ",\n\t.param .align 64 .b8 abi_every_param$tmap_1[128]", "", "the entry has 9 params");
	check_mismatch(&abi, ptx.s, "a pointer too many", ".param .u64 abi_every_param$param_0,",
	               ".param .u64 abi_every_param$param_0,\n\t.param .u64 abi_every_param$param_9,", "param 1");
	check_mismatch(&abi, ptx.s, "other cluster dims", ".reqnctapercluster 2, 1, 1", ".reqnctapercluster 1, 2, 1",
	               ".reqnctapercluster 1, 2");
	check_mismatch(&abi, ptx.s, "no cluster", ".reqnctapercluster 2, 1, 1\n", "", ".reqnctapercluster 0, 0");
	check_mismatch(&abi, ptx.s, "another block size", ".reqntid 128, 1, 1", ".reqntid 64, 1, 1", ".reqntid 64");

	/* the C API numbers kernel params as the entry declares them */
	tilepx_launch l[2];
	tilepx_result diag = {0};
	const char *sets[] = {"M=40", "K=48", "N=100", "L=24"};
	CHECK(tilepx_launches_set("abi.tile", prog, strlen(prog), NULL, sets, 4, l, 2, &diag) == 1, "launch facts");
	char name[96];
	for (int i = 0; i < l[0].nscalars; i++) {
		snprintf(name, sizeof name, "abi_every_param$arg_%s", l[0].scalars[i].name);
		CHECK(l[0].scalars[i].kernel_param_index == position_in_entry(ptx.s, name), "scalar %s at %d", name,
		      l[0].scalars[i].kernel_param_index);
		CHECK(l[0].scalars[i].bytes == abi.params[4 + i].bytes, "scalar %s's bytes", name);
	}
	for (int i = 0; i < l[0].ntensor_maps; i++) {
		snprintf(name, sizeof name, "abi_every_param$tmap_%d", i);
		CHECK(l[0].tensor_maps[i].kernel_param_index == position_in_entry(ptx.s, name), "tensor map %d at %d", i,
		      l[0].tensor_maps[i].kernel_param_index);
	}
	CHECK(l[0].nparams == abi.npointers && l[0].dynamic_shared_bytes == abi.dyn_shared && l[0].cluster[0] == 2 &&
	      l[0].block == 128, "pointers, dynamic shared, cluster, block");
	tilepx_result_free(&diag);
	str_free(&ptx);
	arena_free(cx.arena);
	UNIT_END();
}
