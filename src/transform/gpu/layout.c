/* Fragment layouts (docs/lowering.md, "GPU layouts").
 *
 * Every fragment of a kernel is decided, from its uses alone, to be
 *   - replicated: every thread holds all of it. Required when some use needs
 *     elements other than the ones a thread would own: a read outside T.Parallel,
 *     an access inside T.Parallel at other than the loop's own element
 *     (`row_max[i]` inside `T.Parallel(M, N)`), the destination of a reduction,
 *     an operand of T.cumsum, operand A or B of T.gemm; or
 *   - distributed: otherwise. Fragments accessed at the loop's own element in one
 *     T.Parallel loop (`x[i, j]` inside `for i, j in T.Parallel(M, N)` with x of
 *     shape (M, N)) share one layout, chosen by tl__gpu_layout_choose (with
 *     register micro-tiles when one of them is a T.gemm accumulator).
 * Each outermost T.Parallel loop then runs
 *   - distributed as the layout of the distributed fragments it touches at its
 *     own element, or else, when it writes shared or global memory, as a layout
 *     of its own (its extents constant) or linearly (symbolic extents);
 *   - replicated (every iteration in every thread) otherwise: it only writes
 *     replicated fragments, local buffers and variables.
 * A distributed loop that writes a replicated fragment, a local buffer or a
 * local.var would update only some threads' copies: TL_EINVAL at the write. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "ir/op_table.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

/* --------------------------------------------------------------- choosing */

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

void tl__gpu_layout_choose(tl__gpu_layout *L, int64_t T, const int64_t *shape, uint32_t ndim, int64_t elem_bytes,
                           int64_t vector_bytes, bool gemm) {
  memset(L, 0, sizeof *L);
  L->T = T;
  L->ndim = ndim;
  int64_t R = 1, C = ndim ? shape[ndim - 1] : 1;
  for (uint32_t d = 0; d < ndim; d++) L->shape[d] = shape[d];
  for (uint32_t d = 0; d + 1 < ndim; d++) R *= shape[d];
  if (C < 1) C = 1;
  if (R < 1) R = 1;
  int64_t vmax = elem_bytes > 0 ? vector_bytes / elem_bytes : 1;
  int64_t V = 1;
  for (int64_t v = 1; v <= vmax; v *= 2)
    if (C % v == 0 && (v == 1 || R * (C / v) >= T)) V = v;
  int64_t CB = C / V, TC = 1;
  for (int64_t d = 1; d <= T && d <= CB; d++)
    if (T % d == 0) TC = d;
  int64_t TR = T / TC, mr = 1;
  if (gemm)
    while (mr * 2 <= 8 && R % (mr * 2 * TR) == 0) mr *= 2;
  L->R = R;
  L->C = C;
  L->V = V;
  L->mr = mr;
  L->TC = TC;
  L->TR = TR;
  L->CB = CB;
  L->RB = ceil_div(R, mr);
  L->RR = ceil_div(L->RB, TR);
  L->RC = ceil_div(CB, TC);
  L->slots = L->RR * L->RC * mr * V;
  L->elem_bytes = elem_bytes;
  L->vector_bytes = vector_bytes;
  L->gemm = gemm;
}

void tl__gpu_layout_choose_mma(tl__gpu_layout *L, int64_t T, const int64_t *shape, uint32_t ndim, int64_t elem_bytes,
                               int64_t vector_bytes, int64_t WM, int64_t WN) {
  memset(L, 0, sizeof *L);
  L->T = T;
  L->ndim = ndim;
  int64_t R = 1;
  for (uint32_t d = 0; d < ndim; d++) L->shape[d] = shape[d];
  for (uint32_t d = 0; d + 1 < ndim; d++) R *= shape[d];
  L->R = R;
  L->C = shape[ndim - 1];
  (void)T;
  L->V = 2;
  L->mr = 2;
  L->WM = WM;
  L->WN = WN;
  L->TC = 4 * WN;
  L->TR = 8 * WM;
  L->CB = L->C / 2;
  L->RB = R / 2;
  L->RR = R / WM / 16;
  L->RC = L->C / WN / 8;
  L->slots = L->RR * L->RC * L->mr * L->V;
  L->elem_bytes = elem_bytes;
  L->vector_bytes = vector_bytes;
  L->gemm = true;
  L->mma = true;
}

int64_t tl__gpu_layout_row_lanes(const tl__gpu_layout *L) { return L->mma ? 4 : L->TC; }

void tl__gpu_layout_project(const tl__gpu_layout *parent, const int64_t *shape, uint32_t ndim, tl__gpu_layout *out) {
  *out = *parent;
  out->proj = true;
  out->ndim = ndim;
  memset(out->shape, 0, sizeof out->shape);
  for (uint32_t d = 0; d < ndim; d++) out->shape[d] = shape[d];
  out->slots = parent->RR * parent->mr;
}

bool tl__gpu_layout_rows_equal(const tl__gpu_layout *a, const tl__gpu_layout *b) {
  if (a->replicated || b->replicated || a->mma != b->mma || a->T != b->T || a->R != b->R || a->mr != b->mr ||
      a->RR != b->RR || a->TR != b->TR)
    return false;
  return a->mma ? a->WM == b->WM : a->TC == b->TC;
}

tl_status tl__gpu_layout_frag(const tl__gpu_layout *L, tl__frag *out) {
  if (L->replicated) return tl__frag_replicated(L->T, L->shape, L->ndim, out);
  if (L->proj) {
    /* the parent's map with its last (column) dim dropped: slots rr*mr + mi */
    tl__gpu_layout P = *L;
    P.proj = false;
    P.ndim = L->ndim + 1;
    if (P.ndim > TL__FRAG_MAX_DIMS) return tl__error(TL_EINVAL, "a row projection of %u dims has too many", L->ndim);
    P.shape[L->ndim] = L->C;
    P.slots = L->RR * L->RC * L->mr * L->V;
    tl__frag F;
    TL__TRY(tl__gpu_layout_frag(&P, &F));
    uint32_t keep[TL__FRAG_MAX_DIMS];
    for (uint32_t d = 0; d < L->ndim; d++) keep[d] = d;
    return tl__frag_project(&F, keep, L->ndim, out);
  }
  if (L->mma) {
    if (L->ndim != 2) return tl__error(TL_EINVAL, "the mma accumulator layout is two-dimensional, not %u", L->ndim);
    return tl__frag_mma_c(L->shape[0], L->shape[1], L->WM, L->WN, out);
  }
  return tl__frag_grid(L->T, L->shape, L->ndim, L->V, L->mr, L->TC, out);
}

static void layout_replicated(tl__gpu_layout *L, int64_t T, const int64_t *shape, uint32_t ndim) {
  memset(L, 0, sizeof *L);
  L->replicated = true;
  L->T = T;
  L->ndim = ndim;
  L->R = 1;
  for (uint32_t d = 0; d < ndim; d++) {
    L->shape[d] = shape[d];
    if (d + 1 < ndim) L->R *= shape[d];
  }
  L->C = ndim ? shape[ndim - 1] : 1;
  L->slots = L->R * L->C;
}

/* ------------------------------------------------------------ slot loops */

static tl_ir_expr *int32_const(tl_ir_module *mod, int64_t v) { return tl_ir_i32(mod, v); }

