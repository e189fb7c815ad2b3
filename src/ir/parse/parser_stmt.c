/* The parser, statements: simple statements, if/for/with/def blocks, imports, and
 * the top level, where helper functions and the `if __name__ == "__main__":`
 * block are skipped token by token without being parsed (they hold ordinary
 * Python that the subset does not cover). */
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "parser.h"

static tl__ast_stmt *new_stmt(tl__parser *P, tl__ast_skind kind, const tl__tok *at) {
  tl__ast_stmt *s = tl__parse_alloc(P->p, sizeof *s);
  if (!s) return NULL;
  s->kind = (uint8_t)kind;
  s->line = at->line;
  s->col = at->col;
  return s;
}

static void *to_array(tl__parser *P, tl__vec *v) {
  if (v->len == 0) return NULL;
  void *a = tl__parse_alloc(P->p, v->len * v->elem);
  if (a) memcpy(a, v->data, v->len * v->elem);
  return a;
}

static bool push_stmt(tl__parser *P, tl__vec *out, tl__ast_stmt *s) {
  if (!s) return false;
  if (tl__vec_push(out, &s) != TL_OK) return tl__parse_oom(P->p), false;
  return true;
}

static bool parse_stmt(tl__parser *P, tl__vec *out);

/* Statements that are valid Python but outside the subset, with how to say so. */
static const struct { const char *kw, *msg; } UNSUPPORTED_STMTS[] = {
  {"class", "class definitions are not supported"},
  {"try", "'try' statements are not supported"},
  {"async", "'async' is not supported"},
  {"del", "'del' statements are not supported"},
  {"global", "'global' declarations are not supported"},
  {"nonlocal", "'nonlocal' declarations are not supported"},
  {"yield", "'yield' is not supported"},
  {"except", "invalid syntax: 'except' without 'try'"},
  {"finally", "invalid syntax: 'finally' without 'try'"},
  {"elif", "invalid syntax: 'elif' without 'if'"},
  {"else", "invalid syntax: 'else' without 'if'"},
};

/* The indented block (or same-line simple statements) after a header's ':'.
 * `what` names the header for "expected an indented block after ..." messages. */
static bool parse_block(tl__parser *P, const tl__tok *hdr, const char *what, tl__ast_block *out) {
  if (!tl__pexpect_op(P, ":")) return false;
  tl__vec stmts = TL__VEC_INIT(tl__ast_stmt *);
  bool ok = false;
  const tl__tok *t = tl__peek(P);
  if (t->kind != TK_NEWLINE) {
    ok = parse_stmt(P, &stmts); /* simple statements on the header's line */
  } else {
    tl__advance(P);
    if (tl__peek(P)->kind != TK_INDENT) {
      tl__perr_tok(P, tl__peek(P), "expected an indented block after %s on line %u", what, hdr->line);
      goto done;
    }
    if (++P->block_depth > TL__PARSE_MAX_BLOCK_DEPTH) {
      tl__perr_tok(P, tl__peek(P), "too many nested blocks");
      goto done;
    }
    tl__advance(P);
    ok = true;
    while (ok && tl__peek(P)->kind != TK_DEDENT && tl__peek(P)->kind != TK_EOF) ok = parse_stmt(P, &stmts);
    if (ok && tl__peek(P)->kind == TK_DEDENT) tl__advance(P);
    P->block_depth--;
  }
  if (ok) {
    out->n = (uint32_t)stmts.len;
    out->stmts = to_array(P, &stmts);
    ok = P->p->status == TL_OK;
  }
done:
  tl__vec_free(&stmts);
  return ok;
}

/* A dotted module name: a.b.c */
static const char *dotted_name(tl__parser *P) {
  const tl__tok *t = tl__peek(P);
  if (t->kind != TK_NAME || tl__tok_is_keyword(t)) {
    tl__perr_tok(P, t, "expected a module name, found %s", tl__tok_desc(P, t));
    return NULL;
  }
  size_t start = t->off, end = t->off + t->len;
  tl__advance(P);
  while (tl__tok_op(tl__peek(P), ".") && tl__peek_next(P)->kind == TK_NAME) {
    tl__advance(P);
    end = tl__peek(P)->off + tl__peek(P)->len;
    tl__advance(P);
  }
  /* Rebuild without whitespace: "a . b" is legal Python. */
  char *s = tl__parse_alloc(P->p, end - start + 1);
  if (!s) return NULL;
  size_t n = 0;
  for (size_t i = start; i < end; i++)
    if (P->p->src[i] != ' ' && P->p->src[i] != '\t') s[n++] = P->p->src[i];
  s[n] = '\0';
  return s;
}

static bool parse_alias(tl__parser *P, tl__ast_alias *a, bool dotted) {
  const tl__tok *t = tl__peek(P);
  a->line = t->line;
  a->col = t->col;
  if (dotted) {
    a->name = dotted_name(P);
  } else {
    if (t->kind != TK_NAME || tl__tok_is_keyword(t)) {
      tl__perr_tok(P, t, "expected a name to import, found %s", tl__tok_desc(P, t));
      return false;
    }
    a->name = t->s;
    tl__advance(P);
  }
  if (!a->name) return false;
  a->asname = NULL;
  if (tl__tok_kw(tl__peek(P), "as")) {
    tl__advance(P);
    const tl__tok *n = tl__peek(P);
    if (n->kind != TK_NAME || tl__tok_is_keyword(n)) {
      tl__perr_tok(P, n, "expected a name after 'as', found %s", tl__tok_desc(P, n));
      return false;
    }
    a->asname = n->s;
    tl__advance(P);
  }
  return true;
}

