/* The launch paths of the nvrtc and nvcc execution backends against a fake CUDA
 * driver (fake_libcuda.c as libcuda.so.1, through LD_LIBRARY_PATH): one module
 * load per device and kernel object, the function looked up by its symbol, the
 * dynamic shared memory limit raised once, grid, block, shared memory, stream and
 * every parameter as the kernel's C types hold them (tensors' data + byte_offset,
 * float and int8 scalars, symbolic dims), the launch in the device's primary
 * context with the caller's context restored (also after a failure), no context
 * switch when the right one is current, nothing launched for an empty grid, a
 * driver failure reported with its name, same-named kernels of two compilations
 * in their own modules, and everything unloaded and released at the end. */
#include <dlfcn.h>

#include "cuda_test.h"
#include "fake_cuda.h"
#include "runtime/cuda_driver.h"
#include "runtime/nvcc_tool.h"
#include "tilelang/engine.h"

static fake_reset_fn fake_reset;
static fake_get_fn fake_get;
static fake_set_param_sizes_fn fake_set_param_sizes;
static fake_fail_launch_fn fake_fail_launch;
static fake_context_fn fake_context;
static const tl__cuda_driver *g_cu;

#define SYM(var, name)                          \
  do {                                          \
    void *p_ = dlsym(h, name);                  \
    if (!p_) return false;                      \
    memcpy(&var, &p_, sizeof p_);               \
  } while (0)

/* The fake, if the library's libcuda.so.1 is it. */
static bool open_fake(void) {
  if (tl__cuda_driver_get(&g_cu) != TL_OK) return false;
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) return false;
  SYM(fake_reset, "fake_reset");
  SYM(fake_get, "fake_get");
  SYM(fake_set_param_sizes, "fake_set_param_sizes");
  SYM(fake_fail_launch, "fake_fail_launch");
  SYM(fake_context, "fake_context");
  return true;
}

static int setup(void **state) {
  (void)state;
  if (!open_fake()) {
    print_message("the fake CUDA driver is not libcuda.so.1 here (run through ctest, which sets LD_LIBRARY_PATH)\n");
    return -1;
  }
  return 0;
}

static tl_kernel *compile(const char *src_or_file, const char *func, const char *exec, bool file) {
  tl_ir_module *m = NULL;
  if (file) {
    const cuda_example ex = {src_or_file, "fake", {{0}}, 0, 0, 0};
    m = cuda_parse_example(&ex);
  } else {
    TL_ASSERT_OK(tl_ir_parse(src_or_file, "k.py", NULL, &m));
  }
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = "{\"kind\":\"cuda\",\"arch\":\"sm_90a\"}";
  o.execution_backend = exec;
  tl_kernel *k = NULL;
  if (tl_compile(m, func, &o, &k) != TL_OK) fail_msg("tl_compile (%s): %s", exec, tl_last_error());
  tl_ir_module_free(m);
  return k;
}

/* A "device" tensor (host memory the fake does not touch). */
typedef struct tensor {
  DLTensor t;
  int64_t shape[2];
  float data[1100] __attribute__((aligned(16)));
} tensor;

static tl_value vec(tensor *x, int64_t n, int device) {
  memset(&x->t, 0, sizeof x->t);
  x->shape[0] = n;
  x->t.data = x->data;
  x->t.device.device_type = kDLCUDA;
  x->t.device.device_id = device;
  x->t.ndim = 1;
  x->t.dtype.code = kDLFloat;
  x->t.dtype.bits = 32;
  x->t.dtype.lanes = 1;
  x->t.shape = x->shape;
  return tl_value_tensor((struct DLTensor *)(void *)&x->t);
}

static uint64_t param_u64(const fake_launch *l, int i) {
  uint64_t v;
  memcpy(&v, l->params[i], 8);
  return v;
}
static int32_t param_i32(const fake_launch *l, int i) {
  int32_t v;
  memcpy(&v, l->params[i], 4);
  return v;
}

static void *current(void) {
  tl__CUcontext c = NULL;
  g_cu->cuCtxGetCurrent(&c);
  return c;
}

