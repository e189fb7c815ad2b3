/* The parser, expressions: Python's expression grammar with its precedence
 * (ternary < or < and < not < comparisons < | < ^ < & < shifts < + - < * / // % <
 * unary < ** < calls, subscripts, attributes). Constructs outside the subset
 * (lambda, comprehensions, f-strings, starred arguments) are reported here. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "base/vec.h"
#include "parser.h"

const char *tl__ast_op_str(tl__ast_op op) {
  static const char *const names[] = {
    [AOP_ADD] = "+", [AOP_SUB] = "-", [AOP_MUL] = "*", [AOP_DIV] = "/", [AOP_FLOORDIV] = "//",
    [AOP_MOD] = "%", [AOP_POW] = "**", [AOP_LSHIFT] = "<<", [AOP_RSHIFT] = ">>", [AOP_BITAND] = "&",
    [AOP_BITOR] = "|", [AOP_BITXOR] = "^", [AOP_NEG] = "-", [AOP_POS] = "+", [AOP_INVERT] = "~",
    [AOP_NOT] = "not", [AOP_AND] = "and", [AOP_OR] = "or", [AOP_EQ] = "==", [AOP_NE] = "!=",
    [AOP_LT] = "<", [AOP_LE] = "<=", [AOP_GT] = ">", [AOP_GE] = ">=", [AOP_IN] = "in",
    [AOP_NOTIN] = "not in", [AOP_IS] = "is", [AOP_ISNOT] = "is not",
  };
  return (unsigned)op < sizeof names / sizeof names[0] && names[op] ? names[op] : "?";
}

const char *tl__tok_desc(tl__parser *P, const tl__tok *t) {
  switch (t->kind) {
    case TK_EOF: return "end of file";
    case TK_NEWLINE: return "end of line";
    case TK_INDENT: return "an indented block";
    case TK_DEDENT: return "the end of the block";
    case TK_INT: case TK_FLOAT: return "a number";
    case TK_STRING: return "a string";
    default: break;
  }
  size_t len = t->len < 40 ? t->len : 40;
  char buf[64];
  snprintf(buf, sizeof buf, "'%.*s'", (int)len, P->p->src + t->off);
  char *s = tl__arena_strdup(&P->p->arena, buf);
  return s ? s : "a token";
}

tl_status tl__perr_tok(tl__parser *P, const tl__tok *t, const char *fmt, ...) {
  if (P->p->status != TL_OK) return P->p->status;
  char *msg;
  va_list ap;
  va_start(ap, fmt);
  msg = tl__vformat(fmt, ap);
  va_end(ap);
  if (!msg) return tl__parse_oom(P->p);
  tl_status s = tl__parse_error(P->p, t->line, t->col, "%s", msg);
  tl__free(msg);
  return s;
}

tl_status tl__perr_unsupported(tl__parser *P, const tl__tok *t, const char *fmt, ...) {
  if (P->p->status != TL_OK) return P->p->status;
  char *msg;
  va_list ap;
  va_start(ap, fmt);
  msg = tl__vformat(fmt, ap);
  va_end(ap);
  if (!msg) return tl__parse_oom(P->p);
  tl_status s = tl__parse_error(P->p, t->line, t->col, "%s", msg);
  tl__free(msg);
  P->p->outside_subset = s == TL_EINVAL;
  return s;
}

bool tl__pexpect_op(tl__parser *P, const char *op) {
  const tl__tok *t = tl__peek(P);
  if (tl__tok_op(t, op)) {
    tl__advance(P);
    return true;
  }
  tl__perr_tok(P, t, "expected '%s', found %s", op, tl__tok_desc(P, t));
  return false;
}

tl__ast_expr *tl__ast_new_expr(tl__parser *P, tl__ast_ekind kind, const tl__tok *at) {
  tl__ast_expr *e = tl__parse_alloc(P->p, sizeof *e);
  if (!e) return NULL;
  e->kind = (uint8_t)kind;
  e->line = at->line;
  e->col = at->col;
  e->depth = 1;
  return e;
}

bool tl__ast_set_depth(tl__parser *P, tl__ast_expr *e, int child_depth) {
  if (child_depth + 1 > TL__PARSE_MAX_EXPR_DEPTH) {
    tl__parse_error(P->p, e->line, e->col, "expression nested too deeply (more than %d levels)", TL__PARSE_MAX_EXPR_DEPTH);
    return false;
  }
  if (child_depth + 1 > e->depth) e->depth = (uint16_t)(child_depth + 1);
  return true;
}

static int dmax(const tl__ast_expr *a, const tl__ast_expr *b) {
  int x = a ? a->depth : 0, y = b ? b->depth : 0;
  return x > y ? x : y;
}

/* Copies a vec of pointers into the arena. */
static void *to_array(tl__parser *P, tl__vec *v) {
  if (v->len == 0) return NULL;
  void *a = tl__parse_alloc(P->p, v->len * v->elem);
  if (a) memcpy(a, v->data, v->len * v->elem);
  return a;
}

/* Guards recursion: every recursive entry point goes through here. */
static bool enter(tl__parser *P) {
  if (++P->depth > TL__PARSE_MAX_EXPR_DEPTH) {
    const tl__tok *t = tl__peek(P);
    tl__parse_error(P->p, t->line, t->col, "expression nested too deeply (more than %d levels)", TL__PARSE_MAX_EXPR_DEPTH);
    return false;
  }
  return true;
}
#define ENTER()                 \
  do {                          \
    if (!enter(P)) return NULL; \
  } while (0)
