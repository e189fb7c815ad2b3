/* Statements. T.Kernel runs its body once per block (bx fastest, then by, bz):
 * tile-level programs are written at block level. Lowered code that binds thread
 * indices runs its threads one after another when they cannot observe each other,
 * and in SIMT mode (simt.h: one OS thread per GPU thread) when they synchronise or
 * share memory. */
#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"
#include "ir/interp/interp.h"
#include "ir/interp/simt.h"

#define MAX_LANES_ON_STACK 64
#define MAX_LAUNCH_DEPTH 16
#define MAX_LOOP_DEPTH 16

/* ------------------------------------------------------- function analysis */

tl_status tl__interp_check_func(const tl_ir_func *f) {
  tl__body_scan sc;
  tl_status s = tl__interp_scan(f->body, true, &sc);
  if (s == TL_OK && sc.threads && (sc.barrier || sc.shuffle))
    s = tl__interp_error(TL_EUNSUPPORTED, f->span,
                         "function '%s': thread-bound code that synchronises must be inside T.Kernel or a launched "
                         "device kernel (the interpreter runs it there with one OS thread per GPU thread)",
                         f->name);
  tl__interp_scan_free(&sc);
  return s;
}

/* -------------------------------------------------------------- statements */

/* Runs s as a scope: allocations it makes die when it ends. */
tl_status tl__interp_exec_scope(tl__iframe *fr, const tl_ir_stmt *s) {
  tl__istore *mark = fr->allocs;
  tl_status st = tl__interp_exec(fr, s);
  tl__interp_free_to(fr, mark);
  return st;
}

static tl_status check_int(const tl_ir_expr *e, const char *what, tl_ir_span span) {
  if (!e || (!tl_dtype_is_int(e->dtype) && !tl_dtype_is_bool(e->dtype)))
    return tl__interp_error(TL_EINVAL, span, "%s must be an integer", what);
  return TL_OK;
}

typedef struct saved_var {
  tl__ival val;
  uint8_t bound;
} saved_var;

static tl_status for_level(tl__iframe *fr, const tl_ir_stmt *s, uint32_t d, const int64_t *mins,
                           const int64_t *exts) {
  const tl_ir_var *v = s->u.loop.vars[d];
  for (int64_t i = 0; i < exts[d]; i++) {
    tl__interp_bind(fr, v, tl__iv_from_i64(v->dtype, mins[d] + i));
    tl_status st = d + 1 == s->u.loop.n ? tl__interp_exec_scope(fr, s->u.loop.body) : for_level(fr, s, d + 1, mins, exts);
    if (st != TL_OK) return st;
  }
  return TL_OK;
}

/* Every loop kind runs serially: T.Parallel iterations are independent, pipelined
 * loops have serial semantics, thread loops run one thread after another, except
 * under SIMT execution, where a thread loop binds the running thread's index. */
