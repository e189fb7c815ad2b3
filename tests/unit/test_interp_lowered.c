/* Lowered IR built by hand: a host entry that checks an assertion and launches
 * device kernels whose blockIdx/threadIdx variables the launch binds, a kernel
 * with its own thread loop, lets, a kernel with a barrier (SIMT execution; the
 * SIMT tests are test_interp_simt*.c), and the refusals: thread-bound code that
 * synchronises outside a kernel, warp shuffles without threads, device kernels
 * called directly. */
#include <stdlib.h>

#include "interp_util.h"

#define GLOBAL TL_SCOPE_GLOBAL

typedef struct lowered {
  tl_ir_module *m;
} lowered;

static tl_ir_var *tagged(tl_ir_module *m, const char *name, const char *tag) {
  tl_ir_var *v = tl_ir_var_new(m, name, TL_DT_INT32);
  if (v) v->thread_tag = tag;
  return v;
}

/* A device kernel `name(C: float32[kn], kn: int32)` with the given body builder. */
static tl_ir_func *device_kernel(tl_ir_module *m, const char *name, tl_ir_buffer *const *bufs, uint32_t nbufs,
                                 tl_ir_var *kn, tl_ir_stmt *body) {
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, name, &f));
  for (uint32_t i = 0; i < nbufs; i++) TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, bufs[i], false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, kn));
  f->callconv = TL_CALLCONV_DEVICE_KERNEL;
  assert_non_null(body);
  f->body = body;
  return f;
}

/* A host entry over C-like buffers of length n launching `kernel` on
 * ceildiv(n, 64) blocks of 64 threads with the buffers' data and n. */
static tl_ir_func *host_entry(tl_ir_module *m, const char *name, const char *kernel, tl_ir_buffer *const *bufs,
                              uint32_t nbufs, tl_ir_var *n) {
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, name, &f));
  tl_ir_expr *args[4];
  for (uint32_t i = 0; i < nbufs; i++) {
    TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, bufs[i], false));
    args[i] = VAR(bufs[i]->data);
  }
  args[nbufs] = VAR(n);
  f->callconv = TL_CALLCONV_PACKED;
  tl_ir_expr *grid[3] = {CALL(TL_OP_CEILDIV, TL_DT_INT32, VAR(n), I32(64)), I32(1), I32(1)};
  tl_ir_expr *block[3] = {I32(64), I32(1), I32(1)};
  f->body = SEQ(tl_ir_assert(m, BIN(GT, VAR(n), I32(0)), "n must be positive"),
                tl_ir_launch(m, kernel, nbufs + 1, args, grid, block, NULL));
  assert_non_null(f->body);
  return f;
}

/* for v in T.thread_binding(extent, tag): body */
static tl_ir_stmt *thread_loop(tl_ir_module *m, tl_ir_var *v, tl_ir_expr *extent, tl_ir_stmt *body) {
  tl_ir_stmt *s = single_var_loop(m, TL_FOR_THREAD, v, extent, body);
  assert_non_null(s);
  s->u.loop.thread_tag = v->thread_tag;
  return s;
}

/* vadd_kernel(A, B, C, n): i = bx * 64 + tx; if i < n: C[i] = A[i] + B[i]. With
 * loops, the block and thread indices are bound by thread loops (the lowered
 * form); without, they are free variables the launch binds. */
static void add_vadd_kernel(tl_ir_module *m, bool loops) {
  tl_ir_var *kn = tl_ir_var_new(m, "n", TL_DT_INT32), *bx = tagged(m, "bx", "blockIdx.x"),
            *tx = tagged(m, "tx", "threadIdx.x"), *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, VAR(kn), GLOBAL), *B = buf1(m, "B", TL_DT_FLOAT32, VAR(kn), GLOBAL),
               *C = buf1(m, "C", TL_DT_FLOAT32, VAR(kn), GLOBAL);
  tl_ir_stmt *body = tl_ir_let(m, i, ADD(MUL(VAR(bx), I32(64)), VAR(tx)),
                               tl_ir_if(m, LT(VAR(i), VAR(kn)),
                                        STORE(C, ADD(LOAD(A, VAR(i)), LOAD(B, VAR(i))), VAR(i)), NULL));
  if (loops)
    body = thread_loop(m, bx, CALL(TL_OP_CEILDIV, TL_DT_INT32, VAR(kn), I32(64)), thread_loop(m, tx, I32(64), body));
  device_kernel(m, "vadd_kernel", (tl_ir_buffer *[]){A, B, C}, 3, kn, body);
}

