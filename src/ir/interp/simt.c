/* SIMT execution (simt.h): scanning a kernel body, choosing the mode, running a
 * launch with one OS thread per GPU thread, thread-bound loops and the block's
 * shared buffers.
 *
 * The launching thread coordinates: it makes the frames, starts the workers once
 * for the whole launch, then for each block (bx fastest) resets the block state,
 * wakes the workers, waits until all of them have finished the block and stops at
 * the first block with an error. Workers run the body in their own frame and
 * synchronise through simt_sync.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "ir/interp/simt.h"
#include "ir/op_table.h"
#include "tilelang/target.h"

#define WORKER_STACK_BYTES (2u << 20) /* the executor recurses along the IR */

/* ------------------------------------------------------------- scanning */

static const char *const k_tags[6] = {"blockIdx.x", "blockIdx.y", "blockIdx.z",
                                      "threadIdx.x", "threadIdx.y", "threadIdx.z"};

int tl__interp_tag_index(const char *tag) {
  if (!tag) return -1;
  for (int i = 0; i < 6; i++)
    if (strcmp(tag, k_tags[i]) == 0) return i;
  return -1;
}

typedef struct scan_ctx {
  tl__body_scan *sc;
  bool skip_kernels;
  tl_status status;
} scan_ctx;

/* The tag a thread loop binds: its own, else its (single) variable's. */
static int loop_tag(const tl_ir_stmt *s) {
  int t = tl__interp_tag_index(s->u.loop.thread_tag);
  if (t < 0 && s->u.loop.n > 0 && s->u.loop.vars && s->u.loop.vars[0])
    t = tl__interp_tag_index(s->u.loop.vars[0]->thread_tag);
  return t;
}

static bool scan_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  scan_ctx *cx = v->ctx;
  tl__body_scan *sc = cx->sc;
  switch (s->kind) {
  case TL_STMT_KERNEL:
    if (cx->skip_kernels) return false;
    for (int i = 0; i < 3; i++)
      if (s->u.kernel.thread_vars[i]) sc->threads = true;
    break;
  case TL_STMT_BARRIER:
    sc->barrier = true;
    break;
  case TL_STMT_ALLOC:
    if (s->u.alloc.buffer &&
        (s->u.alloc.buffer->scope == TL_SCOPE_SHARED || s->u.alloc.buffer->scope == TL_SCOPE_SHARED_DYN))
      sc->shared = true;
    break;
  case TL_STMT_FOR:
    if (s->u.loop.kind == TL_FOR_THREAD) {
      int t = loop_tag(s);
      if (t >= 0) sc->looped |= 1u << t;
      if (t < 0 || t >= 3) sc->threads = true;
    }
    break;
  default:
    break;
  }
  return true;
}

static bool scan_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  scan_ctx *cx = v->ctx;
  tl__body_scan *sc = cx->sc;
  if (e->kind == TL_EXPR_CALL) {
    if (e->u.call.op == TL_OP_WARP_SHFL_XOR || e->u.call.op == TL_OP_MMA_M16N8K16 ||
        e->u.call.op == TL_OP_LDMATRIX_X4)
      sc->shuffle = true;
    if (tl__atomic_elem_of(e->u.call.op) != TL_OP__COUNT || tl__op_is_atomic_elem(e->u.call.op)) sc->atomic = true;
    return true;
  }
  if (e->kind != TL_EXPR_VAR || !e->u.var->thread_tag) return true;
  int t = tl__interp_tag_index(e->u.var->thread_tag);
  if (t >= 3) sc->threads = true;
  if (t < 0) return true;
  for (size_t i = 0; i < sc->tagged.len; i++)
    if (TL__VEC_AT(&sc->tagged, const tl_ir_var *, i) == e->u.var) return true;
  const tl_ir_var *var = e->u.var;
  if (cx->status == TL_OK) cx->status = tl__vec_push(&sc->tagged, &var);
  return true;
}

tl_status tl__interp_scan(const tl_ir_stmt *body, bool skip_kernels, tl__body_scan *out) {
  memset(out, 0, sizeof *out);
  tl__vec_init(&out->tagged, sizeof(const tl_ir_var *));
  scan_ctx cx = {out, skip_kernels, TL_OK};
  tl_ir_visitor v = {scan_expr, scan_stmt, &cx};
  if (body) tl_ir_visit_stmt(&v, body);
  return cx.status;
}

void tl__interp_scan_free(tl__body_scan *sc) { tl__vec_free(&sc->tagged); }

