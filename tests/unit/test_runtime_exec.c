/* Execution backend implementations: the registry, identities, files written,
 * compiler errors (TL_ECOMPILE with the compiler's output and the source path), load
 * failures, the source backend's refusal naming what is missing, and kernel objects
 * (accessors, ownership of the loaded state, OOM). */
#include <sys/stat.h>

#include "base/error.h"
#include "base/files.h"
#include "lowered_fixtures.h"
#include "runtime_test.h"

/* ------------------------------------------------------------- registry */

static tl_status fake_build(const tl__build_request *req, const char *dir) {
  (void)req, (void)dir;
  return TL_OK;
}
static tl_status fake_load(const tl__build_request *req, const char *dir, tl__loaded *out) {
  (void)req, (void)dir, (void)out;
  return TL_EUNSUPPORTED;
}
static const char *fake_identity(const tl__build_request *req) {
  (void)req;
  return "fake";
}
static const char *const fake_files[] = {"x", NULL};

static void test_registry(void **state) {
  (void)state;
  assert_ptr_equal(tl__find_exec_impl("native"), &tl__exec_native);
  assert_ptr_equal(tl__find_exec_impl("source"), &tl__exec_source);
#ifdef TL_HAVE_LIBTCC
  assert_ptr_equal(tl__find_exec_impl("tcc"), &tl__exec_tcc);
#endif
  assert_null(tl__find_exec_impl("Native"));
  assert_ptr_equal(tl__find_exec_impl("nvrtc"), &tl__exec_nvrtc);
  assert_ptr_equal(tl__find_exec_impl("nvcc"), &tl__exec_nvcc);
  assert_null(tl__find_exec_impl("NVRTC"));
  assert_null(tl__find_exec_impl(NULL));
  static const tl__exec_impl fake = {"fake", fake_files, fake_identity, fake_build, fake_load, NULL};
  static const tl__exec_impl fake2 = {"fake", fake_files, fake_identity, fake_build, fake_load, NULL};
  static const tl__exec_impl nameless = {"", fake_files, fake_identity, fake_build, fake_load, NULL};
  static const tl__exec_impl partial = {"partial", fake_files, NULL, fake_build, fake_load, NULL};
  TL_ASSERT_OK(tl__register_exec_impl(&fake));
  TL_ASSERT_OK(tl__register_exec_impl(&fake)); /* same pointer: nothing to do */
  TL_ASSERT_ERR(tl__register_exec_impl(&fake2), TL_EEXIST, "Execution backend implementation 'fake' is already registered");
  TL_ASSERT_ERR(tl__register_exec_impl(&nameless), TL_EINVAL, "must have a name");
  TL_ASSERT_ERR(tl__register_exec_impl(&partial), TL_EINVAL, "must define files, identity, build and load");
  assert_ptr_equal(tl__find_exec_impl("fake"), &fake);
  TL_ASSERT_OK(tl__runtime_register_builtins()); /* idempotent */
}

/* ----------------------------------------------------------- identities */

static void test_identities(void **state) {
  (void)state;
  tl__build_request req = {0};
  if (tl__native_available()) {
    const char *id = tl__exec_native.identity(&req);
    assert_non_null(id);
    assert_non_null(strstr(id, "|-O3 -fPIC -shared"));
    assert_non_null(strstr(id, " -march=native|cpu=")); /* a host-ISA build is keyed on the CPU */
    /* a target that names its CPU is keyed by the target, not by the host */
    tl_target *t = NULL;
    TL_ASSERT_OK(tl_target_parse("{\"kind\": \"c\", \"mcpu\": \"x86-64-v2\"}", &t));
    tl__build_request portable = {.target = t};
    const char *pid = tl__exec_native.identity(&portable);
    assert_non_null(pid);
    assert_null(strstr(pid, "cpu="));
    tl_target_release(t);
    assert_true(strchr(id, '|') > id); /* the compiler's version line first */
    assert_ptr_equal(tl__exec_native.identity(&req), id); /* computed once */
    assert_int_equal(tl__native_has_openmp(), strstr(id, "-fopenmp") != NULL);
    assert_null(tl__native_unavailable_reason());
  }
#ifdef TL_HAVE_LIBTCC
  if (tl__tcc_available()) {
    const char *id = tl__exec_tcc.identity(&req);
    assert_non_null(id);
    assert_true(tl__str_starts_with(id, "tcc 0."));
    assert_null(tl__tcc_unavailable_reason());
  }
#endif
  assert_string_equal(tl__exec_source.identity(&req), "source");
}