tl_status tl__gpu_slots_make(tl_ir_module *mod, const tl__gpu_layout *L, tl_ir_expr *tid, tl__gpu_slots *s) {
  memset(s, 0, sizeof *s);
  s->rr = tl_ir_var_new(mod, "rr", TL_DT_INT32);
  s->rc = tl_ir_var_new(mod, "rc", TL_DT_INT32);
  s->mi = tl_ir_var_new(mod, "mi", TL_DT_INT32);
  s->v = tl_ir_var_new(mod, "v", TL_DT_INT32);
  if (!s->rr || !s->rc || !s->mi || !s->v) return tl__built(mod, NULL);
  tl_ir_expr *rr = tl_ir_var_ref(mod, s->rr), *rc = tl_ir_var_ref(mod, s->rc), *mi = tl_ir_var_ref(mod, s->mi),
             *v = tl_ir_var_ref(mod, s->v);
  tl_ir_expr *cb;
  if (L->mma) {
    /* gpu.h: warp w = wm + WM*wn, lane g*4 + q; row wm*R/WM + rr*16 + g + 8*mi,
     * column wn*C/WN + rc*8 + 2q + v */
    tl_ir_expr *warp = tl__floordiv(mod, tid, int32_const(mod, 32)), *lane = tl__floormod(mod, tid, int32_const(mod, 32));
    tl_ir_expr *wm = tl__floormod(mod, warp, int32_const(mod, L->WM)), *wn = tl__floordiv(mod, warp, int32_const(mod, L->WM));
    tl_ir_expr *g = tl__floordiv(mod, lane, int32_const(mod, 4)), *q = tl__floormod(mod, lane, int32_const(mod, 4));
    s->tr = tl__add(mod, tl__mul(mod, wm, int32_const(mod, 8)), g);
    s->tc = tl__add(mod, tl__mul(mod, wn, int32_const(mod, 4)), q);
    s->r = tl__add(mod, tl__add(mod, tl__mul(mod, wm, int32_const(mod, L->R / L->WM)), g),
                   tl__add(mod, tl__mul(mod, rr, int32_const(mod, 16)), tl__mul(mod, mi, int32_const(mod, 8))));
    cb = tl__add(mod, tl__add(mod, tl__mul(mod, wn, int32_const(mod, L->C / L->WN / 2)), q),
                 tl__mul(mod, rc, int32_const(mod, 4)));
  } else {
    s->tr = tl__floordiv(mod, tid, int32_const(mod, L->TC));
    s->tc = tl__floormod(mod, tid, int32_const(mod, L->TC));
    tl_ir_expr *rb = tl__add(mod, tl__mul(mod, rr, int32_const(mod, L->TR)), s->tr);
    cb = tl__add(mod, tl__mul(mod, rc, int32_const(mod, L->TC)), s->tc);
    s->r = tl__add(mod, tl__mul(mod, rb, int32_const(mod, L->mr)), mi);
  }
  s->row_slot = tl__add(mod, tl__mul(mod, rr, int32_const(mod, L->mr)), mi);
  s->first_col = tl_ir_binary(mod, TL_BIN_EQ, s->tc, int32_const(mod, 0));
  if (L->proj) {
    /* one value per row: no column loops */
    s->c = int32_const(mod, 0);
    s->slot = s->row_slot;
    if (L->RR * L->TR * L->mr > L->R) s->row_ok = tl_ir_binary(mod, TL_BIN_LT, s->r, int32_const(mod, L->R));
    if (!s->r || !s->slot || !s->first_col || (L->RR * L->TR * L->mr > L->R && !s->row_ok)) return tl__built(mod, NULL);
    return TL_OK;
  }
  s->c = tl__add(mod, tl__mul(mod, cb, int32_const(mod, L->V)), v);
  s->slot = tl__add(mod, tl__mul(mod, tl__add(mod, tl__mul(mod, tl__add(mod, tl__mul(mod, rr, int32_const(mod, L->RC)), rc),
                                                             int32_const(mod, L->mr)),
                                               mi),
                                  int32_const(mod, L->V)),
                    v);
  if (L->RR * L->TR * L->mr > L->R) s->row_ok = tl_ir_binary(mod, TL_BIN_LT, s->r, int32_const(mod, L->R));
  if (L->RC * L->TC > L->CB) s->col_ok = tl_ir_binary(mod, TL_BIN_LT, cb, int32_const(mod, L->CB));
  if (!s->r || !s->c || !s->slot || !s->row_slot || !s->first_col || (L->RR * L->TR * L->mr > L->R && !s->row_ok) ||
      (L->RC * L->TC > L->CB && !s->col_ok))
    return tl__built(mod, NULL);
  return TL_OK;
}

static tl_ir_stmt *single_var_loop(tl_ir_module *mod, tl_ir_for_kind kind, tl_ir_var *v, int64_t n, tl_ir_stmt *body) {
  tl_ir_expr *e = int32_const(mod, n);
  return tl_ir_for(mod, kind, 1, &v, NULL, &e, body);
}

tl_ir_stmt *tl__gpu_slots_loops(tl_ir_module *mod, const tl__gpu_layout *L, const tl__gpu_slots *s, tl_ir_stmt *inner) {
  /* Unrolled, so that every index into the per-thread buffer is a constant and
   * the buffer lives in registers (a loop over it stays in local memory). */
  tl_ir_for_kind k = L->slots <= TL__GPU_UNROLL_SLOTS ? TL_FOR_UNROLLED : TL_FOR_SERIAL;
  if (L->proj) {
    tl_ir_stmt *b = s->row_ok ? tl_ir_if(mod, s->row_ok, inner, NULL) : inner;
    return single_var_loop(mod, k, s->rr, L->RR, single_var_loop(mod, k, s->mi, L->mr, b));
  }
  tl_ir_stmt *b = single_var_loop(mod, L->V > 1 ? TL_FOR_VECTORIZED : k, s->v, L->V, inner);
  if (s->row_ok) b = tl_ir_if(mod, s->row_ok, b, NULL);
  b = single_var_loop(mod, k, s->mi, L->mr, b);
  if (s->col_ok) b = tl_ir_if(mod, s->col_ok, b, NULL);
  b = single_var_loop(mod, k, s->rc, L->RC, b);
  return single_var_loop(mod, k, s->rr, L->RR, b);
}

tl_ir_expr *tl__gpu_unravel_row(tl_ir_module *mod, const tl__gpu_layout *L, tl_ir_expr *r, uint32_t k) {
  int64_t stride = 1;
  for (uint32_t d = k + 1; d + 1 < L->ndim; d++) stride *= L->shape[d];
  tl_ir_expr *q = tl__floordiv(mod, r, int32_const(mod, stride));
  return k == 0 ? q : tl__floormod(mod, q, int32_const(mod, L->shape[k]));
}

void tl__gpu_slot_indices(tl_ir_module *mod, const tl__gpu_layout *L, const tl__gpu_slots *s, tl_ir_expr **idx) {
  if (!L->proj) {
    for (uint32_t d = 0; d + 1 < L->ndim; d++) idx[d] = tl__gpu_unravel_row(mod, L, s->r, d);
    idx[L->ndim - 1] = s->c;
    return;
  }
  int64_t stride = 1;
  for (uint32_t d = L->ndim; d-- > 0;) {
    tl_ir_expr *q = tl__floordiv(mod, s->r, int32_const(mod, stride));
    idx[d] = d > 0 ? tl__floormod(mod, q, int32_const(mod, L->shape[d])) : q;
    stride *= L->shape[d];
  }
}

/* -------------------------------------------------------------- inference */

typedef struct write_fact {
  const tl_ir_buffer *buf;
  const tl_ir_stmt *store;
  bool identity;
} write_fact;

/* A read of a fragment at the row of the loop's own element (`scores_max[i]`
 * inside `T.Parallel(M, N)`): fine when the fragment is the row projection of the
 * loop's layout, else the fragment is replicated with `why`. */
typedef struct prefix_fact {
  int frag;
  const char *why;
  tl_ir_span span;
} prefix_fact;

/* What the scan found about one outermost T.Parallel loop. */
typedef struct loop_facts {
  const tl_ir_stmt *loop;
  tl__vec ident;  /* int: fragments accessed at the loop's own element */
  tl__vec writes; /* write_fact: stores to fragments, local buffers and local.vars */
  tl__vec reads;  /* int: fragments it reads */
  tl__vec prefix; /* prefix_fact */
  tl__vec own;    /* const tl_ir_buffer *: local buffers and vars allocated in its body (each iteration's own) */
  bool writes_memory;
  bool atomics;                   /* it adds atomically (a replicated run would add T times) */
  const tl_ir_buffer *memory_buf; /* one shared/global buffer it writes, for messages */
  int64_t elem_bytes;             /* widest element of the buffers it accesses */
} loop_facts;

