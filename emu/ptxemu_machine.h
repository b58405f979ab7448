/* The emulator's machine, shared by its parts (emu/ptxemu*.c): a program
 * read from PTX text (Prog: instructions with their operand text), threads
 * and the CTAs of a cluster with their memories (Machine), and what each
 * part offers the others. */
#ifndef TILEPX_PTXEMU_MACHINE_H
#define TILEPX_PTXEMU_MACHINE_H
#include "runcore.h"
#include "ptxemu_mma.h"
#include "ptxemu_wgmma.h"
#include "ptxemu_tma.h"
#include "ptxemu_sync.h"
#include "ptxemu_float.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { MAXOPS = 140, TMEM_COLS = 512, SHADOW_CHUNK = 256 };
/* mapa.shared::cluster's result: this bit, and the barrier's address in the
 * cluster's shared windows (rank * win + offset) */
#define MAPA_TAG (1ull << 31)
/* in a cluster a shared::cta address carries the CTA's rank from this bit
 * up (the H100: 0x1000400 in rank 1 where rank 0 has 0x400); a memory
 * operand strips it, arithmetic sees it (a wgmma descriptor must mask it) */
#define SHARED_RANK_SHIFT 24

/* An operand decoded once when the program is loaded (decode_operands;
 * Lua's lopcodes.h is the model): what val, addr and an f32 source would
 * find in its text, so a step reads no operand text. OD_TEXT: something
 * the decoder leaves to the text path (val/addr: their errors included). */
enum { OD_TEXT, OD_REG, OD_IMM, OD_SPECIAL, OD_SYM, OD_PARAM, OD_TMAP };
enum { SP_TID_X, SP_CTAID_X, SP_CTAID_Y, SP_NCTAID_X, SP_NCTAID_Y, SP_CTARANK, SP_NCTARANK };
typedef struct Opnd {
	const char *text;  /* the operand's text (Ins.ops) */
	uint8_t kind;      /* as a value (val): OD_*; slot a register slot or SP_*, imm the value, a symbol's
	                    * offset or a param's or tensor map's index */
	uint8_t akind;     /* as an address (addr): its base's OD_*, aslot and aimm as above, plus aoff */
	bool a32;          /* the base is a 32-bit register: a shared address */
	bool asym;         /* the base is a shared symbol (its address carries the rank in a cluster) */
	bool fimm;         /* an f32 immediate: fbits is what an f32 source reads */
	uint32_t fbits;
	int32_t slot, aslot;
	int64_t imm, aimm, aoff;
	int32_t label;     /* a label's pc, -1 none */
	int32_t scalar;    /* a scalar param's index (scalar_param), -1 none */
} Opnd;

typedef struct Ins {
	char op[160];
	int pred;      /* register slot of the guard, -1 none */
	bool pred_neg;
	bool wg_reg;   /* names a register some wgmma uses as accumulator or A (wg_decode) */
	int nops;
	char *ops[MAXOPS];
	int line;
	int tile_line; /* the .tile statement it comes from ("// line N:" comments), 0 unknown */
	int opc;       /* the interpreter's arm for it, decoded once (decode_prog) */
	bool collective; /* a warp or warpgroup collective or barrier (is_collective), decoded once */
	FloatOp fop;     /* an f32 compute form (emu/ptxemu_float.c), decoded once; kind 0: none */
	Opnd *od;        /* the operands, decoded once (decode_operands): nops of them */
	int8_t width;    /* an ld/st's bytes per element register (width_of), decoded once */
	bool shared;     /* an ld/st of .shared, decoded once */
} Ins;

typedef struct Prog {
	Ins *ins;
	int n, cap;
	char **labels;
	int *label_pc;
	int nlabels, lcap;
	char **regs;
	int nregs, rcap;
	int *hash; /* open addressing over regs, size hcap (a power of two) */
	int hcap;
	char **syms;     /* .shared symbols */
	int64_t *sym_off;
	int nsyms, scap;
	int64_t shared_bytes;
	char **params;
	int nparams;
	char **tmaps;    /* the kernel's tensor-map params, in order */
	char **scalars;  /* scalar params (.param .u32 K_arg_M ...) and their bound values */
	int64_t *scalar_val;
	int nscalars;
	int ntmaps;
	char **named;    /* registers an asm block declares by name (.reg .b32 t;) */
	int nnamed;
	bool has_red; /* a red.global instruction: global words keep their atomic/plain state (ptxemu_red.c) */
	/* the register slots wgmma.mma_async instructions use as accumulator or
	 * A (wg_decode): a thread's access to one needs a wgmma.fence before the
	 * next wgmma of its warpgroup */
	int *wg_slots;
	int nwg_slots;
	unsigned char *wg_slot; /* [nregs]: 1 for those slots */
	/* declared register widths: ".reg .b32 %r<9>" gives the prefix "%r" (a
	 * name that continues with digits), ".reg .b32 t" the name t */
	struct RegDecl {
		char *name;
		int bits;
		bool prefix;
	} *rdecl;
	int nrdecl;
	/* .param space of calls: formal parameters of .funcs and the caller's
	 * declared .param symbols, one byte array per thread */
	char **psym;
	int64_t *psym_off, *psym_size;
	int npsym, pcap;
	int64_t pbytes;
	struct Func {
		char *name;
		int pc;
		int ret;     /* psym of the return parameter, -1 none */
		int *params; /* psyms of the formal parameters */
		int nparams;
	} *funcs;
	int nfuncs;
} Prog;

