/* tl_compile's flow and kernel cache with test doubles around the real front end,
 * semantic check and c pipeline: a test backend owning target kind llvm (the c
 * pipeline under llvm's name, a device codegen that prints the lowered module, a
 * host codegen) and a fake execution backend implementation whose build and load
 * count their calls and can be made to fail. What this checks is the engine: which
 * stages run on a miss, a memory hit and a disk hit; the key's parts; failures of
 * build, load and identity; the caller's context; the module copy restricted to
 * one function; out-of-memory on the hit paths. Real execution is in tests/e2e. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "backends/cpu/pipeline.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/files.h"
#include "engine/cache.h"
#include "runtime/exec_backend.h"
#include "tilelang/backend.h"
#include "tilelang/engine.h"
#include "tl_test.h"

static const char k_src[] =
    "import tilelang.language as T\n"
    "\n"
    "N = T.symbolic(\"N\")\n"
    "\n"
    "@T.prim_func\n"
    "def first(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\")):\n"
    "    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:\n"
    "        for i in T.Parallel(64):\n"
    "            if bx * 64 + i < N:\n"
    "                B[bx * 64 + i] = A[bx * 64 + i] * 2.0\n"
    "\n"
    "@T.prim_func\n"
    "def second(A: T.Tensor((16,), \"float32\")):\n"
    "    with T.Kernel(1, threads=16) as bx:\n"
    "        for i in T.Parallel(16):\n"
    "            A[i] = A[i] + 1.0\n";

/* ------------------------------------------------------------ test doubles */

static atomic_int g_builds, g_loads, g_calls, g_codegens;
static atomic_bool g_fail_build, g_fail_load, g_fail_identity;
static const char *g_identity = "fake 1.0|-O2";

static tl_status pipeline_lower(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)user_data;
  return tl_pass_pipeline_lower(&tl__cpu_pipeline, mod, target);
}

static tl_status print_module(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out) {
  (void)target;
  atomic_fetch_add(&g_codegens, 1);
  char *text = tl_ir_print_module(mod);
  if (!text) return tl__oom();
  tl_status s = tl_artifact_create((const char *)user_data, text, out);
  tl_free(text);
  return s;
}

