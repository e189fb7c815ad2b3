/* The C code generators on lowered IR built by hand (docs/lowering.md): golden
 * sources, vector add compiled with native and tcc and run on DLTensors of float32,
 * float16, int32 and bfloat16, a richer kernel against a C reference, the generated
 * float16/bfloat16 helpers bit for bit against src/base/fp16.h, the TLValue/DLTensor
 * layout assertions, vector and dialect printing, and the refusals.
 *
 * Golden files: tests/golden/codegen/ (vadd_float32.c, axpy.c); regenerate with
 *   TL_REGEN_GOLDEN=1 build/bin/test_codegen_c   (then review git diff). */
#include <ctype.h>
#include <math.h>

#include "base/fp16.h"
#include "codegen/c_printer.h"
#include "compile_util.h"
#include "lowered_fixtures.h"
#include "runtime/dl_names.h"

/* Fails showing the whole text when it lacks the needle. */
#define ASSERT_CONTAINS(hay, needle)                                                    \
  do {                                                                                  \
    if (!strstr((hay), (needle))) fail_msg("missing:\n%s\n--- in:\n%s", (needle), (hay)); \
  } while (0)

/* The translation unit native and tcc compile: device code, then host code. */
static char *kernel_c(tl_ir_module *m) {
  char *d = NULL, *h = NULL;
  TL_ASSERT_OK(tl__c_device_source(&tl__c_dialect_c, m, &d));
  TL_ASSERT_OK(tl__c_host_source(m, &h));
  char *tu = tl__format("%s\n%s", d, h);
  tl__free(d);
  tl__free(h);
  return tu;
}

static void check_golden(const char *name, const char *text) {
  char *path = tl__format("%s/tests/golden/codegen/%s", TL_SOURCE_DIR, name);
  if (getenv("TL_REGEN_GOLDEN")) {
    TL_ASSERT_OK(tl__file_write(path, text, strlen(text)));
    printf("regenerated %s\n", path);
  } else {
    char *expected = NULL;
    if (tl__file_read(path, &expected, NULL) != TL_OK)
      fail_msg("missing golden file %s (TL_REGEN_GOLDEN=1 build/bin/test_codegen_c)", path);
    if (strcmp(expected, text) != 0)
      fail_msg("generated C differs from %s (if intended: TL_REGEN_GOLDEN=1 build/bin/test_codegen_c)\n--- got:\n%s",
               path, text);
    tl__free(expected);
  }
  tl__free(path);
}

static void test_golden(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  char *tu = kernel_c(m);
  check_golden("vadd_float32.c", tu);
  tl__free(tu);
  tl_ir_module_free(m);
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_axpy(m);
  tu = kernel_c(m);
  check_golden("axpy.c", tu);
  tl__free(tu);
  tl_ir_module_free(m);
}

/* The device artifact carries the kernel table and the global functions give the
 * same sources. */
