/* The kernel cache cannot be raced into loading other code: a hook of the test
 * build (tl__disk_test_before_load) runs after an entry was verified and before it
 * is loaded, and there swaps what the paths name (the entry, or the whole cache
 * root) for a tree whose kernel.so runs a constructor and whose kernel.c computes
 * something else. The kernel loaded must be the verified one (its results match the
 * interpreter) and the constructor must never run; through native (dlopen of the
 * verified descriptor, and the copy taken when /proc is not used) and tcc (the
 * verified kernel.c read through its descriptor). */
#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/dl_fd.h"
#include "base/str.h"
#include "e2e_util.h"
#include "engine/cache_disk.h"

static const char k_vadd[] =
    "import tilelang.language as T\n"
    "\n"
    "N = T.symbolic(\"N\")\n"
    "\n"
    "@T.prim_func\n"
    "def vadd(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\"), C: T.Tensor((N,), \"float32\")):\n"
    "    with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:\n"
    "        for i in T.Parallel(128):\n"
    "            if bx * 128 + i < N:\n"
    "                C[bx * 128 + i] = A[bx * 128 + i] + B[bx * 128 + i]\n";

static char *g_root;      /* the cache root the kernel was compiled into */
static char *g_evil_so;   /* a library whose constructor sets TL_EVIL_RAN */
static bool g_swap_root;  /* the hook swaps the whole root (else the entry) */
static int g_swaps;

static char *g_evil_c;    /* its source: also the attacker's kernel.c */

static void run(char *cmd) {
  assert_non_null(cmd);
  if (system(cmd) != 0) fail_msg("command failed: %s", cmd);
  tl__free(cmd);
}

/* A copy of `tree` at `copy` with every kernel.so and kernel.c the attacker's. */
static void poisoned_copy(const char *tree, const char *copy) {
  run(tl__format("rm -rf '%s' && cp -a '%s' '%s'", copy, tree, copy));
  run(tl__format("find '%s' -name kernel.so -exec cp -f '%s' {} \\;", copy, g_evil_so));
  run(tl__format("find '%s' -name kernel.c -exec cp -f '%s' {} \\;", copy, g_evil_c));
}

/* The hook: the path of the verified entry (or the whole root) is made to name the
 * poisoned copy; the original is moved aside. */
static void swap_tree(const char *entry_path) {
  g_swaps++;
  const char *target = g_swap_root ? g_root : entry_path;
  char *evil = tl__format("%s.evil", target), *orig = tl__format("%s.orig", target);
  poisoned_copy(target, evil);
  assert_int_equal(rename(target, orig), 0);
  assert_int_equal(rename(evil, target), 0);
  tl__free(evil);
  tl__free(orig);
}

/* The attacker's code: a constructor and a host entry `vadd` that both set
 * TL_EVIL_RAN (the entry computes nothing). */
static void build_evil(const char *dir) {
  g_evil_c = tl__format("%s/evil.c", dir);
  g_evil_so = tl__format("%s/evil.so", dir);
  FILE *f = fopen(g_evil_c, "w");
  assert_non_null(f);
  fputs("extern int setenv(const char *, const char *, int);\n"
        "__attribute__((constructor)) static void evil(void) { setenv(\"TL_EVIL_RAN\", \"1\", 1); }\n"
        "int vadd(const void *args, int nargs, void *stream, char *err, unsigned long cap) {\n"
        "  (void)args; (void)nargs; (void)stream; (void)err; (void)cap;\n"
        "  setenv(\"TL_EVIL_RAN\", \"1\", 1);\n  return 0;\n}\n",
        f);
  fclose(f);
  const char *cc = getenv("CC");
  run(tl__format("%s -shared -fPIC -o '%s' '%s'", cc && *cc ? cc : "cc", g_evil_so, g_evil_c));
}

static void evil_done(void) {
  tl__free(g_evil_so);
  tl__free(g_evil_c);
  g_evil_so = g_evil_c = NULL;
}

/* Compiles vadd into the cache at g_root (a miss), then loads it again from disk
 * (a hit) with the hook swapping trees between the check and the load. */
static void race_once(const char *exec, bool swap_root, bool no_proc) {
  if (!e2e_exec_available(exec)) {
    print_message("skipping %s: not available here\n", exec);
    return;
  }
  char *scratch = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-race-", &scratch));
  g_root = tl__format("%s/cache", scratch);
  build_evil(scratch);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(k_vadd, "vadd.py", NULL, &m));
  tl_compile_options o = e2e_options(exec);
  o.cache_dir = g_root;
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  assert_false(tl_kernel_from_cache(k));
  tl_kernel_release(k);
  tl_kernel_cache_clear_memory();

  unsetenv("TL_EVIL_RAN");
  g_swap_root = swap_root;
  g_swaps = 0;
  tl__dl_test_no_proc = no_proc;
  tl__disk_test_before_load = swap_tree;
  tl_status s = tl_compile(m, NULL, &o, &k);
  tl__disk_test_before_load = NULL;
  tl__dl_test_no_proc = false;
  if (s != TL_OK) fail_msg("tl_compile: %s", tl_last_error());
  assert_int_equal(g_swaps, 1);
  assert_true(tl_kernel_from_cache(k)); /* the verified entry, loaded */
  assert_null(getenv("TL_EVIL_RAN"));  /* the attacker's constructor never ran */
  tlc_dim_binding d = {"N", "1000"};
  e2e_run_and_compare(m, tl_ir_module_func(m, 0), k, &d, 1, 7); /* A + B, not 0 * A + B */
  assert_null(getenv("TL_EVIL_RAN"));
  tl_kernel_release(k);
  tl_kernel_cache_clear_memory();
  tl_ir_module_free(m);
  TL_ASSERT_OK(tl__remove_tree(scratch));
  tl__free(scratch);
  tl__free(g_root);
  evil_done();
}

/* The attacker's library does run when loaded plainly: the test can fail. */
static void test_evil_library_is_evil(void **state) {
  (void)state;
  char *scratch = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-race-", &scratch));
  build_evil(scratch);
  unsetenv("TL_EVIL_RAN");
  void *h = dlopen(g_evil_so, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(h);
  assert_non_null(getenv("TL_EVIL_RAN"));
  unsetenv("TL_EVIL_RAN");
  dlclose(h);
  TL_ASSERT_OK(tl__remove_tree(scratch));
  tl__free(scratch);
  evil_done();
}

static void test_swap_entry_native(void **state) {
  (void)state;
  race_once("native", false, false);
}
static void test_swap_root_native(void **state) {
  (void)state;
  race_once("native", true, false);
}
static void test_swap_entry_native_copy(void **state) {
  (void)state;
  race_once("native", false, true);
}
static void test_swap_root_tcc(void **state) {
  (void)state;
  race_once("tcc", true, false);
}
static void test_swap_entry_tcc(void **state) {
  (void)state;
  race_once("tcc", false, false);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_evil_library_is_evil),   cmocka_unit_test(test_swap_entry_native),
      cmocka_unit_test(test_swap_root_native),       cmocka_unit_test(test_swap_entry_native_copy),
      cmocka_unit_test(test_swap_root_tcc),          cmocka_unit_test(test_swap_entry_tcc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