static const tl_pass_pipeline k_pipeline = {"llvm", pipeline_lower, NULL};
static const tl_device_codegen k_device = {"enginetest.device", {print_module, "ir"}, {print_module, "ir"}, NULL, NULL};
static const tl_host_codegen k_host = {"enginetest.host", print_module, "ir", NULL, NULL};
static const tl_execution_backend_spec k_fake = {"fakeexec", NULL, NULL, NULL, true, false, NULL};
static const tl_execution_backend_spec k_fake2 = {"fakeexec2", NULL, NULL, NULL, false, false, NULL};
static const char *const k_kinds[] = {"llvm", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"llvm", &k_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_devices[] = {{"llvm", &k_device}, {NULL, NULL}};
static const tl_host_codegen_entry k_hosts[] = {{"c", &k_host}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_specs[] = {&k_fake, &k_fake2, NULL};
static const tl_backend_module k_backend = {sizeof(tl_backend_module), "enginetest", k_kinds, k_pipelines, k_devices,
                                            k_specs, NULL, NULL, k_hosts, NULL, NULL};

static const char *const k_files[] = {"fake.bin", NULL};

static const char *fake_identity(const tl__build_request *req) {
  /* Asked before lowering: only these are known. */
  if (!req->func_name || !req->target || req->device || req->host || req->table) {
    tl__error(TL_EINTERNAL, "identity asked with an unexpected request");
    return NULL;
  }
  if (atomic_load(&g_fail_identity)) {
    tl__error(TL_EUNAVAILABLE, "the fake toolchain is gone");
    return NULL;
  }
  return g_identity;
}

static tl_status fake_build(const tl__build_request *req, const char *dir) {
  atomic_fetch_add(&g_builds, 1);
  if (atomic_load(&g_fail_build)) return tl__error(TL_ECOMPILE, "fake compiler: error: no");
  if (!req->device || !req->table) return tl__error(TL_EINTERNAL, "build without device code or table");
  char *p = tl__path_join(dir, "fake.bin");
  if (!p) return TL_ENOMEM;
  const char *src = tl_artifact_source(req->device);
  tl_status s = tl__file_write_new(p, src, strlen(src));
  tl__free(p);
  return s;
}

typedef struct fake_state {
  uint32_t nparams;
} fake_state;

static tl_status fake_call(void *state, const tl_value *args, int nargs, void *stream) {
  (void)args;
  (void)stream;
  fake_state *st = state;
  if ((uint32_t)nargs != st->nparams) return tl__error(TL_EINVAL, "fake: %d arguments", nargs);
  atomic_fetch_add(&g_calls, 1);
  return TL_OK;
}

static void fake_destroy(void *state) { tl__free(state); }

static tl_status fake_load(const tl__build_request *req, const char *dir, tl__loaded *out) {
  atomic_fetch_add(&g_loads, 1);
  if (atomic_load(&g_fail_load)) return tl__error(TL_ERUNTIME, "fake loader: cannot load");
  if (!req->table || !req->device || !req->host) return tl__error(TL_EINTERNAL, "load without table or sources");
  char *p = tl__path_join(dir, "fake.bin"), *text = NULL;
  if (!p) return TL_ENOMEM;
  tl_status s = tl__file_read_no_link(p, true, &text, NULL);
  tl__free(p);
  if (s != TL_OK) return s;
  bool same = strcmp(text, tl_artifact_source(req->device)) == 0;
  tl__free(text);
  if (!same) return tl__error(TL_EINTERNAL, "fake.bin does not hold the device source");
  fake_state *st = tl__malloc(sizeof *st);
  if (!st) return tl__oom();
  st->nparams = req->table->nparams;
  *out = (tl__loaded){st, fake_call, fake_destroy};
  return TL_OK;
}

static const tl__exec_impl k_impl = {"fakeexec", k_files, fake_identity, fake_build, fake_load, NULL};

/* ------------------------------------------------------------------ helpers */

typedef struct fixture {
  tl_ir_module *mod;
  char *root;
  tl_compile_options o;
} fixture;

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  if (!fx || tl_register_backend(&k_backend, NULL) != TL_OK || tl__register_exec_impl(&k_impl) != TL_OK ||
      tl_ir_parse(k_src, "flow.py", NULL, &fx->mod) != TL_OK || tl__make_scratch_dir("tl-flow-", &fx->root) != TL_OK) {
    fprintf(stderr, "setup: %s\n", tl_last_error());
    return -1;
  }
  fx->o.struct_size = sizeof fx->o;
  fx->o.target = "llvm";
  fx->o.execution_backend = "fakeexec";
  fx->o.cache_dir = fx->root;
  atomic_store(&g_builds, 0);
  atomic_store(&g_loads, 0);
  atomic_store(&g_codegens, 0);
  atomic_store(&g_fail_build, false);
  atomic_store(&g_fail_load, false);
  atomic_store(&g_fail_identity, false);
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  tl_kernel_cache_clear_memory();
  tl__remove_tree(fx->root);
  tl__free(fx->root);
  tl_ir_module_free(fx->mod);
  free(fx);
  return 0;
}

/* Entries in <root>/<version>/<platform>/<sub> (kernels or .staging). */
static int count_in(const char *root, const char *sub) {
  char path[1024], plat[256] = "";
  snprintf(path, sizeof path, "%s/%s", root, tl_version());
  DIR *d = opendir(path);
  if (!d) return 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL)
    if (de->d_name[0] != '.') snprintf(plat, sizeof plat, "%s", de->d_name);
  closedir(d);
  snprintf(path, sizeof path, "%s/%s/%s/%s", root, tl_version(), plat, sub);
  d = opendir(path);
  if (!d) return 0;
  int n = 0;
  while ((de = readdir(d)) != NULL) n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
  closedir(d);
  return n;
}

static int count_entries(const char *root) { return count_in(root, "kernels"); }

static tl_kernel *compile_ok(fixture *fx, const char *func) {
  tl_kernel *k = NULL;
  tl_status s = tl_compile(fx->mod, func, &fx->o, &k);
  if (s != TL_OK) fail_msg("tl_compile: %s: %s", tl_status_name(s), tl_last_error());
  return k;
}

/* -------------------------------------------------------------------- tests */

