/* The printer: any IR in TileLang script style. Tile-level IR prints as TileLang
 * the front end reads back to an equal module; lowered constructs (asserts,
 * launches, thread-bound loops, barriers, vectors, calling conventions) print
 * readably in the same style. Output is deterministic: names are chosen in
 * traversal order, unique among the names in scope. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "module.h"
#include "op_table.h"
#include "print.h"

/* ------------------------------------------------------------------ names */

static const char *const RESERVED[] = {
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
  "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
  "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "T", "tilelang", "range", "float", "int",
};

void tl__printer_init(tl__printer *P) {
  memset(P, 0, sizeof *P);
  tl__sb_init(&P->sb);
  tl__arena_init(&P->names, 0);
  tl__map_init(&P->node_name);
  tl__map_init(&P->active);
  tl__vec_init(&P->scope, sizeof(const char *));
}

void tl__printer_free(tl__printer *P) {
  tl__sb_free(&P->sb);
  tl__arena_free(&P->names);
  tl__map_free(&P->node_name, NULL);
  tl__map_free(&P->active, NULL);
  tl__vec_free(&P->scope);
}

static void node_key(const void *node, char key[24]) { snprintf(key, 24, "%p", node); }

/* A valid identifier from any name (IR names are free-form), by the lexer's rules:
 * a letter, '_' or a UTF-8 lead byte first, then those, digits or any non-ASCII byte. */
static void sanitize(const char *base, char *out, size_t cap) {
  size_t n = 0;
  if (!base || !*base) base = "v";
  unsigned char first = (unsigned char)base[0];
  if ((first >= '0' && first <= '9') || (first >= 0x80 && first < 0xC2)) out[n++] = '_';
  for (const char *c = base; *c && n + 2 < cap; c++) {
    unsigned char u = (unsigned char)*c;
    bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u >= 0x80;
    out[n++] = ok ? (char)u : '_';
  }
  out[n] = '\0';
  for (size_t i = 0; i < sizeof RESERVED / sizeof RESERVED[0]; i++)
    if (strcmp(out, RESERVED[i]) == 0 && n + 2 < cap) {
      out[n++] = '_';
      out[n] = '\0';
      break;
    }
}

static bool name_active(tl__printer *P, const char *name) { return tl__map_find(&P->active, name) != NULL; }

/* Names in scope are counted: a name defined twice (a parameter named like its
 * function) stays in scope until both definitions end. */
static bool activate(tl__printer *P, const char *name) {
  uintptr_t c = (uintptr_t)tl__map_find(&P->active, name);
  return tl__map_put(&P->active, name, (void *)(c + 1), NULL) == TL_OK;
}

const char *tl__print_define(tl__printer *P, const void *node, const char *base) {
  char clean[128], cand[160];
  sanitize(base, clean, sizeof clean);
  snprintf(cand, sizeof cand, "%s", clean);
  for (unsigned k = 1; name_active(P, cand); k++) snprintf(cand, sizeof cand, "%s_%u", clean, k);
  char *name = tl__arena_strdup(&P->names, cand);
  char key[24];
  node_key(node, key);
  if (!name || !activate(P, name) || tl__map_put(&P->node_name, key, name, NULL) != TL_OK ||
      tl__vec_push(&P->scope, &name) != TL_OK) {
    P->failed = true;
    return "?";
  }
  return name;
}

/* Defines node under exactly `name` (parameters keep their names: they are part of
 * the interface). */
static const char *define_exact(tl__printer *P, const void *node, const char *name) {
  char key[24];
  node_key(node, key);
  char *n = tl__arena_strdup(&P->names, name ? name : "");
  if (!n || !activate(P, n) || tl__map_put(&P->node_name, key, n, NULL) != TL_OK || tl__vec_push(&P->scope, &n) != TL_OK) {
    P->failed = true;
    return "?";
  }
  return n;
}