static void test_artifacts(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  tl_artifact *device = NULL, *host = NULL;
  rt_codegen(m, &device, &host);
  assert_string_equal(tl_artifact_format(device), "c");
  assert_string_equal(tl_artifact_format(host), "c");
  const tl_kernel_table *t = tl_artifact_kernel_table(device);
  assert_non_null(t);
  assert_string_equal(t->entry, "vadd");
  assert_int_equal(t->nparams, 3);
  assert_int_equal(t->nsyms, 1);
  assert_int_equal(t->nlaunches, 1);
  assert_string_equal(t->launches[0].symbol, "vadd_kernel");
  tl_target *c;
  TL_ASSERT_OK(tl_target_parse("c", &c));
  tl_value args[2] = {tl_value_module(m), tl_value_target(c)}, ret = {TL_VALUE_NONE, 0, {.i = 0}};
  TL_ASSERT_OK(tl_call_global_func("target.build.tilelang_c", args, 2, &ret));
  assert_int_equal(ret.kind, TL_VALUE_ARTIFACT);
  assert_string_equal(tl_artifact_source(ret.v.artifact), tl_artifact_source(device));
  tl_value_clear(&ret);
  TL_ASSERT_OK(tl_call_global_func("target.build.tilelang_c_host", args, 2, &ret));
  assert_string_equal(tl_artifact_source(ret.v.artifact), tl_artifact_source(host));
  tl_value_clear(&ret);
  TL_ASSERT_ERR(tl_call_global_func("target.build.tilelang_c", args, 1, &ret), TL_EINVAL, "takes (module, target)");
  tl_artifact *via = NULL;
  TL_ASSERT_OK(tl_host_codegen_lower(&tl__c_host_codegen_desc, m, c, &via));
  assert_string_equal(tl_artifact_source(via), tl_artifact_source(host));
  tl_artifact_release(via);
  tl_target_release(c);
  tl_artifact_release(device);
  tl_artifact_release(host);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------- vector add */

static uint64_t g_seed = 42;

/* Random element i of dtype dt written at p, as its double value. */
static double random_elem(tl_dtype dt, void *p) {
  double u = test_uniform(&g_seed) * 100.0;
  if (dt.code == TL_DTYPE_INT) {
    int32_t v = (int32_t)(u * 10000.0);
    memcpy(p, &v, 4);
    return v;
  }
  if (dt.bits == 32) {
    float f = (float)u;
    memcpy(p, &f, 4);
    return f;
  }
  uint16_t h = dt.code == TL_DTYPE_BFLOAT ? tl__f64_to_bf16(u) : tl__f64_to_f16(u);
  memcpy(p, &h, 2);
  return dt.code == TL_DTYPE_BFLOAT ? tl__bf16_to_f64(h) : tl__f16_to_f64(h);
}

/* The bits vector add must produce for a + b in dtype dt. */
static void expected_sum(tl_dtype dt, double a, double b, void *p) {
  if (dt.code == TL_DTYPE_INT) {
    int32_t v = (int32_t)a + (int32_t)b;
    memcpy(p, &v, 4);
  } else if (dt.bits == 32) {
    float f = (float)a + (float)b;
    memcpy(p, &f, 4);
  } else {
    uint16_t h = dt.code == TL_DTYPE_BFLOAT ? tl__f64_to_bf16(a + b) : tl__f64_to_f16(a + b);
    memcpy(p, &h, 2);
  }
}

static void run_vadd(const char *runner, tl_dtype dt) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, dt);
  tl_kernel_table *t = vadd_table(dt);
  tl_kernel *k = NULL;
  TL_ASSERT_OK(rt_build(runner, m, t, "vadd", &k));
  assert_string_equal(tl_kernel_execution_backend(k), runner);
  static const int64_t sizes[] = {0, 1, 255, 256, 257, 1000, 4099};
  size_t es = tl_dtype_bytes(dt);
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    int64_t n = sizes[si];
    char *a = n ? malloc((size_t)n * es) : NULL, *b = n ? malloc((size_t)n * es) : NULL;
    char *c = n ? malloc((size_t)n * es) : NULL, *want = n ? malloc((size_t)n * es) : NULL;
    for (int64_t i = 0; i < n; i++) {
      double x = random_elem(dt, a + i * es), y = random_elem(dt, b + i * es);
      expected_sum(dt, x, y, want + i * es);
    }
    if (n) memset(c, 0xA5, (size_t)n * es);
    host_tensor ha, hb, hc;
    tl_value args[3] = {ht_wrap(&ha, dt, a, 1, n, 0), ht_wrap(&hb, dt, b, 1, n, 0), ht_wrap(&hc, dt, c, 1, n, 0)};
    TL_ASSERT_OK(tl_kernel_call(k, args, 3, NULL));
    if (n && memcmp(c, want, (size_t)n * es) != 0) {
      for (int64_t i = 0; i < n; i++)
        if (memcmp(c + i * es, want + i * es, es))
          fail_msg("%s %s n=%lld: element %lld differs", runner, tl_dtype_name(dt, NULL, 0), (long long)n, (long long)i);
    }
    free(a), free(b), free(c), free(want);
  }
  tl_kernel_release(k);
  tl_kernel_table_free(t);
  tl_ir_module_free(m);
}

static void test_vadd_runs(void **state) {
  (void)state;
  const char *runners[2];
  size_t nr = rt_runners(runners);
  assert_true(nr >= 1); /* a C compiler or libtcc is a dependency */
  const tl_dtype dts[] = {TL_DT_FLOAT32, TL_DT_FLOAT16, TL_DT_INT32, TL_DT_BFLOAT16};
  for (size_t r = 0; r < nr; r++)
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) run_vadd(runners[r], dts[i]);
}

/* A bad argument gets the host entry's message (the whole list is in
 * test_runtime_args.c). */
static void test_vadd_checks(void **state) {
  (void)state;
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) {
    tl_ir_module *m;
    TL_ASSERT_OK(tl_ir_module_create(&m));
    build_vadd(m, TL_DT_FLOAT32);
    tl_kernel *k = NULL;
    TL_ASSERT_OK(rt_build(runners[r], m, NULL, "vadd", &k));
    float a[4] = {0}, b[4] = {0}, c[3] = {0};
    host_tensor ha, hb, hc;
    tl_value args[3] = {ht_wrap(&ha, TL_DT_FLOAT32, a, 1, 4, 0), ht_wrap(&hb, TL_DT_FLOAT32, b, 1, 4, 0),
                        ht_wrap(&hc, TL_DT_FLOAT32, c, 1, 3, 0)};
    TL_ASSERT_ERR(tl_kernel_call(k, args, 3, NULL), TL_EINVAL, NULL);
    TL_ASSERT_MSG("argument 'C': dimension 0 must equal N (=4 from argument 'A') but is 3");
    TL_ASSERT_ERR(tl_kernel_call(k, args, 2, NULL), TL_EINVAL, NULL);
    TL_ASSERT_MSG("function 'vadd' takes 3 arguments but got 2");
    hb.t.dtype.bits = 16;
    TL_ASSERT_ERR(tl_kernel_call(k, args, 3, NULL), TL_EINVAL, NULL);
    TL_ASSERT_MSG("argument 'B': expected float32 but got float16");
    TL_ASSERT_ERR(tl_kernel_call(k, NULL, 3, NULL), TL_EINVAL, "3 arguments");
    TL_ASSERT_ERR(tl_kernel_call(NULL, args, 3, NULL), TL_EINVAL, "kernel must not be NULL");
    tl_kernel_release(k);
    tl_ir_module_free(m);
  }
}

