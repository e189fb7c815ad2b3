/* Structural hash of functions and modules: the same walk as equal.c, feeding a
 * tl__hasher with exactly what equality compares (uses as resolved definition
 * places, never names of locals, ids or spans), so equal trees hash equally. */
#include <math.h>
#include <string.h>

#include "base/hash.h"
#include "equal.h"
#include "module.h"
#include "scope.h"

typedef struct hash_ctx {
  const tl_ir_func *f;
  tl__hasher h;
} hash_ctx;

/* Distinct tags keep different node kinds from colliding by content alone. */
enum { TAG_NULL = 0x6e756c6c, TAG_EXPR = 0x45, TAG_STMT = 0x53, TAG_VAR = 0x56, TAG_BUF = 0x42, TAG_PARAM = 0x50 };

static void h_u64(hash_ctx *c, uint64_t v) { tl__hasher_u64(&c->h, v); }
static void h_str(hash_ctx *c, const char *s) { tl__hasher_str(&c->h, s); }
static void h_dtype(hash_ctx *c, tl_dtype t) {
  h_u64(c, (uint64_t)t.code | (uint64_t)t.bits << 8 | (uint64_t)t.lanes << 16);
}

static void h_expr(hash_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e);
static void h_stmt(hash_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s);

static void h_var_props(hash_ctx *c, const tl_ir_var *v) {
  if (!v) {
    h_u64(c, TAG_NULL);
    return;
  }
  h_u64(c, TAG_VAR);
  h_dtype(c, v->dtype);
  h_str(c, v->thread_tag);
}

static void h_ref(hash_ctx *c, tl__ir_ref r) {
  h_u64(c, r.kind);
  h_u64(c, (uint64_t)r.a << 32 | r.b);
}

static void h_var_use(hash_ctx *c, const tl__ir_bind *b, const tl_ir_var *v) {
  h_var_props(c, v);
  if (!v) return;
  tl__ir_ref r = tl__ir_resolve_var(c->f, b, v);
  h_ref(c, r);
  if (r.kind == TL__REF_FREE) h_str(c, v->name);
}

static void h_exprs(hash_ctx *c, const tl__ir_bind *b, tl_ir_expr *const *e, uint32_t n) {
  h_u64(c, n);
  for (uint32_t i = 0; i < n; i++) h_expr(c, b, e ? e[i] : NULL);
}

static void h_buffer_def(hash_ctx *c, const tl__ir_bind *b, const tl_ir_buffer *buf) {
  if (!buf) {
    h_u64(c, TAG_NULL);
    return;
  }
  h_u64(c, TAG_BUF);
  h_dtype(c, buf->dtype);
  h_u64(c, buf->scope);
  h_exprs(c, b, buf->shape, buf->ndim);
  h_u64(c, buf->strides != NULL);
  if (buf->strides) h_exprs(c, b, buf->strides, buf->ndim);
  h_u64(c, buf->view);
  if (buf->view) h_var_use(c, b, buf->data); /* the storage it shares */
  else h_var_props(c, buf->data);
}

static void h_buffer_use(hash_ctx *c, const tl__ir_bind *b, const tl_ir_buffer *buf) {
  if (!buf) {
    h_u64(c, TAG_NULL);
    return;
  }
  tl__ir_ref r = tl__ir_resolve_buffer(c->f, b, buf);
  h_ref(c, r);
  if (r.kind == TL__REF_FREE) {
    h_str(c, buf->name);
    h_buffer_def(c, b, buf);
  }
}

