/* The recursive-descent parser's state, shared by parser_stmt.c and parser_expr.c. */
#ifndef TL_IR_PARSE_PARSER_H
#define TL_IR_PARSE_PARSER_H

#include <string.h>

#include "parse.h"

typedef struct tl__parser {
  tl__parse_ctx *p;
  const tl__tok *t;
  size_t n, i;
  int depth;       /* expression recursion */
  int block_depth; /* nested suites */
  int loop_depth;  /* enclosing for/while loops of the current function (break/continue) */
} tl__parser;

static inline const tl__tok *tl__peek(const tl__parser *P) { return &P->t[P->i < P->n ? P->i : P->n - 1]; }
static inline const tl__tok *tl__peek_next(const tl__parser *P) { return &P->t[P->i + 1 < P->n ? P->i + 1 : P->n - 1]; }
static inline void tl__advance(tl__parser *P) {
  if (P->i + 1 < P->n) P->i++;
}
static inline bool tl__tok_op(const tl__tok *t, const char *op) { return t->kind == TK_OP && strcmp(t->s, op) == 0; }
static inline bool tl__tok_kw(const tl__tok *t, const char *kw) { return t->kind == TK_NAME && strcmp(t->s, kw) == 0; }

/* "invalid syntax"-style error at a token, naming what was found. */
tl_status tl__perr_tok(tl__parser *P, const tl__tok *t, const char *fmt, ...) TL_PRINTF(3, 4);
/* The same for valid Python outside the subset ("lambda is not supported"): also
 * marks the error as such (tl__parse_ctx.outside_subset). */
tl_status tl__perr_unsupported(tl__parser *P, const tl__tok *t, const char *fmt, ...) TL_PRINTF(3, 4);
/* A short description of a token for messages: "'('", "end of line", "name 'x'". */
const char *tl__tok_desc(tl__parser *P, const tl__tok *t);
/* Consumes `op` or reports "expected 'op'". */
bool tl__pexpect_op(tl__parser *P, const char *op);

tl__ast_expr *tl__parse_test(tl__parser *P);      /* one expression (ternary level) */
tl__ast_expr *tl__parse_testlist(tl__parser *P);  /* a, b, c -> tuple (bare tuples) */
tl__ast_expr *tl__parse_targetlist(tl__parser *P); /* for-loop targets: or-level items */
tl__ast_expr *tl__parse_target(tl__parser *P);     /* one target (with ... as TARGET) */
tl__ast_expr *tl__ast_new_expr(tl__parser *P, tl__ast_ekind kind, const tl__tok *at);
/* Updates e->depth from its children and checks the nesting limit. */
bool tl__ast_set_depth(tl__parser *P, tl__ast_expr *e, int child_depth);

#endif