static void add_host_entries(tl_ir_module *m) {
  tl_ir_var *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, VAR(n), GLOBAL), *B = buf1(m, "B", TL_DT_FLOAT32, VAR(n), GLOBAL),
               *C = buf1(m, "C", TL_DT_FLOAT32, VAR(n), GLOBAL);
  host_entry(m, "vadd", "vadd_kernel", (tl_ir_buffer *[]){A, B, C}, 3, n);
  if (tl_ir_module_find_func(m, "inc_kernel")) host_entry(m, "inc", "inc_kernel", (tl_ir_buffer *[]){C}, 1, n);
}

static int setup(void **state) {
  lowered *l = calloc(1, sizeof *l);
  if (!l || tl_ir_module_create(&l->m) != TL_OK) return -1;
  tl_ir_module *m = l->m;
  add_vadd_kernel(m, true);
  /* inc_kernel(C, n): C[i] += 1, exactly once per element */
  {
    tl_ir_var *kn = tl_ir_var_new(m, "n", TL_DT_INT32), *bx = tagged(m, "bx", "blockIdx.x"),
              *tx = tagged(m, "tx", "threadIdx.x"), *i = tl_ir_var_new(m, "i", TL_DT_INT32);
    tl_ir_buffer *C = buf1(m, "C", TL_DT_FLOAT32, VAR(kn), GLOBAL);
    tl_ir_stmt *body = tl_ir_let(m, i, ADD(MUL(VAR(bx), I32(64)), VAR(tx)),
                                 tl_ir_if(m, LT(VAR(i), VAR(kn)), STORE(C, ADD(LOAD(C, VAR(i)), F32(1)), VAR(i)), NULL));
    body = thread_loop(m, bx, CALL(TL_OP_CEILDIV, TL_DT_INT32, VAR(kn), I32(64)), thread_loop(m, tx, I32(64), body));
    device_kernel(m, "inc_kernel", (tl_ir_buffer *[]){C}, 1, kn, body);
  }
  /* bar_kernel(C, n): C[tx] = 1; __syncthreads() */
  {
    tl_ir_var *kn = tl_ir_var_new(m, "n", TL_DT_INT32), *tx = tagged(m, "tx", "threadIdx.x");
    tl_ir_buffer *C = buf1(m, "C", TL_DT_FLOAT32, VAR(kn), GLOBAL);
    device_kernel(m, "bar_kernel", (tl_ir_buffer *[]){C}, 1, kn,
                  thread_loop(m, tx, I32(64), SEQ(STORE(C, F32(1), VAR(tx)), tl_ir_barrier(m))));
  }
  add_host_entries(m);
  tl_ir_var *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_buffer *C = buf1(m, "C", TL_DT_FLOAT32, VAR(n), GLOBAL);
  host_entry(m, "bar", "bar_kernel", (tl_ir_buffer *[]){C}, 1, n);
  *state = l;
  return 0;
}

static int teardown(void **state) {
  lowered *l = *state;
  tl_ir_module_free(l->m);
  free(l);
  return 0;
}

enum { LN = 150 }; /* three blocks of 64, the last one partial */

