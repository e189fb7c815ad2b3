/* ctest-labels: validate;nosan */
/* The generated WGSL run, not only validated: every example lowered for webgpu,
 * its WGSL dispatched by wgpu (Mesa's lavapipe on a machine without a GPU, through
 * the venv of scripts/setup-wgpu.sh and tests/tools/run_wgsl.py) on seeded inputs,
 * and the results compared with the interpreter's. The webgpu backend's execution
 * backend stays `source` (no WebGPU runtime is part of the library); this checks
 * that the code it writes computes what the kernel means. Without the venv or an
 * adapter the test is skipped, saying why. */
#include <sys/stat.h>

#include "backend_run.h"
#include "base/files.h"
#include "base/fp16.h"

static const char *k_examples[] = {"cumsum", "elementwise_add", "gemm", "rms_norm", "row_max",
                                   "row_sum", "softmax", "transpose", "vector_add"};
#define NEXAMPLES (sizeof k_examples / sizeof k_examples[0])

typedef struct job {
  tl_ir_module *m;
  const tl_ir_func *f;
  pt_args want, got;
  char dir[1024];
} job;

static void write_bytes(const char *dir, const char *name, const void *data, size_t n) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  TL_ASSERT_OK(tl__file_write(path, data, n));
}

/* The uniform struct of a launch's scalars as WGSL lays it out (i32, u32, f32 and
 * bool-as-u32 4 bytes, f16 2 bytes, each at its alignment), padded to 16 bytes, in
 * hex. */
static void pack_uniform(const tl_kernel_launch *l, const pt_args *a, const int64_t *syms, tl__sb *hex) {
  unsigned char bytes[256] = {0};
  size_t off = 0;
  for (uint32_t i = 0; i < l->nargs; i++) {
    const tl_kernel_arg *ka = &l->args[i];
    if (ka->kind == TL_KARG_TENSOR) continue;
    const tl_value *v = ka->kind == TL_KARG_SCALAR ? &a->values[ka->index] : NULL;
    int64_t iv = v ? (v->kind == TL_VALUE_BOOL ? v->v.b : v->kind == TL_VALUE_INT ? v->v.i : 0) : syms[ka->index];
    double fv = v && v->kind == TL_VALUE_FLOAT ? v->v.f : (double)iv;
    if (ka->dtype.code == TL_DTYPE_FLOAT && ka->dtype.bits == 16) {
      off = (off + 1) & ~(size_t)1;
      uint16_t h = tl__f64_to_f16(fv);
      memcpy(bytes + off, &h, 2);
      off += 2;
      continue;
    }
    off = (off + 3) & ~(size_t)3;
    if (ka->dtype.code == TL_DTYPE_FLOAT) {
      float x = (float)fv;
      memcpy(bytes + off, &x, 4);
    } else {
      int32_t x = (int32_t)(tl_dtype_is_bool(ka->dtype) ? iv != 0 : iv);
      memcpy(bytes + off, &x, 4);
    }
    off += 4;
  }
  size_t size = (off + 15) & ~(size_t)15;
  for (size_t i = 0; i < size; i++) tl__sb_appendf(hex, "%02x", bytes[i]);
}