static void test_miss_memory_disk(void **state) {
  fixture *fx = *state;
  tl_kernel *k = compile_ok(fx, "first");
  assert_int_equal(atomic_load(&g_builds), 1);
  assert_int_equal(atomic_load(&g_loads), 1);
  assert_int_equal(atomic_load(&g_codegens), 2); /* device and host */
  assert_false(tl_kernel_from_cache(k));
  assert_string_equal(tl_kernel_name(k), "first");
  assert_string_equal(tl_kernel_execution_backend(k), "fakeexec");
  assert_string_equal(tl_target_kind(tl_kernel_target(k)), "llvm");
  assert_non_null(strstr(tl_kernel_device_source(k), "first_kernel"));
  /* The copy was restricted to `first`: `second` was never lowered. */
  assert_null(strstr(tl_kernel_device_source(k), "second"));
  const tl_kernel_table *t = tl_kernel_get_table(k);
  assert_int_equal(t->nparams, 2);
  assert_int_equal(t->nsyms, 1);
  tl_value args[2] = {{.kind = TL_VALUE_NONE}, {.kind = TL_VALUE_NONE}};
  TL_ASSERT_OK(tl_kernel_call(k, args, 2, NULL));
  /* The caller's module is untouched. */
  assert_int_equal(tl_ir_module_num_funcs(fx->mod), 2);
  assert_int_equal(tl_ir_module_func(fx->mod, 0)->callconv, TL_CALLCONV_DEFAULT);

  /* Memory hit: nothing runs. */
  tl_kernel *m1 = compile_ok(fx, "first"), *m2 = compile_ok(fx, "first");
  assert_ptr_equal(m1, m2);
  assert_true(tl_kernel_from_cache(m1));
  assert_int_equal(atomic_load(&g_builds), 1);
  assert_int_equal(atomic_load(&g_loads), 1);
  assert_int_equal(atomic_load(&g_codegens), 2);
  TL_ASSERT_OK(tl_kernel_call(m1, args, 2, NULL));
  TL_ASSERT_ERR(tl_kernel_call(m1, args, 1, NULL), TL_EINVAL, "fake: 1 arguments");

  /* Disk hit: load only, sources and table from the entry. */
  tl_kernel_cache_clear_memory();
  tl_kernel *d = compile_ok(fx, "first");
  assert_true(tl_kernel_from_cache(d));
  assert_int_equal(atomic_load(&g_builds), 1);
  assert_int_equal(atomic_load(&g_loads), 2);
  assert_int_equal(atomic_load(&g_codegens), 2);
  assert_string_equal(tl_kernel_device_source(d), tl_kernel_device_source(k));
  assert_string_equal(tl_kernel_host_source(d), tl_kernel_host_source(k));
  char *j1 = tl_kernel_table_to_json(tl_kernel_get_table(k)), *j2 = tl_kernel_table_to_json(tl_kernel_get_table(d));
  assert_string_equal(j1, j2);
  tl_free(j1);
  tl_free(j2);
  /* And the disk hit is remembered in memory. */
  tl_kernel *d2 = compile_ok(fx, "first");
  assert_ptr_equal(d, d2);
  assert_int_equal(atomic_load(&g_loads), 2);

  assert_int_equal(count_entries(fx->root), 1);
  tl_kernel_release(k);
  tl_kernel_release(m1);
  tl_kernel_release(m2);
  tl_kernel_release(d);
  tl_kernel_release(d2);
}

/* A memory hit never opens the disk namespace; freeing it must close nothing.
 * (It once closed descriptor 0 four times: another thread's file when stdin was
 * closed, NVRTC's cuda_fp16.h in CI.) Descriptor 0 is made a file of ours, and
 * must still be that file after hits. */
static void test_memory_hit_closes_nothing(void **state) {
  fixture *fx = *state;
  int saved = dup(0), null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_true(null_fd >= 0);
  assert_int_equal(dup2(null_fd, 0), 0);
  struct stat before, after;
  assert_int_equal(fstat(0, &before), 0);
  tl_kernel *k = compile_ok(fx, "first");
  tl_kernel *h1 = compile_ok(fx, "first"), *h2 = compile_ok(fx, "first");
  assert_true(tl_kernel_from_cache(h1));
  bool open_after = fcntl(0, F_GETFD) != -1 && fstat(0, &after) == 0;
  if (saved >= 0) {
    dup2(saved, 0);
    close(saved);
  } else {
    close(0);
  }
  close(null_fd);
  assert_true(open_after);
  assert_true(before.st_dev == after.st_dev && before.st_ino == after.st_ino);
  tl_kernel_release(k);
  tl_kernel_release(h1);
  tl_kernel_release(h2);
}

