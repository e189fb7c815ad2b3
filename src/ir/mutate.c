/* Copy-on-write rewriting. A node is rebuilt only when one of its children
 * changed; the rebuilt node keeps the original's span and fields, and derived
 * dtypes (binary, unary, select, load, ramp, broadcast) are recomputed with the
 * builder's rules so that, say, substituting a vector for a scalar index gives a
 * vector load. The first failure is recorded in mu->status; every later call
 * returns NULL at once, so the whole mutation unwinds. */
#include <string.h>

#include "base/error.h"
#include "module.h"

tl_status tl_ir_mutator_fail(tl_ir_mutator *mu, tl_status s) {
  if (mu->status == TL_OK) mu->status = s;
  return s;
}

/* A callback returned NULL without calling tl_ir_mutator_fail: a builder it called
 * failed (its message is set), or the callback is wrong. */
static void null_result(tl_ir_mutator *mu, uint64_t failures_before) {
  if (mu->status != TL_OK) return;
  if (mu->mod->nfailures > failures_before)
    mu->status = mu->mod->last_failure;
  else
    mu->status = tl__error(TL_EINTERNAL,
                           "mutator: a callback returned NULL without calling tl_ir_mutator_fail, or a node is missing");
}

tl_ir_expr *tl_ir_mutate_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  if (mu->status != TL_OK || !e) return NULL;
  uint64_t before = mu->mod->nfailures;
  tl_ir_expr *r = mu->expr ? mu->expr(mu, e) : tl_ir_mutate_expr_children(mu, e);
  if (!r) null_result(mu, before);
  return r;
}

tl_ir_stmt *tl_ir_mutate_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (mu->status != TL_OK || !s) return NULL;
  uint64_t before = mu->mod->nfailures;
  tl_ir_stmt *r = mu->stmt ? mu->stmt(mu, s) : tl_ir_mutate_stmt_children(mu, s);
  if (!r) null_result(mu, before);
  return r;
}

/* Arena memory, recording OOM as the mutation's failure. */
static void *mu_alloc(tl_ir_mutator *mu, size_t n) {
  void *p = tl__ir_alloc(mu->mod, n);
  if (!p) tl_ir_mutator_fail(mu, TL_ENOMEM);
  return p;
}

/* Mutates an array of expressions: the same array when nothing changed, a new one
 * otherwise, NULL on failure (*failed set). */
static tl_ir_expr **mutate_exprs(tl_ir_mutator *mu, tl_ir_expr **src, uint32_t n, bool *failed) {
  tl_ir_expr **out = src;
  for (uint32_t i = 0; i < n; i++) {
    if (!src[i]) continue; /* malformed, but not ours to fail on */
    tl_ir_expr *r = tl_ir_mutate_expr(mu, src[i]);
    if (!r) {
      *failed = true;
      return NULL;
    }
    if (r != src[i] && out == src) {
      out = mu_alloc(mu, sizeof *out * n);
      if (!out) {
        *failed = true;
        return NULL;
      }
      memcpy(out, src, sizeof *out * n);
    }
    out[i] = r;
  }
  return out;
}

static tl_ir_stmt **mutate_stmts(tl_ir_mutator *mu, tl_ir_stmt **src, uint32_t n, bool *failed) {
  tl_ir_stmt **out = src;
  for (uint32_t i = 0; i < n; i++) {
    if (!src[i]) continue;
    tl_ir_stmt *r = tl_ir_mutate_stmt(mu, src[i]);
    if (!r) {
      *failed = true;
      return NULL;
    }
    if (r != src[i] && out == src) {
      out = mu_alloc(mu, sizeof *out * n);
      if (!out) {
        *failed = true;
        return NULL;
      }
      memcpy(out, src, sizeof *out * n);
    }
    out[i] = r;
  }
  return out;
}

/* A copy of e (same span and fields) for the caller to update. */
static tl_ir_expr *copy_expr(tl_ir_mutator *mu, const tl_ir_expr *e) {
  tl_ir_expr *n = mu_alloc(mu, sizeof *n);
  if (n) *n = *e;
  return n;
}

static tl_ir_stmt *copy_stmt(tl_ir_mutator *mu, const tl_ir_stmt *s) {
  tl_ir_stmt *n = mu_alloc(mu, sizeof *n);
  if (n) *n = *s;
  return n;
}

