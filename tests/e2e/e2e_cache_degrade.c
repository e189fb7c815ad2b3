/* The kernel cache degrades instead of failing: a populated cache that cannot be
 * written still serves its entries and builds new kernels privately (saying so
 * once); a full disk (an injected ENOSPC, and where the test may mount one, a small
 * tmpfs filled up) builds privately; a FIFO as meta.json is refused as not a
 * regular file without blocking. Every kernel still computes the interpreter's
 * results. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/str.h"
#include "e2e_util.h"
#include "engine/cache_disk.h"
#include "engine/cache_fs.h"

static const char k_vadd[] =
    "import tilelang.language as T\n"
    "\n"
    "N = T.symbolic(\"N\")\n"
    "\n"
    "@T.prim_func\n"
    "def vadd(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\"), C: T.Tensor((N,), \"float32\")):\n"
    "    with T.Kernel(T.ceildiv(N, @B@), threads=@B@) as bx:\n"
    "        for i in T.Parallel(@B@):\n"
    "            if bx * @B@ + i < N:\n"
    "                C[bx * @B@ + i] = A[bx * @B@ + i] + B[bx * @B@ + i]\n";

/* vadd with block size `block` (each block size is another kernel, another key). */
static tl_ir_module *vadd(int block) {
  tl__sb sb = TL__SB_INIT;
  char b[16];
  snprintf(b, sizeof b, "%d", block);
  for (const char *p = k_vadd; *p;) {
    if (strncmp(p, "@B@", 3) == 0) tl__sb_append(&sb, b), p += 3;
    else tl__sb_putc(&sb, *p++);
  }
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(tl__sb_str(&sb), "vadd.py", NULL, &m));
  tl__sb_free(&sb);
  return m;
}

/* Compiles with the cache at root, checks the results; *from_cache and what the
 * library wrote to stderr meanwhile (tl__free it). */
static char *compile_check(const char *root, int block, bool *from_cache) {
  tl_ir_module *m = vadd(block);
  tl_compile_options o = e2e_options("native");
  o.cache_dir = root;
  char path[] = "/tmp/tl-e2e-degrade-err-XXXXXX";
  int efd = mkstemp(path);
  assert_true(efd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(efd, 2);
  alarm(120); /* a FIFO that blocks would hang here: fail instead */
  tl_kernel *k = NULL;
  tl_status s = tl_compile(m, NULL, &o, &k);
  alarm(0);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  if (s != TL_OK) fail_msg("tl_compile: %s", tl_last_error());
  tlc_dim_binding d = {"N", "1000"};
  e2e_run_and_compare(m, tl_ir_module_func(m, 0), k, &d, 1, 5);
  *from_cache = tl_kernel_from_cache(k);
  tl_kernel_release(k);
  tl_kernel_cache_clear_memory();
  tl_ir_module_free(m);
  char *err = NULL;
  TL_ASSERT_OK(tl__file_read(path, &err, NULL));
  close(efd);
  unlink(path);
  return err;
}

static void expect_in(const char *text, const char *what) {
  if (!strstr(text, what)) fail_msg("expected \"%s\" in:\n%s", what, text);
}

static int count_of(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p++) n++;
  return n;
}

static char *fresh_root(char **scratch) {
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-degrade-", scratch));
  return tl__format("%s/cache", *scratch);
}

/* A populated cache that cannot be written (injected EROFS on every write the cache
 * makes): the entry it has is used, a new kernel builds privately, said once. */
