/* What the check and emit hooks of asm blocks share (src/front/asm.c):
 * a block's instructions, its unroll instances, a region's words. */
#ifndef TILEPX_ASM_BLOCK_H
#define TILEPX_ASM_BLOCK_H
#include "tilepx.h"

/* an instruction a block names, read as ptxas reads it */
typedef struct AsmIns {
	const char *op; /* the opcode, n bytes */
	size_t n;
	Loc loc;
} AsmIns;

/* a region of the block with its indices at vals */
Region *subst_region(Arena *ar, const Region *r, const AsmBlock *a, const int64_t *vals);
/* instance i of the block's unroll space: index values, first index slowest */
void instance_vals(const AsmBlock *a, int64_t i, int64_t *vals);
int64_t instance_count(const AsmBlock *a);
/* the words of a local buffer that a constant region covers, ascending;
 * false (why set) unless every thread of the owner holds whole words */
bool region_words(Arena *ar, const Kernel *k, const Region *r, int **words, int *nwords, const char **why);
/* the block's instructions; top_label (may be NULL): where the first label
 * outside every '{ }' scope is, line 0 when none */
int asm_instructions(Arena *ar, const AsmBlock *a, AsmIns **out, Loc *top_label);
/* what an opcode needs: a form of ptx_templates/ (*form >= 0) or a family;
 * false when tilepx does not know it (ptxas decides) */
bool asm_need(const AsmIns *in, int *min_ptx, Cap *cap, int *form);

#endif