const char *tl__print_name_of(tl__printer *P, const void *node, const char *base) {
  char key[24];
  node_key(node, key);
  const char *name = tl__map_find(&P->node_name, key);
  if (name) return name;
  /* A free variable: named for good (never leaves scope). */
  name = tl__print_define(P, node, base);
  if (P->scope.len) P->scope.len--;
  return name;
}

void tl__print_alias(tl__printer *P, const void *alias, const void *node) {
  char key[24], akey[24];
  node_key(node, key);
  node_key(alias, akey);
  const char *name = tl__map_find(&P->node_name, key);
  if (name && tl__map_put(&P->node_name, akey, (void *)name, NULL) != TL_OK) P->failed = true;
}

size_t tl__print_scope_mark(const tl__printer *P) { return P->scope.len; }

void tl__print_pop_scope(tl__printer *P, size_t mark) {
  while (P->scope.len > mark) {
    const char *name = TL__VEC_AT(&P->scope, const char *, P->scope.len - 1);
    uintptr_t c = (uintptr_t)tl__map_find(&P->active, name);
    if (c > 1) tl__map_put(&P->active, name, (void *)(c - 1), NULL); /* replacing never allocates */
    else tl__map_remove(&P->active, name, NULL);
    P->scope.len--;
  }
}

/* ------------------------------------------------------------------ statements */

static void line(tl__printer *P) { tl__sb_indent(&P->sb, P->indent * 4); }

static const tl_dtype I32 = {TL_DTYPE_INT, 32, 1};

static void print_stmt(tl__printer *P, const tl_ir_stmt *s);

/* The statements of a block (a SEQ is flattened into the block; `pass` if empty). */
static void print_block(tl__printer *P, const tl_ir_stmt *s) {
  size_t mark = tl__print_scope_mark(P);
  size_t before = P->sb.len;
  if (s && s->kind == TL_STMT_SEQ) {
    for (uint32_t i = 0; i < s->u.seq.n; i++) print_stmt(P, s->u.seq.stmts[i]);
  } else if (s) {
    print_stmt(P, s);
  }
  if (P->sb.len == before) {
    line(P);
    tl__sb_append(&P->sb, "pass\n");
  }
  tl__print_pop_scope(P, mark);
}

static void print_indented_block(tl__printer *P, const tl_ir_stmt *s) {
  P->indent++;
  print_block(P, s);
  P->indent--;
}

/* X = T.reshape(src, shape): the source is named by the data variable. */
static void print_view(tl__printer *P, const tl_ir_buffer *b) {
  const char *src = tl__print_name_of(P, b->data, b->data->name);
  const char *name = tl__print_define(P, b, b->name);
  line(P);
  tl__sb_appendf(&P->sb, "%s = T.reshape(%s, ", name, src);
  tl__print_shape(P, b->ndim, b->shape);
  tl__sb_append(&P->sb, ")\n");
}

static void print_alloc(tl__printer *P, const tl_ir_buffer *b) {
  if (b->view) {
    print_view(P, b);
    return;
  }
  const char *name = tl__print_define(P, b, b->name);
  tl__print_alias(P, b->data, b);
  line(P);
  tl__sb_appendf(&P->sb, "%s = ", name);
  if (b->scope == TL_SCOPE_LOCAL_VAR && b->ndim == 0) {
    tl__sb_append(&P->sb, "T.alloc_var(");
    tl__print_dtype_str(P, b->dtype);
    tl__sb_append(&P->sb, ")\n");
    return;
  }
  const char *fn = "T.alloc_buffer";
  switch (b->scope) {
    case TL_SCOPE_SHARED: case TL_SCOPE_SHARED_DYN: fn = "T.alloc_shared"; break;
    case TL_SCOPE_LOCAL_FRAGMENT: fn = "T.alloc_fragment"; break;
    case TL_SCOPE_LOCAL: fn = "T.alloc_local"; break;
    default: break;
  }
  tl__sb_appendf(&P->sb, "%s(", fn);
  tl__print_shape(P, b->ndim, b->shape);
  tl__sb_append(&P->sb, ", ");
  tl__print_dtype_str(P, b->dtype);
  if (b->scope == TL_SCOPE_SHARED_DYN || b->scope == TL_SCOPE_GLOBAL || b->scope == TL_SCOPE_LOCAL_VAR)
    tl__sb_appendf(&P->sb, ", scope=\"%s\"", tl_ir_scope_name(b->scope));
  if (b->strides) {
    tl__sb_append(&P->sb, ", strides=");
    tl__print_shape(P, b->ndim, b->strides);
  }
  tl__sb_append(&P->sb, ")\n");
}