/* ------------------------------------------------------------------ axpy */

static void test_axpy_runs(void **state) {
  (void)state;
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) {
    tl_ir_module *m;
    TL_ASSERT_OK(tl_ir_module_create(&m));
    build_axpy(m);
    tl_kernel *k = NULL;
    TL_ASSERT_OK(rt_build(runners[r], m, NULL, "axpy", &k));
    static const int64_t rows[] = {1, 2, 5, 64};
    static const int32_t shifts[] = {-7, 0, 5};
    for (size_t ri = 0; ri < 4; ri++)
      for (size_t s = 0; s < 3; s++) {
        int64_t mrows = rows[ri];
        float *x = malloc((size_t)mrows * 8 * sizeof *x), *y = malloc((size_t)mrows * 8 * sizeof *y);
        for (int64_t i = 0; i < mrows * 8; i++) x[i] = (float)test_uniform(&g_seed) * 3.0f;
        host_tensor hx, hy;
        tl_value args[4] = {ht_wrap(&hx, TL_DT_FLOAT32, x, 2, mrows, 8), ht_wrap(&hy, TL_DT_FLOAT32, y, 2, mrows, 8),
                            tl_value_float(1.5), tl_value_int(shifts[s])};
        TL_ASSERT_OK(tl_kernel_call(k, args, 4, NULL));
        for (int64_t row = 0; row < mrows; row++)
          for (int64_t col = 0; col < 8; col++) {
            float want = axpy_ref(x, row, col, 1.5f, shifts[s]), got = y[row * 8 + col];
            if (fabsf(got - want) > 1e-5f * (1.0f + fabsf(want)))
              fail_msg("%s axpy M=%lld shift=%d [%lld,%lld]: %g != %g", runners[r], (long long)mrows, shifts[s],
                       (long long)row, (long long)col, got, want);
          }
        free(x);
        free(y);
      }
    /* scalar checks */
    float x[8] = {0}, y[8] = {0};
    host_tensor hx, hy;
    tl_value args[4] = {ht_wrap(&hx, TL_DT_FLOAT32, x, 2, 1, 8), ht_wrap(&hy, TL_DT_FLOAT32, y, 2, 1, 8),
                        tl_value_str("x"), tl_value_int(0)};
    TL_ASSERT_ERR(tl_kernel_call(k, args, 4, NULL), TL_EINVAL, NULL);
    TL_ASSERT_MSG("argument 'alpha': expected a scalar float32 but got a string");
    args[2] = tl_value_int(2);
    args[3] = tl_value_int(1ll << 40);
    TL_ASSERT_ERR(tl_kernel_call(k, args, 4, NULL), TL_EINVAL, NULL);
    TL_ASSERT_MSG("argument 'shift': 1099511627776 does not fit int32");
    hy.shape[1] = 9;
    args[3] = tl_value_bool(true);
    TL_ASSERT_ERR(tl_kernel_call(k, args, 4, NULL), TL_EINVAL, NULL);
    TL_ASSERT_MSG("argument 'Y': dimension 1 must be 8 but is 9");
    tl_kernel_release(k);
    tl_ir_module_free(m);
  }
}

/* ----------------------------------------------------- float16 helpers, layout */

typedef uint16_t (*narrow_fn)(double);
typedef float (*widen_fn)(uint16_t);

/* The generated conversions agree bit for bit with src/base/fp16.h: every 16-bit
 * pattern widened, and narrowing of every 16-bit value, the midpoints between
 * neighbours (ties), values just off them, and random doubles. */
