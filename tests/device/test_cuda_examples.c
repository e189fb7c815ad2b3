/* The cuda backend on a GPU: every example (several parameterizations, sizes that
 * tiles do not divide) and the focused kernels of tests/unit/cuda_cases.h, compiled
 * with tl_compile through each execution backend (nvrtc, nvcc), run on device
 * memory and compared with the interpreter on the same seeded inputs; the argument
 * checks on device tensors (host tensors, shapes, dtypes, misaligned data, tensors
 * on two devices); a launch on a created stream; and two compilations whose
 * device functions share a name (their launch handles must not alias).
 *
 *   test_cuda_examples [--dry-run] [--quick] [--backend nvrtc|nvcc] [--only NAME]
 *
 * --dry-run compiles and loads everything without a GPU (the kernels are not
 * called); --quick runs each kernel once at its default sizes through nvrtc (for
 * compute-sanitizer). Prints one line per check (PASS, FAIL with the reason, SKIP
 * with the reason) and a summary; exits 1 if anything failed. Built when
 * TL_DEVICE_TESTS=ON (tests/device/run.sh). */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_cases.h"
#include "kernel_io.h"
#include "runtime/cuda_arch.h"
#include "runtime/cuda_driver.h"
#include "runtime/nvcc_tool.h"
#include "runtime/nvrtc_lib.h"
#include "tilelang/backend.h"
#include "tilelang/engine.h"

/* ------------------------------------------------------------ reporting */

static int g_pass, g_fail, g_skip;
static bool g_dry, g_quick;
static const char *g_only;

static void report(int kind, const char *fmt, ...) TL_PRINTF(2, 3);
static void report(int kind, const char *fmt, ...) {
  static const char *const words[] = {"PASS", "FAIL", "SKIP"};
  va_list ap;
  va_start(ap, fmt);
  printf("%s  ", words[kind]);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
  if (kind == 0) g_pass++;
  else if (kind == 1) g_fail++;
  else g_skip++;
}
#define PASS(...) report(0, __VA_ARGS__)
#define FAIL(...) report(1, __VA_ARGS__)
#define SKIP(...) report(2, __VA_ARGS__)

/* ------------------------------------------------------------ the device */

static const tl__cuda_driver *g_cu;
static int g_ndev;
static tl__CUcontext g_ctx[8];
static char g_arch[32] = "sm_90a";

static bool cu_ok(tl__CUresult r, const char *what) {
  if (r == TL__CUDA_SUCCESS) return true;
  FAIL("%s: %s (%s)", what, tl__cuda_error_name(g_cu, r), tl__cuda_error_string(g_cu, r));
  return false;
}

/* The driver, every device's primary context, and the arch of device 0. */
static bool open_devices(void) {
  if (tl__cuda_driver_get(&g_cu) != TL_OK) {
    printf("no GPU here: %s\n", tl_last_error());
    return false;
  }
  if (!cu_ok(g_cu->cuDeviceGetCount(&g_ndev), "cuDeviceGetCount") || g_ndev < 1) return false;
  if (g_ndev > 8) g_ndev = 8;
  for (int i = 0; i < g_ndev; i++) {
    tl__CUdevice dev;
    if (!cu_ok(g_cu->cuDeviceGet(&dev, i), "cuDeviceGet") ||
        !cu_ok(g_cu->cuDevicePrimaryCtxRetain(&g_ctx[i], dev), "cuDevicePrimaryCtxRetain"))
      return false;
  }
  g_cu->cuCtxSetCurrent(g_ctx[0]);
  tl_target *t = NULL;
  if (tl_target_parse("{\"kind\":\"cuda\"}", &t) == TL_OK && tl__cuda_resolve_arch(t, g_arch, sizeof g_arch) == TL_OK)
    printf("device 0 is %s; %d device(s)\n", g_arch, g_ndev);
  tl_target_release(t);
  return true;
}

/* Device copies of a kernel_io's arguments: the same values, tensors on device
 * `dev` holding the host tensors' bytes. */
typedef struct dev_args {
  uint32_t n;
  tl_value *vals;
  DLTensor *tens;
  tl__CUdeviceptr *ptrs;
  size_t *bytes;
  int dev;
} dev_args;

static size_t tensor_bytes(const DLTensor *t) {
  size_t n = (size_t)t->dtype.bits / 8 * t->dtype.lanes;
  for (int d = 0; d < t->ndim; d++) n *= (size_t)t->shape[d];
  return n;
}

