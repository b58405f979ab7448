/* Arena allocation per compilation and a growable text buffer. */
#include "tilepx.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct Chunk {
	struct Chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char mem[];
} Chunk;

struct Arena {
	Chunk *head;
	jmp_buf *on_oom; /* where a failed allocation returns to (the API call) */
};

/* out of memory: back to the compilation's caller, which reports it */
static void *xmalloc(Arena *a, size_t n)
{
	void *p = malloc(n);
	if (!p) {
		if (a && a->on_oom)
			longjmp(*a->on_oom, 1);
		fputs("tilepx: out of memory\n", stderr);
		abort();
	}
	return p;
}

Arena *arena_new(void)
{
	Arena *a = malloc(sizeof *a);
	if (a) {
		a->head = NULL;
		a->on_oom = NULL;
	}
	return a;
}

void arena_on_oom(Arena *a, jmp_buf *jb) { a->on_oom = jb; }

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
		c = xmalloc(a, sizeof *c + cap);
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

/* false once the buffer could not grow: it keeps what it has and says so */
static bool str_reserve(Str *b, size_t extra)
{
	if (b->failed)
		return false;
	if (b->n + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->failed = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void str_putc(Str *b, char c)
{
	if (!str_reserve(b, 1))
		return;
	b->s[b->n++] = c;
	b->s[b->n] = 0;
}

void str_putn(Str *b, const char *s, size_t n)
{
	if (!str_reserve(b, n))
		return;
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
	if (n < 0 || !str_reserve(b, (size_t)n))
		return;
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
