/* ctest-labels: threads */
/* SIMT execution's errors: barrier and warp-shuffle divergence reported (never a
 * hang) with exact, schedule-independent messages; a failing thread stops the
 * launch and the lowest failing thread index is reported; shuffle operands and
 * missing lanes; thread-bound loops in SIMT mode; block size and dynamic shared
 * memory limits; an OOM sweep of a small SIMT launch. Every error case runs a few
 * times: the message must not change with the scheduling. */
#include "simt_util.h"

enum { N = 128, B = 64 };

typedef struct fixture {
  tl_ir_module *m;
  tl_ir_var *bx, *tx;
  tl_ir_buffer *A, *Out; /* float32[N] each */
} fixture;

static fixture fixture_new(void) {
  fixture f;
  TL_ASSERT_OK(tl_ir_module_create(&f.m));
  tl_ir_module *m = f.m;
  f.bx = tagged(m, "bx", "blockIdx.x");
  f.tx = tagged(m, "tx", "threadIdx.x");
  f.A = buf1(m, "A", TL_DT_FLOAT32, I32(N), GLOBAL);
  f.Out = buf1(m, "Out", TL_DT_FLOAT32, I32(N), GLOBAL);
  return f;
}

/* A kernel over (A, Out) with `body`, launched by host entry "run" on grid x block. */
static void add_kernel(fixture *f, tl_ir_stmt *body, int64_t grid, int64_t block, int64_t dyn) {
  tl_ir_func *k = simt_kernel(f->m, "run_kernel", (tl_ir_buffer *[]){f->A, f->Out}, 2, body);
  simt_host(f->m, "run", k, (int64_t[]){grid, 1, 1}, (int64_t[]){block, 1, 1}, dyn);
}

static tl_status run(const fixture *f, float *a, float *out) {
  return simt_call(f->m, "run", (simt_arg[]){{TL_DT_FLOAT32, a, N}, {TL_DT_FLOAT32, out, N}}, 2);
}

/* Runs three times and expects exactly this error each time. */
static void expect_error(const fixture *f, tl_status status, const char *msg) {
  float a[N], out[N];
  for (int j = 0; j < N; j++) a[j] = (float)j;
  for (int rep = 0; rep < 3; rep++) {
    TL_ASSERT_ERR(run(f, a, out), status, "");
    TL_ASSERT_MSG(msg);
  }
}

#define LOC(file, line, col) tl_ir_builder_set_loc(m, (tl_ir_span){file, line, col})

/* ------------------------------------------------------------- barriers */