static void dev_free(dev_args *a) {
  for (uint32_t i = 0; i < a->n; i++)
    if (a->ptrs[i]) g_cu->cuMemFree(a->ptrs[i]);
  free(a->vals);
  free(a->tens);
  free(a->ptrs);
  free(a->bytes);
  memset(a, 0, sizeof *a);
}

static bool to_device(const tlc_kernel_io *io, int dev, dev_args *a) {
  memset(a, 0, sizeof *a);
  a->n = io->n;
  a->dev = dev;
  a->vals = calloc(io->n + 1, sizeof *a->vals);
  a->tens = calloc(io->n + 1, sizeof *a->tens);
  a->ptrs = calloc(io->n + 1, sizeof *a->ptrs);
  a->bytes = calloc(io->n + 1, sizeof *a->bytes);
  g_cu->cuCtxSetCurrent(g_ctx[dev]);
  for (uint32_t i = 0; i < io->n; i++) {
    a->vals[i] = io->args[i];
    if (io->args[i].kind != TL_VALUE_TENSOR) continue;
    const DLTensor *h = &io->tensors[i];
    a->tens[i] = *h;
    a->bytes[i] = tensor_bytes(h);
    /* at least one byte, so an empty tensor still has an address */
    if (!cu_ok(g_cu->cuMemAlloc(&a->ptrs[i], a->bytes[i] ? a->bytes[i] : 1), "cuMemAlloc")) return false;
    if (a->bytes[i] && !cu_ok(g_cu->cuMemcpyHtoD(a->ptrs[i], h->data, a->bytes[i]), "cuMemcpyHtoD")) return false;
    a->tens[i].data = (void *)(uintptr_t)a->ptrs[i];
    a->tens[i].device.device_type = kDLCUDA;
    a->tens[i].device.device_id = dev;
    a->vals[i] = tl_value_tensor((struct DLTensor *)(void *)&a->tens[i]);
  }
  g_cu->cuCtxSetCurrent(g_ctx[0]);
  return true;
}

static bool from_device(const dev_args *a, tlc_kernel_io *io) {
  g_cu->cuCtxSetCurrent(g_ctx[a->dev]);
  bool ok = cu_ok(g_cu->cuCtxSynchronize(), "cuCtxSynchronize (the kernel failed on the device)");
  for (uint32_t i = 0; ok && i < a->n; i++)
    if (a->ptrs[i] && a->bytes[i]) ok = cu_ok(g_cu->cuMemcpyDtoH(io->tensors[i].data, a->ptrs[i], a->bytes[i]), "cuMemcpyDtoH");
  g_cu->cuCtxSetCurrent(g_ctx[0]);
  return ok;
}

/* ----------------------------------------------------------- compiling */

static tl_status compile(const tl_ir_module *m, const char *func, const char *exec, tl_kernel **out) {
  char target[96];
  snprintf(target, sizeof target, "{\"kind\":\"cuda\",\"arch\":\"%s\"}", g_arch);
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = target;
  o.execution_backend = exec;
  return tl_compile(m, func, &o, out);
}

/* Runs k on device memory and the interpreter on the host with the same inputs;
 * compares what the function writes: exactly when tol is 0 (the lowering keeps
 * the interpreter's operations and roundings), else within tol. */
static void run_and_compare(const tl_ir_module *m, const tl_ir_func *f, tl_kernel *k, const tlc_dim_binding *dims,
                            size_t ndims, double tol, const char *what) {
  tlc_kernel_io *io = NULL, *ref = NULL;
  if (tlc_kernel_io_create(m, f, dims, ndims, TLC_DEFAULT_DIM, 7, &io) != TL_OK) {
    FAIL("%s: inputs: %s", what, tl_last_error());
    return;
  }
  tlc_kernel_io_fill(io, 7);
  if (tlc_kernel_io_clone(io, &ref) != TL_OK || tl_ir_interpret(m, f->name, ref->args, (int)ref->n) != TL_OK) {
    FAIL("%s: the interpreter failed: %s", what, tl_last_error());
    tlc_kernel_io_free(io);
    tlc_kernel_io_free(ref);
    return;
  }
  dev_args a;
  if (!to_device(io, 0, &a)) goto done;
  tl_status s = tl_kernel_call(k, a.vals, (int)a.n, NULL);
  if (s != TL_OK) {
    FAIL("%s: tl_kernel_call: %s: %s", what, tl_status_name(s), tl_last_error());
    goto done;
  }
  if (!from_device(&a, io)) goto done;
  uint64_t checked = 0;
  bool ok = true;
  for (uint32_t i = 0; i < io->n; i++) {
    if (!io->is_output[i]) continue;
    const DLTensor *g = &io->tensors[i], *e = &ref->tensors[i];
    tlc_compare_result r;
    if (tlc_compare_tensors(g, e, tol, tol, &r) != TL_OK) {
      FAIL("%s: comparing '%s': %s", what, f->params[i].name, tl_last_error());
      ok = false;
      continue;
    }
    checked += r.checked;
    if (r.mismatches) {
      char desc[512];
      tlc_compare_describe(g, &r, desc, sizeof desc);
      FAIL("%s: output '%s' differs from the interpreter (%s): %s", what, f->params[i].name,
           tol > 0 ? "beyond the tolerance" : "not bit for bit", desc);
      ok = false;
    }
  }
  if (ok) PASS("%s: %llu elements as the interpreter computes them%s", what, (unsigned long long)checked,
               tol > 0 ? " (within the tolerance)" : " (bit for bit)");
done:
  dev_free(&a);
  tlc_kernel_io_free(io);
  tlc_kernel_io_free(ref);
}

