/* The statement printer of the C-family printer: loops (with the dialect's
 * parallel-for and unroll lines), conditionals, lets, buffer declarations, scalar
 * and vector stores, atomics and barriers. Expressions are in c_expr.c, kernels in
 * c_kernel.c, the context they share in c_context.c. */
#include "codegen/c_printer.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "codegen/c_async.h"
#include "codegen/c_gemm.h"
#include "codegen/c_parallel.h"
#include "ir/op_table.h"

static void block(tl__cgen *g, const tl_ir_stmt *s) {
  g->indent++;
  tl__cgen_stmt(g, s);
  g->indent--;
}

/* True if expression e mentions any of the n variables. */
typedef struct mention_ctx {
  tl_ir_var *const *vars;
  uint32_t n;
  bool found;
} mention_ctx;

static bool mention_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  mention_ctx *c = v->ctx;
  if (e->kind == TL_EXPR_VAR)
    for (uint32_t i = 0; i < c->n; i++)
      if (c->vars[i] == e->u.var) c->found = true;
  return !c->found;
}

static bool mentions(const tl_ir_expr *e, tl_ir_var *const *vars, uint32_t n) {
  mention_ctx c = {vars, n, false};
  tl_ir_visitor v = {mention_expr, NULL, &c};
  tl_ir_visit_expr(&v, e);
  return c.found;
}

/* The loops of the perfect nest starting at s (parallel loops whose bounds do not
 * depend on outer ones) a parallel-for directive may cover, at most
 * TL__C_MAX_COLLAPSE (the loops inside run serially in each thread): their count,
 * and their extents in extents[]. */
static int collapse_depth(const tl_ir_stmt *s, const tl_ir_expr *extents[TL__C_MAX_COLLAPSE]) {
  tl_ir_var *outer[TL__C_MAX_COLLAPSE];
  int depth = 0;
  for (const tl_ir_stmt *l = s; l && l->kind == TL_STMT_FOR && l->u.loop.kind == TL_FOR_PARALLEL; l = l->u.loop.body) {
    for (uint32_t k = 0; k < l->u.loop.n; k++) {
      if (depth == TL__C_MAX_COLLAPSE) return depth;
      if (depth > 0 && (mentions(l->u.loop.mins[k], outer, (uint32_t)depth) ||
                        mentions(l->u.loop.extents[k], outer, (uint32_t)depth)))
        return depth;
      extents[depth] = l->u.loop.extents[k];
      outer[depth++] = l->u.loop.vars[k];
    }
  }
  return depth;
}

/* Appends the dialect's parallel-for line of a nest of `depth` loops to `line`;
 * `cond` is the C condition for going parallel at all, or NULL when the nest is
 * known to have more than one iteration; `threads` the most threads the team may
 * use (c_parallel.c), 0 for no limit. */
static void parallel_line(tl__cgen *g, int depth, const char *cond, int64_t threads, tl__sb *line) {
  tl__sb collapse = TL__SB_INIT, run_if = TL__SB_INIT, team = TL__SB_INIT, count = TL__SB_INIT;
  if (depth > 1) tl__sb_appendf(&collapse, " collapse(%d)", depth);
  if (cond) tl__sb_appendf(&run_if, " if(%s)", cond);
  if (threads > 0 && g->d->parallel_threads) {
    tl__sb_appendf(&count, "%lld", (long long)threads);
    tl__cgen_subst n[] = {{"B", tl__sb_str(&count)}};
    tl__sb *prev = tl__cgen_capture_begin(g, &team);
    tl__cgen_expand(g, g->d->parallel_threads, n, 1);
    tl__cgen_capture_end(g, prev);
  }
  if (tl__sb_status(&collapse) != TL_OK || tl__sb_status(&run_if) != TL_OK || tl__sb_status(&count) != TL_OK ||
      tl__sb_status(&team) != TL_OK)
    tl__cgen_oom(g);
  tl__cgen_subst sub[] = {{"C", tl__sb_str(&collapse)}, {"I", tl__sb_str(&run_if)}, {"N", tl__sb_str(&team)}};
  tl__sb *prev = tl__cgen_capture_begin(g, line);
  tl__cgen_expand(g, g->d->parallel_for, sub, 3);
  tl__cgen_capture_end(g, prev);
  tl__sb_free(&collapse);
  tl__sb_free(&run_if);
  tl__sb_free(&team);
  tl__sb_free(&count);
}

/* The parallel-for line of the loop nest at s into `line`, with the condition that
 * it has enough blocks to pay for a team (c_parallel.c) unless the count is a
 * known constant, and the team's size. False: no line (too little work, or
 * tl.cpu.num_threads = 1). */
