/* The plugin host table's ABI 1.1 services (what an out-of-tree backend uses through
 * plugin.h alone) and the lazy registration of backends: the table's version and
 * size; memory, errors and files; the shared GPU lowering with a plugin's
 * parameters (the same pass list as the in-tree pipelines); C-family code in a
 * plugin's dialect with the kernel table; kernel tables; execution backend
 * registration with struct_size discipline; and context resolution and listing
 * importing lazily registered plugins, a failing import being the answer. */
#include "backend/plugin_loader.h"
#include "backend_run.h"
#include "backends/gpu_pipeline.h"
#include "backends/lazy_plugins.h"
#include "backends/plugin_services.h"
#include "backends/webgpu/backend.h"
#include "codegen/gpu_dialects.h"

static const tl_plugin_host *host(void) {
  tl_backend_context *ctx = NULL; /* the built-ins (and the services) are registered on first use */
  TL_ASSERT_OK(tl_create_backend_context("c", NULL, "source", &ctx));
  tl_backend_context_release(ctx);
  return tl__plugin_host();
}

static void test_table(void **state) {
  (void)state;
  const tl_plugin_host *h = host();
  assert_int_equal(h->struct_size, sizeof(tl_plugin_host));
  assert_int_equal(h->abi_version, (1u << 16) | 1u);
  assert_true(TL_PLUGIN_HOST_HAS(h, gpu_lower));
  assert_true(TL_PLUGIN_HOST_HAS(h, read_file));
  /* Every service is there. */
  const void *const fns[] = {
    (const void *)h->alloc, (const void *)h->free, (const void *)h->set_errorf, (const void *)h->dtype_name,
    (const void *)h->gpu_lower, (const void *)h->c_device_source, (const void *)h->c_device_artifact,
    (const void *)h->artifact_kernel_table, (const void *)h->artifact_with_kernel_table,
    (const void *)h->module_kernel_table, (const void *)h->kernel_table_copy, (const void *)h->kernel_table_free,
    (const void *)h->kernel_table_bind_args, (const void *)h->launch_expr_eval, (const void *)h->register_exec_impl,
    (const void *)h->path_join, (const void *)h->write_file, (const void *)h->read_file,
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!fns[i]) fail_msg("host service %zu is NULL", i);
}

static void test_memory_errors_files(void **state) {
  (void)state;
  const tl_plugin_host *h = host();
  char *p = h->alloc(16);
  assert_non_null(p);
  h->free(p);
  h->free(NULL);
  tl__alloc_fail_after(1);
  p = h->alloc(16);
  tl__alloc_fail_after(0);
  assert_null(p);
  assert_non_null(strstr(h->last_error(), "out of memory"));
  assert_int_equal(h->set_errorf(TL_ECOMPILE, "build of %s failed: %d", "k.cl", 7), TL_ECOMPILE);
  assert_string_equal(h->last_error(), "build of k.cl failed: 7");
  char buf[16];
  assert_string_equal(h->dtype_name(TL_DT_BFLOAT16, buf, sizeof buf), "bfloat16");
  char *dir = br_mkdtemp();
  char *path = h->path_join(dir, "x.bin");
  assert_non_null(path);
  TL_ASSERT_OK(h->write_file(path, "ab\0c", 4));
  char *data = NULL;
  size_t size = 0;
  TL_ASSERT_OK(h->read_file(path, &data, &size));
  assert_int_equal(size, 4);
  assert_memory_equal(data, "ab\0c", 4);
  assert_int_equal(data[4], 0);
  h->free(data);
  unlink(path);
  TL_ASSERT_ERR(h->read_file(path, &data, &size), TL_EIO, "x.bin");
  TL_ASSERT_ERR(h->write_file(NULL, "", 0), TL_EINVAL, "write_file");
  h->free(path);
  br_rmdir(dir);
}

static const char *k_src =
  "import tilelang.language as T\n"
  "N = T.symbolic(\"N\")\n"
  "@T.prim_func\n"
  "def rs(A: T.Tensor((N, 64), \"float32\"), S: T.Tensor((N,), \"float32\")):\n"
  "    with T.Kernel(N, threads=32) as bx:\n"
  "        t = T.alloc_fragment((64,), \"float32\")\n"
  "        s = T.alloc_fragment((1,), \"float32\")\n"
  "        T.copy(A[bx, 0:64], t)\n"
  "        T.reduce_sum(t, s, dim=0)\n"
  "        S[bx] = s[0]\n";

