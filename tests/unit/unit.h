/* A tiny test framework: CHECK records, main prints "N passed, M failed". */
#ifndef UNIT_H
#define UNIT_H
#include "tilepx.h"
#include <stdio.h>
#include <string.h>

static int unit_pass, unit_fail;
#define CHECK(cond, ...)                                                          \
	do {                                                                      \
		if (cond) {                                                       \
			unit_pass++;                                              \
		} else {                                                          \
			unit_fail++;                                              \
			fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                             \
			fputc('\n', stderr);                                      \
		}                                                                 \
	} while (0)
#define UNIT_END()                                                                \
	do {                                                                      \
		printf("%d passed, %d failed\n", unit_pass, unit_fail);           \
		return unit_fail != 0;                                            \
	} while (0)

static inline Layout mk(int n, const int64_t *e, const int64_t *s)
{
	Layout L = {0};
	L.n = n;
	for (int i = 0; i < n; i++)
		L.it[i] = (Iter){e[i], s[i], AX_M};
	return L;
}

static inline const char *fmt(const Layout *L)
{
	static char buf[4][512];
	static int k;
	Str s = {0};
	lay_format(L, &s);
	char *b = buf[k++ % 4];
	snprintf(b, 512, "%s", s.s);
	str_free(&s);
	return b;
}

/* deterministic generator for property tests */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}
#endif