static void test_read_only_cache(void **state) {
  (void)state;
  char *scratch, *root = fresh_root(&scratch);
  bool hit;
  tl__free(compile_check(root, 128, &hit));
  assert_false(hit);
  tl__disk_test_rearm_warnings();
  tl__cfs_test_write_errno = EROFS;
  char *err = compile_check(root, 128, &hit);
  assert_true(hit); /* its entries are still used */
  tl__free(err);
  err = compile_check(root, 64, &hit);
  assert_false(hit);
  expect_in(err, "kernels it holds are used, new ones are built in private temporary directories");
  expect_in(err, "Read-only file system");
  tl__free(err);
  err = compile_check(root, 32, &hit);
  assert_int_equal(count_of(err, "warning"), 0); /* said once */
  tl__free(err);
  tl__cfs_test_write_errno = 0;
  /* Writable again: the new kernel is cached now. */
  tl__free(compile_check(root, 64, &hit));
  assert_false(hit);
  tl__free(compile_check(root, 64, &hit));
  assert_true(hit);
  TL_ASSERT_OK(tl__remove_tree(scratch));
  tl__free(root);
  tl__free(scratch);
}

/* A full disk, injected: ENOSPC writing the entry. */
static void test_full_disk_injected(void **state) {
  (void)state;
  char *scratch, *root = fresh_root(&scratch);
  bool hit;
  tl__disk_test_rearm_warnings();
  tl__cfs_test_write_errno = ENOSPC;
  char *err = compile_check(root, 128, &hit);
  tl__cfs_test_write_errno = 0;
  assert_false(hit);
  expect_in(err, "No space left on device");
  tl__free(err);
  TL_ASSERT_OK(tl__remove_tree(scratch));
  tl__free(root);
  tl__free(scratch);
}

/* A real full file system: a small tmpfs, filled up (where the test may mount). */
static void test_full_disk_tmpfs(void **state) {
  (void)state;
  char *scratch = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-degrade-", &scratch));
  if (mount("tmpfs", scratch, "tmpfs", 0, "size=256k,mode=0700") != 0) {
    print_message("skipping the tmpfs case: cannot mount (%s); the injected ENOSPC case covers it\n", strerror(errno));
    TL_ASSERT_OK(tl__remove_tree(scratch));
    tl__free(scratch);
    return;
  }
  char *root = tl__format("%s/cache", scratch), *fill = tl__format("%s/fill", scratch);
  bool hit;
  tl__free(compile_check(root, 128, &hit)); /* creates the namespace */
  int fd = open(fill, O_WRONLY | O_CREAT, 0600);
  char block[4096] = {0};
  while (write(fd, block, sizeof block) > 0) {
  }
  close(fd);
  tl__disk_test_rearm_warnings();
  char *err = compile_check(root, 64, &hit);
  assert_false(hit);
  expect_in(err, "new ones are built in private temporary directories");
  tl__free(err);
  assert_int_equal(umount(scratch), 0);
  TL_ASSERT_OK(tl__remove_tree(scratch));
  tl__free(fill);
  tl__free(root);
  tl__free(scratch);
}

/* A FIFO as meta.json: refused as not a regular file, and nothing blocks. */
static void test_fifo_meta(void **state) {
  (void)state;
  char *scratch, *root = fresh_root(&scratch);
  bool hit;
  tl__free(compile_check(root, 128, &hit));
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  char *cmd = tl__format("for e in '%s'/*; do rm \"$e/meta.json\" && mkfifo \"$e/meta.json\"; done", ns.kernels);
  assert_int_equal(system(cmd), 0);
  tl__disk_test_rearm_warnings();
  char *err = compile_check(root, 128, &hit);
  assert_false(hit);
  expect_in(err, "meta.json' is not a regular file");
  tl__free(err);
  tl__free(cmd);
  tl__disk_ns_free(&ns);
  TL_ASSERT_OK(tl__remove_tree(scratch));
  tl__free(root);
  tl__free(scratch);
}

int main(void) {
  if (!e2e_exec_available("native")) {
    printf("skipped: no C compiler\n");
    return 0;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_read_only_cache),
      cmocka_unit_test(test_full_disk_injected),
      cmocka_unit_test(test_full_disk_tmpfs),
      cmocka_unit_test(test_fifo_meta),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