static void check_fp16(const char *runner) {
  tl__cgen g;
  tl__cgen_init(&g, &tl__c_dialect_c);
  tl__cgen_use_helper(&g, "fp16", TL_DT_FLOAT16);
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, tl__c_dialect_c.prelude);
  tl__cgen_emit_helpers(&g, &sb);
  tl__cgen_free(&g);
  tl__sb_append(&sb,
                "uint16_t f16n(double x) { return tl_f16_from_f64(x); }\n"
                "float f16w(uint16_t h) { return tl_f16_to_f32(h); }\n"
                "uint16_t bf16n(double x) { return tl_bf16_from_f64(x); }\n"
                "float bf16w(uint16_t h) { return tl_bf16_to_f32(h); }\n");
  compiled c;
  char *errors = NULL;
  if (!cu_compile(runner, tl__sb_str(&sb), &c, &errors)) fail_msg("%s: %s", runner, errors);
  tl__sb_free(&sb);
  narrow_fn f16n = (narrow_fn)cu_sym(&c, "f16n"), bf16n = (narrow_fn)cu_sym(&c, "bf16n");
  widen_fn f16w = (widen_fn)cu_sym(&c, "f16w"), bf16w = (widen_fn)cu_sym(&c, "bf16w");
  for (uint32_t h = 0; h < 65536; h++) {
    float a = f16w((uint16_t)h), b = tl__f16_to_f32((uint16_t)h);
    if (memcmp(&a, &b, 4)) fail_msg("%s: f16 widen %04x", runner, h);
    a = bf16w((uint16_t)h), b = tl__bf16_to_f32((uint16_t)h);
    if (memcmp(&a, &b, 4)) fail_msg("%s: bf16 widen %04x", runner, h);
    double v = tl__f16_to_f64((uint16_t)h), next = tl__f16_to_f64((uint16_t)(h + 1));
    double probes[5] = {v, (v + next) / 2, nextafter((v + next) / 2, INFINITY), nextafter((v + next) / 2, -INFINITY),
                        v * 1.0000001};
    for (int p = 0; p < 5; p++)
      if (f16n(probes[p]) != tl__f64_to_f16(probes[p])) fail_msg("%s: f16 narrow %.17g (h=%04x)", runner, probes[p], h);
    v = tl__bf16_to_f64((uint16_t)h), next = tl__bf16_to_f64((uint16_t)(h + 1));
    double bprobes[4] = {v, (v + next) / 2, nextafter((v + next) / 2, INFINITY), nextafter((v + next) / 2, -INFINITY)};
    for (int p = 0; p < 4; p++)
      if (bf16n(bprobes[p]) != tl__f64_to_bf16(bprobes[p])) fail_msg("%s: bf16 narrow %.17g", runner, bprobes[p]);
  }
  uint64_t seed = 7;
  for (int i = 0; i < 200000; i++) {
    uint64_t bits = (uint64_t)(test_uniform(&seed) * 9.2e18) ^ ((uint64_t)(test_uniform(&seed) * 4e9) << 32);
    double x;
    memcpy(&x, &bits, 8);
    if (f16n(x) != tl__f64_to_f16(x)) fail_msg("%s: f16 narrow of bits %016llx", runner, (unsigned long long)bits);
    if (bf16n(x) != tl__f64_to_bf16(x)) fail_msg("%s: bf16 narrow of bits %016llx", runner, (unsigned long long)bits);
  }
  cu_free(&c);
}

static void test_fp16_helpers(void **state) {
  (void)state;
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) check_fp16(runners[r]);
}

/* TLValue and DLTensor as the generated code declares them have the library's
 * layout: the prelude's static assertions compile with both compilers, the sizes it
 * sees are the library's, and an assertion with a wrong size is a compile error. */
static void test_layout(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  char *host = NULL;
  TL_ASSERT_OK(tl__c_host_source(m, &host));
  tl_ir_module_free(m);
  /* The host source alone (no device code): only the prelude and sizes matter. */
  const char *cut = strstr(host, "static void vadd_kernel");
  assert_non_null(cut);
  char *prelude = tl__strndup(host, (size_t)(cut - host));
  char *src = tl__format("%s\nsize_t sizes[] = {sizeof(TLValue), offsetof(TLValue, kind), offsetof(TLValue, size),\n"
                         "  offsetof(TLValue, v), sizeof(DLTensor), offsetof(DLTensor, data), offsetof(DLTensor, device),\n"
                         "  offsetof(DLTensor, ndim), offsetof(DLTensor, dtype), offsetof(DLTensor, shape),\n"
                         "  offsetof(DLTensor, strides), offsetof(DLTensor, byte_offset)};\n"
                         "const char *name_of(uint8_t c, uint8_t b, uint16_t l, char *buf) {\n"
                         "  DLDataType t = {c, b, l};\n  return tl_dtype_str(t, buf, 48);\n}\n"
                         "const char *kind_of(int32_t k) { return tl_kind_words(k); }\n",
                         prelude);
  size_t want[] = {sizeof(tl_value), offsetof(tl_value, kind), offsetof(tl_value, size), offsetof(tl_value, v),
                   sizeof(DLTensor), offsetof(DLTensor, data), offsetof(DLTensor, device), offsetof(DLTensor, ndim),
                   offsetof(DLTensor, dtype), offsetof(DLTensor, shape), offsetof(DLTensor, strides),
                   offsetof(DLTensor, byte_offset)};
  char bad_size[32];
  snprintf(bad_size, sizeof bad_size, "sizeof(TLValue) == %zu", sizeof(tl_value));
  char *wrong = tl__strdup(src);
  char *at = strstr(wrong, bad_size);
  assert_non_null(at);
  at[strlen(bad_size) - 1] = '9'; /* 24 -> 29 */
  /* With dlpack.h first, the prelude uses DLPack's own definitions. */
  char *with_dlpack = tl__format("#include <dlpack/dlpack.h>\n%s", src);
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) {
    compiled c;
    char *errors = NULL;
    if (!cu_compile(runners[r], src, &c, &errors)) fail_msg("%s: %s", runners[r], errors);
    const size_t *sizes = cu_sym(&c, "sizes");
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
      if (sizes[i] != want[i]) fail_msg("%s: layout entry %zu is %zu, the library has %zu", runners[r], i, sizes[i], want[i]);
    /* The words of messages: as tl_kernel_table_bind_args has them. */
    typedef const char *(*name_fn)(uint8_t, uint8_t, uint16_t, char *);
    typedef const char *(*kind_fn)(int32_t);
    name_fn name_of = (name_fn)cu_sym(&c, "name_of");
    kind_fn kind_of = (kind_fn)cu_sym(&c, "kind_of");
    for (unsigned code = 0; code < 9; code++)
      for (unsigned bits = 1; bits < 256; bits *= 2)
        for (unsigned lanes = 0; lanes < 5; lanes++) {
          char x[48], y[48];
          assert_string_equal(name_of((uint8_t)code, (uint8_t)bits, (uint16_t)lanes, x),
                              tl__dl_dtype_name((uint8_t)code, (uint8_t)bits, (uint16_t)lanes, y, sizeof y));
        }
    for (int32_t k = -1; k < 13; k++) assert_string_equal(kind_of(k), tl__value_kind_words(k));
    cu_free(&c);
    assert_false(cu_compile(runners[r], wrong, &c, &errors));
    /* glibc gives compilers it does not know as C11 a _Static_assert without the text */
    if (!strcmp(runners[r], "native")) ASSERT_CONTAINS(errors, "TLValue must match tl_value");
    tl__free(errors);
    if (!strcmp(runners[r], "native")) { /* tcc's search path may lack dlpack's directory */
      if (!cu_compile(runners[r], with_dlpack, &c, &errors)) fail_msg("with dlpack.h: %s", errors);
      cu_free(&c);
    }
  }
  tl__free(with_dlpack);
  tl__free(wrong);
  tl__free(src);
  tl__free(prelude);
  tl__free(host);
}