/* One kernel through one execution backend, at the given sizes. */
static void check_kernel(const tl_ir_module *m, const char *func, const char *exec, const tlc_dim_binding *dims,
                         size_t ndims, double tol, const char *what) {
  tl_kernel *k = NULL;
  tl_status s = compile(m, func, exec, &k);
  if (s != TL_OK) {
    FAIL("%s: tl_compile: %s: %s", what, tl_status_name(s), tl_last_error());
    return;
  }
  if (g_dry) PASS("%s: compiled and loaded (dry run: not called)", what);
  else run_and_compare(m, tl_ir_module_find_func(m, func), k, dims, ndims, tol, what);
  tl_kernel_release(k);
}

/* ------------------------------------------------------------ the kernels */

/* Sizes the tiles do not divide, for the examples with symbolic dims. */
typedef struct extra_size {
  const char *file;
  tlc_dim_binding dims[2];
  size_t ndims;
} extra_size;

static const extra_size k_sizes[] = {
    {"vector_add.py", {{"N", "1"}}, 1},
    {"vector_add.py", {{"N", "100003"}}, 1},
    {"vector_add.py", {{"N", "0"}}, 1},
    {"row_max.py", {{"M", "33"}, {"N", "65"}}, 2},
    {"row_max.py", {{"M", "1"}, {"N", "1"}}, 2},
    {"transpose.py", {{"M", "70"}, {"N", "45"}}, 2},
    {"transpose.py", {{"M", "129"}, {"N", "257"}}, 2},
};

static bool wanted(const char *name) { return !g_only || strstr(name, g_only); }

static void check_examples(const char *exec) {
  for (size_t i = 0; i < CUDA_NEXAMPLES; i++) {
    const cuda_example *ex = &k_cuda_examples[i];
    char what[256];
    snprintf(what, sizeof what, "[%s] %s (%s)", exec, ex->file, ex->label);
    if (!wanted(what)) continue;
    tl_ir_module *m = NULL;
    if (cuda_parse_example_file(TL_SOURCE_DIR, ex, &m) != TL_OK) {
      FAIL("%s: %s", what, tl_last_error());
      continue;
    }
    const char *func = tl_ir_module_func(m, 0)->name;
    check_kernel(m, func, exec, NULL, 0, ex->tol > ex->device_tol ? ex->tol : ex->device_tol, what);
    for (size_t j = 0; !g_quick && j < sizeof k_sizes / sizeof k_sizes[0]; j++) {
      if (strcmp(k_sizes[j].file, ex->file) != 0 || strcmp(ex->label, "default") != 0) continue;
      char sized[320];
      snprintf(sized, sizeof sized, "%s %s=%s%s%s%s", what, k_sizes[j].dims[0].name, k_sizes[j].dims[0].value,
               k_sizes[j].ndims > 1 ? " " : "", k_sizes[j].ndims > 1 ? k_sizes[j].dims[1].name : "",
               k_sizes[j].ndims > 1 ? "=" : "");
      if (k_sizes[j].ndims > 1) strncat(sized, k_sizes[j].dims[1].value, sizeof sized - strlen(sized) - 1);
      check_kernel(m, func, exec, k_sizes[j].dims, k_sizes[j].ndims, ex->tol > ex->device_tol ? ex->tol : ex->device_tol, sized);
    }
    tl_ir_module_free(m);
  }
  for (size_t i = 0; i < CUDA_NCASES; i++) {
    const cuda_case *c = &k_cuda_cases[i];
    char what[320];
    snprintf(what, sizeof what, "[%s] %s", exec, c->name);
    if (!wanted(what)) continue;
    tl_ir_module *m = NULL;
    if (tl_ir_parse(c->src, "k.py", NULL, &m) != TL_OK) {
      FAIL("%s: %s", what, tl_last_error());
      continue;
    }
    tlc_dim_binding dims[] = {{"N", "1000"}, {"alpha", "0.75"}, {"k", "3"}};
    size_t ndims = strcmp(c->func, "fm") == 0 ? 3 : 0;
    check_kernel(m, c->func, exec, dims, ndims, c->tol, what);
    tl_ir_module_free(m);
  }
}