static bool parallel_pragma(tl__cgen *g, const tl_ir_stmt *s, tl__sb *line) {
  const tl_ir_expr *extents[TL__C_MAX_COLLAPSE];
  int depth = collapse_depth(s, extents);
  int64_t limit;
  if (tl__cgen_thread_limit(&limit) != TL_OK) { /* c_parallel.c reported it */
    tl__cgen_fail(g, TL_EINVAL);
    return false;
  }
  if (limit == 1) return false;
  bool constant = true;
  int64_t trips = 1;
  for (int k = 0; k < depth; k++) {
    if (extents[k]->kind != TL_EXPR_INT) constant = false;
    else trips *= extents[k]->u.int_value;
  }
  int64_t work = tl__cgen_block_work(s, depth);
  int64_t min_blocks = tl__cgen_min_parallel_blocks(work); /* c_parallel.c */
  if (constant && trips < min_blocks) return false;
  int64_t threads = tl__cgen_team_size(constant ? trips : -1, work, limit);
  if (constant) {
    parallel_line(g, depth, NULL, threads, line);
    return true;
  }
  tl__sb cond = TL__SB_INIT;
  tl__sb *prev = tl__cgen_capture_begin(g, &cond);
  for (int k = 0; k < depth; k++) {
    if (k) tl__cgen_write(g, " * ");
    tl__cgen_expr(g, extents[k], depth > 1 ? TL__PREC_MUL + 1 : TL__PREC_REL);
  }
  tl__cgen_write(g, " >= %lld", (long long)min_blocks);
  tl__cgen_capture_end(g, prev);
  parallel_line(g, depth, tl__sb_str(&cond), threads, line);
  tl__sb_free(&cond);
  return true;
}

static bool is_zero(const tl_ir_expr *e) { return e->kind == TL_EXPR_INT && e->u.int_value == 0; }

static void print_for(tl__cgen *g, const tl_ir_stmt *s) {
  const tl__c_dialect *d = g->d;
  if (s->u.loop.kind == TL_FOR_THREAD) {
    /* Runs once per thread: the variable is the thread's index. */
    const char *tag = s->u.loop.thread_tag;
    const char *text = NULL;
    for (const tl__c_thread_tag *t = d->thread_tags; t && t->tag && tag; t++)
      if (strcmp(t->tag, tag) == 0) text = t->text;
    if (!text || s->u.loop.n != 1) {
      tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no thread index '%s'", d->name, tag ? tag : "(none)");
      return;
    }
    const tl_ir_var *v = s->u.loop.vars[0];
    if (!v->thread_tag) { /* a variable tagged itself prints as its index */
      const char *type = tl__cgen_type(g, v->dtype);
      const char *name = tl__cgen_declare(g, v);
      tl__cgen_set_nonneg(g, v);
      tl__cgen_line(g, "const %s %s = %s;", type, name, text);
    }
    tl__cgen_stmt(g, s->u.loop.body);
    return;
  }
  if (s->u.loop.kind == TL_FOR_PARALLEL && g->loop_depth == 0 && d->parallel_for) {
    tl__sb line = TL__SB_INIT;
    if (parallel_pragma(g, s, &line)) tl__cgen_line(g, "%s", tl__sb_str(&line));
    if (tl__sb_status(&line) != TL_OK) tl__cgen_oom(g);
    tl__sb_free(&line);
  } else if (s->u.loop.kind == TL_FOR_UNROLLED && d->unroll_pragma) {
    tl__cgen_line(g, "%s", d->unroll_pragma);
  }
  uint32_t n = s->u.loop.n;
  for (uint32_t k = 0; k < n; k++) {
    const tl_ir_var *v = s->u.loop.vars[k];
    const tl_ir_expr *min = s->u.loop.mins[k], *ext = s->u.loop.extents[k];
    const char *type = tl__cgen_type(g, v->dtype);
    bool nonneg = tl__cgen_expr_nonneg(g, min);
    /* The bounds are printed before the variable is named, so they cannot see it. */
    tl__sb_indent(g->out, 2 * g->indent);
    tl__sb_appendf(g->out, "for (%s ", type);
    tl__sb mark = TL__SB_INIT;
    tl__sb *prev = tl__cgen_capture_begin(g, &mark);
    tl__cgen_expr(g, min, TL__PREC_TOP);
    tl__cgen_capture_end(g, prev);
    const char *name = tl__cgen_declare(g, v);
    if (nonneg) tl__cgen_set_nonneg(g, v);
    tl__cgen_write(g, "%s = %s; %s < ", name, tl__sb_str(&mark), name);
    if (is_zero(min)) {
      tl__cgen_expr(g, ext, TL__PREC_REL + 1);
    } else {
      tl__cgen_expr(g, min, TL__PREC_ADD);
      tl__cgen_write(g, " + ");
      tl__cgen_expr(g, ext, TL__PREC_ADD + 1);
    }
    tl__cgen_write(g, "; ++%s) {\n", name);
    tl__sb_free(&mark);
    g->indent++;
    g->loop_depth++;
  }
  tl__cgen_stmt(g, s->u.loop.body);
  for (uint32_t k = 0; k < n; k++) {
    g->indent--;
    g->loop_depth--;
    tl__cgen_line(g, "}");
  }
}

