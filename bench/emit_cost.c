/* Emission cost per copy statement: builds a program of N copy statements
 * (a cycle of gmem_smem, ldmatrix, cp.async and stmatrix copies in one
 * kernel), parses it, then times emit_module (check, dispatch, PTX) and
 * reports per copy: CPU microseconds (best of REPS), arena bytes and output bytes, plus the
 * process's peak RSS. Usage: emit_cost N [REPS]. Goal (issue 17): <= 10 us
 * and <= 2 KiB of memory per copy statement. */
#define _POSIX_C_SOURCE 200809L
#include "tilepx.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* process CPU time: the machine this runs on is often shared, and CPU time
 * (user + system, page faults included) is what one emission costs */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *cycle[] = {
	"cta copy S, A[0:64, :]\n",
	"warp copy R, S[0:8, 0:32]\n",
	"cta copy_async S, A[64:128, :]\n",
	"warp copy S[8:16, 0:32], R\n",
};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int reps = argc > 2 ? atoi(argv[2]) : 1;
	if (n < 1 || reps < 1) {
		fprintf(stderr, "usage: emit_cost N [REPS]\n");
		return 2;
	}
	Str src = {0};
	str_puts(&src, "target sm_90\nkernel k\nthreads 128\nparam A f16 [128, 64]\nshared S f16 [64, 64]\n"
	               "local R f16 [8, 32] layout S[(1, 8, 4, 4, 2) : (32@laneid, 4@laneid, 2, 1@laneid, 1)]\n");
	for (long i = 0; i < n; i++)
		str_puts(&src, cycle[i % 4]);
	double best = 1e30;
	size_t arena_emit = 0, arena_parse = 0, out_bytes = 0;
	for (int r = 0; r < reps; r++) {
		Ctx cx = {0};
		cx.arena = arena_new();
		cx.diags.file = "emit_cost.tile";
		cx.diags.src = src.s;
		cx.diags.len = src.n;
		Module *m = parse_module(&cx, "emit_cost.tile", src.s, src.n);
		if (cx.diags.errors) {
			diag_print(&cx.diags, stderr);
			return 1;
		}
		size_t before = arena_bytes(cx.arena);
		arena_parse = before;
		Str out = {0};
		double t0 = now();
		bool ok = emit_module(&cx, m, NULL, &out);
		double t = now() - t0;
		if (!ok) {
			diag_print(&cx.diags, stderr);
			return 1;
		}
		if (t < best)
			best = t;
		arena_emit = arena_bytes(cx.arena) - before;
		out_bytes = out.n;
		str_free(&out);
		arena_free(cx.arena);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%7ld copies: emit %8.3f ms CPU, %6.2f us/copy; arena: parse %5.0f + emit %5.0f B/copy; PTX %5.0f B/copy; "
	       "peak RSS %6.1f MiB (%6.0f B/copy)\n",
	       n, best * 1e3, best * 1e6 / (double)n, (double)arena_parse / (double)n,
	       (double)arena_emit / (double)n, (double)out_bytes / (double)n,
	       (double)ru.ru_maxrss / 1024.0, (double)ru.ru_maxrss * 1024.0 / (double)n);
	str_free(&src);
	return 0;
}
