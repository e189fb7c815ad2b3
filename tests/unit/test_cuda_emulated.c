/* The generated CUDA run without a GPU: every example and focused kernel of
 * cuda_cases.h lowered for CUDA, its CUDA C++ compiled by the system's C++
 * compiler against a CPU stand-in of the device runtime (tests/unit/cuda_emu/: one
 * OS thread per GPU thread, real barriers, shuffles through shared buffers,
 * locked atomics, float16/bfloat16 rounding to nearest even), and launched from
 * the kernel table as the nvrtc execution backend launches (bind_args, launch
 * expressions, parameters by dtype), then compared with the interpreter on the
 * same inputs: bit for bit, except where floats are summed across threads or
 * library math differs (the case's tolerance). What this checks is the dialect's
 * meaning (vector accesses, selects, conversions, atomics, shuffles, dynamic
 * shared memory, parameter passing); the device tests check the real thing.
 * Skipped, saying why, without a C++ compiler. */
#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include "base/error.h"
#include "base/files.h"
#include "cuda_test.h"
#include "runtime/spawn.h"
#include "transform/kernel_table.h"

static const char *g_cxx;

/* A C++17 compiler that builds the stand-in ($CXX, c++, g++, clang++), or NULL. */
static const char *find_cxx(void) {
  static const char *const names[] = {"c++", "g++", "clang++", NULL};
  const char *env = getenv("CXX");
  const char *candidates[5] = {env && *env ? env : NULL};
  size_t n = candidates[0] ? 1 : 0;
  for (size_t i = 0; names[i]; i++) candidates[n++] = names[i];
  for (size_t i = 0; i < n; i++) {
    char *argv[] = {(char *)candidates[i], "--version", NULL};
    char *out = NULL;
    int status = -1;
    tl_status s = tl__spawn_capture(argv, &out, &status);
    tl__free(out);
    tl__error_clear();
    if (s == TL_OK && status == 0) return candidates[i];
  }
  return NULL;
}

/* The generated source made into C++ for the stand-in: the dynamic shared array
 * becomes a pointer to the stand-in's; a launcher per kernel of the table. */
static char *emulated_source(const char *src, const tl_kernel_table *t) {
  tl__sb sb = TL__SB_INIT;
  const char *decl = "extern __shared__ __align__(16) unsigned char ";
  for (const char *p = src; *p;) {
    const char *hit = strstr(p, decl);
    if (!hit) {
      tl__sb_append(&sb, p);
      break;
    }
    tl__sb_appendn(&sb, p, (size_t)(hit - p));
    const char *name = hit + strlen(decl), *end = strstr(name, "[];");
    assert_non_null(end);
    tl__sb_appendf(&sb, "unsigned char *%.*s = tl_emu_dyn_smem;", (int)(end - name), name);
    p = end + 3;
  }
  for (uint32_t i = 0; i < t->nlaunches; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i; j++) seen = seen || !strcmp(t->launches[j].symbol, t->launches[i].symbol);
    if (seen) continue;
    tl__sb_appendf(&sb,
                   "\nextern \"C\" void tl_emu_launch_%s(void **p, const long long *g, const long long *b) {\n"
                   "  tl_emu_run([](void **q) { tl_emu_call(%s, q); }, p, g, b);\n}\n",
                   t->launches[i].symbol, t->launches[i].symbol);
  }
  char *out = tl__sb_finish(&sb);
  assert_non_null(out);
  return out;
}

typedef void (*launch_fn)(void **p, const long long *g, const long long *b);

/* One kernel parameter's value, as the kernel's C type holds it (as nvrtc.c). */
typedef union param_value {
  uint64_t ptr;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  bool b;
  float f32;
  double f64;
} param_value;

static void set_scalar(param_value *pv, tl_dtype t, double f, int64_t i) {
  if (t.code == TL_DTYPE_FLOAT || t.code == TL_DTYPE_BFLOAT) {
    if (t.bits == 64) pv->f64 = f;
    else if (t.code == TL_DTYPE_BFLOAT) pv->f32 = tl__bf16_to_f32(tl__f64_to_bf16(f));
    else if (t.bits == 16) pv->f32 = tl__f16_to_f32(tl__f64_to_f16(f));
    else pv->f32 = (float)f;
  } else if (t.code == TL_DTYPE_BOOL) {
    pv->b = i != 0;
  } else if (t.bits == 8) {
    pv->i8 = (int8_t)i;
  } else if (t.bits == 16) {
    pv->i16 = (int16_t)i;
  } else if (t.bits == 32) {
    pv->i32 = (int32_t)i;
  } else {
    pv->i64 = i;
  }
}