/* --------------------------------------------------------------- printing */

/* The device source of a module with one kernel built by `body` over a float32
 * buffer A[n] and an int32 n. */
typedef tl_ir_stmt *(*body_fn)(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n);

static tl_status device_text(const tl__c_dialect *d, body_fn fn, char **out) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_buffer *a = buf1(m, "A", TL_DT_FLOAT32, VAR(n), TL_SCOPE_GLOBAL);
  finish(m, "k", TL_CALLCONV_DEVICE_KERNEL, &a, 1, &n, 1, fn(m, a, n));
  tl_status s = tl__c_device_source(d, m, out);
  tl_ir_module_free(m);
  return s;
}

/* A[ramp(i * 4, 1, 4)] = A[ramp(i * 4, 1, 4)] * broadcast(2, 4) for i < n / 4 */
static tl_ir_stmt *vector_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_expr *idx = tl_ir_ramp(m, MUL(VAR(i), I32(4)), 1, 4);
  tl_ir_stmt *st = STORE(a, MUL(LOAD(a, idx), tl_ir_broadcast(m, F32(2.0), 4)), idx);
  return single_var_loop(m, TL_FOR_VECTORIZED, i, BIN(FLOORDIV, VAR(n), I32(4)), st);
}

/* A[ramp(0, 1, 4)] = A[ramp(4, 1, 4)] (a contiguous vector copy) */
static tl_ir_stmt *copy_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  (void)n;
  return STORE(a, LOAD(a, tl_ir_ramp(m, I32(4), 1, 4)), tl_ir_ramp(m, I32(0), 1, 4));
}

/* let v = A[ramp(i * 4, 1, 4)] * 2 in A[ramp(i * 4, 1, 4)] = v + v */
static tl_ir_stmt *vector_let_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *v = tl_ir_var_new(m, "v", tl_dtype_with_lanes(TL_DT_FLOAT32, 4));
  tl_ir_expr *idx = tl_ir_ramp(m, MUL(VAR(i), I32(4)), 1, 4);
  tl_ir_stmt *st = tl_ir_let(m, v, MUL(LOAD(a, idx), tl_ir_broadcast(m, F32(2.0), 4)), STORE(a, ADD(VAR(v), VAR(v)), idx));
  return single_var_loop(m, TL_FOR_SERIAL, i, BIN(FLOORDIV, VAR(n), I32(4)), st);
}

/* float4 only, as a row of vector types. */
static const tl__c_vector_type k_vec_types[] = {{"f32", 1u << 4, 0, "float", "$B$N"}, {NULL, 0, 0, NULL, NULL}};

static const tl__c_thread_tag k_tags[] = {{"blockIdx.x", "blockIdx.x"}, {"threadIdx.x", "threadIdx.x"}, {NULL, NULL}};

/* A[blockIdx.x * 64 + tx] = 0 with a thread loop over threadIdx.x, then a barrier */
static tl_ir_stmt *thread_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  (void)n;
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *tx = tl_ir_var_new(m, "tx", TL_DT_INT32);
  bx->thread_tag = "blockIdx.x";
  tx->thread_tag = "threadIdx.x";
  tl_ir_stmt *loop = single_var_loop(m, TL_FOR_THREAD, tx, I32(64), STORE(a, F32(0.0), ADD(MUL(VAR(bx), I32(64)), VAR(tx))));
  loop->u.loop.thread_tag = "threadIdx.x";
  return SEQ(loop, tl_ir_barrier(m));
}