static tl__ast_stmt *parse_import(tl__parser *P) {
  const tl__tok *kw = tl__peek(P);
  bool from = tl__tok_kw(kw, "from");
  tl__advance(P);
  tl__ast_stmt *s = new_stmt(P, from ? AS_FROM : AS_IMPORT, kw);
  if (!s) return NULL;
  tl__vec names = TL__VEC_INIT(tl__ast_alias);
  tl__ast_stmt *result = NULL;
  if (from) {
    /* Relative (from .x import y, from .. import z): the dots lead the name. */
    size_t dots = 0;
    while (tl__tok_op(tl__peek(P), ".") || tl__tok_op(tl__peek(P), "...")) {
      dots += tl__tok_op(tl__peek(P), ".") ? 1 : 3;
      tl__advance(P);
    }
    const char *name = dots && tl__tok_kw(tl__peek(P), "import") ? "" : dotted_name(P);
    if (!name) goto done;
    if (dots) {
      char *m = tl__parse_alloc(P->p, dots + strlen(name) + 1);
      if (!m) goto done;
      memset(m, '.', dots);
      strcpy(m + dots, name);
      name = m;
    }
    s->u.from.module = name;
    if (!tl__tok_kw(tl__peek(P), "import")) {
      tl__perr_tok(P, tl__peek(P), "expected 'import', found %s", tl__tok_desc(P, tl__peek(P)));
      goto done;
    }
    tl__advance(P);
    if (tl__tok_op(tl__peek(P), "*")) {
      tl__advance(P);
      s->u.from.star = true;
      result = s;
      goto done;
    }
    bool paren = tl__tok_op(tl__peek(P), "(");
    if (paren) tl__advance(P);
    for (;;) {
      tl__ast_alias a;
      if (!parse_alias(P, &a, false)) goto done;
      if (tl__vec_push(&names, &a) != TL_OK) {
        tl__parse_oom(P->p);
        goto done;
      }
      if (!tl__tok_op(tl__peek(P), ",")) break;
      tl__advance(P);
      if (paren && tl__tok_op(tl__peek(P), ")")) break;
    }
    if (paren && !tl__pexpect_op(P, ")")) goto done;
    s->u.from.n = (uint32_t)names.len;
    s->u.from.names = to_array(P, &names);
  } else {
    for (;;) {
      tl__ast_alias a;
      if (!parse_alias(P, &a, true)) goto done;
      if (tl__vec_push(&names, &a) != TL_OK) {
        tl__parse_oom(P->p);
        goto done;
      }
      if (!tl__tok_op(tl__peek(P), ",")) break;
      tl__advance(P);
    }
    s->u.import.n = (uint32_t)names.len;
    s->u.import.names = to_array(P, &names);
  }
  if (P->p->status == TL_OK) result = s;
done:
  tl__vec_free(&names);
  return result;
}

