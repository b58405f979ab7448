/* The parser's private state and the helpers its files share: the lexer
 * (lex.c), expressions and regions (parse_expr.c), declarations and layouts
 * (parse_decl.c), statements (parse_stmt.c), inline PTX (parse_asm.c), the
 * line loop (parse.c). */
#ifndef TILEPX_PARSE_H
#define TILEPX_PARSE_H
#include "tilepx.h"

typedef enum { TK_EOF, TK_NL, TK_IDENT, TK_INT, TK_PUNCT, TK_BAD } TokKind;

/* a compile-time constant: 'define NAME [VALUE]' in the file, its value
 * replaced by -D NAME=VALUE (docs/language.md, "Compile-time constants") */
typedef struct Const {
	const char *name;
	Loc loc;           /* the define line */
	const char *value; /* its text: an integer or a name; NULL: none given */
	const char *dflag; /* the -D that gave it ("NAME=VALUE"), or NULL */
	TokKind kind;      /* what a use reads: TK_INT, TK_IDENT, TK_BAD (neither, or no value) */
	bool broken;       /* its define line failed (and said so): uses fail quietly */
	int64_t val;
} Const;

typedef struct Tok {
	TokKind kind;
	const Const *from; /* the token is a use of this constant (the lexer substituted its value) */
	Loc loc;
	const char *s; /* start in source */
	size_t len;
	int64_t val;
	char c;
} Tok;

typedef struct Parser {
	Ctx *cx;
	const char *src;
	size_t len, pos;
	int line, col;
	Tok tok;
	bool line_failed;
	Module *m;
	Kernel *k;
	/* open repeat blocks */
	Stmt *stack[MAX_REPEAT_DEPTH + 1];
	int depth;
	Const *consts; /* the defines so far, in order */
	size_t nconsts, constcap;
	int expr_depth; /* parentheses and unary minus nest; bounded, the parser recurses */
	/* compile-time indices of the asm block being read */
	const char *uname[MAX_ASM_UNROLL];
	int uvar[MAX_ASM_UNROLL];
	int nu;
} Parser;

void add_stmt(Parser *p, Stmt *s);
void advance_char(Parser *p);
bool end_of_line(Parser *p);
bool expect_punct(Parser *p, char c, const char *what);
bool expr(Parser *p, Affine *out);
/* a repeat count: min(a, b), max(a, b), cdiv(a, N) and affine expressions */
bool trip_expr(Parser *p, TripExpr *e);
bool factor(Parser *p, Affine *out);
bool fail(Parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool is_ident(Parser *p, const char *s);
bool is_punct(Parser *p, char c);
int lookup_var(Parser *p, const char *name);
Kernel *need_kernel(Parser *p, Loc loc, const char *what);
int new_var(Parser *p, int64_t ext, const char *name);
void next(Parser *p);
bool parse_region(Parser *p, Region *r);
int scalar_index(const Kernel *k, const char *nm);
int any_scalar_index(const Kernel *k, const char *nm);
void start_kernel(Parser *p, Loc loc);
void statement(Parser *p);
void table_statement(Parser *p, Loc loc, Scope sc, bool scoped);
const char *take_ident(Parser *p, const char *what);
bool take_int(Parser *p, const char *what, int64_t *out);
const char *tok_text(Parser *p);
/* the asm statement's parse hook (parse_asm.c), in parse_stmt.c's table */
bool parse_asm(Parser *p, Stmt *s);
/* the set statement's parse hook (parse_set.c) */
bool parse_set(Parser *p, Stmt *s);
/* reduce.*'s operands (src/front/reduce.c) */
bool parse_reduce(Parser *p, Stmt *s);
/* the declaration hooks (parse_decl.c), in parse.c's table: after the keyword */
void decl_target(Parser *p, Loc loc);
void decl_ptx(Parser *p, Loc loc);
void decl_kernel(Parser *p, Loc loc);
void decl_func(Parser *p, Loc loc);
void decl_arg(Parser *p, Loc loc);
void decl_extern(Parser *p, Loc loc);
void decl_threads(Parser *p, Loc loc);
void decl_grid(Parser *p, Loc loc);
void decl_param(Parser *p, Loc loc);
void decl_shared(Parser *p, Loc loc);
void decl_local(Parser *p, Loc loc);
void decl_tmem(Parser *p, Loc loc);
void decl_mbarrier(Parser *p, Loc loc);
void decl_cluster(Parser *p, Loc loc);
void decl_assume(Parser *p, Loc loc);
void decl_define(Parser *p, Loc loc);
/* the -D that sets name ("NAME=VALUE"), or NULL (define.c) */
const char *define_of(const Ctx *cx, const char *name);
/* a use of constant c as the current token (lex.c) */
void const_token(Tok *t, const Const *c);

#endif