#define LEAVE(x) (P->depth--, (x))

static tl__ast_expr *parse_or(tl__parser *P);
static tl__ast_expr *parse_bitor(tl__parser *P);
static tl__ast_expr *parse_factor(tl__parser *P);

static tl__ast_expr *binary(tl__parser *P, tl__ast_ekind kind, tl__ast_op op, tl__ast_expr *a, tl__ast_expr *b,
                            const tl__tok *at) {
  if (!a || !b) return NULL;
  tl__ast_expr *e = tl__ast_new_expr(P, kind, at);
  if (!e) return NULL;
  e->line = a->line;
  e->col = a->col;
  e->op = (uint8_t)op;
  e->u.bin.a = a;
  e->u.bin.b = b;
  return tl__ast_set_depth(P, e, dmax(a, b)) ? e : NULL;
}

/* Reports a construct that is valid Python but outside the subset. */
static tl__ast_expr *unsupported(tl__parser *P, const tl__tok *t, const char *what) {
  tl__perr_unsupported(P, t, "%s %s not supported", what, tl__str_ends_with(what, "s") ? "are" : "is");
  return NULL;
}

/* lambda [NAME [= test] (, NAME [= test])*] : test */
static tl__ast_expr *parse_lambda(tl__parser *P) {
  const tl__tok *kw = tl__peek(P);
  tl__advance(P);
  tl__vec names = TL__VEC_INIT(const char *), dflts = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_expr *e = NULL, *result = NULL;
  while (!tl__tok_op(tl__peek(P), ":")) {
    const tl__tok *t = tl__peek(P);
    if (tl__tok_op(t, "*") || tl__tok_op(t, "**") || tl__tok_op(t, "/")) {
      unsupported(P, t, "'*', '**' and '/' in a lambda's parameters");
      goto done;
    }
    if (t->kind != TK_NAME || tl__tok_is_keyword(t)) {
      tl__perr_tok(P, t, "expected a parameter name or ':' in a lambda, found %s", tl__tok_desc(P, t));
      goto done;
    }
    for (size_t i = 0; i < names.len; i++)
      if (strcmp(TL__VEC_AT(&names, const char *, i), t->s) == 0) {
        tl__perr_tok(P, t, "duplicate argument '%s' in a lambda", t->s);
        goto done;
      }
    tl__advance(P);
    tl__ast_expr *d = NULL;
    if (tl__tok_op(tl__peek(P), "=")) {
      tl__advance(P);
      if (!(d = tl__parse_test(P))) goto done;
    }
    if (tl__vec_push(&names, &t->s) != TL_OK || tl__vec_push(&dflts, &d) != TL_OK) {
      tl__parse_oom(P->p);
      goto done;
    }
    if (!tl__tok_op(tl__peek(P), ",")) break;
    tl__advance(P);
  }
  if (!tl__pexpect_op(P, ":")) goto done;
  tl__ast_expr *body = tl__parse_test(P);
  if (!body || !(e = tl__ast_new_expr(P, AE_LAMBDA, kw))) goto done;
  e->u.lambda.n = (uint32_t)names.len;
  e->u.lambda.names = names.len ? tl__parse_alloc(P->p, names.len * sizeof(const char *)) : NULL;
  e->u.lambda.dflts = names.len ? tl__parse_alloc(P->p, names.len * sizeof(tl__ast_expr *)) : NULL;
  if (names.len && (!e->u.lambda.names || !e->u.lambda.dflts)) goto done;
  if (names.len) {
    memcpy(e->u.lambda.names, names.data, names.len * sizeof(const char *));
    memcpy(e->u.lambda.dflts, dflts.data, names.len * sizeof(tl__ast_expr *));
  }
  e->u.lambda.body = body;
  if (tl__ast_set_depth(P, e, body->depth)) result = e;
done:
  tl__vec_free(&names);
  tl__vec_free(&dflts);
  return result;
}

tl__ast_expr *tl__parse_test(tl__parser *P) {
  ENTER();
  const tl__tok *t = tl__peek(P);
  if (tl__tok_kw(t, "lambda")) return LEAVE(parse_lambda(P));
  tl__ast_expr *a = parse_or(P);
  if (!a) return LEAVE(NULL);
  const tl__tok *n = tl__peek(P);
  if (tl__tok_op(n, ":=")) return LEAVE(unsupported(P, n, "the assignment expression ':='"));
  if (!tl__tok_kw(n, "if")) return LEAVE(a);
  tl__advance(P);
  tl__ast_expr *cond = parse_or(P);
  if (!cond) return LEAVE(NULL);
  const tl__tok *el = tl__peek(P);
  if (!tl__tok_kw(el, "else")) {
    tl__perr_tok(P, el, "expected 'else' after 'if' expression, found %s", tl__tok_desc(P, el));
    return LEAVE(NULL);
  }
  tl__advance(P);
  tl__ast_expr *f = tl__parse_test(P);
  if (!f) return LEAVE(NULL);
  tl__ast_expr *e = tl__ast_new_expr(P, AE_IFEXP, t);
  if (!e) return LEAVE(NULL);
  e->u.ifexp.cond = cond;
  e->u.ifexp.t = a;
  e->u.ifexp.f = f;
  int d = dmax(a, cond) > f->depth ? dmax(a, cond) : f->depth;
  return LEAVE(tl__ast_set_depth(P, e, d) ? e : NULL);
}