tl_ir_expr *tl_ir_mutate_expr_children(tl_ir_mutator *mu, tl_ir_expr *e) {
  if (mu->status != TL_OK || !e) return NULL;
  bool failed = false;
  tl_ir_expr *n;
  switch (e->kind) {
  case TL_EXPR_INT:
  case TL_EXPR_FLOAT:
  case TL_EXPR_STR:
  case TL_EXPR_VAR:
    return e;
  case TL_EXPR_BINARY: {
    tl_ir_expr *a = tl_ir_mutate_expr(mu, e->u.binary.a);
    tl_ir_expr *b = a ? tl_ir_mutate_expr(mu, e->u.binary.b) : NULL;
    if (!b) return NULL;
    if (a == e->u.binary.a && b == e->u.binary.b) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.binary.a = a;
    n->u.binary.b = b;
    n->dtype = tl__ir_binary_dtype(e->u.binary.op, a->dtype);
    return n;
  }
  case TL_EXPR_UNARY: {
    tl_ir_expr *a = tl_ir_mutate_expr(mu, e->u.unary.a);
    if (!a) return NULL;
    if (a == e->u.unary.a) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.unary.a = a;
    n->dtype = tl__ir_unary_dtype(e->u.unary.op, a->dtype);
    return n;
  }
  case TL_EXPR_SELECT: {
    tl_ir_expr *c = tl_ir_mutate_expr(mu, e->u.select.cond);
    tl_ir_expr *t = c ? tl_ir_mutate_expr(mu, e->u.select.t) : NULL;
    tl_ir_expr *f = t ? tl_ir_mutate_expr(mu, e->u.select.f) : NULL;
    if (!f) return NULL;
    if (c == e->u.select.cond && t == e->u.select.t && f == e->u.select.f) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.select.cond = c;
    n->u.select.t = t;
    n->u.select.f = f;
    n->dtype = t->dtype;
    return n;
  }
  case TL_EXPR_CAST: {
    tl_ir_expr *v = tl_ir_mutate_expr(mu, e->u.cast.value);
    if (!v) return NULL;
    if (v == e->u.cast.value) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.cast.value = v;
    return n;
  }
  case TL_EXPR_LOAD: {
    tl_ir_expr **idx = mutate_exprs(mu, e->u.load.indices, e->u.load.n, &failed);
    if (failed) return NULL;
    if (idx == e->u.load.indices) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.load.indices = idx;
    n->dtype = tl__ir_load_dtype(e->u.load.buffer, e->u.load.n, idx);
    return n;
  }
  case TL_EXPR_CALL: {
    tl_ir_expr **args = mutate_exprs(mu, e->u.call.args, e->u.call.nargs, &failed);
    if (failed) return NULL;
    if (args == e->u.call.args) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.call.args = args;
    return n;
  }
  case TL_EXPR_REGION: {
    tl_ir_expr **mins = mutate_exprs(mu, e->u.region.mins, e->u.region.ndim, &failed);
    tl_ir_expr **ext = failed ? NULL : mutate_exprs(mu, e->u.region.extents, e->u.region.ndim, &failed);
    if (failed) return NULL;
    if (mins == e->u.region.mins && ext == e->u.region.extents) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.region.mins = mins;
    n->u.region.extents = ext;
    return n;
  }
  case TL_EXPR_RAMP: {
    tl_ir_expr *b = tl_ir_mutate_expr(mu, e->u.ramp.base);
    if (!b) return NULL;
    if (b == e->u.ramp.base) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.ramp.base = b;
    n->dtype = tl_dtype_with_lanes(b->dtype, e->dtype.lanes);
    return n;
  }
  case TL_EXPR_BROADCAST: {
    tl_ir_expr *v = tl_ir_mutate_expr(mu, e->u.broadcast.value);
    if (!v) return NULL;
    if (v == e->u.broadcast.value) return e;
    if (!(n = copy_expr(mu, e))) return NULL;
    n->u.broadcast.value = v;
    n->dtype = tl_dtype_with_lanes(v->dtype, e->dtype.lanes);
    return n;
  }
  }
  tl_ir_mutator_fail(mu, tl__error(TL_EINTERNAL, "mutator: unknown expression kind %d", (int)e->kind));
  return NULL;
}

/* Mutates the first `n` entries of a fixed array of up to 3 expressions into out;
 * returns whether any changed, false with mu->status set on failure. */
static bool mutate_triple(tl_ir_mutator *mu, tl_ir_expr *const in[3], uint32_t n, tl_ir_expr *out[3], bool *failed) {
  bool changed = false;
  for (uint32_t i = 0; i < 3; i++) {
    out[i] = in[i];
    if (i >= n || !in[i]) continue;
    if (!(out[i] = tl_ir_mutate_expr(mu, in[i]))) {
      *failed = true;
      return false;
    }
    changed |= out[i] != in[i];
  }
  return changed;
}