static tl_status exec_for(tl__iframe *fr, const tl_ir_stmt *s) {
  uint32_t n = s->u.loop.n;
  if (n == 0) return tl__interp_exec_scope(fr, s->u.loop.body);
  if (n > MAX_LOOP_DEPTH)
    return tl__interp_error(TL_EUNSUPPORTED, s->span, "a loop nest of more than %d variables", MAX_LOOP_DEPTH);
  if (!s->u.loop.vars || !s->u.loop.extents) return tl__interp_error(TL_EINVAL, s->span, "incomplete loop");
  int64_t mins[MAX_LOOP_DEPTH], exts[MAX_LOOP_DEPTH];
  saved_var saved[MAX_LOOP_DEPTH];
  for (uint32_t i = 0; i < n; i++) {
    const tl_ir_var *v = s->u.loop.vars[i];
    if (!v || v->id >= fr->in->nvars) return tl__interp_error(TL_EINVAL, s->span, "loop variable outside the module");
    TL__TRY(check_int(s->u.loop.extents[i], "a loop extent", s->span));
    TL__TRY(tl__interp_eval_int(fr, s->u.loop.extents[i], &exts[i]));
    mins[i] = 0;
    if (s->u.loop.mins && s->u.loop.mins[i]) TL__TRY(tl__interp_eval_int(fr, s->u.loop.mins[i], &mins[i]));
  }
  for (uint32_t i = 0; i < n; i++) {
    const tl_ir_var *v = s->u.loop.vars[i];
    saved[i].val = fr->vals[v->id];
    saved[i].bound = fr->bound[v->id];
  }
  tl_status st;
  if (tl__simt_binds_loop(fr, s)) {
    /* SIMT: the loop is the thread's (or block's) own index, not an iteration. */
    bool run;
    int64_t x;
    st = tl__simt_loop_index(fr, s, mins[0], exts[0], &run, &x);
    if (st == TL_OK && run) {
      tl__interp_bind(fr, s->u.loop.vars[0], tl__iv_from_i64(s->u.loop.vars[0]->dtype, x));
      st = tl__interp_exec_scope(fr, s->u.loop.body);
    }
  } else {
    st = for_level(fr, s, 0, mins, exts);
  }
  for (uint32_t i = n; i-- > 0;) {
    const tl_ir_var *v = s->u.loop.vars[i];
    fr->vals[v->id] = saved[i].val;
    fr->bound[v->id] = saved[i].bound;
  }
  return st;
}

static tl_status exec_store(tl__iframe *fr, const tl_ir_stmt *s) {
  const tl_ir_buffer *buf = s->u.store.buffer;
  const tl_ir_expr *value = s->u.store.value;
  uint32_t n = s->u.store.n;
  if (!buf || !value) return tl__interp_error(TL_EINVAL, s->span, "incomplete store");
  if (!tl_dtype_eq(tl_dtype_scalar(value->dtype), tl_dtype_scalar(buf->dtype))) {
    char na[32], nb[32];
    return tl__interp_error(TL_EINVAL, s->span, "storing %s into buffer '%s' of %s",
                            tl__interp_dtype_name(value->dtype, na), buf->name,
                            tl__interp_dtype_name(buf->dtype, nb));
  }
  if (n > 16) return tl__interp_error(TL_EUNSUPPORTED, s->span, "buffer '%s' has too many dimensions", buf->name);
  if (n && !s->u.store.indices) return tl__interp_error(TL_EINVAL, s->span, "store without indices");
  uint32_t lanes = value->dtype.lanes > 1 ? value->dtype.lanes : 1;
  tl__ival stack_vals[MAX_LANES_ON_STACK];
  tl__ival *vals = lanes <= MAX_LANES_ON_STACK ? stack_vals : tl__malloc(lanes * sizeof *vals);
  if (!vals) return tl__oom();
  tl_status st = TL_OK;
  /* All lanes of the value are read before any is written. */
  for (uint32_t l = 0; l < lanes && st == TL_OK; l++) st = tl__interp_eval(fr, value, l, &vals[l]);
  for (uint32_t l = 0; l < lanes && st == TL_OK; l++) {
    int64_t idx[16];
    for (uint32_t i = 0; i < n && st == TL_OK; i++) {
      tl__ival v;
      if ((st = check_int(s->u.store.indices[i], "an index", s->span)) != TL_OK) break;
      st = tl__interp_eval(fr, s->u.store.indices[i], l, &v);
      idx[i] = v.i;
    }
    char *p;
    if (st == TL_OK) st = tl__interp_addr(fr, buf, idx, n, s->span, &p);
    if (st == TL_OK && fr->simt) st = tl__simt_store(fr, buf, p, s->span, vals[l]);
    else if (st == TL_OK) tl__iv_store(buf->dtype, p, vals[l]);
  }
  if (vals != stack_vals) tl__free(vals);
  return st;
}

