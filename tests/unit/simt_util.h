/* Helpers for the SIMT interpreter tests: GPU-lowered device kernels built by hand
 * (free blockIdx/threadIdx variables, one-dimensional buffers) and host entries
 * that launch them, in the form docs/lowering.md gives. Uses a module `m`. */
#ifndef TL_SIMT_UTIL_H
#define TL_SIMT_UTIL_H

#include "interp_util.h"

#define GLOBAL TL_SCOPE_GLOBAL
#define SHARED TL_SCOPE_SHARED
#define LOCAL TL_SCOPE_LOCAL
#define IF(c, t) tl_ir_if(m, (c), (t), NULL)
#define EQ(a, b) BIN(EQ, a, b)
#define AND(a, b) BIN(AND, a, b)
#define BARRIER() tl_ir_barrier(m)
#define SHFL(dt, v, mask, width) CALL(TL_OP_WARP_SHFL_XOR, (dt), (v), (mask), (width))
#define LET(v, value, body) tl_ir_let(m, (v), (value), (body))
#define ALLOC(b) tl_ir_alloc(m, (b))

static inline tl_ir_var *tagged(tl_ir_module *m, const char *name, const char *tag) {
  tl_ir_var *v = tl_ir_var_new(m, name, TL_DT_INT32);
  if (v) v->thread_tag = tag;
  return v;
}

/* The one element idx of a one-dimensional buffer, as T.atomic_add_elem's destination. */
static inline tl_ir_expr *elem(tl_ir_module *m, tl_ir_buffer *b, tl_ir_expr *idx) {
  return tl_ir_region(m, b, EXPRS(idx), EXPRS(I32(1)), TL_REGION_POINT);
}

#define ATOMIC_ADD(b, idx, v) tl_ir_eval(m, CALL(TL_OP_ATOMIC_ADD_ELEM, TL_DT_HANDLE, elem(m, (b), (idx)), (v)))

/* A device kernel over global buffers (in order) with the given body. */
static inline tl_ir_func *simt_kernel(tl_ir_module *m, const char *name, tl_ir_buffer *const *bufs, uint32_t nbufs,
                                      tl_ir_stmt *body) {
  tl_ir_func *f;
  assert_non_null(body);
  TL_ASSERT_OK(tl_ir_func_new(m, name, &f));
  for (uint32_t i = 0; i < nbufs; i++) TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, bufs[i], false));
  f->callconv = TL_CALLCONV_DEVICE_KERNEL;
  f->body = body;
  return f;
}

/* A host entry `name` with buffers shaped as the kernel's (constant shapes) that
 * launches it on grid x block, passing their data; dyn_smem < 0: no dynamic shared
 * memory argument. */
static inline tl_ir_func *simt_host(tl_ir_module *m, const char *name, const tl_ir_func *k, const int64_t grid[3],
                                    const int64_t block[3], int64_t dyn_smem) {
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, name, &f));
  tl_ir_expr *args[8];
  assert_true(k->nparams <= 8);
  for (uint32_t i = 0; i < k->nparams; i++) {
    const tl_ir_buffer *kb = k->params[i].buffer;
    tl_ir_buffer *b = tl_ir_buffer_new(m, kb->name, kb->dtype, kb->ndim, kb->shape, NULL, GLOBAL);
    TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, b, false));
    args[i] = VAR(b->data);
  }
  tl_ir_expr *g[3] = {I32(grid[0]), I32(grid[1]), I32(grid[2])};
  tl_ir_expr *bl[3] = {I32(block[0]), I32(block[1]), I32(block[2])};
  f->callconv = TL_CALLCONV_PACKED;
  f->body = tl_ir_launch(m, k->name, k->nparams, args, g, bl, dyn_smem >= 0 ? I32(dyn_smem) : NULL);
  assert_non_null(f->body);
  return f;
}

/* Runs `func` on float32/int32 arrays: each pointer with its element count. */
typedef struct simt_arg {
  tl_dtype dt;
  void *data;
  int64_t n;
} simt_arg;

static inline tl_status simt_call(const tl_ir_module *m, const char *func, const simt_arg *a, int n) {
  host_tensor h[8];
  tl_value v[8];
  for (int i = 0; i < n; i++) v[i] = ht_wrap(&h[i], a[i].dt, a[i].data, 1, a[i].n, 0);
  return tl_ir_interpret(m, func, v, n);
}

#endif