bool tl__simt_wanted(const tl_ir_module *mod, const tl__body_scan *sc, bool many_threads) {
  if (!sc->threads && !many_threads) return false;
  /* Without these, threads can only meet through unsynchronised global memory,
   * where any interleaving is a race; running them one after another is then one
   * legal schedule, and the cheap one. */
  if (sc->barrier || sc->shuffle || sc->shared || sc->atomic) return true;
  const tl_ir_attr *a = tl_ir_module_attr(mod, "tl.interp.simt");
  return a && a->kind == TL_ATTR_INT && a->i == 1;
}

/* ---------------------------------------------------------- descriptions */

const char *tl__simt_span_str(tl_ir_span span, char *buf, size_t cap) {
  if (span.line == 0) snprintf(buf, cap, "<unknown location>");
  else snprintf(buf, cap, "%s:%u:%u", span.file ? span.file : "<input>", span.line, span.col);
  return buf;
}

const char *tl__simt_tid_str(const tl__simt *sm, uint32_t tid, char *buf, size_t cap) {
  const tl__simt_thread *t = &sm->threads[tid];
  snprintf(buf, cap, "(%" PRId64 ", %" PRId64 ", %" PRId64 ")", t->idx[0], t->idx[1], t->idx[2]);
  return buf;
}

/* ------------------------------------------------------------- warp size */

/* thread_warp_size of the kernel's "target" attribute, else of the module's,
 * else 32. */
static tl_status warp_size_of(const tl__simt_plan *p, uint32_t *out) {
  const tl_ir_attr *a = p->func ? tl_ir_func_attr(p->func, "target") : NULL;
  if (!a) a = tl_ir_module_attr(p->base->in->mod, "target");
  *out = 32;
  if (!a || a->kind != TL_ATTR_STR || !a->s) return TL_OK;
  tl_target *t;
  tl_status s = tl_target_parse(a->s, &t);
  if (s != TL_OK) return tl__error_context(s, "the kernel's target attribute: ");
  int64_t w;
  if (tl_target_attr_int(t, "thread_warp_size", &w)) {
    if (w < 1 || w > TL__SIMT_MAX_THREADS || (w & (w - 1)) != 0)
      s = tl__interp_error(TL_EINVAL, p->span, "the target's thread_warp_size %" PRId64
                           " is not a power of two between 1 and %d", w, TL__SIMT_MAX_THREADS);
    else *out = (uint32_t)w;
  }
  tl_target_release(t);
  return s;
}

/* ----------------------------------------------------------------- workers */

static void bind_index(tl__iframe *fr, const tl_ir_var *v, int64_t x) {
  if (v && v->id < fr->in->nvars) tl__interp_bind(fr, v, tl__iv_from_i64(v->dtype, x));
}

/* One block of one thread: fresh bindings from the base frame, the indices, the body. */
static tl_status run_block(tl__simt_thread *t, const int64_t bidx[3]) {
  const tl__simt_plan *p = t->sm->plan;
  tl__iframe *fr = &t->fr;
  size_t nv = fr->in->nvars;
  memcpy(fr->vals, p->base->vals, nv * sizeof *fr->vals);
  memcpy(fr->bound, p->base->bound, nv);
  for (size_t i = 0; i < p->scan->tagged.len; i++) {
    const tl_ir_var *v = TL__VEC_AT(&p->scan->tagged, const tl_ir_var *, i);
    int tag = tl__interp_tag_index(v->thread_tag);
    if (tag >= 0) bind_index(fr, v, tag < 3 ? bidx[tag] : t->idx[tag - 3]);
  }
  for (int i = 0; i < 3; i++) {
    if (p->block_vars) bind_index(fr, p->block_vars[i], bidx[i]);
    if (p->thread_vars) bind_index(fr, p->thread_vars[i], t->idx[i]);
  }
  t->async.len = 0; /* a block left by an error may have left copies in flight */
  t->async_groups = 0;
  tl_status st = tl__interp_exec_scope(fr, p->body);
  return st == TL_OK ? tl__simt_cp_async_end(t) : st;
}

/* Ends the thread's block: records how, and lets the block move on. */
static void finish_block(tl__simt_thread *t, tl_status st) {
  tl__simt *sm = t->sm;
  char *msg = NULL;
  /* Messages are per OS thread: keep a copy for the coordinator. */
  if (st != TL_OK && st != TL_ENOMEM && !t->aborted) {
    msg = tl__strdup(tl_last_error());
    if (!msg) st = TL_ENOMEM;
  }
  pthread_mutex_lock(&sm->mu);
  t->status = st;
  t->msg = msg;
  t->state = TL__SIMT_DONE;
  sm->nrunning--;
  sm->ndone++;
  if (sm->ndone == sm->nthreads) pthread_cond_signal(&sm->done);
  else if (sm->nrunning == 0) tl__simt_resolve(sm);
  pthread_mutex_unlock(&sm->mu);
}

