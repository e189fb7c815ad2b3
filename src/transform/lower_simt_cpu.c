/* Per-thread kernels on the CPU (part of lower_kernel_cpu): a T.Kernel whose body
 * binds thread indices (T.get_thread_binding, ir/parse/elab_simt.c) is code that
 * every thread of the block runs, with T.sync_threads between its phases. One
 * core runs the block, so the threads become loops between the barriers:
 *
 *   S1; T.sync_threads(); for k in range(n): (S2; T.sync_threads(); S3)
 * becomes
 *   for tz, ty, tx in T.serial(Z, Y, X): S1
 *   for k in range(n):
 *     for tz, ty, tx in T.serial(Z, Y, X): S2
 *     for tz, ty, tx in T.serial(Z, Y, X): S3
 *
 * which is what the threads compute whenever the kernel is free of races (the
 * interpreter reports the others). Every thread's local and local.var buffers
 * become one buffer with the linear thread index as a leading dimension, so a
 * thread's values live from one phase to the next; all allocations move to the
 * top of the block. A loop, if or let that holds a barrier stays at block level:
 * its bounds, condition or value must be the same in every thread (no thread
 * index, no thread's own memory), except a let of a pure value (no loads), which
 * every phase under it computes again. Thread extents must be constants. */
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "ir/module.h"
#include "transform/lower_simt_cpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct expansion {
  const tl_ir_buffer *from;
  tl_ir_buffer *to;
} expansion;

typedef struct sctx {
  tl_ir_module *mod;
  tl_ir_var *tv[3];        /* tx, ty, tz (made for dimensions the kernel does not bind) */
  tl_ir_expr *ext[3];      /* their extents (constants) */
  tl_ir_expr *tid;         /* tx + X * (ty + Y * tz) */
  int64_t nthreads;
  tl__vec expanded;        /* expansion */
  tl__vec allocs;          /* tl_ir_stmt *: the hoisted allocations */
  tl__vec varying;         /* const tl_ir_var *: block-level lets whose value differs between threads */
  tl__vec replayed;        /* tl_ir_stmt *: LETs of pure varying values, re-bound in every phase */
  tl_status st;
} sctx;

static const char *const k_names[3] = {"tx", "ty", "tz"};

static tl_ir_buffer *expanded_of(const sctx *c, const tl_ir_buffer *b) {
  for (size_t i = 0; i < c->expanded.len; i++) {
    const expansion *x = &TL__VEC_AT(&c->expanded, expansion, i);
    if (x->from == b) return x->to;
  }
  return NULL;
}

/* ------------------------------------------- allocations and thread memory */

static tl_ir_expr **prepend(tl_ir_module *mod, tl_ir_expr *first, uint32_t n, tl_ir_expr *const *rest) {
  tl_ir_expr **v = tl__ir_alloc(mod, sizeof *v * (n + 1));
  if (!v) return NULL;
  v[0] = first;
  for (uint32_t i = 0; i < n; i++) v[i + 1] = rest[i];
  return v;
}

static bool const_shape(const tl_ir_buffer *b) {
  for (uint32_t d = 0; d < b->ndim; d++)
    if (!tl__is_const_int(b->shape[d], &(int64_t){0})) return false;
  return true;
}

static tl_ir_stmt *hoist_alloc(tl_ir_mutator *mu, sctx *c, tl_ir_stmt *s) {
  tl_ir_module *mod = mu->mod;
  tl_ir_buffer *b = s->u.alloc.buffer;
  if (!const_shape(b)) {
    tl_ir_mutator_fail(mu, tl__pass_error(TL_EUNSUPPORTED, b->span.line ? b->span : s->span,
                                          "buffer '%s' in a kernel that binds thread indices needs a constant shape on "
                                          "the c target (its threads' copies are allocated for the whole block)",
                                          b->name));
    return NULL;
  }
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *hoisted = s;
  if (b->scope == TL_SCOPE_LOCAL || b->scope == TL_SCOPE_LOCAL_VAR) {
    tl_ir_expr *n = tl_ir_i32(mod, c->nthreads);
    tl_ir_expr **shape = n ? prepend(mod, n, b->ndim, b->shape) : NULL;
    tl_ir_buffer *to = shape ? tl_ir_buffer_new(mod, b->name, b->dtype, b->ndim + 1, shape, NULL, TL_SCOPE_LOCAL) : NULL;
    hoisted = to ? tl_ir_alloc(mod, to) : NULL;
    expansion x = {b, to};
    if (hoisted && (c->st = tl__vec_push(&c->expanded, &x)) != TL_OK) hoisted = NULL;
  }
  tl_ir_stmt *empty = hoisted ? tl_ir_seq(mod, 0, NULL) : NULL;
  tl_ir_builder_set_loc(mod, old);
  if (!empty) {
    if (c->st != TL_OK) tl_ir_mutator_fail(mu, c->st);
    return NULL;
  }
  if ((c->st = tl__vec_push(&c->allocs, &hoisted)) != TL_OK) {
    tl_ir_mutator_fail(mu, c->st);
    return NULL;
  }
  return empty;
}