static tl_status exec_let(tl__iframe *fr, const tl_ir_stmt *s) {
  const tl_ir_var *v = s->u.let.var;
  const tl_ir_expr *value = s->u.let.value;
  if (!v || !value || v->id >= fr->in->nvars) return tl__interp_error(TL_EINVAL, s->span, "incomplete let");
  if (!tl_dtype_eq(v->dtype, value->dtype)) {
    char na[32], nb[32];
    return tl__interp_error(TL_EINVAL, s->span, "let '%s' of %s bound to a %s value", v->name,
                            tl__interp_dtype_name(v->dtype, na), tl__interp_dtype_name(value->dtype, nb));
  }
  if (v->dtype.lanes > 1)
    return tl__interp_error(TL_EUNSUPPORTED, s->span, "let '%s': vector-typed variables are not supported", v->name);
  saved_var saved = {fr->vals[v->id], fr->bound[v->id]};
  tl__ival val;
  TL__TRY(tl__interp_eval(fr, value, 0, &val));
  tl__interp_bind(fr, v, val);
  tl_status st = tl__interp_exec_scope(fr, s->u.let.body);
  fr->vals[v->id] = saved.val;
  fr->bound[v->id] = saved.bound;
  return st;
}

/* Evaluates up to three launch or kernel extents (NULL means 1). */
static tl_status eval_extents(tl__iframe *fr, tl_ir_expr *const *e, uint32_t n, int64_t out[3], tl_ir_span span) {
  for (uint32_t i = 0; i < 3; i++) {
    out[i] = 1;
    if (i < n && e[i]) {
      TL__TRY(check_int(e[i], "a launch extent", span));
      TL__TRY(tl__interp_eval_int(fr, e[i], &out[i]));
      if (out[i] < 0)
        return tl__interp_error(TL_ERUNTIME, span, "negative launch extent %" PRId64, out[i]);
    }
  }
  return TL_OK;
}

static void bind_opt(tl__iframe *fr, const tl_ir_var *v, int64_t x) {
  if (v && v->id < fr->in->nvars) tl__interp_bind(fr, v, tl__iv_from_i64(v->dtype, x));
}

/* Every (block, thread) of a T.Kernel one after another; thread indices only once
 * lowering has bound them (at tile level the body is the whole block). */
static tl_status run_kernel_sequential(tl__iframe *fr, const tl_ir_stmt *s, const int64_t grid[3], int64_t thr[3]) {
  bool has_threads = s->u.kernel.thread_vars[0] || s->u.kernel.thread_vars[1] || s->u.kernel.thread_vars[2];
  if (!has_threads) thr[0] = thr[1] = thr[2] = 1;
  for (int64_t bz = 0; bz < grid[2]; bz++)
    for (int64_t by = 0; by < grid[1]; by++)
      for (int64_t bx = 0; bx < grid[0]; bx++)
        for (int64_t tz = 0; tz < thr[2]; tz++)
          for (int64_t ty = 0; ty < thr[1]; ty++)
            for (int64_t tx = 0; tx < thr[0]; tx++) {
              int64_t b[3] = {bx, by, bz}, t[3] = {tx, ty, tz};
              for (int i = 0; i < 3; i++) {
                bind_opt(fr, s->u.kernel.block_vars[i], b[i]);
                bind_opt(fr, s->u.kernel.thread_vars[i], t[i]);
              }
              TL__TRY(tl__interp_exec_scope(fr, s->u.kernel.body));
            }
  return TL_OK;
}

static tl_status nested_in_simt(const tl_ir_stmt *s) {
  return tl__interp_error(TL_EUNSUPPORTED, s->span, "%s inside a device kernel's thread",
                          s->kind == TL_STMT_KERNEL ? "T.Kernel" : "a launch");
}

