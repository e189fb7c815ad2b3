/* Lowered modules written by hand with the builder, in the exact form of
 * docs/lowering.md (a PACKED host entry with make_packed_api's checks, symbolic-dim
 * LETs and LAUNCHes; DEVICE_KERNEL functions with flattened buffers and the parallel
 * block loop), and their kernel tables, for the code generator and runtime tests.
 * Builders use a module named `m` in scope (interp_util.h's macros). */
#ifndef TL_LOWERED_FIXTURES_H
#define TL_LOWERED_FIXTURES_H

#include "interp_util.h"
#include "kernel_table/kernel_table.h"
#include "tilelang/runtime.h"

/* ------------------------------------------------------------ host checks */

#define ARG1(op, dt, i) CALL(TL_OP_ARG_##op, dt, I32(i))
#define ARG2(op, dt, i, d) CALL(TL_OP_ARG_##op, dt, I32(i), I32(d))
#define I64(v) tl_ir_int(m, TL_DT_INT64, (v))
#define EQ(a, b) BIN(EQ, a, b)
#define AND(a, b) BIN(AND, a, b)
#define OR(a, b) BIN(OR, a, b)

/* Appends a statement to a fixed array. */
typedef struct stmt_list {
  tl_ir_stmt *s[96];
  uint32_t n;
} stmt_list;

static inline void push(stmt_list *l, tl_ir_stmt *s) {
  assert_true(l->n < 96);
  l->s[l->n++] = s;
}

static inline void check(tl_ir_module *m, stmt_list *l, tl_ir_expr *cond, const char *msg) {
  push(l, tl_ir_assert(m, cond, msg));
}

/* make_packed_api's checks of tensor parameter i named `name`: kind, dtype, ndim,
 * device (CPU), data, and the constant dims in `consts` (-1: symbolic). */
static inline void check_tensor(tl_ir_module *m, stmt_list *l, uint32_t i, const char *name, tl_dtype dt,
                                uint32_t ndim, const int64_t *consts) {
  char msg[256], dn[32];
  snprintf(msg, sizeof msg, "argument '%s': expected a tensor but got {kind(%u)}", name, i);
  check(m, l, EQ(ARG1(KIND, TL_DT_INT32, i), I32(TL_VALUE_TENSOR)), msg);
  snprintf(msg, sizeof msg, "argument '%s': expected %s but got {dtype(%u)}", name, tl_dtype_name(dt, dn, sizeof dn), i);
  check(m, l,
        AND(AND(EQ(ARG1(DTYPE_CODE, TL_DT_INT32, i), I32(dt.code)), EQ(ARG1(DTYPE_BITS, TL_DT_INT32, i), I32(dt.bits))),
            EQ(ARG1(DTYPE_LANES, TL_DT_INT32, i), I32(dt.lanes))),
        msg);
  snprintf(msg, sizeof msg, "argument '%s': expected %u dimension%s but got {ndim(%u)}", name, ndim,
           ndim == 1 ? "" : "s", i);
  check(m, l, EQ(ARG1(NDIM, TL_DT_INT32, i), I32(ndim)), msg);
  snprintf(msg, sizeof msg, "argument '%s': expected a CPU tensor (kDLCPU) but got device type {device(%u)}", name, i);
  check(m, l, EQ(ARG1(DEVICE_TYPE, TL_DT_INT32, i), I32(1)), msg);
  tl_ir_expr *data = tl_ir_unary(m, TL_UN_NOT, ARG1(DATA_IS_NULL, TL_DT_BOOL, i));
  for (uint32_t d = 0; d < ndim; d++) data = OR(data, EQ(ARG2(SHAPE, TL_DT_INT64, i, d), I64(0)));
  snprintf(msg, sizeof msg, "argument '%s': the tensor's data is NULL", name);
  check(m, l, data, msg);
  for (uint32_t d = 0; d < ndim; d++) {
    if (consts[d] < 0) continue;
    snprintf(msg, sizeof msg, "argument '%s': dimension %u must be %lld but is {shape(%u,%u)}", name, d,
             (long long)consts[d], i, d);
    check(m, l, EQ(ARG2(SHAPE, TL_DT_INT64, i, d), I64(consts[d])), msg);
  }
}

