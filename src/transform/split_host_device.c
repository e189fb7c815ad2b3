/* split_host_device: every T.Kernel statement becomes a device kernel function
 * and a LAUNCH of it; the tile-level function becomes the host entry.
 *
 * The function keeps its name and parameters and becomes TL_CALLCONV_PACKED, its
 * body the launches in execution order. Outside kernels only sequences, lets and
 * kernels are allowed (host code does not touch device memory); the lets are
 * substituted into the kernels and their launch extents.
 *
 * Kernel i is named `<entry>_kernel` (or `<entry>_kernel_<i>` when there are
 * several), TL_CALLCONV_DEVICE_KERNEL, with parameters (docs/lowering.md):
 *   - the host buffer parameters it uses, in parameter order, flattened to one
 *     dimension spanning their elements (row-major, or their declared strides;
 *     tl__flat_index), global, the data variable being the pointer;
 *   - the scalar parameters it uses, in parameter order;
 *   - the symbolic dims it uses (in its body or in its buffers' index
 *     arithmetic), in order of first mention in the parameters' shapes.
 * The kernel gets its own variables for scalars and symbolic dims; the launch
 * passes the host's (buffer data vars, scalar vars, symbolic dim vars), and its
 * grid and block are the kernel statement's extents. Block and thread indices the
 * kernel statement binds (GPU lowering) become variables tagged blockIdx.x/y/z
 * and threadIdx.x/y/z, and the launch's dyn_shared_bytes is the size of the
 * kernel's shared.dyn buffers (tl__gpu_dyn_shared_bytes; none: no argument). */
#include <stdio.h>

#include "base/error.h"
#include "base/vec.h"
#include "transform/flatten.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct host_let {
  tl_ir_var *var;
  tl_ir_expr *value; /* with earlier lets substituted */
} host_let;

typedef struct split_ctx {
  tl_ir_module *mod;
  tl_ir_func *f;
  tl__vec lets;     /* host_let, the lets in scope */
  tl__vec launches; /* tl_ir_stmt* */
  tl__vec kernels;  /* tl_ir_stmt* (the kernel statements), in order */
} split_ctx;

/* ------------------------------------------------------------- host side */

static tl_ir_expr *subst_lets(split_ctx *c, tl_ir_expr *e) {
  if (!e || c->lets.len == 0) return e;
  tl_ir_var *vars[64];
  tl_ir_expr *vals[64];
  uint32_t n = 0;
  for (size_t i = c->lets.len; i-- > 0 && n < 64;) {
    vars[n] = TL__VEC_AT(&c->lets, host_let, i).var;
    vals[n++] = TL__VEC_AT(&c->lets, host_let, i).value;
  }
  return tl_ir_substitute_expr(c->mod, e, n, vars, vals);
}

static tl_ir_stmt *subst_lets_stmt(split_ctx *c, tl_ir_stmt *s) {
  if (c->lets.len == 0) return s;
  tl_ir_var *vars[64];
  tl_ir_expr *vals[64];
  uint32_t n = 0;
  for (size_t i = c->lets.len; i-- > 0 && n < 64;) {
    vars[n] = TL__VEC_AT(&c->lets, host_let, i).var;
    vals[n++] = TL__VEC_AT(&c->lets, host_let, i).value;
  }
  return tl_ir_substitute_stmt(c->mod, s, n, vars, vals);
}

static bool has_load(tl_ir_visitor *v, const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_LOAD) *(bool *)v->ctx = true;
  return true;
}

