/* The kernel cache end to end, through tl_compile and the native execution backend:
 * memory hits, disk hits (after clearing memory and in another process), damaged
 * entries rebuilt, processes racing on one key, a renamed local variable hitting the
 * same entry, unsafe cache directories refused, the switches that turn the cache off,
 * and what the key separates. Other processes are this program run again in child
 * mode (spawned, not forked, so no runtime state is shared). */
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "base/alloc.h"
#include "base/str.h"
#include "e2e_util.h"
#include "engine/cache.h"
#include "engine/cache_disk.h"

extern char **environ;

static const char k_vadd[] =
    "import tilelang.language as T\n"
    "\n"
    "N = T.symbolic(\"N\")\n"
    "\n"
    "@T.prim_func\n"
    "def vadd(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\"), C: T.Tensor((N,), \"float32\")):\n"
    "    with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:\n"
    "        for i in T.Parallel(128):\n"
    "            @IDX@ = bx * @BLOCK@ + i\n"
    "            if @IDX@ < N:\n"
    "                C[@IDX@] = A[@IDX@] + B[@IDX@]\n";

/* k_vadd with the local variable named `idx` and the block `block`. */
static tl_ir_module *vadd_module(const char *idx, const char *block) {
  tl__sb sb = TL__SB_INIT;
  for (const char *p = k_vadd; *p;) {
    if (strncmp(p, "@IDX@", 5) == 0) tl__sb_append(&sb, idx), p += 5;
    else if (strncmp(p, "@BLOCK@", 7) == 0) tl__sb_append(&sb, block), p += 7;
    else tl__sb_putc(&sb, *p++);
  }
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(tl__sb_str(&sb), "vadd.py", NULL, &m));
  tl__sb_free(&sb);
  return m;
}

/* Compiles vadd through native with the cache at `root`, checks it against the
 * interpreter, and returns whether it came from the cache. */
static bool compile_check(const char *root, tl_ir_module *m, const char *exec, const char *const *configs) {
  tl_compile_options o = e2e_options(exec);
  o.cache_dir = root;
  o.pass_configs = configs;
  tl_kernel *k = NULL;
  tl_status s = tl_compile(m, NULL, &o, &k);
  if (s != TL_OK) fail_msg("tl_compile: %s", tl_last_error());
  tlc_dim_binding d = {"N", "1000"};
  e2e_run_and_compare(m, tl_ir_module_func(m, 0), k, &d, 1, 3);
  bool hit = tl_kernel_from_cache(k);
  tl_kernel_release(k);
  return hit;
}

/* The namespace's kernels directory under root. */
static char *kernels_dir(const char *root) {
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  char *k = tl__strdup(ns.kernels);
  tl__disk_ns_free(&ns);
  return k;
}

/* Number of entries in root's kernels directory; *first gets one's path. */
static int count_entries(const char *root, char **first) {
  char *kd = kernels_dir(root);
  DIR *d = opendir(kd);
  assert_non_null(d);
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    if (n++ == 0 && first) *first = tl__path_join(kd, de->d_name);
  }
  closedir(d);
  tl__free(kd);
  return n;
}

static char *fresh_root(void) {
  char *dir = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-cache-", &dir));
  return dir;
}