/* A flag argument: printed when it differs from the default. */
static void print_flag(tl__printer *P, const char *name, const tl_ir_expr *e, int64_t dflt) {
  if (e->kind == TL_EXPR_INT && e->u.int_value == dflt) return;
  tl__sb_appendf(&P->sb, ", %s=", name);
  static const char *const policies[] = TL__GEMM_POLICY_NAMES;
  if (strcmp(name, "policy") == 0 && e->kind == TL_EXPR_INT && e->u.int_value >= 0 &&
      e->u.int_value < TL__GEMM_POLICY_COUNT) {
    tl__sb_appendf(&P->sb, "T.GemmWarpPolicy.%s", policies[e->u.int_value]);
    return;
  }
  if (e->kind == TL_EXPR_INT && (e->u.int_value == 0 || e->u.int_value == 1))
    tl__sb_append(&P->sb, e->u.int_value ? "True" : "False");
  else
    tl__print_expr(P, e, 0, &I32);
}

static void print_args(tl__printer *P, const tl_ir_expr *call, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to && i < call->u.call.nargs; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    tl__print_expr(P, call->u.call.args[i], 0, NULL);
  }
}

/* Tile operations with their keyword arguments. */
static void print_eval(tl__printer *P, const tl_ir_expr *e) {
  line(P);
  if (e->kind != TL_EXPR_CALL) {
    tl__sb_append(&P->sb, "T.evaluate(");
    tl__print_expr(P, e, 0, NULL);
    tl__sb_append(&P->sb, ")\n");
    return;
  }
  uint32_t n = e->u.call.nargs;
  tl_ir_expr *const *a = e->u.call.args;
  tl__sb_appendf(&P->sb, "%s(", tl_ir_op_name(e->u.call.op));
  const tl__tile_op_info *t = tl__tile_op(e->u.call.op);
  if (!t || n != t->nargs) {
    print_args(P, e, 0, n);
  } else {
    /* Regions and values positionally (a value in the first region's dtype),
     * flags as keywords left out at their defaults, dim always. */
    const tl_dtype *elem = n && a[0]->kind == TL_EXPR_REGION ? &a[0]->u.region.buffer->dtype : NULL;
    for (uint32_t i = 0; i < n; i++) {
      if (t->sig[i] != 'I') {
        if (i) tl__sb_append(&P->sb, ", ");
        tl__print_expr(P, a[i], 0, a[i]->kind == TL_EXPR_REGION ? NULL : elem);
      } else if (strcmp(t->arg_names[i], "dim") == 0) {
        tl__sb_append(&P->sb, ", dim=");
        tl__print_expr(P, a[i], 0, &I32);
      } else {
        print_flag(P, t->arg_names[i], a[i], t->defaults[i]);
      }
    }
  }
  tl__sb_append(&P->sb, ")\n");
}

static const char *for_fn(tl_ir_for_kind k) {
  switch (k) {
    case TL_FOR_SERIAL: return "T.serial";
    case TL_FOR_PARALLEL: return "T.Parallel";
    case TL_FOR_VECTORIZED: return "T.vectorized";
    case TL_FOR_UNROLLED: return "T.unroll";
    case TL_FOR_PIPELINED: return "T.Pipelined";
    case TL_FOR_THREAD: return "T.thread_binding";
  }
  return "T.serial";
}