static tl_status exec_kernel(tl__iframe *fr, const tl_ir_stmt *s) {
  if (fr->simt) return nested_in_simt(s);
  int64_t grid[3], thr[3];
  TL__TRY(eval_extents(fr, s->u.kernel.grid, s->u.kernel.grid_ndim, grid, s->span));
  TL__TRY(eval_extents(fr, s->u.kernel.threads, s->u.kernel.threads_ndim, thr, s->span));
  tl__body_scan sc;
  tl_status st = tl__interp_scan(s->u.kernel.body, false, &sc);
  for (int i = 0; i < 3; i++)
    if (s->u.kernel.thread_vars[i]) sc.threads = true;
  /* Without thread variables T.Kernel's body is block-level code (threads= only
   * says how many threads the hardware would use): it has threads only if it
   * binds thread indices itself. */
  if (st == TL_OK && tl__simt_wanted(fr->in->mod, &sc, false)) {
    tl__simt_plan plan = {s->u.kernel.body, fr, fr->func, s->span, {grid[0], grid[1], grid[2]},
                          {thr[0], thr[1], thr[2]}, -1, &sc, s->u.kernel.block_vars, s->u.kernel.thread_vars};
    st = tl__simt_run(&plan);
  } else if (st == TL_OK) {
    st = run_kernel_sequential(fr, s, grid, thr);
  }
  tl__interp_scan_free(&sc);
  return st;
}

/* Binds a device kernel's parameters from launch arguments evaluated in the caller. */
static tl_status bind_launch_args(tl__iframe *caller, tl__iframe *kf, const tl_ir_stmt *s, const tl_ir_func *k) {
  for (uint32_t i = 0; i < k->nparams; i++) {
    const tl_ir_param *p = &k->params[i];
    const tl_ir_expr *a = s->u.launch.args[i];
    if (!a) return tl__interp_error(TL_EINVAL, s->span, "launch of '%s': missing argument %u", k->name, i);
    tl__ival v;
    if (p->kind == TL_PARAM_BUFFER) {
      /* A buffer travels as its data variable, bound to memory in the caller. */
      const tl_ir_var *src = a->kind == TL_EXPR_VAR ? a->u.var : NULL;
      if (!src || src->id >= caller->in->nvars || caller->bound[src->id] != TL__BOUND_STORAGE)
        return tl__interp_error(TL_EINVAL, s->span, "launch of '%s': argument '%s' must be the data of a buffer",
                                k->name, p->name);
      if (!p->buffer || !p->buffer->data || p->buffer->data->id >= kf->in->nvars)
        return tl__interp_error(TL_EINVAL, s->span, "launch of '%s': parameter '%s' has no data variable", k->name,
                                p->name);
      tl__interp_bind_storage(kf, p->buffer->data, caller->vals[src->id].p);
    } else {
      if (!p->var || p->var->id >= kf->in->nvars)
        return tl__interp_error(TL_EINVAL, s->span, "launch of '%s': bad parameter %u", k->name, i);
      TL__TRY(tl__interp_eval(caller, a, 0, &v));
      tl__ival c;
      TL__TRY(tl__iv_cast(p->var->dtype, a->dtype, v, s->span, &c));
      tl__interp_bind(kf, p->var, c);
    }
  }
  return TL_OK;
}

/* Runs the launched kernel's body once per (block, thread) of the launch, binding
 * the variables tagged blockIdx/threadIdx; tags that the kernel binds with its own
 * thread loops are left to those loops. */