/* ---------------------------------------------------------- build, load */

static bool file_exists(const char *dir, const char *name) {
  char *p = tl__format("%s/%s", dir, name);
  struct stat st;
  bool ok = stat(p, &st) == 0;
  tl__free(p);
  return ok;
}

static void request(tl_ir_module *m, tl__build_request *req, tl_artifact **device, tl_artifact **host,
                    tl_target **target) {
  rt_codegen(m, device, host);
  TL_ASSERT_OK(tl_target_parse("c", target));
  *req = (tl__build_request){"vadd", *target, *device, *host, tl_artifact_kernel_table(*device), NULL};
}

/* native and tcc write what their `files` list says, and the translation unit is
 * device code then host code. */
static void test_files(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  tl__build_request req;
  tl_artifact *device, *host;
  tl_target *c;
  request(m, &req, &device, &host, &c);
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) {
    const tl__exec_impl *impl = tl__find_exec_impl(runners[r]);
    char *dir = rt_mkdtemp();
    TL_ASSERT_OK(impl->build(&req, dir));
    for (size_t i = 0; impl->files[i]; i++) assert_true(file_exists(dir, impl->files[i]));
    char *path = tl__format("%s/kernel.c", dir), *text = NULL;
    TL_ASSERT_OK(tl__file_read(path, &text, NULL));
    char *want = tl__format("%s\n%s", tl_artifact_source(device), tl_artifact_source(host));
    assert_string_equal(text, want);
    tl__loaded loaded = {0};
    TL_ASSERT_OK(impl->load(&req, dir, &loaded));
    loaded.destroy(loaded.state);
    /* A build without host code is refused: these backends run the host entry. */
    tl__build_request nohost = req;
    nohost.host = NULL;
    TL_ASSERT_ERR(impl->build(&nohost, dir), TL_EINVAL, "needs host code");
    tl__free(want), tl__free(text), tl__free(path);
    rt_rmdir(dir);
  }
  tl_artifact_release(device), tl_artifact_release(host), tl_target_release(c);
  tl_ir_module_free(m);
}

/* A compiler that rejects the code: TL_ECOMPILE with its output and the path. */
static void test_compile_errors(void **state) {
  (void)state;
  tl_artifact *device, *host;
  TL_ASSERT_OK(tl_artifact_create("c", "static void vadd_kernel(void) { int x = ; }\n", &device));
  TL_ASSERT_OK(tl_artifact_create("c", "int vadd(void) { return undeclared_thing; }\n", &host));
  tl_target *c;
  TL_ASSERT_OK(tl_target_parse("c", &c));
  tl__build_request req = {"vadd", c, device, host, NULL, NULL};
  if (tl__native_available()) {
    char *dir = rt_mkdtemp();
    TL_ASSERT_ERR(tl__exec_native.build(&req, dir), TL_ECOMPILE, "C compiler '");
    char *where = tl__format("failed (exit status 1) on %s/kernel.c:\n", dir);
    assert_non_null(strstr(tl_last_error(), where));
    assert_non_null(strstr(tl_last_error(), "undeclared_thing")); /* the compiler's own words */
    assert_non_null(strstr(tl_last_error(), "kernel.c:1:"));
    tl__free(where);
    /* loading what was never built */
    tl__loaded loaded;
    TL_ASSERT_ERR(tl__exec_native.load(&req, dir, &loaded), TL_EIO, "cannot load '");
    rt_rmdir(dir);
  }
#ifdef TL_HAVE_LIBTCC
  if (tl__tcc_available()) {
    char *dir = rt_mkdtemp();
    TL_ASSERT_OK(tl__exec_tcc.build(&req, dir)); /* tcc compiles when loading */
    tl__loaded loaded;
    TL_ASSERT_ERR(tl__exec_tcc.load(&req, dir, &loaded), TL_ECOMPILE, "tcc failed on ");
    char *where = tl__format("%s/kernel.c:", dir);
    assert_non_null(strstr(tl_last_error(), where));
    tl__free(where);
    rt_rmdir(dir);
    dir = rt_mkdtemp();
    TL_ASSERT_ERR(tl__exec_tcc.load(&req, dir, &loaded), TL_EIO, "cannot read");
    rt_rmdir(dir);
  }
#endif
  tl_artifact_release(device), tl_artifact_release(host);
  tl_target_release(c);
}

