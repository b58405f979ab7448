/* Arena allocation per compilation and a growable text buffer. */
#include "tilepx.h"

#include <stdlib.h>
#include <string.h>

typedef struct Chunk {
	struct Chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char mem[];
} Chunk;

struct Arena {
	Chunk *head;
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fputs("tilepx: out of memory\n", stderr);
		exit(3);
	}
	return p;
}

Arena *arena_new(void)
{
	Arena *a = xmalloc(sizeof *a);
	a->head = NULL;
	return a;
}

void arena_free(Arena *a)
{
	if (!a)
		return;
	for (Chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

static Chunk *chunk_for(Arena *a, size_t n)
{
	Chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? (n + 15) & ~(size_t)15 : 65536;
		c = xmalloc(sizeof *c + cap);
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	return c;
}

/* n bytes for text: not zeroed, not aligned (operand strings, the bulk of
 * what emission allocates) */
char *arena_str(Arena *a, size_t n)
{
	Chunk *c = chunk_for(a, n);
	char *p = (char *)c->mem + c->used;
	c->used += n;
	return p;
}

void *arena_alloc(Arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (a->head) /* realign after arena_str; a chunk's cap is a multiple of 16 */
		a->head->used = (a->head->used + 15) & ~(size_t)15;
	Chunk *c = chunk_for(a, n);
	void *p = c->mem + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

void *arena_grow(Arena *a, void *old, size_t old_n, size_t new_n)
{
	void *p = arena_alloc(a, new_n);
	if (old && old_n)
		memcpy(p, old, old_n < new_n ? old_n : new_n);
	return p;
}

size_t arena_bytes(const Arena *a)
{
	size_t n = 0;
	for (const Chunk *c = a->head; c; c = c->next)
		n += c->used;
	return n;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static void str_reserve(Str *b, size_t extra)
{
	if (b->n + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		fputs("tilepx: out of memory\n", stderr);
		exit(3);
	}
	b->s = s;
	b->cap = cap;
}

void str_putc(Str *b, char c)
{
	str_reserve(b, 1);
	b->s[b->n++] = c;
	b->s[b->n] = 0;
}

void str_putn(Str *b, const char *s, size_t n)
{
	str_reserve(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void str_puts(Str *b, const char *s) { str_putn(b, s, strlen(s)); }

void str_printf(Str *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	str_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

void str_free(Str *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}