/* A T.gemm: its accumulator's layout depends on whether it runs on the tensor
 * cores, which for a register operand A (RS) depends on A's layout. */
typedef struct gemm_fact {
  const tl_ir_expr *call;
  int a, c;          /* fragment indices of A (-1: shared) and C (-1: not a fragment) */
  bool fits;         /* tl__gpu_gemm_mma_fits */
  int64_t wm, wn;    /* its warp grid when it fits */
} gemm_fact;

/* T.reduce_* along the last dim of a whole fragment into a whole fragment of its
 * leading dims: the destination may be the source's row projection. */
typedef struct reduce_fact {
  int dst, src;
  const char *why;   /* the reason when dst must be replicated after all */
  tl_ir_span span;
} reduce_fact;

typedef struct scan {
  const tl__gpu_params *p;
  tl__gpu_kernel_info *info;
  tl__vec facts;  /* loop_facts */
  tl__vec gemms;  /* gemm_fact */
  tl__vec reduces; /* reduce_fact */
  int cur;        /* index into facts of the enclosing outermost T.Parallel, or -1 */
  tl_status st;
} scan;

tl__gpu_frag *tl__gpu_find_frag(const tl__gpu_kernel_info *info, const tl_ir_buffer *b) {
  for (size_t i = 0; i < info->frags.len; i++)
    if (TL__VEC_AT(&info->frags, tl__gpu_frag, i).buf == b) return &TL__VEC_AT(&info->frags, tl__gpu_frag, i);
  return NULL;
}

const tl__gpu_loop *tl__gpu_find_loop(const tl__gpu_kernel_info *info, const tl_ir_stmt *loop) {
  for (size_t i = 0; i < info->loops.len; i++)
    if (TL__VEC_AT(&info->loops, tl__gpu_loop, i).loop == loop) return &TL__VEC_AT(&info->loops, tl__gpu_loop, i);
  return NULL;
}

static int frag_index(const scan *c, const tl_ir_buffer *b) {
  for (size_t i = 0; i < c->info->frags.len; i++)
    if (TL__VEC_AT(&c->info->frags, tl__gpu_frag, i).buf == b) return (int)i;
  return -1;
}

static tl__gpu_frag *frag_at(const scan *c, int i) { return &TL__VEC_AT(&c->info->frags, tl__gpu_frag, i); }

static loop_facts *cur_facts(scan *c) { return c->cur >= 0 ? &TL__VEC_AT(&c->facts, loop_facts, c->cur) : NULL; }

static void set_reason(scan *c, int fi, const char *why, tl_ir_span span) {
  tl__gpu_frag *f = frag_at(c, fi);
  if (f->why) return;
  f->why = why;
  f->why_span = span;
}

/* "[i, j % 4]": the indices as printed (into buf). */
static const char *index_text(tl_ir_expr *const *idx, uint32_t n, char *buf, size_t cap) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_putc(&sb, '[');
  for (uint32_t i = 0; i < n; i++) {
    char *t = tl_ir_print_expr(idx[i]);
    if (i) tl__sb_append(&sb, ", ");
    tl__sb_append(&sb, t ? t : "?");
    tl_free(t);
  }
  tl__sb_putc(&sb, ']');
  char *s = tl__sb_finish(&sb);
  snprintf(buf, cap, "%s", s ? s : "[...]");
  tl__free(s);
  return buf;
}

/* True if idx[0..n) are the loop's first n variables over a buffer whose first n
 * constant extents equal the loop's (starts 0). */
static bool leading_vars(const tl_ir_stmt *loop, const tl_ir_buffer *b, tl_ir_expr *const *idx, uint32_t n) {
  for (uint32_t d = 0; d < n; d++) {
    int64_t ext, dim;
    if (!idx[d] || idx[d]->kind != TL_EXPR_VAR || idx[d]->u.var != loop->u.loop.vars[d]) return false;
    if (!tl__is_int(loop->u.loop.mins[d], 0) || !tl__is_const_int(loop->u.loop.extents[d], &ext) ||
        !tl__is_const_int(b->shape[d], &dim) || ext != dim)
      return false;
  }
  return true;
}

/* True if idx are the loop's leading variables, one per dim of a buffer with one
 * dim fewer than the loop: the row of the loop's own element. */
static bool is_row_of(const tl_ir_stmt *loop, const tl_ir_buffer *b, tl_ir_expr *const *idx, uint32_t n) {
  return loop && n > 0 && n == b->ndim && n + 1 == loop->u.loop.n && leading_vars(loop, b, idx, n);
}

/* True if idx are exactly the loop's variables, in order, over a buffer whose
 * constant shape equals the loop's constant extents (starts 0). */
static bool is_identity(const tl_ir_stmt *loop, const tl_ir_buffer *b, tl_ir_expr *const *idx, uint32_t n) {
  return loop && n == loop->u.loop.n && n == b->ndim && leading_vars(loop, b, idx, n);
}

static void push_unique_int(scan *c, tl__vec *v, int x) {
  for (size_t i = 0; i < v->len; i++)
    if (TL__VEC_AT(v, int, i) == x) return;
  if (c->st == TL_OK) c->st = tl__vec_push(v, &x);
}

/* A reason with the access's text in it, owned by the kernel info. */
static const char *reason_dup(scan *c, const char *text) {
  static const char *const fallback = "used where every thread needs all of it";
  char *s = tl__strdup(text);
  if (!s) {
    if (c->st == TL_OK) c->st = tl__oom();
    return fallback;
  }
  tl_status st = tl__vec_push(&c->info->texts, &s);
  if (st != TL_OK) {
    tl__free(s);
    if (c->st == TL_OK) c->st = st;
    return fallback;
  }
  return s;
}

static void note_access(scan *c, const tl_ir_buffer *b, tl_ir_expr *const *idx, uint32_t n, bool write,
                        const tl_ir_stmt *store, tl_ir_span span) {
  loop_facts *lf = cur_facts(c);
  if (lf) {
    int64_t eb = (int64_t)tl_dtype_bytes(b->dtype);
    if (eb > lf->elem_bytes) lf->elem_bytes = eb;
  }
  switch (b->scope) {
  case TL_SCOPE_LOCAL_FRAGMENT: {
    int fi = frag_index(c, b);
    if (fi < 0) return; /* allocated outside this kernel: the verifier forbids it */
    bool ident = lf && is_identity(lf->loop, b, idx, n);
    if (ident) push_unique_int(c, &lf->ident, fi);
    char text[256], why[400];
    if (lf && !ident) {
      snprintf(why, sizeof why, "%s at %s inside T.Parallel, not at the loop's own element", write ? "written" : "read",
               index_text(idx, n, text, sizeof text));
      if (!write && is_row_of(lf->loop, b, idx, n)) {
        if (c->st == TL_OK) c->st = tl__vec_push(&lf->prefix, &(prefix_fact){fi, reason_dup(c, why), span});
      } else {
        set_reason(c, fi, reason_dup(c, why), span);
      }
    }
    if (!lf && !write) set_reason(c, fi, "read outside any T.Parallel loop", span);
    if (lf && write && c->st == TL_OK) c->st = tl__vec_push(&lf->writes, &(write_fact){b, store, ident});
    if (lf && !write) push_unique_int(c, &lf->reads, fi);
    return;
  }
  case TL_SCOPE_LOCAL:
  case TL_SCOPE_LOCAL_VAR:
    if (lf)
      for (size_t k = 0; k < lf->own.len; k++)
        if (TL__VEC_AT(&lf->own, const tl_ir_buffer *, k) == b) return; /* an iteration's own temporary */
    if (lf && write && c->st == TL_OK) c->st = tl__vec_push(&lf->writes, &(write_fact){b, store, false});
    return;
  default:
    if (lf && write) {
      lf->writes_memory = true;
      if (!lf->memory_buf) lf->memory_buf = b;
    }
    return;
  }
}