/* Lowers, generates WGSL, and writes the job directory for one function. */
static void prepare(job *j, const char *root, const char *name, tl_backend_context *ctx) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s.py", TL_SOURCE_DIR, name);
  TL_ASSERT_OK(tl_ir_parse_file(path, NULL, &j->m));
  j->f = tl_ir_module_func(j->m, 0);
  br_build b;
  TL_ASSERT_OK(br_codegen(j->m, ctx, &b));
  const tl_kernel_table *t = tl_artifact_kernel_table(b.device);
  assert_non_null(t);
  pt_dim dims[3] = {{"N", 300}, {"M", 70}, {"K", 40}};
  j->want = pt_args_make(j->f, dims, 3, 29);
  j->got = pt_args_copy(&j->want);
  TL_ASSERT_OK(tl_ir_interpret(j->m, j->f->name, j->want.values, (int)j->want.n));
  int64_t syms[16];
  assert_true(t->nsyms <= 16);
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, j->got.values, (int)j->got.n, kDLCPU, syms));
  snprintf(j->dir, sizeof j->dir, "%s/%s", root, name);
  assert_int_equal(mkdir(j->dir, 0700), 0);
  const char *src = tl_artifact_source(b.device);
  write_bytes(j->dir, "kernel.wgsl", src, strlen(src));
  tl__sb js = TL__SB_INIT;
  tl__sb_append(&js, "{\"tensors\":[");
  for (uint32_t p = 0, n = 0; p < t->nparams; p++) {
    if (!t->params[p].is_tensor) continue;
    tl__sb_appendf(&js, "%s%u", n++ ? "," : "", p);
    char file[32];
    snprintf(file, sizeof file, "in%u.bin", p);
    write_bytes(j->dir, file, j->got.tensors[p].data, j->got.nbytes[p]);
  }
  tl__sb_append(&js, "],\"launches\":[");
  for (uint32_t k = 0; k < t->nlaunches; k++) {
    const tl_kernel_launch *l = &t->launches[k];
    int64_t g[3];
    for (int d = 0; d < 3; d++) assert_true(tl_launch_expr_eval(&l->grid[d], syms, t->nsyms, &g[d]));
    tl__sb_appendf(&js, "%s{\"entry\":\"%s\",\"grid\":[%lld,%lld,%lld],\"tensors\":[", k ? "," : "", l->symbol,
                   (long long)g[0], (long long)g[1], (long long)g[2]);
    for (uint32_t a = 0, n = 0; a < l->nargs; a++)
      if (l->args[a].kind == TL_KARG_TENSOR) tl__sb_appendf(&js, "%s%u", n++ ? "," : "", l->args[a].index);
    tl__sb_append(&js, "],\"uniform\":\"");
    pack_uniform(l, &j->got, syms, &js);
    tl__sb_append(&js, "\"}");
  }
  tl__sb_append(&js, "]}\n");
  assert_int_equal(tl__sb_status(&js), TL_OK);
  write_bytes(j->dir, "job.json", tl__sb_str(&js), js.len);
  tl__sb_free(&js);
  br_build_free(&b);
}

static void check(job *j) {
  for (uint32_t p = 0; p < j->got.n; p++) {
    if (j->got.values[p].kind != TL_VALUE_TENSOR) continue;
    char path[1200];
    snprintf(path, sizeof path, "%s/out%u.bin", j->dir, p);
    char *data = NULL;
    size_t n = 0;
    TL_ASSERT_OK(tl__file_read(path, &data, &n));
    assert_int_equal(n, j->got.nbytes[p]);
    memcpy(j->got.tensors[p].data, data, n);
    tl__free(data);
  }
  char what[256];
  snprintf(what, sizeof what, "%s on webgpu (wgpu)", j->f->name);
  br_compare(j->f, &j->want, &j->got, br_tolerance(j->f), what);
}

static void test_examples_run(void **state) {
  (void)state;
  const char *venv = getenv("TL_WGPU_VENV");
  const char *home = getenv("HOME");
  char vpath[1024];
  if (venv && *venv) snprintf(vpath, sizeof vpath, "%s", venv);
  else if (getenv("XDG_CACHE_HOME")) snprintf(vpath, sizeof vpath, "%s/tilelang-backend/wgpu-venv", getenv("XDG_CACHE_HOME"));
  else snprintf(vpath, sizeof vpath, "%s/.cache/tilelang-backend/wgpu-venv", home ? home : "");
  char python[1100];
  snprintf(python, sizeof python, "%s/bin/python", vpath);
  if (access(python, X_OK) != 0) {
    print_message("skipped: no wgpu venv at %s (scripts/setup-wgpu.sh makes it; it needs PyPI)\n", vpath);
    skip();
  }
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("webgpu", NULL, "source", &ctx));
  char *root = br_mkdtemp();
  job jobs[NEXAMPLES];
  memset(jobs, 0, sizeof jobs);
  for (size_t e = 0; e < NEXAMPLES; e++) prepare(&jobs[e], root, k_examples[e], ctx);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "XDG_RUNTIME_DIR=%s '%s' '%s/tests/tools/run_wgsl.py' '%s'", root, python, TL_SOURCE_DIR,
           root);
  int rc = system(cmd);
  int status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  bool skipped = status == 77;
  if (!skipped && status != 0) fail_msg("run_wgsl.py failed (exit %d)", status);
  for (size_t e = 0; e < NEXAMPLES && !skipped; e++) check(&jobs[e]);
  for (size_t e = 0; e < NEXAMPLES; e++) {
    pt_args_free(&jobs[e].want);
    pt_args_free(&jobs[e].got);
    tl_ir_module_free(jobs[e].m);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  assert_int_equal(system(cmd), 0);
  free(root);
  tl_backend_context_release(ctx);
  if (skipped) {
    print_message("skipped: run_wgsl.py found no wgpu or no adapter\n");
    skip();
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_examples_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
