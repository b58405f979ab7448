/* Emission cost per copy statement: builds a program of N copy statements
 * (a cycle of gmem_smem, ldmatrix, cp.async and stmatrix copies in one
 * kernel), parses it, then times the passes of `emit` (check, select,
 * dispatch, PTX) or of `explain --json` (the same analyses, bank counts and
 * records) and reports per copy: CPU microseconds (best of REPS), arena bytes
 * and output bytes, plus the process's peak RSS.
 *
 *   emit_cost N [REPS] [--explain]
 *   emit_cost --ratio   (make test) the cost per copy at 100k copies against
 *                       1k, for emit and explain --json: exit 1 when time per
 *                       copy grows more than 2x or arena bytes per copy 1.5x
 *
 * A ratio, not a time: the machine this runs on is shared, and what a ratio
 * catches is work that grows faster than the program (a search from the top
 * of the kernel per statement, scratch kept per statement). Goal (issue 17):
 * <= 10 us and <= 2 KiB of memory per copy statement. */
#define _POSIX_C_SOURCE 200809L
#include "tilepx.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
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

static void program(Str *src, long n)
{
	str_puts(src, "target sm_90\nkernel k\nthreads 128\nparam A f16 [128, 64]\nshared S f16 [64, 64]\n"
	              "local R f16 [8, 32] layout S[(1, 8, 4, 4, 2) : (32@laneid, 4@laneid, 2, 1@laneid, 1)]\n");
	for (long i = 0; i < n; i++)
		str_puts(src, cycle[i % 4]);
}

typedef struct Cost {
	double sec; /* the best of the repetitions */
	size_t arena_parse, arena_run, out_bytes;
} Cost;

/* one compilation of src by cmd's passes; false (diagnostics printed) on an error */
static bool run_once(const Str *src, Command cmd, Cost *c)
{
	Ctx cx = {0};
	cx.arena = arena_new();
	cx.diags.file = "emit_cost.tile";
	cx.diags.src = src->s;
	cx.diags.len = src->n;
	Module *m = parse_module(&cx, "emit_cost.tile", src->s, src->n);
	bool ok = !cx.diags.errors;
	if (ok) {
		size_t before = arena_bytes(cx.arena);
		Str out = {0};
		double t0 = now();
		ok = run_passes(&cx, m, cmd, NULL, &out, NULL);
		double t = now() - t0;
		if (t < c->sec)
			c->sec = t;
		c->arena_parse = before;
		c->arena_run = arena_bytes(cx.arena) - before;
		c->out_bytes = out.n;
		str_free(&out);
	}
	if (!ok)
		diag_print(&cx.diags, stderr);
	arena_free(cx.arena);
	return ok;
}

static bool measure(long n, int reps, Command cmd, Cost *c)
{
	Str src = {0};
	program(&src, n);
	*c = (Cost){.sec = 1e30};
	bool ok = true;
	for (int r = 0; r < reps && ok; r++)
		ok = run_once(&src, cmd, c);
	str_free(&src);
	return ok;
}

static void report(long n, const char *what, const Cost *c)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%7ld copies: %s %8.3f ms CPU, %6.2f us/copy; arena: parse %5.0f + %s %5.0f B/copy; output %5.0f "
	       "B/copy; peak RSS %6.1f MiB (%6.0f B/copy)\n",
	       n, what, c->sec * 1e3, c->sec * 1e6 / (double)n, (double)c->arena_parse / (double)n, what,
	       (double)c->arena_run / (double)n, (double)c->out_bytes / (double)n, (double)ru.ru_maxrss / 1024.0,
	       (double)ru.ru_maxrss * 1024.0 / (double)n);
}

/* 100k copies against 1k: time and arena per copy; false when either grows too much */
static bool ratio(Command cmd, const char *what)
{
	enum { SMALL = 1000, BIG = 100000 };
	Cost s, b;
	if (!measure(SMALL, 10, cmd, &s) || !measure(BIG, 2, cmd, &b))
		return false;
	double t = (b.sec / BIG) / (s.sec / SMALL);
	double a = ((double)b.arena_run / BIG) / ((double)s.arena_run / SMALL);
	printf("%s: %.2f us/copy at %d copies, %.2f at %d (x%.2f); arena %.0f B/copy, %.0f (x%.2f)\n", what,
	       s.sec * 1e6 / SMALL, SMALL, b.sec * 1e6 / BIG, BIG, t, (double)s.arena_run / SMALL,
	       (double)b.arena_run / BIG, a);
	return t <= 2.0 && a <= 1.5;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--ratio")) {
#ifdef __GLIBC__
		/* freed arena chunks stay with the process, so that a repetition runs
		 * on memory the first one faulted in, at 100k copies as at 1k (page
		 * faults are the kernel's cost, and a loaded machine's most variable) */
		mallopt(M_TRIM_THRESHOLD, 1 << 30);
		mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
		bool ok = ratio(CMD_EMIT, "emit");
		ok = ratio(CMD_EXPLAIN_JSON, "explain --json") && ok;
		return ok ? 0 : 1;
	}
	bool explain = argc > 1 && !strcmp(argv[argc - 1], "--explain");
	int nargs = argc - explain;
	long n = nargs > 1 ? atol(argv[1]) : 1000;
	int reps = nargs > 2 ? atoi(argv[2]) : 1;
	if (n < 1 || reps < 1) {
		fprintf(stderr, "usage: emit_cost N [REPS] [--explain] | emit_cost --ratio\n");
		return 2;
	}
	Cost c;
	if (!measure(n, reps, explain ? CMD_EXPLAIN_JSON : CMD_EMIT, &c))
		return 1;
	report(n, explain ? "explain" : "emit", &c);
	return 0;
}