/* gpu_lower is the shared pass list: with webgpu's numbers it lowers exactly as the
 * webgpu pipeline does; the parameters are checked. */
static void test_gpu_lower(void **state) {
  (void)state;
  const tl_plugin_host *h = host();
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse("webgpu", &t));
  tl_ir_module *a = pt_parse(k_src), *b = pt_parse(k_src);
  TL_ASSERT_OK(tl__pass_semantic_check(a, t));
  TL_ASSERT_OK(tl__pass_semantic_check(b, t));
  tl_gpu_lower_params p = {sizeof p, 1, 256, 16 * 1024, 16 * 1024, 16, "webgpu"};
  TL_ASSERT_OK(h->gpu_lower(a, t, &p));
  TL_ASSERT_OK(tl__webgpu_pipeline.lower(b, t, NULL));
  char *pa = tl_ir_print_module(a), *pb = tl_ir_print_module(b);
  assert_string_equal(pa, pb);
  assert_non_null(strstr(pa, "tl.launch_convention = \"webgpu\""));
  tl_free(pa);
  tl_free(pb);
  /* The target's thread_warp_size wins over the plugin's default. */
  tl_target *t32 = NULL;
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"webgpu\",\"supports_subgroups\":true}", &t32));
  tl_ir_module *c = pt_parse(k_src);
  TL_ASSERT_OK(tl__pass_semantic_check(c, t32));
  TL_ASSERT_OK(h->gpu_lower(c, t32, &p));
  char *pc = tl_ir_print_module(c);
  assert_non_null(strstr(pc, "T.warp_shfl_xor"));
  tl_free(pc);
  tl_ir_module *d = pt_parse(k_src);
  tl_gpu_lower_params bad = p;
  bad.struct_size = 16;
  TL_ASSERT_ERR(h->gpu_lower(d, t, &bad), TL_EINVAL, "smaller than the first version's");
  bad = p;
  bad.max_threads = 0;
  TL_ASSERT_ERR(h->gpu_lower(d, t, &bad), TL_EINVAL, "max_threads and vector_bytes must be positive");
  TL_ASSERT_ERR(h->gpu_lower(d, t, NULL), TL_EINVAL, "gpu_lower");
  bad = p;
  bad.struct_size = 0; /* the current size */
  TL_ASSERT_OK(tl__pass_semantic_check(d, t));
  TL_ASSERT_OK(h->gpu_lower(d, t, &bad));
  tl_ir_module_free(a);
  tl_ir_module_free(b);
  tl_ir_module_free(c);
  tl_ir_module_free(d);
  tl_target_release(t);
  tl_target_release(t32);
}

/* c_device_artifact: the plugin's dialect, the format it names, the table; and the
 * table services on it. */