static tl_status collect_host(split_ctx *c, tl_ir_stmt *s) {
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) TL__TRY(collect_host(c, s->u.seq.stmts[i]));
    return TL_OK;
  case TL_STMT_LET: {
    bool load = false;
    tl_ir_visitor v = {has_load, NULL, &load};
    tl_ir_visit_expr(&v, s->u.let.value);
    if (load)
      return tl__pass_error(TL_EUNSUPPORTED, s->span,
                            "'%s' outside T.Kernel reads a buffer; host code cannot read device memory: move it into "
                            "the kernel",
                            s->u.let.var->name);
    host_let l = {s->u.let.var, subst_lets(c, s->u.let.value)};
    TL__TRY(tl__built(c->mod, l.value));
    size_t mark = c->lets.len;
    TL__TRY(tl__vec_push(&c->lets, &l));
    tl_status st = collect_host(c, s->u.let.body);
    c->lets.len = mark;
    return st;
  }
  case TL_STMT_KERNEL: {
    tl_ir_stmt *k = subst_lets_stmt(c, s);
    TL__TRY(tl__built(c->mod, k));
    return tl__vec_push(&c->kernels, &k);
  }
  default:
    return tl__pass_error(TL_EUNSUPPORTED, s->span,
                          "only T.Kernel blocks and let bindings may appear outside T.Kernel; move this statement "
                          "into a kernel");
  }
}

/* ----------------------------------------------------------- device side */

typedef struct param_map {
  const tl_ir_buffer *host;
  tl_ir_buffer *dev;
} param_map;

typedef struct dev_ctx {
  param_map maps[64];
  uint32_t nmaps;
  uint32_t nsub;
  tl_ir_var **from; /* host scalars/syms -> device vars */
  tl_ir_expr **to;
} dev_ctx;

static tl_ir_buffer *dev_buffer(const dev_ctx *d, const tl_ir_buffer *b) {
  for (uint32_t i = 0; i < d->nmaps; i++)
    if (d->maps[i].host == b) return d->maps[i].dev;
  return NULL;
}

static tl_ir_expr *rewrite_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  dev_ctx *d = mu->ctx;
  tl_ir_module *mod = mu->mod;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  tl_ir_buffer *to = NULL;
  if (e->kind == TL_EXPR_LOAD) to = dev_buffer(d, e->u.load.buffer);
  if (e->kind == TL_EXPR_REGION) to = dev_buffer(d, e->u.region.buffer);
  if (!to) return e;
  tl_ir_span old = tl__loc_push(mod, e->span);
  tl_ir_expr *r;
  if (e->kind == TL_EXPR_LOAD) {
    tl_ir_expr *idx = tl__flat_index(mod, e->u.load.buffer, e->u.load.indices, d->nsub, d->from, d->to);
    r = tl_ir_load(mod, to, 1, &idx);
  } else {
    for (uint32_t k = 0; k < e->u.region.ndim; k++)
      if (!tl__is_int(e->u.region.extents[k], 1)) {
        tl_ir_builder_set_loc(mod, old);
        tl_ir_mutator_fail(mu, tl__pass_error(TL_EINVAL, e->span,
                                              "a region of buffer '%s' spanning more than one element remains in a "
                                              "kernel: lower tile ops first",
                                              e->u.region.buffer->name));
        return NULL;
      }
    tl_ir_expr *idx = tl__flat_index(mod, e->u.region.buffer, e->u.region.mins, d->nsub, d->from, d->to);
    tl_ir_expr *one = idx ? tl__int_like(mod, idx, 1) : NULL;
    r = tl_ir_region(mod, to, &idx, &one, e->u.region.form);
  }
  tl_ir_builder_set_loc(mod, old);
  return r;
}

static tl_ir_stmt *rewrite_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  dev_ctx *d = mu->ctx;
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_STORE) return r;
  tl_ir_buffer *to = dev_buffer(d, r->u.store.buffer);
  if (!to) return r;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_expr *idx = tl__flat_index(mu->mod, r->u.store.buffer, r->u.store.indices, d->nsub, d->from, d->to);
  tl_ir_stmt *n = tl_ir_store(mu->mod, to, 1, &idx, r->u.store.value);
  tl_ir_builder_set_loc(mu->mod, old);
  return n;
}

/* The symbolic dims of f: variables in its buffer parameters' shapes and strides
 * that are not scalar parameters, in order of first mention. */