static bool scan_load(tl_ir_visitor *v, const tl_ir_expr *e) {
  scan *c = v->ctx;
  if (e->kind == TL_EXPR_LOAD) note_access(c, e->u.load.buffer, e->u.load.indices, e->u.load.n, false, NULL, e->span);
  return c->st == TL_OK;
}

static void scan_expr(scan *c, const tl_ir_expr *e) {
  if (!e || c->st != TL_OK) return;
  tl_ir_visitor v = {scan_load, NULL, c};
  tl_ir_visit_expr(&v, e);
}

static const tl_ir_buffer *region_buf(const tl_ir_expr *call, uint32_t i) {
  const tl_ir_expr *r = i < call->u.call.nargs ? call->u.call.args[i] : NULL;
  return r && r->kind == TL_EXPR_REGION ? r->u.region.buffer : NULL;
}

static void require_replicated(scan *c, const tl_ir_expr *call, uint32_t arg, const char *what) {
  const tl_ir_buffer *b = region_buf(call, arg);
  if (!b || b->scope != TL_SCOPE_LOCAL_FRAGMENT) return;
  int fi = frag_index(c, b);
  if (fi < 0) return;
  char buf[128];
  snprintf(buf, sizeof buf, "%s %s", what, tl_ir_op_name(call->u.call.op));
  set_reason(c, fi, reason_dup(c, buf), call->span);
}

/* The GPU column of the op table (ir/op_table.h), as layouts see it: what a tile
 * op that reaches the GPU passes requires of the fragments it touches (lf: the
 * facts of the T.Parallel loop around it, NULL outside one). */
typedef void (*layout_fn)(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call, loop_facts *lf);

/* False (the status set) when a block-level tile op is inside T.Parallel. */
static bool outside_parallel(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call, const loop_facts *lf) {
  if (!lf) return true;
  c->st = tl__pass_error(TL_EUNSUPPORTED, call->span.line ? call->span : s->span,
                         "%s inside T.Parallel is not supported on GPU targets: move it out of the loop",
                         tl_ir_op_name(call->u.call.op));
  return false;
}

static void layout_atomic_add_elem(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call, loop_facts *lf) {
  (void)c;
  (void)s;
  if (lf) {
    lf->writes_memory = lf->atomics = true;
    if (!lf->memory_buf) lf->memory_buf = region_buf(call, 0);
  }
}

static void layout_gemm(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call, loop_facts *lf) {
  if (!outside_parallel(c, s, call, lf)) return;
  gemm_fact g = {call, -1, -1, false, 0, 0};
  g.fits = tl__gpu_gemm_mma_fits(call, c->info->T, c->p, NULL, 0, &g.wm, &g.wn);
  const tl_ir_buffer *ab = region_buf(call, 0);
  if (g.fits && ab && ab->scope == TL_SCOPE_LOCAL_FRAGMENT) {
    /* A in registers on the tensor cores (RS): kept distributed, its layout
     * checked against the instruction's operand map once layouts are chosen */
    g.a = frag_index(c, ab);
    if (g.a >= 0) frag_at(c, g.a)->pinned = true;
  } else {
    require_replicated(c, call, 0, "operand A of");
  }
  require_replicated(c, call, 1, "operand B of");
  const tl_ir_buffer *cb = region_buf(call, 2);
  g.c = cb && cb->scope == TL_SCOPE_LOCAL_FRAGMENT ? frag_index(c, cb) : -1;
  if (g.c >= 0) frag_at(c, g.c)->gemm_c = frag_at(c, g.c)->pinned = true;
  if (c->st == TL_OK) c->st = tl__vec_push(&c->gemms, &g);
}

/* Whether reduce `call` along `dim` can leave its result as the row projection
 * of its source's layout (the fast path of reduce.c): a whole fragment of two or
 * more dims reduced along its last into a whole fragment of its leading dims. */
static bool reduce_to_rows(const tl_ir_expr *call, int64_t dim) {
  const tl_ir_expr *src = call->u.call.args[0], *dst = call->u.call.args[1];
  if (src->kind != TL_EXPR_REGION || dst->kind != TL_EXPR_REGION) return false;
  const tl_ir_buffer *sb = src->u.region.buffer, *db = dst->u.region.buffer;
  if (!sb || !db || sb->scope != TL_SCOPE_LOCAL_FRAGMENT || db->scope != TL_SCOPE_LOCAL_FRAGMENT) return false;
  if (sb->ndim < 2 || db->ndim + 1 != sb->ndim || dim != (int64_t)sb->ndim - 1) return false;
  if (!tl__gpu_region_is_whole(src) || !tl__gpu_region_is_whole(dst)) return false;
  for (uint32_t d = 0; d < db->ndim; d++) {
    int64_t a, b;
    if (!tl__is_const_int(sb->shape[d], &a) || !tl__is_const_int(db->shape[d], &b) || a != b) return false;
  }
  return true;
}

static void layout_reduce(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call, loop_facts *lf) {
  if (!outside_parallel(c, s, call, lf)) return;
  const tl_ir_buffer *src = region_buf(call, 0);
  int fi = src && src->scope == TL_SCOPE_LOCAL_FRAGMENT ? frag_index(c, src) : -1;
  if (fi >= 0) frag_at(c, fi)->pinned = true;
  int64_t dim = -1;
  int di = -1;
  if (fi >= 0 && tl__is_const_int(call->u.call.args[2], &dim) && reduce_to_rows(call, dim))
    di = frag_index(c, region_buf(call, 1));
  if (di < 0) {
    require_replicated(c, call, 1, "the destination of");
    return;
  }
  char buf[128];
  snprintf(buf, sizeof buf, "the destination of %s", tl_ir_op_name(call->u.call.op));
  reduce_fact r = {di, fi, reason_dup(c, buf), call->span};
  if (c->st == TL_OK) c->st = tl__vec_push(&c->reduces, &r);
}

static void layout_cumsum(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call, loop_facts *lf) {
  if (!outside_parallel(c, s, call, lf)) return;
  require_replicated(c, call, 0, "an operand of");
  require_replicated(c, call, 1, "an operand of");
}

/* cp.async commit and wait touch no buffer: no constraint. */
static void layout_async(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call, loop_facts *lf) {
  (void)c;
  (void)s;
  (void)call;
  (void)lf;
}

