/* Trusted paths (base/trust.h) and loading from descriptors (base/dl_fd.h): the
 * ancestor, link and last-component rules, a FIFO refused without blocking, loading
 * through /proc/self/fd when a resident library already has that name, the private
 * copy taken without /proc. Cases that need another user run when the test runs as
 * root (chown), and say so when skipped. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/dl_fd.h"
#include "base/error.h"
#include "base/str.h"
#include "base/trust.h"
#include "base/files.h"
#include "tl_test.h"

static char *scratch(void) {
  char *dir = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-test-trust-", &dir));
  return dir;
}

static char *sub(const char *dir, const char *name) {
  char *p = tl__path_join(dir, name);
  assert_non_null(p);
  return p;
}

static void expect_refused(const char *path, bool dir, tl__trust_rule rule, const char *why) {
  int fd = -1;
  TL_ASSERT_ERR(tl__trust_open(path, dir, rule, &fd), TL_EUNAVAILABLE, why);
  assert_int_equal(fd, -1);
}

static void expect_ok(const char *path, bool dir, tl__trust_rule rule) {
  int fd = -1;
  TL_ASSERT_OK(tl__trust_open(path, dir, rule, &fd));
  assert_true(fd >= 0);
  close(fd);
}

static void test_ancestors(void **state) {
  (void)state;
  char *root = scratch(); /* under /tmp: sticky, which is allowed */
  char *shared = sub(root, "shared"), *cache = sub(shared, "cache");
  assert_int_equal(mkdir(shared, 0700), 0);
  assert_int_equal(mkdir(cache, 0700), 0);
  expect_ok(cache, true, TL__TRUST_PRIVATE);
  /* A group scratch directory without the sticky bit: others could rename `cache`. */
  assert_int_equal(chmod(shared, 0777), 0);
  expect_refused(cache, true, TL__TRUST_PRIVATE, "writable by group or others and not sticky");
  assert_int_equal(chmod(shared, 01777), 0);
  expect_ok(cache, true, TL__TRUST_PRIVATE);
  assert_int_equal(chmod(shared, 0700), 0);
  /* The last component itself. */
  assert_int_equal(chmod(cache, 0770), 0);
  expect_refused(cache, true, TL__TRUST_PRIVATE, "writable by group or others");
  assert_int_equal(chmod(cache, 0700), 0);
  /* Relative paths, ".." and "." walk the same way. */
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(shared), 0);
  expect_ok("cache", true, TL__TRUST_PRIVATE);
  expect_ok("./cache/../cache/.", true, TL__TRUST_PRIVATE);
  assert_int_equal(chdir(cwd), 0);
  int fd = -1;
  char *missing = sub(cache, "nope");
  TL_ASSERT_ERR(tl__trust_open(missing, true, TL__TRUST_PRIVATE, &fd), TL_ENOTFOUND, "No such file or directory");
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(missing);
  tl__free(cache);
  tl__free(shared);
  tl__free(root);
}

static void test_links(void **state) {
  (void)state;
  char *root = scratch();
  char *bad = sub(root, "bad"), *target = sub(bad, "target"), *link = sub(root, "link");
  assert_int_equal(mkdir(bad, 0700), 0);
  assert_int_equal(mkdir(target, 0700), 0);
  assert_int_equal(symlink(target, link), 0);
  expect_ok(link, true, TL__TRUST_PRIVATE);
  /* The link's target is walked by the same rules. */
  assert_int_equal(chmod(bad, 0777), 0);
  expect_refused(link, true, TL__TRUST_PRIVATE, "not sticky");
  assert_int_equal(chmod(bad, 0700), 0);
  /* A relative link, and a loop. */
  char *rel = sub(root, "rel"), *loop = sub(root, "loop");
  assert_int_equal(symlink("bad/target", rel), 0);
  expect_ok(rel, true, TL__TRUST_PRIVATE);
  assert_int_equal(symlink("loop", loop), 0);
  int fd;
  TL_ASSERT_ERR(tl__trust_open(loop, true, TL__TRUST_PRIVATE, &fd), TL_EIO, "too many levels");
  /* A link owned by another user (a /tmp/... link planted for TILELANG_CACHE_DIR). */
  if (geteuid() == 0) {
    assert_int_equal(lchown(link, 4242, 4242), 0);
    expect_refused(link, true, TL__TRUST_PRIVATE, "a symbolic link owned by another user");
    /* ... and a directory owned by another user on the way. */
    assert_int_equal(chown(bad, 4242, 4242), 0);
    expect_refused(rel, true, TL__TRUST_PRIVATE, "owned by another user");
    /* Root-owned is fine for plugins, another user's is not. */
    char *lib = sub(target, "lib.so");
    TL_ASSERT_OK(tl__file_write_new(lib, "x", 1));
    assert_int_equal(chown(bad, 0, 0), 0);
    expect_ok(lib, false, TL__TRUST_OWNED);
    assert_int_equal(chown(lib, 4242, 4242), 0);
    expect_refused(lib, false, TL__TRUST_OWNED, "owned by another user");
    tl__free(lib);
  } else {
    print_message("skipping the other-user cases: not running as root\n");
  }
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(rel);
  tl__free(loop);
  tl__free(link);
  tl__free(target);
  tl__free(bad);
  tl__free(root);
}

