/* tl_compile from several threads at once: the same kernel (all of them miss, build
 * and publish; the first rename wins, the others use its entry) and different
 * kernels, each checked against the interpreter; then every thread hits memory. */
#include <pthread.h>

#include "base/alloc.h"
#include "base/error.h"
#include "e2e_util.h"

enum { NTHREADS = 4 };

typedef struct work {
  const char *root;
  const char *block; /* the kernel's block size: equal strings, equal kernels */
  tl_status status;
  char message[512];
  bool from_cache;
} work;

static const char k_src[] =
    "import tilelang.language as T\n"
    "\n"
    "def scale(block=128):\n"
    "    N = T.symbolic(\"N\")\n"
    "\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\")):\n"
    "        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:\n"
    "            for i in T.Parallel(block):\n"
    "                if bx * block + i < N:\n"
    "                    B[bx * block + i] = A[bx * block + i] * 3.0\n"
    "\n"
    "    return main\n";

static void *compile_one(void *arg) {
  work *w = arg;
  tl_ir_const_binding b = {"block", w->block};
  tl_ir_parse_options po = {sizeof po, &b, 1, NULL, false};
  tl_ir_module *m = NULL;
  tl_kernel *k = NULL;
  tl_compile_options o = e2e_options("native");
  o.cache_dir = w->root;
  w->status = tl_ir_parse(k_src, "scale.py", &po, &m);
  if (w->status == TL_OK) w->status = tl_compile(m, NULL, &o, &k);
  if (w->status == TL_OK) {
    w->from_cache = tl_kernel_from_cache(k);
    tlc_kernel_io *io = NULL, *ref = NULL;
    tlc_dim_binding d = {"N", "999"};
    w->status = tlc_kernel_io_create(m, tl_ir_module_func(m, 0), &d, 1, 0, 1, &io);
    if (w->status == TL_OK) {
      tlc_kernel_io_fill(io, 1);
      w->status = tlc_kernel_io_clone(io, &ref);
    }
    if (w->status == TL_OK) w->status = tl_kernel_call(k, io->args, 2, NULL);
    if (w->status == TL_OK) w->status = tl_ir_interpret(m, "scale", ref->args, 2);
    tlc_compare_result r;
    if (w->status == TL_OK) w->status = tlc_compare_tensors(&io->tensors[1], &ref->tensors[1], 1e-4, 1e-5, &r);
    if (w->status == TL_OK && r.mismatches) w->status = tl__error(TL_EINTERNAL, "%llu elements differ",
                                                                   (unsigned long long)r.mismatches);
    tlc_kernel_io_free(io);
    tlc_kernel_io_free(ref);
  }
  if (w->status != TL_OK) snprintf(w->message, sizeof w->message, "%s", tl_last_error());
  tl_kernel_release(k);
  tl_ir_module_free(m);
  return NULL;
}

static void run_threads(work *w) {
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) assert_int_equal(pthread_create(&t[i], NULL, compile_one, &w[i]), 0);
  for (int i = 0; i < NTHREADS; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
  for (int i = 0; i < NTHREADS; i++)
    if (w[i].status != TL_OK) fail_msg("thread %d: %s: %s", i, tl_status_name(w[i].status), w[i].message);
}

static void test_same_and_different(void **state) {
  (void)state;
  char *root = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-cache-", &root));
  work w[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) w[i] = (work){root, "128", TL_OK, "", false};
  run_threads(w);
  /* Then all hit (memory). */
  run_threads(w);
  for (int i = 0; i < NTHREADS; i++) assert_true(w[i].from_cache);
  /* Different kernels at once. */
  static const char *const blocks[NTHREADS] = {"16", "32", "64", "256"};
  for (int i = 0; i < NTHREADS; i++) w[i] = (work){root, blocks[i], TL_OK, "", false};
  run_threads(w);
  for (int i = 0; i < NTHREADS; i++) assert_false(w[i].from_cache);
  tl_kernel_cache_clear_memory();
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_and_different),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