static bool is_zero(const tl_ir_expr *e) { return e->kind == TL_EXPR_INT && e->u.int_value == 0; }

static void print_for(tl__printer *P, const tl_ir_stmt *s) {
  uint32_t n = s->u.loop.n;
  size_t mark = tl__print_scope_mark(P);
  line(P);
  tl__sb_append(&P->sb, "for ");
  for (uint32_t i = 0; i < n; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    tl__sb_append(&P->sb, tl__print_define(P, s->u.loop.vars[i], s->u.loop.vars[i]->name));
  }
  bool zero_mins = true;
  for (uint32_t i = 0; i < n; i++) zero_mins &= is_zero(s->u.loop.mins[i]);
  tl_ir_for_kind k = s->u.loop.kind;
  const char *fn = (k == TL_FOR_SERIAL && n > 1) ? "T.grid" : for_fn(k);
  tl__sb_appendf(&P->sb, " in %s(", fn);
  for (uint32_t i = 0; i < n; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    const tl_ir_expr *m = s->u.loop.mins[i], *x = s->u.loop.extents[i];
    if (zero_mins && (n > 1 || is_zero(m))) {
      tl__print_expr(P, x, 0, &I32);
    } else if (n == 1) {
      /* start, start + extent: read back as that extent */
      tl__print_expr(P, m, 0, &I32);
      tl__sb_append(&P->sb, ", ");
      if (tl__print_const_end(P, m, x)) continue;
      tl__print_expr(P, m, 9, &I32);
      tl__sb_append(&P->sb, " + ");
      tl__print_expr(P, x, 10, &I32);
    } else {
      tl__sb_append(&P->sb, "T.range(");
      tl__print_expr(P, m, 0, &I32);
      tl__sb_append(&P->sb, ", ");
      tl__print_expr(P, x, 0, &I32);
      tl__sb_putc(&P->sb, ')');
    }
  }
  if (k == TL_FOR_PIPELINED) tl__sb_appendf(&P->sb, ", num_stages=%d", (int)s->u.loop.num_stages);
  if (k == TL_FOR_THREAD) {
    tl__sb_append(&P->sb, ", thread=");
    tl__print_str_literal(P, s->u.loop.thread_tag ? s->u.loop.thread_tag : "");
  }
  tl__sb_append(&P->sb, "):\n");
  print_indented_block(P, s->u.loop.body);
  tl__print_pop_scope(P, mark);
}

static void print_kernel(tl__printer *P, const tl_ir_stmt *s) {
  static const char *const dflt[3] = {"bx", "by", "bz"};
  size_t mark = tl__print_scope_mark(P);
  uint32_t ng = s->u.kernel.grid_ndim;
  line(P);
  tl__sb_append(&P->sb, "with T.Kernel(");
  for (uint32_t i = 0; i < ng && i < 3; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    tl__print_expr(P, s->u.kernel.grid[i], 0, &I32);
  }
  tl__sb_append(&P->sb, ", threads=");
  uint32_t nt = s->u.kernel.threads_ndim;
  if (nt > 1) tl__sb_putc(&P->sb, '(');
  for (uint32_t i = 0; i < nt && i < 3; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    tl__print_expr(P, s->u.kernel.threads[i], 0, &I32);
  }
  if (nt > 1) tl__sb_putc(&P->sb, ')');
  tl__sb_append(&P->sb, ") as ");
  if (ng > 1) tl__sb_putc(&P->sb, '(');
  char tags[256] = "";
  for (uint32_t i = 0; i < ng && i < 3; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    const tl_ir_var *v = s->u.kernel.block_vars[i];
    const char *name = tl__print_define(P, v ? (const void *)v : (const void *)&s->u.kernel.block_vars[i],
                                        v ? v->name : dflt[i]);
    tl__sb_append(&P->sb, name);
    if (v && v->thread_tag) {
      size_t l = strlen(tags);
      snprintf(tags + l, sizeof tags - l, "%s%s = %s", l ? ", " : "", name, v->thread_tag);
    }
  }
  if (ng > 1) tl__sb_putc(&P->sb, ')');
  tl__sb_append(&P->sb, ":");
  if (tags[0]) tl__sb_appendf(&P->sb, "  # %s", tags);
  tl__sb_putc(&P->sb, '\n');
  P->indent++;
  for (uint32_t i = 0; i < 3; i++) {
    const tl_ir_var *v = s->u.kernel.thread_vars[i];
    if (!v) continue;
    line(P);
    tl__sb_appendf(&P->sb, "%s = T.get_thread_binding(%u)", tl__print_define(P, v, v->name), i);
    if (v->thread_tag) tl__sb_appendf(&P->sb, "  # %s", v->thread_tag);
    tl__sb_putc(&P->sb, '\n');
  }
  print_block(P, s->u.kernel.body);
  P->indent--;
  tl__print_pop_scope(P, mark);
}