static void h_expr(hash_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  if (!e) {
    h_u64(c, TAG_NULL);
    return;
  }
  h_u64(c, TAG_EXPR + ((uint64_t)e->kind << 8));
  h_dtype(c, e->dtype);
  switch (e->kind) {
  case TL_EXPR_INT:
    h_u64(c, (uint64_t)e->u.int_value);
    break;
  case TL_EXPR_FLOAT: {
    double d = e->u.float_value;
    uint64_t bits;
    if (isnan(d))
      bits = 0x7ff8000000000000ull; /* every NaN alike */
    else
      memcpy(&bits, &d, sizeof bits);
    h_u64(c, bits);
    break;
  }
  case TL_EXPR_STR:
    h_str(c, e->u.str);
    break;
  case TL_EXPR_VAR:
    h_var_use(c, b, e->u.var);
    break;
  case TL_EXPR_BINARY:
    h_u64(c, e->u.binary.op);
    h_expr(c, b, e->u.binary.a);
    h_expr(c, b, e->u.binary.b);
    break;
  case TL_EXPR_UNARY:
    h_u64(c, e->u.unary.op);
    h_expr(c, b, e->u.unary.a);
    break;
  case TL_EXPR_SELECT:
    h_expr(c, b, e->u.select.cond);
    h_expr(c, b, e->u.select.t);
    h_expr(c, b, e->u.select.f);
    break;
  case TL_EXPR_CAST:
    h_expr(c, b, e->u.cast.value);
    break;
  case TL_EXPR_LOAD:
    h_buffer_use(c, b, e->u.load.buffer);
    h_exprs(c, b, e->u.load.indices, e->u.load.n);
    break;
  case TL_EXPR_CALL:
    h_u64(c, e->u.call.op);
    h_exprs(c, b, e->u.call.args, e->u.call.nargs);
    break;
  case TL_EXPR_REGION:
    h_u64(c, e->u.region.form);
    h_buffer_use(c, b, e->u.region.buffer);
    h_exprs(c, b, e->u.region.mins, e->u.region.ndim);
    h_exprs(c, b, e->u.region.extents, e->u.region.ndim);
    break;
  case TL_EXPR_RAMP:
    h_u64(c, (uint64_t)e->u.ramp.stride);
    h_expr(c, b, e->u.ramp.base);
    break;
  case TL_EXPR_BROADCAST:
    h_expr(c, b, e->u.broadcast.value);
    break;
  }
}

static void h_seq_from(hash_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s, uint32_t i) {
  for (; s->u.seq.stmts && i < s->u.seq.n; i++) {
    const tl_ir_stmt *x = s->u.seq.stmts[i];
    h_stmt(c, b, x);
    if (x && x->kind == TL_STMT_ALLOC) {
      tl__ir_bind nb = {b, x};
      h_seq_from(c, &nb, s, i + 1);
      return;
    }
  }
}

static void h_triple(hash_ctx *c, const tl__ir_bind *b, tl_ir_expr *const e[3]) {
  for (int i = 0; i < 3; i++) h_expr(c, b, e[i]);
}