static void test_fifo_refused(void **state) {
  (void)state;
  char *root = scratch(), *fifo = sub(root, "meta.json");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  expect_refused(fifo, false, TL__TRUST_PRIVATE, "not a regular file"); /* and it did not block */
  int dfd = open(root, O_RDONLY | O_DIRECTORY);
  int fd;
  TL_ASSERT_ERR(tl__trust_openat(dfd, "meta.json", false, TL__TRUST_PRIVATE, fifo, &fd), TL_EUNAVAILABLE,
                "not a regular file");
  close(dfd);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(fifo);
  tl__free(root);
}

/* Builds lib<n>.so in dir whose `which()` returns n. */
static char *build_lib(const char *dir, int n) {
  char *src = tl__format("%s/lib%d.c", dir, n), *so = tl__format("%s/lib%d.so", dir, n);
  char text[64];
  snprintf(text, sizeof text, "int which(void) { return %d; }\n", n);
  TL_ASSERT_OK(tl__file_write_new(src, text, strlen(text)));
  const char *cc = getenv("CC");
  char *cmd = tl__format("%s -shared -fPIC -o '%s' '%s'", cc && *cc ? cc : "cc", so, src);
  if (system(cmd) != 0) fail_msg("cannot build %s", so);
  tl__free(cmd);
  tl__free(src);
  return so;
}

static int call_which(void *h) {
  void *p = dlsym(h, "which");
  assert_non_null(p);
  int (*fn)(void);
  memcpy(&fn, &p, sizeof p);
  return fn();
}

static void load_two(bool no_proc) {
  char *root = scratch();
  char *a = build_lib(root, 1), *b = build_lib(root, 2);
  tl__dl_test_no_proc = no_proc;
  int fa = open(a, O_RDONLY | O_CLOEXEC);
  void *ha = NULL, *hb = NULL;
  TL_ASSERT_OK(tl__dlopen_fd(fa, a, RTLD_NOW | RTLD_LOCAL, &ha));
  close(fa);
  /* The same descriptor number again, now another file: the loader must not hand
   * back the library loaded under the name /proc/self/fd/<n>. */
  int fb = open(b, O_RDONLY | O_CLOEXEC);
  assert_int_equal(fb, fa);
  TL_ASSERT_OK(tl__dlopen_fd(fb, b, RTLD_NOW | RTLD_LOCAL, &hb));
  close(fb);
  tl__dl_test_no_proc = false;
  assert_int_equal(call_which(ha), 1);
  assert_int_equal(call_which(hb), 2);
  dlclose(ha);
  dlclose(hb);
  /* Not a library: a clear error. */
  int fs = open(a, O_RDONLY);
  char *src = tl__format("%s/lib1.c", root);
  int fc = open(src, O_RDONLY);
  void *hc = NULL;
  TL_ASSERT_ERR(tl__dlopen_fd(fc, src, RTLD_NOW, &hc), TL_EIO, "cannot load");
  close(fc);
  close(fs);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(src);
  tl__free(a);
  tl__free(b);
  tl__free(root);
}

static void test_dlopen_fd_proc(void **state) {
  (void)state;
  load_two(false);
}

static void test_dlopen_fd_copy(void **state) {
  (void)state;
  load_two(true);
}

static tl_status oom_open(void *ctx) {
  int fd = -1;
  TL__TRY(tl__trust_open(ctx, true, TL__TRUST_PRIVATE, &fd));
  close(fd);
  return TL_OK;
}

static void test_trust_open_oom(void **state) {
  (void)state;
  char *root = scratch(), *link = sub(root, "link");
  assert_int_equal(symlink(".", link), 0);
  assert_true(tl_oom_sweep(oom_open, NULL, link) >= 1);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(link);
  tl__free(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ancestors),      cmocka_unit_test(test_links),
      cmocka_unit_test(test_fifo_refused),   cmocka_unit_test(test_dlopen_fd_proc),
      cmocka_unit_test(test_dlopen_fd_copy), cmocka_unit_test(test_trust_open_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