static bool have(const char *exec) {
  if (!strcmp(exec, "nvrtc") && !tl__nvrtc_available()) return false;
  if (!strcmp(exec, "nvcc") && !tl__nvcc_available()) return false;
  return true;
}

static void check_vector_add(const char *exec) {
  tl_kernel *k = compile("vector_add.py", NULL, exec, true);
  static tensor a, b, c;
  tl_value args[3] = {vec(&a, 1000, 0), vec(&b, 1000, 0), vec(&c, 1000, 0)};
  static const size_t sizes[4] = {8, 8, 8, 4};
  fake_reset();
  fake_set_param_sizes(sizes, 4);
  g_cu->cuCtxSetCurrent(NULL);
  void *stream = (void *)(uintptr_t)0x1234;
  TL_ASSERT_OK(tl_kernel_call(k, args, 3, stream));
  fake_stats s;
  fake_get(&s);
  assert_int_equal(s.module_loads, 1);
  assert_int_equal(s.launches, 1);
  assert_string_equal(s.last.name, "vector_add_kernel");
  assert_int_equal(s.last.grid[0], 4);
  assert_int_equal(s.last.grid[1], 1);
  assert_int_equal(s.last.grid[2], 1);
  assert_int_equal(s.last.block[0], 256);
  assert_int_equal(s.last.block[1], 1);
  assert_int_equal(s.last.shared, 0);
  assert_ptr_equal(s.last.stream, stream);
  assert_ptr_equal(s.last.ctx, fake_context(0));
  assert_int_equal(s.last.device, 0);
  assert_int_equal(param_u64(&s.last, 0), (uint64_t)(uintptr_t)a.data);
  assert_int_equal(param_u64(&s.last, 1), (uint64_t)(uintptr_t)b.data);
  assert_int_equal(param_u64(&s.last, 2), (uint64_t)(uintptr_t)c.data);
  assert_int_equal(param_i32(&s.last, 3), 1000);
  assert_null(current()); /* the caller's (none) again */
  /* the module stays loaded; a byte offset moves the pointer; N changes the grid */
  a.t.byte_offset = 16;
  a.shape[0] = b.shape[0] = c.shape[0] = 257;
  TL_ASSERT_OK(tl_kernel_call(k, args, 3, NULL));
  fake_get(&s);
  assert_int_equal(s.module_loads, 1);
  assert_int_equal(s.launches, 2);
  assert_int_equal(param_u64(&s.last, 0), (uint64_t)(uintptr_t)a.data + 16);
  assert_int_equal(param_i32(&s.last, 3), 257);
  assert_int_equal(s.last.grid[0], 2);
  assert_null(s.last.stream);
  a.t.byte_offset = 0;
  /* an empty grid launches nothing */
  a.shape[0] = b.shape[0] = c.shape[0] = 0;
  TL_ASSERT_OK(tl_kernel_call(k, args, 3, NULL));
  fake_get(&s);
  assert_int_equal(s.launches, 2);
  a.shape[0] = b.shape[0] = c.shape[0] = 1000;
  /* the right context current: no switch */
  g_cu->cuCtxSetCurrent(fake_context(0));
  fake_get(&s);
  int sets = s.ctx_sets;
  TL_ASSERT_OK(tl_kernel_call(k, args, 3, NULL));
  fake_get(&s);
  assert_int_equal(s.ctx_sets, sets);
  assert_ptr_equal(current(), fake_context(0));
  g_cu->cuCtxSetCurrent(NULL);
  /* device 1: its own module, in its own context */
  a.t.device.device_id = b.t.device.device_id = c.t.device.device_id = 1;
  TL_ASSERT_OK(tl_kernel_call(k, args, 3, NULL));
  fake_get(&s);
  assert_int_equal(s.module_loads, 2);
  assert_int_equal(s.last.device, 1);
  assert_ptr_equal(s.last.ctx, fake_context(1));
  assert_null(current());
  /* a failing launch: its name and description; the caller's context restored */
  fake_fail_launch(700);
  TL_ASSERT_ERR(tl_kernel_call(k, args, 3, NULL), TL_ERUNTIME,
                "cuLaunchKernel of 'vector_add_kernel' failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was "
                "encountered)");
  assert_null(current());
  fake_fail_launch(0);
  a.t.device.device_id = b.t.device.device_id = c.t.device.device_id = 0;
  /* releasing the kernel unloads both modules and releases the contexts */
  fake_get(&s);
  int loads = s.module_loads, retains = s.retains;
  tl_kernel_release(k);
  tl_kernel_cache_clear_memory(); /* the cache held a reference too */
  fake_get(&s);
  assert_int_equal(s.module_unloads, loads);
  assert_int_equal(s.releases, retains);
}