static void print_if(tl__cgen *g, const tl_ir_stmt *s) {
  tl__sb_indent(g->out, 2 * g->indent);
  for (;;) {
    tl__cgen_write(g, "if (");
    tl__cgen_expr(g, s->u.if_.cond, TL__PREC_TOP);
    tl__cgen_write(g, ") {\n");
    block(g, s->u.if_.then_);
    const tl_ir_stmt *e = s->u.if_.else_;
    if (!e) break;
    if (e->kind == TL_STMT_IF) {
      tl__sb_indent(g->out, 2 * g->indent);
      tl__cgen_write(g, "} else ");
      s = e;
      continue;
    }
    tl__cgen_line(g, "} else {");
    block(g, e);
    break;
  }
  tl__cgen_line(g, "}");
}

/* Lanes of a statement's vector parts (1 if scalar). */
static uint16_t store_lanes(const tl_ir_stmt *s) {
  uint16_t lanes = s->u.store.value->dtype.lanes;
  for (uint32_t i = 0; i < s->u.store.n; i++)
    if (s->u.store.indices[i]->dtype.lanes > lanes) lanes = s->u.store.indices[i]->dtype.lanes;
  return lanes;
}

/* The stride-1 ramp a one-dimensional access A[T.Ramp(base, 1, lanes)] indexes
 * with, or NULL. */
static const tl_ir_expr *contiguous(uint32_t n, tl_ir_expr *const *idx, uint16_t lanes) {
  if (n != 1 || idx[0]->kind != TL_EXPR_RAMP || idx[0]->u.ramp.stride != 1 || idx[0]->dtype.lanes != lanes) return NULL;
  return idx[0];
}

/* Memory a vector access reads or writes with one vector load or store (global
 * and shared buffers, aligned by the host checks and the 16-byte rule of
 * docs/lowering.md); per-thread arrays are accessed lane by lane, which keeps
 * them in registers. */
static bool vector_memory(const tl_ir_buffer *b) {
  return b->scope == TL_SCOPE_GLOBAL || b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN;
}

/* True if the dialect computes vector stores through temporaries (vector_read and
 * vector_write), not only copies. */
static bool vectors_through_temps(const tl__c_dialect *d) { return d->vector_read && d->vector_write; }

static bool lane_mask_has(uint32_t mask, uint16_t lanes) { return mask == 0 || (lanes < 32 && (mask & (1u << lanes))); }

/* The dialect's vector type for `lanes` elements of buffer b, written into `out`
 * (the first row of vector_types that matches); NULL: none. */
static const char *vector_type_of(tl__cgen *g, const tl_ir_buffer *b, uint16_t lanes, tl__sb *out) {
  tl_dtype t = tl_dtype_scalar(b->dtype);
  const char *sfx = tl__cgen_storage_suffix(t);
  uint32_t bytes = (uint32_t)(t.bits / 8) * lanes;
  if (t.bits % 8 != 0 || lanes < 2) return NULL;
  for (const tl__c_vector_type *v = g->d->vector_types; v && v->text; v++) {
    if ((v->elem && strcmp(v->elem, sfx) != 0) || !lane_mask_has(v->lane_mask, lanes) || (v->bytes && v->bytes != bytes))
      continue;
    char n[8];
    snprintf(n, sizeof n, "%u", (unsigned)lanes);
    tl__cgen_subst sub[] = {{"B", v->base}, {"N", n}};
    tl__sb *prev = tl__cgen_capture_begin(g, out);
    tl__cgen_expand(g, v->text, sub, 2);
    tl__cgen_capture_end(g, prev);
    return tl__sb_status(out) == TL_OK ? tl__sb_str(out) : NULL;
  }
  return NULL;
}

