/* What the CPU emulator (emu/ptxemu.c) and the GPU harness
 * (tools/tilepx_run.c) share, so that both judge a kernel the same way:
 * reading a program, its param buffers filled with the input pattern, the
 * bytes every param must hold afterwards (the CPU reference, or a dense host
 * GEMM for --gemm), and the byte-for-byte comparison. */
#ifndef TILEPX_RUNCORE_H
#define TILEPX_RUNCORE_H
#include "tilepx.h"
#include "abi.h"

typedef struct RunParams {
	int n;                /* the kernel's params, in declaration order */
	const Buffer **buf;
	size_t *bytes;
	unsigned char **init; /* the input pattern */
	unsigned char **want; /* what the params must hold after the kernel */
	unsigned char **got;  /* what they hold (the runner writes here) */
	/* per param, each element's error bound from the reference (NULL: every
	 * element exact, compared bit for bit); nonzero only downstream of an
	 * approximate function (set's exp2, log2, rcp, rsqrt, tanh) */
	float **tol;
} RunParams;

/* bind kernel k's scalar params (kernel_bind) to values from "NAME=V"
 * strings: sets[0..nsets) (--set) first, then the program's own
 * "# set: NAME=V ..." line. false with why[n] when a scalar has no value or a
 * value breaks its facts (then nothing may run). */
bool rc_bind(Kernel *k, char **sets, int nsets, const char *src, char *why, size_t n);
/* a warning on stderr for each --set that names no scalar param of any
 * kernel of module m (a typo would otherwise leave the program's value) */
void rc_warn_unused_sets(const Module *m, char **sets, int nsets, const char *tool, const char *path);
/* the whole file, NUL-terminated; NULL if it cannot be read */
char *rc_slurp(const char *path, size_t *len);
/* params filled with the pattern (got and want start as copies of init);
 * false with why[n] (and nothing held) when the host cannot allocate them */
bool rc_params_init(const Kernel *k, RunParams *rp, char *why, size_t n);
void rc_params_free(RunParams *rp);
/* fill want: the CPU reference, or with gemm = "C=A*B" the dense product of
 * params A and B into C (row-major f16/bf16 inputs, f32 C, summed in k order).
 * NULL on success, else why not; *moved (copy bytes) and *flops may be NULL */
const char *rc_expect(Ctx *cx, const Kernel *k, const char *gemm, RunParams *rp, int64_t *moved, double *flops);
/* the attention kernels' mathematics ('# harness: --attention'): O and LSE of
 * want (the CPU reference's) against attention computed in double from the
 * inputs (params Q, K, V [BH, S, D] or [S, BH * D], O alike, LSE [BH, S];
 * scalars BH, S, scale; causal when the kernel's name has "_causal"), each
 * O within 2^-6 (bf16; f16 2^-9) of 1 + |O| and LSE within 2^-14 of 1 + |LSE|
 * (emu/attention_host.c). NULL with *bad the elements out of tolerance
 * (the first `show` printed), else why it cannot check */
const char *rc_attention_check(const Kernel *k, const RunParams *rp, int show, int64_t *bad);

/* guard bytes around every global buffer on the GPU: RC_GUARD bytes before
 * and after, a pattern that depends on the param, checked after the kernel */
enum { RC_GUARD = 256 };
void rc_guard_fill(unsigned char *g, int param, int side);
/* the first guard byte that differs from the pattern, or -1 */
long rc_guard_check(const unsigned char *g, int param, int side);
/* guard byte i of that side was changed */
bool rc_guard_check_at(const unsigned char *g, int param, int side, int i);
/* elements of got that differ from want (bit for bit, or beyond their
 * bound in tol where it is nonzero: both NaN, or |got - want| <= bound);
 * the first `show` are printed as "  NAME element E [coord]: expected 0x..,
 * got 0x.." */
int64_t rc_compare(const RunParams *rp, int show);
/* the entry of kernel abi->kernel in PTX text ptx against its ABI (src/abi.h):
 * every .param declaration, in order, and .reqntid, .maxnreg and
 * .reqnctapercluster. 1 when they agree; 0 with why[n] when they do not (a
 * runner would pass arguments the entry does not take); -1 when the text has
 * no such entry */
int rc_abi_check(const KernelAbi *abi, const char *ptx, char *why, size_t n);

/* one program a runner runs: read and compiled to PTX */
typedef struct RcFile {
	const char *path;
	char *src;
	size_t len;
	Ctx cx;
	Module *mod;
	Str ptx;
} RcFile;

/* how a runner runs a program's kernels (rc_run_file): the loop from a file
 * to its kernels is the same in both runners, only these hooks differ */
typedef struct RcRunner {
	const char *tool;   /* in messages: "ptxemu", "tilepx-run" */
	char **sets;        /* --set NAME=V, as given */
	int nsets;
	bool print_diags;   /* a program that does not compile: its errors on stderr too */
	bool lineinfo;      /* compile with .file/.loc lines (tilepx -lineinfo) */
	void *ctx;          /* the runner's own state, passed to every hook */
	/* after the program compiled: false skips its kernels (*status 1 when that is a failure) */
	bool (*file_begin)(void *ctx, RcFile *f, int *status);
	/* before kernel k is bound to its values: false skips it (having printed
	 * why; *status 1 when that is a failure); NULL: every kernel */
	bool (*kernel_admit)(void *ctx, RcFile *f, const Kernel *k, int *status);
	/* run kernel k, bound, with its ABI: 0 when it passed or was skipped */
	int (*kernel_run)(void *ctx, RcFile *f, Kernel *k, const KernelAbi *abi);
	/* after the kernels of a file that file_begin admitted; NULL: nothing */
	void (*file_end)(void *ctx, RcFile *f);
	struct RcCache *cache; /* NULL: every file compiled afresh */
} RcRunner;

/* the program a --batch run compiled last (ptxemu): the next invocation of
 * the same file, with the same bytes and -lineinfo, runs it again without
 * compiling it (make test runs one program at dozens of --set values; the
 * values bind at launch, the compiled program does not depend on them) */
typedef struct RcCache {
	char *path;
	bool lineinfo;
	RcFile f; /* held while path is set; a run that adds a diagnostic (a reference error) drops it */
} RcCache;
void rc_cache_free(RcCache *c);

/* read the program at path, compile it, and run each of its kernels (not
 * device functions) through r's hooks, each bound to its scalar values
 * (--set, else the program's '# set:' line); its status: 0 when everything
 * passed, else 1 */
int rc_run_file(const RcRunner *r, const char *path);
#endif
