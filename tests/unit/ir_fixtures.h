/* Kernels built with the IR builder, shared by the IR unit tests. Each returns
 * the new function, or NULL when a builder failed (the message is set). */
#ifndef TL_IR_FIXTURES_H
#define TL_IR_FIXTURES_H

#include "tilelang/ir.h"

static inline tl_ir_span fx_loc(uint32_t line, uint32_t col) { return (tl_ir_span){"k.py", line, col}; }

/* def vadd(A: T.Tensor((N,), "float32"), B: ..., C: ...):
 *   with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
 *     for i in T.Parallel(128):
 *       if bx * 128 + i < N:
 *         C[bx * 128 + i] = A[bx * 128 + i] + B[bx * 128 + i]      */
static inline tl_ir_func *fx_vadd(tl_ir_module *m, const char *name) {
  tl_ir_builder_set_loc(m, fx_loc(1, 1));
  tl_ir_var *n = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_expr *shape[1] = {tl_ir_var_ref(m, n)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *b = tl_ir_buffer_new(m, "B", TL_DT_FLOAT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *c = tl_ir_buffer_new(m, "C", TL_DT_FLOAT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_builder_set_loc(m, fx_loc(2, 5));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_expr *cd[2] = {tl_ir_var_ref(m, n), tl_ir_i32(m, 128)};
  tl_ir_expr *grid[1] = {tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, cd)};
  tl_ir_expr *threads[1] = {tl_ir_i32(m, 128)};
  tl_ir_builder_set_loc(m, fx_loc(3, 9));
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_builder_set_loc(m, fx_loc(4, 13));
  tl_ir_expr *gi[1] = {tl_ir_binary(m, TL_BIN_ADD, tl_ir_binary(m, TL_BIN_MUL, tl_ir_var_ref(m, bx), tl_ir_i32(m, 128)),
                                    tl_ir_var_ref(m, i))};
  tl_ir_expr *cond = tl_ir_binary(m, TL_BIN_LT, gi[0], tl_ir_var_ref(m, n));
  tl_ir_builder_set_loc(m, fx_loc(5, 17));
  tl_ir_stmt *store =
      tl_ir_store(m, c, 1, gi, tl_ir_binary(m, TL_BIN_ADD, tl_ir_load(m, a, 1, gi), tl_ir_load(m, b, 1, gi)));
  tl_ir_builder_set_loc(m, fx_loc(4, 13));
  tl_ir_stmt *guard = tl_ir_if(m, cond, store, NULL);
  tl_ir_builder_set_loc(m, fx_loc(3, 9));
  tl_ir_stmt *loop = tl_ir_for(m, TL_FOR_PARALLEL, 1, &i, NULL, threads, guard);
  tl_ir_builder_set_loc(m, fx_loc(2, 5));
  tl_ir_stmt *kernel = tl_ir_kernel(m, 1, grid, 1, threads, &bx, loop);
  if (!kernel) return NULL;
  tl_ir_builder_set_loc(m, fx_loc(1, 1));
  tl_ir_func *f;
  if (tl_ir_func_new(m, name, &f) != TL_OK || tl_ir_func_add_buffer_param(m, f, a, false) != TL_OK ||
      tl_ir_func_add_buffer_param(m, f, b, false) != TL_OK || tl_ir_func_add_buffer_param(m, f, c, false) != TL_OK)
    return NULL;
  f->body = kernel;
  return f;
}

/* A region of a 2-D buffer starting at (r, c) with extents (er, ec), POINT form. */
static inline tl_ir_expr *fx_region2(tl_ir_module *m, tl_ir_buffer *b, tl_ir_expr *r, tl_ir_expr *c, int64_t er,
                                     int64_t ec) {
  tl_ir_expr *mins[2] = {r, c}, *ext[2] = {tl_ir_i32(m, er), tl_ir_i32(m, ec)};
  return tl_ir_region(m, b, mins, ext, TL_REGION_POINT);
}

static inline tl_ir_stmt *fx_eval(tl_ir_module *m, tl_ir_op op, uint32_t n, tl_ir_expr *const *args) {
  return tl_ir_eval(m, tl_ir_call(m, op, TL_DT_HANDLE, n, args));
}

/* def matmul(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
 *   with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
 *     A_s = T.alloc_shared((64, 32), "float16")
 *     B_s = T.alloc_shared((32, 64), "float16")
 *     C_l = T.alloc_fragment((64, 64), "float32")
 *     T.clear(C_l)
 *     for ko in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
 *       T.copy(A[by * 64, ko * 32], A_s)
 *       T.copy(B[ko * 32, bx * 64], B_s)
 *       T.gemm(A_s, B_s, C_l)
 *     T.copy(C_l, C[by * 64, bx * 64])                                   */
static inline tl_ir_func *fx_matmul(tl_ir_module *m, const char *name) {
  tl_ir_builder_set_loc(m, fx_loc(10, 1));
  tl_ir_var *vm = tl_ir_var_new(m, "M", TL_DT_INT32), *vn = tl_ir_var_new(m, "N", TL_DT_INT32),
            *vk = tl_ir_var_new(m, "K", TL_DT_INT32);
  tl_ir_expr *sa[2] = {tl_ir_var_ref(m, vm), tl_ir_var_ref(m, vk)}, *sb[2] = {tl_ir_var_ref(m, vk), tl_ir_var_ref(m, vn)},
             *sc[2] = {tl_ir_var_ref(m, vm), tl_ir_var_ref(m, vn)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT16, 2, sa, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *b = tl_ir_buffer_new(m, "B", TL_DT_FLOAT16, 2, sb, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *c = tl_ir_buffer_new(m, "C", TL_DT_FLOAT32, 2, sc, NULL, TL_SCOPE_GLOBAL);
  tl_ir_builder_set_loc(m, fx_loc(11, 5));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *by = tl_ir_var_new(m, "by", TL_DT_INT32);
  tl_ir_expr *gn[2] = {tl_ir_var_ref(m, vn), tl_ir_i32(m, 64)}, *gm[2] = {tl_ir_var_ref(m, vm), tl_ir_i32(m, 64)};
  tl_ir_expr *grid[2] = {tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, gn), tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, gm)};
  tl_ir_expr *threads[1] = {tl_ir_i32(m, 128)};
  tl_ir_builder_set_loc(m, fx_loc(12, 9));
  tl_ir_expr *s_as[2] = {tl_ir_i32(m, 64), tl_ir_i32(m, 32)}, *s_bs[2] = {tl_ir_i32(m, 32), tl_ir_i32(m, 64)},
             *s_cl[2] = {tl_ir_i32(m, 64), tl_ir_i32(m, 64)};
  tl_ir_buffer *as = tl_ir_buffer_new(m, "A_s", TL_DT_FLOAT16, 2, s_as, NULL, TL_SCOPE_SHARED);
  tl_ir_buffer *bs = tl_ir_buffer_new(m, "B_s", TL_DT_FLOAT16, 2, s_bs, NULL, TL_SCOPE_SHARED);
  tl_ir_buffer *cl = tl_ir_buffer_new(m, "C_l", TL_DT_FLOAT32, 2, s_cl, NULL, TL_SCOPE_LOCAL_FRAGMENT);
  tl_ir_builder_set_loc(m, fx_loc(15, 9));
  tl_ir_expr *clear_args[1] = {tl_ir_region(m, cl, NULL, NULL, TL_REGION_FULL)};
  tl_ir_stmt *clear = fx_eval(m, TL_OP_CLEAR, 1, clear_args);
  tl_ir_builder_set_loc(m, fx_loc(16, 9));
  tl_ir_var *ko = tl_ir_var_new(m, "ko", TL_DT_INT32);
  tl_ir_expr *kext[2] = {tl_ir_var_ref(m, vk), tl_ir_i32(m, 32)};
  tl_ir_expr *ko_ext[1] = {tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, kext)};
  tl_ir_expr *by64 = tl_ir_binary(m, TL_BIN_MUL, tl_ir_var_ref(m, by), tl_ir_i32(m, 64));
  tl_ir_expr *bx64 = tl_ir_binary(m, TL_BIN_MUL, tl_ir_var_ref(m, bx), tl_ir_i32(m, 64));
  tl_ir_expr *ko32 = tl_ir_binary(m, TL_BIN_MUL, tl_ir_var_ref(m, ko), tl_ir_i32(m, 32));
  tl_ir_builder_set_loc(m, fx_loc(17, 13));
  tl_ir_expr *cpa[2] = {fx_region2(m, a, by64, ko32, 64, 32), tl_ir_region(m, as, NULL, NULL, TL_REGION_FULL)};
  tl_ir_builder_set_loc(m, fx_loc(18, 13));
  tl_ir_expr *cpb[2] = {fx_region2(m, b, ko32, bx64, 32, 64), tl_ir_region(m, bs, NULL, NULL, TL_REGION_FULL)};
  tl_ir_builder_set_loc(m, fx_loc(19, 13));
  tl_ir_expr *gemm[7] = {tl_ir_region(m, as, NULL, NULL, TL_REGION_FULL), tl_ir_region(m, bs, NULL, NULL, TL_REGION_FULL),
                         tl_ir_region(m, cl, NULL, NULL, TL_REGION_FULL), tl_ir_i32(m, 0), tl_ir_i32(m, 0),
                         tl_ir_i32(m, 0), tl_ir_i32(m, 0)};
  tl_ir_stmt *kbody[3] = {fx_eval(m, TL_OP_COPY, 2, cpa), fx_eval(m, TL_OP_COPY, 2, cpb), fx_eval(m, TL_OP_GEMM, 7, gemm)};
  tl_ir_builder_set_loc(m, fx_loc(16, 9));
  tl_ir_stmt *kloop = tl_ir_for(m, TL_FOR_PIPELINED, 1, &ko, NULL, ko_ext, tl_ir_seq(m, 3, kbody));
  if (!kloop) return NULL;
  kloop->u.loop.num_stages = 3;
  tl_ir_builder_set_loc(m, fx_loc(20, 9));
  tl_ir_expr *cpc[2] = {tl_ir_region(m, cl, NULL, NULL, TL_REGION_FULL), fx_region2(m, c, by64, bx64, 64, 64)};
  tl_ir_stmt *body[6] = {tl_ir_alloc(m, as), tl_ir_alloc(m, bs), tl_ir_alloc(m, cl), clear, kloop,
                         fx_eval(m, TL_OP_COPY, 2, cpc)};
  tl_ir_builder_set_loc(m, fx_loc(11, 5));
  tl_ir_var *bvars[2] = {bx, by};
  tl_ir_stmt *kernel = tl_ir_kernel(m, 2, grid, 1, threads, bvars, tl_ir_seq(m, 6, body));
  if (!kernel) return NULL;
  tl_ir_builder_set_loc(m, fx_loc(10, 1));
  tl_ir_func *f;
  if (tl_ir_func_new(m, name, &f) != TL_OK || tl_ir_func_add_buffer_param(m, f, a, false) != TL_OK ||
      tl_ir_func_add_buffer_param(m, f, b, false) != TL_OK || tl_ir_func_add_buffer_param(m, f, c, false) != TL_OK)
    return NULL;
  f->body = kernel;
  return f;
}

/* A lowered pair: a device kernel `name`_kernel(A: handle-backed buffer, n: int32)
 * whose threads scale A in place, and a host entry `name` that checks n and
 * launches it. */
static inline tl_ir_func *fx_host_device(tl_ir_module *m, const char *name, const char *kname) {
  tl_ir_builder_set_loc(m, fx_loc(30, 1));
  /* device kernel */
  tl_ir_var *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_expr *shape[1] = {tl_ir_var_ref(m, n)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *tx = tl_ir_var_new(m, "tx", TL_DT_INT32);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_expr *e256[1] = {tl_ir_i32(m, 256)};
  tl_ir_expr *gi[1] = {tl_ir_binary(m, TL_BIN_ADD, tl_ir_binary(m, TL_BIN_MUL, tl_ir_var_ref(m, bx), tl_ir_i32(m, 256)),
                                    tl_ir_var_ref(m, tx))};
  tl_ir_expr *sh_ext[1] = {tl_ir_i32(m, 256)};
  tl_ir_buffer *sh = tl_ir_buffer_new(m, "tile", TL_DT_FLOAT32, 1, sh_ext, NULL, TL_SCOPE_SHARED);
  tl_ir_expr *ti[1] = {tl_ir_var_ref(m, tx)};
  tl_ir_stmt *guarded[3] = {
      tl_ir_store(m, sh, 1, ti, tl_ir_load(m, a, 1, gi)), tl_ir_barrier(m),
      tl_ir_store(m, a, 1, gi, tl_ir_binary(m, TL_BIN_MUL, tl_ir_load(m, sh, 1, ti), tl_ir_float(m, TL_DT_FLOAT32, 2.0)))};
  tl_ir_stmt *body = tl_ir_seq(m, 3, guarded);
  tl_ir_stmt *iff = tl_ir_if(m, tl_ir_binary(m, TL_BIN_LT, gi[0], tl_ir_var_ref(m, n)), body, NULL);
  tl_ir_stmt *dseq[2] = {tl_ir_alloc(m, sh), iff};
  tl_ir_stmt *tloop = tl_ir_for(m, TL_FOR_THREAD, 1, &tx, NULL, e256, tl_ir_seq(m, 2, dseq));
  if (!tloop) return NULL;
  tloop->u.loop.thread_tag = "threadIdx.x";
  tl_ir_expr *nblocks[2] = {tl_ir_var_ref(m, n), tl_ir_i32(m, 256)};
  tl_ir_expr *bext[1] = {tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, nblocks)};
  tl_ir_stmt *bloop = tl_ir_for(m, TL_FOR_THREAD, 1, &bx, NULL, bext, tloop);
  if (!bloop) return NULL;
  bloop->u.loop.thread_tag = "blockIdx.x";
  tl_ir_func *k;
  if (tl_ir_func_new(m, kname, &k) != TL_OK || tl_ir_func_add_buffer_param(m, k, a, false) != TL_OK ||
      tl_ir_func_add_scalar_param(m, k, n) != TL_OK)
    return NULL;
  k->callconv = TL_CALLCONV_DEVICE_KERNEL;
  k->body = bloop;

  /* host entry */
  tl_ir_builder_set_loc(m, fx_loc(40, 1));
  tl_ir_var *hn = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_expr *hshape[1] = {tl_ir_var_ref(m, hn)};
  tl_ir_buffer *ha = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, hshape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_expr *hblocks[2] = {tl_ir_var_ref(m, hn), tl_ir_i32(m, 256)};
  tl_ir_expr *grid[3] = {tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, hblocks), tl_ir_i32(m, 1), tl_ir_i32(m, 1)};
  tl_ir_expr *block[3] = {tl_ir_i32(m, 256), tl_ir_i32(m, 1), tl_ir_i32(m, 1)};
  tl_ir_expr *args[2] = {tl_ir_var_ref(m, ha->data), tl_ir_var_ref(m, hn)};
  tl_ir_stmt *hs[2] = {tl_ir_assert(m, tl_ir_binary(m, TL_BIN_GE, tl_ir_var_ref(m, hn), tl_ir_i32(m, 0)), "n must be >= 0"),
                       tl_ir_launch(m, kname, 2, args, grid, block, NULL)};
  tl_ir_stmt *hbody = tl_ir_seq(m, 2, hs);
  if (!hbody) return NULL;
  tl_ir_func *h;
  if (tl_ir_func_new(m, name, &h) != TL_OK || tl_ir_func_add_buffer_param(m, h, ha, false) != TL_OK ||
      tl_ir_func_add_scalar_param(m, h, hn) != TL_OK)
    return NULL;
  h->callconv = TL_CALLCONV_PACKED;
  h->body = hbody;
  return h;
}

#endif
