/* ctest-labels: threads */
/* Plugins (tilelang/plugin.h): shared libraries built by the test suite against the
 * standalone header, loaded lazily at most once per import path (also when 8 threads
 * race on first use), and every way loading can fail, with retries. */
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/plugin_loader.h"
#include "tl_backend_test.h"

static int64_t global_int(const char *name) {
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func(name, NULL, 0, &ret));
  assert_int_equal(ret.kind, TL_VALUE_INT);
  return ret.v.i;
}

/* ------------------------------------------------------------- racing load */

typedef struct racer {
  pthread_barrier_t *barrier;
  tl_status status;
  const tl_device_codegen *codegen;
  char message[256];
} racer;

static void *race(void *p) {
  racer *r = p;
  tl_target *t = NULL;
  r->status = tl_target_parse("{\"kind\":\"nvptx\",\"model\":\"tlp_good\"}", &t);
  pthread_barrier_wait(r->barrier);
  if (r->status == TL_OK) r->status = tl_resolve_device_codegen(t, &r->codegen);
  snprintf(r->message, sizeof r->message, "%s", tl_last_error());
  tl_target_release(t);
  return NULL;
}

static void test_lazy_load_once_under_racing_threads(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_lazy_device_codegen("nvptx", TLP_GOOD));
  /* Registering the path loads nothing. */
  assert_int_equal(tl_get_global_func("tlp_good.init_count", NULL, NULL), TL_ENOTFOUND);
  enum { N = 8 };
  pthread_t threads[N];
  racer racers[N];
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, N);
  for (int i = 0; i < N; i++) {
    racers[i] = (racer){&barrier, TL_EINTERNAL, NULL, ""};
    assert_int_equal(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
  }
  for (int i = 0; i < N; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&barrier);
  for (int i = 0; i < N; i++) {
    if (racers[i].status != TL_OK) fail_msg("thread %d: %s", i, racers[i].message);
    assert_non_null(racers[i].codegen);
    assert_string_equal(racers[i].codegen->name, "tlp_good");
  }
  assert_int_equal(global_int("tlp_good.init_count"), 1);

  /* The plugin's backend is complete: a context resolves and runs its codegens. */
  tl_backend_context *c = NULL;
  TL_ASSERT_OK(tl_create_backend_context("{\"kind\":\"nvptx\",\"model\":\"tlp_good\"}", NULL, NULL, &c));
  assert_string_equal(tl_backend_context_name(c), "tlp_good");
  assert_string_equal(tl_backend_context_execution_backend(c)->name, "tlp_source");
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_backend_context_codegen_device(c, NULL, -1, &a));
  assert_string_equal(tl_artifact_format(a), "ptx-text");
  assert_non_null(strstr(tl_artifact_source(a), "// tlp_good device code for {\"kind\":\"nvptx\""));
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_backend_context_codegen_host(c, NULL, &a));
  size_t n = 0;
  assert_memory_equal(tl_artifact_binary(a, &n), "\x7f" "ELF", 4);
  assert_int_equal(n, 4);
  tl_artifact_release(a);
  tl_backend_context_release(c);
  /* Importing the same path again does nothing. */
  TL_ASSERT_OK(tl__plugin_import(TLP_GOOD));
  assert_int_equal(global_int("tlp_good.init_count"), 1);
}