/* Launches every kernel of the table on the arguments (host memory standing in
 * for device memory). */
static void launch_all(void *so, const tl_kernel_table *t, pt_args *a, const char *what) {
  for (uint32_t i = 0; i < a->n; i++)
    if (a->values[i].kind == TL_VALUE_TENSOR) a->tensors[i].device.device_type = kDLCUDA;
  int64_t syms[16];
  if (tl_kernel_table_bind_args(t, a->values, (int)a->n, kDLCUDA, syms) != TL_OK)
    fail_msg("%s: bind_args: %s", what, tl_last_error());
  for (uint32_t i = 0; i < a->n; i++)
    if (a->values[i].kind == TL_VALUE_TENSOR) a->tensors[i].device.device_type = kDLCPU;
  for (uint32_t l = 0; l < t->nlaunches; l++) {
    const tl_kernel_launch *kl = &t->launches[l];
    long long g[3], b[3];
    int64_t v;
    for (int d = 0; d < 3; d++) {
      assert_true(tl_launch_expr_eval(&kl->grid[d], syms, t->nsyms, &v));
      g[d] = v;
      assert_true(tl_launch_expr_eval(&kl->block[d], syms, t->nsyms, &v));
      b[d] = v;
    }
    if (!g[0] || !g[1] || !g[2]) continue;
    param_value vals[64];
    void *params[64];
    assert_true(kl->nargs <= 64);
    for (uint32_t k = 0; k < kl->nargs; k++) {
      const tl_kernel_arg *arg = &kl->args[k];
      const tl_value *x = &a->values[arg->index];
      if (arg->kind == TL_KARG_TENSOR) {
        const DLTensor *tt = &a->tensors[arg->index];
        vals[k].ptr = (uint64_t)(uintptr_t)tt->data + tt->byte_offset;
      } else if (arg->kind == TL_KARG_SCALAR) {
        int64_t iv = x->kind == TL_VALUE_BOOL ? x->v.b : x->kind == TL_VALUE_FLOAT ? (int64_t)x->v.f : x->v.i;
        double fv = x->kind == TL_VALUE_FLOAT ? x->v.f : (double)iv;
        set_scalar(&vals[k], arg->dtype, fv, iv);
      } else {
        set_scalar(&vals[k], arg->dtype, (double)syms[arg->index], syms[arg->index]);
      }
      params[k] = &vals[k];
    }
    char sym[256];
    snprintf(sym, sizeof sym, "tl_emu_launch_%s", kl->symbol);
    void *p = dlsym(so, sym);
    if (!p) fail_msg("%s: no %s", what, sym);
    launch_fn fn;
    memcpy(&fn, &p, sizeof p);
    fn(params, g, b);
  }
}

/* Generates, compiles and runs `func` of m (lowered for CUDA) against the
 * interpreter on the tile-level function. */