enum { MAX_CALL_DEPTH = 8 };
typedef struct Frame {
	int ret_pc, callee_ret, caller_ret;
} Frame;

typedef struct Thread {
	int pc;
	bool done;
	bool blocked;        /* at an mbarrier wait whose phase is incomplete */
	uint64_t *r;
	unsigned char *pmem; /* .param space */
	Frame frames[MAX_CALL_DEPTH];
	int depth;
	int64_t carrive;     /* barrier.cluster.arrive instances so far */
	unsigned char *wg_busy; /* per register slot: an accumulator of a wgmma in flight */
	int wg_nbusy;        /* how many */
	int *wg_seen;        /* per register slot: 1 + the pc of the thread's access since its warpgroup's last
	                      * wgmma.fence (wgmma slots only; 0: none) */
	/* fence.proxy.async (shared) instances so far, and the warp's clock at
	 * the latest four (fence_stamp[i % 4]: the i-th), for the async proxy's
	 * reads (async_read in ptxemu_mem.c) */
	uint32_t fences;
	uint32_t fence_stamp[4];
} Thread;

typedef struct Machine {
	Prog *p;
	unsigned char **param_mem;
	size_t *param_bytes;
	unsigned char *shared;
	uint32_t *tmem;   /* 128 lanes x TMEM_COLS cells */
	int64_t threads;  /* per CTA */
	/* a cluster's CTAs run together: thread i of the cluster is thread
	 * i % threads of the CTA of rank i / threads; shared memory, its shadow
	 * and tensor memory point at the running thread's CTA (set_cta), each
	 * CTA's shared window `win` bytes apart in shared_all (TMA addresses
	 * there: multicast writes the peers' windows) */
	int nranks, cur;
	int64_t cx, base_x, base_y; /* cluster width in x; the cluster's first ctaid */
	int64_t win;
	unsigned char *shared_all;
	uint32_t *tmem_all;
	SyncState *sync;     /* named barriers and the warps' clocks (ptxemu_sync.h) */
	int *maxnreg;        /* per warpgroup (rank * 8 + warpgroup): its register budget, 0 unknown */
	int launch_maxnreg;  /* the entry's .maxnreg: every warpgroup's budget at launch (0: none given) */
	const Kernel *k;     /* for names in reports */
	int *maxnreg_line;
	int64_t creleased;   /* cluster barrier instances every thread has arrived at */
	Thread *t;
	TmaState *tma;
	TmaEnv env;
	/* cp.async in flight: it lands at its group's wait_group, not at issue */
	struct Cpa { int tid, bytes; uint64_t dst; const unsigned char *src; int64_t group; const Ins *in; } *cpa;
	int ncpa, cpacap;
	/* per 16 bytes of every CTA's shared window: the copies in flight that
	 * write there (a shared access where none do skips the list) */
	uint32_t *cpa_cover;
	int64_t *cpa_groups; /* committed groups per thread */
	/* races between warps: per shared byte, the warp that last wrote it, its
	 * clock then (stamp: ptxemu_sync.h), from which .tile line; and the reads
	 * since that no later read orders (up to three distinct warps), for a
	 * write after another warp's read */
	struct Shadow { int32_t warp, line; uint32_t stamp; int32_t rwarp[3], rline[3]; uint32_t rstamp[3]; } *shadow, *shadow_all;
	/* for the async proxy, beside the shadow (same index, reset with it): the
	 * thread whose generic write (st.shared, stmatrix, cp.async landing) was
	 * last (gtid, -1 none) and how many fence.proxy.async it had run before
	 * it (gfence). NULL when the program has no async-proxy reader (a TMA or
	 * bulk store, a wgmma): its writes then cost nothing more */
	struct ProxyShadow { int32_t gtid; uint32_t gfence; } *proxy_all;
	/* the shadow is reset a chunk at a time, on its first access of a launch
	 * (a launch touches a few of a window's bytes): a chunk is in the reset
	 * state unless shadow_epoch of it is the launch's epoch */
	uint32_t *shadow_epoch, epoch;
	bool tmem_dirty; /* a tcgen05.st wrote tensor memory since the last reset */
	int acc_warp, acc_line; /* the access mem() is asked for: -1 not tracked */
	int acc_tid;            /* the thread (cluster-wide) a tracked write is of */
	bool acc_write;
	int64_t **gshadow; /* per param, per 4-byte word: red vs plain accesses this launch (ptxemu_red.c) */
	/* --banks: every shared access of ld/st.shared and ldmatrix/stmatrix, by
	 * warp instruction instance, for the wavent count at the end */
	bool banks;
	struct BankAcc { int64_t cta, k; int32_t warp, lane, pc, bytes; uint64_t addr; } *bacc;
	int64_t nbacc, bacccap;
	int64_t *occ; /* per thread and pc: instances executed so far */
	const char *err;
	char errbuf[4096];
	/* wgmma in flight, per warpgroup (rank * 8 + warpgroup): executed at the
	 * wgmma.wait_group that covers its group, reading shared memory then;
	 * its accumulator registers are busy and the 16-byte pieces it reads
	 * counted in wg_rd (a thread's write there is a race) until then */
	struct WgOp { WgmmaInsn w; int *slots; int wgi, line; int64_t group; bool rs; int aslots[4]; } *wgq;
	int nwgq, wgqcap;
	int64_t wg_groups[64];
	bool wg_fenced[64];  /* the warpgroup ran a wgmma.fence */
	uint16_t *wg_rd; /* per 16 bytes of every CTA's shared window */
} Machine;