/* The element buf[ramp's base] (the first of a contiguous access) into `out`. */
static const char *first_element(tl__cgen *g, const tl_ir_buffer *buf, const tl_ir_expr *ramp, tl__sb *out) {
  tl__sb *prev = tl__cgen_capture_begin(g, out);
  tl__cgen_element(g, buf, 1, (tl_ir_expr *const *)&ramp->u.ramp.base);
  tl__cgen_capture_end(g, prev);
  return tl__sb_str(out);
}

/* One statement of a vector template on its own line: vector_copy, vector_read or
 * vector_write with $V the vector type, $D/$S the destination and source elements
 * (or $T the temporary), $DA/$SA their spaces, $N the lanes. */
typedef struct vector_access {
  const char *vtype, *dst, *src, *temp, *dst_space, *src_space;
  uint16_t lanes;
} vector_access;

static void print_vector_template(tl__cgen *g, const char *tmpl, const vector_access *a) {
  char n[8];
  snprintf(n, sizeof n, "%u", (unsigned)a->lanes);
  const tl__cgen_subst all[] = {{"V", a->vtype},      {"D", a->dst},        {"S", a->src}, {"T", a->temp},
                                {"DA", a->dst_space}, {"SA", a->src_space}, {"N", n}};
  /* Only the placeholders of this template's kind: "$T" in a copy stays literal. */
  tl__cgen_subst sub[sizeof all / sizeof all[0]];
  size_t count = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i].value) sub[count++] = all[i];
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_expand(g, tmpl, sub, count);
  tl__cgen_write(g, "\n");
}

/* A contiguous copy dst[dr] = src[sr] as one vector_copy statement; false (nothing
 * printed) when the dialect has no vector type for it. */
static bool print_vector_copy(tl__cgen *g, const tl_ir_buffer *db, const tl_ir_expr *dr, const tl_ir_buffer *sb,
                              const tl_ir_expr *sr, uint16_t lanes) {
  tl__sb vt = TL__SB_INIT, dst = TL__SB_INIT, src = TL__SB_INIT;
  bool done = false;
  if (vector_type_of(g, db, lanes, &vt)) {
    vector_access a = {tl__sb_str(&vt), first_element(g, db, dr, &dst), first_element(g, sb, sr, &src), NULL,
                       tl__cgen_space(g, db->scope), tl__cgen_space(g, sb->scope), lanes};
    print_vector_template(g, g->d->vector_copy ? g->d->vector_copy : "*($V *)&$D = *(const $V *)&$S;", &a);
    done = true;
  }
  if (tl__sb_status(&dst) != TL_OK || tl__sb_status(&src) != TL_OK) tl__cgen_oom(g);
  tl__sb_free(&vt);
  tl__sb_free(&dst);
  tl__sb_free(&src);
  return done;
}

/* `= value;` after an lvalue of buffer dtype t (value of t's compute type). */
static void print_assigned_value(tl__cgen *g, tl_dtype t, const tl_ir_expr *value) {
  const tl__c_half_type *h = tl__cgen_half_type(g, t);
  tl__cgen_write(g, " = ");
  if (h && value->kind == TL_EXPR_LOAD && value->dtype.lanes == 1 && tl_dtype_eq(value->u.load.buffer->dtype, t)) {
    /* A 16-bit element copied as it is: no widening and narrowing round trip. */
    tl__cgen_element(g, value->u.load.buffer, value->u.load.n, value->u.load.indices);
  } else if (h) {
    /* Narrowing rounds to the 16-bit type: the value's own last rounding (of an
     * operation, a call or a conversion) is left out, as it would round twice. */
    tl__cgen_type(g, t);
    tl__cgen_write(g, "%s(", h->narrow);
    g->no_round = true;
    tl__cgen_expr(g, value, TL__PREC_TOP);
    g->no_round = false;
    tl__cgen_write(g, ")");
  } else {
    tl__cgen_expr(g, value, TL__PREC_TOP);
  }
  tl__cgen_write(g, ";\n");
}

/* `dst = value;` where value is an expression of the buffer's compute type. */
static void print_assign(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx,
                         const tl_ir_expr *value) {
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_element(g, buf, n, idx);
  print_assigned_value(g, buf->dtype, value);
}

/* Opens `for (int32_t lane = 0; lane < n; ++lane) {` and makes vector expressions
 * print at that lane. */