/* A library without the entry the table names. */
static void test_missing_entry(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  tl__build_request req;
  tl_artifact *device, *host;
  tl_target *c;
  request(m, &req, &device, &host, &c);
  req.table = NULL;
  req.func_name = "not_there";
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) {
    const tl__exec_impl *impl = tl__find_exec_impl(runners[r]);
    char *dir = rt_mkdtemp();
    TL_ASSERT_OK(impl->build(&req, dir));
    tl__loaded loaded;
    TL_ASSERT_ERR(impl->load(&req, dir, &loaded), TL_EINTERNAL, "has no host entry 'not_there'");
    rt_rmdir(dir);
  }
  tl_artifact_release(device), tl_artifact_release(host), tl_target_release(c);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------- source */

static bool never(void *user_data) {
  (void)user_data;
  return false;
}
static const char *why_not(void *user_data) { return user_data; }
static bool on_vulkan(const tl_target *t, void *user_data) {
  (void)user_data;
  return strcmp(tl_target_kind(t), "vulkan") == 0;
}

static tl_status noop_lower(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)mod, (void)target, (void)user_data;
  return TL_OK;
}

static void test_source(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  tl__build_request req;
  tl_artifact *device, *host;
  tl_target *c;
  request(m, &req, &device, &host, &c);
  char *dir = rt_mkdtemp();
  TL_ASSERT_OK(tl__exec_source.build(&req, dir));
  assert_true(file_exists(dir, "device.c"));
  assert_true(file_exists(dir, "host.c"));
  char *list_path = tl__format("%s/sources.txt", dir), *list = NULL;
  TL_ASSERT_OK(tl__file_read(list_path, &list, NULL));
  assert_string_equal(list, "device.c\nhost.c\n");
  tl__loaded loaded;
  TL_ASSERT_OK(tl__exec_source.load(&req, dir, &loaded));
  tl__kernel_desc d = {"vadd", c, "source", req.table, tl_artifact_source(device), tl_artifact_source(host), false, NULL};
  tl_kernel *k;
  TL_ASSERT_OK(tl__kernel_create(&d, loaded, &k));
  float a[1];
  host_tensor ha;
  tl_value args[1] = {ht_wrap(&ha, TL_DT_FLOAT32, a, 1, 1, 0)};
  TL_ASSERT_ERR(tl_kernel_call(k, args, 1, NULL), TL_EUNSUPPORTED,
                "Kernel 'vadd' was built with execution backend 'source', which only writes code and cannot run it");
  const char *runners[2];
  size_t nr = rt_runners(runners);
  if (nr == 2) assert_non_null(strstr(tl_last_error(), ": to run it, use execution backends native, tcc"));
  assert_string_equal(tl_kernel_execution_backend(k), "source");
  assert_string_equal(tl_kernel_device_source(k), tl_artifact_source(device));
  tl_kernel_release(k);
  tl__free(list), tl__free(list_path);
  rt_rmdir(dir);

  /* A backend whose runtimes are missing: the message names each and why. A cubin
   * artifact's bytes are written as they are. */
  static const tl_pass_pipeline pipe = {"vulkan", noop_lower, NULL};
  static const tl_device_codegen dc = {"spv", {NULL, NULL}, {NULL, NULL}, NULL, NULL};
  static const tl_execution_backend_spec gpu = {"fancy", never, NULL, "no fancy hardware here", false, true, why_not};
  static const tl_execution_backend_spec quiet = {"quiet", never, NULL, NULL, false, true, NULL};
  static const tl_execution_backend_spec src = {"source", NULL, NULL, NULL, false, false, NULL};
  static const tl_execution_backend_spec *const specs[] = {&gpu, &quiet, &src, NULL};
  static const char *const kinds[] = {"vulkan", NULL};
  static const tl_pipeline_entry pipes[] = {{"vulkan", &pipe}, {NULL, NULL}};
  static const tl_device_codegen_entry dcs[] = {{"vulkan", &dc}, {NULL, NULL}};
  static const tl_backend_module vk = {sizeof(tl_backend_module), "test_runtime.vk", kinds, pipes, dcs, specs,
                                       on_vulkan, NULL, NULL, NULL, NULL};
  TL_ASSERT_OK(tl_register_backend(&vk, NULL));
  tl_target *v;
  TL_ASSERT_OK(tl_target_parse("vulkan", &v));
  tl_artifact *bin;
  TL_ASSERT_OK(tl_artifact_create_binary("cubin", "", "\x7f" "ELF", 4, &bin));
  tl__build_request vreq = {"f", v, bin, NULL, NULL, NULL};
  dir = rt_mkdtemp();
  TL_ASSERT_OK(tl__exec_source.build(&vreq, dir));
  assert_true(file_exists(dir, "device.cubin"));
  assert_false(file_exists(dir, "host.c"));
  TL_ASSERT_OK(tl__exec_source.load(&vreq, dir, &loaded));
  TL_ASSERT_ERR(loaded.call(loaded.state, NULL, 0, NULL), TL_EUNSUPPORTED, NULL);
  TL_ASSERT_MSG("Kernel 'f' was built with execution backend 'source', which only writes code and cannot run it: "
                "'fancy' is not available (no fancy hardware here); 'quiet' is not available (no reason given)");
  loaded.destroy(loaded.state);
  rt_rmdir(dir);
  tl_artifact_release(bin);
  tl_target_release(v);
  tl_artifact_release(device), tl_artifact_release(host), tl_target_release(c);
  tl_ir_module_free(m);
}