static inline int rank_of(const Machine *m, const Thread *t) { return (int)((t - m->t) / m->threads); }
static inline int64_t local_tid(const Machine *m, const Thread *t) { return (t - m->t) % m->threads; }
/* warps are numbered per CTA: rank * 64 + warp */
static inline int warp_of(const Machine *m, const Thread *t) { return rank_of(m, t) * 64 + (int)(local_tid(m, t) / 32); }

/* ptxemu_parse.c */
int reg_slot(Prog *p, const char *name);
int reg_find(const Prog *p, const char *name); /* a register's slot, -1 when it has none (adds none) */
void collect_regs(Prog *p);
const char *undeclared_reg(const Prog *p); /* a register no .reg declares, or NULL */
int psym_find(const Prog *p, const char *name);
int scalar_param(const Prog *p, const char *op);
int64_t param_addr(const Prog *p, const char *op, int64_t *size);
void parse_entry(Prog *p, char **lines, int n);
void free_prog(Prog *p);
int unit_end(char **lines, int b, int nl);
void load_funcs(Prog *p, char **lines, int nl);

/* ptxemu_mem.c */
uint64_t *R(Machine *m, Thread *t, const char *name);
uint64_t val(Machine *m, Thread *t, const char *s);
uint64_t addr(Machine *m, Thread *t, const char *s);
/* the decoded operand's value, register and address (the text path for OD_TEXT) */
uint64_t oval(Machine *m, Thread *t, const Opnd *o);
uint64_t *oreg(Machine *m, Thread *t, const Opnd *o);
uint64_t oaddr(Machine *m, Thread *t, const Opnd *o);
/* every operand of every instruction decoded, once the registers are collected */
void decode_operands(Prog *p);
/* the declared width of register name in bits; 0 when it is no declared register */
int reg_bits(const Prog *p, const char *name);
uint64_t shared_cta_offset(Machine *m, Thread *t, uint32_t a);
unsigned char *mem(Machine *m, bool shared, uint64_t a, int bytes);
void track(Machine *m, const Thread *t, const Ins *in, bool write);
void cpa_land(Machine *m, int tid, int64_t below);
void cpa_cover(Machine *m, const struct Cpa *c, int delta);
bool has_async_reader(const Prog *p);
bool async_read(Machine *m, const int *readers, int nreaders, uint64_t a, uint64_t bytes, const char *what,
                int tid, const Ins *in);
uint16_t get16(Machine *m, uint64_t a);
void put16(Machine *m, uint64_t a, uint16_t v);
uint8_t get8(Machine *m, uint64_t a);

/* ptxemu_red_track.c (the race state), ptxemu_red.c (execution) */
bool red_global_access(Machine *m, uint64_t param, uint64_t off, int bytes, bool atomic, int tid);
void exec_red(Machine *m, Thread *t, Ins *in);
void red_free(Machine *m);

/* ptxemu_decode.c */
int width_of(const char *op);
bool is_named_bar(const char *op);
bool is_collective(const char *op);

/* ptxemu_exec.c */
void cluster_release(Machine *m);
void step(Machine *m, Thread *t);
/* every instruction's arm and collective flag, once all of the program is loaded */
void decode_prog(Prog *p);

/* ptxemu_warp.c */
bool wg_busy_operand(Machine *m, Thread *t, const Ins *in);
/* the wgmma register slots and the instructions that name one (Ins.wg_reg) */
void wg_decode(Prog *p);
/* thread t runs in (at pc): its wgmma registers are accessed since the fence */
void wg_access(Machine *m, Thread *t, const Ins *in, int pc);
void wg_collective(Machine *m, Thread **w, Ins *in, int wgi);
void collective(Machine *m, Thread **w, Ins *in);

/* ptxemu_sched.c */
void set_cta(Machine *m, int rank);
bool run_cluster(Machine *m, int entry_pc);

/* ptxemu_banks.c */
void bank_record(Machine *m, int tid, int pc, int64_t k, uint64_t a, int bytes);
void bank_report(Machine *m, const Kernel *k);

#endif
