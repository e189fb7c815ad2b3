/* Structural equality and hashing: alpha-renamed functions are equal and hash
 * equally; near misses (one field changed) differ in both; equal implies equal
 * hash across every pair built here. */
#include <math.h>
#include <string.h>

#include "ir/module.h"
#include "ir_fixtures.h"
#include "tl_test.h"

enum {
  /* variants that must differ from the base */
  V_BASE = 0,
  V_FUNC_NAME, V_PARAM_NAME, V_PARAM_DTYPE, V_ALLOC_SHAPE, V_ALLOC_SCOPE, V_FLOAT_CONST, V_NEG_ZERO, V_BINOP,
  V_SWAP_INDICES, V_LOOP_KIND, V_NUM_STAGES, V_REGION_FORM, V_ATTR_VALUE, V_ATTR_EXTRA, V_NO_ELSE, V_IS_OUTPUT,
  V_CALLCONV, V_REDUCE_DIM, V_EXTRA_STMT, V_SWAP_BLOCK_VARS, V_SYMBOLIC_DIM, V_ASSERT_MSG, V_LOOP_VAR_DTYPE,
  V_ALLOC_ORDER, V_INT_DTYPE, V_PARAM_ORDER, V_THREAD_TAG, V_STRIDES, V_LET_VS_VALUE, V_SCALAR_USE,
  V_CAST_INNER, V_SELECT_SWAP, V_REGION_MIN, V_CALL_ARG, V_THREADS,
  V_NDIFF,
  /* variants that must equal the base */
  V_RENAME_LOCALS = 100, V_RENAME_BUFFERS, V_RENAME_DIMS, V_OTHER_SPANS, V_NAN_PAYLOAD, V_ATTR_ORDER, V_OTHER_IDS,
  V_UNSHARED_EXPRS, V_NEQUAL_END
};

typedef struct names {
  const char *i, *j, *t, *bx, *by, *k, *s, *f, *m, *n, *kd;
} names;

/* def fn(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), alpha: float32,
 *        C: T.Tensor((M, N), "float32")):
 *   with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 64), threads=128) as (bx, by):
 *     S = T.alloc_shared((64, 32), "float16")
 *     F = T.alloc_fragment((64,), "float32")
 *     T.copy(A[by * 64, 0], S)
 *     for i, j in T.Parallel(64, 32):
 *       t = S[i, j] * 2.0
 *       C[by * 64 + i, bx * 32 + j] = T.Cast("float32", t) * alpha
 *     for k in T.Pipelined(4, num_stages=2):
 *       if k < 2: F[k] = 0.0  else: T.sync_threads()
 *     F[0] = T.if_then_else(alpha != alpha, nan, alpha)
 *     T.reduce_sum(S, F, dim=1, clear=True)
 *     assert M >= 0, "M must be non-negative"                            */