#define layout_none NULL
#define LAYOUT_ROW(op, name, front, sig, args, defaults, written, written_read, fold, verify, interp, check, serial, \
                   elementwise, gpu)                                                                                \
  [TL_OP_##op] = layout_##gpu,
static const layout_fn k_layout[TL_OP__COUNT] = {TL__TILE_OPS(LAYOUT_ROW)};
#undef LAYOUT_ROW
#undef layout_none

static void scan_tile_op(scan *c, const tl_ir_stmt *s, const tl_ir_expr *call) {
  tl_ir_op op = call->u.call.op;
  loop_facts *lf = cur_facts(c);
  for (uint32_t i = 0; i < call->u.call.nargs; i++) {
    const tl_ir_expr *a = call->u.call.args[i];
    if (a->kind == TL_EXPR_REGION) {
      for (uint32_t d = 0; d < a->u.region.ndim; d++) {
        scan_expr(c, a->u.region.mins[d]);
        scan_expr(c, a->u.region.extents[d]);
      }
    } else {
      scan_expr(c, a);
    }
  }
  layout_fn rule = (unsigned)op < TL_OP__COUNT ? k_layout[op] : NULL;
  if (!rule) {
    c->st = tl__pass_error(TL_EINVAL, call->span.line ? call->span : s->span,
                           "%s remains: run lower_elementwise_tile_ops before the GPU passes", tl_ir_op_name(op));
    return;
  }
  rule(c, s, call, lf);
}

static void scan_stmt(scan *c, const tl_ir_stmt *s) {
  if (!s || c->st != TL_OK) return;
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) scan_stmt(c, s->u.seq.stmts[i]);
    return;
  case TL_STMT_FOR: {
    for (uint32_t i = 0; i < s->u.loop.n; i++) {
      scan_expr(c, s->u.loop.mins[i]);
      scan_expr(c, s->u.loop.extents[i]);
    }
    if (s->u.loop.kind == TL_FOR_THREAD) {
      c->st = tl__pass_error(TL_EUNSUPPORTED, s->span, "a thread loop in a tile-level kernel: the GPU passes bind threads themselves");
      return;
    }
    if (s->u.loop.kind == TL_FOR_PARALLEL && c->cur < 0) {
      loop_facts lf = {s, TL__VEC_INIT(int), TL__VEC_INIT(write_fact), TL__VEC_INIT(int), TL__VEC_INIT(prefix_fact),
                       TL__VEC_INIT(const tl_ir_buffer *), false, false, NULL, 0};
      c->st = tl__vec_push(&c->facts, &lf);
      if (c->st != TL_OK) return;
      c->cur = (int)c->facts.len - 1;
      scan_stmt(c, s->u.loop.body);
      c->cur = -1;
      return;
    }
    scan_stmt(c, s->u.loop.body);
    return;
  }
  case TL_STMT_IF:
    scan_expr(c, s->u.if_.cond);
    scan_stmt(c, s->u.if_.then_);
    scan_stmt(c, s->u.if_.else_);
    return;
  case TL_STMT_STORE:
    for (uint32_t i = 0; i < s->u.store.n; i++) scan_expr(c, s->u.store.indices[i]);
    scan_expr(c, s->u.store.value);
    note_access(c, s->u.store.buffer, s->u.store.indices, s->u.store.n, true, s, s->span);
    return;
  case TL_STMT_LET:
    scan_expr(c, s->u.let.value);
    scan_stmt(c, s->u.let.body);
    return;
  case TL_STMT_ALLOC: {
    const tl_ir_buffer *b = s->u.alloc.buffer;
    loop_facts *alf = cur_facts(c);
    if (alf && (b->scope == TL_SCOPE_LOCAL || b->scope == TL_SCOPE_LOCAL_VAR)) {
      c->st = tl__vec_push(&alf->own, &b);
      return;
    }
    if (b->scope != TL_SCOPE_LOCAL_FRAGMENT || frag_index(c, b) >= 0) return;
    int64_t shape[TL__GPU_MAX_RANK];
    if (b->ndim == 0 || b->ndim > TL__GPU_MAX_RANK) {
      c->st = tl__pass_error(TL_EUNSUPPORTED, b->span.line ? b->span : s->span,
                             "fragment '%s' has %u dimensions; GPU targets need 1 to %d", b->name, b->ndim,
                             TL__GPU_MAX_RANK);
      return;
    }
    for (uint32_t d = 0; d < b->ndim; d++)
      if (!tl__is_const_int(b->shape[d], &shape[d]) || shape[d] < 1) {
        c->st = tl__pass_error(TL_EUNSUPPORTED, b->span.line ? b->span : s->span,
                               "fragment '%s' needs a constant shape on GPU targets (its registers are allocated per thread)",
                               b->name);
        return;
      }
    tl__gpu_frag f;
    memset(&f, 0, sizeof f);
    f.buf = b;
    f.group = (int)c->info->frags.len;
    f.rows_of = -1;
    layout_replicated(&f.layout, c->info->T, shape, b->ndim);
    c->st = tl__vec_push(&c->info->frags, &f);
    return;
  }
  case TL_STMT_EVAL:
    if (s->u.eval.expr && s->u.eval.expr->kind == TL_EXPR_CALL && tl_ir_op_is_tile(s->u.eval.expr->u.call.op))
      scan_tile_op(c, s, s->u.eval.expr);
    else
      scan_expr(c, s->u.eval.expr);
    return;
  default:
    return;
  }
}

/* ------------------------------------------------------------ resolution */

static int find_root(tl__gpu_kernel_info *info, int i) {
  while (TL__VEC_AT(&info->frags, tl__gpu_frag, i).group != i) i = TL__VEC_AT(&info->frags, tl__gpu_frag, i).group;
  return i;
}

static void unite(tl__gpu_kernel_info *info, int a, int b) {
  a = find_root(info, a);
  b = find_root(info, b);
  if (a != b) TL__VEC_AT(&info->frags, tl__gpu_frag, b > a ? b : a).group = b > a ? a : b;
}

static tl_status write_error(const tl__gpu_kernel_info *info, const loop_facts *lf, const write_fact *w,
                             const char *dist_by) {
  const tl_ir_stmt *st = w->store;
  char text[256];
  const char *idx = st && st->kind == TL_STMT_STORE ? index_text(st->u.store.indices, st->u.store.n, text, sizeof text) : "";
  tl_ir_span at = st ? st->span : lf->loop->span;
  const tl_ir_buffer *b = w->buf;
  const tl__gpu_frag *wf = b->scope == TL_SCOPE_LOCAL_FRAGMENT ? tl__gpu_find_frag(info, b) : NULL;
  if (wf && !w->identity && wf->why_span.line == at.line && wf->why_span.col == at.col && wf->why_span.file == at.file) {
    /* This very write, off the loop's own element, made the fragment replicated. */
    const tl_ir_stmt *l = lf->loop;
    char own[256];
    tl__sb sb = TL__SB_INIT;
    tl__sb_putc(&sb, '[');
    for (uint32_t d = 0; d < l->u.loop.n; d++) tl__sb_appendf(&sb, "%s%s", d ? ", " : "", l->u.loop.vars[d]->name);
    tl__sb_putc(&sb, ']');
    char *o = tl__sb_finish(&sb);
    snprintf(own, sizeof own, "%s", o ? o : "[...]");
    tl__free(o);
    return tl__pass_error(TL_EINVAL, at,
                          "fragment '%s' is written at %s inside T.Parallel, not at the loop's own element %s, while "
                          "the loop's iterations are distributed over the block's threads (%s): an iteration may only "
                          "write the element it owns. Write '%s' at %s, or in a loop of its own",
                          b->name, idx, own, dist_by, b->name, own);
  }
  if (b->scope == TL_SCOPE_LOCAL_FRAGMENT) {
    const tl__gpu_frag *f = wf;
    char where[300] = "";
    if (f && f->why_span.line)
      snprintf(where, sizeof where, " at %s:%u:%u", f->why_span.file ? f->why_span.file : "<input>", f->why_span.line,
               f->why_span.col);
    return tl__pass_error(TL_EINVAL, at,
                          "fragment '%s' is written at %s inside T.Parallel, whose iterations are distributed over the "
                          "block's threads (%s); but '%s' is replicated in every thread, because it is %s%s, so each "
                          "thread would update only part of it. Write it in a loop of its own, or keep to the loop's "
                          "own element",
                          b->name, idx, dist_by, b->name, f && f->why ? f->why : "used where all of it is needed", where);
  }
  if (b->scope == TL_SCOPE_LOCAL_VAR)
    return tl__pass_error(TL_EINVAL, at,
                          "local.var '%s' is assigned inside T.Parallel, whose iterations are distributed over the "
                          "block's threads (%s); each thread would see only its own iterations. Use a fragment and a "
                          "reduction instead",
                          b->name, dist_by);
  return tl__pass_error(TL_EINVAL, at,
                        "local buffer '%s' is written at %s inside T.Parallel, whose iterations are distributed over "
                        "the block's threads (%s); every thread has its own copy, so each would hold only part of it",
                        b->name, idx, dist_by);
}

/* A loop that writes a replicated fragment at its own element, and no shared or
 * global memory, runs every iteration in every thread (each thread updates its
 * own copy); the fragments it touches at their own element must then be whole in
 * every thread too, so they are replicated with it, and so on until nothing
 * changes. A loop touching a pinned fragment (a gemm accumulator, a reduction's
 * source) at its own element is left distributed instead: it gathers what it
 * writes into replicated fragments (tl__gpu_loop.gathers). This is FlashAttention's online softmax: `scores_max[i] =
 * T.max(scores_max[i], scores_max_prev[i])` after T.reduce_max made scores_max
 * replicated replicates scores_max_prev, and the loops over the row statistics
 * run in every thread. */
