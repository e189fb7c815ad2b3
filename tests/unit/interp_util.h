/* Helpers for the interpreter tests: short builders for IR written by hand and
 * host tensors wrapping C arrays. The builders use a module named `m` in scope. */
#ifndef TL_INTERP_UTIL_H
#define TL_INTERP_UTIL_H

#include <dlpack/dlpack.h>
#include <math.h>

#include "tilelang/ir.h"
#include "tl_test.h"

/* ------------------------------------------------------------ expressions */

#define I32(v) tl_ir_i32(m, (v))
#define F32(v) tl_ir_float(m, TL_DT_FLOAT32, (v))
#define VAR(v) tl_ir_var_ref(m, (v))
#define BIN(op, a, b) tl_ir_binary(m, TL_BIN_##op, (a), (b))
#define ADD(a, b) BIN(ADD, a, b)
#define SUB(a, b) BIN(SUB, a, b)
#define MUL(a, b) BIN(MUL, a, b)
#define LT(a, b) BIN(LT, a, b)
#define EXPRS(...) ((tl_ir_expr *[]){__VA_ARGS__})
#define STMTS(...) ((tl_ir_stmt *[]){__VA_ARGS__})
#define NARGS(...) (uint32_t)(sizeof((tl_ir_expr *[]){__VA_ARGS__}) / sizeof(tl_ir_expr *))
#define NSTMTS(...) (uint32_t)(sizeof((tl_ir_stmt *[]){__VA_ARGS__}) / sizeof(tl_ir_stmt *))
#define LOAD(buf, ...) tl_ir_load(m, (buf), NARGS(__VA_ARGS__), EXPRS(__VA_ARGS__))
#define STORE(buf, value, ...) tl_ir_store(m, (buf), NARGS(__VA_ARGS__), EXPRS(__VA_ARGS__), (value))
#define SEQ(...) tl_ir_seq(m, NSTMTS(__VA_ARGS__), STMTS(__VA_ARGS__))
#define CALL(op, dt, ...) tl_ir_call(m, (op), (dt), NARGS(__VA_ARGS__), EXPRS(__VA_ARGS__))
#define TILE(op, ...) tl_ir_eval(m, CALL((op), TL_DT_HANDLE, __VA_ARGS__))
#define FULL(buf) tl_ir_region(m, (buf), NULL, NULL, TL_REGION_FULL)

static inline tl_ir_buffer *buf1(tl_ir_module *m, const char *name, tl_dtype dt, tl_ir_expr *d0, tl_ir_scope sc) {
  return tl_ir_buffer_new(m, name, dt, 1, EXPRS(d0), NULL, sc);
}
static inline tl_ir_buffer *buf2(tl_ir_module *m, const char *name, tl_dtype dt, tl_ir_expr *d0, tl_ir_expr *d1,
                                 tl_ir_scope sc) {
  return tl_ir_buffer_new(m, name, dt, 2, EXPRS(d0, d1), NULL, sc);
}

/* A region of a 1-D or 2-D buffer from starts and extents. */
static inline tl_ir_expr *region1(tl_ir_module *m, tl_ir_buffer *b, tl_ir_expr *min0, tl_ir_expr *ext0) {
  return tl_ir_region(m, b, EXPRS(min0), EXPRS(ext0), TL_REGION_SLICE);
}
static inline tl_ir_expr *region2(tl_ir_module *m, tl_ir_buffer *b, tl_ir_expr *min0, tl_ir_expr *ext0,
                                  tl_ir_expr *min1, tl_ir_expr *ext1) {
  return tl_ir_region(m, b, EXPRS(min0, min1), EXPRS(ext0, ext1), TL_REGION_SLICE);
}

/* One loop variable. */
static inline tl_ir_stmt *single_var_loop(tl_ir_module *m, tl_ir_for_kind kind, tl_ir_var *v, tl_ir_expr *ext, tl_ir_stmt *body) {
  return tl_ir_for(m, kind, 1, &v, NULL, &ext, body);
}

/* `with T.Kernel(gx, gy, threads=t) as (bx, by)` (gy may be NULL for 1-D grids). */
static inline tl_ir_stmt *kernel2(tl_ir_module *m, tl_ir_expr *gx, tl_ir_expr *gy, tl_ir_var *bx, tl_ir_var *by,
                                  tl_ir_stmt *body) {
  tl_ir_expr *grid[2] = {gx, gy};
  tl_ir_var *vars[2] = {bx, by};
  return tl_ir_kernel(m, gy ? 2 : 1, grid, 1, EXPRS(I32(128)), vars, body);
}

/* Builds a function from params (buffer or scalar, in order) and a body; asserts success. */
static inline tl_ir_func *make_func(tl_ir_module *m, const char *name, tl_ir_buffer *const *bufs, uint32_t nbufs,
                                    tl_ir_stmt *body) {
  tl_ir_func *f = NULL;
  assert_non_null(body);
  TL_ASSERT_OK(tl_ir_func_new(m, name, &f));
  for (uint32_t i = 0; i < nbufs; i++) TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, bufs[i], false));
  f->body = body;
  return f;
}

/* ---------------------------------------------------------------- tensors */

typedef struct host_tensor {
  DLTensor t;
  int64_t shape[4];
} host_tensor;

/* Wraps data (not owned) as a compact CPU tensor. */
static inline tl_value ht_wrap(host_tensor *h, tl_dtype dt, void *data, int ndim, int64_t d0, int64_t d1) {
  memset(h, 0, sizeof *h);
  h->shape[0] = d0;
  h->shape[1] = d1;
  h->t.data = data;
  h->t.device.device_type = kDLCPU;
  h->t.ndim = ndim;
  h->t.dtype.code = dt.code;
  h->t.dtype.bits = dt.bits;
  h->t.dtype.lanes = dt.lanes;
  h->t.shape = h->shape;
  return tl_value_tensor((struct DLTensor *)(void *)&h->t);
}

/* Deterministic values in [-1, 1). */
static inline double test_uniform(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1p-52 - 1.0;
}

#endif