static void test_vectors_and_dialects(void **state) {
  (void)state;
  char *text = NULL;
  TL_ASSERT_OK(device_text(&tl__c_dialect_c, vector_body, &text));
  ASSERT_CONTAINS(text, "  for (int32_t i = 0; i < n / 4; ++i) {\n"
                               "    for (int32_t lane = 0; lane < 4; ++lane) {\n"
                               "      A[i * 4 + lane] = A[i * 4 + lane] * 2.0f;\n");
  tl__free(text);
  TL_ASSERT_OK(device_text(&tl__c_dialect_c, copy_body, &text));
  ASSERT_CONTAINS(text, "A[0 + lane] = A[4 + lane];");
  tl__free(text);
  TL_ASSERT_OK(device_text(&tl__c_dialect_c, vector_let_body, &text));
  ASSERT_CONTAINS(text, "    float v[4];\n"
                        "    for (int32_t lane = 0; lane < 4; ++lane) {\n"
                        "      v[lane] = A[i * 4 + lane] * 2.0f;\n"
                        "    }\n"
                        "    for (int32_t lane_1 = 0; lane_1 < 4; ++lane_1) {\n"
                        "      A[i * 4 + lane_1] = v[lane_1] + v[lane_1];\n");
  /* and it is C both compilers take */
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) {
    compiled c;
    char *errors = NULL;
    if (!cu_compile(runners[r], text, &c, &errors)) fail_msg("%s: %s", runners[r], errors);
    cu_free(&c);
  }
  tl__free(text);
  /* A dialect with vector types copies whole vectors; one with threads prints the
   * tags, its barrier and its qualifiers. */
  tl__c_dialect gpu = tl__c_dialect_c;
  gpu.name = "gpu-test";
  gpu.vector_types = k_vec_types;
  gpu.thread_tags = k_tags;
  gpu.barrier = "__syncthreads();";
  gpu.kernel_prefix = "extern \"C\" __global__";
  gpu.restrict_kw = "__restrict__";
  gpu.parallel_for = NULL;
  TL_ASSERT_OK(device_text(&gpu, copy_body, &text));
  ASSERT_CONTAINS(text, "*(float4 *)&A[0] = *(const float4 *)&A[4];");
  tl__free(text);
  TL_ASSERT_OK(device_text(&gpu, thread_body, &text));
  /* block and thread indices are declared once, signed, at the top */
  ASSERT_CONTAINS(text, "extern \"C\" __global__ void k(float *__restrict__ A, int32_t n) {\n"
                               "  const int32_t bx = blockIdx.x;\n"
                               "  const int32_t tx = threadIdx.x;\n"
                               "  A[bx * 64 + tx] = 0.0f;\n"
                               "  __syncthreads();\n");
  tl__free(text);
  /* The C dialect has no threads. */
  TL_ASSERT_ERR(device_text(&tl__c_dialect_c, thread_body, &text), TL_EUNSUPPORTED,
                "the c dialect has no thread index 'blockIdx.x' (variable 'bx')");
  assert_non_null(strstr(tl_last_error(), "in kernel 'k'"));
}

/* Parentheses where C needs them, wrapping of narrow integers, Python's // and %. */
static tl_ir_stmt *expr_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *s = tl_ir_var_new(m, "s", TL_DT_INT8);
  tl_ir_buffer *b = tl_ir_buffer_new(m, "b", TL_DT_INT8, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
  tl_ir_expr *k = SUB(VAR(n), VAR(i)); /* may be negative */
  tl_ir_stmt *body = SEQ(
      tl_ir_alloc(m, b),
      tl_ir_let(m, s, tl_ir_int(m, TL_DT_INT8, -3),
                tl_ir_store(m, b, 0, NULL, ADD(VAR(s), tl_ir_load(m, b, 0, NULL)))),
      STORE(a, tl_ir_cast(m, TL_DT_FLOAT32, BIN(FLOORDIV, k, I32(2))), BIN(FLOORMOD, VAR(i), I32(8))),
      STORE(a, tl_ir_cast(m, TL_DT_FLOAT32, MUL(SUB(VAR(i), I32(1)), SUB(I32(2), SUB(VAR(i), I32(-3))))), VAR(i)),
      STORE(a, tl_ir_cast(m, TL_DT_FLOAT32, BIN(BITAND, BIN(SHL, VAR(i), I32(2)), I32(12))), VAR(i)));
  return single_var_loop(m, TL_FOR_SERIAL, i, VAR(n), body);
}

/* Parallel loops of constant trip counts: one block gets no directive, several an
 * unconditional one; a nested parallel loop none. */
static tl_ir_stmt *parallel_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  (void)n;
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *j = tl_ir_var_new(m, "j", TL_DT_INT32),
            *k = tl_ir_var_new(m, "k", TL_DT_INT32);
  tl_ir_stmt *one = single_var_loop(m, TL_FOR_PARALLEL, i, I32(1), STORE(a, F32(1.0), VAR(i)));
  tl_ir_stmt *inner = single_var_loop(m, TL_FOR_PARALLEL, k, I32(4), STORE(a, F32(2.0), ADD(VAR(j), VAR(k))));
  tl_ir_stmt *eight = single_var_loop(m, TL_FOR_PARALLEL, j, I32(8), SEQ(tl_ir_barrier(m), inner));
  return SEQ(one, eight);
}