static void test_key_parts(void **state) {
  fixture *fx = *state;
  tl_kernel_release(compile_ok(fx, "first"));
  tl_kernel_release(compile_ok(fx, "second")); /* another function */
  assert_int_equal(count_entries(fx->root), 2);
  const char *cfg[] = {"tl.verify_after_each_pass=1", NULL};
  fx->o.pass_configs = cfg;
  tl_kernel_release(compile_ok(fx, "first"));
  assert_int_equal(count_entries(fx->root), 3);
  fx->o.pass_configs = NULL;
  g_identity = "fake 2.0|-O2"; /* a new toolchain */
  tl_kernel_release(compile_ok(fx, "first"));
  assert_int_equal(count_entries(fx->root), 4);
  g_identity = "fake 1.0|-O2";
  fx->o.target = "{\"kind\":\"llvm\",\"mcpu\":\"znver3\"}"; /* another target */
  tl_kernel_release(compile_ok(fx, "first"));
  assert_int_equal(count_entries(fx->root), 5);
  fx->o.target = "llvm";
  fx->o.target_host = "{\"kind\":\"c\",\"keys\":[\"cpu\",\"x\"]}"; /* another host */
  tl_kernel *k = NULL;
  if (tl_compile(fx->mod, "first", &fx->o, &k) == TL_OK) {
    tl_kernel_release(k);
    assert_int_equal(count_entries(fx->root), 6);
  }
  fx->o.target_host = NULL;
  assert_int_equal(atomic_load(&g_builds), count_entries(fx->root));
  /* All of them hit now. */
  int builds = atomic_load(&g_builds);
  tl_kernel_cache_clear_memory();
  tl_kernel_release(compile_ok(fx, "first"));
  tl_kernel_release(compile_ok(fx, "second"));
  assert_int_equal(atomic_load(&g_builds), builds);
}

static void test_build_failure(void **state) {
  fixture *fx = *state;
  atomic_store(&g_fail_build, true);
  tl_kernel *k = (tl_kernel *)fx;
  TL_ASSERT_ERR(tl_compile(fx->mod, "first", &fx->o, &k), TL_ECOMPILE, "fake compiler: error: no");
  assert_null(k);
  assert_int_equal(count_entries(fx->root), 0);
  assert_int_equal(tl__kcache_mem_size(), 0);
  assert_int_equal(count_in(fx->root, ".staging"), 0); /* the staging directory was removed */
  atomic_store(&g_fail_build, false);
  tl_kernel_release(compile_ok(fx, "first"));
}

static void test_load_failures(void **state) {
  fixture *fx = *state;
  /* A fresh build that does not load: the error, and no entry left behind. */
  atomic_store(&g_fail_load, true);
  tl_kernel *k = NULL;
  TL_ASSERT_ERR(tl_compile(fx->mod, "first", &fx->o, &k), TL_ERUNTIME, "fake loader");
  assert_int_equal(count_entries(fx->root), 0);
  assert_int_equal(count_in(fx->root, ".staging"), 0);
  atomic_store(&g_fail_load, false);
  tl_kernel_release(compile_ok(fx, "first"));
  assert_int_equal(atomic_load(&g_builds), 2);

  /* An entry that stops loading: removed and rebuilt (the build succeeds, the load
   * of the rebuilt entry too). Loads fail only once: the flag is cleared by hand
   * after the first disk attempt is seen. */
  tl_kernel_cache_clear_memory();
  atomic_store(&g_fail_load, true);
  int loads = atomic_load(&g_loads);
  TL_ASSERT_ERR(tl_compile(fx->mod, "first", &fx->o, &k), TL_ERUNTIME, "fake loader");
  assert_int_equal(atomic_load(&g_loads), loads + 2); /* the entry, then the rebuilt one */
  atomic_store(&g_fail_load, false);
  tl_kernel_release(compile_ok(fx, "first"));
  assert_int_equal(count_entries(fx->root), 1);
}