static void spread_replication(scan *c) {
  for (bool changed = true; changed && c->st == TL_OK;) {
    changed = false;
    for (size_t li = 0; li < c->facts.len; li++) {
      loop_facts *lf = &TL__VEC_AT(&c->facts, loop_facts, li);
      if (lf->writes_memory) continue;
      const write_fact *rep = NULL;
      for (size_t k = 0; k < lf->writes.len && !rep; k++) {
        const write_fact *w = &TL__VEC_AT(&lf->writes, write_fact, k);
        if (w->buf->scope == TL_SCOPE_LOCAL_FRAGMENT && w->identity && tl__gpu_find_frag(c->info, w->buf)->why) rep = w;
      }
      if (!rep) continue;
      bool pinned = false;
      for (size_t k = 0; k < lf->ident.len; k++) {
        const tl__gpu_frag *f = frag_at(c, TL__VEC_AT(&lf->ident, int, k));
        pinned |= !f->why && f->pinned;
      }
      if (pinned) continue; /* the loop keeps its layout and gathers (resolve) */
      for (size_t k = 0; k < lf->ident.len; k++) {
        int fi = TL__VEC_AT(&lf->ident, int, k);
        if (frag_at(c, fi)->why) continue;
        char why[300];
        snprintf(why, sizeof why, "used at its own element in a T.Parallel loop that writes replicated fragment '%s'",
                 rep->buf->name);
        set_reason(c, fi, reason_dup(c, why), rep->store ? rep->store->span : lf->loop->span);
        changed = true;
      }
    }
  }
}

/* True (w's fragment added to rec's gathers) when the distributed loop may write
 * replicated fragment w->buf through shared memory: at its own element, a
 * fragment the loop does not read, distributed by a fragment's layout. */
static bool gatherable(scan *c, const loop_facts *lf, tl__gpu_loop *rec, const write_fact *w) {
  if (rec->frag < 0 || !w->identity || w->buf->scope != TL_SCOPE_LOCAL_FRAGMENT) return false;
  int fi = frag_index(c, w->buf);
  if (fi < 0) return false;
  for (size_t k = 0; k < lf->reads.len; k++)
    if (TL__VEC_AT(&lf->reads, int, k) == fi) return false;
  for (uint32_t k = 0; k < rec->ngathers; k++)
    if (rec->gathers[k] == fi) return true;
  if (rec->ngathers == TL__GPU_MAX_GATHERS) return false;
  rec->gathers[rec->ngathers++] = fi;
  return true;
}

/* True if the loop writes a replicated fragment and nothing else per thread but
 * replicated fragments, local buffers and local.vars. */
static bool writes_replicated(scan *c, const loop_facts *lf) {
  bool any = false;
  for (size_t k = 0; k < lf->writes.len; k++) {
    const write_fact *w = &TL__VEC_AT(&lf->writes, write_fact, k);
    if (w->buf->scope != TL_SCOPE_LOCAL_FRAGMENT) continue;
    const tl__gpu_frag *f = tl__gpu_find_frag(c->info, w->buf);
    if (!f || !f->why) return false;
    any = true;
  }
  return any;
}

/* The state every resolution attempt starts from: each fragment its own group,
 * replicated layout of its shape, the accumulators' tensor-core fit recomputed
 * from the gemms (an RS gemm whose A became replicated runs as SIMT code). */
static void reset(scan *c) {
  tl__gpu_kernel_info *info = c->info;
  for (size_t i = 0; i < info->frags.len; i++) {
    tl__gpu_frag *f = frag_at(c, (int)i);
    int64_t shape[TL__GPU_MAX_RANK];
    uint32_t nd = f->layout.ndim;
    for (uint32_t d = 0; d < nd; d++) shape[d] = f->layout.shape[d];
    layout_replicated(&f->layout, info->T, shape, nd);
    f->group = (int)i;
    f->mma_fit = f->mma_unfit = false;
    f->mma_wm = f->mma_wn = 0;
    f->rows_of = -1;
  }
  for (size_t k = 0; k < c->gemms.len; k++) {
    const gemm_fact *g = &TL__VEC_AT(&c->gemms, gemm_fact, k);
    if (g->c < 0) continue;
    tl__gpu_frag *f = frag_at(c, g->c);
    bool fit = g->fits && (g->a < 0 || !frag_at(c, g->a)->why);
    if (!fit) {
      f->mma_unfit = true;
    } else if (f->mma_fit && (f->mma_wm != g->wm || f->mma_wn != g->wn)) {
      f->mma_unfit = true; /* one accumulator, two warp grids: SIMT for both */
    } else {
      f->mma_fit = true;
      f->mma_wm = g->wm;
      f->mma_wn = g->wn;
    }
  }
  info->loops.len = 0;
}

/* The layout of the group rooted at fragment i from its members' uses. */
static void choose_group(scan *c, int i) {
  tl__gpu_kernel_info *info = c->info;
  tl__gpu_frag *f = frag_at(c, i);
  bool gemm = false, mma = false, unfit = false;
  int64_t eb = 1, wm = 0, wn = 0;
  for (size_t j = 0; j < info->frags.len; j++) {
    tl__gpu_frag *g = frag_at(c, (int)j);
    if (g->why || find_root(info, (int)j) != i) continue;
    gemm |= g->gemm_c;
    unfit |= g->mma_unfit || (g->mma_fit && mma && (g->mma_wm != wm || g->mma_wn != wn));
    if (g->mma_fit && !mma) {
      wm = g->mma_wm;
      wn = g->mma_wn;
    }
    mma |= g->mma_fit;
    /* the mma layout is made for the accumulator's shape: the whole group must have it */
    bool same = g->buf->ndim == f->buf->ndim;
    for (uint32_t d = 0; same && d < f->buf->ndim; d++) same = g->layout.shape[d] == f->layout.shape[d];
    unfit |= !same;
    if ((int64_t)tl_dtype_bytes(g->buf->dtype) > eb) eb = (int64_t)tl_dtype_bytes(g->buf->dtype);
  }
  int64_t shape[TL__GPU_MAX_RANK];
  for (uint32_t d = 0; d < f->layout.ndim; d++) shape[d] = f->layout.shape[d];
  /* The tensor cores' accumulator layout when every gemm into the group fits
   * them; SIMT micro-tiles otherwise (those gemms then all run as SIMT code). */
  if (mma && !unfit) tl__gpu_layout_choose_mma(&f->layout, info->T, shape, f->layout.ndim, eb, c->p->vector_bytes, wm, wn);
  else tl__gpu_layout_choose(&f->layout, info->T, shape, f->layout.ndim, eb, c->p->vector_bytes, gemm);
}

/* The first reduction into the group rooted at i whose destination is still
 * distributed, or NULL: the group is then its source's row projection. */
static const reduce_fact *group_reduce(scan *c, int i) {
  for (size_t k = 0; k < c->reduces.len; k++) {
    const reduce_fact *r = &TL__VEC_AT(&c->reduces, reduce_fact, k);
    if (!frag_at(c, r->dst)->why && find_root(c->info, r->dst) == i) return r;
  }
  return NULL;
}

/* The first loop that reads a member of the group rooted at i at the row of its
 * own element, or NULL. */
static const loop_facts *prefix_reader(scan *c, int i) {
  for (size_t li = 0; li < c->facts.len; li++) {
    const loop_facts *lf = &TL__VEC_AT(&c->facts, loop_facts, li);
    for (size_t k = 0; k < lf->prefix.len; k++) {
      int fi = TL__VEC_AT(&lf->prefix, prefix_fact, k).frag;
      if (!frag_at(c, fi)->why && find_root(c->info, fi) == i) return lf;
    }
  }
  return NULL;
}

/* A group with no reduction into it but read at rows (a per-row scale loaded from
 * memory, `acc[i, j] *= s[i]`) takes the row projection of the layout of the first
 * loop reading it, when that loop follows a group chosen directly (not itself a
 * projection); otherwise it keeps its own layout and the row check decides. */