static void test_expressions(void **state) {
  (void)state;
  char *text = NULL;
  TL_ASSERT_OK(device_text(&tl__c_dialect_c, expr_body, &text));
  ASSERT_CONTAINS(text, "const int8_t s = (int8_t)-3;");
  ASSERT_CONTAINS(text, "b[0] = (int8_t)(s + b[0]);");
  ASSERT_CONTAINS(text, "A[i % 8] = (float)tl_floordiv_i32(n - i, 2);"); /* i >= 0, n - i unknown */
  ASSERT_CONTAINS(text, "A[i] = (float)((i - 1) * (2 - (i - (-3))));");
  ASSERT_CONTAINS(text, "A[i] = (float)((i << 2) & 12);");
  ASSERT_CONTAINS(text, "#ifndef TL_HELPER_INTDIV_I32");
  tl__free(text);
  TL_ASSERT_OK(device_text(&tl__c_dialect_c, parallel_body, &text));
  ASSERT_CONTAINS(text, "{\n  for (int32_t i = 0; i < 1; ++i) {\n");
  /* 8 blocks of 4 stores: too little work to pay for a team (c_parallel.c) */
  ASSERT_CONTAINS(text, "  }\n  for (int32_t j = 0; j < 8; ++j) {\n"
                        "    for (int32_t k = 0; k < 4; ++k) {\n");
  assert_null(strstr(text, "omp parallel"));
  assert_null(strstr(text, "TL_HELPER_FP16")); /* only the helpers used */
  tl__free(text);
}

/* A parallel nest whose trip count is a long expression: n + n + ... (200 terms). */
static tl_ir_stmt *long_parallel_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_expr *extent = VAR(n);
  for (int k = 1; k < 200; k++) extent = ADD(extent, VAR(n));
  return single_var_loop(m, TL_FOR_PARALLEL, i, extent, STORE(a, F32(1.0), VAR(i)));
}

/* Text the printer builds from the dialect and the kernel has no length limit: a
 * parallel-for condition of 800 characters and helper sections with long names
 * print whole. */
static void test_no_truncation(void **state) {
  (void)state;
  char *text = NULL;
  TL_ASSERT_OK(device_text(&tl__c_dialect_c, long_parallel_body, &text));
  tl__sb want = TL__SB_INIT;
  tl__sb_append(&want, "TL_OMP(omp parallel for if(n");
  for (int k = 1; k < 200; k++) tl__sb_append(&want, " + n");
  tl__sb_append(&want, " >= 65536))\n"); /* one store per block: a team from 2^16 blocks (c_parallel.c) */
  ASSERT_CONTAINS(text, tl__sb_str(&want));
  tl__sb_free(&want);
  tl__free(text);

  char long_a[160], long_b[160];
  memset(long_a, 'h', sizeof long_a - 2);
  long_a[sizeof long_a - 2] = 'a';
  long_a[sizeof long_a - 1] = '\0';
  memcpy(long_b, long_a, sizeof long_b);
  long_b[sizeof long_b - 2] = 'b';
  tl__c_helper helpers[] = {{long_a, false, NULL, "/* a */\n"}, {long_b, false, NULL, "/* b */\n"}, {NULL, false, NULL, NULL}};
  tl__c_dialect d = tl__c_dialect_c;
  d.helpers = helpers;
  tl__cgen g;
  tl__cgen_init(&g, &d);
  tl__cgen_use_helper(&g, long_a, TL_DT_INT32);
  tl__cgen_use_helper(&g, long_b, TL_DT_INT32);
  tl__sb out = TL__SB_INIT;
  tl__cgen_emit_helpers(&g, &out);
  TL_ASSERT_OK(tl__cgen_status(&g));
  tl__cgen_free(&g);
  char guard[200];
  for (int k = 0; k < 2; k++) {
    snprintf(guard, sizeof guard, "#define TL_HELPER_%s\n/* %c */", k ? long_b : long_a, k ? 'b' : 'a');
    for (char *c = guard + strlen("#define TL_HELPER_"); *c != '\n'; c++) *c = (char)toupper((unsigned char)*c);
    ASSERT_CONTAINS(tl__sb_str(&out), guard);
  }
  tl__sb_free(&out);
}

/* Every code generator's global function is registered and names itself when its
 * arguments are wrong. */
static void test_global_functions(void **state) {
  (void)state;
  static const char *const k_names[] = {
    "target.build.tilelang_c", "target.build.tilelang_c_host", "target.build.tilelang_cuda",
    "target.build.tilelang_cuda_without_compile", "target.build.tilelang_hip_without_compile",
    "target.build.tilelang_metal_without_compile", "target.build.tilelang_webgpu_without_compile",
  };
  tl_value arg = tl_value_int(1), ret = {TL_VALUE_NONE, 0, {.i = 0}};
  for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; i++) {
    TL_ASSERT_ERR(tl_call_global_func(k_names[i], &arg, 1, &ret), TL_EINVAL, "takes (module, target)");
    assert_non_null(strstr(tl_last_error(), k_names[i]));
    assert_int_equal(ret.kind, TL_VALUE_NONE);
  }
}