/* The plugin sees the same definitions as the library. */
static void test_abi_agrees(void **state) {
  (void)state;
  TL_ASSERT_OK(tl__plugin_import(TLP_GOOD));
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func("tlp_good.abi_info", NULL, 0, &ret));
  assert_int_equal(ret.kind, TL_VALUE_BYTES);
  const uint64_t expected[] = {
    sizeof(tl_value), sizeof(tl_pass_pipeline), sizeof(tl_device_codegen), sizeof(tl_host_codegen),
    sizeof(tl_host_codegen_hook), sizeof(tl_execution_backend_spec), sizeof(tl_backend_module),
    sizeof(tl_plugin_host), offsetof(tl_backend_module, callbacks), offsetof(tl_plugin_host, artifact_binary),
    TL_OK, TL_EINVAL, TL_ENOTFOUND, TL_EEXIST, TL_EUNAVAILABLE, TL_EUNSUPPORTED, TL_ECOMPILE, TL_ERUNTIME, TL_EIO,
    TL_ENOMEM, TL_EINTERNAL, TL_VALUE_NONE, TL_VALUE_TENSOR, TL_PLUGIN_ABI_VERSION,
  };
  assert_int_equal(ret.size, sizeof expected);
  assert_memory_equal(ret.v.bytes, expected, sizeof expected);
  tl_value_clear(&ret);
  /* And the names the library gives those statuses are the enum's. */
  assert_string_equal(tl_status_name(TL_EUNAVAILABLE), "TL_EUNAVAILABLE");
  assert_int_equal(TL_EINTERNAL, 10);
  const tl_plugin_host *host = tl__plugin_host();
  assert_int_equal(host->struct_size, sizeof(tl_plugin_host));
  assert_int_equal(host->abi_version, TL_PLUGIN_ABI_VERSION);
  assert_string_equal(host->library_version, tl_version());
  assert_true(TL_PLUGIN_HOST_HAS(host, artifact_binary));
}

static void test_symbol_form(void **state) {
  (void)state;
  /* "lib.so:symbol" runs another init of a library already loaded, once. */
  TL_ASSERT_OK(tl__plugin_import(TLP_GOOD ":tlp_alt_init"));
  TL_ASSERT_OK(tl__plugin_import(TLP_GOOD ":tlp_alt_init"));
  assert_int_equal(global_int("tlp_good.alt_init_count"), 1);
  assert_int_equal(global_int("tlp_good.init_count"), 1);
  tl_target *t = tlt_target("{\"kind\":\"nvptx\",\"model\":\"tlp_alt\"}");
  const tl_device_codegen *c = NULL;
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_string_equal(c->name, "tlp_alt");
  tl_target_release(t);
  /* A library without tl_plugin_init loads only through its own symbol; its newer
   * minor ABI (1.7) is accepted. */
  TL_ASSERT_OK(tl__plugin_import(TLP_NOINIT ":tlp_noinit_setup"));
  assert_int_equal(global_int("tlp_noinit.setup_count"), 1);
}

static void test_missing_file(void **state) {
  (void)state;
  const char *path = TLP_DIR "/libtlp_does_not_exist.so";
  TL_ASSERT_ERR(tl__plugin_import(path), TL_EUNAVAILABLE, "Cannot load plugin '" TLP_DIR "/libtlp_does_not_exist.so': ");
  /* The loader's reason follows. */
  assert_non_null(strstr(tl_last_error(), "No such file or directory"));
  /* Through a lazy registration, the lookup fails the same way. */
  TL_ASSERT_OK(tl_register_lazy_host_codegen("vulkan", path));
  tl_target *t = tlt_target("vulkan");
  const tl_host_codegen *c = NULL;
  TL_ASSERT_ERR(tl_resolve_host_codegen(t, &c), TL_EUNAVAILABLE, "libtlp_does_not_exist.so");
  tl_target_release(t);
}

static void test_missing_symbols(void **state) {
  (void)state;
  TL_ASSERT_ERR(tl__plugin_import(TLP_NOINIT), TL_EUNAVAILABLE, NULL);
  assert_non_null(strstr(tl_last_error(), "Cannot load plugin '" TLP_NOINIT "': it does not export 'tl_plugin_init'"));
  assert_non_null(strstr(tl_last_error(), "undefined symbol"));
  TL_ASSERT_ERR(tl__plugin_import(TLP_GOOD ":tlp_no_such_init"), TL_EUNAVAILABLE,
                "it does not export 'tlp_no_such_init'");
  TL_ASSERT_ERR(tl__plugin_import(TLP_NOABI), TL_EUNAVAILABLE, NULL);
  assert_non_null(strstr(tl_last_error(), "Cannot load plugin '" TLP_NOABI "': it does not export 'tl_plugin_abi_version'"));
}