static void test_identity_failure(void **state) {
  fixture *fx = *state;
  atomic_store(&g_fail_identity, true);
  tl_kernel *k = NULL;
  TL_ASSERT_ERR(tl_compile(fx->mod, "first", &fx->o, &k), TL_EUNAVAILABLE, "the fake toolchain is gone");
  /* Without the cache the identity is not needed. */
  fx->o.disable_cache = true;
  tl_kernel_release(compile_ok(fx, "first"));
  atomic_store(&g_fail_identity, false);
  assert_int_equal(count_entries(fx->root), 0);
}

static void test_callers_context(void **state) {
  fixture *fx = *state;
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("llvm", NULL, "fakeexec2", &ctx));
  fx->o.context = ctx;
  fx->o.target = "no-such-target"; /* ignored */
  fx->o.execution_backend = "nvrtc";
  tl_kernel *k = NULL;
  /* fakeexec2 has no implementation in the library. */
  TL_ASSERT_ERR(tl_compile(fx->mod, "first", &fx->o, &k), TL_EUNSUPPORTED,
                "Execution backend 'fakeexec2' has no implementation");
  tl_backend_context_release(ctx);
  TL_ASSERT_OK(tl_create_backend_context("llvm", NULL, "fakeexec", &ctx));
  fx->o.context = ctx;
  k = compile_ok(fx, "first");
  assert_string_equal(tl_kernel_execution_backend(k), "fakeexec");
  tl_kernel_release(k);
  tl_backend_context_release(ctx);
}

static void test_pick_function(void **state) {
  fixture *fx = *state;
  tl_kernel *k = NULL;
  TL_ASSERT_ERR(tl_compile(fx->mod, NULL, &fx->o, &k), TL_EINVAL, "the module has 2 functions ('first', 'second')");
  TL_ASSERT_ERR(tl_compile(fx->mod, "third", &fx->o, &k), TL_ENOTFOUND, "no function 'third'");
  tl_compile_options defaults;
  memset(&defaults, 0, sizeof defaults); /* struct_size 0: the current size */
  defaults.target = "llvm";
  defaults.execution_backend = "fakeexec";
  defaults.cache_dir = fx->root;
  TL_ASSERT_OK(tl_compile(fx->mod, "second", &defaults, &k));
  tl_kernel_release(k);
}

/* Semantic errors come back with their location. */
static void test_semantic_error(void **state) {
  fixture *fx = *state;
  static const char bad[] =
      "import tilelang.language as T\n"
      "\n"
      "@T.prim_func\n"
      "def nokernel(A: T.Tensor((16,), \"float32\")):\n"
      "    for i in T.serial(16):\n"
      "        A[i] = 1.0\n";
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(bad, "bad.py", NULL, &m));
  tl_kernel *k = NULL;
  TL_ASSERT_ERR(tl_compile(m, NULL, &fx->o, &k), TL_EINVAL, "bad.py:");
  assert_int_equal(atomic_load(&g_builds), 0);
  tl_ir_module_free(m);
}

static tl_status oom_compile(void *ctx) {
  fixture *fx = ctx;
  tl_kernel *k = NULL;
  TL__TRY(tl_compile(fx->mod, "first", &fx->o, &k));
  assert_true(tl_kernel_from_cache(k));
  tl_kernel_release(k);
  return TL_OK;
}

static tl_status oom_disk_hit(void *ctx) {
  tl_kernel_cache_clear_memory();
  return oom_compile(ctx);
}

static void test_hit_paths_oom(void **state) {
  fixture *fx = *state;
  tl_kernel_release(compile_ok(fx, "first"));
  long sites = tl_oom_sweep(oom_compile, NULL, fx);
  assert_true(sites >= 1);
  sites = tl_oom_sweep(oom_disk_hit, NULL, fx);
  assert_true(sites > 10);
  /* Running out of memory never damaged or removed the entry. */
  assert_int_equal(count_entries(fx->root), 1);
  assert_int_equal(atomic_load(&g_builds), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_miss_memory_disk, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memory_hit_closes_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_key_parts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_build_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(test_load_failures, setup, teardown),
      cmocka_unit_test_setup_teardown(test_identity_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(test_callers_context, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pick_function, setup, teardown),
      cmocka_unit_test_setup_teardown(test_semantic_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hit_paths_oom, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