static tl_status shape_vars(const tl_ir_func *f, tl__vec *out) {
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !b) continue;
    for (uint32_t d = 0; d < b->ndim; d++) {
      TL__TRY(tl__collect_expr(b->shape[d], out, NULL));
      if (b->strides) TL__TRY(tl__collect_expr(b->strides[d], out, NULL));
    }
  }
  /* Scalar parameters are passed as scalars, even when a shape mentions them. */
  for (size_t k = out->len; k-- > 0;)
    for (uint32_t i = 0; i < f->nparams; i++)
      if (f->params[i].kind == TL_PARAM_SCALAR && TL__VEC_AT(out, const tl_ir_var *, k) == f->params[i].var) {
        tl__vec_remove(out, k, NULL);
        break;
      }
  return TL_OK;
}

static const char *const k_tags[6] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"};

/* Replaces the kernel statement's block/thread indices with tagged variables. */
static tl_ir_stmt *tag_indices(tl_ir_module *mod, const tl_ir_stmt *k) {
  tl_ir_var *from[6], *tagged;
  tl_ir_expr *to[6];
  uint32_t n = 0;
  for (int i = 0; i < 6; i++) {
    tl_ir_var *v = i < 3 ? k->u.kernel.block_vars[i] : k->u.kernel.thread_vars[i - 3];
    if (!v) continue;
    if (!(tagged = tl_ir_var_new(mod, v->name, v->dtype))) return NULL;
    tagged->thread_tag = k_tags[i];
    from[n] = v;
    to[n++] = tl_ir_var_ref(mod, tagged);
  }
  return n ? tl_ir_substitute_stmt(mod, k->u.kernel.body, n, from, to) : k->u.kernel.body;
}

typedef struct outline {
  tl__vec vars, bufs;      /* used in the body */
  tl__vec needed;          /* variables the body or its buffers' index arithmetic use */
  tl__vec syms;            /* f's symbolic dims */
  tl__vec used_syms;       /* those the kernel needs */
  tl_ir_var *from[128];
  tl_ir_expr *to[128];
  uint32_t nsub;
} outline;

static void outline_free(outline *o) {
  tl__vec_free(&o->needed);
  tl__vec_free(&o->vars);
  tl__vec_free(&o->bufs);
  tl__vec_free(&o->syms);
  tl__vec_free(&o->used_syms);
}

/* A device variable standing for host variable v. */
static tl_status map_var(tl_ir_module *mod, outline *o, tl_ir_var *v, tl_ir_var **dv) {
  if (o->nsub == 128) return tl__error(TL_EUNSUPPORTED, "a kernel uses more than 128 scalars and symbolic dims");
  *dv = tl_ir_var_new(mod, v->name, v->dtype);
  TL__TRY(tl__built(mod, *dv));
  o->from[o->nsub] = v;
  o->to[o->nsub] = tl_ir_var_ref(mod, *dv);
  TL__TRY(tl__built(mod, o->to[o->nsub]));
  o->nsub++;
  return TL_OK;
}

