/* tl_kernel_call overhead on a tiny kernel (examples/vector_add.py with N = 1 and
 * N = 64), native execution backend, against calling the compiled packed entry
 * directly (the same shared library, exported with tl_export and opened with
 * dlopen): the difference is what the library adds per call. Also the kernel the
 * memory cache hands out (it forwards to the first one). */
#include <dlfcn.h>
#include <dlpack/dlpack.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/files.h"
#include "bench.h"
#include "tilelang/engine.h"

static void die(const char *what) {
  fprintf(stderr, "bench_call: %s: %s\n", what, tl_last_error());
  exit(1);
}

typedef int32_t (*packed_fn)(const tl_value *args, int32_t nargs, void *stream, char *err, size_t errcap);

typedef struct call_ctx {
  tl_kernel *k;
  packed_fn direct;
  tl_value args[3];
  DLTensor t[3];
  int64_t n;
  float *data[3];
} call_ctx;

static void via_kernel(void *p) {
  call_ctx *c = p;
  if (tl_kernel_call(c->k, c->args, 3, NULL) != TL_OK) die("tl_kernel_call");
}

static void via_entry(void *p) {
  call_ctx *c = p;
  char err[256];
  if (c->direct(c->args, 3, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "bench_call: direct call: %s\n", err);
    exit(1);
  }
}

static void set_size(call_ctx *c, int64_t n) {
  c->n = n;
  for (int i = 0; i < 3; i++) {
    free(c->data[i]);
    c->data[i] = calloc((size_t)n, sizeof(float));
    memset(&c->t[i], 0, sizeof c->t[i]);
    c->t[i].data = c->data[i];
    c->t[i].device.device_type = kDLCPU;
    c->t[i].ndim = 1;
    c->t[i].dtype = (DLDataType){kDLFloat, 32, 1};
    c->t[i].shape = &c->n;
    c->args[i] = tl_value_tensor((struct DLTensor *)(void *)&c->t[i]);
  }
}

int main(void) {
  const char *path = TL_SOURCE_DIR "/examples/vector_add.py";
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, NULL, &m) != TL_OK) die("parse");
  char *root = NULL, *aot = NULL;
  if (tl__make_scratch_dir("tl-bench-cache-", &root) != TL_OK || tl__make_scratch_dir("tl-bench-aot-", &aot) != TL_OK)
    die("scratch");
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = "c";
  o.execution_backend = "native";
  o.cache_dir = root;
  call_ctx c;
  memset(&c, 0, sizeof c);
  tl_kernel *cached = NULL;
  if (tl_compile(m, NULL, &o, &c.k) != TL_OK || tl_compile(m, NULL, &o, &cached) != TL_OK) die("tl_compile");
  if (tl_export(m, NULL, &o, aot) != TL_OK) die("tl_export");
  char *lib = tl__path_join(aot, "libvector_add.so");
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "bench_call: dlopen %s: %s\n", lib, dlerror());
    return 1;
  }
  c.direct = (packed_fn)dlsym(h, "vector_add");
  if (!c.direct) die("dlsym vector_add");

  static const int64_t sizes[] = {1, 64};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    set_size(&c, sizes[s]);
    char title[64];
    snprintf(title, sizeof title, "vector_add, N = %lld, native", (long long)sizes[s]);
    bench_header(title);
    bench_result direct = bench_run("packed entry called directly", via_entry, &c);
    bench_result call = bench_run("tl_kernel_call", via_kernel, &c);
    tl_kernel *fresh = c.k;
    c.k = cached;
    bench_result alias = bench_run("tl_kernel_call, kernel from the memory cache", via_kernel, &c);
    c.k = fresh;
    printf("%-52s %10.1f ns (memory-cache kernel: %.1f ns)\n\n", "tl_kernel_call overhead (median difference)",
           call.median_ns - direct.median_ns, alias.median_ns - direct.median_ns);
  }
  for (int i = 0; i < 3; i++) free(c.data[i]);
  dlclose(h);
  tl__free(lib);
  tl_kernel_release(c.k);
  tl_kernel_release(cached);
  tl_kernel_cache_clear_memory();
  tl__remove_tree(root);
  tl__remove_tree(aot);
  tl__free(root);
  tl__free(aot);
  tl_ir_module_free(m);
  return 0;
}