static tl_ir_expr *thread_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  sctx *c = mu->ctx;
  tl_ir_expr *r = tl_ir_mutate_expr_children(mu, e);
  if (!r) return NULL;
  tl_ir_module *mod = mu->mod;
  tl_ir_buffer *to;
  if (r->kind == TL_EXPR_LOAD && (to = expanded_of(c, r->u.load.buffer))) {
    tl_ir_span old = tl__loc_push(mod, r->span);
    tl_ir_expr **ix = prepend(mod, c->tid, r->u.load.n, r->u.load.indices);
    tl_ir_expr *n = ix ? tl_ir_load(mod, to, r->u.load.n + 1, ix) : NULL;
    tl_ir_builder_set_loc(mod, old);
    return n;
  }
  if (r->kind == TL_EXPR_REGION && (to = expanded_of(c, r->u.region.buffer))) {
    tl_ir_span old = tl__loc_push(mod, r->span);
    tl_ir_expr *one = tl_ir_i32(mod, 1);
    tl_ir_expr **mins = prepend(mod, c->tid, r->u.region.ndim, r->u.region.mins);
    tl_ir_expr **exts = one ? prepend(mod, one, r->u.region.ndim, r->u.region.extents) : NULL;
    tl_ir_expr *n = mins && exts ? tl_ir_region(mod, to, mins, exts, TL_REGION_SLICE) : NULL;
    tl_ir_builder_set_loc(mod, old);
    return n;
  }
  return r;
}

static tl_ir_stmt *thread_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  sctx *c = mu->ctx;
  if (s->kind == TL_STMT_ALLOC) return hoist_alloc(mu, c, s);
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  tl_ir_buffer *to;
  if (!r || r->kind != TL_STMT_STORE || !(to = expanded_of(c, r->u.store.buffer))) return r;
  tl_ir_module *mod = mu->mod;
  tl_ir_span old = tl__loc_push(mod, r->span);
  tl_ir_expr **ix = prepend(mod, c->tid, r->u.store.n, r->u.store.indices);
  tl_ir_stmt *n = ix ? tl_ir_store(mod, to, r->u.store.n + 1, ix, r->u.store.value) : NULL;
  tl_ir_builder_set_loc(mod, old);
  return n;
}

/* ------------------------------------------------------------------ phases */

typedef struct scan {
  const sctx *c;
  bool barrier, varies, loads;
} scan;

static bool scan_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  scan *sc = v->ctx;
  if (s->kind == TL_STMT_BARRIER) sc->barrier = true;
  return !sc->barrier;
}

static bool has_barrier(const tl_ir_stmt *s) {
  scan sc = {0};
  tl_ir_visitor v = {NULL, scan_stmt, &sc};
  tl_ir_visit_stmt(&v, s);
  return sc.barrier;
}

static bool scan_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  scan *sc = v->ctx;
  if (e->kind == TL_EXPR_LOAD) sc->loads = true;
  if (e->kind == TL_EXPR_VAR) {
    for (int i = 0; i < 3; i++)
      if (e->u.var == sc->c->tv[i]) sc->varies = true;
    if (tl__vec_has_ptr(&sc->c->varying, e->u.var)) sc->varies = true;
  }
  return true;
}

/* Thread memory is indexed by the thread index once expanded, so a load of it varies. */
static bool varies(const sctx *c, const tl_ir_expr *e, bool *loads) {
  scan sc = {c, false, false, false};
  tl_ir_visitor v = {scan_expr, NULL, &sc};
  tl_ir_visit_expr(&v, e);
  if (loads) *loads = sc.loads;
  return sc.varies;
}

static tl_ir_stmt *thread_loop(sctx *c, tl_ir_stmt *body, tl_ir_span span) {
  tl_ir_module *mod = c->mod;
  tl_ir_span old = tl__loc_push(mod, span);
  for (size_t i = c->replayed.len; body && i-- > 0;) {
    const tl_ir_stmt *let = TL__VEC_AT(&c->replayed, tl_ir_stmt *, i);
    body = tl_ir_let(mod, let->u.let.var, let->u.let.value, body);
  }
  tl_ir_var *vars[3] = {c->tv[2], c->tv[1], c->tv[0]};
  tl_ir_expr *exts[3] = {c->ext[2], c->ext[1], c->ext[0]};
  tl_ir_stmt *r = body ? tl_ir_for(mod, TL_FOR_SERIAL, 3, vars, NULL, exts, body) : NULL;
  tl_ir_builder_set_loc(mod, old);
  return r;
}