static void print_if(tl__printer *P, const tl_ir_stmt *s, bool elif) {
  line(P);
  tl__sb_append(&P->sb, elif ? "elif " : "if ");
  tl__print_expr(P, s->u.if_.cond, 0, NULL);
  tl__sb_append(&P->sb, ":\n");
  print_indented_block(P, s->u.if_.then_);
  const tl_ir_stmt *e = s->u.if_.else_;
  if (!e) return;
  /* else: [if ...] reads back as elif */
  if (e->kind == TL_STMT_SEQ && e->u.seq.n == 1 && e->u.seq.stmts[0]->kind == TL_STMT_IF) {
    print_if(P, e->u.seq.stmts[0], true);
    return;
  }
  line(P);
  tl__sb_append(&P->sb, "else:\n");
  print_indented_block(P, e);
}

static void print_store(tl__printer *P, const tl_ir_stmt *s) {
  const tl_ir_buffer *b = s->u.store.buffer;
  line(P);
  tl__sb_append(&P->sb, tl__print_name_of(P, b, b->name));
  if (!(s->u.store.n == 0 && b->scope == TL_SCOPE_LOCAL_VAR)) {
    tl__sb_putc(&P->sb, '[');
    if (s->u.store.n == 0) tl__sb_append(&P->sb, "()");
    for (uint32_t i = 0; i < s->u.store.n; i++) {
      if (i) tl__sb_append(&P->sb, ", ");
      tl__print_expr(P, s->u.store.indices[i], 0, &I32);
    }
    tl__sb_putc(&P->sb, ']');
  }
  tl__sb_append(&P->sb, " = ");
  tl__print_expr(P, s->u.store.value, 0, &b->dtype);
  tl__sb_putc(&P->sb, '\n');
}

