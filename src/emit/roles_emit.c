/* Warp roles: bar.sync, bar.arrive and setmaxnreg, emitted (their checks:
 * src/front/roles_check.c) */
#include "tilepx.h"

void emit_named_bar(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	if (s->bar_id) /* each warpgroup's id, from its wgid */
		b_ins(b, s->kind == ST_NBAR_SYNC ? FORM_BAR_SYNC_R : FORM_BAR_ARRIVE_R, b_name(b, emit_affine(e, s->bar_id)),
		      b_imm(b, s->count), NULL);
	else
		b_ins(b, s->kind == ST_NBAR_SYNC ? FORM_BAR_SYNC_N : FORM_BAR_ARRIVE_N, b_imm(b, s->n), b_imm(b, s->count),
		      NULL);
}

void emit_setmaxnreg(Emit *e, const Stmt *s)
{
	Builder *b = emit_builder(e);
	b_ins(b, s->kind == ST_SETMAXNREG_INC ? FORM_SETMAXNREG_INC : FORM_SETMAXNREG_DEC, b_imm(b, s->n), NULL);
}