static tl__ast_expr *parse_and(tl__parser *P);
static tl__ast_expr *parse_not(tl__parser *P);

static tl__ast_expr *parse_or(tl__parser *P) {
  tl__ast_expr *a = parse_and(P);
  while (a && tl__tok_kw(tl__peek(P), "or")) {
    const tl__tok *t = tl__peek(P);
    tl__advance(P);
    a = binary(P, AE_BOOLOP, AOP_OR, a, parse_and(P), t);
  }
  return a;
}

static tl__ast_expr *parse_and(tl__parser *P) {
  tl__ast_expr *a = parse_not(P);
  while (a && tl__tok_kw(tl__peek(P), "and")) {
    const tl__tok *t = tl__peek(P);
    tl__advance(P);
    a = binary(P, AE_BOOLOP, AOP_AND, a, parse_not(P), t);
  }
  return a;
}

static bool comp_op(tl__parser *P, tl__ast_op *op) {
  const tl__tok *t = tl__peek(P);
  static const struct { const char *s; tl__ast_op op; } ops[] = {
    {"==", AOP_EQ}, {"!=", AOP_NE}, {"<", AOP_LT}, {"<=", AOP_LE}, {">", AOP_GT}, {">=", AOP_GE},
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (tl__tok_op(t, ops[i].s)) {
      tl__advance(P);
      *op = ops[i].op;
      return true;
    }
  if (tl__tok_kw(t, "in")) {
    tl__advance(P);
    *op = AOP_IN;
    return true;
  }
  if (tl__tok_kw(t, "not") && tl__tok_kw(tl__peek_next(P), "in")) {
    tl__advance(P);
    tl__advance(P);
    *op = AOP_NOTIN;
    return true;
  }
  if (tl__tok_kw(t, "is")) {
    tl__advance(P);
    *op = AOP_IS;
    if (tl__tok_kw(tl__peek(P), "not")) {
      tl__advance(P);
      *op = AOP_ISNOT;
    }
    return true;
  }
  return false;
}

static tl__ast_expr *parse_comparison(tl__parser *P) {
  const tl__tok *start = tl__peek(P);
  tl__ast_expr *first = parse_bitor(P);
  if (!first) return NULL;
  tl__ast_op op;
  if (!comp_op(P, &op)) return first;
  tl__vec ops = TL__VEC_INIT(uint8_t), operands = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_expr *e = NULL;
  if (tl__vec_push(&operands, &first) != TL_OK) goto oom;
  int d = first->depth;
  do {
    uint8_t o = (uint8_t)op;
    if (tl__vec_push(&ops, &o) != TL_OK) goto oom;
    tl__ast_expr *b = parse_bitor(P);
    if (!b) goto done;
    if (b->depth > d) d = b->depth;
    if (tl__vec_push(&operands, &b) != TL_OK) goto oom;
  } while (comp_op(P, &op));
  e = tl__ast_new_expr(P, AE_COMPARE, start);
  if (!e) goto done;
  e->line = first->line;
  e->col = first->col;
  e->u.cmp.n = (uint32_t)ops.len;
  e->u.cmp.ops = to_array(P, &ops);
  e->u.cmp.operands = to_array(P, &operands);
  if (!e->u.cmp.ops || !e->u.cmp.operands || !tl__ast_set_depth(P, e, d)) e = NULL;
  goto done;
oom:
  tl__parse_oom(P->p);
  e = NULL;
done:
  tl__vec_free(&ops);
  tl__vec_free(&operands);
  return e;
}

static tl__ast_expr *parse_not(tl__parser *P) {
  const tl__tok *t = tl__peek(P);
  if (!tl__tok_kw(t, "not")) return parse_comparison(P);
  ENTER();
  tl__advance(P);
  tl__ast_expr *a = parse_not(P);
  if (!a) return LEAVE(NULL);
  tl__ast_expr *e = tl__ast_new_expr(P, AE_UNOP, t);
  if (!e) return LEAVE(NULL);
  e->op = AOP_NOT;
  e->u.un.a = a;
  return LEAVE(tl__ast_set_depth(P, e, a->depth) ? e : NULL);
}

/* One left-associative binary level: operands from `next`, operators from `ops`. */
typedef tl__ast_expr *(*level_fn)(tl__parser *P);
static tl__ast_expr *left_assoc(tl__parser *P, level_fn next, const char *const *ops, const tl__ast_op *codes,
                                size_t nops) {
  tl__ast_expr *a = next(P);
  while (a) {
    const tl__tok *t = tl__peek(P);
    size_t k = nops;
    for (size_t i = 0; i < nops; i++)
      if (tl__tok_op(t, ops[i])) k = i;
    if (k == nops) break;
    if (tl__tok_op(t, "@")) return unsupported(P, t, "the matrix multiplication operator '@'");
    tl__advance(P);
    a = binary(P, AE_BINOP, codes[k], a, next(P), t);
  }
  return a;
}

static tl__ast_expr *parse_term(tl__parser *P) {
  static const char *const ops[] = {"*", "/", "//", "%", "@"};
  static const tl__ast_op codes[] = {AOP_MUL, AOP_DIV, AOP_FLOORDIV, AOP_MOD, AOP_MUL};
  return left_assoc(P, parse_factor, ops, codes, 5);
}
static tl__ast_expr *parse_arith(tl__parser *P) {
  static const char *const ops[] = {"+", "-"};
  static const tl__ast_op codes[] = {AOP_ADD, AOP_SUB};
  return left_assoc(P, parse_term, ops, codes, 2);
}
static tl__ast_expr *parse_shift(tl__parser *P) {
  static const char *const ops[] = {"<<", ">>"};
  static const tl__ast_op codes[] = {AOP_LSHIFT, AOP_RSHIFT};
  return left_assoc(P, parse_arith, ops, codes, 2);
}
static tl__ast_expr *parse_bitand(tl__parser *P) {
  static const char *const ops[] = {"&"};
  static const tl__ast_op codes[] = {AOP_BITAND};
  return left_assoc(P, parse_shift, ops, codes, 1);
}
static tl__ast_expr *parse_bitxor(tl__parser *P) {
  static const char *const ops[] = {"^"};
  static const tl__ast_op codes[] = {AOP_BITXOR};
  return left_assoc(P, parse_bitand, ops, codes, 1);
}
static tl__ast_expr *parse_bitor(tl__parser *P) {
  static const char *const ops[] = {"|"};
  static const tl__ast_op codes[] = {AOP_BITOR};
  return left_assoc(P, parse_bitxor, ops, codes, 1);
}

static tl__ast_expr *parse_power(tl__parser *P);

static tl__ast_expr *parse_factor(tl__parser *P) {
  const tl__tok *t = tl__peek(P);
  tl__ast_op op;
  if (tl__tok_op(t, "-")) op = AOP_NEG;
  else if (tl__tok_op(t, "+")) op = AOP_POS;
  else if (tl__tok_op(t, "~")) op = AOP_INVERT;
  else return parse_power(P);
  ENTER();
  tl__advance(P);
  tl__ast_expr *a = parse_factor(P);
  if (!a) return LEAVE(NULL);
  tl__ast_expr *e = tl__ast_new_expr(P, AE_UNOP, t);
  if (!e) return LEAVE(NULL);
  e->op = (uint8_t)op;
  e->u.un.a = a;
  return LEAVE(tl__ast_set_depth(P, e, a->depth) ? e : NULL);
}

static tl__ast_expr *parse_primary(tl__parser *P);

static tl__ast_expr *parse_power(tl__parser *P) {
  tl__ast_expr *a = parse_primary(P);
  if (!a) return NULL;
  const tl__tok *t = tl__peek(P);
  if (!tl__tok_op(t, "**")) return a;
  ENTER();
  tl__advance(P);
  tl__ast_expr *b = parse_factor(P); /* right-associative; binds unary on its right */
  return LEAVE(binary(P, AE_BINOP, AOP_POW, a, b, t));
}

/* The clauses of a comprehension whose element `elt` has been parsed (the next
 * token is `for`): for TARGETS in OR_TEST (if OR_TEST)* ... */
static tl__ast_expr *parse_comp(tl__parser *P, const tl__tok *at, tl__ast_expr *elt) {
  tl__vec clauses = TL__VEC_INIT(tl__ast_comp_clause);
  tl__vec conds = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_expr *e = NULL;
  int d = elt->depth;
  while (tl__tok_kw(tl__peek(P), "for")) {
    tl__advance(P);
    tl__ast_comp_clause c = {0};
    if (!(c.target = tl__parse_targetlist(P))) goto done;
    if (!tl__tok_kw(tl__peek(P), "in")) {
      tl__perr_tok(P, tl__peek(P), "expected 'in' in a comprehension, found %s", tl__tok_desc(P, tl__peek(P)));
      goto done;
    }
    tl__advance(P);
    if (!(c.iter = parse_or(P))) goto done;
    conds.len = 0;
    while (tl__tok_kw(tl__peek(P), "if")) {
      tl__advance(P);
      tl__ast_expr *x = parse_or(P);
      if (!x) goto done;
      if (x->depth > d) d = x->depth;
      if (tl__vec_push(&conds, &x) != TL_OK) {
        tl__parse_oom(P->p);
        goto done;
      }
    }
    c.nconds = (uint32_t)conds.len;
    c.conds = to_array(P, &conds);
    if (c.target->depth > d) d = c.target->depth;
    if (c.iter->depth > d) d = c.iter->depth;
    if (P->p->status != TL_OK || tl__vec_push(&clauses, &c) != TL_OK) {
      if (P->p->status == TL_OK) tl__parse_oom(P->p);
      goto done;
    }
  }
  e = tl__ast_new_expr(P, AE_COMP, at);
  if (!e) goto done;
  e->u.comp.elt = elt;
  e->u.comp.n = (uint32_t)clauses.len;
  e->u.comp.clauses = to_array(P, &clauses);
  if (!e->u.comp.clauses || !tl__ast_set_depth(P, e, d)) e = NULL;
done:
  tl__vec_free(&clauses);
  tl__vec_free(&conds);
  return e;
}

/* Items of a parenthesized/bracketed sequence after the opener, up to `close`.
 * *trailing_comma tells "(x,)" from "(x)". */
static bool parse_items(tl__parser *P, const char *close, tl__vec *items, bool *comma) {
  *comma = false;
  while (!tl__tok_op(tl__peek(P), close)) {
    const tl__tok *t = tl__peek(P);
    if (tl__tok_op(t, "*")) return unsupported(P, t, "starred expressions"), false;
    tl__ast_expr *e = tl__parse_test(P);
    if (!e) return false;
    if (tl__tok_kw(tl__peek(P), "for")) { /* [x for ...] / (x for ...): the only item */
      if (items->len) return unsupported(P, tl__peek(P), "comprehensions after other items"), false;
      if (!(e = parse_comp(P, t, e))) return false;
      if (tl__vec_push(items, &e) != TL_OK) return tl__parse_oom(P->p), false;
      *comma = false;
      return tl__pexpect_op(P, close);
    }
    if (tl__vec_push(items, &e) != TL_OK) return tl__parse_oom(P->p), false;
    if (!tl__tok_op(tl__peek(P), ",")) break;
    *comma = true;
    tl__advance(P);
  }
  return tl__pexpect_op(P, close);
}

static tl__ast_expr *make_seq(tl__parser *P, tl__ast_ekind kind, const tl__tok *at, tl__vec *items) {
  tl__ast_expr *e = tl__ast_new_expr(P, kind, at);
  if (!e) return NULL;
  e->u.seq.n = (uint32_t)items->len;
  e->u.seq.items = to_array(P, items);
  if (items->len && !e->u.seq.items) return NULL;
  int d = 0;
  for (size_t i = 0; i < items->len; i++) {
    int x = TL__VEC_AT(items, tl__ast_expr *, i)->depth;
    if (x > d) d = x;
  }
  return tl__ast_set_depth(P, e, d) ? e : NULL;
}

static tl__ast_expr *parse_dict(tl__parser *P, const tl__tok *open) {
  tl__vec keys = TL__VEC_INIT(tl__ast_expr *), vals = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_expr *e = NULL;
  int d = 0;
  while (!tl__tok_op(tl__peek(P), "}")) {
    const tl__tok *t = tl__peek(P);
    if (tl__tok_op(t, "**")) {
      unsupported(P, t, "dictionary unpacking");
      goto done;
    }
    tl__ast_expr *k = tl__parse_test(P);
    if (!k) goto done;
    if (!tl__tok_op(tl__peek(P), ":")) {
      unsupported(P, open, "set literals");
      goto done;
    }
    tl__advance(P);
    tl__ast_expr *v = tl__parse_test(P);
    if (!v) goto done;
    if (tl__tok_kw(tl__peek(P), "for")) {
      unsupported(P, tl__peek(P), "dictionary comprehensions");
      goto done;
    }
    if (k->depth > d) d = k->depth;
    if (v->depth > d) d = v->depth;
    if (tl__vec_push(&keys, &k) != TL_OK || tl__vec_push(&vals, &v) != TL_OK) {
      tl__parse_oom(P->p);
      goto done;
    }
    if (!tl__tok_op(tl__peek(P), ",")) break;
    tl__advance(P);
  }
  if (!tl__pexpect_op(P, "}")) goto done;
  e = tl__ast_new_expr(P, AE_DICT, open);
  if (!e) goto done;
  e->u.dict.n = (uint32_t)keys.len;
  e->u.dict.keys = to_array(P, &keys);
  e->u.dict.vals = to_array(P, &vals);
  if (keys.len && (!e->u.dict.keys || !e->u.dict.vals)) e = NULL;
  if (e && !tl__ast_set_depth(P, e, d)) e = NULL;
done:
  tl__vec_free(&keys);
  tl__vec_free(&vals);
  return e;
}

static tl__ast_expr *parse_strings(tl__parser *P) {
  const tl__tok *first = tl__peek(P);
  size_t total = 0;
  size_t j = P->i;
  bool f = false;
  while (j < P->n && P->t[j].kind == TK_STRING) {
    const tl__tok *t = &P->t[j];
    f |= (t->flags & TL__STR_F) != 0;
    if (t->flags & TL__STR_BYTES) return unsupported(P, t, "bytes literals");
    total += t->slen;
    j++;
  }
  char *s = tl__parse_alloc(P->p, total + 1);
  if (!s) return NULL;
  size_t n = 0;
  for (; P->i < j; P->i++) {
    memcpy(s + n, P->t[P->i].s, P->t[P->i].slen);
    n += P->t[P->i].slen;
  }
  s[n] = '\0';
  tl__ast_expr *e = tl__ast_new_expr(P, AE_STR, first);
  if (!e) return NULL;
  e->u.str.s = s;
  e->u.str.n = n;
  e->u.str.f = f;
  return e;
}

static tl__ast_expr *parse_atom(tl__parser *P) {
  const tl__tok *t = tl__peek(P);
  tl__ast_expr *e;
  switch (t->kind) {
    case TK_INT:
      e = tl__ast_new_expr(P, AE_INT, t);
      if (e) e->u.i = t->ival;
      tl__advance(P);
      return e;
    case TK_FLOAT:
      e = tl__ast_new_expr(P, AE_FLOAT, t);
      if (e) e->u.f = t->fval;
      tl__advance(P);
      return e;
    case TK_STRING:
      return parse_strings(P);
    case TK_NAME:
      if (tl__tok_kw(t, "True") || tl__tok_kw(t, "False")) {
        e = tl__ast_new_expr(P, AE_BOOL, t);
        if (e) e->u.b = t->s[0] == 'T';
        tl__advance(P);
        return e;
      }
      if (tl__tok_kw(t, "None")) {
        e = tl__ast_new_expr(P, AE_NONE, t);
        tl__advance(P);
        return e;
      }
      if (tl__tok_kw(t, "lambda")) return unsupported(P, t, "lambda");
      if (tl__tok_kw(t, "await")) return unsupported(P, t, "await");
      if (tl__tok_kw(t, "yield")) return unsupported(P, t, "yield");
      if (tl__tok_is_keyword(t)) {
        tl__perr_tok(P, t, "invalid syntax: unexpected keyword '%s'", t->s);
        return NULL;
      }
      e = tl__ast_new_expr(P, AE_NAME, t);
      if (e) e->u.name = t->s;
      tl__advance(P);
      return e;
    case TK_OP:
      break;
    default:
      tl__perr_tok(P, t, "expected an expression, found %s", tl__tok_desc(P, t));
      return NULL;
  }
  if (tl__tok_op(t, "(") || tl__tok_op(t, "[")) {
    bool paren = tl__tok_op(t, "(");
    tl__advance(P);
    tl__vec items = TL__VEC_INIT(tl__ast_expr *);
    bool comma;
    e = NULL;
    if (paren && tl__tok_kw(tl__peek(P), "yield")) {
      unsupported(P, tl__peek(P), "yield");
    } else if (parse_items(P, paren ? ")" : "]", &items, &comma)) {
      if (items.len == 1 && !comma && (paren || TL__VEC_AT(&items, tl__ast_expr *, 0)->kind == AE_COMP))
        e = TL__VEC_AT(&items, tl__ast_expr *, 0); /* (x), (x for ...), [x for ...] */
      else e = make_seq(P, paren ? AE_TUPLE : AE_LIST, t, &items);
    }
    tl__vec_free(&items);
    return e;
  }
  if (tl__tok_op(t, "{")) {
    tl__advance(P);
    return parse_dict(P, t);
  }
  if (tl__tok_op(t, "...")) return unsupported(P, t, "the ellipsis '...'");
  tl__perr_tok(P, t, "expected an expression, found %s", tl__tok_desc(P, t));
  return NULL;
}

/* Arguments of a call after '(' up to and including ')'. */
static bool parse_call_args(tl__parser *P, tl__ast_expr *call) {
  tl__vec args = TL__VEC_INIT(tl__ast_expr *), kwn = TL__VEC_INIT(const char *), kwv = TL__VEC_INIT(tl__ast_expr *);
  bool ok = false;
  int d = call->u.call.fn->depth;
  while (!tl__tok_op(tl__peek(P), ")")) {
    const tl__tok *t = tl__peek(P);
    if (tl__tok_op(t, "*") || tl__tok_op(t, "**")) {
      unsupported(P, t, "argument unpacking (*args, **kwargs)");
      goto done;
    }
    if (t->kind == TK_NAME && !tl__tok_is_keyword(t) && tl__tok_op(tl__peek_next(P), "=")) {
      for (size_t i = 0; i < kwn.len; i++)
        if (strcmp(TL__VEC_AT(&kwn, const char *, i), t->s) == 0) {
          tl__perr_tok(P, t, "keyword argument repeated: %s", t->s);
          goto done;
        }
      tl__advance(P);
      tl__advance(P);
      tl__ast_expr *v = tl__parse_test(P);
      if (!v) goto done;
      if (v->depth > d) d = v->depth;
      if (tl__vec_push(&kwn, &t->s) != TL_OK || tl__vec_push(&kwv, &v) != TL_OK) {
        tl__parse_oom(P->p);
        goto done;
      }
    } else {
      if (kwn.len) {
        tl__perr_tok(P, t, "positional argument follows keyword argument");
        goto done;
      }
      tl__ast_expr *a = tl__parse_test(P);
      if (!a) goto done;
      if (tl__tok_kw(tl__peek(P), "for")) { /* f(x for x in xs): a generator, the only argument */
        if (args.len || !(a = parse_comp(P, t, a))) {
          if (P->p->status == TL_OK)
            tl__perr_tok(P, tl__peek(P), "Generator expression must be parenthesized");
          goto done;
        }
        if (!tl__tok_op(tl__peek(P), ")")) {
          tl__perr_tok(P, tl__peek(P), "Generator expression must be parenthesized");
          goto done;
        }
      }
      if (a->depth > d) d = a->depth;
      if (tl__vec_push(&args, &a) != TL_OK) {
        tl__parse_oom(P->p);
        goto done;
      }
    }
    if (!tl__tok_op(tl__peek(P), ",")) break;
    tl__advance(P);
  }
  if (!tl__pexpect_op(P, ")")) goto done;
  call->u.call.nargs = (uint32_t)args.len;
  call->u.call.args = to_array(P, &args);
  call->u.call.nkw = (uint32_t)kwn.len;
  call->u.call.kwnames = to_array(P, &kwn);
  call->u.call.kwvals = to_array(P, &kwv);
  if (P->p->status != TL_OK) goto done;
  ok = tl__ast_set_depth(P, call, d);
done:
  tl__vec_free(&args);
  tl__vec_free(&kwn);
  tl__vec_free(&kwv);
  return ok;
}

/* One subscript item: an expression or a slice lo:hi[:step]. */
static tl__ast_expr *parse_slice_item(tl__parser *P) {
  const tl__tok *t = tl__peek(P);
  tl__ast_expr *lo = NULL;
  if (!tl__tok_op(t, ":")) {
    lo = tl__parse_test(P);
    if (!lo || !tl__tok_op(tl__peek(P), ":")) return lo;
  }
  tl__advance(P); /* ':' */
  tl__ast_expr *hi = NULL, *step = NULL;
  const tl__tok *n = tl__peek(P);
  if (!tl__tok_op(n, ":") && !tl__tok_op(n, ",") && !tl__tok_op(n, "]")) {
    hi = tl__parse_test(P);
    if (!hi) return NULL;
  }
  if (tl__tok_op(tl__peek(P), ":")) {
    tl__advance(P);
    n = tl__peek(P);
    if (!tl__tok_op(n, ",") && !tl__tok_op(n, "]")) {
      step = tl__parse_test(P);
      if (!step) return NULL;
    }
  }
  tl__ast_expr *e = tl__ast_new_expr(P, AE_SLICE, t);
  if (!e) return NULL;
  e->u.slice.lo = lo;
  e->u.slice.hi = hi;
  e->u.slice.step = step;
  int d = dmax(lo, hi) > dmax(step, NULL) ? dmax(lo, hi) : dmax(step, NULL);
  return tl__ast_set_depth(P, e, d) ? e : NULL;
}

static tl__ast_expr *parse_subscript(tl__parser *P, const tl__tok *open) {
  tl__vec items = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_expr *e = NULL;
  bool comma = false;
  while (!tl__tok_op(tl__peek(P), "]")) {
    tl__ast_expr *it = parse_slice_item(P);
    if (!it) goto done;
    if (tl__vec_push(&items, &it) != TL_OK) {
      tl__parse_oom(P->p);
      goto done;
    }
    if (!tl__tok_op(tl__peek(P), ",")) break;
    comma = true;
    tl__advance(P);
  }
  if (!tl__pexpect_op(P, "]")) goto done;
  if (items.len == 0) {
    tl__perr_tok(P, open, "expected an index inside '[]'");
    goto done;
  }
  if (items.len == 1 && !comma) e = TL__VEC_AT(&items, tl__ast_expr *, 0);
  else e = make_seq(P, AE_TUPLE, open, &items);
done:
  tl__vec_free(&items);
  return e;
}

static tl__ast_expr *parse_primary(tl__parser *P) {
  tl__ast_expr *e = parse_atom(P);
  while (e) {
    const tl__tok *t = tl__peek(P);
    if (tl__tok_op(t, "(")) {
      tl__advance(P);
      tl__ast_expr *c = tl__ast_new_expr(P, AE_CALL, t);
      if (!c) return NULL;
      c->line = e->line;
      c->col = e->col;
      c->u.call.fn = e;
      if (!parse_call_args(P, c)) return NULL;
      e = c;
    } else if (tl__tok_op(t, "[")) {
      tl__advance(P);
      tl__ast_expr *idx = parse_subscript(P, t);
      if (!idx) return NULL;
      tl__ast_expr *s = tl__ast_new_expr(P, AE_SUBSCRIPT, t);
      if (!s) return NULL;
      s->line = e->line;
      s->col = e->col;
      s->u.sub.obj = e;
      s->u.sub.index = idx;
      if (!tl__ast_set_depth(P, s, dmax(e, idx))) return NULL;
      e = s;
    } else if (tl__tok_op(t, ".")) {
      tl__advance(P);
      const tl__tok *name = tl__peek(P);
      if (name->kind != TK_NAME || tl__tok_is_keyword(name)) {
        tl__perr_tok(P, name, "expected an attribute name after '.', found %s", tl__tok_desc(P, name));
        return NULL;
      }
      tl__advance(P);
      tl__ast_expr *a = tl__ast_new_expr(P, AE_ATTR, name);
      if (!a) return NULL;
      a->u.attr.obj = e;
      a->u.attr.name = name->s;
      if (!tl__ast_set_depth(P, a, e->depth)) return NULL;
      /* A dotted name is located where it starts ("T.foo": at T). */
      a->line = e->line;
      a->col = e->col;
      e = a;
    } else {
      break;
    }
  }
  return e;
}

/* Comma-separated items at the level `item`; a comma makes a tuple. */
static tl__ast_expr *item_list(tl__parser *P, level_fn item, bool stop_at_in) {
  const tl__tok *start = tl__peek(P);
  tl__ast_expr *first = item(P);
  if (!first || !tl__tok_op(tl__peek(P), ",")) return first;
  tl__vec items = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_expr *e = NULL;
  if (tl__vec_push(&items, &first) != TL_OK) goto oom;
  while (tl__tok_op(tl__peek(P), ",")) {
    tl__advance(P);
    const tl__tok *t = tl__peek(P);
    /* A trailing comma ends the list. */
    if (t->kind == TK_NEWLINE || tl__tok_op(t, "=") || tl__tok_op(t, ")") || tl__tok_op(t, ":") ||
        tl__tok_op(t, ";") || (stop_at_in && tl__tok_kw(t, "in")) || t->kind == TK_EOF)
      break;
    tl__ast_expr *x = item(P);
    if (!x) goto done;
    if (tl__vec_push(&items, &x) != TL_OK) goto oom;
  }
  e = make_seq(P, AE_TUPLE, start, &items);
  goto done;
oom:
  tl__parse_oom(P->p);
done:
  tl__vec_free(&items);
  return e;
}

tl__ast_expr *tl__parse_testlist(tl__parser *P) { return item_list(P, tl__parse_test, false); }

tl__ast_expr *tl__parse_targetlist(tl__parser *P) { return item_list(P, parse_bitor, true); }

tl__ast_expr *tl__parse_target(tl__parser *P) { return parse_bitor(P); }

bool tl__ast_expr_equal(const tl__ast_expr *a, const tl__ast_expr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->op != b->op) return false;
  switch ((tl__ast_ekind)a->kind) {
    case AE_NAME: return strcmp(a->u.name, b->u.name) == 0;
    case AE_INT: return a->u.i == b->u.i;
    case AE_FLOAT: return a->u.f == b->u.f;
    case AE_STR:
      return a->u.str.f == b->u.str.f && a->u.str.n == b->u.str.n && memcmp(a->u.str.s, b->u.str.s, a->u.str.n) == 0;
    case AE_BOOL: return a->u.b == b->u.b;
    case AE_NONE: return true;
    case AE_ATTR: return strcmp(a->u.attr.name, b->u.attr.name) == 0 && tl__ast_expr_equal(a->u.attr.obj, b->u.attr.obj);
    case AE_CALL:
      if (a->u.call.nargs != b->u.call.nargs || a->u.call.nkw != b->u.call.nkw) return false;
      if (!tl__ast_expr_equal(a->u.call.fn, b->u.call.fn)) return false;
      for (uint32_t i = 0; i < a->u.call.nargs; i++)
        if (!tl__ast_expr_equal(a->u.call.args[i], b->u.call.args[i])) return false;
      for (uint32_t i = 0; i < a->u.call.nkw; i++)
        if (strcmp(a->u.call.kwnames[i], b->u.call.kwnames[i]) != 0 ||
            !tl__ast_expr_equal(a->u.call.kwvals[i], b->u.call.kwvals[i]))
          return false;
      return true;
    case AE_SUBSCRIPT:
      return tl__ast_expr_equal(a->u.sub.obj, b->u.sub.obj) && tl__ast_expr_equal(a->u.sub.index, b->u.sub.index);
    case AE_SLICE:
      return tl__ast_expr_equal(a->u.slice.lo, b->u.slice.lo) && tl__ast_expr_equal(a->u.slice.hi, b->u.slice.hi) &&
             tl__ast_expr_equal(a->u.slice.step, b->u.slice.step);
    case AE_TUPLE: case AE_LIST:
      if (a->u.seq.n != b->u.seq.n) return false;
      for (uint32_t i = 0; i < a->u.seq.n; i++)
        if (!tl__ast_expr_equal(a->u.seq.items[i], b->u.seq.items[i])) return false;
      return true;
    case AE_DICT:
      if (a->u.dict.n != b->u.dict.n) return false;
      for (uint32_t i = 0; i < a->u.dict.n; i++)
        if (!tl__ast_expr_equal(a->u.dict.keys[i], b->u.dict.keys[i]) ||
            !tl__ast_expr_equal(a->u.dict.vals[i], b->u.dict.vals[i]))
          return false;
      return true;
    case AE_LAMBDA:
      if (a->u.lambda.n != b->u.lambda.n || !tl__ast_expr_equal(a->u.lambda.body, b->u.lambda.body)) return false;
      for (uint32_t i = 0; i < a->u.lambda.n; i++)
        if (strcmp(a->u.lambda.names[i], b->u.lambda.names[i]) != 0 ||
            !tl__ast_expr_equal(a->u.lambda.dflts[i], b->u.lambda.dflts[i]))
          return false;
      return true;
    case AE_BINOP: case AE_BOOLOP:
      return tl__ast_expr_equal(a->u.bin.a, b->u.bin.a) && tl__ast_expr_equal(a->u.bin.b, b->u.bin.b);
    case AE_UNOP: return tl__ast_expr_equal(a->u.un.a, b->u.un.a);
    case AE_COMPARE:
      if (a->u.cmp.n != b->u.cmp.n) return false;
      for (uint32_t i = 0; i < a->u.cmp.n; i++)
        if (a->u.cmp.ops[i] != b->u.cmp.ops[i]) return false;
      for (uint32_t i = 0; i <= a->u.cmp.n; i++)
        if (!tl__ast_expr_equal(a->u.cmp.operands[i], b->u.cmp.operands[i])) return false;
      return true;
    case AE_IFEXP:
      return tl__ast_expr_equal(a->u.ifexp.cond, b->u.ifexp.cond) && tl__ast_expr_equal(a->u.ifexp.t, b->u.ifexp.t) &&
             tl__ast_expr_equal(a->u.ifexp.f, b->u.ifexp.f);
    case AE_COMP:
      if (a->u.comp.n != b->u.comp.n || !tl__ast_expr_equal(a->u.comp.elt, b->u.comp.elt)) return false;
      for (uint32_t i = 0; i < a->u.comp.n; i++) {
        const tl__ast_comp_clause *x = &a->u.comp.clauses[i], *y = &b->u.comp.clauses[i];
        if (x->nconds != y->nconds || !tl__ast_expr_equal(x->target, y->target) || !tl__ast_expr_equal(x->iter, y->iter))
          return false;
        for (uint32_t k = 0; k < x->nconds; k++)
          if (!tl__ast_expr_equal(x->conds[k], y->conds[k])) return false;
      }
      return true;
  }
  return false;
}