static void test_abi_major_mismatch(void **state) {
  (void)state;
  TL_ASSERT_ERR(tl__plugin_import(TLP_ABI2), TL_EUNAVAILABLE, NULL);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "Cannot load plugin '%s': it was built for plugin ABI 2.0; this library provides ABI %d.%d", TLP_ABI2,
           TL_PLUGIN_ABI_MAJOR, TL_PLUGIN_ABI_MINOR);
  TL_ASSERT_MSG(expected);
  /* Never initialised, and still refused on a retry. */
  TL_ASSERT_ERR(tl__plugin_import(TLP_ABI2), TL_EUNAVAILABLE, "ABI 2.0");
}

static void test_retry_after_failure(void **state) {
  (void)state;
  /* A failing init: its status and message propagate; the next import tries again. */
  setenv("TLP_FLAKY_FAIL", "1", 1);
  TL_ASSERT_ERR(tl__plugin_import(TLP_FLAKY), TL_EUNAVAILABLE, NULL);
  TL_ASSERT_MSG("while initialising plugin '" TLP_FLAKY "': the flaky plugin was told to fail");
  TL_ASSERT_ERR(tl__plugin_import(TLP_FLAKY), TL_EUNAVAILABLE, NULL);
  assert_int_equal(global_int("tlp_flaky.init_count"), 2);
  unsetenv("TLP_FLAKY_FAIL");
  TL_ASSERT_OK(tl__plugin_import(TLP_FLAKY));
  TL_ASSERT_OK(tl__plugin_import(TLP_FLAKY));
  assert_int_equal(global_int("tlp_flaky.init_count"), 3);

  /* A missing file that appears later. */
  char dir[] = "/tmp/tlp_retry_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[512];
  snprintf(path, sizeof path, "%s/libtlp_late.so:tlp_noinit_setup", dir);
  TL_ASSERT_ERR(tl__plugin_import(path), TL_EUNAVAILABLE, "No such file or directory");
  char lib[512], cmd[1200];
  snprintf(lib, sizeof lib, "%s/libtlp_late.so", dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", TLP_NOINIT, lib);
  assert_int_equal(system(cmd), 0);
  TL_ASSERT_OK(tl__plugin_import(path));
  unlink(lib);
  rmdir(dir);
}

static atomic_int builtin_inits;
static tl_status builtin_init(const tl_plugin_host *host) {
  (void)host;
  atomic_fetch_add(&builtin_inits, 1);
  return TL_OK;
}

static void test_builtin_and_paths(void **state) {
  (void)state;
  TL_ASSERT_ERR(tl__plugin_import("builtin:test_plugin.nothing"), TL_EUNAVAILABLE,
                "no built-in backend is named 'test_plugin.nothing'");
  TL_ASSERT_OK(tl__plugin_register_builtin("test_plugin.builtin", builtin_init));
  TL_ASSERT_OK(tl__plugin_import("builtin:test_plugin.builtin"));
  TL_ASSERT_OK(tl__plugin_import("builtin:test_plugin.builtin"));
  assert_int_equal(atomic_load(&builtin_inits), 1);
  TL_ASSERT_ERR(tl__plugin_register_builtin("", builtin_init), TL_EINVAL, NULL);
  TL_ASSERT_ERR(tl__plugin_register_builtin("x", NULL), TL_EINVAL, NULL);
  TL_ASSERT_ERR(tl__plugin_import(""), TL_EINVAL, "import path must not be empty");
  TL_ASSERT_ERR(tl__plugin_import(NULL), TL_EINVAL, "import path must not be empty");
  TL_ASSERT_ERR(tl__plugin_import(":init"), TL_EINVAL, "names no library");
  /* A colon followed by a path is part of the file name, not a symbol. */
  TL_ASSERT_ERR(tl__plugin_import("/tmp/a:b/libx.so"), TL_EUNAVAILABLE, "Cannot load plugin '/tmp/a:b/libx.so'");
  assert_non_null(strstr(tl_last_error(), "'/tmp/a:b': No such file or directory"));
}

/* ----------------------------------------------------------- import schemes */

static atomic_int scheme_calls;
static atomic_bool scheme_fail;
static char scheme_last[64];
static const tl_device_codegen scheme_codegen = {"scheme_cg", {tlt_build, "scheme"}, {NULL, NULL}, tlt_model_is,
                                                 (void *)"scheme"};

/* An import function: records the name, registers a codegen (or fails on demand). */
static tl_status scheme_import(const char *name, void *user_data) {
  atomic_fetch_add(&scheme_calls, 1);
  snprintf(scheme_last, sizeof scheme_last, "%s", name);
  assert_string_equal((const char *)user_data, "ud");
  if (atomic_load(&scheme_fail)) return tl_set_error(TL_EINVAL, "the module raised");
  return tl_register_device_codegen("vulkan", &scheme_codegen, false);
}

static tl_status other_import(const char *name, void *user_data) {
  (void)name;
  (void)user_data;
  return TL_OK;
}

static void test_import_schemes(void **state) {
  (void)state;
  TL_ASSERT_ERR(tl_register_import_scheme("builtin", scheme_import, NULL, false), TL_EINVAL, "reserved");
  TL_ASSERT_ERR(tl_register_import_scheme("not an id", scheme_import, NULL, false), TL_EINVAL, "identifier");
  TL_ASSERT_ERR(tl_register_import_scheme(NULL, scheme_import, NULL, false), TL_EINVAL, "identifier");
  TL_ASSERT_ERR(tl_register_import_scheme("tltest", NULL, NULL, false), TL_EINVAL, "no import function");
  TL_ASSERT_OK(tl_register_import_scheme("tltest", scheme_import, "ud", false));
  TL_ASSERT_OK(tl_register_import_scheme("tltest", scheme_import, "ud", false)); /* the same again */
  TL_ASSERT_ERR(tl_register_import_scheme("tltest", other_import, NULL, false), TL_EEXIST,
                "Import scheme 'tltest' is already registered");
  TL_ASSERT_ERR(tl_register_lazy_device_codegen("vulkan", "tltest:"), TL_EINVAL, "names nothing to import");

  /* A failing import propagates with context and is retried by the next lookup. */
  tl_target *t = tlt_target("{\"kind\":\"vulkan\",\"model\":\"scheme\"}");
  atomic_store(&scheme_fail, true);
  TL_ASSERT_OK(tl_register_lazy_device_codegen("vulkan", "tltest:pkg.backend"));
  const tl_device_codegen *c = NULL;
  TL_ASSERT_ERR(tl_resolve_device_codegen(t, &c), TL_EINVAL, "while importing 'tltest:pkg.backend': the module raised");
  assert_int_equal(atomic_load(&scheme_calls), 1);
  assert_string_equal(scheme_last, "pkg.backend");
  atomic_store(&scheme_fail, false);
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_ptr_equal(c, &scheme_codegen);
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_int_equal(atomic_load(&scheme_calls), 2); /* imported once it succeeded */

  /* Override replaces the function for paths not imported yet. */
  TL_ASSERT_OK(tl_register_import_scheme("tltest", other_import, NULL, true));
  TL_ASSERT_OK(tl__plugin_import("tltest:another"));
  assert_int_equal(atomic_load(&scheme_calls), 2);
  /* A path of an unregistered scheme is still a library path. */
  TL_ASSERT_ERR(tl__plugin_import("noscheme:pkg.mod"), TL_EUNAVAILABLE, "Cannot load plugin 'noscheme:pkg.mod'");
  tl_target_release(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lazy_load_once_under_racing_threads),
    cmocka_unit_test(test_abi_agrees),
    cmocka_unit_test(test_symbol_form),
    cmocka_unit_test(test_missing_file),
    cmocka_unit_test(test_missing_symbols),
    cmocka_unit_test(test_abi_major_mismatch),
    cmocka_unit_test(test_retry_after_failure),
    cmocka_unit_test(test_builtin_and_paths),
    cmocka_unit_test(test_import_schemes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
