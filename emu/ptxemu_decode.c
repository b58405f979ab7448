/* What an instruction's opcode text says, read once at decode time and by
 * every part of the machine: its access width, whether it is a named
 * barrier or a collective. Below the memory model, the interpreter and the
 * scheduler; uses nothing of theirs. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"

/* the bytes one ld/st moves per element register (0: not a plain width) */
int width_of(const char *op)
{
	if (strstr(op, ".v4.b32"))
		return 16;
	if (strstr(op, ".v2.b32"))
		return 8;
	if (strstr(op, ".b32") || strstr(op, ".u32") || strstr(op, ".s32") || strstr(op, ".f32"))
		return 4;
	if (strstr(op, ".u16"))
		return 2;
	if (strstr(op, ".u8"))
		return 1;
	return 0;
}

/* bar.sync / bar.arrive / barrier.sync / barrier.arrive (not barrier.cluster): named barriers */
bool is_named_bar(const char *op)
{
	return !strncmp(op, "bar.sync", 8) || !strncmp(op, "bar.arrive", 10) || !strncmp(op, "barrier.sync", 12) ||
	       !strncmp(op, "barrier.arrive", 14);
}

/* run by the scheduler with the warp (or warpgroup), not by step */
bool is_collective(const char *op)
{
	return is_named_bar(op) || !strncmp(op, "elect.sync", 10) || !strncmp(op, "setmaxnreg.", 11) || !strncmp(op, "ldmatrix", 8) || !strncmp(op, "stmatrix", 8) ||
	       !strncmp(op, "tcgen05.ld.", 11) || !strncmp(op, "tcgen05.st.", 11) || !strncmp(op, "tcgen05.alloc", 13) ||
	       !strncmp(op, "tcgen05.dealloc", 15) || !strncmp(op, "tcgen05.relinquish", 18) ||
	       !strncmp(op, "mma.sync", 8) || !strncmp(op, "wgmma.", 6) || !strncmp(op, "shfl.sync.", 10) ||
	       !strncmp(op, "movmatrix.", 10);
}