tl_ir_stmt *tl_ir_mutate_stmt_children(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (mu->status != TL_OK || !s) return NULL;
  bool failed = false;
  tl_ir_stmt *n;
  switch (s->kind) {
  case TL_STMT_SEQ: {
    tl_ir_stmt **st = mutate_stmts(mu, s->u.seq.stmts, s->u.seq.n, &failed);
    if (failed) return NULL;
    if (st == s->u.seq.stmts) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.seq.stmts = st;
    return n;
  }
  case TL_STMT_FOR: {
    tl_ir_expr **mins = mutate_exprs(mu, s->u.loop.mins, s->u.loop.n, &failed);
    tl_ir_expr **ext = failed ? NULL : mutate_exprs(mu, s->u.loop.extents, s->u.loop.n, &failed);
    tl_ir_stmt *body = failed ? NULL : tl_ir_mutate_stmt(mu, s->u.loop.body);
    if (!body) return NULL;
    if (mins == s->u.loop.mins && ext == s->u.loop.extents && body == s->u.loop.body) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.loop.mins = mins;
    n->u.loop.extents = ext;
    n->u.loop.body = body;
    return n;
  }
  case TL_STMT_IF: {
    tl_ir_expr *c = tl_ir_mutate_expr(mu, s->u.if_.cond);
    tl_ir_stmt *t = c ? tl_ir_mutate_stmt(mu, s->u.if_.then_) : NULL;
    if (!t) return NULL;
    tl_ir_stmt *e = s->u.if_.else_;
    if (e && !(e = tl_ir_mutate_stmt(mu, e))) return NULL;
    if (c == s->u.if_.cond && t == s->u.if_.then_ && e == s->u.if_.else_) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.if_.cond = c;
    n->u.if_.then_ = t;
    n->u.if_.else_ = e;
    return n;
  }
  case TL_STMT_STORE: {
    tl_ir_expr **idx = mutate_exprs(mu, s->u.store.indices, s->u.store.n, &failed);
    tl_ir_expr *v = failed ? NULL : tl_ir_mutate_expr(mu, s->u.store.value);
    if (!v) return NULL;
    if (idx == s->u.store.indices && v == s->u.store.value) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.store.indices = idx;
    n->u.store.value = v;
    return n;
  }
  case TL_STMT_LET: {
    tl_ir_expr *v = tl_ir_mutate_expr(mu, s->u.let.value);
    tl_ir_stmt *body = v ? tl_ir_mutate_stmt(mu, s->u.let.body) : NULL;
    if (!body) return NULL;
    if (v == s->u.let.value && body == s->u.let.body) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.let.value = v;
    n->u.let.body = body;
    return n;
  }
  case TL_STMT_ALLOC:
  case TL_STMT_BARRIER:
    return s;
  case TL_STMT_EVAL: {
    tl_ir_expr *e = tl_ir_mutate_expr(mu, s->u.eval.expr);
    if (!e) return NULL;
    if (e == s->u.eval.expr) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.eval.expr = e;
    return n;
  }
  case TL_STMT_KERNEL: {
    tl_ir_expr *grid[3], *threads[3];
    bool changed = mutate_triple(mu, s->u.kernel.grid, s->u.kernel.grid_ndim, grid, &failed);
    if (failed) return NULL;
    changed |= mutate_triple(mu, s->u.kernel.threads, s->u.kernel.threads_ndim, threads, &failed);
    if (failed) return NULL;
    tl_ir_stmt *body = tl_ir_mutate_stmt(mu, s->u.kernel.body);
    if (!body) return NULL;
    if (!changed && body == s->u.kernel.body) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    memcpy(n->u.kernel.grid, grid, sizeof grid);
    memcpy(n->u.kernel.threads, threads, sizeof threads);
    n->u.kernel.body = body;
    return n;
  }
  case TL_STMT_ASSERT: {
    tl_ir_expr *c = tl_ir_mutate_expr(mu, s->u.assert_.cond);
    if (!c) return NULL;
    if (c == s->u.assert_.cond) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.assert_.cond = c;
    return n;
  }
  case TL_STMT_LAUNCH: {
    tl_ir_expr **args = mutate_exprs(mu, s->u.launch.args, s->u.launch.nargs, &failed);
    if (failed) return NULL;
    tl_ir_expr *grid[3], *block[3];
    bool changed = mutate_triple(mu, s->u.launch.grid, 3, grid, &failed);
    if (failed) return NULL;
    changed |= mutate_triple(mu, s->u.launch.block, 3, block, &failed);
    if (failed) return NULL;
    tl_ir_expr *dyn = s->u.launch.dyn_shared_bytes;
    if (dyn && !(dyn = tl_ir_mutate_expr(mu, dyn))) return NULL;
    if (!changed && args == s->u.launch.args && dyn == s->u.launch.dyn_shared_bytes) return s;
    if (!(n = copy_stmt(mu, s))) return NULL;
    n->u.launch.args = args;
    memcpy(n->u.launch.grid, grid, sizeof grid);
    memcpy(n->u.launch.block, block, sizeof block);
    n->u.launch.dyn_shared_bytes = dyn;
    return n;
  }
  }
  tl_ir_mutator_fail(mu, tl__error(TL_EINTERNAL, "mutator: unknown statement kind %d", (int)s->kind));
  return NULL;
}