/* ------------------------------------------------------ argument checks */

static void expect_refusal(tl_kernel *k, const tl_value *args, int n, const char *needle, const char *what) {
  tl_status s = tl_kernel_call(k, args, n, NULL);
  if (s == TL_EINVAL && strstr(tl_last_error(), needle)) PASS("%s: refused: %s", what, tl_last_error());
  else FAIL("%s: expected TL_EINVAL with \"%s\", got %s: %s", what, needle, tl_status_name(s), tl_last_error());
}

static void check_arguments(const char *exec) {
  static const char *src = CUDA_HDR
      "@T.prim_func\n"
      "def add(A: T.Tensor((64, 64), \"float32\"), B: T.Tensor((64, 64), \"float32\"), C: T.Tensor((64, 64), \"float32\")):\n"
      "    with T.Kernel(2, 2, threads=128) as (bx, by):\n"
      "        a = T.alloc_fragment((32, 32), \"float32\")\n"
      "        b = T.alloc_fragment((32, 32), \"float32\")\n"
      "        T.copy(A[by * 32, bx * 32], a)\n"
      "        T.copy(B[by * 32, bx * 32], b)\n"
      "        for i, j in T.Parallel(32, 32):\n"
      "            a[i, j] = a[i, j] + b[i, j]\n"
      "        T.copy(a, C[by * 32, bx * 32])\n";
  char what[96];
  snprintf(what, sizeof what, "[%s] argument checks", exec);
  if (!wanted(what)) return;
  tl_ir_module *m = NULL;
  tl_kernel *k = NULL;
  if (tl_ir_parse(src, "k.py", NULL, &m) != TL_OK || compile(m, "add", exec, &k) != TL_OK) {
    FAIL("%s: %s", what, tl_last_error());
    tl_ir_module_free(m);
    return;
  }
  tlc_kernel_io *io = NULL;
  if (tlc_kernel_io_create(m, tl_ir_module_func(m, 0), NULL, 0, TLC_DEFAULT_DIM, 3, &io) != TL_OK) {
    FAIL("%s: %s", what, tl_last_error());
    goto out;
  }
  tlc_kernel_io_fill(io, 3);
  char label[160];
  snprintf(label, sizeof label, "%s: a host tensor", what);
  expect_refusal(k, io->args, 3, "argument 'A': expected a CUDA tensor (kDLCUDA) but got device type 1", label);
  if (g_dry) goto out;
  dev_args a;
  if (!to_device(io, 0, &a)) goto out;
  int64_t shape[2] = {64, 63};
  a.tens[1].shape = shape;
  snprintf(label, sizeof label, "%s: a wrong shape", what);
  expect_refusal(k, a.vals, 3, "argument 'B': dimension 1 must be 64 but is 63", label);
  a.tens[1].shape = io->tensors[1].shape;
  a.tens[2].dtype.bits = 16;
  snprintf(label, sizeof label, "%s: a wrong dtype", what);
  expect_refusal(k, a.vals, 3, "argument 'C': expected float32 but got float16", label);
  a.tens[2].dtype.bits = 32;
  a.tens[0].byte_offset = 4; /* refused before anything reads past the allocation */
  snprintf(label, sizeof label, "%s: misaligned data (the kernel uses 16-byte vectors)", what);
  expect_refusal(k, a.vals, 3, "argument 'A': the tensor's data must be aligned to 16 bytes", label);
  a.tens[0].byte_offset = 0;
  snprintf(label, sizeof label, "%s: the same call, well formed", what);
  tl_status s = tl_kernel_call(k, a.vals, 3, NULL);
  if (s == TL_OK) PASS("%s", label);
  else FAIL("%s: %s", label, tl_last_error());
  if (g_ndev > 1) {
    dev_args b;
    if (to_device(io, 1, &b)) {
      tl_value mixed[3] = {a.vals[0], b.vals[1], a.vals[2]};
      snprintf(label, sizeof label, "%s: tensors on two devices", what);
      expect_refusal(k, mixed, 3, "argument 'B': the tensor is on CUDA device 1 but argument 'A' is on device 0", label);
      /* and the whole call on device 1 runs there */
      snprintf(label, sizeof label, "%s: a call on device 1", what);
      s = tl_kernel_call(k, b.vals, 3, NULL);
      if (s == TL_OK && from_device(&b, io)) PASS("%s", label);
      else FAIL("%s: %s", label, tl_last_error());
    }
    dev_free(&b);
  } else {
    SKIP("%s: tensors on two devices: one GPU here", what);
  }
  from_device(&a, io);
  dev_free(&a);
out:
  tlc_kernel_io_free(io);
  tl_kernel_release(k);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------- streams */

/* A launch goes on the caller's stream: right after a long kernel (a 2048^3
 * float32 GEMM) is launched on a created non-blocking stream, that stream is still
 * busy (the launch did not go to the default stream), and after the stream is
 * synchronized the result equals that of the same call on the default stream. */
static void check_stream(const char *exec) {
  char what[96];
  snprintf(what, sizeof what, "[%s] launch on a created stream", exec);
  if (!wanted(what) || g_dry) return;
  static const cuda_example big = {"gemm.py", "2048", {{"M", "2048"}, {"N", "2048"}, {"K", "2048"}, {"dtype", "\"float32\""}}, 4, 0, 0};
  tl_ir_module *m = NULL;
  tl_kernel *k = NULL;
  if (cuda_parse_example_file(TL_SOURCE_DIR, &big, &m) != TL_OK || compile(m, "matmul", exec, &k) != TL_OK) {
    FAIL("%s: %s", what, tl_last_error());
    tl_ir_module_free(m);
    return;
  }
  typedef tl__CUresult (*query_fn)(tl__CUstream);
  query_fn query = NULL;
  void *p = dlsym(g_cu->handle, "cuStreamQuery");
  memcpy(&query, &p, sizeof p);
  tlc_kernel_io *io = NULL;
  tlc_kernel_io_create(m, tl_ir_module_func(m, 0), NULL, 0, TLC_DEFAULT_DIM, 5, &io);
  tlc_kernel_io_fill(io, 5);
  size_t cbytes = tensor_bytes(&io->tensors[2]);
  float *want = malloc(cbytes), *got = malloc(cbytes);
  dev_args a;
  tl__CUstream stream = NULL;
  memset(&a, 0, sizeof a);
  if (!query || !want || !got || !to_device(io, 0, &a) ||
      !cu_ok(g_cu->cuStreamCreate(&stream, 1 /* non-blocking */), "cuStreamCreate"))
    goto out;
  /* the reference: the default stream */
  if (tl_kernel_call(k, a.vals, (int)a.n, NULL) != TL_OK || !cu_ok(g_cu->cuCtxSynchronize(), "cuCtxSynchronize") ||
      !cu_ok(g_cu->cuMemcpyDtoH(want, a.ptrs[2], cbytes), "cuMemcpyDtoH") ||
      !cu_ok(g_cu->cuMemsetD8(a.ptrs[2], 0, cbytes), "cuMemsetD8") || !cu_ok(g_cu->cuCtxSynchronize(), "cuCtxSynchronize")) {
    FAIL("%s: the call on the default stream: %s", what, tl_last_error());
    goto out;
  }
  tl_status s = tl_kernel_call(k, a.vals, (int)a.n, stream);
  tl__CUresult busy = query(stream);
  if (s != TL_OK) {
    FAIL("%s: %s", what, tl_last_error());
  } else if (busy != 600 /* CUDA_ERROR_NOT_READY */) {
    FAIL("%s: the created stream was idle right after the launch (cuStreamQuery: %s): the kernel did not go there",
         what, tl__cuda_error_name(g_cu, busy));
  } else if (cu_ok(g_cu->cuStreamSynchronize(stream), "cuStreamSynchronize") &&
             cu_ok(query(stream), "cuStreamQuery after synchronizing") &&
             cu_ok(g_cu->cuMemcpyDtoH(got, a.ptrs[2], cbytes), "cuMemcpyDtoH")) {
    if (memcmp(got, want, cbytes) != 0) FAIL("%s: the result differs from the default stream's", what);
    else PASS("%s: busy after the launch, complete (and equal to the default stream's) after synchronizing it", what);
  }
out:
  if (stream) g_cu->cuStreamDestroy(stream);
  dev_free(&a);
  free(want);
  free(got);
  tlc_kernel_io_free(io);
  tl_kernel_release(k);
  tl_ir_module_free(m);
}

/* -------------------------------------------------------------- aliasing */

/* Two compilations whose device functions are both `twice_kernel` (one doubles,
 * one triples): each kernel object launches its own. */
static void check_aliasing(const char *exec) {
  char what[96];
  snprintf(what, sizeof what, "[%s] same-named kernels of two compilations", exec);
  if (!wanted(what) || g_dry) return;
  static const char *const srcs[2] = {CUDA_TWICE_SRC("2.0"), CUDA_TWICE_SRC("3.0")};
  tl_ir_module *m[2] = {NULL, NULL};
  tl_kernel *k[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++)
    if (tl_ir_parse(srcs[i], "k.py", NULL, &m[i]) != TL_OK || compile(m[i], "twice", exec, &k[i]) != TL_OK) {
      FAIL("%s: %s", what, tl_last_error());
      goto out;
    }
  tlc_kernel_io *io = NULL;
  tlc_kernel_io_create(m[0], tl_ir_module_func(m[0], 0), NULL, 0, TLC_DEFAULT_DIM, 9, &io);
  tlc_kernel_io_fill(io, 9);
  dev_args a;
  bool ok = to_device(io, 0, &a);
  /* interleaved: 0, 1, 0, 1 */
  for (int round = 0; ok && round < 4; round++) {
    int which = round % 2;
    ok = tl_kernel_call(k[which], a.vals, 2, NULL) == TL_OK && from_device(&a, io);
    const float *x = io->tensors[0].data, *y = io->tensors[1].data;
    for (int e = 0; ok && e < 256; e++)
      if (y[e] != x[e] * (which ? 3.0f : 2.0f)) {
        FAIL("%s: call %d (kernel %d) computed B[%d] = %g from %g", what, round, which, e, (double)y[e], (double)x[e]);
        ok = false;
      }
  }
  if (ok) PASS("%s: each launched its own device function", what);
  dev_free(&a);
  tlc_kernel_io_free(io);
out:
  for (int i = 0; i < 2; i++) {
    tl_kernel_release(k[i]);
    tl_ir_module_free(m[i]);
  }
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
  const char *only_backend = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dry-run")) g_dry = true;
    else if (!strcmp(argv[i], "--quick")) g_quick = true;
    else if (!strcmp(argv[i], "--backend") && i + 1 < argc) only_backend = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) g_only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--dry-run] [--quick] [--backend nvrtc|nvcc] [--only TEXT]\n", argv[0]);
      return 2;
    }
  }
  if (!g_dry && !open_devices()) {
    printf("FAIL  no usable GPU (run with --dry-run to compile without one)\n");
    return 1;
  }
  if (g_quick && !only_backend) only_backend = "nvrtc";
  static const char *const execs[] = {"nvrtc", "nvcc"};
  for (size_t e = 0; e < 2; e++) {
    const char *exec = execs[e];
    if (only_backend && strcmp(only_backend, exec) != 0) continue;
    char target[96];
    snprintf(target, sizeof target, "{\"kind\":\"cuda\",\"arch\":\"%s\"}", g_arch);
    tl_backend_context *ctx = NULL;
    if (tl_create_backend_context(target, NULL, exec, &ctx) != TL_OK) {
      SKIP("[%s] every check: %s", exec, tl_last_error());
      continue;
    }
    tl_backend_context_release(ctx);
    check_examples(exec);
    if (!g_quick) {
      check_arguments(exec);
      check_stream(exec);
      check_aliasing(exec);
    }
  }
  printf("\nsummary: %d passed, %d failed, %d skipped%s\n", g_pass, g_fail, g_skip, g_dry ? " (dry run)" : "");
  for (int i = 0; g_cu && i < g_ndev; i++) {
    tl__CUdevice dev;
    if (g_cu->cuDeviceGet(&dev, i) == TL__CUDA_SUCCESS) g_cu->cuDevicePrimaryCtxRelease(dev);
  }
  return g_fail ? 1 : 0;
}