static void print_stmt(tl__printer *P, const tl_ir_stmt *s) {
  if (!s) {
    line(P);
    tl__sb_append(&P->sb, "<null>\n");
    return;
  }
  switch (s->kind) {
    case TL_STMT_SEQ:
      for (uint32_t i = 0; i < s->u.seq.n; i++) print_stmt(P, s->u.seq.stmts[i]);
      return;
    case TL_STMT_FOR: print_for(P, s); return;
    case TL_STMT_IF: print_if(P, s, false); return;
    case TL_STMT_STORE: print_store(P, s); return;
    case TL_STMT_LET: {
      /* A chain of LETs prints as consecutive assignments (iteratively: chains can be long). */
      size_t mark = tl__print_scope_mark(P);
      const tl_ir_stmt *cur = s;
      while (cur && cur->kind == TL_STMT_LET) {
        const tl_ir_expr *v = cur->u.let.value;
        line(P);
        tl__sb_append(&P->sb, tl__print_define(P, cur->u.let.var, cur->u.let.var->name));
        tl__sb_append(&P->sb, " = ");
        if (tl__print_is_const(v)) tl__print_const_ctor(P, v); /* a literal would be a compile-time constant */
        else tl__print_expr(P, v, 0, NULL);
        tl__sb_putc(&P->sb, '\n');
        const tl_ir_stmt *body = cur->u.let.body;
        if (body && body->kind == TL_STMT_SEQ && body->u.seq.n >= 1 &&
            body->u.seq.stmts[body->u.seq.n - 1]->kind == TL_STMT_LET) {
          for (uint32_t i = 0; i + 1 < body->u.seq.n; i++) print_stmt(P, body->u.seq.stmts[i]);
          cur = body->u.seq.stmts[body->u.seq.n - 1];
        } else if (body && body->kind == TL_STMT_LET) {
          cur = body;
        } else {
          if (body) print_stmt(P, body);
          cur = NULL;
        }
      }
      tl__print_pop_scope(P, mark);
      return;
    }
    case TL_STMT_ALLOC: print_alloc(P, s->u.alloc.buffer); return;
    case TL_STMT_EVAL: print_eval(P, s->u.eval.expr); return;
    case TL_STMT_KERNEL: print_kernel(P, s); return;
    case TL_STMT_BARRIER:
      line(P);
      tl__sb_append(&P->sb, "T.sync_threads()\n");
      return;
    case TL_STMT_ASSERT:
      line(P);
      tl__sb_append(&P->sb, "T.assert_(");
      tl__print_expr(P, s->u.assert_.cond, 0, NULL);
      tl__sb_append(&P->sb, ", ");
      tl__print_str_literal(P, s->u.assert_.message ? s->u.assert_.message : "");
      tl__sb_append(&P->sb, ")\n");
      return;
    case TL_STMT_LAUNCH: {
      line(P);
      tl__sb_append(&P->sb, "T.launch(");
      tl__print_str_literal(P, s->u.launch.kernel ? s->u.launch.kernel : "");
      for (uint32_t i = 0; i < s->u.launch.nargs; i++) {
        tl__sb_append(&P->sb, ", ");
        tl__print_expr(P, s->u.launch.args[i], 0, NULL);
      }
      const char *names[2] = {"grid", "block"};
      tl_ir_expr *const *dims[2] = {s->u.launch.grid, s->u.launch.block};
      for (int k = 0; k < 2; k++) {
        tl__sb_appendf(&P->sb, ", %s=(", names[k]);
        for (int i = 0; i < 3; i++) {
          if (i) tl__sb_append(&P->sb, ", ");
          tl__print_expr(P, dims[k][i], 0, &I32);
        }
        tl__sb_putc(&P->sb, ')');
      }
      if (s->u.launch.dyn_shared_bytes) {
        tl__sb_append(&P->sb, ", dyn_shared=");
        tl__print_expr(P, s->u.launch.dyn_shared_bytes, 0, &I32);
      }
      tl__sb_append(&P->sb, ")\n");
      return;
    }
  }
  line(P);
  tl__sb_appendf(&P->sb, "<stmt kind %d>\n", (int)s->kind);
}

/* ------------------------------------------------------------------ functions */

/* Symbolic dimensions: variables in parameter shapes that are not parameters. */
static void collect_syms(const tl_ir_expr *e, tl__vec *out) {
  if (!e) return;
  switch (e->kind) {
    case TL_EXPR_VAR:
      for (size_t i = 0; i < out->len; i++)
        if (TL__VEC_AT(out, const tl_ir_var *, i) == e->u.var) return;
      tl__vec_push(out, &e->u.var);
      return;
    case TL_EXPR_BINARY: collect_syms(e->u.binary.a, out); collect_syms(e->u.binary.b, out); return;
    case TL_EXPR_UNARY: collect_syms(e->u.unary.a, out); return;
    case TL_EXPR_CAST: collect_syms(e->u.cast.value, out); return;
    case TL_EXPR_SELECT:
      collect_syms(e->u.select.cond, out);
      collect_syms(e->u.select.t, out);
      collect_syms(e->u.select.f, out);
      return;
    case TL_EXPR_CALL:
      for (uint32_t i = 0; i < e->u.call.nargs; i++) collect_syms(e->u.call.args[i], out);
      return;
    default: return;
  }
}