static const char *open_lanes(tl__cgen *g, uint16_t lanes) {
  const char *lane = tl__cgen_fresh(g, "lane");
  if (g->d->unroll_pragma) tl__cgen_line(g, "%s", g->d->unroll_pragma);
  tl__cgen_line(g, "for (%s %s = 0; %s < %u; ++%s) {", g->d->t_i32, lane, lane, (unsigned)lanes, lane);
  g->indent++;
  g->lane = lane;
  return lane;
}

static void close_lanes(tl__cgen *g) {
  g->lane = NULL;
  g->indent--;
  tl__cgen_line(g, "}");
}

/* Declares an aligned temporary array of `lanes` elements of t's storage type. */
static const char *vector_temp(tl__cgen *g, const char *base, tl_dtype t, uint16_t lanes) {
  const char *type = tl__cgen_storage_type(g, t);
  const char *name = tl__cgen_fresh(g, base);
  const char *align = g->d->array_align && *g->d->array_align ? g->d->array_align : NULL;
  tl__cgen_line(g, "%s%s%s %s[%u];", align ? align : "", align ? " " : "", type, name, (unsigned)lanes);
  return name;
}

/* Reads ahead, with one vector_read each, the contiguous loads of global or shared
 * memory that `e` evaluates unconditionally (not under a select or a
 * short-circuit operator), so the lanes then read the temporaries. */
static void hoist_loads(tl__cgen *g, const tl_ir_expr *e, uint16_t lanes) {
  if (!e || g->status != TL_OK) return;
  switch (e->kind) {
  case TL_EXPR_LOAD: {
    const tl_ir_buffer *buf = e->u.load.buffer;
    const tl_ir_expr *r = contiguous(e->u.load.n, e->u.load.indices, lanes);
    if (!r || !vector_memory(buf) || tl__cgen_hoisted_name(g, e)) return;
    tl__sb vt = TL__SB_INIT, src = TL__SB_INIT;
    if (vector_type_of(g, buf, lanes, &vt)) {
      const char *name = vector_temp(g, "vec_ld", buf->dtype, lanes);
      vector_access a = {tl__sb_str(&vt), NULL, first_element(g, buf, r, &src), name, NULL,
                         tl__cgen_space(g, buf->scope), lanes};
      print_vector_template(g, g->d->vector_read, &a);
      tl__cgen_hoisted h = {e, name};
      if (tl__vec_push(&g->hoisted, &h) != TL_OK) tl__cgen_oom(g);
    }
    if (tl__sb_status(&src) != TL_OK) tl__cgen_oom(g);
    tl__sb_free(&vt);
    tl__sb_free(&src);
    return;
  }
  case TL_EXPR_BINARY:
    if (e->u.binary.op == TL_BIN_AND || e->u.binary.op == TL_BIN_OR) return;
    hoist_loads(g, e->u.binary.a, lanes);
    hoist_loads(g, e->u.binary.b, lanes);
    return;
  case TL_EXPR_UNARY: hoist_loads(g, e->u.unary.a, lanes); return;
  case TL_EXPR_CAST: hoist_loads(g, e->u.cast.value, lanes); return;
  case TL_EXPR_CALL:
    for (uint32_t i = 0; i < e->u.call.nargs; i++) hoist_loads(g, e->u.call.args[i], lanes);
    return;
  default: return; /* selects evaluate one side only; broadcasts are scalars */
  }
}

/* The lanes of a vector store computed one by one into an aligned temporary, then
 * stored with one vector_write; false (nothing printed) without a vector type. */
static bool print_store_through_temp(tl__cgen *g, const tl_ir_buffer *buf, const tl_ir_expr *dr,
                                     const tl_ir_expr *value, uint16_t lanes) {
  tl__sb vt = TL__SB_INIT, dst = TL__SB_INIT;
  bool done = false;
  if (vector_type_of(g, buf, lanes, &vt)) {
    const char *tmp = vector_temp(g, "vec_st", buf->dtype, lanes);
    const char *lane = open_lanes(g, lanes);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "%s[%s]", tmp, lane);
    print_assigned_value(g, buf->dtype, value);
    close_lanes(g);
    vector_access a = {tl__sb_str(&vt), first_element(g, buf, dr, &dst), NULL, tmp,
                       tl__cgen_space(g, buf->scope), NULL, lanes};
    print_vector_template(g, g->d->vector_write, &a);
    done = true;
  }
  if (tl__sb_status(&dst) != TL_OK) tl__cgen_oom(g);
  tl__sb_free(&vt);
  tl__sb_free(&dst);
  return done;
}