static void test_vector_add_nvrtc(void **state) {
  (void)state;
  if (!have("nvrtc")) skip();
  check_vector_add("nvrtc");
}

static void test_vector_add_nvcc(void **state) {
  (void)state;
  if (!have("nvcc")) skip();
  check_vector_add("nvcc");
}

/* Scalars as the kernel's types hold them; 64 KB of dynamic shared memory. */
static void check_scalars_and_shared(const char *exec) {
  const cuda_case *fm = NULL, *big = NULL;
  for (size_t i = 0; i < CUDA_NCASES; i++) {
    if (!strcmp(k_cuda_cases[i].func, "fm")) fm = &k_cuda_cases[i];
    if (!strcmp(k_cuda_cases[i].func, "big")) big = &k_cuda_cases[i];
  }
  tl_kernel *k = compile(fm->src, "fm", exec, false);
  static tensor a, b;
  tl_value args[4] = {vec(&a, 1000, 0), vec(&b, 1000, 0), tl_value_float(0.75), tl_value_int(-3)};
  static const size_t sizes[5] = {8, 8, 4, 1, 4}; /* A, B, float alpha, signed char k, int N */
  fake_reset();
  fake_set_param_sizes(sizes, 5);
  TL_ASSERT_OK(tl_kernel_call(k, args, 4, NULL));
  fake_stats s;
  fake_get(&s);
  assert_string_equal(s.last.name, "fm_kernel");
  assert_int_equal(s.last.grid[0], 8);
  assert_int_equal(s.last.block[0], 128);
  float alpha;
  memcpy(&alpha, s.last.params[2], 4);
  assert_true(alpha == 0.75f);
  assert_int_equal((int8_t)s.last.params[3][0], -3);
  assert_int_equal(param_i32(&s.last, 4), 1000);
  /* an int8 scalar out of range is refused before anything runs */
  args[3] = tl_value_int(300);
  TL_ASSERT_ERR(tl_kernel_call(k, args, 4, NULL), TL_EINVAL, "argument 'k': 300 does not fit int8");
  tl_kernel_release(k);

  k = compile(big->src, "big", exec, false);
  static tensor x[2];
  static int64_t shape2[2] = {128, 64};
  static float buf[2][128 * 64] __attribute__((aligned(16)));
  tl_value bargs[2];
  for (int i = 0; i < 2; i++) {
    bargs[i] = vec(&x[i], 128, 0);
    x[i].t.ndim = 2;
    x[i].t.shape = shape2;
    x[i].t.data = buf[i];
  }
  static const size_t psizes[2] = {8, 8};
  fake_reset();
  fake_set_param_sizes(psizes, 2);
  TL_ASSERT_OK(tl_kernel_call(k, bargs, 2, NULL));
  TL_ASSERT_OK(tl_kernel_call(k, bargs, 2, NULL));
  fake_get(&s);
  assert_int_equal(s.set_attributes, 1); /* once, at load */
  assert_int_equal(s.last_attribute, 8);  /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  assert_int_equal(s.last_attribute_value, 65536);
  assert_int_equal(s.last.shared, 65536);
  assert_int_equal(s.launches, 2);
  tl_kernel_release(k);
  tl_kernel_cache_clear_memory();
}

static void test_scalars_and_shared_nvrtc(void **state) {
  (void)state;
  if (!have("nvrtc")) skip();
  check_scalars_and_shared("nvrtc");
}

static void test_scalars_and_shared_nvcc(void **state) {
  (void)state;
  if (!have("nvcc")) skip();
  check_scalars_and_shared("nvcc");
}

