/* The CPU reference's warp roles (issue 26): roles run as coroutines that
 * block at waits; results against host computations, hangs and barrier
 * misuse as located errors. No emitter involved. */
#include "unit.h"

#include <stdlib.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = 0;
	fclose(f);
	return s;
}

/* replace the first `from` in src (heap) by `to` */
static char *replaced(char *src, const char *from, const char *to)
{
	char *at = strstr(src, from);
	if (!at)
		return src;
	size_t pre = (size_t)(at - src), n = strlen(src) - strlen(from) + strlen(to);
	char *r = malloc(n + 1);
	memcpy(r, src, pre);
	strcpy(r + pre, to);
	strcat(r, at + strlen(from));
	free(src);
	return r;
}

typedef struct Run {
	Ctx cx;
	Module *m;
	Kernel *k;
	unsigned char *p[8];
	bool ran;
} Run;

/* compile src, bind its scalars to vals, fill the params as the harnesses
 * do, run the reference; a first error of check containing proof_error
 * (non-NULL) is dropped */
static bool run_past(Run *R, const char *src, const int64_t *vals, const char *proof_error)
{
	memset(R, 0, sizeof *R);
	R->cx.arena = arena_new();
	R->cx.diags.file = "test.tile";
	R->cx.diags.src = src;
	R->cx.diags.len = strlen(src);
	R->m = parse_module(&R->cx, "test.tile", src, strlen(src));
	if (!R->cx.diags.errors && !check_module(&R->cx, R->m) && proof_error && R->cx.diags.n &&
	    strstr(R->cx.diags.items[0].msg, proof_error)) {
		/* the multi-role proof (last in check) refuses it: run it as if the
		 * proof had a bug, the reference must find the problem itself */
		R->cx.diags.n = 0;
		R->cx.diags.errors = 0;
	}
	if (R->cx.diags.errors) {
		diag_print(&R->cx.diags, stderr);
		return false;
	}
	R->k = R->m->kernels[0];
	char why[256];
	if (vals && !kernel_bind(R->k, vals, why, sizeof why)) {
		fprintf(stderr, "bind: %s\n", why);
		return false;
	}
	for (size_t i = 0; i < R->k->nbufs; i++) {
		const Buffer *b = R->k->bufs[i];
		if (b->mem != MEM_GLOBAL || b->param_index >= 8)
			continue;
		R->p[b->param_index] = calloc((size_t)(b->storage * dtype_bytes(b->dt)) + 1, 1);
		ref_fill_param(b, R->p[b->param_index], b->param_index);
	}
	R->ran = ref_run_kernel(&R->cx, R->k, R->p, NULL);
	return true;
}

static bool run(Run *R, const char *src, const int64_t *vals)
{
	return run_past(R, src, vals, NULL);
}

static void done(Run *R)
{
	for (int i = 0; i < 8; i++)
		free(R->p[i]);
	arena_free(R->cx.arena);
}