static tl_status run_launch(tl__iframe *kf, const tl_ir_func *k, const tl__body_scan *sc, const int64_t ext_in[6]) {
  int64_t ext[6];
  for (int i = 0; i < 6; i++) ext[i] = (sc->looped >> i) & 1 ? 1 : ext_in[i];
  int64_t idx[6];
  for (idx[2] = 0; idx[2] < ext[2]; idx[2]++)
    for (idx[1] = 0; idx[1] < ext[1]; idx[1]++)
      for (idx[0] = 0; idx[0] < ext[0]; idx[0]++)
        for (idx[5] = 0; idx[5] < ext[5]; idx[5]++)
          for (idx[4] = 0; idx[4] < ext[4]; idx[4]++)
            for (idx[3] = 0; idx[3] < ext[3]; idx[3]++) {
              for (size_t i = 0; i < sc->tagged.len; i++) {
                const tl_ir_var *v = TL__VEC_AT(&sc->tagged, const tl_ir_var *, i);
                int t = tl__interp_tag_index(v->thread_tag); /* only tagged variables were collected */
                if (t >= 0) bind_opt(kf, v, idx[t]);
              }
              TL__TRY(tl__interp_exec_scope(kf, k->body));
            }
  return TL_OK;
}

static tl_status exec_launch(tl__iframe *fr, const tl_ir_stmt *s) {
  if (fr->simt) return nested_in_simt(s);
  const char *name = s->u.launch.kernel;
  const tl_ir_func *k = name ? tl_ir_module_find_func(fr->in->mod, name) : NULL;
  if (!k) return tl__interp_error(TL_ENOTFOUND, s->span, "launch of unknown kernel '%s'", name ? name : "");
  if (k->callconv != TL_CALLCONV_DEVICE_KERNEL)
    return tl__interp_error(TL_EINVAL, s->span, "launch of '%s', which is not a device kernel", name);
  if (s->u.launch.nargs && !s->u.launch.args) return tl__interp_error(TL_EINVAL, s->span, "launch without arguments");
  if (s->u.launch.nargs != k->nparams)
    return tl__interp_error(TL_EINVAL, s->span, "launch of '%s' with %u arguments; it takes %u", name,
                            s->u.launch.nargs, k->nparams);
  if (fr->in->depth >= MAX_LAUNCH_DEPTH)
    return tl__interp_error(TL_EINVAL, s->span, "launches nested more than %d deep", MAX_LAUNCH_DEPTH);
  int64_t ext[6], smem = 0;
  TL__TRY(eval_extents(fr, s->u.launch.grid, 3, ext, s->span));
  TL__TRY(eval_extents(fr, s->u.launch.block, 3, ext + 3, s->span));
  if (s->u.launch.dyn_shared_bytes) {
    TL__TRY(check_int(s->u.launch.dyn_shared_bytes, "dynamic shared memory", s->span));
    TL__TRY(tl__interp_eval_int(fr, s->u.launch.dyn_shared_bytes, &smem));
    if (smem < 0)
      return tl__interp_error(TL_ERUNTIME, s->span, "negative dynamic shared memory size %" PRId64, smem);
  }
  tl__body_scan sc;
  tl_status st = tl__interp_scan(k->body, false, &sc);
  tl__iframe kf;
  if (st == TL_OK) st = tl__iframe_init(&kf, fr->in, k);
  if (st == TL_OK) {
    st = bind_launch_args(fr, &kf, s, k);
    fr->in->depth++;
    if (st == TL_OK && k->body) {
      bool many = ext[3] && ext[4] && ext[5] && (ext[3] > 1 || ext[4] > 1 || ext[5] > 1);
      if (tl__simt_wanted(fr->in->mod, &sc, many)) {
        tl__simt_plan plan = {k->body, &kf, k, s->span, {ext[0], ext[1], ext[2]}, {ext[3], ext[4], ext[5]},
                              smem, &sc, NULL, NULL};
        st = tl__simt_run(&plan);
      } else {
        st = run_launch(&kf, k, &sc, ext);
      }
    }
    fr->in->depth--;
    tl__iframe_free(&kf);
  }
  tl__interp_scan_free(&sc);
  return st;
}