static const char *callconv_note(tl_ir_callconv c) {
  switch (c) {
    case TL_CALLCONV_PACKED: return "# host entry (packed calling convention): checks arguments, launches kernels\n";
    case TL_CALLCONV_DEVICE_KERNEL: return "# device kernel (launched by a host entry)\n";
    default: return NULL;
  }
}

static void print_attr_value(tl__printer *P, const tl_ir_attr *a) {
  if (a->kind == TL_ATTR_INT) tl__sb_appendf(&P->sb, "%lld", (long long)a->i);
  else tl__print_str_literal(P, a->s ? a->s : "");
}

/* One function. `decls` (may be NULL) collects module-level declaration lines
 * already printed, so a module declares each symbolic dimension once. */
static void print_func(tl__printer *P, const tl_ir_func *f, tl__map *decls) {
  size_t mark = tl__print_scope_mark(P);
  /* Parameter names are part of the interface: they keep their names. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind == TL_PARAM_BUFFER && p->buffer) {
      define_exact(P, p->buffer, p->buffer->name);
      tl__print_alias(P, p->buffer->data, p->buffer);
    } else if (p->var) {
      define_exact(P, p->var, p->var->name);
    }
  }
  tl__vec syms = TL__VEC_INIT(const tl_ir_var *);
  bool declared = false;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind != TL_PARAM_BUFFER || !p->buffer) continue;
    for (uint32_t d = 0; d < p->buffer->ndim; d++) collect_syms(p->buffer->shape[d], &syms);
  }
  for (size_t i = 0; i < syms.len; i++) {
    const tl_ir_var *v = TL__VEC_AT(&syms, const tl_ir_var *, i);
    bool is_param = false;
    for (uint32_t k = 0; k < f->nparams; k++) is_param |= f->params[k].kind == TL_PARAM_SCALAR && f->params[k].var == v;
    if (is_param) continue;
    const char *name = tl__print_define(P, v, v->name);
    char buf[320], dt[32];
    if (tl_dtype_eq(v->dtype, I32)) snprintf(buf, sizeof buf, "%s = T.symbolic(\"%s\")\n", name, name);
    else snprintf(buf, sizeof buf, "%s = T.symbolic(\"%s\", \"%s\")\n", name, name, tl_dtype_name(v->dtype, dt, sizeof dt));
    if (decls && tl__map_find(decls, buf)) continue;
    if (decls && tl__map_put(decls, buf, (void *)1, NULL) != TL_OK) P->failed = true;
    tl__sb_append(&P->sb, buf);
    declared = true;
  }
  tl__vec_free(&syms);
  if (declared) tl__sb_append(&P->sb, "\n\n");
  const char *note = callconv_note(f->callconv);
  if (note) tl__sb_append(&P->sb, note);
  bool outputs = false;
  for (uint32_t i = 0; i < f->nparams; i++) outputs |= f->params[i].is_output;
  if (outputs) {
    /* Outputs allocated by the caller's runtime: TileLang's jit with out_idx. */
    tl__sb_append(&P->sb, "@tilelang.jit(out_idx=[");
    bool first = true;
    for (uint32_t i = 0; i < f->nparams; i++)
      if (f->params[i].is_output) {
        tl__sb_appendf(&P->sb, "%s%u", first ? "" : ", ", i);
        first = false;
      }
    tl__sb_appendf(&P->sb, "])\ndef %s():\n", f->name);
    P->indent++;
  }
  line(P);
  tl__sb_append(&P->sb, "@T.prim_func\n");
  line(P);
  tl__sb_appendf(&P->sb, "def %s(", f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (i) tl__sb_append(&P->sb, ", ");
    if (p->kind == TL_PARAM_BUFFER && p->buffer) {
      const tl_ir_buffer *b = p->buffer;
      tl__sb_appendf(&P->sb, "%s: T.Tensor(", tl__print_name_of(P, b, b->name));
      tl__print_shape(P, b->ndim, b->shape);
      tl__sb_append(&P->sb, ", ");
      tl__print_dtype_str(P, b->dtype);
      if (b->strides) {
        tl__sb_append(&P->sb, ", strides=");
        tl__print_shape(P, b->ndim, b->strides);
      }
      tl__sb_putc(&P->sb, ')');
    } else if (p->var) {
      char dt[32];
      tl__sb_appendf(&P->sb, "%s: T.%s", tl__print_name_of(P, p->var, p->var->name),
                     tl_dtype_name(p->var->dtype, dt, sizeof dt));
    }
  }
  tl__sb_append(&P->sb, "):\n");
  P->indent++;
  if (f->nattrs) {
    line(P);
    tl__sb_append(&P->sb, "T.func_attr({");
    for (uint32_t i = 0; i < f->nattrs; i++) {
      if (i) tl__sb_append(&P->sb, ", ");
      tl__print_str_literal(P, f->attrs[i].key);
      tl__sb_append(&P->sb, ": ");
      print_attr_value(P, &f->attrs[i]);
    }
    tl__sb_append(&P->sb, "})\n");
  }
  print_block(P, f->body);
  P->indent--;
  if (outputs) {
    line(P);
    tl__sb_appendf(&P->sb, "return %s\n", f->name);
    P->indent--;
  }
  tl__print_pop_scope(P, mark);
}