/* Two compilations whose device functions are both twice_kernel: each kernel
 * object launches from its own module. */
static void check_aliasing(const char *exec) {
  static const char *const srcs[2] = {CUDA_TWICE_SRC("2.0"), CUDA_TWICE_SRC("3.0")};
  tl_kernel *k[2] = {compile(srcs[0], "twice", exec, false), compile(srcs[1], "twice", exec, false)};
  static tensor a, b;
  tl_value args[2] = {vec(&a, 256, 0), vec(&b, 256, 0)};
  static const size_t sizes[2] = {8, 8};
  fake_reset();
  fake_set_param_sizes(sizes, 2);
  int module[4];
  for (int r = 0; r < 4; r++) {
    TL_ASSERT_OK(tl_kernel_call(k[r % 2], args, 2, NULL));
    fake_stats s;
    fake_get(&s);
    assert_string_equal(s.last.name, "twice_kernel");
    module[r] = s.last.module;
  }
  assert_int_not_equal(module[0], module[1]);
  assert_int_equal(module[0], module[2]);
  assert_int_equal(module[1], module[3]);
  fake_stats s;
  fake_get(&s);
  assert_int_equal(s.module_loads, 2);
  tl_kernel_release(k[0]);
  tl_kernel_release(k[1]);
  tl_kernel_cache_clear_memory();
}

static void test_aliasing_nvrtc(void **state) {
  (void)state;
  if (!have("nvrtc")) skip();
  check_aliasing("nvrtc");
}

static void test_aliasing_nvcc(void **state) {
  (void)state;
  if (!have("nvcc")) skip();
  check_aliasing("nvcc");
}

/* Device memory through a kernel (tl_kernel_device_alloc and its siblings): in
 * device 1's primary context with the caller's context restored, the context held
 * by the allocation until it is freed, bytes round-tripped, a device that does not
 * exist refused by name. */
static void check_device_memory(const char *exec) {
  tl_kernel *k = compile("vector_add.py", NULL, exec, true);
  assert_int_equal(tl_kernel_device_type(k), kDLCUDA);
  fake_reset();
  void *p = NULL;
  TL_ASSERT_OK(tl_kernel_device_alloc(k, 1, 64, &p));
  assert_non_null(p);
  assert_null(current());
  fake_stats s;
  fake_get(&s);
  assert_int_equal(s.retains - s.releases, 1); /* the allocation's reference */
  unsigned char in[64], out[64];
  for (int i = 0; i < 64; i++) in[i] = (unsigned char)(i * 7 + 1);
  memset(out, 0, sizeof out);
  TL_ASSERT_OK(tl_kernel_copy_to_device(k, 1, p, in, sizeof in));
  TL_ASSERT_OK(tl_kernel_copy_to_host(k, 1, out, p, sizeof out));
  assert_memory_equal(in, out, sizeof in);
  TL_ASSERT_OK(tl_kernel_device_synchronize(k, 1));
  assert_null(current());
  tl_kernel_device_free(k, 1, p);
  tl_kernel_device_free(k, 1, NULL);
  fake_get(&s);
  assert_int_equal(s.retains, s.releases);
  TL_ASSERT_ERR(tl_kernel_device_alloc(k, 2, 64, &p), TL_EINVAL, "CUDA device 2 does not exist (this machine has 2)");
  assert_null(p);
  tl_kernel_release(k);
  tl_kernel_cache_clear_memory();
}

static void test_device_memory_nvrtc(void **state) {
  (void)state;
  if (!have("nvrtc")) skip();
  check_device_memory("nvrtc");
}

static void test_device_memory_nvcc(void **state) {
  (void)state;
  if (!have("nvcc")) skip();
  check_device_memory("nvcc");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vector_add_nvrtc),         cmocka_unit_test(test_vector_add_nvcc),
    cmocka_unit_test(test_scalars_and_shared_nvrtc), cmocka_unit_test(test_scalars_and_shared_nvcc),
    cmocka_unit_test(test_aliasing_nvrtc),           cmocka_unit_test(test_aliasing_nvcc),
    cmocka_unit_test(test_device_memory_nvrtc),      cmocka_unit_test(test_device_memory_nvcc),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