static inline void check_binding(tl_ir_module *m, stmt_list *l, uint32_t i, const char *name, uint32_t d,
                                 const char *sym) {
  char msg[256];
  snprintf(msg, sizeof msg, "argument '%s': dimension %u (%s = {shape(%u,%u)}) does not fit int32", name, d, sym, i, d);
  check(m, l, AND(BIN(GE, ARG2(SHAPE, TL_DT_INT64, i, d), I64(0)), BIN(LE, ARG2(SHAPE, TL_DT_INT64, i, d), I64(2147483647))),
        msg);
}

static inline void check_same(tl_ir_module *m, stmt_list *l, uint32_t i, const char *name, uint32_t d, const char *sym,
                              uint32_t j, const char *bname, uint32_t e) {
  char msg[256];
  snprintf(msg, sizeof msg, "argument '%s': dimension %u must equal %s (={shape(%u,%u)} from argument '%s') but is {shape(%u,%u)}",
           name, d, sym, j, e, bname, i, d);
  check(m, l, EQ(ARG2(SHAPE, TL_DT_INT64, i, d), ARG2(SHAPE, TL_DT_INT64, j, e)), msg);
}

static inline void check_compact(tl_ir_module *m, stmt_list *l, uint32_t i, const char *name) {
  char msg[256];
  snprintf(msg, sizeof msg, "argument '%s': the tensor must be compact (row-major contiguous)", name);
  check(m, l, ARG1(STRIDES_COMPACT, TL_DT_BOOL, i), msg);
}

static inline tl_ir_stmt *launch1(tl_ir_module *m, const char *kernel, uint32_t n, tl_ir_expr *const *args) {
  tl_ir_expr *one[3] = {I32(1), I32(1), I32(1)}, *one2[3] = {I32(1), I32(1), I32(1)};
  return tl_ir_launch(m, kernel, n, args, one, one2, NULL);
}

static inline tl_ir_func *finish(tl_ir_module *m, const char *name, tl_ir_callconv cc, tl_ir_buffer *const *bufs,
                                 uint32_t nbufs, tl_ir_var *const *scalars, uint32_t nscalars, tl_ir_stmt *body) {
  tl_ir_func *f = NULL;
  assert_non_null(body);
  TL_ASSERT_OK(tl_ir_func_new(m, name, &f));
  for (uint32_t i = 0; i < nbufs; i++) TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, bufs[i], false));
  for (uint32_t i = 0; i < nscalars; i++) TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, scalars[i]));
  f->callconv = cc;
  f->body = body;
  return f;
}

/* ------------------------------------------------------------------ vadd */

/* Device kernel vadd_kernel(A, B, C: dt[N], N):
 *   for bx in T.Parallel(T.ceildiv(N, 256)):      # the block loop
 *     for i in range(256):
 *       if bx * 256 + i < N:
 *         C[bx * 256 + i] = A[bx * 256 + i] + B[bx * 256 + i]
 * and host entry vadd(A, B, C: T.Tensor((N,), dt)). */