static void *worker(void *arg) {
  tl__simt_thread *t = arg;
  tl__simt *sm = t->sm;
  uint64_t seen = 0;
  for (;;) {
    pthread_mutex_lock(&sm->mu);
    while (!sm->quit && sm->block_gen == seen) pthread_cond_wait(&sm->start, &sm->mu);
    if (sm->quit) {
      pthread_mutex_unlock(&sm->mu);
      return NULL;
    }
    seen = sm->block_gen;
    int64_t bidx[3] = {sm->bidx[0], sm->bidx[1], sm->bidx[2]};
    t->epoch = sm->epoch;
    pthread_mutex_unlock(&sm->mu);
    finish_block(t, run_block(t, bidx));
  }
}

/* ------------------------------------------------------------- the launch */

static void free_shared(tl__simt *sm) {
  for (size_t i = 0; i < sm->shared.len; i++) {
    struct tl__simt_shared *sh = TL__VEC_AT(&sm->shared, struct tl__simt_shared *, i);
    tl__free(sh->shadow);
    tl__free(sh);
  }
  tl__vec_free(&sm->shared);
}

/* The first failure of the block just run, as this thread's error: the lowest
 * thread index that failed, else a divergence the resolver found. */
static tl_status block_result(tl__simt *sm) {
  for (uint32_t i = 0; i < sm->nthreads; i++) {
    tl__simt_thread *t = &sm->threads[i];
    if (t->status == TL_OK || t->aborted) continue;
    if (t->status == TL_ENOMEM || !t->msg) return tl__oom();
    char tb[64];
    return tl__error(t->status, "%s (block (%" PRId64 ", %" PRId64 ", %" PRId64 "), thread %s)", t->msg,
                     sm->bidx[0], sm->bidx[1], sm->bidx[2], tl__simt_tid_str(sm, i, tb, sizeof tb));
  }
  if (sm->sync_status == TL_OK) return TL_OK;
  if (sm->sync_status == TL_ENOMEM || !sm->sync_msg) return tl__oom();
  return tl__error(sm->sync_status, "%s", sm->sync_msg);
}

/* Resets the block state and wakes the workers for block bidx; waits for the end. */
static tl_status run_one_block(tl__simt *sm, const int64_t bidx[3]) {
  pthread_mutex_lock(&sm->mu);
  memcpy(sm->bidx, bidx, sizeof sm->bidx);
  sm->block_gen++;
  sm->epoch++;
  sm->nrunning = sm->nthreads;
  sm->ndone = 0;
  sm->dyn_used = 0;
  for (uint32_t i = 0; i < sm->nthreads; i++) {
    tl__simt_thread *t = &sm->threads[i];
    tl__free(t->msg);
    t->msg = NULL;
    t->status = TL_OK;
    t->state = TL__SIMT_RUNNING;
    t->aborted = false;
  }
  pthread_cond_broadcast(&sm->start);
  while (sm->ndone < sm->nthreads) pthread_cond_wait(&sm->done, &sm->mu);
  pthread_mutex_unlock(&sm->mu);
  return block_result(sm);
}

static tl_status start_workers(tl__simt *sm, uint32_t *started) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return tl__error(TL_ERUNTIME, "SIMT execution: cannot set up threads");
  (void)pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
  tl_status s = TL_OK;
  for (uint32_t i = 0; i < sm->nthreads && s == TL_OK; i++) {
    int rc = pthread_create(&sm->threads[i].handle, &attr, worker, &sm->threads[i]);
    if (rc != 0)
      s = tl__error(TL_ERUNTIME, "SIMT execution: cannot start thread %u of %u: %s", i, sm->nthreads, strerror(rc));
    else *started = i + 1;
  }
  pthread_attr_destroy(&attr);
  return s;
}

static tl_status run_blocks(tl__simt *sm) {
  const tl__simt_plan *p = sm->plan;
  for (int64_t bz = 0; bz < p->grid[2]; bz++)
    for (int64_t by = 0; by < p->grid[1]; by++)
      for (int64_t bx = 0; bx < p->grid[0]; bx++) {
        int64_t b[3] = {bx, by, bz};
        TL__TRY(run_one_block(sm, b));
      }
  return TL_OK;
}