static void drop_root(char *root) {
  tl_kernel_cache_clear_memory();
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

/* ------------------------------------------------------------ child mode */

/* `e2e_cache child ROOT EXPECT`: compile vadd, check it, and exit 0 if it came from
 * the cache as EXPECTed (hit, miss or any). */
static int child_main(const char *root, const char *expect) {
  tl_ir_module *m = vadd_module("idx", "128");
  tl_compile_options o = e2e_options("native");
  o.cache_dir = root;
  tl_kernel *k = NULL;
  if (tl_compile(m, NULL, &o, &k) != TL_OK) {
    fprintf(stderr, "child: tl_compile: %s\n", tl_last_error());
    return 3;
  }
  tlc_kernel_io *io = NULL, *ref = NULL;
  tlc_dim_binding d = {"N", "777"};
  if (tlc_kernel_io_create(m, tl_ir_module_func(m, 0), &d, 1, 0, 5, &io) != TL_OK) return 4;
  tlc_kernel_io_fill(io, 5);
  if (tlc_kernel_io_clone(io, &ref) != TL_OK || tl_kernel_call(k, io->args, 3, NULL) != TL_OK ||
      tl_ir_interpret(m, "vadd", ref->args, 3) != TL_OK)
    return 5;
  tlc_compare_result r;
  if (tlc_compare_tensors(&io->tensors[2], &ref->tensors[2], 1e-4, 1e-5, &r) != TL_OK || r.mismatches) return 6;
  bool hit = tl_kernel_from_cache(k);
  fprintf(stderr, "child: %s\n", hit ? "hit" : "miss");
  tlc_kernel_io_free(io);
  tlc_kernel_io_free(ref);
  tl_kernel_release(k);
  tl_ir_module_free(m);
  if (strcmp(expect, "hit") == 0 && !hit) return 7;
  if (strcmp(expect, "miss") == 0 && hit) return 8;
  return 0;
}

/* Starts this program in child mode; its stderr goes to errfile (NULL: inherited). */
static pid_t spawn_child(const char *root, const char *expect, const char *errfile) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  assert_true(n > 0);
  self[n] = '\0';
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (errfile) posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  char *argv[] = {self, "child", (char *)root, (char *)expect, NULL};
  pid_t pid = 0;
  assert_int_equal(posix_spawn(&pid, self, &fa, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

static int wait_child(pid_t pid) {
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

/* ----------------------------------------------------------------- tests */

static void test_memory_then_disk(void **state) {
  (void)state;
  char *root = fresh_root();
  tl_ir_module *m = vadd_module("idx", "128");
  tl_compile_options o = e2e_options("native");
  o.cache_dir = root;
  tl_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k1));
  assert_false(tl_kernel_from_cache(k1));
  /* Memory: the same kernel object every time, marked as cached. */
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k2));
  TL_ASSERT_OK(tl_compile(m, "vadd", &o, &k3));
  assert_true(tl_kernel_from_cache(k2));
  assert_ptr_equal(k2, k3);
  assert_string_equal(tl_kernel_device_source(k2), tl_kernel_device_source(k1));
  tlc_dim_binding d = {"N", "513"};
  e2e_run_and_compare(m, tl_ir_module_func(m, 0), k2, &d, 1, 1);
  assert_int_equal(count_entries(root, NULL), 1);
  tl_kernel_release(k2);
  tl_kernel_release(k3);

  /* Disk: after the memory level is cleared (k1 stays valid). */
  tl_kernel_cache_clear_memory();
  assert_int_equal(tl__kcache_mem_size(), 0);
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k2));
  assert_true(tl_kernel_from_cache(k2));
  assert_ptr_not_equal(k1, k2);
  assert_string_equal(tl_kernel_device_source(k2), tl_kernel_device_source(k1));
  assert_string_equal(tl_kernel_host_source(k2), tl_kernel_host_source(k1));
  assert_int_equal(tl_kernel_get_table(k2)->nparams, 3);
  e2e_run_and_compare(m, tl_ir_module_func(m, 0), k2, &d, 1, 2);
  e2e_run_and_compare(m, tl_ir_module_func(m, 0), k1, &d, 1, 2);
  tl_kernel_release(k1);
  tl_kernel_release(k2);

  /* The entry's layout. */
  char *entry = NULL;
  assert_int_equal(count_entries(root, &entry), 1);
  char *meta = tl__path_join(entry, "meta.json"), *text = NULL;
  TL_ASSERT_OK(tl__file_read_no_link(meta, true, &text, NULL));
  assert_non_null(strstr(text, "\"execution_backend\": \"native\""));
  assert_non_null(strstr(text, "\"kernel_table\""));
  assert_non_null(strstr(text, "\"checksum\""));
  struct stat st;
  assert_int_equal(lstat(entry, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  tl__free(text);
  tl__free(meta);
  tl__free(entry);

  /* Another process finds it on disk. */
  assert_int_equal(wait_child(spawn_child(root, "hit", NULL)), 0);
  tl_ir_module_free(m);
  drop_root(root);
}

/* The largest file of the entry other than meta.json (the compiled library). */
static char *largest_file(const char *entry) {
  DIR *d = opendir(entry);
  assert_non_null(d);
  char *best = NULL;
  off_t best_size = -1;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.' || strcmp(de->d_name, "meta.json") == 0) continue;
    char *p = tl__path_join(entry, de->d_name);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    if (st.st_size > best_size) {
      tl__free(best);
      best = p;
      best_size = st.st_size;
    } else {
      tl__free(p);
    }
  }
  closedir(d);
  assert_non_null(best);
  return best;
}