/* -------------------------------------------------------------- kernels */

static int g_destroyed;
static tl_status answer_call(void *state, const tl_value *args, int nargs, void *stream) {
  (void)args, (void)stream;
  return nargs == *(int *)state ? TL_OK : tl__error(TL_EINVAL, "wrong count");
}
static void count_destroy(void *state) {
  (void)state;
  g_destroyed++;
}

static void test_kernel_object(void **state) {
  (void)state;
  static int three = 3;
  tl_target *c;
  TL_ASSERT_OK(tl_target_parse("c", &c));
  tl_kernel_table *t = vadd_table(TL_DT_FLOAT32);
  tl__kernel_desc d = {"vadd", c, "native", t, "device text", NULL, true, NULL};
  tl_kernel *k;
  g_destroyed = 0;
  TL_ASSERT_OK(tl__kernel_create(&d, (tl__loaded){&three, answer_call, count_destroy}, &k));
  tl_kernel_table_free(t); /* copied */
  assert_string_equal(tl_kernel_name(k), "vadd");
  assert_string_equal(tl_kernel_execution_backend(k), "native");
  assert_true(tl_target_equal(tl_kernel_target(k), c));
  assert_string_equal(tl_kernel_get_table(k)->entry, "vadd");
  assert_string_equal(tl_kernel_device_source(k), "device text");
  assert_string_equal(tl_kernel_host_source(k), "");
  assert_true(tl_kernel_from_cache(k));
  TL_ASSERT_ERR(tl_kernel_call(k, NULL, 0, NULL), TL_EINVAL, "wrong count");
  tl_value none[3] = {{0}};
  TL_ASSERT_OK(tl_kernel_call(k, none, 3, NULL));
  TL_ASSERT_ERR(tl_kernel_call(k, none, -1, NULL), TL_EINVAL, "-1 arguments");
  /* a host kernel has no device memory: kDLCPU, and the memory calls say so */
  assert_int_equal(tl_kernel_device_type(k), 1);
  void *p = &three;
  TL_ASSERT_ERR(tl_kernel_device_alloc(k, 0, 16, &p), TL_EUNSUPPORTED,
                "execution backend 'native' runs kernel 'vadd' on host memory (kDLCPU tensors); it has no device memory");
  assert_null(p);
  TL_ASSERT_ERR(tl_kernel_copy_to_device(k, 0, &three, &three, 4), TL_EUNSUPPORTED, "tl_kernel_copy_to_device");
  TL_ASSERT_ERR(tl_kernel_copy_to_host(k, 0, &three, &three, 4), TL_EUNSUPPORTED, "tl_kernel_copy_to_host");
  TL_ASSERT_OK(tl_kernel_device_synchronize(k, 0));
  tl_kernel_device_free(k, 0, &three); /* nothing to free: ignored */
  TL_ASSERT_ERR(tl_kernel_device_alloc(NULL, 0, 16, &p), TL_EINVAL, "kernel must not be NULL");
  assert_ptr_equal(tl_kernel_retain(k), k);
  tl_kernel_release(k);
  assert_int_equal(g_destroyed, 0);
  tl_kernel_release(k);
  assert_int_equal(g_destroyed, 1);
  tl_kernel_release(NULL);
  assert_null(tl_kernel_name(NULL));
  assert_false(tl_kernel_from_cache(NULL));
  /* Bad descriptions are refused and the loaded state is still destroyed. */
  tl__kernel_desc bad = {NULL, c, "native", NULL, NULL, NULL, false, NULL};
  TL_ASSERT_ERR(tl__kernel_create(&bad, (tl__loaded){&three, answer_call, count_destroy}, &k), TL_EINVAL, "needs a name");
  assert_int_equal(g_destroyed, 2);
  TL_ASSERT_ERR(tl__kernel_create(&d, (tl__loaded){&three, NULL, count_destroy}, &k), TL_EINVAL, "call function");
  assert_int_equal(g_destroyed, 3);
  tl_target_release(c);
}