static inline void build_vadd(tl_ir_module *m, tl_dtype dt) {
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "call"));
  /* device */
  tl_ir_var *n = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_buffer *a = buf1(m, "A", dt, VAR(n), TL_SCOPE_GLOBAL), *b = buf1(m, "B", dt, VAR(n), TL_SCOPE_GLOBAL),
               *c = buf1(m, "C", dt, VAR(n), TL_SCOPE_GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_expr *gi = ADD(MUL(VAR(bx), I32(256)), VAR(i));
  tl_ir_stmt *body = tl_ir_if(m, LT(gi, VAR(n)), STORE(c, ADD(LOAD(a, gi), LOAD(b, gi)), gi), NULL);
  body = single_var_loop(m, TL_FOR_SERIAL, i, I32(256), body);
  body = single_var_loop(m, TL_FOR_PARALLEL, bx, CALL(TL_OP_CEILDIV, TL_DT_INT32, VAR(n), I32(256)), body);
  finish(m, "vadd_kernel", TL_CALLCONV_DEVICE_KERNEL, (tl_ir_buffer *[]){a, b, c}, 3, &n, 1, body);
  /* host */
  tl_ir_var *hn = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_buffer *ha = buf1(m, "A", dt, VAR(hn), TL_SCOPE_GLOBAL), *hb = buf1(m, "B", dt, VAR(hn), TL_SCOPE_GLOBAL),
               *hc = buf1(m, "C", dt, VAR(hn), TL_SCOPE_GLOBAL);
  stmt_list l = {{0}, 0};
  check(m, &l, EQ(CALL(TL_OP_ARG_NUM, TL_DT_INT32), I32(3)), "function 'vadd' takes 3 arguments but got {nargs}");
  const char *names[3] = {"A", "B", "C"};
  int64_t sym[1] = {-1};
  for (uint32_t k = 0; k < 3; k++) check_tensor(m, &l, k, names[k], dt, 1, sym);
  check_binding(m, &l, 0, "A", 0, "N");
  check_same(m, &l, 1, "B", 0, "N", 0, "A", 0);
  check_same(m, &l, 2, "C", 0, "N", 0, "A", 0);
  for (uint32_t k = 0; k < 3; k++) check_compact(m, &l, k, names[k]);
  tl_ir_var *nb = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_stmt *launch = launch1(m, "vadd_kernel", 4, EXPRS(VAR(ha->data), VAR(hb->data), VAR(hc->data), VAR(nb)));
  push(&l, tl_ir_let(m, nb, tl_ir_cast(m, TL_DT_INT32, ARG2(SHAPE, TL_DT_INT64, 0, 0)), launch));
  finish(m, "vadd", TL_CALLCONV_PACKED, (tl_ir_buffer *[]){ha, hb, hc}, 3, NULL, 0, tl_ir_seq(m, l.n, l.s));
  TL_ASSERT_OK(tl_ir_verify_module(m));
}

/* The kernel table of vadd (what split_host_device + the table builder give). */
static inline tl_kernel_table *vadd_table(tl_dtype dt) {
  static tl_host_dim dims[1] = {{0, 0}};
  tl_host_param params[3] = {{"A", true, dt, 1, dims, false, 0}, {"B", true, dt, 1, dims, false, 0},
                             {"C", true, dt, 1, dims, false, 0}};
  tl_host_sym syms[1] = {{"N", 0, 0}};
  tl_kernel_arg args[4] = {{TL_KARG_TENSOR, 0, dt}, {TL_KARG_TENSOR, 1, dt}, {TL_KARG_TENSOR, 2, dt},
                           {TL_KARG_SYM, 0, TL_DT_INT32}};
  tl_kernel_launch launch = {"vadd_kernel", 4, args, {{0, NULL}, {0, NULL}, {0, NULL}},
                             {{0, NULL}, {0, NULL}, {0, NULL}}, {0, NULL}};
  tl_kernel_table t = {"vadd", 3, params, 1, syms, 1, &launch};
  tl_kernel_table *out = NULL;
  TL_ASSERT_OK(tl__kernel_table_pack(&t, &out));
  return out;
}

/* ------------------------------------------------------------------ axpy */

/* A richer kernel: 2-D grid (collapse), lets, selects, local and local.var buffers,
 * an unrolled loop, max, exp, floormod of possibly negative values, casts, scalars.
 *
 * def axpy(X: T.Tensor((M, 8), "float32"), Y: T.Tensor((M, 8), "float32"), alpha: T.float32, shift: T.int32):
 *   with T.Kernel(2, T.ceildiv(M, 2)) as (bx, by):    # blocks of 2 rows x 4 columns
 *     t = T.alloc_local((4,), "float32"); acc = T.alloc_var("float32")
 *     for r in range(2):
 *       row = by * 2 + r
 *       if row < M:
 *         for j in range(4): t[j] = X[row, bx * 4 + j] * alpha
 *         acc = 0.0
 *         for j in T.unroll(4): acc = T.max(acc, t[j])
 *         for j in range(4):
 *           col = bx * 4 + j
 *           Y[row, col] = T.if_then_else(t[j] > acc - 1.0, T.exp(t[j] - acc), -t[j])
 *                         + T.Cast("float32", (col - shift) % 3)                       */