static tl_ir_stmt *fail_at(sctx *c, tl_ir_span span, const char *what) {
  c->st = tl__pass_error(TL_EUNSUPPORTED, span,
                         "T.sync_threads under %s that differs between threads: the c target runs a block's threads "
                         "one after another between barriers, so every thread must reach the same barriers",
                         what);
  return NULL;
}

static tl_ir_stmt *phases(sctx *c, tl_ir_stmt *s);

static tl_ir_stmt *phases_seq(sctx *c, tl_ir_stmt *s) {
  tl_ir_module *mod = c->mod;
  tl__vec out, run;
  tl__vec_init(&out, sizeof(tl_ir_stmt *));
  tl__vec_init(&run, sizeof(tl_ir_stmt *));
  tl_ir_stmt *r = NULL;
  for (uint32_t i = 0; i <= s->u.seq.n && c->st == TL_OK; i++) {
    tl_ir_stmt *x = i < s->u.seq.n ? s->u.seq.stmts[i] : NULL;
    if (x && !has_barrier(x)) {
      c->st = tl__vec_push(&run, &x);
      continue;
    }
    if (run.len) { /* the statements since the last barrier: one phase */
      tl_ir_span old = tl__loc_push(mod, s->span);
      tl_ir_stmt *body = tl_ir_seq(mod, (uint32_t)run.len, (tl_ir_stmt *const *)run.data);
      tl_ir_builder_set_loc(mod, old);
      tl_ir_stmt *loop = body ? thread_loop(c, body, TL__VEC_AT(&run, tl_ir_stmt *, 0)->span) : NULL;
      if (!loop || (c->st = tl__vec_push(&out, &loop)) != TL_OK) goto done;
      run.len = 0;
    }
    if (!x || x->kind == TL_STMT_BARRIER) continue;
    tl_ir_stmt *p = phases(c, x);
    if (!p || (c->st = tl__vec_push(&out, &p)) != TL_OK) goto done;
  }
  if (c->st == TL_OK) {
    tl_ir_span old = tl__loc_push(mod, s->span);
    r = tl_ir_seq(mod, (uint32_t)out.len, (tl_ir_stmt *const *)out.data);
    tl_ir_builder_set_loc(mod, old);
  }
done:
  tl__vec_free(&out);
  tl__vec_free(&run);
  if (!r && c->st == TL_OK) c->st = tl__built(mod, NULL);
  return r;
}

/* s holds a barrier: block-level control around per-thread phases. */
static tl_ir_stmt *phases(sctx *c, tl_ir_stmt *s) {
  tl_ir_module *mod = c->mod;
  if (!has_barrier(s)) return thread_loop(c, s, s->span);
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *r = NULL;
  switch (s->kind) {
    case TL_STMT_BARRIER: r = tl_ir_seq(mod, 0, NULL); break;
    case TL_STMT_SEQ: r = phases_seq(c, s); break;
    case TL_STMT_FOR: {
      for (uint32_t i = 0; i < s->u.loop.n; i++)
        if (varies(c, s->u.loop.extents[i], NULL) ||
            (s->u.loop.mins && s->u.loop.mins[i] && varies(c, s->u.loop.mins[i], NULL))) {
          fail_at(c, s->span, "a loop whose bounds");
          goto done;
        }
      tl_ir_stmt *body = phases(c, s->u.loop.body);
      tl_ir_for_kind k = s->u.loop.kind == TL_FOR_UNROLLED ? TL_FOR_UNROLLED : TL_FOR_SERIAL;
      if (body) r = tl_ir_for(mod, k, s->u.loop.n, s->u.loop.vars, s->u.loop.mins, s->u.loop.extents, body);
      break;
    }
    case TL_STMT_IF: {
      if (varies(c, s->u.if_.cond, NULL)) {
        fail_at(c, s->span, "a condition");
        goto done;
      }
      tl_ir_stmt *t = phases(c, s->u.if_.then_);
      tl_ir_stmt *e = t && s->u.if_.else_ ? phases(c, s->u.if_.else_) : NULL;
      if (t && (e || !s->u.if_.else_)) r = tl_ir_if(mod, s->u.if_.cond, t, e);
      break;
    }
    case TL_STMT_LET: {
      bool loads;
      if (!varies(c, s->u.let.value, &loads)) {
        tl_ir_stmt *body = phases(c, s->u.let.body);
        if (body) r = tl_ir_let(mod, s->u.let.var, s->u.let.value, body);
        break;
      }
      if (loads) {
        fail_at(c, s->span, "a let whose value (read from memory)");
        goto done;
      }
      /* a pure value of the thread indices: every phase computes it again */
      if ((c->st = tl__vec_push(&c->replayed, &s)) != TL_OK) goto done;
      if ((c->st = tl__vec_push(&c->varying, &s->u.let.var)) != TL_OK) goto done;
      r = phases(c, s->u.let.body);
      c->replayed.len--;
      break;
    }
    default:
      c->st = tl__pass_error(TL_EINTERNAL, s->span, "a barrier inside a statement of kind %d", (int)s->kind);
      break;
  }
done:
  tl_ir_builder_set_loc(mod, old);
  if (!r && c->st == TL_OK) c->st = tl__built(mod, NULL);
  return r;
}