static float bf16(const unsigned char *p)
{
	uint32_t u = (uint32_t)(p[0] | p[1] << 8) << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* the first error's message contains want */
static bool first_error_has(const Run *R, const char *want)
{
	if (R->cx.diags.n == 0)
		return false;
	if (!strstr(R->cx.diags.items[0].msg, want)) {
		diag_print(&R->cx.diags, stderr);
		return false;
	}
	return true;
}

/* examples/ws_pipeline.tile: C = A * B^T (A, B [128, K] bf16), a producer
 * warp and two consumer warpgroups over a ring of 4 stages; with
 * explicit_bytes the expected bytes are written out (64 + 64 rows of 64
 * bf16 = 32768), else they are check's (the reference takes s->n) */
static void ws_pipeline(int64_t K, bool explicit_bytes)
{
	char *src = slurp("examples/ws_pipeline.tile");
	CHECK(src != NULL, "examples/ws_pipeline.tile readable (run from the repository root)");
	if (!src)
		return;
	if (explicit_bytes) {
		src = replaced(src, "mbarrier.expect_tx full[k % 4]\n", "mbarrier.expect_tx full[k % 4], 32768\n");
		CHECK(strstr(src, "full[k % 4], 32768") != NULL, "the expect_tx line is where the test expects it");
	}
	Run R;
	bool compiled = run(&R, src, &K);
	CHECK(compiled, "ws_pipeline compiles at K=%lld", (long long)K);
	if (compiled) {
		CHECK(R.ran, "the reference runs ws_pipeline at K=%lld", (long long)K);
		if (!R.ran)
			diag_print(&R.cx.diags, stderr);
		const unsigned char *A = R.p[0], *B = R.p[1];
		const float *C = (const float *)R.p[2];
		int bad = 0;
		double sum = 0;
		for (int m = 0; m < 128; m++)
			for (int n = 0; n < 128; n++) {
				float acc = 0;
				for (int64_t k = 0; k < K; k++)
					acc += bf16(A + (m * K + k) * 2) * bf16(B + (n * K + k) * 2);
				bad += C[m * 128 + n] != acc;
				sum += acc < 0 ? -acc : acc;
			}
		CHECK(bad == 0, "K=%lld: %d of C's 16384 elements differ from the host's A*B^T", (long long)K, bad);
		CHECK(K == 0 || sum > 0, "K=%lld: the host product is not all zero (the test can fail)", (long long)K);
		done(&R);
	}
	free(src);
}

/* a hang in the program's meaning: the consumer waits for a phase nobody completes */
static void hang_is_located(void)
{
	Run R;
	bool c = run_past(&R, "target sm_90a\nkernel k\nthreads 64\n"
	                 "param A f32 [32]\nparam B f32 [32]\n"
	                 "shared S f32 [32]\nmbarrier bar\n"
	                 "mbarrier.init bar, 2\n"
	                 "when warpid == 0 {\n  warp copy S, A\n  mbarrier.arrive bar\n}\n"
	                 "when warpid == 1 {\n  mbarrier.wait bar\n  warp copy B, S\n}\n",
	                  NULL, "waits here forever");
	CHECK(c, "compiles (the roles proof finds the hang)");
	if (!c)
		return;
	CHECK(!R.ran, "one arrival of two: the reference reports a hang");
	CHECK(first_error_has(&R, "hangs"), "the error says it hangs");
	CHECK(R.cx.diags.n && R.cx.diags.items[0].loc.line == 14, "located at the wait (line %d)",
	      R.cx.diags.n ? R.cx.diags.items[0].loc.line : 0);
	CHECK(R.cx.diags.n && R.cx.diags.items[0].nnotes >= 1 && strstr(R.cx.diags.items[0].notes[0], "bar[0]"),
	      "a note names the wait");
	done(&R);
}

/* the same with both arrivals: per warp, the two warps of the arriving role */
static void per_warp_arrivals(void)
{
	Run R;
	bool c = run(&R, "target sm_90a\nkernel k\nthreads 96\n"
	                 "param A f32 [64]\nparam B f32 [64]\n"
	                 "shared S f32 [64]\nmbarrier bar\n"
	                 "mbarrier.init bar, 2\n"
	                 "when warpid < 2 {\n  warp copy S[warpid*32 : warpid*32 + 32], A[warpid*32 : warpid*32 + 32]\n"
	                 "  bar.sync 1, 64\n  mbarrier.arrive bar per warp\n}\n"
	                 "when warpid == 2 {\n  mbarrier.wait bar\n  warp copy B[0:32], S[32:64]\n  warp copy B[32:64], S[0:32]\n}\n",
	             NULL);
	CHECK(c, "compiles");
	if (!c)
		return;
	CHECK(R.ran, "runs");
	const float *A = (const float *)R.p[0], *B = (const float *)R.p[1];
	CHECK(!memcmp(B, A + 32, 128) && !memcmp(B + 32, A, 128), "halves swapped through shared memory");
	done(&R);
}

/* a producer two phases ahead of the consumer: a parity wait cannot tell
 * phase 0 from phase 2 (the GPU would wait forever) */
static void parity_alias(void)
{
	Run R;
	bool c = run_past(&R, "target sm_90a\nkernel k\nthreads 64\n"
	                 "param A f32 [32]\nmbarrier bar\n"
	                 "mbarrier.init bar\n"
	                 "when warpid == 0 {\n  mbarrier.arrive bar\n  mbarrier.arrive bar\n} else {\n"
	                 "  mbarrier.wait bar\n  mbarrier.wait bar\n}\n",
	                  NULL, "may count toward phase");
	CHECK(c, "compiles (the roles proof finds the second arrival unordered)");
	if (!c)
		return;
	CHECK(!R.ran, "the reference refuses the aliased phase");
	CHECK(first_error_has(&R, "parity wait cannot tell"), "the error names the parity");
	done(&R);
}

/* named barriers: a role's arrivals complete a barrier generation without
 * anyone waiting (legal), and more threads than the count overflow it */
static void named_barriers(void)
{
	Run R;
	bool c = run_past(&R, "target sm_90a\nkernel k\nthreads 128\n"
	                 "param A f32 [32]\n"
	                 "when warpid < 2 {\n  bar.arrive 1, 64\n}\n"
	                 "when warpid >= 2 {\n  bar.sync 1, 64\n}\n",
	             NULL, "any 64 arrivals complete it");
	CHECK(c, "compiles (check refuses one id of 128 threads' uses and COUNT 64: any 64 complete a generation)");
	if (c) {
		CHECK(R.ran, "two generations of 64 threads each: no hang");
		done(&R);
	}
	c = run_past(&R, "target sm_90a\nkernel k\nthreads 128\n"
	                 "param A f32 [32]\n"
	                 "when warpid < 2 {\n  bar.arrive 1, 96\n}\n"
	                 "when warpid >= 2 {\n  bar.sync 1, 96\n}\n",
	             NULL, "any 96 arrivals complete it");
	CHECK(c, "compiles (check finds the overflow: 128 threads use barrier 1 of COUNT 96)");
	if (!c)
		return;
	CHECK(!R.ran, "128 threads at a barrier of 96");
	CHECK(first_error_has(&R, "arrive at a barrier of 96"), "the error counts the threads");
	done(&R);
}

/* a role's warp copy runs in its own warps' instances only: warp 0 and
 * warp 1 copy different rows to the row named by their warpid */
static void role_instances(void)
{
	Run R;
	bool c = run(&R, "target sm_90a\nkernel k\nthreads 64\n"
	                 "param A f32 [2, 32]\nparam B f32 [2, 32]\n"
	                 "when warpid == 0 {\n  warp copy B[warpid, :], A[1, :]\n} else {\n"
	                 "  warp copy B[warpid, :], A[0, :]\n}\n",
	             NULL);
	CHECK(c, "compiles");
	if (!c)
		return;
	CHECK(R.ran, "runs");
	const float *A = (const float *)R.p[0], *B = (const float *)R.p[1];
	CHECK(!memcmp(B, A + 32, 128) && !memcmp(B + 32, A, 128), "B = A with its rows swapped");
	done(&R);
}

/* a stage index 'k % C' in a kernel without roles (the sequential
 * reference): it takes k's value mod C on every trip */
static void stage_index_sequential(void)
{
	Run R;
	bool c = run(&R, "target sm_90\nkernel k\nthreads 32\n"
	                 "param A f32 [3, 32]\nparam B f32 [7, 32]\nparam C f32 [7, 32]\n"
	                 "repeat 7 as k {\n  warp copy B[k, :], A[k % 3, :]\n}\n"
	                 "repeat 7 as k {\n  warp copy C[k, :], A[(k + 2) % 3, :]\n}\n",
	             NULL);
	CHECK(c, "compiles");
	if (!c)
		return;
	CHECK(R.ran, "runs");
	const float *A = (const float *)R.p[0], *B = (const float *)R.p[1];
	int bad = 0;
	const float *C = (const float *)R.p[2];
	for (int k = 0; k < 7; k++)
		bad += (memcmp(B + 32 * k, A + 32 * (k % 3), 128) != 0) + (memcmp(C + 32 * k, A + 32 * ((k + 2) % 3), 128) != 0);
	CHECK(bad == 0, "B[k] = A[k %% 3], C[k] = A[(k + 2) %% 3]: %d rows differ", bad);
	done(&R);
}

/* the role programs of tests/gpu, each against its meaning computed here */
static void gpu_programs(void)
{
	static const char *files[] = {"tests/gpu/roles_tma_ring_copy.tile", "tests/gpu/roles_named_handoff.tile",
	                              "tests/gpu/roles_thread_arrive.tile"};
	for (int f = 0; f < 3; f++) {
		char *src = slurp(files[f]);
		CHECK(src != NULL, "%s readable", files[f]);
		if (!src)
			continue;
		int64_t K = 160;
		Run R;
		bool c = run(&R, src, f == 0 ? &K : NULL);
		CHECK(c, "%s compiles", files[f]);
		if (c) {
			CHECK(R.ran, "%s runs in the reference", files[f]);
			const float *A = (const float *)R.p[0], *B = (const float *)R.p[1];
			int bad = 0;
			if (f == 0) /* B = A, [64, K] */
				bad = memcmp(A, B, 64 * 160 * 4) != 0;
			for (int i = 0; f == 1 && i < 4; i++) /* B[3 - i] = A[i], tiles of 32 x 8 */
				bad += memcmp(B + (3 - i) * 256, A + i * 256, 256 * 4) != 0;
			for (int j = 0; f == 2 && j < 2; j++) /* B[j] = A[j] with its halves (32 rows of 16) swapped */
				bad += (memcmp(B + j * 1024, A + j * 1024 + 512, 512 * 4) != 0) +
				       (memcmp(B + j * 1024 + 512, A + j * 1024, 512 * 4) != 0);
			CHECK(bad == 0, "%s: B holds what the program means (%d pieces differ)", files[f], bad);
			done(&R);
		}
		free(src);
	}
}

int main(void)
{
	/* K = 0 cannot be bound: a tensor map's dimensions are at least 1 */
	ws_pipeline(64, false);
	ws_pipeline(320, false);
	ws_pipeline(448, false);
	ws_pipeline(320, true);
	hang_is_located();
	per_warp_arrivals();
	parity_alias();
	named_barriers();
	gpu_programs();
	role_instances();
	stage_index_sequential();
	UNIT_END();
}