/* A vector store buf[idx] = value of `lanes` lanes. A contiguous copy is one
 * vector_copy where the dialect has the vector type. In a dialect that computes
 * vectors through temporaries, a select on a scalar condition becomes an if/else
 * of two stores (only the chosen side is evaluated, as T.if_then_else means), and
 * other stores of global or shared memory read their contiguous loads ahead, compute
 * the lanes one by one into a temporary and store it as one vector. Otherwise:
 * lane by lane. */
static void print_vector_store(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx,
                               const tl_ir_expr *value, uint16_t lanes) {
  const tl_ir_expr *dr = contiguous(n, idx, lanes);
  bool temps = vectors_through_temps(g->d);
  if (temps && value->kind == TL_EXPR_SELECT && value->u.select.cond->dtype.lanes == 1) {
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "if (");
    tl__cgen_expr(g, value->u.select.cond, TL__PREC_TOP);
    tl__cgen_write(g, ") {\n");
    g->indent++;
    print_vector_store(g, buf, n, idx, value->u.select.t, lanes);
    g->indent--;
    tl__cgen_line(g, "} else {");
    g->indent++;
    print_vector_store(g, buf, n, idx, value->u.select.f, lanes);
    g->indent--;
    tl__cgen_line(g, "}");
    return;
  }
  if (dr && value->kind == TL_EXPR_LOAD && tl_dtype_eq(value->u.load.buffer->dtype, buf->dtype)) {
    const tl_ir_expr *sr = contiguous(value->u.load.n, value->u.load.indices, lanes);
    if (sr && print_vector_copy(g, buf, dr, value->u.load.buffer, sr, lanes)) return;
  }
  size_t hoisted = g->hoisted.len;
  if (temps) hoist_loads(g, value, lanes);
  if (!(temps && dr && vector_memory(buf) && print_store_through_temp(g, buf, dr, value, lanes))) {
    open_lanes(g, lanes);
    print_assign(g, buf, n, idx, value);
    close_lanes(g);
  }
  g->hoisted.len = hoisted; /* read ahead for this statement only */
}

static void print_store(tl__cgen *g, const tl_ir_stmt *s) {
  uint16_t lanes = store_lanes(s);
  if (lanes == 1) print_assign(g, s->u.store.buffer, s->u.store.n, s->u.store.indices, s->u.store.value);
  else print_vector_store(g, s->u.store.buffer, s->u.store.n, s->u.store.indices, s->u.store.value, lanes);
}

static void print_let(tl__cgen *g, const tl_ir_stmt *s) {
  const tl_ir_var *v = s->u.let.var;
  const tl_ir_expr *value = s->u.let.value;
  const char *type = tl__cgen_type(g, v->dtype);
  if (value->dtype.lanes > 1) {
    /* A vector value lives in an array, filled lane by lane. */
    char *name_copy = tl__strdup(tl__cgen_fresh(g, v->name));
    if (!name_copy) {
      tl__cgen_oom(g);
      return;
    }
    tl__cgen_line(g, "%s %s[%u];", type, name_copy, (unsigned)value->dtype.lanes);
    const char *lane = open_lanes(g, value->dtype.lanes);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "%s[%s] = ", name_copy, lane);
    tl__cgen_expr(g, value, TL__PREC_TOP);
    tl__cgen_write(g, ";\n");
    close_lanes(g);
    tl__cgen_bind(g, v, name_copy);
    tl__cgen_set_vector(g, v);
    tl__free(name_copy);
  } else {
    bool nonneg = tl__cgen_expr_nonneg(g, value), data = tl__cgen_expr_is_data(g, value);
    char *text = tl__cgen_expr_str(g, value);
    const char *name = tl__cgen_declare(g, v);
    if (nonneg) tl__cgen_set_nonneg(g, v);
    if (data) tl__cgen_set_data(g, v);
    if (v->dtype.code == TL_DTYPE_HANDLE)
      tl__cgen_line(g, "%s%s = %s;", type, name, text ? text : "");
    else
      tl__cgen_line(g, "const %s %s = %s;", type, name, text ? text : "");
    tl__free(text);
  }
  tl__cgen_stmt(g, s->u.let.body);
}

/* A shared.dyn buffer: a pointer into the kernel's one dynamic shared array, at
 * the next 16-byte aligned offset (docs/lowering.md); the array is declared with
 * the first such buffer. */