static void test_barrier_divergence_exit(void **state) {
  (void)state;
  fixture f = fixture_new();
  tl_ir_module *m = f.m;
  /* Block 0: everyone waits; block 1: threads 32.. return without waiting. */
  LOC("d.py", 3, 7);
  tl_ir_stmt *bar = BARRIER();
  add_kernel(&f,
             SEQ(IF(BIN(OR, EQ(VAR(f.bx), I32(0)), LT(VAR(f.tx), I32(32))), bar),
                 STORE(f.Out, F32(1), ADD(MUL(VAR(f.bx), I32(B)), VAR(f.tx)))),
             2, B, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  expect_error(&f, TL_ERUNTIME,
               "barrier divergence at d.py:3:7 in block (1, 0, 0): thread (0, 0, 0) waits there while thread "
               "(32, 0, 0) has finished");
  tl_ir_module_free(m);
}

static void test_barrier_divergence_two_sites(void **state) {
  (void)state;
  fixture f = fixture_new();
  tl_ir_module *m = f.m;
  LOC("d.py", 5, 9);
  tl_ir_stmt *b1 = BARRIER();
  LOC("d.py", 7, 9);
  tl_ir_stmt *b2 = BARRIER();
  add_kernel(&f, tl_ir_if(m, LT(VAR(f.tx), I32(32)), b1, b2), 1, B, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  expect_error(&f, TL_ERUNTIME,
               "barrier divergence at d.py:5:9 in block (0, 0, 0): thread (0, 0, 0) waits there while thread "
               "(32, 0, 0) waits at the barrier at d.py:7:9");
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------- shuffles */

/* V[0] = A[i]; `pre`; Out[i] = V[0] where pre is given. */
static tl_ir_stmt *with_local(fixture *f, tl_ir_buffer *V, tl_ir_stmt *pre) {
  tl_ir_module *m = f->m;
  tl_ir_expr *i = ADD(MUL(VAR(f->bx), I32(B)), VAR(f->tx));
  return SEQ(ALLOC(V), STORE(V, LOAD(f->A, i), I32(0)), pre, STORE(f->Out, LOAD(V, I32(0)), i));
}

static void test_shuffle_divergence_exit(void **state) {
  (void)state;
  fixture f = fixture_new();
  tl_ir_module *m = f.m;
  tl_ir_buffer *V = buf1(m, "V", TL_DT_FLOAT32, I32(1), LOCAL);
  LOC("s.py", 4, 11);
  tl_ir_expr *sh = SHFL(TL_DT_FLOAT32, LOAD(V, I32(0)), I32(1), I32(32));
  add_kernel(&f, with_local(&f, V, IF(LT(VAR(f.tx), I32(16)), STORE(V, sh, I32(0)))), 2, B, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  expect_error(&f, TL_ERUNTIME,
               "warp shuffle divergence at s.py:4:11 in block (0, 0, 0), warp 0: thread (0, 0, 0) waits there while "
               "thread (16, 0, 0) has finished");
  tl_ir_module_free(m);
}

static void test_shuffle_divergence_barrier(void **state) {
  (void)state;
  fixture f = fixture_new();
  tl_ir_module *m = f.m;
  tl_ir_buffer *V = buf1(m, "V", TL_DT_FLOAT32, I32(1), LOCAL);
  LOC("s.py", 4, 11);
  tl_ir_expr *sh = SHFL(TL_DT_FLOAT32, LOAD(V, I32(0)), I32(1), I32(32));
  LOC("s.py", 6, 3);
  tl_ir_stmt *bar = BARRIER();
  /* Warp 1 (threads 32..63) waits at the barrier as it should; warp 0 splits. */
  add_kernel(&f, with_local(&f, V, SEQ(IF(LT(VAR(f.tx), I32(16)), STORE(V, sh, I32(0))), bar)), 1, B, -1);
  expect_error(&f, TL_ERUNTIME,
               "warp shuffle divergence at s.py:4:11 in block (0, 0, 0), warp 0: thread (0, 0, 0) waits there while "
               "thread (16, 0, 0) waits at the barrier at s.py:6:3");
  tl_ir_module_free(m);
}

/* A block of 48 threads: its second warp has lanes 0..15 only. Within them a
 * shuffle works; reaching lane 16 is an error of the lowest lane that does. */
static void test_shuffle_partial_warp(void **state) {
  (void)state;
  for (int mask = 8; mask <= 16; mask += 8) {
    fixture f = fixture_new();
    tl_ir_module *m = f.m;
    tl_ir_buffer *V = buf1(m, "V", TL_DT_FLOAT32, I32(1), LOCAL);
    LOC("p.py", 2, 5);
    tl_ir_expr *sh = SHFL(TL_DT_FLOAT32, LOAD(V, I32(0)), I32(mask), I32(32));
    tl_ir_expr *i = VAR(f.tx);
    add_kernel(&f, SEQ(ALLOC(V), STORE(V, LOAD(f.A, i), I32(0)), STORE(f.Out, sh, i)), 1, 48, -1);
    if (mask == 16) {
      expect_error(&f, TL_ERUNTIME,
                   "p.py:2:5: T.warp_shfl_xor: lane 0 reads lane 16, which this warp does not have (the block's last "
                   "warp has 16 threads) (block (0, 0, 0), thread (32, 0, 0))");
    } else {
      float a[N], out[N];
      for (int j = 0; j < N; j++) a[j] = (float)j;
      TL_ASSERT_OK(run(&f, a, out));
      for (int j = 0; j < 48; j++) assert_true(out[j] == a[j ^ 8]);
    }
    tl_ir_module_free(m);
  }
}

static void test_shuffle_operands(void **state) {
  (void)state;
  const struct {
    int64_t mask, width;
    const char *msg;
  } cases[] = {
      {1, 3, "o.py:1:2: T.warp_shfl_xor: width 3 is not a power of two between 1 and the warp size 32 (block (0, 0, "
             "0), thread (0, 0, 0))"},
      {1, 64, "o.py:1:2: T.warp_shfl_xor: width 64 is not a power of two between 1 and the warp size 32 (block (0, "
              "0, 0), thread (0, 0, 0))"},
      {32, 32, "o.py:1:2: T.warp_shfl_xor: lane mask 32 is outside the warp of 32 lanes (block (0, 0, 0), thread (0, "
               "0, 0))"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    fixture f = fixture_new();
    tl_ir_module *m = f.m;
    LOC("o.py", 1, 2);
    tl_ir_expr *sh = SHFL(TL_DT_FLOAT32, LOAD(f.A, VAR(f.tx)), I32(cases[c].mask), I32(cases[c].width));
    add_kernel(&f, STORE(f.Out, sh, VAR(f.tx)), 1, B, -1);
    expect_error(&f, TL_ERUNTIME, cases[c].msg);
    tl_ir_module_free(m);
  }
}

/* ------------------------------------------------------------- failures */

/* Threads 37 and 50 of block 1 read out of bounds while the others wait at a
 * barrier: the launch stops, thread 37's error is reported. */
static void test_error_in_one_thread(void **state) {
  (void)state;
  fixture f = fixture_new();
  tl_ir_module *m = f.m;
  tl_ir_expr *i = ADD(MUL(VAR(f.bx), I32(B)), VAR(f.tx));
  tl_ir_expr *bad = AND(EQ(VAR(f.bx), I32(1)), BIN(OR, EQ(VAR(f.tx), I32(50)), EQ(VAR(f.tx), I32(37))));
  LOC("e.py", 8, 14);
  tl_ir_expr *oob = LOAD(f.A, ADD(VAR(f.tx), I32(1000)));
  LOC("e.py", 8, 5);
  tl_ir_stmt *poke = IF(bad, STORE(f.Out, oob, I32(0)));
  add_kernel(&f, SEQ(poke, BARRIER(), STORE(f.Out, F32(7), i)), 2, B, -1);
  float a[N], out[N];
  for (int rep = 0; rep < 3; rep++) {
    for (int j = 0; j < N; j++) out[j] = 0;
    TL_ASSERT_ERR(run(&f, a, out), TL_ERUNTIME, "");
    TL_ASSERT_MSG("e.py:8:14: buffer 'A' index [1037] out of bounds for shape [128] (block (1, 0, 0), thread (37, "
                  "0, 0))");
    for (int j = 0; j < B; j++) assert_true(out[j] == 7.0f); /* block 0 ran */
    for (int j = B; j < N; j++) assert_true(out[j] == 0.0f); /* block 1 stopped at its barrier */
  }
  tl_ir_module_free(m);
}

/* Thread 50 fails before the first barrier, thread 37 would fail after it: the
 * launch stops at the barrier, so thread 50's error is the one. */
static void test_first_failure_in_program_order(void **state) {
  (void)state;
  fixture f = fixture_new();
  tl_ir_module *m = f.m;
  LOC("e.py", 3, 1);
  tl_ir_stmt *first = IF(EQ(VAR(f.tx), I32(50)), STORE(f.Out, F32(0), I32(N + 50)));
  LOC("e.py", 5, 1);
  tl_ir_stmt *later = IF(EQ(VAR(f.tx), I32(37)), STORE(f.Out, F32(0), I32(N + 37)));
  add_kernel(&f, SEQ(first, BARRIER(), later), 1, B, -1);
  expect_error(&f, TL_ERUNTIME,
               "e.py:3:1: buffer 'Out' index [178] out of bounds for shape [128] (block (0, 0, 0), thread (50, 0, 0))");
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------- thread loops */

/* Thread-bound loops in SIMT mode bind the running thread's index: with 64
 * threads launched and loops of 32, threads 32.. skip them but still meet the
 * barrier. A loop longer than the launch is an error. */
static void test_thread_loops(void **state) {
  (void)state;
  for (int over = 0; over <= 1; over++) {
    fixture f = fixture_new();
    tl_ir_module *m = f.m;
    tl_ir_var *lx = tagged(m, "lx", "threadIdx.x"), *lx2 = tagged(m, "lx2", "threadIdx.x");
    tl_ir_buffer *S = buf1(m, "S", TL_DT_FLOAT32, I32(64), SHARED);
    LOC("l.py", 2, 1);
    tl_ir_stmt *fill = single_var_loop(m, TL_FOR_THREAD, lx, I32(over ? 128 : 32), STORE(S, LOAD(f.A, VAR(lx)), VAR(lx)));
    tl_ir_stmt *drain = single_var_loop(m, TL_FOR_THREAD, lx2, I32(32), STORE(f.Out, LOAD(S, SUB(I32(31), VAR(lx2))), VAR(lx2)));
    fill->u.loop.thread_tag = "threadIdx.x";
    drain->u.loop.thread_tag = "threadIdx.x";
    add_kernel(&f, SEQ(ALLOC(S), fill, BARRIER(), drain), 1, B, -1);
    TL_ASSERT_OK(tl_ir_verify_module(m));
    if (over) {
      expect_error(&f, TL_ERUNTIME,
                   "l.py:2:1: a loop bound to threadIdx.x runs 128 times but the launch has 64 along it (block (0, 0, "
                   "0), thread (0, 0, 0))");
    } else {
      float a[N], out[N];
      for (int j = 0; j < N; j++) {
        a[j] = (float)j;
        out[j] = -1;
      }
      TL_ASSERT_OK(run(&f, a, out));
      for (int j = 0; j < N; j++) assert_true(out[j] == (j < 32 ? (float)(31 - j) : -1.0f));
    }
    tl_ir_module_free(m);
  }
}

/* ------------------------------------------------------------- limits */

static void test_block_size_limit(void **state) {
  (void)state;
  fixture f = fixture_new();
  tl_ir_module *m = f.m;
  LOC("h.py", 1, 1);
  tl_ir_func *k = simt_kernel(m, "run_kernel", (tl_ir_buffer *[]){f.A, f.Out}, 2, SEQ(BARRIER()));
  simt_host(m, "run", k, (int64_t[]){1, 1, 1}, (int64_t[]){64, 32, 1}, -1);
  expect_error(&f, TL_EUNSUPPORTED, "h.py:1:1: SIMT execution runs at most 1024 threads per block; this block is 64 x 32 x 1");
  tl_ir_module_free(m);
}

/* A shared.dyn buffer of 64 floats needs 256 bytes of the launch's dynamic shared memory. */
static void test_dynamic_shared_memory(void **state) {
  (void)state;
  for (int64_t dyn = 128; dyn <= 256; dyn += 128) {
    fixture f = fixture_new();
    tl_ir_module *m = f.m;
    tl_ir_buffer *D = buf1(m, "D", TL_DT_FLOAT32, I32(B), TL_SCOPE_SHARED_DYN);
    LOC("y.py", 4, 2);
    tl_ir_stmt *alloc = ALLOC(D);
    tl_ir_expr *i = ADD(MUL(VAR(f.bx), I32(B)), VAR(f.tx));
    add_kernel(&f,
               SEQ(alloc, STORE(D, LOAD(f.A, i), VAR(f.tx)), BARRIER(),
                   STORE(f.Out, LOAD(D, SUB(I32(B - 1), VAR(f.tx))), i)),
               2, B, dyn);
    TL_ASSERT_OK(tl_ir_verify_module(m));
    if (dyn < 256) {
      expect_error(&f, TL_ERUNTIME,
                   "y.py:4:2: dynamic shared buffer 'D' needs 256 bytes of dynamic shared memory (with the ones "
                   "before it) but the launch gives 128 (block (0, 0, 0), thread (0, 0, 0))");
    } else {
      float a[N], out[N];
      for (int j = 0; j < N; j++) a[j] = (float)j;
      TL_ASSERT_OK(run(&f, a, out));
      for (int j = 0; j < N; j++) assert_true(out[j] == a[j / B * B + B - 1 - j % B]);
    }
    tl_ir_module_free(m);
  }
}

/* ------------------------------------------------------------- OOM sweep */

typedef struct oom_ctx {
  fixture f;
  float a[N], out[N];
} oom_ctx;

static tl_status oom_op(void *p) {
  oom_ctx *c = p;
  return run(&c->f, c->a, c->out);
}

/* A tree reduction of 16-thread blocks over two blocks, with a shared buffer, a
 * local one and barriers: every allocation of the launch fails cleanly. */
static void test_oom_sweep(void **state) {
  (void)state;
  static oom_ctx c;
  c.f = fixture_new();
  tl_ir_module *m = c.f.m;
  enum { R = 16 };
  tl_ir_var *k = tl_ir_var_new(m, "k", TL_DT_INT32);
  tl_ir_buffer *S = buf1(m, "S", TL_DT_FLOAT32, I32(R), SHARED), *V = buf1(m, "V", TL_DT_FLOAT32, I32(1), LOCAL);
  tl_ir_expr *s = BIN(SHR, I32(R / 2), VAR(k)), *tx = VAR(c.f.tx);
  tl_ir_stmt *body =
      SEQ(ALLOC(S), ALLOC(V), STORE(V, LOAD(c.f.A, ADD(MUL(VAR(c.f.bx), I32(R)), tx)), I32(0)),
          STORE(S, LOAD(V, I32(0)), tx), BARRIER(),
          single_var_loop(m, TL_FOR_SERIAL, k, I32(4),
                SEQ(IF(LT(tx, s), STORE(S, ADD(LOAD(S, tx), LOAD(S, ADD(tx, s))), tx)), BARRIER())),
          IF(EQ(tx, I32(0)), STORE(c.f.Out, LOAD(S, I32(0)), VAR(c.f.bx))));
  add_kernel(&c.f, body, 2, R, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  for (int j = 0; j < N; j++) c.a[j] = (float)j;
  long sites = tl_oom_sweep(oom_op, NULL, &c);
  assert_true(sites > 2 * R); /* at least the frames of every thread */
  assert_true(c.out[0] == 120.0f && c.out[1] == 376.0f);
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_barrier_divergence_exit),
      cmocka_unit_test(test_barrier_divergence_two_sites),
      cmocka_unit_test(test_shuffle_divergence_exit),
      cmocka_unit_test(test_shuffle_divergence_barrier),
      cmocka_unit_test(test_shuffle_partial_warp),
      cmocka_unit_test(test_shuffle_operands),
      cmocka_unit_test(test_error_in_one_thread),
      cmocka_unit_test(test_first_failure_in_program_order),
      cmocka_unit_test(test_thread_loops),
      cmocka_unit_test(test_block_size_limit),
      cmocka_unit_test(test_dynamic_shared_memory),
      cmocka_unit_test(test_oom_sweep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