/* Locks and condition variables; false (all destroyed again) if one fails. */
static bool init_sync(tl__simt *sm) {
  int n = 0;
  bool ok = pthread_mutex_init(&sm->mu, NULL) == 0 && ++n && pthread_mutex_init(&sm->shmu, NULL) == 0 && ++n &&
            pthread_cond_init(&sm->start, NULL) == 0 && ++n && pthread_cond_init(&sm->wake, NULL) == 0 && ++n &&
            pthread_cond_init(&sm->done, NULL) == 0 && ++n;
  int stripes = 0;
  while (ok && stripes < TL__SIMT_STRIPES && pthread_mutex_init(&sm->stripes[stripes], NULL) == 0) stripes++;
  if (ok && stripes == TL__SIMT_STRIPES) return true;
  while (stripes > 0) pthread_mutex_destroy(&sm->stripes[--stripes]);
  if (n > 4) pthread_cond_destroy(&sm->done);
  if (n > 3) pthread_cond_destroy(&sm->wake);
  if (n > 2) pthread_cond_destroy(&sm->start);
  if (n > 1) pthread_mutex_destroy(&sm->shmu);
  if (n > 0) pthread_mutex_destroy(&sm->mu);
  return false;
}

static void destroy_sync(tl__simt *sm) {
  for (int i = 0; i < TL__SIMT_STRIPES; i++) pthread_mutex_destroy(&sm->stripes[i]);
  pthread_cond_destroy(&sm->done);
  pthread_cond_destroy(&sm->wake);
  pthread_cond_destroy(&sm->start);
  pthread_mutex_destroy(&sm->shmu);
  pthread_mutex_destroy(&sm->mu);
}

/* Checks the launch's shape; *nthreads = 0 when there is nothing to run. */
static tl_status launch_shape(const tl__simt_plan *p, uint32_t *nthreads) {
  *nthreads = 0;
  int64_t nt = 1;
  for (int i = 0; i < 3; i++) {
    if (p->grid[i] == 0 || p->block[i] == 0) return TL_OK;
    if (p->block[i] > TL__SIMT_MAX_THREADS || nt * p->block[i] > TL__SIMT_MAX_THREADS)
      return tl__interp_error(TL_EUNSUPPORTED, p->span,
                              "SIMT execution runs at most %d threads per block; this block is %" PRId64 " x %" PRId64
                              " x %" PRId64,
                              TL__SIMT_MAX_THREADS, p->block[0], p->block[1], p->block[2]);
    nt *= p->block[i];
  }
  *nthreads = (uint32_t)nt;
  return TL_OK;
}

tl_status tl__simt_run(const tl__simt_plan *p) {
  uint32_t n, warp;
  TL__TRY(launch_shape(p, &n));
  if (n == 0) return TL_OK;
  TL__TRY(warp_size_of(p, &warp));
  tl__simt *sm = tl__calloc(1, sizeof *sm);
  if (!sm) return tl__oom();
  sm->plan = p;
  sm->nthreads = n;
  sm->warp_size = warp;
  memcpy(sm->bdim, p->block, sizeof sm->bdim);
  tl__vec_init(&sm->shared, sizeof(struct tl__simt_shared *));
  sm->threads = tl__calloc(n, sizeof *sm->threads);
  tl_status s = sm->threads ? TL_OK : tl__oom();
  uint32_t framed = 0, started = 0;
  for (uint32_t i = 0; i < n && s == TL_OK; i++) {
    tl__simt_thread *t = &sm->threads[i];
    t->sm = sm;
    t->tid = i;
    t->idx[0] = i % p->block[0];
    t->idx[1] = i / p->block[0] % p->block[1];
    t->idx[2] = i / (p->block[0] * p->block[1]);
    s = tl__iframe_init(&t->fr, p->base->in, p->base->func);
    if (s == TL_OK) {
      t->fr.simt = t;
      framed++;
    }
  }
  bool synced = false;
  if (s == TL_OK) {
    synced = init_sync(sm);
    if (!synced) s = tl__error(TL_ERUNTIME, "SIMT execution: cannot create locks");
  }
  if (s == TL_OK) s = start_workers(sm, &started);
  if (s == TL_OK) s = run_blocks(sm);
  if (synced) {
    pthread_mutex_lock(&sm->mu);
    sm->quit = true;
    pthread_cond_broadcast(&sm->start);
    pthread_mutex_unlock(&sm->mu);
    for (uint32_t i = 0; i < started; i++) pthread_join(sm->threads[i].handle, NULL);
    destroy_sync(sm);
  }
  for (uint32_t i = 0; i < framed; i++) {
    tl__iframe_free(&sm->threads[i].fr);
    tl__free(sm->threads[i].msg);
  }
  for (uint32_t i = 0; sm->threads && i < n; i++) tl__vec_free(&sm->threads[i].async);
  free_shared(sm);
  tl__free(sm->sync_msg);
  tl__free(sm->threads);
  tl__free(sm);
  return s;
}