static tl_ir_func *build(tl_ir_module *m, int v) {
  names nm = {"i", "j", "t", "bx", "by", "k", "S", "F", "M", "N", "K"};
  if (v == V_RENAME_LOCALS) {
    nm.i = "ii"; nm.j = "jj"; nm.t = "tmp"; nm.bx = "block_x"; nm.by = "block_y"; nm.k = "ko";
  }
  if (v == V_RENAME_BUFFERS) { nm.s = "A_shared"; nm.f = "acc"; }
  if (v == V_RENAME_DIMS) { nm.m = "rows"; nm.n = "cols"; nm.kd = "depth"; }
  if (v == V_OTHER_IDS) {
    for (int q = 0; q < 7; q++) tl_ir_var_new(m, "unused", TL_DT_INT32);
    tl_ir_buffer_new(m, "unused", TL_DT_INT32, 0, NULL, NULL, TL_SCOPE_LOCAL);
  }
  tl_ir_builder_set_loc(m, v == V_OTHER_SPANS ? (tl_ir_span){"other.py", 77, 7} : fx_loc(1, 1));
#define I(x) tl_ir_i32(m, x)
#define REF(x) tl_ir_var_ref(m, x)
#define BIN(op, a, b) tl_ir_binary(m, op, a, b)
  tl_ir_var *vm = tl_ir_var_new(m, nm.m, TL_DT_INT32), *vn = tl_ir_var_new(m, nm.n, TL_DT_INT32),
            *vk = tl_ir_var_new(m, nm.kd, TL_DT_INT32);
  tl_ir_expr *sa[2] = {REF(vm), REF(vk)}, *sb[2] = {REF(v == V_SYMBOLIC_DIM ? vm : vk), REF(vn)},
             *sc[2] = {REF(vm), REF(vn)};
  tl_ir_expr *strides[2] = {REF(vk), I(1)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, v == V_PARAM_NAME ? "A2" : "A", v == V_PARAM_DTYPE ? TL_DT_BFLOAT16 : TL_DT_FLOAT16,
                                     2, sa, v == V_STRIDES ? strides : NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *b = tl_ir_buffer_new(m, "B", TL_DT_FLOAT16, 2, sb, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *c = tl_ir_buffer_new(m, "C", TL_DT_FLOAT32, 2, sc, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *alpha = tl_ir_var_new(m, "alpha", TL_DT_FLOAT32);
  if (v == V_OTHER_SPANS) tl_ir_builder_set_loc(m, (tl_ir_span){"other.py", 78, 1});
  tl_ir_var *bx = tl_ir_var_new(m, nm.bx, TL_DT_INT32), *by = tl_ir_var_new(m, nm.by, TL_DT_INT32);
  tl_ir_expr *gn[2] = {REF(vn), I(v == V_CALL_ARG ? 16 : 32)}, *gm[2] = {REF(vm), I(64)};
  tl_ir_expr *grid[2] = {tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, gn), tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, gm)};
  tl_ir_expr *threads[1] = {I(v == V_THREADS ? 256 : 128)};
  tl_ir_expr *ss[2] = {I(v == V_ALLOC_SHAPE ? 128 : 64), I(32)}, *fs[1] = {I(64)};
  tl_ir_buffer *s = tl_ir_buffer_new(m, nm.s, TL_DT_FLOAT16, 2, ss, NULL, v == V_ALLOC_SCOPE ? TL_SCOPE_SHARED_DYN : TL_SCOPE_SHARED);
  tl_ir_buffer *f = tl_ir_buffer_new(m, nm.f, TL_DT_FLOAT32, 1, fs, NULL, TL_SCOPE_LOCAL_FRAGMENT);
  /* T.copy(A[by * 64, 0], S) */
  tl_ir_expr *by64 = BIN(TL_BIN_MUL, REF(by), I(64));
  tl_ir_expr *cmin[2] = {by64, I(v == V_REGION_MIN ? 32 : 0)}, *cext[2] = {I(64), I(32)};
  tl_ir_expr *cargs[2] = {tl_ir_region(m, a, cmin, cext, v == V_REGION_FORM ? TL_REGION_SLICE : TL_REGION_POINT),
                          tl_ir_region(m, s, NULL, NULL, TL_REGION_FULL)};
  tl_ir_stmt *copy = tl_ir_eval(m, tl_ir_call(m, TL_OP_COPY, TL_DT_HANDLE, 2, cargs));
  /* the parallel loop */
  tl_ir_var *i = tl_ir_var_new(m, nm.i, TL_DT_INT32), *j = tl_ir_var_new(m, nm.j, TL_DT_INT32);
  tl_ir_var *t = tl_ir_var_new(m, nm.t, TL_DT_FLOAT16);
  tl_ir_expr *sidx[2] = {REF(v == V_SWAP_INDICES ? j : i), REF(v == V_SWAP_INDICES ? i : j)};
  tl_ir_expr *tval = BIN(v == V_BINOP ? TL_BIN_ADD : TL_BIN_MUL, tl_ir_load(m, s, 2, sidx),
                         tl_ir_float(m, TL_DT_FLOAT16, v == V_FLOAT_CONST ? 3.0 : 2.0));
  tl_ir_var *bxv = v == V_SWAP_BLOCK_VARS ? by : bx;
  tl_ir_expr *row = v == V_UNSHARED_EXPRS ? BIN(TL_BIN_MUL, REF(by), I(64)) : by64;
  tl_ir_expr *cidx[2] = {BIN(TL_BIN_ADD, row, REF(i)), BIN(TL_BIN_ADD, BIN(TL_BIN_MUL, REF(bxv), I(32)), REF(j))};
  tl_ir_expr *scale = v == V_SCALAR_USE ? tl_ir_float(m, TL_DT_FLOAT32, 1.0) : REF(alpha);
  tl_ir_stmt *cstore = tl_ir_store(m, c, 2, cidx, BIN(TL_BIN_MUL, tl_ir_cast(m, TL_DT_FLOAT32, v == V_CAST_INNER ? tl_ir_unary(m, TL_UN_NEG, REF(t)) : REF(t)), scale));
  tl_ir_stmt *pbody = v == V_LET_VS_VALUE
                          ? tl_ir_let(m, t, tl_ir_load(m, s, 2, sidx), cstore)
                          : tl_ir_let(m, t, tval, cstore);
  tl_ir_var *pv[2] = {i, j};
  tl_ir_expr *pext[2] = {I(64), I(32)};
  tl_ir_stmt *par = tl_ir_for(m, v == V_LOOP_KIND ? TL_FOR_SERIAL : TL_FOR_PARALLEL, 2, pv, NULL, pext, pbody);
  /* the pipelined loop */
  tl_dtype kdt = v == V_LOOP_VAR_DTYPE ? TL_DT_INT64 : TL_DT_INT32;
  tl_ir_var *k = tl_ir_var_new(m, nm.k, kdt);
  tl_ir_expr *kidx[1] = {v == V_LOOP_VAR_DTYPE ? tl_ir_cast(m, TL_DT_INT32, REF(k)) : REF(k)};
  double zero = v == V_NEG_ZERO ? -0.0 : 0.0;
  tl_ir_stmt *then_ = tl_ir_store(m, f, 1, kidx, tl_ir_float(m, TL_DT_FLOAT32, zero));
  tl_ir_stmt *iff = tl_ir_if(m, BIN(TL_BIN_LT, REF(k), tl_ir_int(m, kdt, 2)), then_, v == V_NO_ELSE ? NULL : tl_ir_barrier(m));
  tl_ir_expr *kext[1] = {tl_ir_int(m, kdt, 4)};
  tl_ir_stmt *pipe = tl_ir_for(m, TL_FOR_PIPELINED, 1, &k, NULL, kext, iff);
  if (!pipe) return NULL;
  pipe->u.loop.num_stages = v == V_NUM_STAGES ? 3 : 2;
  /* F[0] = T.if_then_else(alpha != alpha, nan, alpha) */
  double nan_v = NAN;
  if (v == V_NAN_PAYLOAD) {
    uint64_t bits = 0xfff0000000000123ull; /* another NaN */
    memcpy(&nan_v, &bits, sizeof nan_v);
  }
  tl_ir_expr *z[1] = {tl_ir_int(m, v == V_INT_DTYPE ? TL_DT_INT64 : TL_DT_INT32, 0)};
  tl_ir_expr *nan_e = tl_ir_float(m, TL_DT_FLOAT32, nan_v), *alpha_e = REF(alpha);
  tl_ir_stmt *sel = tl_ir_store(m, f, 1, z, tl_ir_select(m, BIN(TL_BIN_NE, REF(alpha), REF(alpha)),
                                                          v == V_SELECT_SWAP ? alpha_e : nan_e,
                                                          v == V_SELECT_SWAP ? nan_e : alpha_e));
  /* T.reduce_sum(S, F, 1, 1) */
  tl_ir_expr *rargs[4] = {tl_ir_region(m, s, NULL, NULL, TL_REGION_FULL), tl_ir_region(m, f, NULL, NULL, TL_REGION_FULL),
                          I(v == V_REDUCE_DIM ? 0 : 1), I(1)};
  tl_ir_stmt *red = tl_ir_eval(m, tl_ir_call(m, TL_OP_REDUCE_SUM, TL_DT_HANDLE, 4, rargs));
  tl_ir_stmt *as = tl_ir_assert(m, BIN(TL_BIN_GE, REF(vm), I(0)), v == V_ASSERT_MSG ? "M < 0" : "M must be non-negative");
  tl_ir_stmt *body[10];
  uint32_t nb = 0;
  body[nb++] = tl_ir_alloc(m, v == V_ALLOC_ORDER ? f : s);
  body[nb++] = tl_ir_alloc(m, v == V_ALLOC_ORDER ? s : f);
  body[nb++] = copy;
  body[nb++] = par;
  body[nb++] = pipe;
  body[nb++] = sel;
  body[nb++] = red;
  body[nb++] = as;
  if (v == V_EXTRA_STMT) body[nb++] = tl_ir_barrier(m);
  tl_ir_var *bv[2] = {bx, by};
  tl_ir_stmt *kern = tl_ir_kernel(m, 2, grid, 1, threads, bv, tl_ir_seq(m, nb, body));
  if (!kern) return NULL;
  if (v == V_THREAD_TAG) bx->thread_tag = "blockIdx.x";
  tl_ir_func *fn;
  if (tl_ir_func_new(m, v == V_FUNC_NAME ? "fn2" : "fn", &fn) != TL_OK) return NULL;
  if (v == V_PARAM_ORDER) {
    if (tl_ir_func_add_buffer_param(m, fn, b, false) || tl_ir_func_add_buffer_param(m, fn, a, false)) return NULL;
  } else {
    if (tl_ir_func_add_buffer_param(m, fn, a, false) || tl_ir_func_add_buffer_param(m, fn, b, false)) return NULL;
  }
  if (tl_ir_func_add_scalar_param(m, fn, alpha) || tl_ir_func_add_buffer_param(m, fn, c, v == V_IS_OUTPUT)) return NULL;
  if (v == V_ATTR_ORDER) {
    if (tl_ir_func_set_attr_int(m, fn, "tl.opt", 2) || tl_ir_func_set_attr_str(m, fn, "target", "c")) return NULL;
  } else {
    if (tl_ir_func_set_attr_str(m, fn, "target", "c") ||
        tl_ir_func_set_attr_int(m, fn, "tl.opt", v == V_ATTR_VALUE ? 3 : 2))
      return NULL;
  }
  if (v == V_ATTR_EXTRA && tl_ir_func_set_attr_int(m, fn, "tl.extra", 0)) return NULL;
  if (v == V_CALLCONV) fn->callconv = TL_CALLCONV_DEVICE_KERNEL;
  fn->body = kern;
  return fn;
#undef I
#undef REF
#undef BIN
}

typedef struct built {
  tl_ir_module *m;
  tl_ir_func *f;
} built;

static built make(int v) {
  built b;
  if (tl_ir_module_create(&b.m) != TL_OK) fail_msg("module");
  b.f = build(b.m, v);
  if (!b.f) fail_msg("variant %d: %s", v, tl_last_error());
  return b;
}

static void test_base_is_valid_and_self_equal(void **state) {
  (void)state;
  built x = make(V_BASE), y = make(V_BASE);
  TL_ASSERT_OK(tl_ir_verify_module(x.m));
  assert_true(tl_ir_func_equal(x.f, x.f));
  assert_true(tl_ir_func_equal(x.f, y.f));
  assert_int_equal(tl_ir_func_hash(x.f), tl_ir_func_hash(y.f));
  assert_true(tl_ir_module_equal(x.m, y.m));
  assert_int_equal(tl_ir_module_hash(x.m), tl_ir_module_hash(y.m));
  tl_ir_module_free(x.m);
  tl_ir_module_free(y.m);
}

static void test_alpha_equivalent_variants(void **state) {
  (void)state;
  built base = make(V_BASE);
  for (int v = V_RENAME_LOCALS; v < V_NEQUAL_END; v++) {
    built x = make(v);
    if (!tl_ir_func_equal(base.f, x.f) || !tl_ir_func_equal(x.f, base.f)) fail_msg("variant %d should be equal", v);
    if (tl_ir_func_hash(base.f) != tl_ir_func_hash(x.f)) fail_msg("variant %d: equal but hashes differ", v);
    assert_true(tl_ir_module_equal(base.m, x.m));
    assert_int_equal(tl_ir_module_hash(base.m), tl_ir_module_hash(x.m));
    tl_ir_module_free(x.m);
  }
  tl_ir_module_free(base.m);
}

static void test_near_misses_differ(void **state) {
  (void)state;
  built base = make(V_BASE);
  for (int v = V_BASE + 1; v < V_NDIFF; v++) {
    built x = make(v);
    if (tl_ir_func_equal(base.f, x.f) || tl_ir_func_equal(x.f, base.f)) fail_msg("variant %d should differ", v);
    if (tl_ir_func_hash(base.f) == tl_ir_func_hash(x.f)) fail_msg("variant %d: hash did not change", v);
    assert_false(tl_ir_module_equal(base.m, x.m));
    assert_int_not_equal(tl_ir_module_hash(base.m), tl_ir_module_hash(x.m));
    tl_ir_module_free(x.m);
  }
  tl_ir_module_free(base.m);
}

/* Every pair of variants: equality is symmetric, and equal implies equal hash. */
static void test_all_pairs_consistent(void **state) {
  (void)state;
  enum { N = V_NDIFF + (V_NEQUAL_END - V_RENAME_LOCALS) };
  built all[N];
  int ids[N];
  int n = 0;
  for (int v = 0; v < V_NDIFF; v++) ids[n] = v, all[n++] = make(v);
  for (int v = V_RENAME_LOCALS; v < V_NEQUAL_END; v++) ids[n] = v, all[n++] = make(v);
  int equal_pairs = 0;
  for (int p = 0; p < n; p++) {
    for (int q = 0; q < n; q++) {
      bool e = tl_ir_func_equal(all[p].f, all[q].f);
      assert_int_equal(e, tl_ir_func_equal(all[q].f, all[p].f));
      if (e) {
        equal_pairs++;
        if (tl_ir_func_hash(all[p].f) != tl_ir_func_hash(all[q].f)) fail_msg("%d and %d equal, hashes differ", ids[p], ids[q]);
      }
      bool base_class_p = ids[p] == 0 || ids[p] >= V_RENAME_LOCALS, base_class_q = ids[q] == 0 || ids[q] >= V_RENAME_LOCALS;
      if (p != q && !(base_class_p && base_class_q) && e) fail_msg("%d and %d should differ", ids[p], ids[q]);
    }
  }
  int cls = 1 + (V_NEQUAL_END - V_RENAME_LOCALS);
  assert_int_equal(equal_pairs, cls * cls + (V_NDIFF - 1));
  for (int p = 0; p < n; p++) tl_ir_module_free(all[p].m);
}

/* Floats: bitwise, except that NaN equals NaN. */
static void test_float_constants(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  double values[] = {0.0, -0.0, 1.0, INFINITY, -INFINITY, NAN, 1e-300};
  for (size_t p = 0; p < 7; p++) {
    for (size_t q = 0; q < 7; q++) {
      char na[16], nb[16];
      snprintf(na, sizeof na, "f%zu_%zu", p, q);
      snprintf(nb, sizeof nb, "g%zu_%zu", p, q);
      tl_ir_func *fa, *fb;
      TL_ASSERT_OK(tl_ir_func_new(m, na, &fa));
      TL_ASSERT_OK(tl_ir_func_new(m, nb, &fb));
      fa->name = fb->name = "same";
      fa->body = tl_ir_eval(m, tl_ir_float(m, TL_DT_FLOAT32, values[p]));
      fb->body = tl_ir_eval(m, tl_ir_float(m, TL_DT_FLOAT32, values[q]));
      bool want = p == q;
      assert_int_equal(tl_ir_func_equal(fa, fb), want);
      if (want) assert_int_equal(tl_ir_func_hash(fa), tl_ir_func_hash(fb));
      else assert_int_not_equal(tl_ir_func_hash(fa), tl_ir_func_hash(fb));
    }
  }
  tl_ir_module_free(m);
}

/* Uses must resolve to the same definition: A[i] + A[j] differs from A[i] + A[i],
 * and which enclosing loop a variable comes from counts. */
static tl_ir_func *two_loops(tl_ir_module *m, const char *name, int which_a, int which_b, bool same_var_inner) {
  tl_ir_expr *sh[1] = {tl_ir_i32(m, 8)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_INT32, 1, sh, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *j = same_var_inner ? i : tl_ir_var_new(m, "j", TL_DT_INT32);
  tl_ir_var *vs[2] = {i, j};
  tl_ir_expr *ia[1] = {tl_ir_var_ref(m, vs[which_a])}, *ib[1] = {tl_ir_var_ref(m, vs[which_b])};
  tl_ir_expr *e[1] = {tl_ir_i32(m, 8)};
  tl_ir_stmt *st = tl_ir_store(m, a, 1, ia, tl_ir_load(m, a, 1, ib));
  tl_ir_stmt *inner = tl_ir_for(m, TL_FOR_SERIAL, 1, &j, NULL, e, st);
  tl_ir_func *f;
  if (tl_ir_func_new(m, name, &f) || tl_ir_func_add_buffer_param(m, f, a, false)) return NULL;
  f->name = "k";
  f->body = tl_ir_for(m, TL_FOR_SERIAL, 1, &i, NULL, e, inner);
  return f;
}

static void test_binding_structure(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *ij = two_loops(m, "a", 0, 1, false), *ij2 = two_loops(m, "b", 0, 1, false);
  tl_ir_func *ii = two_loops(m, "c", 0, 0, false), *ji = two_loops(m, "d", 1, 0, false);
  tl_ir_func *jj = two_loops(m, "e", 1, 1, false);
  assert_true(tl_ir_func_equal(ij, ij2));
  assert_false(tl_ir_func_equal(ij, ii));
  assert_false(tl_ir_func_equal(ij, ji));
  assert_false(tl_ir_func_equal(ii, jj));
  assert_int_not_equal(tl_ir_func_hash(ij), tl_ir_func_hash(ji));
  assert_int_not_equal(tl_ir_func_hash(ii), tl_ir_func_hash(jj));
  /* `for i: for i: A[i] = A[i]` (the inner loop shadows) equals `for i: for j: A[j] = A[j]`. */
  tl_ir_func *shadow = two_loops(m, "f", 0, 0, true);
  assert_true(tl_ir_func_equal(shadow, jj));
  assert_int_equal(tl_ir_func_hash(shadow), tl_ir_func_hash(jj));
  assert_false(tl_ir_func_equal(shadow, ii));
  tl_ir_module_free(m);
}

/* Variables and buffers defined nowhere are matched by name. */
static void test_free_names(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *f[3];
  const char *names[3] = {"q", "q", "r"};
  for (int k = 0; k < 3; k++) {
    char fname[8];
    snprintf(fname, sizeof fname, "f%d", k);
    TL_ASSERT_OK(tl_ir_func_new(m, fname, &f[k]));
    f[k]->name = "f";
    tl_ir_expr *sh[1] = {tl_ir_i32(m, 4)};
    tl_ir_buffer *g = tl_ir_buffer_new(m, names[k], TL_DT_INT32, 1, sh, NULL, TL_SCOPE_GLOBAL);
    tl_ir_expr *idx[1] = {tl_ir_var_ref(m, tl_ir_var_new(m, names[k], TL_DT_INT32))};
    f[k]->body = tl_ir_eval(m, tl_ir_load(m, g, 1, idx));
  }
  assert_true(tl_ir_func_equal(f[0], f[1]));
  assert_int_equal(tl_ir_func_hash(f[0]), tl_ir_func_hash(f[1]));
  assert_false(tl_ir_func_equal(f[0], f[2]));
  assert_int_not_equal(tl_ir_func_hash(f[0]), tl_ir_func_hash(f[2]));
  assert_true(tl_ir_func_equal(NULL, NULL));
  assert_false(tl_ir_func_equal(f[0], NULL));
  tl_ir_module_free(m);
}

static void test_modules(void **state) {
  (void)state;
  tl_ir_module *a, *b;
  TL_ASSERT_OK(tl_ir_module_create(&a));
  TL_ASSERT_OK(tl_ir_module_create(&b));
  assert_true(tl_ir_module_equal(a, b));
  assert_int_equal(tl_ir_module_hash(a), tl_ir_module_hash(b));
  assert_non_null(fx_vadd(a, "vadd"));
  assert_false(tl_ir_module_equal(a, b));
  assert_non_null(fx_vadd(b, "vadd"));
  assert_non_null(fx_matmul(a, "mm"));
  assert_non_null(fx_matmul(b, "mm"));
  assert_true(tl_ir_module_equal(a, b));
  assert_int_equal(tl_ir_module_hash(a), tl_ir_module_hash(b));
  /* Module attributes count, as a set. */
  TL_ASSERT_OK(tl_ir_module_set_attr_str(a, "x", "1"));
  TL_ASSERT_OK(tl_ir_module_set_attr_int(a, "y", 2));
  assert_false(tl_ir_module_equal(a, b));
  assert_int_not_equal(tl_ir_module_hash(a), tl_ir_module_hash(b));
  TL_ASSERT_OK(tl_ir_module_set_attr_int(b, "y", 2));
  TL_ASSERT_OK(tl_ir_module_set_attr_str(b, "x", "1"));
  assert_true(tl_ir_module_equal(a, b));
  assert_int_equal(tl_ir_module_hash(a), tl_ir_module_hash(b));
  TL_ASSERT_OK(tl_ir_module_set_attr_int(b, "x", 1)); /* int 1 is not string "1" */
  assert_false(tl_ir_module_equal(a, b));
  TL_ASSERT_OK(tl_ir_module_set_attr_str(b, "x", "1"));
  /* Function order counts. */
  tl_ir_module *c;
  TL_ASSERT_OK(tl_ir_module_create(&c));
  assert_non_null(fx_matmul(c, "mm"));
  assert_non_null(fx_vadd(c, "vadd"));
  TL_ASSERT_OK(tl_ir_module_set_attr_str(c, "x", "1"));
  TL_ASSERT_OK(tl_ir_module_set_attr_int(c, "y", 2));
  assert_false(tl_ir_module_equal(a, c));
  assert_int_not_equal(tl_ir_module_hash(a), tl_ir_module_hash(c));
  /* The lowered fixture (host entry + device kernel) compares too. */
  assert_non_null(fx_host_device(a, "h", "h_kernel"));
  assert_non_null(fx_host_device(b, "h", "h_kernel"));
  assert_true(tl_ir_module_equal(a, b));
  assert_int_equal(tl_ir_module_hash(a), tl_ir_module_hash(b));
  tl_ir_func *hk = tl_ir_module_find_func(b, "h_kernel");
  hk->body->u.loop.body->u.loop.thread_tag = "threadIdx.y";
  assert_false(tl_ir_module_equal(a, b));
  assert_int_not_equal(tl_ir_module_hash(a), tl_ir_module_hash(b));
  assert_true(tl_ir_module_equal(NULL, NULL));
  assert_false(tl_ir_module_equal(a, NULL));
  tl_ir_module_free(a);
  tl_ir_module_free(b);
  tl_ir_module_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_base_is_valid_and_self_equal), cmocka_unit_test(test_alpha_equivalent_variants),
      cmocka_unit_test(test_near_misses_differ),           cmocka_unit_test(test_all_pairs_consistent),
      cmocka_unit_test(test_float_constants),              cmocka_unit_test(test_binding_structure),
      cmocka_unit_test(test_free_names),                   cmocka_unit_test(test_modules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