/* ------------------------------------------------------------------ public */

static char *finish(tl__printer *P) {
  char *s = NULL;
  if (P->failed || P->sb.failed) {
    tl__oom();
  } else {
    if (!P->sb.buf) tl__sb_append(&P->sb, "");
    s = tl__sb_finish(&P->sb);
  }
  tl__printer_free(P);
  return s;
}

char *tl_ir_print_expr(const tl_ir_expr *e) {
  tl__printer P;
  tl__printer_init(&P);
  tl__print_expr(&P, e, 0, NULL);
  return finish(&P);
}

char *tl_ir_print_stmt(const tl_ir_stmt *s) {
  tl__printer P;
  tl__printer_init(&P);
  print_block(&P, s);
  return finish(&P);
}

char *tl_ir_print_func(const tl_ir_func *f) {
  tl__printer P;
  tl__printer_init(&P);
  if (f) print_func(&P, f, NULL);
  return finish(&P);
}

char *tl_ir_print_module(const tl_ir_module *mod) {
  tl__printer P;
  tl__printer_init(&P);
  tl__map decls = TL__MAP_INIT;
  /* Module attributes are not TileLang: they print as comments. */
  for (size_t i = 0; mod && i < mod->attrs.len; i++) {
    const tl_ir_attr *a = tl__vec_at(&mod->attrs, i);
    tl__sb_appendf(&P.sb, "# module attribute %s = ", a->key);
    print_attr_value(&P, a);
    tl__sb_putc(&P.sb, '\n');
  }
  tl__sb_append(&P.sb, "import tilelang\nimport tilelang.language as T\n");
  size_t n = mod ? tl_ir_module_num_funcs(mod) : 0;
  /* Function names are module-level names: symbolic dimensions (declared at module
   * level) and locals must not take them. */
  for (size_t i = 0; i < n; i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->name && !activate(&P, f->name)) P.failed = true;
  }
  for (size_t i = 0; i < n; i++) {
    tl__sb_append(&P.sb, "\n\n");
    print_func(&P, tl_ir_module_func(mod, i), &decls);
  }
  tl__map_free(&decls, NULL);
  return finish(&P);
}