/* ------------------------------------------------------ thread-bound loops */

bool tl__simt_binds_loop(const tl__iframe *fr, const tl_ir_stmt *s) {
  return fr->simt && s->kind == TL_STMT_FOR && s->u.loop.kind == TL_FOR_THREAD && s->u.loop.n == 1 &&
         loop_tag(s) >= 0;
}

tl_status tl__simt_loop_index(tl__iframe *fr, const tl_ir_stmt *s, int64_t min, int64_t extent, bool *run,
                              int64_t *value) {
  tl__simt_thread *t = fr->simt;
  tl__simt *sm = t->sm;
  int tag = loop_tag(s);
  int64_t launched = tag < 3 ? sm->plan->grid[tag] : sm->bdim[tag - 3];
  int64_t index = tag < 3 ? sm->bidx[tag] : t->idx[tag - 3];
  if (extent > launched)
    return tl__interp_error(TL_ERUNTIME, s->span,
                            "a loop bound to %s runs %" PRId64 " times but the launch has %" PRId64 " along it",
                            k_tags[tag], extent, launched);
  *run = index < extent;
  *value = min + index;
  return TL_OK;
}

/* ---------------------------------------------------- shared allocations */

static struct tl__simt_shared *find_shared(tl__simt *sm, const tl_ir_buffer *buf) {
  for (size_t i = 0; i < sm->shared.len; i++) {
    struct tl__simt_shared *sh = TL__VEC_AT(&sm->shared, struct tl__simt_shared *, i);
    if (sh->buf == buf) return sh;
  }
  return NULL;
}

static tl_status new_shared(tl__simt *sm, const tl_ir_buffer *buf, size_t nbytes, struct tl__simt_shared **out) {
  size_t esz = tl_dtype_bytes(tl_dtype_scalar(buf->dtype));
  struct tl__simt_shared *sh = tl__calloc(1, sizeof *sh + nbytes);
  if (!sh) return tl__oom();
  sh->shadow = tl__malloc((nbytes / esz ? nbytes / esz : 1) * sizeof *sh->shadow);
  if (!sh->shadow || tl__vec_push(&sm->shared, &sh) != TL_OK) {
    tl__free(sh->shadow);
    tl__free(sh);
    return tl__oom();
  }
  for (size_t i = 0; i < nbytes / esz; i++) sh->shadow[i].epoch = 0; /* epochs start at 1: all stale */
  sh->buf = buf;
  sh->esz = esz;
  sh->store.data = (char *)(sh + 1);
  sh->store.nbytes = nbytes;
  sh->store.buffer = buf;
  sh->store.shared = sh;
  *out = sh;
  return TL_OK;
}

tl_status tl__simt_alloc_shared(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span) {
  tl__simt *sm = fr->simt->sm;
  size_t nbytes;
  TL__TRY(tl__interp_alloc_size(fr, buf, span, &nbytes));
  tl_status s = TL_OK;
  pthread_mutex_lock(&sm->shmu);
  struct tl__simt_shared *sh = find_shared(sm, buf);
  if (!sh) s = new_shared(sm, buf, nbytes, &sh);
  if (s == TL_OK && sh->store.nbytes != nbytes)
    s = tl__interp_error(TL_ERUNTIME, span, "shared buffer '%s' has %zu bytes in one thread and %zu in another",
                         buf->name, sh->store.nbytes, nbytes);
  if (s == TL_OK && sh->block_gen != sm->block_gen) {
    /* The first thread of this block to get here: fresh, poisoned memory. */
    sh->block_gen = sm->block_gen;
    tl__iv_poison(tl_dtype_scalar(buf->dtype), sh->store.data, nbytes / sh->esz);
    if (buf->scope == TL_SCOPE_SHARED_DYN) sm->dyn_used += (int64_t)nbytes;
    sh->dyn_end = sm->dyn_used;
  }
  int64_t limit = sm->plan->dyn_shared_bytes;
  if (s == TL_OK && buf->scope == TL_SCOPE_SHARED_DYN && limit >= 0 && sh->dyn_end > limit)
    s = tl__interp_error(TL_ERUNTIME, span,
                         "dynamic shared buffer '%s' needs %" PRId64 " bytes of dynamic shared memory (with the ones "
                         "before it) but the launch gives %" PRId64,
                         buf->name, sh->dyn_end, limit);
  pthread_mutex_unlock(&sm->shmu);
  if (s != TL_OK) return s;
  return tl__interp_bind_scoped(fr, buf, &sh->store);
}