typedef struct oom_ctx {
  tl__kernel_desc d;
} oom_ctx;

static tl_status oom_create(void *ctx) {
  oom_ctx *o = ctx;
  static int three = 3;
  int before = g_destroyed;
  tl_kernel *k = NULL;
  tl_status s = tl__kernel_create(&o->d, (tl__loaded){&three, answer_call, count_destroy}, &k);
  if (s != TL_OK && g_destroyed != before + 1) fail_msg("the loaded state was not destroyed on failure");
  tl_kernel_release(k);
  return s;
}

static void test_kernel_oom(void **state) {
  (void)state;
  tl_target *c;
  TL_ASSERT_OK(tl_target_parse("c", &c));
  tl_kernel_table *t = vadd_table(TL_DT_FLOAT16);
  oom_ctx o = {{"vadd", c, "tcc", t, "d", "h", false, NULL}};
  assert_true(tl_oom_sweep(oom_create, NULL, &o) >= 5);
  tl_kernel_table_free(t);
  tl_target_release(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_registry),    cmocka_unit_test(test_identities), cmocka_unit_test(test_files),
    cmocka_unit_test(test_compile_errors), cmocka_unit_test(test_missing_entry), cmocka_unit_test(test_source),
    cmocka_unit_test(test_kernel_object), cmocka_unit_test(test_kernel_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