static tl_status make_kernel(split_ctx *c, const tl_ir_stmt *kstmt, const char *name) {
  tl_ir_module *mod = c->mod;
  const tl_ir_func *f = c->f;
  tl_ir_stmt *body = tag_indices(mod, kstmt);
  TL__TRY(tl__built(mod, body));
  outline o;
  tl__vec_init(&o.vars, sizeof(const tl_ir_var *));
  tl__vec_init(&o.bufs, sizeof(const tl_ir_buffer *));
  tl__vec_init(&o.syms, sizeof(const tl_ir_var *));
  tl__vec_init(&o.used_syms, sizeof(const tl_ir_var *));
  tl__vec_init(&o.needed, sizeof(const tl_ir_var *));
  o.nsub = 0;
  tl_status st = tl__collect_stmt(body, &o.vars, &o.bufs);
  if (st == TL_OK) st = shape_vars(f, &o.syms);
  /* Symbolic dims the kernel needs: used in its body, or in the shapes (and so
   * the index arithmetic) of the buffers it uses. */
  tl__vec *needed = &o.needed;
  for (size_t i = 0; st == TL_OK && i < o.vars.len; i++) st = tl__vec_push(needed, &TL__VEC_AT(&o.vars, const tl_ir_var *, i));
  for (uint32_t i = 0; st == TL_OK && i < f->nparams; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !tl__vec_has_ptr(&o.bufs, b)) continue;
    for (uint32_t d = 0; st == TL_OK && d < b->ndim; d++) {
      st = tl__collect_expr(b->shape[d], needed, NULL);
      if (st == TL_OK && b->strides) st = tl__collect_expr(b->strides[d], needed, NULL);
    }
  }
  for (size_t i = 0; st == TL_OK && i < o.syms.len; i++) {
    const tl_ir_var *v = TL__VEC_AT(&o.syms, const tl_ir_var *, i);
    if (tl__vec_has_ptr(needed, v)) st = tl__vec_push(&o.used_syms, &v);
  }
  tl_ir_func *k = NULL;
  if (st == TL_OK) {
    tl_ir_span old = tl__loc_push(mod, kstmt->span);
    st = tl_ir_func_new(mod, name, &k);
    tl_ir_builder_set_loc(mod, old);
  }
  if (st != TL_OK) {
    outline_free(&o);
    return st;
  }
  k->callconv = TL_CALLCONV_DEVICE_KERNEL;
  k->span = kstmt->span;
  tl_ir_expr *args[256];
  uint32_t nargs = 0;
  /* Scalars and symbolic dims first get device variables (buffer shapes use them). */
  tl_ir_var *dscalars[64], *dsyms[64];
  uint32_t nscalars = 0, nsyms = 0;
  for (uint32_t i = 0; st == TL_OK && i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind != TL_PARAM_SCALAR || !tl__vec_has_ptr(&o.needed, p->var)) continue;
    if (nscalars == 64) st = tl__error(TL_EUNSUPPORTED, "kernel '%s' uses more than 64 scalar parameters", name);
    else st = map_var(mod, &o, p->var, &dscalars[nscalars++]);
  }
  for (size_t i = 0; st == TL_OK && i < o.used_syms.len; i++) {
    if (nsyms == 64) st = tl__error(TL_EUNSUPPORTED, "kernel '%s' uses more than 64 symbolic dims", name);
    else st = map_var(mod, &o, (tl_ir_var *)TL__VEC_AT(&o.used_syms, const tl_ir_var *, i), &dsyms[nsyms++]);
  }
  /* Buffers: flattened device parameters. */
  dev_ctx d = {.nmaps = 0, .nsub = o.nsub, .from = o.from, .to = o.to};
  for (uint32_t i = 0; st == TL_OK && i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind != TL_PARAM_BUFFER || !tl__vec_has_ptr(&o.bufs, p->buffer)) continue;
    if (d.nmaps == 64) {
      st = tl__error(TL_EUNSUPPORTED, "kernel '%s' uses more than 64 buffers", name);
      break;
    }
    tl_ir_span old = tl__loc_push(mod, p->buffer->span);
    tl_ir_expr *extent = tl__flat_extent(mod, p->buffer, o.nsub, o.from, o.to);
    tl_ir_buffer *db = extent ? tl_ir_buffer_new(mod, p->buffer->name, p->buffer->dtype, 1, &extent, NULL, TL_SCOPE_GLOBAL) : NULL;
    tl_ir_builder_set_loc(mod, old);
    st = tl__built(mod, db);
    if (st == TL_OK) st = tl_ir_func_add_buffer_param(mod, k, db, p->is_output);
    if (st != TL_OK) break;
    d.maps[d.nmaps++] = (param_map){p->buffer, db};
    args[nargs++] = tl_ir_var_ref(mod, p->buffer->data);
  }
  for (uint32_t i = 0; st == TL_OK && i < nscalars; i++) {
    st = tl_ir_func_add_scalar_param(mod, k, dscalars[i]);
    args[nargs++] = tl_ir_var_ref(mod, o.from[i]);
  }
  for (uint32_t i = 0; st == TL_OK && i < nsyms; i++) {
    st = tl_ir_func_add_scalar_param(mod, k, dsyms[i]);
    args[nargs++] = tl_ir_var_ref(mod, o.from[nscalars + i]);
  }
  if (st == TL_OK) {
    tl_ir_mutator mu = {mod, rewrite_expr, rewrite_stmt, &d, TL_OK};
    tl_ir_stmt *nb = tl_ir_mutate_stmt(&mu, body);
    if (!nb) st = mu.status;
    else if (o.nsub && !(nb = tl_ir_substitute_stmt(mod, nb, o.nsub, o.from, o.to))) st = tl__built(mod, NULL);
    if (st == TL_OK) k->body = nb;
  }
  if (st == TL_OK) {
    tl_ir_span old = tl__loc_push(mod, kstmt->span);
    tl_ir_expr *grid[3], *block[3];
    for (uint32_t i = 0; i < 3; i++) {
      grid[i] = i < kstmt->u.kernel.grid_ndim && kstmt->u.kernel.grid[i] ? kstmt->u.kernel.grid[i] : tl_ir_i32(mod, 1);
      block[i] = i < kstmt->u.kernel.threads_ndim && kstmt->u.kernel.threads[i] ? kstmt->u.kernel.threads[i]
                                                                                   : tl_ir_i32(mod, 1);
    }
    for (uint32_t i = 0; i < nargs; i++)
      if (!args[i]) st = tl__built(mod, NULL);
    /* GPU kernels: the dynamic shared memory their shared.dyn buffers take. */
    int64_t dyn = tl__gpu_dyn_shared_bytes(k->body);
    if (dyn < 0)
      st = tl__pass_error(TL_EUNSUPPORTED, kstmt->span, "kernel '%s' has a dynamic shared buffer of non-constant size", name);
    tl_ir_expr *dyn_bytes = dyn > 0 ? tl_ir_i32(mod, dyn) : NULL;
    tl_ir_stmt *launch = st == TL_OK ? tl_ir_launch(mod, k->name, nargs, args, grid, block, dyn_bytes) : NULL;
    tl_ir_builder_set_loc(mod, old);
    if (st == TL_OK) st = tl__built(mod, launch);
    if (st == TL_OK) st = tl__vec_push(&c->launches, &launch);
  }
  outline_free(&o);
  return st;
}