static void project_readers_group(scan *c, int i) {
  const loop_facts *lf = prefix_reader(c, i);
  if (!lf) return;
  for (size_t k = 0; k < lf->ident.len; k++) {
    int fi = TL__VEC_AT(&lf->ident, int, k);
    if (frag_at(c, fi)->why) continue;
    int root = find_root(c->info, fi);
    const tl__gpu_layout *P = &frag_at(c, root)->layout;
    if (group_reduce(c, root) || prefix_reader(c, root) || P->replicated || P->proj) return;
    tl__gpu_frag *f = frag_at(c, i);
    if (P->ndim != f->layout.ndim + 1) return;
    tl__gpu_layout proj;
    tl__gpu_layout_project(P, f->layout.shape, f->layout.ndim, &proj);
    f->layout = proj;
    return;
  }
}

/* Gives the group rooted at i the row projection of its reductions' sources;
 * false (a destination made replicated, to try again) when one is replicated
 * or two disagree. */
static bool project_group(scan *c, int i) {
  tl__gpu_frag *f = frag_at(c, i);
  bool have = false;
  tl__gpu_layout proj;
  for (size_t k = 0; k < c->reduces.len; k++) {
    const reduce_fact *r = &TL__VEC_AT(&c->reduces, reduce_fact, k);
    if (frag_at(c, r->dst)->why || find_root(c->info, r->dst) != i) continue;
    const tl__gpu_frag *src = frag_at(c, r->src);
    const tl__gpu_layout *P = &frag_at(c, find_root(c->info, r->src))->layout;
    tl__gpu_layout mine;
    bool ok = !src->why && !P->replicated && !P->proj;
    if (ok) tl__gpu_layout_project(P, f->layout.shape, f->layout.ndim, &mine);
    ok = ok && (!have || tl__gpu_layout_rows_equal(&proj, &mine));
    if (!ok) {
      set_reason(c, r->dst, r->why, r->span);
      return false;
    }
    if (!have) {
      proj = mine;
      f->rows_of = r->src;
    }
    have = true;
  }
  if (have) f->layout = proj;
  return true;
}

/* Whether RS gemm g can run on the tensor cores with its A distributed: its C has
 * the mma layout and A a distributed 2-D layout (used from its registers where
 * that is the operand map, tl__gpu_rs_operand_direct, else staged through shared
 * memory by gemm_mma.c). */
static bool rs_operand_fits(scan *c, const gemm_fact *g) {
  const tl__gpu_layout *A = &frag_at(c, find_root(c->info, g->a))->layout;
  const tl__gpu_layout *C = &frag_at(c, find_root(c->info, g->c))->layout;
  return C->mma && !C->proj && !A->replicated && !A->proj;
}

/* Checks the choices that depend on other fragments' layouts; false (one more
 * fragment made replicated, with its reason) to try again. */
static bool validate(scan *c) {
  tl__gpu_kernel_info *info = c->info;
  for (size_t k = 0; k < c->gemms.len; k++) {
    const gemm_fact *g = &TL__VEC_AT(&c->gemms, gemm_fact, k);
    if (g->a < 0 || frag_at(c, g->a)->why || !g->fits) continue;
    if (!rs_operand_fits(c, g)) {
      set_reason(c, g->a, "operand A of T.gemm, whose accumulator is not on the tensor cores", g->call->span);
      return false;
    }
  }
  for (size_t li = 0; li < c->facts.len; li++) {
    loop_facts *lf = &TL__VEC_AT(&c->facts, loop_facts, li);
    const tl__gpu_loop *rec = &TL__VEC_AT(&info->loops, tl__gpu_loop, li);
    for (size_t k = 0; k < lf->prefix.len; k++) {
      const prefix_fact *pf = &TL__VEC_AT(&lf->prefix, prefix_fact, k);
      tl__gpu_frag *f = frag_at(c, pf->frag);
      if (f->why) continue;
      bool ok = rec->mode == TL__GPU_LOOP_LAYOUT && rec->frag >= 0 && !rec->layout.proj && f->layout.proj &&
                tl__gpu_layout_rows_equal(&rec->layout, &f->layout);
      if (!ok) {
        set_reason(c, pf->frag, pf->why, pf->span);
        return false;
      }
    }
  }
  return true;
}

/* One attempt; *again when a fragment was made replicated and layouts must be
 * chosen anew. */
static tl_status resolve_once(scan *c, bool *again) {
  tl__gpu_kernel_info *info = c->info;
  const tl__gpu_params *p = c->p;
  *again = false;
  reset(c);
  spread_replication(c);
  TL__TRY(c->st);
  /* Groups of distributed fragments touched at one loop's own element. */
  for (size_t li = 0; li < c->facts.len; li++) {
    loop_facts *lf = &TL__VEC_AT(&c->facts, loop_facts, li);
    int first = -1;
    for (size_t k = 0; k < lf->ident.len; k++) {
      int fi = TL__VEC_AT(&lf->ident, int, k);
      if (frag_at(c, fi)->why) continue;
      if (first < 0) first = fi;
      else unite(info, first, fi);
    }
  }
  /* Layouts per group: the row projections after the layouts they project. */
  for (size_t i = 0; i < info->frags.len; i++)
    if (!frag_at(c, (int)i)->why && find_root(info, (int)i) == (int)i && !group_reduce(c, (int)i)) choose_group(c, (int)i);
  for (size_t i = 0; i < info->frags.len; i++)
    if (!frag_at(c, (int)i)->why && find_root(info, (int)i) == (int)i && group_reduce(c, (int)i) && !project_group(c, (int)i)) {
      *again = true;
      return TL_OK;
    }
  for (size_t i = 0; i < info->frags.len; i++)
    if (!frag_at(c, (int)i)->why && find_root(info, (int)i) == (int)i && !group_reduce(c, (int)i))
      project_readers_group(c, (int)i);
  for (size_t i = 0; i < info->frags.len; i++) {
    tl__gpu_frag *f = frag_at(c, (int)i);
    int r = find_root(info, (int)i);
    f->group = r;
    if (!f->why && r != (int)i) f->layout = frag_at(c, r)->layout;
  }
  /* Loops. */
  for (size_t li = 0; li < c->facts.len; li++) {
    loop_facts *lf = &TL__VEC_AT(&c->facts, loop_facts, li);
    tl__gpu_loop rec = {lf->loop, TL__GPU_LOOP_REPLICATED, {0}, -1, false, {0}, 0};
    rec.writes_memory = lf->writes_memory;
    for (size_t k = 0; k < lf->ident.len && rec.frag < 0; k++) {
      int fi = TL__VEC_AT(&lf->ident, int, k);
      if (!frag_at(c, fi)->why) rec.frag = fi;
    }
    char dist_by[300];
    if (rec.frag >= 0) {
      rec.mode = TL__GPU_LOOP_LAYOUT;
      rec.layout = frag_at(c, rec.frag)->layout;
      snprintf(dist_by, sizeof dist_by, "as fragment '%s'", frag_at(c, rec.frag)->buf->name);
    } else if (lf->writes_memory) {
      snprintf(dist_by, sizeof dist_by, "it writes %s buffer '%s'",
               lf->memory_buf ? tl_ir_scope_name(lf->memory_buf->scope) : "shared or global",
               lf->memory_buf ? lf->memory_buf->name : "?");
      const tl_ir_stmt *l = lf->loop;
      int64_t shape[TL__GPU_MAX_RANK];
      bool constant = l->u.loop.n <= TL__GPU_MAX_RANK;
      for (uint32_t d = 0; constant && d < l->u.loop.n; d++)
        constant = tl__is_const_int(l->u.loop.extents[d], &shape[d]) && shape[d] >= 1;
      if (constant) {
        rec.mode = TL__GPU_LOOP_LAYOUT;
        tl__gpu_layout_choose(&rec.layout, info->T, shape, l->u.loop.n, lf->elem_bytes ? lf->elem_bytes : 4,
                              p->vector_bytes, false);
      } else {
        rec.mode = TL__GPU_LOOP_LINEAR;
      }
    }
    if (rec.mode != TL__GPU_LOOP_REPLICATED && rec.frag < 0 && !lf->atomics && writes_replicated(c, lf)) {
      /* A loop over memory that also updates replicated fragments (a log-sum-exp
       * written out while logsum is rewritten in place): every thread runs every
       * iteration for its own copies, and thread 0 alone writes the memory. */
      rec.mode = TL__GPU_LOOP_REPLICATED;
    }
    if (rec.mode != TL__GPU_LOOP_REPLICATED)
      for (size_t k = 0; k < lf->writes.len; k++) {
        const write_fact *w = &TL__VEC_AT(&lf->writes, write_fact, k);
        bool ok = w->buf->scope == TL_SCOPE_LOCAL_FRAGMENT && w->identity && !tl__gpu_find_frag(info, w->buf)->why;
        if (!ok && gatherable(c, lf, &rec, w)) continue;
        if (!ok && rec.layout.proj && rec.frag >= 0) {
          /* A loop over row statistics that writes a local buffer or variable runs
           * in every thread as before projections existed: its fragments replicated. */
          char why[300];
          snprintf(why, sizeof why, "used at its own element in a T.Parallel loop that writes %s '%s'",
                   w->buf->scope == TL_SCOPE_LOCAL_FRAGMENT ? "replicated fragment" : "per-thread buffer", w->buf->name);
          set_reason(c, rec.frag, reason_dup(c, why), w->store ? w->store->span : lf->loop->span);
          *again = true;
          return c->st;
        }
        if (!ok) return write_error(info, lf, w, dist_by);
      }
    TL__TRY(tl__vec_push(&info->loops, &rec));
  }
  *again = !validate(c);
  return c->st;
}

