/* ptxemu: the launch-wide state of the global words that red.global
 * instructions reach (ptxemu_red.c executes them), and the race check of
 * plain and atomic accesses to them: below the memory model (ptxemu_mem.c
 * reports every plain global access here), so no circle. */
#define _POSIX_C_SOURCE 200809L
#include "ptxemu_machine.h"

enum { UNTOUCHED = -1, RED_MANY = -2 };

/* the .tile name of pointer param i (param_index order, as mem() numbers them) */
static const char *param_name(const Machine *m, uint64_t i)
{
	for (size_t b = 0; b < m->k->nbufs; b++)
		if (m->k->bufs[b]->mem == MEM_GLOBAL && (uint64_t)m->k->bufs[b]->param_index == i)
			return m->k->bufs[b]->name;
	return m->p->params[i];
}

/* the thread's index over the launch: its cluster's first CTA, then its rank and place */
static int64_t launch_tid(const Machine *m, int tid)
{
	int64_t cluster = m->base_y * m->k->grid + m->base_x;
	return cluster * m->threads * m->nranks + tid;
}

static int64_t *word_state(Machine *m, uint64_t param, uint64_t off)
{
	if (!m->gshadow && !(m->gshadow = calloc((size_t)m->p->nparams, sizeof *m->gshadow)))
		return NULL;
	int64_t **w = &m->gshadow[param];
	size_t n = m->param_bytes[param] / 4 + 1;
	if (!*w) {
		if (!(*w = malloc(n * sizeof **w)))
			return NULL;
		for (size_t i = 0; i < n; i++)
			(*w)[i] = UNTOUCHED;
	}
	return &(*w)[off / 4];
}

bool red_global_access(Machine *m, uint64_t param, uint64_t off, int bytes, bool atomic, int tid)
{
	int64_t g = launch_tid(m, tid), bit = atomic ? 1 : 2;
	for (uint64_t a = off & ~3ull; a < off + (uint64_t)bytes; a += 4) {
		int64_t *s = word_state(m, param, a);
		if (!s)
			return true;
		int64_t who = *s >= 0 ? *s / 4 : -1, had = *s >= 0 ? *s % 4 : 0;
		bool race = atomic ? (*s >= 0 && who != g && (had & 2)) : (*s == RED_MANY || (*s >= 0 && who != g && (had & 1)));
		if (race) {
			snprintf(m->errbuf, sizeof m->errbuf, "race: global memory at %s+%llu is reduced by red.global atomics "
			         "and accessed plainly by another thread (.tile line %d): nothing orders a plain access with "
			         "other threads' atomics within a launch", param_name(m, param), (unsigned long long)a,
			         m->acc_line);
			m->err = m->errbuf;
			return false;
		}
		if (*s == UNTOUCHED || (who != g && !atomic))
			*s = 4 * g + bit;
		else if (who == g)
			*s |= bit;
		else
			*s = RED_MANY;
	}
	return true;
}

void red_free(Machine *m)
{
	for (int i = 0; m->gshadow && i < m->p->nparams; i++)
		free(m->gshadow[i]);
	free(m->gshadow);
	m->gshadow = NULL;
}