static void test_launch(void **state) {
  lowered *l = *state;
  float a[LN], b[LN], c[LN + 4];
  uint64_t rng = 5;
  for (int k = 0; k < LN; k++) {
    a[k] = (float)test_uniform(&rng);
    b[k] = (float)test_uniform(&rng);
  }
  for (int k = 0; k < LN + 4; k++) c[k] = -3.0f;
  host_tensor ha, hb, hc;
  tl_value args[] = {ht_wrap(&ha, TL_DT_FLOAT32, a, 1, LN, 0), ht_wrap(&hb, TL_DT_FLOAT32, b, 1, LN, 0),
                     ht_wrap(&hc, TL_DT_FLOAT32, c, 1, LN, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(l->m));
  TL_ASSERT_OK(tl_ir_interpret(l->m, "vadd", args, 3));
  for (int k = 0; k < LN; k++) assert_true(c[k] == a[k] + b[k]);
  for (int k = LN; k < LN + 4; k++) assert_true(c[k] == -3.0f);
  /* The kernel's own thread loop is not run once more per launched thread. */
  TL_ASSERT_OK(tl_ir_interpret(l->m, "inc", &args[2], 1));
  for (int k = 0; k < LN; k++) assert_true(c[k] == a[k] + b[k] + 1.0f);
  /* The host's assertion: its message, as TL_EINVAL. */
  hc.shape[0] = 0;
  TL_ASSERT_ERR(tl_ir_interpret(l->m, "inc", &args[2], 1), TL_EINVAL, "");
  TL_ASSERT_MSG("n must be positive");
}

static void test_barrier_kernel_and_refusals(void **state) {
  lowered *l = *state;
  float c[LN];
  for (int k = 0; k < LN; k++) c[k] = -1.0f;
  host_tensor hc;
  tl_value arg = ht_wrap(&hc, TL_DT_FLOAT32, c, 1, LN, 0);
  /* The barrier makes it a SIMT launch: 3 blocks of 64 threads, each storing C[tx]. */
  TL_ASSERT_OK(tl_ir_interpret(l->m, "bar", &arg, 1));
  for (int k = 0; k < LN; k++) assert_true(c[k] == (k < 64 ? 1.0f : -1.0f));
  tl_value kargs[] = {arg, tl_value_int(LN)};
  TL_ASSERT_ERR(tl_ir_interpret(l->m, "inc_kernel", kargs, 2), TL_EINVAL,
                "function 'inc_kernel' is a device kernel: interpret the host function that launches it");
}

/* A kernel whose block and thread indices are free variables: the launch binds
 * them, block by block and thread by thread. A launch of a function the module
 * lacks is reported. */
static void test_launch_binds_free_indices(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  add_vadd_kernel(m, false);
  add_host_entries(m);
  tl_ir_var *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_buffer *C = buf1(m, "C", TL_DT_FLOAT32, VAR(n), GLOBAL);
  host_entry(m, "missing", "no_such_kernel", (tl_ir_buffer *[]){C}, 1, n);
  float a[LN], b[LN], c[LN];
  for (int k = 0; k < LN; k++) {
    a[k] = (float)k;
    b[k] = 0.5f;
    c[k] = 0;
  }
  host_tensor ha, hb, hc;
  tl_value args[] = {ht_wrap(&ha, TL_DT_FLOAT32, a, 1, LN, 0), ht_wrap(&hb, TL_DT_FLOAT32, b, 1, LN, 0),
                     ht_wrap(&hc, TL_DT_FLOAT32, c, 1, LN, 0)};
  TL_ASSERT_OK(tl_ir_interpret(m, "vadd", args, 3));
  for (int k = 0; k < LN; k++) assert_true(c[k] == (float)k + 0.5f);
  TL_ASSERT_ERR(tl_ir_interpret(m, "missing", &args[2], 1), TL_ENOTFOUND, "launch of unknown kernel 'no_such_kernel'");
  /* Only a buffer's data passes a buffer: a handle the program computes does not. */
  tl_ir_func *forged;
  TL_ASSERT_OK(tl_ir_func_new(m, "forged", &forged));
  tl_ir_expr *grid[3] = {I32(1), I32(1), I32(1)}, *block[3] = {I32(1), I32(1), I32(1)};
  tl_ir_expr *h = tl_ir_int(m, TL_DT_HANDLE, 64);
  forged->callconv = TL_CALLCONV_PACKED;
  forged->body = tl_ir_launch(m, "vadd_kernel", 4, EXPRS(h, h, h, I32(1)), grid, block, NULL);
  TL_ASSERT_ERR(tl_ir_interpret(m, "forged", NULL, 0), TL_EINVAL,
                "launch of 'vadd_kernel': argument 'A' must be the data of a buffer");
  tl_ir_module_free(m);
}

/* At tile level a barrier is a no-op (the body is the whole block); once the
 * kernel binds thread indices it runs in SIMT mode. Thread-bound code that
 * synchronises outside any kernel is refused before anything runs; a warp shuffle
 * without threads is an error where it is evaluated. */
static void test_tile_level_barrier_and_shuffle(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *tx = tagged(m, "tx", "threadIdx.x");
  tl_ir_buffer *O = buf1(m, "O", TL_DT_INT32, I32(2), GLOBAL);
  make_func(m, "tile", (tl_ir_buffer *[]){O}, 1,
            kernel2(m, I32(2), NULL, bx, NULL, SEQ(tl_ir_barrier(m), STORE(O, ADD(VAR(bx), I32(5)), VAR(bx)))));
  tl_ir_stmt *k = kernel2(m, I32(2), NULL, bx, NULL,
                          SEQ(tl_ir_if(m, BIN(EQ, VAR(tx), I32(0)), STORE(O, ADD(VAR(bx), I32(7)), VAR(bx)), NULL),
                              tl_ir_barrier(m)));
  assert_non_null(k);
  k->u.kernel.thread_vars[0] = tx;
  make_func(m, "threads", (tl_ir_buffer *[]){O}, 1, k);
  /* Without a barrier, thread indices run in order: the last thread's store stays. */
  tl_ir_stmt *k2 = kernel2(m, I32(1), NULL, bx, NULL, STORE(O, VAR(tx), I32(1)));
  k2->u.kernel.thread_vars[0] = tx;
  make_func(m, "threads_ok", (tl_ir_buffer *[]){O}, 1, k2);
  tl_ir_builder_set_loc(m, (tl_ir_span){"w.py", 2, 3});
  make_func(m, "shfl", (tl_ir_buffer *[]){O}, 1,
            STORE(O, CALL(TL_OP_WARP_SHFL_XOR, TL_DT_INT32, I32(1), I32(1), I32(32)), I32(0)));
  tl_ir_builder_set_loc(m, (tl_ir_span){"w.py", 4, 1});
  tl_ir_var *ty = tagged(m, "ty", "threadIdx.y");
  tl_ir_stmt *loose = single_var_loop(m, TL_FOR_THREAD, ty, I32(4), SEQ(STORE(O, VAR(ty), I32(0)), tl_ir_barrier(m)));
  make_func(m, "loose", (tl_ir_buffer *[]){O}, 1, loose);
  int32_t o[2] = {0, 0};
  host_tensor h;
  tl_value arg = ht_wrap(&h, TL_DT_INT32, o, 1, 2, 0);
  TL_ASSERT_OK(tl_ir_interpret(m, "tile", &arg, 1));
  assert_int_equal(o[0], 5);
  assert_int_equal(o[1], 6);
  TL_ASSERT_OK(tl_ir_interpret(m, "threads", &arg, 1));
  assert_int_equal(o[0], 7);
  assert_int_equal(o[1], 8);
  TL_ASSERT_OK(tl_ir_interpret(m, "threads_ok", &arg, 1));
  assert_int_equal(o[1], 127);
  TL_ASSERT_ERR(tl_ir_interpret(m, "shfl", &arg, 1), TL_EUNSUPPORTED,
                "w.py:2:3: T.warp_shfl_xor outside SIMT execution: lanes exchange values only in device code that "
                "binds thread indices");
  TL_ASSERT_ERR(tl_ir_interpret(m, "loose", &arg, 1), TL_EUNSUPPORTED,
                "function 'loose': thread-bound code that synchronises must be inside T.Kernel or a launched device "
                "kernel");
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_launch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_kernel_and_refusals, setup, teardown),
      cmocka_unit_test(test_launch_binds_free_indices),
      cmocka_unit_test(test_tile_level_barrier_and_shuffle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