static void print_dyn_shared(tl__cgen *g, const tl_ir_buffer *buf, const char *type, int64_t size) {
  if (!g->d->dyn_shared_decl) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "buffer '%s' (shared.dyn): the %s dialect has no dynamic shared memory",
                   buf->name, g->d->name);
    return;
  }
  if (!g->dyn_array) {
    g->dyn_array = tl__cgen_fresh(g, "dyn_smem");
    const char *decl = g->d->dyn_shared_decl, *at = strstr(decl, "%s");
    if (!at) at = decl + strlen(decl);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__sb_appendn(g->out, decl, (size_t)(at - decl));
    tl__cgen_write(g, "%s%s\n", *at ? g->dyn_array : "", *at ? at + 2 : "");
  }
  const char *name = tl__cgen_declare(g, buf->data);
  tl__cgen_set_elem(g, buf->data, tl_dtype_scalar(buf->dtype));
  tl__cgen_line(g, "%s *%s = (%s *)(%s + %lld);", type, name, type, g->dyn_array, (long long)g->dyn_offset);
  int64_t bytes = size * (int64_t)tl_dtype_bytes(tl_dtype_scalar(buf->dtype));
  g->dyn_offset += (bytes + 15) / 16 * 16;
}

static void print_alloc(tl__cgen *g, const tl_ir_stmt *s) {
  const tl_ir_buffer *buf = s->u.alloc.buffer;
  int64_t size = 1;
  for (uint32_t i = 0; i < buf->ndim; i++) {
    const tl_ir_expr *e = buf->shape[i];
    if (!e || e->kind != TL_EXPR_INT || e->u.int_value < 0) {
      tl__cgen_error(g, TL_EUNSUPPORTED, "buffer '%s' (%s) needs a constant size for %s code generation", buf->name,
                     tl_ir_scope_name(buf->scope), g->d->name);
      return;
    }
    size *= e->u.int_value;
  }
  if (size == 0) size = 1; /* a zero-length array is not C */
  const char *type = tl__cgen_storage_type(g, buf->dtype);
  bool any_shared = buf->scope == TL_SCOPE_SHARED || buf->scope == TL_SCOPE_SHARED_DYN;
  const char *tmpl = any_shared ? g->d->shared_array : g->d->local_array;
  /* A dialect with array templates and no dynamic shared memory declares shared.dyn
   * buffers as fixed arrays: their sizes are constants (docs/codegen.md). */
  if (buf->scope == TL_SCOPE_SHARED_DYN && (g->d->dyn_shared_decl || !tmpl)) {
    print_dyn_shared(g, buf, type, size);
    return;
  }
  const char *name = tl__cgen_declare(g, buf->data);
  tl__cgen_set_elem(g, buf->data, tl_dtype_scalar(buf->dtype));
  if (tmpl) {
    char count[24];
    snprintf(count, sizeof count, "%lld", (long long)size);
    tl__cgen_subst sub[] = {{"T", type}, {"N", name}, {"C", count}, {"Q", tl__cgen_space(g, buf->scope)}};
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_expand(g, tmpl, sub, 4);
    tl__cgen_write(g, "\n");
    return;
  }
  bool shared = buf->scope == TL_SCOPE_SHARED;
  const char *space = shared && g->d->shared_space && *g->d->shared_space ? g->d->shared_space : NULL;
  const char *align = g->d->array_align && *g->d->array_align ? g->d->array_align : NULL;
  tl__cgen_line(g, "%s%s%s%s%s %s[%lld];", space ? space : "", space ? " " : "", align ? align : "", align ? " " : "",
                type, name, (long long)size);
}

/* The dialect's templates for one-element atomic `op`. */
static const tl__c_atomic *atomic_rows(const tl__cgen *g, tl_ir_op op) {
  switch (op) {
  case TL_OP_ATOMIC_MAX_ELEM: return g->d->atomic_max;
  case TL_OP_ATOMIC_MIN_ELEM: return g->d->atomic_min;
  default: return g->d->atomic_add;
  }
}

/* A one-element atomic (T.atomic_add_elem, _max_, _min_) through the dialect's row
 * for the element type. */
static void print_atomic(tl__cgen *g, tl_ir_op op, const tl_ir_buffer *buf, const char *dst, const char *value) {
  tl_dtype t = tl_dtype_scalar(buf->dtype);
  const char *sfx = tl__cgen_storage_suffix(t);
  const tl__c_atomic *row = atomic_rows(g, op);
  while (row && row->elem && strcmp(row->elem, sfx) != 0) row++;
  if (!row || !row->elem) {
    char tb[32];
    tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no %s for %s", g->d->name,
                   op == TL_OP_ATOMIC_ADD_ELEM ? "atomic add" : tl_ir_op_name(op), tl_dtype_name(t, tb, sizeof tb));
    return;
  }
  tl__cgen_subst sub[] = {{"D", dst},
                          {"V", value},
                          {"T", tl__cgen_storage_type(g, t)},
                          {"S", sfx},
                          {"A", tl__cgen_space(g, buf->scope)},
                          {"a", tl__cgen_space_word(buf->scope)}};
  if (row->helper) tl__cgen_use_helper(g, row->helper, t);
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_expand(g, row->text, sub, sizeof sub / sizeof sub[0]);
  tl__cgen_write(g, "\n");
}