static void emulate(const tl_ir_module *m, const char *func, const pt_dim *dims, size_t ndims, double tol,
                    const char *what) {
  tl_ir_module *low = cuda_lowered(m, NULL);
  char *src = cuda_source(low);
  tl_kernel_table *t = NULL;
  if (tl__kernel_table_from_module(low, func, &t) != TL_OK) fail_msg("%s: kernel table: %s", what, tl_last_error());
  char *cpp = emulated_source(src, t);
  const char *tmp = getenv("TMPDIR");
  char *dir = tl__format("%s/tl-cuda-emu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(dir));
  char *cc = tl__format("%s/kernel.cpp", dir), *so = tl__format("%s/kernel.so", dir);
  char *inc = tl__format("-I%s/tests/unit/cuda_emu", TL_SOURCE_DIR);
  char *pre = tl__format("%s/tests/unit/cuda_emu/cuda_emu.h", TL_SOURCE_DIR);
  TL_ASSERT_OK(tl__file_write(cc, cpp, strlen(cpp)));
  char *argv[] = {(char *)g_cxx, "-std=c++17", "-O1", "-fPIC", "-shared", "-pthread", "-fno-strict-aliasing",
                  "-ffp-contract=off", "-fwrapv", inc, "-include", pre, "-o", so, cc, NULL};
  char *out = NULL;
  int status = -1;
  TL_ASSERT_OK(tl__spawn_capture(argv, &out, &status));
  if (status != 0) {
    fprintf(stderr, "%s\n", cpp);
    fail_msg("%s: the generated CUDA does not compile against the stand-in:\n%s", what, out);
  }
  tl__free(out);
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) fail_msg("%s: %s", what, dlerror());
  const tl_ir_func *f = tl_ir_module_find_func(m, func);
  pt_args ref = pt_args_make(f, dims, ndims, 21);
  pt_args got = pt_args_copy(&ref);
  if (tl_ir_interpret(m, func, ref.values, (int)ref.n) != TL_OK) fail_msg("%s: interpreter: %s", what, tl_last_error());
  launch_all(h, t, &got, what);
  for (uint32_t i = 0; i < ref.n; i++)
    if (ref.values[i].kind == TL_VALUE_TENSOR) gpu_compare(&ref, &got, i, tol, f->params[i].name, what);
  pt_args_free(&ref);
  pt_args_free(&got);
  dlclose(h);
  unlink(cc);
  unlink(so);
  rmdir(dir);
  tl__free(cc);
  tl__free(so);
  tl__free(dir);
  tl__free(inc);
  tl__free(pre);
  tl__free(cpp);
  tl_kernel_table_free(t);
  tl__free(src);
  tl_ir_module_free(low);
}

static void test_examples(void **state) {
  (void)state;
  if (!g_cxx) {
    print_message("no C++ compiler: the generated CUDA is not run here\n");
    skip();
  }
  const char *only = getenv("TL_CUDA_EXAMPLE");
  pt_dim dims[] = {{"N", 300}, {"M", 70}, {"K", 40}};
  for (size_t i = 0; i < CUDA_NEXAMPLES; i++) {
    const cuda_example *ex = &k_cuda_examples[i];
    if (only && !strstr(ex->file, only)) continue;
    char what[160];
    snprintf(what, sizeof what, "%s (%s)", ex->file, ex->label);
    tl_ir_module *m = cuda_parse_example(ex);
    /* every kernel of the file (flash_decoding.py: the split and the combine) */
    for (size_t f = 0; f < tl_ir_module_num_funcs(m); f++) {
      char fwhat[240];
      snprintf(fwhat, sizeof fwhat, "%s %s", what, tl_ir_module_func(m, f)->name);
      emulate(m, tl_ir_module_func(m, f)->name, dims, 3, ex->tol, fwhat);
    }
    tl_ir_module_free(m);
  }
  /* sizes the tiles do not divide */
  static const struct {
    const char *file;
    pt_dim dims[2];
  } sizes[] = {{"vector_add.py", {{"N", 1}, {"N", 1}}}, {"row_max.py", {{"M", 33}, {"N", 65}}},
               {"transpose.py", {{"M", 70}, {"N", 45}}}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    if (only && !strstr(sizes[i].file, only)) continue;
    const cuda_example ex = {sizes[i].file, "size", {{0}}, 0, 0, 0};
    tl_ir_module *m = cuda_parse_example(&ex);
    emulate(m, tl_ir_module_func(m, 0)->name, sizes[i].dims, 2, 0, sizes[i].file);
    tl_ir_module_free(m);
  }
}

static void test_cases(void **state) {
  (void)state;
  if (!g_cxx) skip();
  const char *only = getenv("TL_CUDA_EXAMPLE");
  pt_dim dims[] = {{"N", 1000}, {"alpha", 3}, {"k", -5}};
  for (size_t i = 0; i < CUDA_NCASES; i++) {
    const cuda_case *c = &k_cuda_cases[i];
    if (only && !strstr(c->name, only)) continue;
    tl_ir_module *m = cuda_parse_case(c);
    emulate(m, c->func, dims, 3, c->tol, c->name);
    tl_ir_module_free(m);
  }
}

int main(void) {
  g_cxx = find_cxx();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_examples),
    cmocka_unit_test(test_cases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