static tl_status resolve(scan *c) {
  /* Each retry replicates one more fragment, so this ends. */
  for (size_t attempt = 0; attempt <= c->info->frags.len + 1; attempt++) {
    bool again = false;
    TL__TRY(resolve_once(c, &again));
    if (!again) return TL_OK;
  }
  return tl__error(TL_EINTERNAL, "GPU layout inference did not settle");
}

static tl_status thread_count(const tl_ir_stmt *k, const tl__gpu_params *p, int64_t *T) {
  *T = 1;
  for (uint32_t i = 0; i < k->u.kernel.threads_ndim; i++) {
    int64_t n;
    const tl_ir_expr *e = k->u.kernel.threads[i];
    if (!e) continue;
    if (!tl__is_const_int(e, &n) || n < 1)
      return tl__pass_error(TL_EUNSUPPORTED, e->span.line ? e->span : k->span,
                            "T.Kernel threads must be positive integer constants on GPU targets");
    *T *= n;
  }
  if (*T > p->max_threads)
    return tl__pass_error(TL_EINVAL, k->span, "T.Kernel asks for %lld threads per block; the target allows at most %lld",
                          (long long)*T, (long long)p->max_threads);
  return TL_OK;
}

tl_status tl__gpu_infer_layouts(const tl_ir_stmt *k, const tl__gpu_params *p, tl__gpu_kernel_info *out) {
  memset(out, 0, sizeof *out);
  tl__vec_init(&out->frags, sizeof(tl__gpu_frag));
  tl__vec_init(&out->loops, sizeof(tl__gpu_loop));
  tl__vec_init(&out->texts, sizeof(char *));
  TL__TRY(tl__gpu_check_ranks(k));
  TL__TRY(thread_count(k, p, &out->T));
  scan c = {p, out, TL__VEC_INIT(loop_facts), TL__VEC_INIT(gemm_fact), TL__VEC_INIT(reduce_fact), -1, TL_OK};
  scan_stmt(&c, k->u.kernel.body);
  tl_status st = c.st;
  if (st == TL_OK) st = resolve(&c);
  for (size_t i = 0; i < c.facts.len; i++) {
    tl__vec_free(&TL__VEC_AT(&c.facts, loop_facts, i).ident);
    tl__vec_free(&TL__VEC_AT(&c.facts, loop_facts, i).writes);
    tl__vec_free(&TL__VEC_AT(&c.facts, loop_facts, i).reads);
    tl__vec_free(&TL__VEC_AT(&c.facts, loop_facts, i).prefix);
    tl__vec_free(&TL__VEC_AT(&c.facts, loop_facts, i).own);
  }
  tl__vec_free(&c.facts);
  tl__vec_free(&c.gemms);
  tl__vec_free(&c.reduces);
  return st;
}

void tl__gpu_kernel_info_free(tl__gpu_kernel_info *info) {
  for (size_t i = 0; i < info->texts.len; i++) tl__free(TL__VEC_AT(&info->texts, char *, i));
  tl__vec_free(&info->texts);
  tl__vec_free(&info->frags);
  tl__vec_free(&info->loops);
}

/* ------------------------------------------------------------- printing */

static void put_layout(tl__sb *sb, const tl__gpu_layout *L) {
  tl__frag F;
  if (tl__gpu_layout_frag(L, &F) != TL_OK) {
    tl__sb_appendf(sb, "  (no layout: %s)\n", tl_last_error());
    return;
  }
  char *t = tl__frag_print(&F);
  if (!t) {
    tl__sb_append(sb, "  (out of memory)\n");
    return;
  }
  for (const char *line = t; *line;) {
    const char *nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line) : strlen(line);
    tl__sb_appendf(sb, "  %.*s\n", (int)n, line);
    line += n + (nl ? 1 : 0);
  }
  tl__free(t);
}

char *tl__gpu_layouts_text(const tl__gpu_kernel_info *info) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "kernel: %lld threads\n", (long long)info->T);
  for (size_t i = 0; i < info->frags.len; i++) {
    const tl__gpu_frag *f = &TL__VEC_AT(&info->frags, tl__gpu_frag, i);
    if (f->why)
      tl__sb_appendf(&sb, "fragment %s: replicated, %s (line %u)\n", f->buf->name, f->why, f->why_span.line);
    else if (f->layout.proj && TL__VEC_AT(&info->frags, tl__gpu_frag, f->group).rows_of >= 0)
      tl__sb_appendf(&sb, "fragment %s: distributed, the rows of '%s', with '%s'\n", f->buf->name,
                     TL__VEC_AT(&info->frags, tl__gpu_frag,
                                TL__VEC_AT(&info->frags, tl__gpu_frag, f->group).rows_of).buf->name,
                     TL__VEC_AT(&info->frags, tl__gpu_frag, f->group).buf->name);
    else
      tl__sb_appendf(&sb, "fragment %s: distributed%s, with '%s'\n", f->buf->name, f->gemm_c ? " (gemm accumulator)" : "",
                     TL__VEC_AT(&info->frags, tl__gpu_frag, f->group).buf->name);
    put_layout(&sb, &f->layout);
  }
  for (size_t i = 0; i < info->loops.len; i++) {
    const tl__gpu_loop *l = &TL__VEC_AT(&info->loops, tl__gpu_loop, i);
    tl__sb_appendf(&sb, "T.Parallel at line %u: ", l->loop->span.line);
    if (l->mode == TL__GPU_LOOP_REPLICATED)
      tl__sb_append(&sb, l->writes_memory ? "every iteration in every thread, memory written by thread 0"
                                          : "every iteration in every thread");
    else if (l->mode == TL__GPU_LOOP_LINEAR) tl__sb_append(&sb, "iteration e in thread e % T");
    else if (l->frag >= 0)
      tl__sb_appendf(&sb, "as fragment '%s'", TL__VEC_AT(&info->frags, tl__gpu_frag, l->frag).buf->name);
    else tl__sb_append(&sb, "a layout of its own");
    for (uint32_t k = 0; k < l->ngathers; k++)
      tl__sb_appendf(&sb, "%s'%s'", k ? ", " : "; gathers into ",
                     TL__VEC_AT(&info->frags, tl__gpu_frag, l->gathers[k]).buf->name);
    tl__sb_putc(&sb, '\n');
    if (l->mode == TL__GPU_LOOP_LAYOUT && l->frag < 0) put_layout(&sb, &l->layout);
  }
  return tl__sb_finish(&sb);
}