static void test_damaged_entry_rebuilt(void **state) {
  (void)state;
  char *root = fresh_root();
  tl_ir_module *m = vadd_module("idx", "128");
  assert_false(compile_check(root, m, "native", NULL));
  char *entry = NULL;
  assert_int_equal(count_entries(root, &entry), 1);

  /* Flip bytes in the middle of the compiled library, keeping its size. */
  char *lib = largest_file(entry), *bytes = NULL;
  size_t len = 0;
  TL_ASSERT_OK(tl__file_read_no_link(lib, true, &bytes, &len));
  assert_true(len > 64);
  for (size_t i = len / 2; i < len / 2 + 16; i++) bytes[i] = (char)~bytes[i];
  assert_int_equal(unlink(lib), 0);
  TL_ASSERT_OK(tl__file_write_new(lib, bytes, len));
  tl_kernel_cache_clear_memory();
  assert_false(compile_check(root, m, "native", NULL)); /* rebuilt, not loaded */
  tl_kernel_cache_clear_memory();
  assert_true(compile_check(root, m, "native", NULL)); /* and sound again */

  /* A truncated meta.json. */
  char *meta = tl__path_join(entry, "meta.json");
  assert_int_equal(truncate(meta, 10), 0);
  tl_kernel_cache_clear_memory();
  assert_false(compile_check(root, m, "native", NULL));
  tl_kernel_cache_clear_memory();
  assert_true(compile_check(root, m, "native", NULL));

  /* A missing file. */
  assert_int_equal(unlink(lib), 0);
  tl_kernel_cache_clear_memory();
  assert_false(compile_check(root, m, "native", NULL));
  assert_int_equal(count_entries(root, NULL), 1);

  tl__free(meta);
  tl__free(bytes);
  tl__free(lib);
  tl__free(entry);
  tl_ir_module_free(m);
  drop_root(root);
}

static void test_processes_race(void **state) {
  (void)state;
  char *root = fresh_root();
  enum { N = 4 };
  pid_t pids[N];
  for (int i = 0; i < N; i++) pids[i] = spawn_child(root, "any", NULL);
  for (int i = 0; i < N; i++) assert_int_equal(wait_child(pids[i]), 0);
  assert_int_equal(count_entries(root, NULL), 1);
  tl_ir_module *m = vadd_module("idx", "128");
  assert_true(compile_check(root, m, "native", NULL));
  tl_ir_module_free(m);
  drop_root(root);
}

static void test_renamed_local_hits(void **state) {
  (void)state;
  char *root = fresh_root();
  tl_ir_module *a = vadd_module("idx", "128"), *b = vadd_module("position", "128"), *c = vadd_module("idx", "64");
  assert_false(compile_check(root, a, "native", NULL));
  tl_kernel_cache_clear_memory();
  assert_true(compile_check(root, b, "native", NULL)); /* same structure: the same entry */
  assert_int_equal(count_entries(root, NULL), 1);
  /* A changed constant is another kernel (and computes something else). */
  tl_compile_options o = e2e_options("native");
  o.cache_dir = root;
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(c, NULL, &o, &k));
  assert_false(tl_kernel_from_cache(k));
  tl_kernel_release(k);
  assert_int_equal(count_entries(root, NULL), 2);
  tl_ir_module_free(a);
  tl_ir_module_free(b);
  tl_ir_module_free(c);
  drop_root(root);
}