static tl_status exec_eval(tl__iframe *fr, const tl_ir_stmt *s) {
  const tl_ir_expr *e = s->u.eval.expr;
  if (!e) return tl__interp_error(TL_EINVAL, s->span, "empty evaluate statement");
  if (e->kind == TL_EXPR_CALL && (unsigned)e->u.call.op < TL_OP__COUNT && tl_ir_op_is_tile(e->u.call.op))
    return tl__interp_tile_op(fr, e, e->span.line ? e->span : s->span);
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_ASSUME) { /* a fact: checked here, dropped by lowering */
    int64_t c = 0;
    if (e->u.call.nargs != 1) return tl__interp_error(TL_EINVAL, s->span, "T.assume takes one condition");
    TL__TRY(check_int(e->u.call.args[0], "an assumption", s->span));
    TL__TRY(tl__interp_eval_int(fr, e->u.call.args[0], &c));
    if (!c) return tl__interp_error(TL_ERUNTIME, e->span.line ? e->span : s->span, "T.assume: the assumed condition does not hold");
    return TL_OK;
  }
  uint32_t lanes = e->dtype.lanes > 1 ? e->dtype.lanes : 1;
  for (uint32_t l = 0; l < lanes; l++) {
    tl__ival v;
    TL__TRY(tl__interp_eval(fr, e, l, &v));
  }
  return TL_OK;
}

tl_status tl__interp_exec(tl__iframe *fr, const tl_ir_stmt *s) {
  if (!s) return TL_OK;
  switch (s->kind) {
  case TL_STMT_SEQ: {
    tl__istore *mark = fr->allocs;
    tl_status st = TL_OK;
    if (s->u.seq.n && !s->u.seq.stmts) return tl__interp_error(TL_EINVAL, s->span, "sequence without statements");
    for (uint32_t i = 0; i < s->u.seq.n && st == TL_OK; i++) st = tl__interp_exec(fr, s->u.seq.stmts[i]);
    tl__interp_free_to(fr, mark);
    return st;
  }
  case TL_STMT_FOR:
    return exec_for(fr, s);
  case TL_STMT_IF: {
    int64_t c;
    TL__TRY(check_int(s->u.if_.cond, "a condition", s->span));
    TL__TRY(tl__interp_eval_int(fr, s->u.if_.cond, &c));
    if (c) return tl__interp_exec_scope(fr, s->u.if_.then_);
    return s->u.if_.else_ ? tl__interp_exec_scope(fr, s->u.if_.else_) : TL_OK;
  }
  case TL_STMT_STORE:
    return exec_store(fr, s);
  case TL_STMT_LET:
    return exec_let(fr, s);
  case TL_STMT_ALLOC:
    if (!s->u.alloc.buffer) return tl__interp_error(TL_EINVAL, s->span, "allocation without a buffer");
    return tl__interp_alloc(fr, s->u.alloc.buffer, s->span);
  case TL_STMT_EVAL:
    return exec_eval(fr, s);
  case TL_STMT_KERNEL:
    return exec_kernel(fr, s);
  case TL_STMT_BARRIER:
    /* Outside SIMT execution the code is block-level (no thread indices: SIMT is
     * chosen whenever they meet a barrier), so there is nothing to wait for. */
    return fr->simt ? tl__simt_barrier(fr, s) : TL_OK;
  case TL_STMT_ASSERT: {
    int64_t c;
    TL__TRY(check_int(s->u.assert_.cond, "an assertion", s->span));
    TL__TRY(tl__interp_eval_int(fr, s->u.assert_.cond, &c));
    if (c) return TL_OK;
    char *msg = tl__interp_assert_message(fr, s->u.assert_.message);
    if (!msg) return tl__oom();
    tl_status st = tl__error(TL_EINVAL, "%s", msg);
    tl_free(msg);
    return st;
  }
  case TL_STMT_LAUNCH:
    return exec_launch(fr, s);
  }
  return tl__interp_error(TL_EINVAL, s->span, "unknown statement kind %d", (int)s->kind);
}

tl_status tl__interp_run_func(tl__iframe *fr) { return tl__interp_exec_scope(fr, fr->func->body); }