tl_status tl__lower_simt_cpu(tl_ir_module *mod, const tl_ir_stmt *kernel, tl_ir_stmt *body, tl_ir_stmt **out) {
  sctx c;
  memset(&c, 0, sizeof c);
  c.mod = mod;
  tl__vec_init(&c.expanded, sizeof(expansion));
  tl__vec_init(&c.allocs, sizeof(tl_ir_stmt *));
  tl__vec_init(&c.varying, sizeof(const tl_ir_var *));
  tl__vec_init(&c.replayed, sizeof(tl_ir_stmt *));
  tl_ir_span old = tl__loc_push(mod, kernel->span);
  c.nthreads = 1;
  for (uint32_t i = 0; i < 3 && c.st == TL_OK; i++) {
    const tl_ir_expr *x = i < kernel->u.kernel.threads_ndim ? kernel->u.kernel.threads[i] : NULL;
    int64_t n = 1;
    if (x && (!tl__is_const_int(x, &n) || n < 1 || n > 1024)) {
      c.st = tl__pass_error(TL_EUNSUPPORTED, kernel->span,
                            "a kernel that binds thread indices needs constant thread counts from 1 to 1024 on the c "
                            "target");
      break;
    }
    c.nthreads *= n;
    c.ext[i] = tl_ir_i32(mod, n);
    c.tv[i] = kernel->u.kernel.thread_vars[i] ? kernel->u.kernel.thread_vars[i] : tl_ir_var_new(mod, k_names[i], TL_DT_INT32);
    if (c.st == TL_OK) c.st = tl__built(mod, c.ext[i]);
    if (c.st == TL_OK) c.st = tl__built(mod, c.tv[i]);
  }
  if (c.st == TL_OK && c.nthreads > 1024)
    c.st = tl__pass_error(TL_EUNSUPPORTED, kernel->span, "a block of %lld threads (CUDA's limit is 1024)",
                          (long long)c.nthreads);
  if (c.st == TL_OK) {
    /* tx + X * (ty + Y * tz) */
    tl_ir_expr *t = tl_ir_var_ref(mod, c.tv[2]);
    t = tl__add(mod, tl__mul(mod, t, c.ext[1]), tl_ir_var_ref(mod, c.tv[1]));
    c.tid = tl__add(mod, tl__mul(mod, t, c.ext[0]), tl_ir_var_ref(mod, c.tv[0]));
    c.st = tl__built(mod, c.tid);
  }
  tl_ir_stmt *r = NULL;
  if (c.st == TL_OK) {
    tl_ir_mutator mu = {mod, thread_expr, thread_stmt, &c, TL_OK};
    tl_ir_stmt *b = tl_ir_mutate_stmt(&mu, body);
    if (!b) c.st = mu.status != TL_OK ? mu.status : TL_EINTERNAL;
    tl_ir_stmt *p = b ? phases(&c, b) : NULL;
    if (p && (c.st = tl__vec_push(&c.allocs, &p)) == TL_OK) {
      r = tl_ir_seq(mod, (uint32_t)c.allocs.len, (tl_ir_stmt *const *)c.allocs.data);
      c.st = tl__built(mod, r);
    }
  }
  tl_ir_builder_set_loc(mod, old);
  tl__vec_free(&c.expanded);
  tl__vec_free(&c.allocs);
  tl__vec_free(&c.varying);
  tl__vec_free(&c.replayed);
  *out = c.st == TL_OK ? r : NULL;
  return c.st;
}