static void test_key_separates(void **state) {
  (void)state;
  char *root = fresh_root();
  tl_ir_module *m = vadd_module("idx", "128");
  assert_false(compile_check(root, m, "native", NULL));
  const char *cfg[] = {"tl.verify_after_each_pass=1", NULL};
  assert_false(compile_check(root, m, "native", cfg));
  assert_true(compile_check(root, m, "native", cfg));
  int n = 2;
  if (e2e_exec_available("tcc")) {
    assert_false(compile_check(root, m, "tcc", NULL));
    tl_kernel_cache_clear_memory();
    assert_true(compile_check(root, m, "tcc", NULL));
    n = 3;
  }
  assert_int_equal(count_entries(root, NULL), n);
  tl_ir_module_free(m);
  drop_root(root);
}

static void test_cache_off(void **state) {
  (void)state;
  char *root = fresh_root();
  tl_ir_module *m = vadd_module("idx", "128");
  tl_compile_options o = e2e_options("native");
  o.cache_dir = root;
  o.disable_cache = true;
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  assert_false(tl_kernel_from_cache(k));
  tl_kernel_release(k);
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  assert_false(tl_kernel_from_cache(k));
  tlc_dim_binding d = {"N", "100"};
  e2e_run_and_compare(m, tl_ir_module_func(m, 0), k, &d, 1, 1);
  tl_kernel_release(k);
  assert_int_equal(tl__kcache_mem_size(), 0);

  setenv("TILELANG_DISABLE_CACHE", "1", 1);
  o.disable_cache = false;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  tl_kernel_release(k);
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  assert_false(tl_kernel_from_cache(k));
  tl_kernel_release(k);
  unsetenv("TILELANG_DISABLE_CACHE");
  assert_int_equal(count_entries(root, NULL), 0);

  /* Instrumentation runs the passes even when an entry exists (and still stores). */
  assert_false(compile_check(root, m, "native", NULL));
  FILE *log = tmpfile();
  assert_non_null(log);
  o.time_passes = true;
  o.log = log;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  assert_false(tl_kernel_from_cache(k));
  tl_kernel_release(k);
  assert_true(ftell(log) > 0);
  fclose(log);
  tl_ir_module_free(m);
  drop_root(root);
}

static void test_unsafe_cache_dir(void **state) {
  (void)state;
  char *root = fresh_root();
  tl_ir_module *m = vadd_module("idx", "128");
  assert_false(compile_check(root, m, "native", NULL));
  char *entry = NULL;
  assert_int_equal(count_entries(root, &entry), 1);

  /* A group-writable root: nothing under it is used, and nothing is written there. */
  assert_int_equal(chmod(root, 0770), 0);
  char errfile[] = "/tmp/tl-e2e-stderr-XXXXXX";
  int fd = mkstemp(errfile);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(wait_child(spawn_child(root, "miss", errfile)), 0);
  char *err = NULL;
  TL_ASSERT_OK(tl__file_read_no_link(errfile, false, &err, NULL));
  if (!strstr(err, "warning") || !strstr(err, "writable by group or others"))
    fail_msg("child's stderr lacks the warning: %s", err);
  tl__free(err);
  assert_int_equal(chmod(root, 0700), 0);
  assert_int_equal(count_entries(root, NULL), 1);

  /* A group-writable entry: not loaded, not removed. */
  assert_int_equal(chmod(entry, 0770), 0);
  assert_int_equal(wait_child(spawn_child(root, "miss", errfile)), 0);
  struct stat st;
  assert_int_equal(lstat(entry, &st), 0);
  assert_int_equal(chmod(entry, 0700), 0);
  assert_int_equal(wait_child(spawn_child(root, "hit", NULL)), 0);

  unlink(errfile);
  tl__free(entry);
  tl_ir_module_free(m);
  drop_root(root);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "child") == 0) return child_main(argv[2], argv[3]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_then_disk),     cmocka_unit_test(test_damaged_entry_rebuilt),
      cmocka_unit_test(test_processes_race),       cmocka_unit_test(test_renamed_local_hits),
      cmocka_unit_test(test_key_separates),        cmocka_unit_test(test_cache_off),
      cmocka_unit_test(test_unsafe_cache_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