static void test_codegen_and_tables(void **state) {
  (void)state;
  const tl_plugin_host *h = host();
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse("hip", &t));
  tl_ir_module *m = pt_parse(k_src);
  TL_ASSERT_OK(tl__pass_semantic_check(m, t));
  tl_gpu_lower_params p = {sizeof p, 64, 1024, 64 * 1024, 64 * 1024, 16, "plugin"};
  TL_ASSERT_OK(h->gpu_lower(m, t, &p));
  tl_artifact *a = NULL;
  TL_ASSERT_OK(h->c_device_artifact(m, &tl__c_dialect_hip, "myformat", &a));
  assert_string_equal(h->artifact_format(a), "myformat");
  assert_non_null(strstr(h->artifact_source(a), "extern \"C\" __global__ void rs_kernel("));
  const tl_kernel_table *table = h->artifact_kernel_table(a);
  assert_non_null(table);
  assert_string_equal(table->entry, "rs");
  assert_int_equal(table->nsyms, 1);
  assert_string_equal(table->launches[0].symbol, "rs_kernel");
  /* grid = N, bound from A's first dimension */
  int64_t syms[1] = {37}, v = 0;
  assert_true(h->launch_expr_eval(&table->launches[0].grid[0], syms, 1, &v));
  assert_int_equal(v, 37);
  tl_kernel_table *own = NULL, *copy = NULL;
  TL_ASSERT_OK(h->module_kernel_table(m, &own));
  TL_ASSERT_OK(h->kernel_table_copy(own, &copy));
  char *j1 = tl_kernel_table_to_json(table), *j2 = tl_kernel_table_to_json(copy);
  assert_string_equal(j1, j2);
  tl_free(j1);
  tl_free(j2);
  /* bind_args: the table's checks */
  float data[3 * 64], out[3];
  int64_t sa[2] = {3, 64}, ss[1] = {2};
  DLTensor ta = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sa, NULL, 0};
  DLTensor ts = {out, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, ss, NULL, 0};
  tl_value args[2] = {tl_value_tensor((struct DLTensor *)&ta), tl_value_tensor((struct DLTensor *)&ts)};
  TL_ASSERT_ERR(h->kernel_table_bind_args(copy, args, 2, kDLCPU, syms), TL_EINVAL,
                "argument 'S': dimension 0 must equal N (=3 from argument 'A') but is 2");
  ss[0] = 3;
  TL_ASSERT_OK(h->kernel_table_bind_args(copy, args, 2, kDLCPU, syms));
  assert_int_equal(syms[0], 3);
  tl_artifact *with = NULL;
  TL_ASSERT_OK(h->artifact_with_kernel_table(a, copy, &with));
  assert_non_null(h->artifact_kernel_table(with));
  h->artifact_release(with);
  h->kernel_table_free(own);
  h->kernel_table_free(copy);
  h->artifact_release(a);
  /* Errors of the printer come back as they are. */
  TL_ASSERT_ERR(h->c_device_artifact(m, &tl__c_dialect_metal, "", &a), TL_EINVAL, "format must not be empty");
  tl_c_dialect no_shfl = tl__c_dialect_hip;
  no_shfl.warp_shfl_xor = NULL;
  TL_ASSERT_ERR(h->c_device_artifact(m, &no_shfl, "hip", &a), TL_EUNSUPPORTED,
                "the hip dialect has no warp shuffles (T.warp_shfl_xor)");
  char *src = NULL;
  TL_ASSERT_ERR(h->c_device_source(NULL, &tl__c_dialect_hip, &src), TL_EINVAL, "module must not be NULL");
  tl_ir_module_free(m);
  tl_target_release(t);
}

/* ------------------------------------------------------- exec implementations */

static const char *const k_files[] = {"x", NULL};
static const char *fake_identity(const tl_build_request *r) {
  (void)r;
  return "fake";
}
static tl_status fake_build(const tl_build_request *r, const char *dir) {
  (void)r, (void)dir;
  return TL_OK;
}
static tl_status fake_load(const tl_build_request *r, const char *dir, tl_loaded_kernel *out) {
  (void)r, (void)dir, (void)out;
  return TL_EUNSUPPORTED;
}

static void test_register_exec_impl(void **state) {
  (void)state;
  const tl_plugin_host *h = host();
  static const tl_exec_impl impl = {sizeof(tl_exec_impl), "plugin_fake", k_files, fake_identity, fake_build, fake_load};
  static const tl_exec_impl again = {0, "plugin_fake", k_files, fake_identity, fake_build, fake_load};
  static const tl_exec_impl small = {8, "plugin_small", k_files, fake_identity, fake_build, fake_load};
  static const tl_exec_impl partial = {0, "plugin_partial", k_files, NULL, fake_build, fake_load};
  static const tl_exec_impl taken = {0, "native", k_files, fake_identity, fake_build, fake_load};
  TL_ASSERT_OK(h->register_exec_impl(&impl));
  TL_ASSERT_OK(h->register_exec_impl(&impl)); /* the same descriptor: nothing to do */
  const tl__exec_impl *found = tl__find_exec_impl("plugin_fake");
  assert_non_null(found);
  assert_ptr_equal(found->identity, fake_identity); /* the plugin's functions, called directly */
  assert_ptr_equal(found->files, k_files);
  TL_ASSERT_ERR(h->register_exec_impl(&again), TL_EEXIST, "'plugin_fake' is already registered");
  TL_ASSERT_ERR(h->register_exec_impl(&small), TL_EINVAL, "struct_size 8, smaller than the first version's");
  TL_ASSERT_ERR(h->register_exec_impl(&partial), TL_EINVAL, "must define files, identity, build and load");
  TL_ASSERT_ERR(h->register_exec_impl(&taken), TL_EEXIST, "'native' is already registered");
  TL_ASSERT_ERR(h->register_exec_impl(NULL), TL_EINVAL, "must not be NULL");
  assert_null(tl__find_exec_impl("plugin_small"));
  assert_null(tl__find_exec_impl("plugin_partial"));
}