static bool aug_op(const tl__tok *t, tl__ast_op *op) {
  static const struct { const char *s; tl__ast_op op; } ops[] = {
    {"+=", AOP_ADD}, {"-=", AOP_SUB}, {"*=", AOP_MUL}, {"/=", AOP_DIV}, {"//=", AOP_FLOORDIV},
    {"%=", AOP_MOD}, {"**=", AOP_POW}, {"<<=", AOP_LSHIFT}, {">>=", AOP_RSHIFT}, {"&=", AOP_BITAND},
    {"|=", AOP_BITOR}, {"^=", AOP_BITXOR},
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (tl__tok_op(t, ops[i].s)) {
      *op = ops[i].op;
      return true;
    }
  return false;
}

/* Checks that an expression can be assigned to (names, subscripts, attributes, and
 * tuples of those), as Python's grammar does. */
static bool check_target(tl__parser *P, const tl__ast_expr *e, bool allow_tuple) {
  switch (e->kind) {
    case AE_NAME: case AE_SUBSCRIPT: case AE_ATTR: return true;
    case AE_TUPLE: case AE_LIST:
      if (!allow_tuple) break;
      for (uint32_t i = 0; i < e->u.seq.n; i++)
        if (!check_target(P, e->u.seq.items[i], true)) return false;
      return true;
    default: break;
  }
  tl__parse_error(P->p, e->line, e->col, "cannot assign to this expression");
  return false;
}

/* True if e holds a call (evaluating it twice could do its work twice: T.alloc_*). */
static bool has_call(const tl__ast_expr *e) {
  if (!e) return false;
  switch ((tl__ast_ekind)e->kind) {
    case AE_CALL: return true;
    case AE_ATTR: return has_call(e->u.attr.obj);
    case AE_SUBSCRIPT: return has_call(e->u.sub.obj) || has_call(e->u.sub.index);
    case AE_SLICE: return has_call(e->u.slice.lo) || has_call(e->u.slice.hi) || has_call(e->u.slice.step);
    case AE_TUPLE: case AE_LIST:
      for (uint32_t i = 0; i < e->u.seq.n; i++)
        if (has_call(e->u.seq.items[i])) return true;
      return false;
    case AE_BINOP: case AE_BOOLOP: return has_call(e->u.bin.a) || has_call(e->u.bin.b);
    case AE_UNOP: return has_call(e->u.un.a);
    case AE_COMPARE:
      for (uint32_t i = 0; i <= e->u.cmp.n; i++)
        if (has_call(e->u.cmp.operands[i])) return true;
      return false;
    case AE_IFEXP: return has_call(e->u.ifexp.cond) || has_call(e->u.ifexp.t) || has_call(e->u.ifexp.f);
    default: return true; /* anything else: do not duplicate it */
  }
}

/* `t0 = t1 = ... = value` (first has been parsed as t0 = v1 and the next token is
 * '='): Python assigns the value to t0, t1, ... in order. Each target becomes an
 * assignment of its own; after the first, the value is the first target when that
 * is a name and the value has calls (so T.alloc_shared runs once), else the value
 * again (so --param overrides of module constants stay per name). */
static bool parse_chain(tl__parser *P, const tl__tok *start, tl__ast_stmt *first, tl__vec *out) {
  tl__vec targets = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_expr *value = first->u.assign.value;
  bool ok = false;
  while (tl__tok_op(tl__peek(P), "=")) {
    if (!check_target(P, value, true)) goto done;
    if (tl__vec_push(&targets, &value) != TL_OK) {
      tl__parse_oom(P->p);
      goto done;
    }
    tl__advance(P);
    if (!(value = tl__parse_testlist(P))) goto done;
  }
  first->u.assign.value = value;
  if (!push_stmt(P, out, first)) goto done;
  tl__ast_expr *copy = first->u.assign.target->kind == AE_NAME && has_call(value) ? first->u.assign.target : value;
  for (size_t i = 0; i < targets.len; i++) {
    tl__ast_stmt *s = new_stmt(P, AS_ASSIGN, start);
    if (!s) goto done;
    s->u.assign.target = TL__VEC_AT(&targets, tl__ast_expr *, i);
    s->u.assign.value = copy;
    if (!push_stmt(P, out, s)) goto done;
  }
  ok = true;
done:
  tl__vec_free(&targets);
  return ok;
}

static tl__ast_stmt *parse_small_stmt(tl__parser *P, tl__vec *out, bool *pushed) {
  const tl__tok *t = tl__peek(P);
  if (t->kind == TK_NAME) {
    for (size_t i = 0; i < sizeof UNSUPPORTED_STMTS / sizeof UNSUPPORTED_STMTS[0]; i++)
      if (tl__tok_kw(t, UNSUPPORTED_STMTS[i].kw)) {
        tl__perr_unsupported(P, t, "%s", UNSUPPORTED_STMTS[i].msg);
        return NULL;
      }
    if (tl__tok_kw(t, "pass")) {
      tl__advance(P);
      return new_stmt(P, AS_PASS, t);
    }
    if (tl__tok_kw(t, "break") || tl__tok_kw(t, "continue")) {
      bool brk = tl__tok_kw(t, "break");
      if (P->loop_depth == 0) {
        tl__perr_tok(P, t, brk ? "'break' outside loop" : "'continue' not properly in loop");
        return NULL;
      }
      tl__advance(P);
      return new_stmt(P, brk ? AS_BREAK : AS_CONTINUE, t);
    }
    if (tl__tok_kw(t, "return")) {
      tl__advance(P);
      tl__ast_stmt *s = new_stmt(P, AS_RETURN, t);
      if (!s) return NULL;
      const tl__tok *n = tl__peek(P);
      if (n->kind != TK_NEWLINE && !tl__tok_op(n, ";")) {
        s->u.ret.value = tl__parse_testlist(P);
        if (!s->u.ret.value) return NULL;
      }
      return s;
    }
    if (tl__tok_kw(t, "raise")) { /* raise [exc [from cause]]: an error where it runs */
      tl__advance(P);
      tl__ast_stmt *s = new_stmt(P, AS_RAISE, t);
      if (!s) return NULL;
      const tl__tok *n = tl__peek(P);
      if (n->kind != TK_NEWLINE && !tl__tok_op(n, ";") && n->kind != TK_EOF) {
        if (!(s->u.ret.value = tl__parse_test(P))) return NULL;
        if (tl__tok_kw(tl__peek(P), "from")) {
          tl__advance(P);
          if (!tl__parse_test(P)) return NULL;
        }
      }
      return s;
    }
    if (tl__tok_kw(t, "import") || tl__tok_kw(t, "from")) return parse_import(P);
    if (tl__tok_kw(t, "assert")) {
      tl__advance(P);
      tl__ast_stmt *s = new_stmt(P, AS_ASSERT, t);
      if (!s || !(s->u.assert_.test = tl__parse_test(P))) return NULL;
      if (tl__tok_op(tl__peek(P), ",")) {
        tl__advance(P);
        if (!(s->u.assert_.msg = tl__parse_test(P))) return NULL;
      }
      return s;
    }
  }
  tl__ast_expr *lhs = tl__parse_testlist(P);
  if (!lhs) return NULL;
  const tl__tok *n = tl__peek(P);
  tl__ast_op op;
  if (tl__tok_op(n, "=")) {
    if (!check_target(P, lhs, true)) return NULL;
    tl__advance(P);
    tl__ast_stmt *s = new_stmt(P, AS_ASSIGN, t);
    if (!s) return NULL;
    s->u.assign.target = lhs;
    s->u.assign.value = tl__parse_testlist(P);
    if (!s->u.assign.value) return NULL;
    if (tl__tok_op(tl__peek(P), "=")) {
      *pushed = true;
      return parse_chain(P, t, s, out) ? s : NULL;
    }
    return s;
  }
  if (tl__tok_op(n, ":")) {
    if (lhs->kind == AE_TUPLE) {
      tl__parse_error(P->p, lhs->line, lhs->col, "only single target (not tuple) can be annotated");
      return NULL;
    }
    if (!check_target(P, lhs, false)) return NULL;
    tl__advance(P);
    tl__ast_stmt *s = new_stmt(P, AS_ANNASSIGN, t);
    if (!s) return NULL;
    s->u.assign.target = lhs;
    s->u.assign.ann = tl__parse_test(P);
    if (!s->u.assign.ann) return NULL;
    if (tl__tok_op(tl__peek(P), "=")) {
      tl__advance(P);
      s->u.assign.value = tl__parse_testlist(P);
      if (!s->u.assign.value) return NULL;
    }
    return s;
  }
  if (aug_op(n, &op)) {
    if (lhs->kind == AE_TUPLE || lhs->kind == AE_LIST) {
      tl__parse_error(P->p, lhs->line, lhs->col, "illegal expression for augmented assignment");
      return NULL;
    }
    if (!check_target(P, lhs, false)) return NULL;
    tl__advance(P);
    tl__ast_stmt *s = new_stmt(P, AS_AUGASSIGN, t);
    if (!s) return NULL;
    s->op = (uint8_t)op;
    s->u.assign.target = lhs;
    s->u.assign.value = tl__parse_testlist(P);
    return s->u.assign.value ? s : NULL;
  }
  tl__ast_stmt *s = new_stmt(P, AS_EXPR, t);
  if (!s) return NULL;
  s->u.expr.e = lhs;
  return s;
}

/* simple_stmt (';' simple_stmt)* [';'] NEWLINE */
static bool parse_simple_stmts(tl__parser *P, tl__vec *out) {
  for (;;) {
    bool pushed = false;
    tl__ast_stmt *s = parse_small_stmt(P, out, &pushed);
    if (!s || (!pushed && !push_stmt(P, out, s))) return false;
    if (!tl__tok_op(tl__peek(P), ";")) break;
    tl__advance(P);
    if (tl__peek(P)->kind == TK_NEWLINE) break;
  }
  const tl__tok *t = tl__peek(P);
  if (t->kind == TK_NEWLINE) {
    tl__advance(P);
    return true;
  }
  if (t->kind == TK_EOF) return true;
  tl__perr_tok(P, t, "invalid syntax: unexpected %s", tl__tok_desc(P, t));
  return false;
}

static tl__ast_stmt *parse_if(tl__parser *P) {
  const tl__tok *kw = tl__peek(P);
  tl__advance(P);
  tl__ast_stmt *s = new_stmt(P, AS_IF, kw);
  if (!s) return NULL;
  s->u.if_.cond = tl__parse_test(P);
  if (!s->u.if_.cond) return NULL;
  if (!parse_block(P, kw, tl__tok_kw(kw, "if") ? "'if' statement" : "'elif' statement", &s->u.if_.body)) return NULL;
  const tl__tok *n = tl__peek(P);
  if (tl__tok_kw(n, "elif")) {
    tl__ast_stmt *e = parse_if(P);
    if (!e) return NULL;
    tl__ast_stmt **one = tl__parse_alloc(P->p, sizeof *one);
    if (!one) return NULL;
    one[0] = e;
    s->u.if_.orelse.n = 1;
    s->u.if_.orelse.stmts = one;
  } else if (tl__tok_kw(n, "else")) {
    tl__advance(P);
    if (!parse_block(P, n, "'else' statement", &s->u.if_.orelse)) return NULL;
  }
  return s;
}

static tl__ast_stmt *parse_for(tl__parser *P) {
  const tl__tok *kw = tl__peek(P);
  tl__advance(P);
  tl__ast_stmt *s = new_stmt(P, AS_FOR, kw);
  if (!s) return NULL;
  s->u.for_.target = tl__parse_targetlist(P);
  if (!s->u.for_.target) return NULL;
  if (!check_target(P, s->u.for_.target, true)) return NULL;
  const tl__tok *in = tl__peek(P);
  if (!tl__tok_kw(in, "in")) {
    tl__perr_tok(P, in, "expected 'in' after the loop variables, found %s", tl__tok_desc(P, in));
    return NULL;
  }
  tl__advance(P);
  s->u.for_.iter = tl__parse_testlist(P);
  if (!s->u.for_.iter) return NULL;
  P->loop_depth++;
  bool body_ok = parse_block(P, kw, "'for' statement", &s->u.for_.body);
  P->loop_depth--;
  if (!body_ok) return NULL;
  if (tl__tok_kw(tl__peek(P), "else")) {
    tl__perr_unsupported(P, tl__peek(P), "'for ... else' is not supported");
    return NULL;
  }
  return s;
}

/* while cond: body (the body counts as a loop for break/continue). */
static tl__ast_stmt *parse_while(tl__parser *P) {
  const tl__tok *kw = tl__peek(P);
  tl__advance(P);
  tl__ast_stmt *s = new_stmt(P, AS_WHILE, kw);
  if (!s || !(s->u.if_.cond = tl__parse_test(P))) return NULL;
  P->loop_depth++;
  bool ok = parse_block(P, kw, "'while' statement", &s->u.if_.body);
  P->loop_depth--;
  if (!ok) return NULL;
  if (tl__tok_kw(tl__peek(P), "else")) {
    tl__perr_unsupported(P, tl__peek(P), "'while ... else' is not supported");
    return NULL;
  }
  return s;
}

static tl__ast_stmt *parse_with(tl__parser *P) {
  const tl__tok *kw = tl__peek(P);
  tl__advance(P);
  tl__ast_stmt *s = new_stmt(P, AS_WITH, kw);
  if (!s) return NULL;
  s->u.with.ctx = tl__parse_test(P);
  if (!s->u.with.ctx) return NULL;
  if (tl__tok_kw(tl__peek(P), "as")) {
    tl__advance(P);
    s->u.with.target = tl__parse_target(P);
    if (!s->u.with.target || !check_target(P, s->u.with.target, true)) return NULL;
  }
  if (tl__tok_op(tl__peek(P), ",")) {
    tl__perr_unsupported(P, tl__peek(P), "several context managers in one 'with' are not supported");
    return NULL;
  }
  if (!parse_block(P, kw, "'with' statement", &s->u.with.body)) return NULL;
  return s;
}

static bool parse_params(tl__parser *P, tl__ast_stmt *s) {
  tl__vec params = TL__VEC_INIT(tl__ast_param);
  bool ok = false, seen_default = false, kwonly = false, seen_varkw = false;
  if (!tl__pexpect_op(P, "(")) goto done;
  while (!tl__tok_op(tl__peek(P), ")")) {
    const tl__tok *t = tl__peek(P);
    uint8_t star = TL__PARAM_PLAIN;
    if (seen_varkw) {
      tl__perr_tok(P, t, "invalid syntax: arguments cannot follow var-keyword argument");
      goto done;
    }
    if (tl__tok_op(t, "/")) { /* positional-only marker: the parameters before it are plain */
      tl__advance(P);
      if (!tl__tok_op(tl__peek(P), ",")) break;
      tl__advance(P);
      continue;
    }
    if (tl__tok_op(t, "*") || tl__tok_op(t, "**")) {
      star = tl__tok_op(t, "*") ? TL__PARAM_VARARGS : TL__PARAM_VARKW;
      tl__advance(P);
      if (star == TL__PARAM_VARARGS && kwonly) {
        tl__perr_tok(P, t, "invalid syntax: * argument may appear only once");
        goto done;
      }
      if (star == TL__PARAM_VARARGS && (tl__tok_op(tl__peek(P), ",") || tl__tok_op(tl__peek(P), ")"))) {
        kwonly = true; /* a bare '*': what follows is keyword-only */
        if (!tl__tok_op(tl__peek(P), ",")) break;
        tl__advance(P);
        continue;
      }
      t = tl__peek(P);
    }
    if (t->kind != TK_NAME || tl__tok_is_keyword(t)) {
      tl__perr_tok(P, t, "expected a parameter name, found %s", tl__tok_desc(P, t));
      goto done;
    }
    for (size_t i = 0; i < params.len; i++)
      if (strcmp(TL__VEC_AT(&params, tl__ast_param, i).name, t->s) == 0) {
        tl__perr_tok(P, t, "duplicate argument '%s' in function definition", t->s);
        goto done;
      }
    tl__ast_param prm = {t->s, t->line, t->col, NULL, NULL, star, kwonly && star == TL__PARAM_PLAIN};
    tl__advance(P);
    if (tl__tok_op(tl__peek(P), ":")) {
      tl__advance(P);
      prm.ann = tl__parse_test(P);
      if (!prm.ann) goto done;
    }
    if (tl__tok_op(tl__peek(P), "=")) {
      if (star != TL__PARAM_PLAIN) {
        tl__perr_tok(P, tl__peek(P), "invalid syntax: var-positional or var-keyword argument cannot have default value");
        goto done;
      }
      tl__advance(P);
      prm.dflt = tl__parse_test(P);
      if (!prm.dflt) goto done;
      if (!kwonly) seen_default = true;
    } else if (seen_default && !kwonly && star == TL__PARAM_PLAIN) {
      tl__perr_tok(P, t, "parameter without a default follows parameter with a default");
      goto done;
    }
    if (star == TL__PARAM_VARARGS) kwonly = true;
    if (star == TL__PARAM_VARKW) seen_varkw = true;
    if (tl__vec_push(&params, &prm) != TL_OK) {
      tl__parse_oom(P->p);
      goto done;
    }
    if (!tl__tok_op(tl__peek(P), ",")) break;
    tl__advance(P);
  }
  if (!tl__pexpect_op(P, ")")) goto done;
  s->u.def.nparams = (uint32_t)params.len;
  s->u.def.params = to_array(P, &params);
  ok = P->p->status == TL_OK;
done:
  tl__vec_free(&params);
  return ok;
}

/* decorators* 'def' NAME '(' params ')' ['->' test] ':' block */
static tl__ast_stmt *parse_def(tl__parser *P) {
  const tl__tok *start = tl__peek(P);
  tl__vec decos = TL__VEC_INIT(tl__ast_expr *);
  tl__ast_stmt *result = NULL;
  while (tl__tok_op(tl__peek(P), "@")) {
    tl__advance(P);
    tl__ast_expr *d = tl__parse_test(P);
    if (!d) goto done;
    if (tl__peek(P)->kind != TK_NEWLINE) {
      tl__perr_tok(P, tl__peek(P), "expected the end of the line after a decorator, found %s", tl__tok_desc(P, tl__peek(P)));
      goto done;
    }
    tl__advance(P);
    if (tl__vec_push(&decos, &d) != TL_OK) {
      tl__parse_oom(P->p);
      goto done;
    }
  }
  const tl__tok *kw = tl__peek(P);
  if (tl__tok_kw(kw, "class")) {
    tl__perr_unsupported(P, kw, "class definitions are not supported");
    goto done;
  }
  if (!tl__tok_kw(kw, "def")) {
    tl__perr_tok(P, kw, "expected 'def' after decorators, found %s", tl__tok_desc(P, kw));
    goto done;
  }
  tl__advance(P);
  const tl__tok *name = tl__peek(P);
  if (name->kind != TK_NAME || tl__tok_is_keyword(name)) {
    tl__perr_tok(P, name, "expected a function name, found %s", tl__tok_desc(P, name));
    goto done;
  }
  tl__advance(P);
  tl__ast_stmt *s = new_stmt(P, AS_DEF, decos.len ? start : kw);
  if (!s) goto done;
  s->u.def.name = name->s;
  if (!parse_params(P, s)) goto done;
  if (tl__tok_op(tl__peek(P), "->")) {
    tl__advance(P);
    if (!tl__parse_test(P)) goto done; /* a return annotation is allowed and ignored */
  }
  s->u.def.ndeco = (uint32_t)decos.len;
  s->u.def.decos = to_array(P, &decos);
  int loops = P->loop_depth;
  P->loop_depth = 0; /* a loop outside the function does not hold its break */
  bool body_ok = parse_block(P, kw, "function definition", &s->u.def.body);
  P->loop_depth = loops;
  if (!body_ok) goto done;
  if (P->p->status == TL_OK) result = s;
done:
  tl__vec_free(&decos);
  return result;
}

static bool parse_def_stmt(tl__parser *P, tl__vec *out) { return push_stmt(P, out, parse_def(P)); }

static bool parse_stmt(tl__parser *P, tl__vec *out) {
  const tl__tok *t = tl__peek(P);
  if (t->kind == TK_INDENT) {
    tl__perr_tok(P, t, "unexpected indent");
    return false;
  }
  if (tl__tok_kw(t, "if")) return push_stmt(P, out, parse_if(P));
  if (tl__tok_kw(t, "for")) return push_stmt(P, out, parse_for(P));
  if (tl__tok_kw(t, "while")) return push_stmt(P, out, parse_while(P));
  if (tl__tok_kw(t, "with")) return push_stmt(P, out, parse_with(P));
  if (tl__tok_kw(t, "def") || tl__tok_op(t, "@")) return push_stmt(P, out, parse_def(P));
  return parse_simple_stmts(P, out);
}

/* ------------------------------------------------------------------ top level */

/* Index just past the compound statement whose header starts at token i: past its
 * indented block, or past the NEWLINE of a same-line body. */
static size_t skip_compound(const tl__parser *P, size_t i) {
  int depth = 0;
  for (; i < P->n && P->t[i].kind != TK_EOF; i++) {
    const tl__tok *t = &P->t[i];
    if (t->kind != TK_OP) continue;
    if (tl__tok_op(t, "(") || tl__tok_op(t, "[") || tl__tok_op(t, "{")) depth++;
    else if (tl__tok_op(t, ")") || tl__tok_op(t, "]") || tl__tok_op(t, "}")) depth--;
    else if (depth == 0 && tl__tok_op(t, ":")) break;
  }
  if (i >= P->n || P->t[i].kind == TK_EOF) return i;
  i++;
  if (P->t[i].kind != TK_NEWLINE) {
    while (i < P->n && P->t[i].kind != TK_NEWLINE && P->t[i].kind != TK_EOF) i++;
    return i < P->n && P->t[i].kind == TK_NEWLINE ? i + 1 : i;
  }
  i++;
  if (P->t[i].kind != TK_INDENT) return i; /* the parser reports the missing block */
  int level = 0;
  for (; i < P->n && P->t[i].kind != TK_EOF; i++) {
    if (P->t[i].kind == TK_INDENT) level++;
    else if (P->t[i].kind == TK_DEDENT && --level == 0) return i + 1;
  }
  return i;
}

/* `if __name__ == "__main__":` */
static bool is_main_guard(const tl__parser *P) {
  size_t i = P->i;
  if (i + 4 >= P->n) return false;
  const tl__tok *t = &P->t[i];
  return tl__tok_kw(&t[0], "if") && t[1].kind == TK_NAME && strcmp(t[1].s, "__name__") == 0 &&
         tl__tok_op(&t[2], "==") && t[3].kind == TK_STRING && strcmp(t[3].s, "__main__") == 0 &&
         tl__tok_op(&t[4], ":");
}

/* True if tokens [from, to) hold a decorator line whose dotted name ends in
 * prim_func (or jit when `jit` is set): @T.prim_func, @tilelang.jit(...), @jit. */
static bool has_decorator(const tl__parser *P, size_t from, size_t to, bool jit) {
  for (size_t i = from; i < to; i++) {
    if (!tl__tok_op(&P->t[i], "@")) continue;
    if (i > 0 && P->t[i - 1].kind != TK_NEWLINE && P->t[i - 1].kind != TK_INDENT && P->t[i - 1].kind != TK_DEDENT)
      continue; /* the matrix-multiplication operator */
    const tl__tok *last = NULL;
    size_t j = i + 1;
    while (j < to && P->t[j].kind == TK_NAME) {
      last = &P->t[j++];
      if (j < to && tl__tok_op(&P->t[j], ".")) j++;
      else break;
    }
    if (last && (strcmp(last->s, "prim_func") == 0 || (jit && strcmp(last->s, "jit") == 0))) return true;
  }
  return false;
}

/* A top-level function (with its decorators, starting at P->i) is read when it is a
 * kernel (decorated with prim_func or jit) or a factory (its body holds a
 * @prim_func); otherwise it is a helper and skipped. Sets *end past it. */
static bool top_def_is_kernel(const tl__parser *P, size_t *end, size_t *name_at) {
  size_t i = P->i;
  while (i < P->n && tl__tok_op(&P->t[i], "@")) {
    while (i < P->n && P->t[i].kind != TK_NEWLINE && P->t[i].kind != TK_EOF) i++;
    if (i < P->n && P->t[i].kind == TK_NEWLINE) i++;
  }
  size_t def_at = i;
  *name_at = def_at + 1 < P->n ? def_at + 1 : def_at;
  if (def_at >= P->n || !tl__tok_kw(&P->t[def_at], "def")) return true; /* let the parser report it */
  *end = skip_compound(P, def_at);
  if (has_decorator(P, P->i, def_at, true)) return true;
  return has_decorator(P, def_at, *end, false);
}

/* ------------------------------------------------------------------ unread statements */

static bool is_line_start(const tl__parser *P, size_t i, size_t from) {
  if (i == from) return true;
  uint8_t k = P->t[i - 1].kind;
  return k == TK_NEWLINE || k == TK_INDENT || k == TK_DEDENT;
}

static bool is_clause_kw(const tl__tok *t) {
  return tl__tok_kw(t, "elif") || tl__tok_kw(t, "else") || tl__tok_kw(t, "except") || tl__tok_kw(t, "finally");
}

static bool is_compound_kw(const tl__tok *t) {
  static const char *const kws[] = {"if", "for", "while", "with", "try", "class", "def", "async", "match"};
  for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
    if (tl__tok_kw(t, kws[i])) return true;
  return false;
}

/* Index past the end of the line holding token i (past its NEWLINE). */
static size_t skip_line(const tl__parser *P, size_t i) {
  while (i < P->n && P->t[i].kind != TK_NEWLINE && P->t[i].kind != TK_EOF) i++;
  return i < P->n && P->t[i].kind == TK_NEWLINE ? i + 1 : i;
}

/* Index just past the statement starting at token i: decorators and the
 * definition, a compound statement with its elif/else/except/finally clauses,
 * or a simple statement's line. */
static size_t skip_statement(const tl__parser *P, size_t i) {
  while (i < P->n && tl__tok_op(&P->t[i], "@")) i = skip_line(P, i);
  if (i >= P->n || !is_compound_kw(&P->t[i])) return skip_line(P, i);
  i = skip_compound(P, i);
  while (i < P->n && is_clause_kw(&P->t[i])) i = skip_compound(P, i);
  return i;
}

static bool push_name(tl__parser *P, tl__vec *names, const tl__tok *t) {
  if (t->kind != TK_NAME || tl__tok_is_keyword(t)) return true;
  for (size_t i = 0; i < names->len; i++)
    if (strcmp(TL__VEC_AT(names, const char *, i), t->s) == 0) return true;
  if (tl__vec_push(names, &t->s) != TL_OK) return tl__parse_oom(P->p), false;
  return true;
}

/* The names bound by `import a.b as c, d` / `from m import (x as y, z)` at i. */
static bool import_names(tl__parser *P, size_t i, size_t end, tl__vec *names) {
  bool from = tl__tok_kw(&P->t[i], "from");
  if (from) {
    while (i < end && !tl__tok_kw(&P->t[i], "import")) i++;
  }
  i++;
  bool first = true; /* at the start of an item */
  for (; i < end && P->t[i].kind != TK_NEWLINE; i++) {
    const tl__tok *t = &P->t[i];
    if (tl__tok_op(t, ",")) {
      first = true;
      continue;
    }
    if (t->kind != TK_NAME) continue;
    bool aliased = i + 2 < end && tl__tok_kw(&P->t[i + 1], "as");
    if (tl__tok_kw(t, "as")) {
      if (!push_name(P, names, &P->t[i + 1])) return false;
      i++;
    } else if (first && !aliased) {
      /* `import a.b` binds a; `from m import x` binds x */
      if (!push_name(P, names, t)) return false;
    }
    first = false;
  }
  return true;
}

/* Assignment targets of a simple statement in [i, end): NAMEs before a top-level
 * '=' (or an annotation ':' / an augmented operator right after the first name). */
static bool target_names(tl__parser *P, size_t i, size_t end, tl__vec *names) {
  const tl__tok *t0 = &P->t[i];
  tl__ast_op aop;
  if (t0->kind == TK_NAME && i + 1 < end && (tl__tok_op(&P->t[i + 1], ":") || aug_op(&P->t[i + 1], &aop)))
    return push_name(P, names, t0);
  size_t seg = i;
  int depth = 0;
  for (size_t j = i; j < end && P->t[j].kind != TK_NEWLINE; j++) {
    const tl__tok *t = &P->t[j];
    if (t->kind != TK_OP) continue;
    if (tl__tok_op(t, "(") || tl__tok_op(t, "[") || tl__tok_op(t, "{")) depth++;
    else if (tl__tok_op(t, ")") || tl__tok_op(t, "]") || tl__tok_op(t, "}")) depth--;
    else if (depth == 0 && tl__tok_op(t, "=")) {
      for (size_t k = seg; k < j; k++) {
        const tl__tok *prev = k > seg ? &P->t[k - 1] : NULL, *next = &P->t[k + 1];
        bool starts = !prev || tl__tok_op(prev, ",") || tl__tok_op(prev, "(") || tl__tok_op(prev, "[") ||
                      tl__tok_op(prev, "*");
        bool ends = tl__tok_op(next, ",") || tl__tok_op(next, "=") || tl__tok_op(next, ")") || tl__tok_op(next, "]");
        if (P->t[k].kind == TK_NAME && starts && ends && !push_name(P, names, &P->t[k])) return false;
      }
      seg = j + 1;
    }
  }
  return true;
}

/* Every name the statements in [from, to) may bind at their own level: assignment
 * targets, imports, loop and `with ... as` targets, `except ... as`, and the names
 * of classes and functions (whose bodies are not looked into). */
static bool bound_names(tl__parser *P, size_t from, size_t to, tl__vec *names) {
  int depth = 0;
  for (size_t i = from; i < to && P->p->status == TL_OK; i++) {
    const tl__tok *t = &P->t[i];
    if (t->kind == TK_OP) {
      if (tl__tok_op(t, "(") || tl__tok_op(t, "[") || tl__tok_op(t, "{")) depth++;
      else if (tl__tok_op(t, ")") || tl__tok_op(t, "]") || tl__tok_op(t, "}")) depth--;
    }
    if (depth != 0 || !is_line_start(P, i, from)) {
      if (tl__tok_kw(t, "as") && depth == 0 && !push_name(P, names, &P->t[i + 1])) return false;
      continue;
    }
    if (tl__tok_op(t, "@")) {
      i = skip_line(P, i) - 1;
    } else if (tl__tok_kw(t, "class") || tl__tok_kw(t, "def") || (tl__tok_kw(t, "async") && tl__tok_kw(&P->t[i + 1], "def"))) {
      const tl__tok *nm = &P->t[i + (tl__tok_kw(t, "async") ? 2 : 1)];
      if (!push_name(P, names, nm)) return false;
      i = skip_compound(P, i) - 1;
    } else if (tl__tok_kw(t, "import") || tl__tok_kw(t, "from")) {
      if (!import_names(P, i, to, names)) return false;
      i = skip_line(P, i) - 1;
    } else if (tl__tok_kw(t, "for")) {
      for (size_t j = i + 1; j < to && !tl__tok_kw(&P->t[j], "in"); j++)
        if (!push_name(P, names, &P->t[j])) return false;
    } else if (t->kind == TK_NAME && !is_compound_kw(t) && !is_clause_kw(t)) {
      if (!target_names(P, i, to, names)) return false;
      i = skip_line(P, i) - 1;
    }
  }
  return true;
}

/* The decorators' dotted names (@a.b.c(...) gives a.b.c) of the definition at i. */
static bool decorator_names(tl__parser *P, size_t i, tl__vec *decos) {
  while (i < P->n && tl__tok_op(&P->t[i], "@")) {
    size_t j = i + 1;
    tl__ast_expr *e = NULL;
    while (j < P->n && P->t[j].kind == TK_NAME && !tl__tok_is_keyword(&P->t[j])) {
      const tl__tok *nm = &P->t[j];
      tl__ast_expr *x = tl__ast_new_expr(P, e ? AE_ATTR : AE_NAME, nm);
      if (!x) return false;
      if (e) {
        x->line = e->line;
        x->col = e->col;
        x->u.attr.obj = e;
        x->u.attr.name = nm->s;
      } else {
        x->u.name = nm->s;
      }
      e = x;
      j++;
      if (j < P->n && tl__tok_op(&P->t[j], ".")) j++;
      else break;
    }
    if (e && tl__vec_push(decos, &e) != TL_OK) return tl__parse_oom(P->p), false;
    i = skip_line(P, i);
  }
  return true;
}

/* The statement at token `start` stopped the parser with an error about Python
 * outside the subset: keep it unread instead (AS_OPAQUE, or a deferred AS_DEF for
 * a kernel-like definition) and go on after it. */
static bool defer_statement(tl__parser *P, size_t start, bool kernel_def, tl__vec *out) {
  const char *full = tl__arena_strdup(&P->p->arena, tl_last_error());
  if (!full) return tl__parse_oom(P->p), false;
  P->p->status = TL_OK;
  P->p->outside_subset = false;
  P->depth = 0;
  P->block_depth = 0;
  P->loop_depth = 0;
  size_t end = skip_statement(P, start);
  const tl__tok *at = &P->t[start];
  tl__vec names = TL__VEC_INIT(const char *);
  tl__vec decos = TL__VEC_INIT(tl__ast_expr *);
  bool ok = false;
  if (kernel_def) {
    size_t def_at = start;
    while (def_at < end && tl__tok_op(&P->t[def_at], "@")) def_at = skip_line(P, def_at);
    tl__ast_stmt *s = new_stmt(P, AS_DEF, at);
    if (!s || !decorator_names(P, start, &decos)) goto done;
    s->u.def.skipped = true;
    s->u.def.deferred = full;
    s->u.def.name = def_at + 1 < P->n && P->t[def_at + 1].kind == TK_NAME ? P->t[def_at + 1].s : "?";
    s->u.def.nested_kernel = has_decorator(P, def_at, end, false);
    s->u.def.ndeco = (uint32_t)decos.len;
    s->u.def.decos = to_array(P, &decos);
    if (!push_stmt(P, out, s)) goto done;
  } else {
    tl__ast_stmt *s = new_stmt(P, AS_OPAQUE, at);
    if (!s || !bound_names(P, start, end, &names)) goto done;
    /* why: the message after "file:line:col: ", to the end of its first line */
    const char *m = full;
    for (int colons = 0; *m && colons < 3; m++)
      if (*m == ':') colons++;
    while (*m == ' ') m++;
    const char *nl = strchr(m, '\n');
    s->u.opaque.why = tl__pstrndup(P->p, m, nl ? (size_t)(nl - m) : strlen(m));
    s->u.opaque.n = (uint32_t)names.len;
    s->u.opaque.names = to_array(P, &names);
    if (!s->u.opaque.why || !push_stmt(P, out, s)) goto done;
  }
  P->i = end;
  ok = P->p->status == TL_OK;
done:
  tl__vec_free(&names);
  tl__vec_free(&decos);
  return ok;
}

/* A top-level helper definition (P->i at its decorators or `def`, end past it):
 * parsed when its text is in the subset, so kernels can call it; otherwise (any
 * Python outside the subset, or text the parser does not take) it is skipped as
 * script code is, and the reason is kept for a kernel that calls it. */
static bool parse_helper(tl__parser *P, size_t end, size_t name_at, tl__vec *out) {
  size_t start = P->i;
  const tl__tok *t = &P->t[start];
  tl__vec one = TL__VEC_INIT(tl__ast_stmt *);
  bool parsed = parse_def_stmt(P, &one) && P->i == end && one.len == 1;
  tl__ast_stmt *s = parsed ? TL__VEC_AT(&one, tl__ast_stmt *, 0) : NULL;
  tl__vec_free(&one);
  if (!parsed) {
    /* Any error: script code may use Python the parser does not take at all
     * (`print(*args)`), which must not fail the file. */
    if (P->p->status == TL_ENOMEM) return false;
    const char *why = "its text is outside what the front end reads";
    if (P->p->status != TL_OK) {
      const char *full = tl_last_error();
      const char *m = full;
      for (int colons = 0; *m && colons < 3; m++) /* past "file:line:col: " */
        if (*m == ':') colons++;
      while (*m == ' ') m++;
      const char *nl = strchr(m, '\n');
      P->p->status = TL_OK;
      why = tl__pstrndup(P->p, m, nl ? (size_t)(nl - m) : strlen(m));
      if (!why) return false;
    }
    P->p->outside_subset = false;
    P->depth = 0;
    P->block_depth = 0;
    P->loop_depth = 0;
    s = new_stmt(P, AS_DEF, t);
    if (!s) return false;
    s->u.def.skipped = true;
    s->u.def.why = why;
    s->u.def.name = P->t[name_at].kind == TK_NAME ? P->t[name_at].s : "?";
  }
  s->u.def.helper = true;
  P->i = end;
  return push_stmt(P, out, s);
}

tl_status tl__parse_file(tl__parse_ctx *p, const tl__tok *toks, size_t ntoks, tl__ast_block *out) {
  tl__parser P = {p, toks, ntoks, 0, 0, 0, 0};
  tl__vec stmts = TL__VEC_INIT(tl__ast_stmt *);
  while (p->status == TL_OK) {
    const tl__tok *t = tl__peek(&P);
    if (t->kind == TK_EOF) break;
    if (t->kind == TK_NEWLINE) {
      tl__advance(&P);
      continue;
    }
    if (t->kind == TK_DEDENT) {
      tl__perr_tok(&P, t, "unindent does not match any outer indentation level");
      break;
    }
    if (is_main_guard(&P)) {
      P.i = skip_compound(&P, P.i);
      continue;
    }
    bool kernel_def = false;
    if (tl__tok_kw(t, "def") || tl__tok_op(t, "@")) {
      size_t end = P.i, name_at = P.i;
      if (!top_def_is_kernel(&P, &end, &name_at)) {
        if (!parse_helper(&P, end, name_at, &stmts)) break;
        continue;
      }
      kernel_def = true;
    }
    size_t start = P.i, nstmts = stmts.len;
    if (parse_stmt(&P, &stmts)) continue;
    if (!p->outside_subset) break;
    stmts.len = nstmts; /* `a; lambda: b` may have pushed its first half */
    if (!defer_statement(&P, start, kernel_def, &stmts)) break;
  }
  if (p->status == TL_OK) {
    out->n = (uint32_t)stmts.len;
    out->stmts = to_array(&P, &stmts);
  }
  tl__vec_free(&stmts);
  return p->status;
}

tl_status tl__parse_expr_only(tl__parse_ctx *p, const tl__tok *toks, size_t ntoks, tl__ast_expr **out) {
  tl__parser P = {p, toks, ntoks, 0, 0, 0, 0};
  *out = NULL;
  const tl__tok *t = tl__peek(&P);
  if (t->kind == TK_INDENT || t->kind == TK_NEWLINE || t->kind == TK_EOF)
    return tl__perr_tok(&P, t, "expected a value, found %s", tl__tok_desc(&P, t));
  tl__ast_expr *e = tl__parse_testlist(&P);
  if (!e) return p->status;
  if (tl__peek(&P)->kind == TK_NEWLINE) tl__advance(&P);
  while (tl__peek(&P)->kind == TK_DEDENT) tl__advance(&P);
  if (tl__peek(&P)->kind != TK_EOF)
    return tl__perr_tok(&P, tl__peek(&P), "unexpected %s after the value", tl__tok_desc(&P, tl__peek(&P)));
  *out = e;
  return TL_OK;
}