/* --------------------------------------------------------------- refusals */

static tl_ir_stmt *tile_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  (void)n;
  return TILE(TL_OP_FILL, FULL(a), F32(1.0));
}

static tl_ir_stmt *alloc_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  tl_ir_buffer *s = buf1(m, "S", TL_DT_FLOAT32, VAR(n), TL_SCOPE_SHARED);
  return SEQ(tl_ir_alloc(m, s), STORE(a, LOAD(s, I32(0)), I32(0)));
}

static tl_ir_stmt *kernel_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  (void)n;
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  return kernel2(m, I32(1), NULL, bx, NULL, STORE(a, F32(0.0), VAR(bx)));
}

static tl_ir_stmt *assert_body(tl_ir_module *m, tl_ir_buffer *a, tl_ir_var *n) {
  (void)a;
  return tl_ir_assert(m, LT(VAR(n), I32(3)), "n");
}

static void test_refusals(void **state) {
  (void)state;
  char *text = NULL;
  TL_ASSERT_ERR(device_text(&tl__c_dialect_c, tile_body, &text), TL_EUNSUPPORTED,
                "in kernel 'k': T.fill must be lowered before c code generation");
  TL_ASSERT_ERR(device_text(&tl__c_dialect_c, alloc_body, &text), TL_EUNSUPPORTED,
                "buffer 'S' (shared) needs a constant size for c code generation");
  TL_ASSERT_ERR(device_text(&tl__c_dialect_c, kernel_body, &text), TL_EUNSUPPORTED, "T.Kernel must be lowered");
  TL_ASSERT_ERR(device_text(&tl__c_dialect_c, assert_body, &text), TL_EUNSUPPORTED,
                "argument checks belong in host code");
  /* Host code: the launch convention is required and must be known; `call` runs a
   * grid of one. */
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "warp_drive"));
  TL_ASSERT_ERR(tl__c_host_source(m, &text), TL_EUNSUPPORTED,
                "host codegen 'c' has no launch emitter for convention 'warp_drive' (known: call, cuda_driver)");
  TL_ASSERT_OK(tl_ir_module_set_attr_int(m, "tl.launch_convention", 1));
  TL_ASSERT_ERR(tl__c_host_source(m, &text), TL_EINVAL, "needs the module attribute tl.launch_convention");
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "call"));
  tl_ir_func *host = tl_ir_module_find_func(m, "vadd");
  tl_ir_stmt *last = host->body->u.seq.stmts[host->body->u.seq.n - 1]; /* LET N ... LAUNCH */
  tl_ir_stmt *launch = last->u.let.body;
  launch->u.launch.grid[0] = I32(2);
  TL_ASSERT_ERR(tl__c_host_source(m, &text), TL_EUNSUPPORTED,
                "in host entry 'vadd': launch convention 'call' runs kernel 'vadd_kernel' once");
  launch->u.launch.grid[0] = I32(1);
  /* A malformed placeholder in a check's message. */
  host->body->u.seq.stmts[0]->u.assert_.message = "got {nargs";
  TL_ASSERT_ERR(tl__c_host_source(m, &text), TL_EINVAL, "malformed placeholder");
  host->body->u.seq.stmts[0]->u.assert_.message = "got {shape(9,0)}";
  TL_ASSERT_ERR(tl__c_host_source(m, &text), TL_EINVAL, "unknown message placeholder {shape}");
  host->body->u.seq.stmts[0]->u.assert_.message = "100% {{literal}} \"quoted\" ?\?= {nargs}";
  TL_ASSERT_OK(tl__c_host_source(m, &text));
  ASSERT_CONTAINS(text, "\"100%% {literal} \\\"quoted\\\" ?\\?= %d\", (int)nargs);");
  tl__free(text);
  tl_ir_module_free(m);
  /* A module without host entry. */
  TL_ASSERT_OK(tl_ir_module_create(&m));
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "call"));
  TL_ASSERT_ERR(tl__c_host_source(m, &text), TL_EINVAL, "the module has no host entry");
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------------ OOM */

static tl_status oom_codegen(void *ctx) {
  tl_ir_module *m = ctx;
  tl_artifact *d = NULL, *h = NULL;
  tl_target *c = NULL;
  tl_status s = tl_target_parse("c", &c);
  if (s == TL_OK) s = tl__c_device_codegen(m, c, &d);
  if (s == TL_OK) s = tl__c_host_codegen(m, c, &h);
  tl_artifact_release(d);
  tl_artifact_release(h);
  tl_target_release(c);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_axpy(m);
  assert_true(tl_oom_sweep(oom_codegen, NULL, m) > 10);
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_golden),          cmocka_unit_test(test_artifacts),
    cmocka_unit_test(test_vadd_runs),       cmocka_unit_test(test_vadd_checks),
    cmocka_unit_test(test_axpy_runs),       cmocka_unit_test(test_fp16_helpers),
    cmocka_unit_test(test_layout),          cmocka_unit_test(test_vectors_and_dialects),
    cmocka_unit_test(test_expressions),     cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_no_truncation),   cmocka_unit_test(test_global_functions),
    cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