static tl_status oom_register(void *ctx) {
  (void)ctx;
  static const tl_exec_impl impl = {0, "plugin_oom", k_files, fake_identity, fake_build, fake_load};
  return tl__plugin_host()->register_exec_impl(&impl);
}

static void check_not_registered(void *ctx) {
  (void)ctx;
  tl__alloc_fail_after(0);
  assert_null(tl__find_exec_impl("plugin_oom"));
}

static void test_register_exec_impl_oom(void **state) {
  (void)state;
  host();
  tl_oom_sweep(oom_register, check_not_registered, NULL);
  assert_non_null(tl__find_exec_impl("plugin_oom"));
}

/* ------------------------------------------------------------ lazy backends */

static void test_lazy_context_resolution(void **state) {
  (void)state;
  host();
  /* A kind whose backend comes with a plugin: the first context imports it. */
  TL_ASSERT_OK(tl_register_lazy_device_codegen("nvptx", TLP_GOOD));
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("{\"kind\":\"nvptx\",\"model\":\"tlp_good\"}", NULL, NULL, &ctx));
  assert_string_equal(tl_backend_context_name(ctx), "tlp_good");
  tl_backend_context_release(ctx);
  /* A lazy path that does not load: the context says why, every time. */
  TL_ASSERT_OK(tl_register_lazy_device_codegen("vulkan", TLP_DIR "/no-such-plugin.so"));
  for (int i = 0; i < 2; i++)
    TL_ASSERT_ERR(tl_create_backend_context("vulkan", NULL, NULL, &ctx), TL_EUNAVAILABLE,
                  "Cannot load plugin '" TLP_DIR "/no-such-plugin.so'");
  /* Listing imports what loads and leaves out what does not. */
  const tl_backend_module *all[32];
  size_t n = tl_list_backends(all, 32);
  bool good = false, opencl = false;
  for (size_t i = 0; i < n && i < 32; i++) {
    good |= strcmp(all[i]->name, "tlp_good") == 0;
    opencl |= strcmp(all[i]->name, "opencl") == 0;
  }
  assert_true(good);
  assert_true(opencl); /* the in-tree lazy plugin */
  assert_string_equal(tl_last_error(), "");
  /* An unknown kind's message lists the lazily registered kinds too. */
  TL_ASSERT_ERR(tl_create_backend_context("{\"kind\":\"llvm\"}", NULL, NULL, &ctx), TL_ENOTFOUND,
                "No backend registered for target kind 'llvm'. Available: c, cuda, hip, metal, nvptx, opencl, webgpu");
  /* The in-tree plugin's path: next to the library, in the build tree, or installed. */
  char path[4096];
  TL_ASSERT_OK(tl__plugin_default_path(NULL, "libtilelang-opencl.so", path, sizeof path));
  assert_non_null(strstr(path, "/tilelang/plugins/libtilelang-opencl.so"));
  setenv("TLT_PLUGIN_OVERRIDE", "/opt/x/libmine.so", 1);
  TL_ASSERT_OK(tl__plugin_default_path("TLT_PLUGIN_OVERRIDE", "libtilelang-opencl.so", path, sizeof path));
  assert_string_equal(path, "/opt/x/libmine.so");
  unsetenv("TLT_PLUGIN_OVERRIDE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_memory_errors_files),
    cmocka_unit_test(test_gpu_lower),
    cmocka_unit_test(test_codegen_and_tables),
    cmocka_unit_test(test_register_exec_impl),
    cmocka_unit_test(test_register_exec_impl_oom),
    cmocka_unit_test(test_lazy_context_resolution),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