static tl_status split_func(tl_ir_module *mod, tl_ir_func *f) {
  split_ctx c = {mod, f, {0}, {0}, {0}};
  tl__vec_init(&c.lets, sizeof(host_let));
  tl__vec_init(&c.launches, sizeof(tl_ir_stmt *));
  tl__vec_init(&c.kernels, sizeof(tl_ir_stmt *));
  tl_status st = collect_host(&c, f->body);
  size_t n = c.kernels.len;
  for (size_t i = 0; st == TL_OK && i < n; i++) {
    char name[512];
    if (n == 1) snprintf(name, sizeof name, "%s_kernel", f->name);
    else snprintf(name, sizeof name, "%s_kernel_%zu", f->name, i);
    st = make_kernel(&c, TL__VEC_AT(&c.kernels, tl_ir_stmt *, i), name);
  }
  if (st == TL_OK) {
    tl_ir_span old = tl__loc_push(mod, f->body->span);
    tl_ir_stmt *body = tl_ir_seq(mod, (uint32_t)c.launches.len, (tl_ir_stmt *const *)c.launches.data);
    tl_ir_builder_set_loc(mod, old);
    st = tl__built(mod, body);
    if (st == TL_OK) {
      f->body = body;
      f->callconv = TL_CALLCONV_PACKED;
    }
  }
  tl__vec_free(&c.lets);
  tl__vec_free(&c.launches);
  tl__vec_free(&c.kernels);
  return st;
}

tl_status tl__pass_split_host_device(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  size_t n = tl_ir_module_num_funcs(mod); /* kernels are appended: visit only the originals */
  for (size_t i = 0; i < n; i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv == TL_CALLCONV_DEFAULT && f->body) TL__TRY(split_func(mod, f));
  }
  return TL_OK;
}