static inline void build_axpy(tl_ir_module *m) {
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "call"));
  tl_ir_var *vm = tl_ir_var_new(m, "M", TL_DT_INT32), *alpha = tl_ir_var_new(m, "alpha", TL_DT_FLOAT32),
            *shift = tl_ir_var_new(m, "shift", TL_DT_INT32);
  tl_ir_buffer *x = buf1(m, "X", TL_DT_FLOAT32, MUL(VAR(vm), I32(8)), TL_SCOPE_GLOBAL),
               *y = buf1(m, "Y", TL_DT_FLOAT32, MUL(VAR(vm), I32(8)), TL_SCOPE_GLOBAL);
  tl_ir_buffer *t = buf1(m, "t", TL_DT_FLOAT32, I32(4), TL_SCOPE_LOCAL);
  tl_ir_buffer *acc = tl_ir_buffer_new(m, "acc", TL_DT_FLOAT32, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
  tl_ir_var *by = tl_ir_var_new(m, "by", TL_DT_INT32), *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_var *r = tl_ir_var_new(m, "r", TL_DT_INT32), *row = tl_ir_var_new(m, "row", TL_DT_INT32);
  tl_ir_var *j1 = tl_ir_var_new(m, "j", TL_DT_INT32), *j2 = tl_ir_var_new(m, "j", TL_DT_INT32),
            *j3 = tl_ir_var_new(m, "j", TL_DT_INT32), *col = tl_ir_var_new(m, "col", TL_DT_INT32);
  tl_ir_stmt *fill = single_var_loop(m, TL_FOR_SERIAL, j1, I32(4),
                           STORE(t, MUL(LOAD(x, ADD(MUL(VAR(row), I32(8)), ADD(MUL(VAR(bx), I32(4)), VAR(j1)))), VAR(alpha)),
                                 VAR(j1)));
  tl_ir_expr *accv = tl_ir_load(m, acc, 0, NULL);
  tl_ir_stmt *init = tl_ir_store(m, acc, 0, NULL, F32(0.0));
  tl_ir_stmt *mx = single_var_loop(m, TL_FOR_UNROLLED, j2, I32(4),
                         tl_ir_store(m, acc, 0, NULL, BIN(MAX, tl_ir_load(m, acc, 0, NULL), LOAD(t, VAR(j2)))));
  tl_ir_expr *tj = LOAD(t, VAR(j3));
  tl_ir_expr *sel = tl_ir_select(m, BIN(GT, tj, SUB(accv, F32(1.0))),
                                 tl_ir_call(m, TL_OP_EXP, TL_DT_FLOAT32, 1, EXPRS(SUB(tj, accv))),
                                 tl_ir_unary(m, TL_UN_NEG, tj));
  tl_ir_expr *fm = tl_ir_cast(m, TL_DT_FLOAT32, BIN(FLOORMOD, SUB(VAR(col), VAR(shift)), I32(3)));
  tl_ir_stmt *out = single_var_loop(m, TL_FOR_SERIAL, j3, I32(4),
                          tl_ir_let(m, col, ADD(MUL(VAR(bx), I32(4)), VAR(j3)),
                                    STORE(y, ADD(sel, fm), ADD(MUL(VAR(row), I32(8)), VAR(col)))));
  tl_ir_stmt *rowbody = tl_ir_let(m, row, ADD(MUL(VAR(by), I32(2)), VAR(r)),
                                  tl_ir_if(m, LT(VAR(row), VAR(vm)), SEQ(fill, init, mx, out), NULL));
  tl_ir_stmt *blk = SEQ(tl_ir_alloc(m, t), tl_ir_alloc(m, acc), single_var_loop(m, TL_FOR_SERIAL, r, I32(2), rowbody));
  tl_ir_var *grid_vars[2] = {by, bx};
  tl_ir_expr *grid_ext[2] = {CALL(TL_OP_CEILDIV, TL_DT_INT32, VAR(vm), I32(2)), I32(2)};
  tl_ir_stmt *body = tl_ir_for(m, TL_FOR_PARALLEL, 2, grid_vars, NULL, grid_ext, blk);
  finish(m, "axpy_kernel", TL_CALLCONV_DEVICE_KERNEL, (tl_ir_buffer *[]){x, y}, 2,
         (tl_ir_var *[]){alpha, shift, vm}, 3, body);
  /* host */
  tl_ir_var *hm = tl_ir_var_new(m, "M", TL_DT_INT32), *halpha = tl_ir_var_new(m, "alpha", TL_DT_FLOAT32),
            *hshift = tl_ir_var_new(m, "shift", TL_DT_INT32);
  tl_ir_buffer *hx = buf2(m, "X", TL_DT_FLOAT32, VAR(hm), I32(8), TL_SCOPE_GLOBAL),
               *hy = buf2(m, "Y", TL_DT_FLOAT32, VAR(hm), I32(8), TL_SCOPE_GLOBAL);
  stmt_list l = {{0}, 0};
  check(m, &l, EQ(CALL(TL_OP_ARG_NUM, TL_DT_INT32), I32(4)), "function 'axpy' takes 4 arguments but got {nargs}");
  int64_t dims[2] = {-1, 8};
  check_tensor(m, &l, 0, "X", TL_DT_FLOAT32, 2, dims);
  check_tensor(m, &l, 1, "Y", TL_DT_FLOAT32, 2, dims);
  tl_ir_expr *kind2 = ARG1(KIND, TL_DT_INT32, 2);
  check(m, &l, OR(EQ(kind2, I32(TL_VALUE_FLOAT)), OR(EQ(ARG1(KIND, TL_DT_INT32, 2), I32(TL_VALUE_INT)),
                                                      EQ(ARG1(KIND, TL_DT_INT32, 2), I32(TL_VALUE_BOOL)))),
        "argument 'alpha': expected a scalar float32 but got {kind(2)}");
  check(m, &l, OR(EQ(ARG1(KIND, TL_DT_INT32, 3), I32(TL_VALUE_INT)), EQ(ARG1(KIND, TL_DT_INT32, 3), I32(TL_VALUE_BOOL))),
        "argument 'shift': expected a scalar int32 but got {kind(3)}");
  check(m, &l, AND(BIN(GE, ARG1(INT, TL_DT_INT64, 3), I64(-2147483648LL)), BIN(LE, ARG1(INT, TL_DT_INT64, 3), I64(2147483647))),
        "argument 'shift': {int(3)} does not fit int32");
  check_binding(m, &l, 0, "X", 0, "M");
  check_same(m, &l, 1, "Y", 0, "M", 0, "X", 0);
  check_compact(m, &l, 0, "X");
  check_compact(m, &l, 1, "Y");
  tl_ir_var *mb = tl_ir_var_new(m, "M", TL_DT_INT32);
  tl_ir_stmt *launch =
      launch1(m, "axpy_kernel", 5, EXPRS(VAR(hx->data), VAR(hy->data), VAR(halpha), VAR(hshift), VAR(mb)));
  push(&l, tl_ir_let(m, mb, tl_ir_cast(m, TL_DT_INT32, ARG2(SHAPE, TL_DT_INT64, 0, 0)), launch));
  finish(m, "axpy", TL_CALLCONV_PACKED, (tl_ir_buffer *[]){hx, hy}, 2, (tl_ir_var *[]){halpha, hshift}, 2,
         tl_ir_seq(m, l.n, l.s));
  TL_ASSERT_OK(tl_ir_verify_module(m));
}

/* The reference of axpy for one element. */
static inline float axpy_ref(const float *x, int64_t row, int64_t col, float alpha, int32_t shift) {
  float t[4], acc = 0.0f;
  int64_t bx = col / 4;
  for (int j = 0; j < 4; j++) t[j] = x[row * 8 + bx * 4 + j] * alpha;
  for (int j = 0; j < 4; j++) acc = acc > t[j] ? acc : t[j];
  float tj = t[col % 4];
  float v = tj > acc - 1.0f ? expf(tj - acc) : -tj;
  int32_t d = (int32_t)col - shift;
  int32_t fm = ((d % 3) + 3) % 3;
  return v + (float)fm;
}

#endif