static void h_stmt(hash_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s) {
  if (!s) {
    h_u64(c, TAG_NULL);
    return;
  }
  h_u64(c, TAG_STMT + ((uint64_t)s->kind << 8));
  switch (s->kind) {
  case TL_STMT_SEQ:
    h_u64(c, s->u.seq.n);
    h_seq_from(c, b, s, 0);
    break;
  case TL_STMT_FOR: {
    h_u64(c, s->u.loop.kind);
    h_u64(c, s->u.loop.n);
    h_u64(c, (uint64_t)(uint32_t)s->u.loop.num_stages);
    h_str(c, s->u.loop.thread_tag);
    for (uint32_t i = 0; i < s->u.loop.n; i++) h_var_props(c, s->u.loop.vars ? s->u.loop.vars[i] : NULL);
    h_exprs(c, b, s->u.loop.mins, s->u.loop.n);
    h_exprs(c, b, s->u.loop.extents, s->u.loop.n);
    tl__ir_bind nb = {b, s};
    h_stmt(c, &nb, s->u.loop.body);
    break;
  }
  case TL_STMT_IF:
    h_expr(c, b, s->u.if_.cond);
    h_stmt(c, b, s->u.if_.then_);
    h_stmt(c, b, s->u.if_.else_);
    break;
  case TL_STMT_STORE:
    h_buffer_use(c, b, s->u.store.buffer);
    h_exprs(c, b, s->u.store.indices, s->u.store.n);
    h_expr(c, b, s->u.store.value);
    break;
  case TL_STMT_LET: {
    h_var_props(c, s->u.let.var);
    h_expr(c, b, s->u.let.value);
    tl__ir_bind nb = {b, s};
    h_stmt(c, &nb, s->u.let.body);
    break;
  }
  case TL_STMT_ALLOC:
    h_buffer_def(c, b, s->u.alloc.buffer);
    break;
  case TL_STMT_EVAL:
    h_expr(c, b, s->u.eval.expr);
    break;
  case TL_STMT_KERNEL: {
    h_u64(c, s->u.kernel.grid_ndim);
    h_u64(c, s->u.kernel.threads_ndim);
    h_triple(c, b, s->u.kernel.grid);
    h_triple(c, b, s->u.kernel.threads);
    for (int i = 0; i < 3; i++) h_var_props(c, s->u.kernel.block_vars[i]);
    for (int i = 0; i < 3; i++) h_var_props(c, s->u.kernel.thread_vars[i]);
    tl__ir_bind nb = {b, s};
    h_stmt(c, &nb, s->u.kernel.body);
    break;
  }
  case TL_STMT_BARRIER:
    break;
  case TL_STMT_ASSERT:
    h_str(c, s->u.assert_.message);
    h_expr(c, b, s->u.assert_.cond);
    break;
  case TL_STMT_LAUNCH:
    h_str(c, s->u.launch.kernel);
    h_exprs(c, b, s->u.launch.args, s->u.launch.nargs);
    h_triple(c, b, s->u.launch.grid);
    h_triple(c, b, s->u.launch.block);
    h_expr(c, b, s->u.launch.dyn_shared_bytes);
    break;
  }
}

/* Attributes as a set: per-attribute hashes summed, so order does not count. */
static uint64_t attrs_hash(const tl_ir_attr *a, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    tl__hasher h;
    tl__hasher_init(&h, 0x617474);
    tl__hasher_str(&h, a[i].key);
    tl__hasher_u64(&h, a[i].kind);
    if (a[i].kind == TL_ATTR_INT)
      tl__hasher_u64(&h, (uint64_t)a[i].i);
    else
      tl__hasher_str(&h, a[i].s);
    sum += tl__hasher_done(&h);
  }
  return tl__hash_combine(sum, n);
}

uint64_t tl_ir_func_hash(const tl_ir_func *f) {
  hash_ctx c = {f, {0}};
  tl__hasher_init(&c.h, 0x66756e63);
  if (!f) return tl__hasher_done(&c.h);
  h_str(&c, f->name);
  h_u64(&c, f->callconv);
  h_u64(&c, f->nparams);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    h_u64(&c, TAG_PARAM + ((uint64_t)p->kind << 8) + ((uint64_t)p->is_output << 16));
    h_str(&c, p->name);
    h_var_props(&c, p->var);
    if (p->kind == TL_PARAM_BUFFER) h_buffer_def(&c, NULL, p->buffer);
  }
  h_u64(&c, attrs_hash(f->attrs, f->nattrs));
  h_stmt(&c, NULL, f->body);
  return tl__hasher_done(&c.h);
}

uint64_t tl_ir_module_hash(const tl_ir_module *m) {
  tl__hasher h;
  tl__hasher_init(&h, 0x6d6f64);
  if (!m) return tl__hasher_done(&h);
  size_t n = tl_ir_module_num_funcs(m);
  tl__hasher_u64(&h, n);
  tl__hasher_u64(&h, attrs_hash(m->attrs.data, m->attrs.len));
  for (size_t i = 0; i < n; i++) tl__hasher_u64(&h, tl_ir_func_hash(tl_ir_module_func(m, i)));
  return tl__hasher_done(&h);
}