static void print_eval(tl__cgen *g, const tl_ir_stmt *s) {
  const tl_ir_expr *e = s->u.eval.expr;
  if (e->kind == TL_EXPR_CALL && tl__op_is_atomic_elem(e->u.call.op)) {
    const tl_ir_expr *dst = e->u.call.nargs == 2 ? e->u.call.args[0] : NULL;
    const tl_ir_expr *value = e->u.call.nargs == 2 ? e->u.call.args[1] : NULL;
    if (!dst || dst->kind != TL_EXPR_REGION || !value || value->kind == TL_EXPR_REGION) {
      tl__cgen_error(g, TL_EINVAL, "%s takes a one-element region and a value", tl_ir_op_name(e->u.call.op));
      return;
    }
    tl__sb d = TL__SB_INIT;
    tl__sb *prev = tl__cgen_capture_begin(g, &d);
    tl__cgen_element(g, dst->u.region.buffer, dst->u.region.ndim, dst->u.region.mins);
    tl__cgen_capture_end(g, prev);
    char *v = tl__cgen_expr_str(g, value);
    tl__cgen_type(g, dst->u.region.buffer->dtype); /* the element type's helpers, for the template */
    if (v && tl__sb_status(&d) == TL_OK) print_atomic(g, e->u.call.op, dst->u.region.buffer, tl__sb_str(&d), v);
    tl__free(v);
    tl__sb_free(&d);
    return;
  }
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_GEMM_STRIDED) {
    tl__cgen_gemm_strided(g, e); /* c_gemm.c */
    return;
  }
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_MMA_M16N8K16) {
    tl__cgen_mma(g, e); /* c_gemm.c */
    return;
  }
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_LDMATRIX_X4) {
    tl__cgen_ldmatrix(g, e); /* c_gemm.c */
    return;
  }
  if (e->kind == TL_EXPR_CALL && (e->u.call.op == TL_OP_CP_ASYNC || e->u.call.op == TL_OP_CP_ASYNC_COMMIT ||
                                   e->u.call.op == TL_OP_CP_ASYNC_WAIT)) {
    tl__cgen_cp_async_op(g, e); /* c_async.c */
    return;
  }
  if (e->kind == TL_EXPR_CALL && tl_ir_op_is_tile(e->u.call.op)) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "%s must be lowered before %s code generation", tl_ir_op_name(e->u.call.op),
                   g->d->name);
    return;
  }
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_expr(g, e, TL__PREC_TOP);
  tl__cgen_write(g, ";\n");
}

void tl__cgen_stmt(tl__cgen *g, const tl_ir_stmt *s) {
  if (g->status != TL_OK) return;
  if (!s) {
    tl__cgen_error(g, TL_EINVAL, "missing statement");
    return;
  }
  if (g->ext_stmt && g->ext_stmt(g, s)) return;
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) tl__cgen_stmt(g, s->u.seq.stmts[i]);
    return;
  case TL_STMT_FOR: print_for(g, s); return;
  case TL_STMT_IF: print_if(g, s); return;
  case TL_STMT_STORE: print_store(g, s); return;
  case TL_STMT_LET: print_let(g, s); return;
  case TL_STMT_ALLOC: print_alloc(g, s); return;
  case TL_STMT_EVAL: print_eval(g, s); return;
  case TL_STMT_BARRIER:
    if (g->d->barrier) tl__cgen_line(g, "%s", g->d->barrier);
    return;
  case TL_STMT_KERNEL:
    tl__cgen_error(g, TL_EUNSUPPORTED, "T.Kernel must be lowered before %s code generation", g->d->name);
    return;
  case TL_STMT_ASSERT:
    tl__cgen_error(g, TL_EUNSUPPORTED, "argument checks belong in host code, not in a device kernel");
    return;
  case TL_STMT_LAUNCH:
    tl__cgen_error(g, TL_EUNSUPPORTED, "kernel launches belong in host code, not in a device kernel");
    return;
  }
  tl__cgen_error(g, TL_EINVAL, "unknown statement kind %d", (int)s->kind);
}

