/* GPU source generation: HIP, Metal and WGSL for every example against golden files
 * (tests/golden/{hip,metal,wgsl}/; regenerate with scripts/regen-golden.sh
 * gpu_codegen, or TL_REGEN_GOLDEN=1 build/bin/test_codegen_gpu, and review the
 * diff), the wavefront from the target (gfx9: 64, gfx10+: 32), the metal_context
 * hook, the plain-data dialect form (the C dialect written as plain data prints the
 * same C; templates, checks and refusals), WGSL's refusals, and out-of-memory sweeps
 * of the generators. */
#include "backend_run.h"
#include "backends/cpu/pipeline.h"
#include "backends/metal/backend.h"
#include "backends/rocm/pipeline.h"
#include "backends/webgpu/backend.h"
#include "base/files.h"
#include "codegen/c_dialect.h"
#include "codegen/codegen.h"
#include "codegen/gpu_dialects.h"
#include "codegen/wgsl.h"

#define ASSERT_CONTAINS(hay, needle)                                                    \
  do {                                                                                  \
    if (!strstr((hay), (needle))) fail_msg("missing:\n%s\n--- in:\n%s", (needle), (hay)); \
  } while (0)

static const char *k_examples[] = {"cumsum", "elementwise_add", "gemm", "rms_norm", "row_max",
                                   "row_sum", "softmax", "transpose", "vector_add"};
#define NEXAMPLES (sizeof k_examples / sizeof k_examples[0])

typedef struct gpu_lang {
  const char *dir, *ext, *target;
} gpu_lang;

static const gpu_lang k_langs[] = {
  {"hip", "hip", "{\"kind\":\"hip\",\"mcpu\":\"gfx90a\"}"},
  {"metal", "metal", "metal"},
  {"wgsl", "wgsl", "webgpu"},
};

static tl_ir_module *parse_example(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s.py", TL_SOURCE_DIR, name);
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, NULL, &m) != TL_OK) fail_msg("%s: %s", name, tl_last_error());
  return m;
}

/* The device source of example `name` for a target (through its context). */
static char *generate(const char *target, const char *name) {
  tl_ir_module *m = parse_example(name);
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context(target, NULL, "source", &ctx));
  br_build b;
  tl_status s = br_codegen(m, ctx, &b);
  if (s != TL_OK) fail_msg("%s for %s: %s", name, target, tl_last_error());
  assert_non_null(tl_artifact_kernel_table(b.device));
  char *text = strdup(tl_artifact_source(b.device));
  br_build_free(&b);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
  return text;
}

static void check_golden(const char *dir, const char *file, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/golden/%s/%s", TL_SOURCE_DIR, dir, file);
  if (getenv("TL_REGEN_GOLDEN")) {
    TL_ASSERT_OK(tl__file_write(path, text, strlen(text)));
    printf("regenerated %s\n", path);
    return;
  }
  char *expected = NULL;
  if (tl__file_read(path, &expected, NULL) != TL_OK)
    fail_msg("missing golden file %s (scripts/regen-golden.sh gpu_codegen)", path);
  if (strcmp(expected, text) != 0)
    fail_msg("generated code differs from %s (if intended: scripts/regen-golden.sh gpu_codegen)\n--- got:\n%s", path,
             text);
  tl__free(expected);
}

static void test_goldens(void **state) {
  (void)state;
  for (size_t l = 0; l < sizeof k_langs / sizeof k_langs[0]; l++)
    for (size_t e = 0; e < NEXAMPLES; e++) {
      char *text = generate(k_langs[l].target, k_examples[e]);
      char file[256];
      snprintf(file, sizeof file, "%s.%s", k_examples[e], k_langs[l].ext);
      check_golden(k_langs[l].dir, file, text);
      free(text);
    }
}

/* ---------------------------------------------------------------------- hip */

static void test_hip_wavefront(void **state) {
  (void)state;
  /* gfx9: 64 lanes; gfx10 and later: 32; thread_warp_size wins. The softmax rows
   * are reduced over 16 threads either way; the kernels record the warp size. */
  static const struct {
    const char *target;
    int64_t warp;
  } cases[] = {
    {"hip", 64}, /* mcpu defaults to gfx900 */
    {"{\"kind\":\"hip\",\"mcpu\":\"gfx90a\"}", 64},
    {"{\"kind\":\"hip\",\"mcpu\":\"gfx1100\"}", 32},
    /* the hip normalizer sets the warp size from a gfx mcpu, over what was written */
    {"{\"kind\":\"hip\",\"mcpu\":\"gfx90a\",\"thread_warp_size\":32}", 64},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tl_ir_module *m = parse_example("softmax");
    tl_backend_context *ctx = NULL;
    TL_ASSERT_OK(tl_create_backend_context(cases[i].target, NULL, "source", &ctx));
    assert_string_equal(tl_backend_context_name(ctx), "rocm");
    br_build b;
    TL_ASSERT_OK(br_codegen(m, ctx, &b));
    const tl_ir_func *k = NULL;
    for (size_t f = 0; f < tl_ir_module_num_funcs(b.work); f++)
      if (tl_ir_module_func(b.work, f)->callconv == TL_CALLCONV_DEVICE_KERNEL) k = tl_ir_module_func(b.work, f);
    assert_non_null(k);
    const tl_ir_attr *a = tl_ir_func_attr(k, "target");
    assert_non_null(a);
    char want[64];
    snprintf(want, sizeof want, "\"thread_warp_size\":%lld", (long long)cases[i].warp);
    ASSERT_CONTAINS(a->s, want);
    const char *src = tl_artifact_source(b.device);
    ASSERT_CONTAINS(src, "__shfl_xor(red_part[q_1], 8, 16)");
    ASSERT_CONTAINS(src, "extern \"C\" __global__ void softmax_kernel(const float *__restrict__ X");
    const tl_ir_attr *conv = tl_ir_module_attr(b.work, "tl.launch_convention");
    assert_string_equal(conv->s, "hip_module");
    br_build_free(&b);
    tl_backend_context_release(ctx);
    tl_ir_module_free(m);
  }
  /* The pipeline's parameters: a target's thread_warp_size wins over its mcpu. */
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"hip\",\"mcpu\":\"gfx90a\",\"thread_warp_size\":32}", &t));
  tl__gpu_params p;
  tl__hip_gpu_params(t, &p);
  assert_int_equal(p.warp_size, 32);
  assert_int_equal(p.max_shared_bytes, 64 * 1024);
  tl_target_release(t);
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"hip\",\"mcpu\":\"gfx1030\"}", &t));
  tl__hip_gpu_params(t, &p);
  assert_int_equal(p.warp_size, 32);
  tl_target_release(t);
}

/* -------------------------------------------------------------------- metal */

static void test_metal_context_hook(void **state) {
  (void)state;
  tl_ir_module *m = parse_example("vector_add");
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("metal", NULL, "source", &ctx));
  const tl_backend_module *mod = tl_backend_context_module(ctx);
  assert_ptr_equal(mod->host_codegen_hooks[0].hooks[0], &tl__metal_context_hook);
  br_build b;
  TL_ASSERT_OK(br_codegen(m, ctx, &b));
  const tl_ir_func *entry = tl_ir_module_find_func(b.work, "vector_add");
  assert_int_equal(entry->callconv, TL_CALLCONV_PACKED);
  assert_null(tl_ir_func_attr(entry, "tl.metal_context"));
  /* What host code generation would run first: the host entry launching a Metal
   * kernel is marked; device kernels are not. */
  TL_ASSERT_OK(tl_backend_context_preprocess_host_codegen(ctx, b.work));
  const tl_ir_attr *a = tl_ir_func_attr(entry, "tl.metal_context");
  assert_non_null(a);
  assert_int_equal(a->i, 1);
  assert_null(tl_ir_func_attr(tl_ir_module_find_func(b.work, "vector_add_kernel"), "tl.metal_context"));
  const char *src = tl_artifact_source(b.device);
  ASSERT_CONTAINS(src, "kernel void vector_add_kernel(device const float *A [[buffer(0)]]");
  ASSERT_CONTAINS(src, "constant int &N [[buffer(3)]], uint3 blockIdx [[threadgroup_position_in_grid]]");
  /* Metal has no double: float64 is refused by name. */
  tl_ir_module *d = pt_parse("import tilelang.language as T\n"
                             "@T.prim_func\n"
                             "def f(A: T.Tensor((4,), \"float64\")):\n"
                             "    with T.Kernel(1, threads=4) as bx:\n"
                             "        for i in T.Parallel(4):\n"
                             "            A[i] = A[i] * 2.0\n");
  br_build bd;
  TL_ASSERT_ERR(br_codegen(d, ctx, &bd), TL_EUNSUPPORTED, "the metal dialect has no type for float64");
  br_build_free(&bd);
  tl_ir_module_free(d);
  br_build_free(&b);
  tl_backend_context_release(ctx);
  tl_ir_module_free(m);
}

/* The math intrinsics added with T.erf: each dialect generates its library's
 * function, or refuses at compile time naming the op and the dialect (Metal's
 * standard library has no erf, log1p or expm1; WGSL's builtins have tan only). */
static void test_new_math_per_dialect(void **state) {
  (void)state;
  static const struct {
    const char *backend, *expr, *want, *refusal;
  } cases[] = {
    {"hip", "T.erf(A[i]) + T.log1p(A[i]) + T.expm1(A[i]) + T.fmod(A[i], 2.0)", "erff(", NULL},
    {"hip", "T.log10(A[i]) + T.tan(A[i])", "log10f(", NULL},
    {"opencl", "T.erf(A[i]) + T.fmod(A[i], 2.0)", "erf(", NULL},
    {"metal", "T.log10(A[i]) + T.tan(A[i]) + T.fmod(A[i], 2.0)", "precise::log10(", NULL},
    {"metal", "T.erf(A[i])", NULL, "the metal dialect has no T.erf"},
    {"metal", "T.expm1(A[i])", NULL, "the metal dialect has no T.expm1"},
    {"webgpu", "T.tan(A[i])", "tan(", NULL},
    {"webgpu", "T.log1p(A[i])", NULL, "the wgsl dialect cannot print T.log1p"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[1024];
    snprintf(src, sizeof src,
             "import tilelang.language as T\n@T.prim_func\n"
             "def f(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
             "    with T.Kernel(1, threads=64) as bx:\n"
             "        for i in T.Parallel(64):\n"
             "            B[i] = %s\n",
             cases[i].expr);
    tl_ir_module *m = pt_parse(src);
    tl_backend_context *ctx = NULL;
    TL_ASSERT_OK(tl_create_backend_context(cases[i].backend, NULL, "source", &ctx));
    br_build b;
    if (cases[i].refusal) {
      TL_ASSERT_ERR(br_codegen(m, ctx, &b), TL_EUNSUPPORTED, cases[i].refusal);
    } else {
      TL_ASSERT_OK(br_codegen(m, ctx, &b));
      ASSERT_CONTAINS(tl_artifact_source(b.device), cases[i].want);
    }
    br_build_free(&b);
    tl_backend_context_release(ctx);
    tl_ir_module_free(m);
  }
}

/* --------------------------------------------------------------------- wgsl */

static void test_wgsl_refusals(void **state) {
  (void)state;
  static const struct {
    const char *src, *message;
  } cases[] = {
    {"    A: T.Tensor((64,), \"int8\")):\n"
     "    with T.Kernel(1, threads=64) as bx:\n"
     "        for i in T.Parallel(64):\n"
     "            A[i] = A[i] + T.int8(1)\n",
     "the wgsl dialect has no type for int8"},
    {"    A: T.Tensor((64,), \"bfloat16\")):\n"
     "    with T.Kernel(1, threads=64) as bx:\n"
     "        for i in T.Parallel(64):\n"
     "            A[i] = A[i] * A[i]\n",
     "(WGSL has f16 but no bfloat16)"},
    {"    A: T.Tensor((64,), \"float32\"), S: T.Tensor((1,), \"float32\")):\n"
     "    with T.Kernel(1, threads=64) as bx:\n"
     "        for i in T.Parallel(64):\n"
     "            T.atomic_add(S[0], A[i])\n",
     "the wgsl dialect has no atomic add for float32 (WGSL atomics are i32 and u32)"},
  };
  tl_backend_context *ctx = NULL;
  TL_ASSERT_OK(tl_create_backend_context("webgpu", NULL, "source", &ctx));
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[1024];
    snprintf(src, sizeof src, "import tilelang.language as T\n@T.prim_func\ndef f(\n%s", cases[i].src);
    tl_ir_module *m = pt_parse(src);
    br_build b;
    TL_ASSERT_ERR(br_codegen(m, ctx, &b), TL_EUNSUPPORTED, cases[i].message);
    br_build_free(&b);
    tl_ir_module_free(m);
  }
  /* int32 atomics become atomic<i32> arrays, accessed atomically everywhere. */
  tl_ir_module *m = pt_parse("import tilelang.language as T\n@T.prim_func\n"
                             "def f(A: T.Tensor((64,), \"int32\"), S: T.Tensor((2,), \"int32\")):\n"
                             "    with T.Kernel(1, threads=64) as bx:\n"
                             "        for i in T.Parallel(64):\n"
                             "            T.atomic_add(S[0], A[i])\n");
  br_build b;
  TL_ASSERT_OK(br_codegen(m, ctx, &b));
  const char *text = tl_artifact_source(b.device);
  ASSERT_CONTAINS(text, "var<storage, read_write> f_kernel__S: array<atomic<i32>>;");
  ASSERT_CONTAINS(text, "let add_value: i32 = f_kernel__A[i32(tl_lid.x)];");
  ASSERT_CONTAINS(text, "atomicAdd(&f_kernel__S[0i], add_value);");
  br_build_free(&b);
  tl_ir_module_free(m);
  /* Names built from a long kernel name are whole (no fixed-size buffers). */
  char name[301], src[1024];
  memset(name, 'k', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  snprintf(src, sizeof src,
           "import tilelang.language as T\n@T.prim_func\n"
           "def %s(A: T.Tensor((64,), \"float32\"), n: T.int32):\n"
           "    with T.Kernel(1, threads=64) as bx:\n"
           "        for i in T.Parallel(64):\n"
           "            A[i] = A[i] + T.float32(n)\n",
           name);
  m = pt_parse(src);
  TL_ASSERT_OK(br_codegen(m, ctx, &b));
  text = tl_artifact_source(b.device);
  char want[400];
  snprintf(want, sizeof want, "var<storage, read_write> %s_kernel__A: array<f32>;", name);
  ASSERT_CONTAINS(text, want);
  snprintf(want, sizeof want, "struct %s_kernel__Params {", name);
  ASSERT_CONTAINS(text, want);
  snprintf(want, sizeof want, "%s_kernel__params.n", name);
  ASSERT_CONTAINS(text, want);
  br_build_free(&b);
  tl_ir_module_free(m);
  tl_backend_context_release(ctx);
}

/* ------------------------------------------------------- plain-data dialects */

/* The C dialect written as plain data: its tables taken from tl__c_dialect_c, its
 * atomic rows and parallel-for line as plugin.h's templates. Printing with it must
 * give tl__c_dialect_c's text. */
static const tl_c_pair k_c_atomics[] = {
  {"i8", "TL_OMP(omp atomic)\n$D += $V;"},  {"i16", "TL_OMP(omp atomic)\n$D += $V;"},
  {"i32", "TL_OMP(omp atomic)\n$D += $V;"}, {"i64", "TL_OMP(omp atomic)\n$D += $V;"},
  {"u8", "TL_OMP(omp atomic)\n$D += $V;"},  {"u16", "TL_OMP(omp atomic)\n$D += $V;"},
  {"u32", "TL_OMP(omp atomic)\n$D += $V;"}, {"u64", "TL_OMP(omp atomic)\n$D += $V;"},
  {"f32", "TL_OMP(omp atomic)\n$D += $V;"}, {"f64", "TL_OMP(omp atomic)\n$D += $V;"},
  {"f16", "TL_OMP(omp critical)\n$D = tl_f16_from_f64((double)tl_f16_to_f32($D) + (double)($V));"},
  {"bf16", "TL_OMP(omp critical)\n$D = tl_bf16_from_f64((double)tl_bf16_to_f32($D) + (double)($V));"},
  {NULL, NULL},
};

typedef struct c_as_plain {
  tl_c_dialect d;
  tl_c_math math[TL_OP__COUNT + 1];
  tl_c_helper helpers[16];
} c_as_plain;

static void make_c_as_plain(c_as_plain *p) {
  const tl__c_dialect *c = &tl__c_dialect_c;
  memset(p, 0, sizeof *p);
  size_t n = 0;
  for (const tl__c_math *m = c->math; m->f32; m++, n++) p->math[n] = (tl_c_math){tl_ir_op_name(m->op), m->f32, m->f64, m->helper};
  n = 0;
  for (const tl__c_helper *h = c->helpers; h->name; h++, n++)
    p->helpers[n] = (tl_c_helper){h->name, h->per_type, h->requires, h->text};
  tl_c_dialect d = {
    .struct_size = sizeof(tl_c_dialect),
    .name = "c",
    .t_bool = c->t_bool, .t_i8 = c->t_i8, .t_i16 = c->t_i16, .t_i32 = c->t_i32, .t_i64 = c->t_i64,
    .t_u8 = c->t_u8, .t_u16 = c->t_u16, .t_u32 = c->t_u32, .t_u64 = c->t_u64,
    .t_f32 = c->t_f32, .t_f64 = c->t_f64, .t_handle = c->t_handle,
    .f16 = {c->f16.storage, c->f16.compute, c->f16.widen, c->f16.narrow, c->f16.round, c->f16.helper},
    .bf16 = {c->bf16.storage, c->bf16.compute, c->bf16.widen, c->bf16.narrow, c->bf16.round, c->bf16.helper},
    .restrict_kw = c->restrict_kw, .global_space = c->global_space, .shared_space = c->shared_space,
    .kernel_prefix = c->kernel_prefix, .helper_prefix = c->helper_prefix,
    .thread_tags = NULL, .barrier = NULL,
    .math = p->math,
    .atomic_add = k_c_atomics,
    .parallel_for = "TL_OMP(omp parallel for$C$I$N)",
    .parallel_threads = " num_threads(TL_TEAM($B))",
    .helpers = p->helpers,
    .prelude = c->prelude,
  };
  p->d = d;
}

static const char *k_atomic_src =
  "import tilelang.language as T\n"
  "N = T.symbolic(\"N\")\n"
  "@T.prim_func\n"
  "def acc(A: T.Tensor((N,), \"float16\"), B: T.Tensor((N,), \"int32\"), S: T.Tensor((2,), \"float16\"),\n"
  "        I: T.Tensor((1,), \"int32\")):\n"
  "    with T.Kernel(T.ceildiv(N, 8), threads=8) as bx:\n"
  "        for i in T.Parallel(8):\n"
  "            if bx * 8 + i < N:\n"
  "                T.atomic_add(S[1], A[bx * 8 + i])\n"
  "                T.atomic_add(I[0], B[bx * 8 + i])\n";

static void test_c_dialect_as_plain_data(void **state) {
  (void)state;
  c_as_plain p;
  make_c_as_plain(&p);
  for (size_t e = 0; e <= NEXAMPLES; e++) {
    tl_ir_module *m = e < NEXAMPLES ? parse_example(k_examples[e]) : pt_parse(k_atomic_src);
    TL_ASSERT_OK(pt_lower_c(m, &tl__cpu_pipeline));
    char *want = NULL, *got = NULL;
    TL_ASSERT_OK(tl__c_device_source(&tl__c_dialect_c, m, &want));
    TL_ASSERT_OK(tl__c_plain_device_source(&p.d, m, &got));
    if (strcmp(want, got) != 0)
      fail_msg("%s: the C dialect as plain data prints differently:\n--- hooks:\n%s\n--- plain:\n%s",
               e < NEXAMPLES ? k_examples[e] : "atomics", want, got);
    if (e == NEXAMPLES) ASSERT_CONTAINS(got, "TL_OMP(omp critical)\n        S[1] = tl_f16_from_f64(");
    tl__free(want);
    tl__free(got);
    tl_ir_module_free(m);
  }
}

/* A small plain dialect exercising each template, on a lowered GPU module. */
static const tl_c_pair k_t_tags[] = {{"blockIdx.x", "BX"}, {"threadIdx.x", "TX"}, {NULL, NULL}};
static const tl_c_pair k_t_bases[] = {{"f32", "vf"}, {NULL, NULL}};
static const tl_c_pair k_t_atomics[] = {{"f32", "ATOMIC<$S,$a,$A,$T>($D, $V);"}, {NULL, NULL}};
static const tl_c_math k_t_math[] = {{"T.exp", "EXP(%0)", NULL, NULL}, {NULL, NULL, NULL, NULL}};

static tl_c_dialect test_dialect(void) {
  tl_c_dialect d = {
    .struct_size = sizeof(tl_c_dialect),
    .name = "test",
    .t_bool = "bool", .t_i32 = "i32", .t_i64 = "i64", .t_f32 = "f32",
    .t_bool_param = "PB",
    .global_space = "GLOBAL", .shared_space = "SHARED", .local_space = "LOCAL",
    .kernel_prefix = "KERNEL", .helper_prefix = "static",
    .buffer_param = "[$I:$G$C$T*$N]", .scalar_param = "[$I:$T $N $$]",
    .extra_params = "EXTRA",
    .shared_array = "$Q $T $N<$C>;", .local_array = "$T $N{$C};",
    .thread_tags = k_t_tags,
    .barrier = "BARRIER();",
    .math = k_t_math,
    .vector_type = "$B$N", .vector_bases = k_t_bases, .vector_lanes = 1u << 4,
    .vector_copy = "COPY<$V,$N>($DA $D, $SA $S);",
    .atomic_add = k_t_atomics,
  };
  return d;
}

/* Lowers m with the shared GPU passes (warp 1) for a webgpu target. */
static tl_status gpu_free_lower(tl_ir_module *m) {
  tl_target *t = NULL;
  tl_status s = tl_target_parse("webgpu", &t);
  if (s == TL_OK) s = tl__pass_semantic_check(m, t);
  if (s == TL_OK) s = tl__webgpu_pipeline.lower(m, t, NULL);
  tl_target_release(t);
  return s;
}

static const char *k_template_src =
  "import tilelang.language as T\n"
  "@T.prim_func\n"
  "def t(A: T.Tensor((128,), \"float32\"), S: T.Tensor((1,), \"float32\"), flag: T.bool):\n"
  "    with T.Kernel(1, threads=32) as bx:\n"
  "        buf = T.alloc_shared((128,), \"float32\")\n"
  "        T.copy(A, buf)\n"
  "        for i in T.Parallel(128):\n"
  "            if flag:\n"
  "                T.atomic_add(S[0], T.exp(buf[i]))\n";

static void test_templates(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_template_src);
  TL_ASSERT_OK(gpu_free_lower(m));
  tl_c_dialect d = test_dialect();
  char *src = NULL;
  TL_ASSERT_OK(tl__c_plain_device_source(&d, m, &src));
  ASSERT_CONTAINS(src, "KERNEL void t_kernel([0:GLOBAL const f32*A], [1:GLOBAL f32*S], [2:PB flag $], EXTRA)");
  ASSERT_CONTAINS(src, "SHARED f32 buf<128>;");
  ASSERT_CONTAINS(src, "const i32 tx = TX;");
  ASSERT_CONTAINS(src, "COPY<vf4,4>(SHARED buf[tx * 4], GLOBAL A[tx * 4]);");
  ASSERT_CONTAINS(src, "BARRIER();");
  ASSERT_CONTAINS(src, "const f32 add_value = EXP(buf[tx * 4 + v]);");
  ASSERT_CONTAINS(src, "ATOMIC<f32,global,GLOBAL,f32>(S[0], add_value);");
  tl__free(src);
  /* What the dialect lacks is named. */
  d.atomic_add = NULL;
  TL_ASSERT_ERR(tl__c_plain_device_source(&d, m, &src), TL_EUNSUPPORTED, "the test dialect has no atomic add for float32");
  d = test_dialect();
  d.math = NULL;
  TL_ASSERT_ERR(tl__c_plain_device_source(&d, m, &src), TL_EUNSUPPORTED, "the test dialect has no T.exp");
  d = test_dialect();
  d.thread_tags = NULL;
  TL_ASSERT_ERR(tl__c_plain_device_source(&d, m, &src), TL_EUNSUPPORTED, "the test dialect has no thread index");
  tl_ir_module_free(m);
}

/* T.atomic_max / T.atomic_min through a plain dialect's templates, with their
 * helper section; a plugin whose struct ends before those fields (built against
 * the first version) has none, and the op is refused by name. */
static const tl_c_pair k_t_amax[] = {{"f32", "AMAX<$S,$a>($D, $V);"}, {NULL, NULL}};
static const tl_c_pair k_t_amin[] = {{"i32", "AMIN<$S>($D, $V);"}, {NULL, NULL}};
static const tl_c_helper k_t_minmax_helpers[] = {{"mm", false, NULL, "/* MINMAX HELPER */\n"}, {NULL, false, NULL, NULL}};
static const char *k_minmax_src =
  "import tilelang.language as T\n"
  "@T.prim_func\n"
  "def mm(A: T.Tensor((64,), \"float32\"), M: T.Tensor((1,), \"float32\"), I: T.Tensor((64,), \"int32\"),\n"
  "       J: T.Tensor((1,), \"int32\")):\n"
  "    with T.Kernel(2, threads=32) as bx:\n"
  "        for i in T.Parallel(32):\n"
  "            T.atomic_max(M[0], A[bx * 32 + i])\n"
  "            T.atomic_min(J[0], I[bx * 32 + i])\n";

static void test_plain_atomic_minmax(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_minmax_src);
  TL_ASSERT_OK(gpu_free_lower(m));
  tl_c_dialect d = test_dialect();
  d.atomic_max = k_t_amax;
  d.atomic_min = k_t_amin;
  d.atomic_minmax_helper = "mm";
  d.helpers = k_t_minmax_helpers;
  char *src = NULL;
  TL_ASSERT_OK(tl__c_plain_device_source(&d, m, &src));
  ASSERT_CONTAINS(src, "/* MINMAX HELPER */");
  ASSERT_CONTAINS(src, "AMAX<f32,global>(M[0], ");
  ASSERT_CONTAINS(src, "AMIN<i32>(J[0], ");
  tl__free(src);
  d.atomic_min = NULL;
  TL_ASSERT_ERR(tl__c_plain_device_source(&d, m, &src), TL_EUNSUPPORTED, "the test dialect has no T.atomic_min_elem for int32");
  d.atomic_min = k_t_amin;
  d.struct_size = offsetof(tl_c_dialect, atomic_max); /* an older plugin: the fields are not read */
  TL_ASSERT_ERR(tl__c_plain_device_source(&d, m, &src), TL_EUNSUPPORTED, "the test dialect has no T.atomic_max_elem for float32");
  tl_ir_module_free(m);
}

static void test_plain_dialect_checks(void **state) {
  (void)state;
  tl__c_dialect_owned o;
  tl_c_dialect d = test_dialect();
  d.struct_size = 8;
  TL_ASSERT_ERR(tl__c_dialect_from_plain(&d, &o), TL_EINVAL, "smaller than the first version's");
  d = test_dialect();
  d.name = "";
  TL_ASSERT_ERR(tl__c_dialect_from_plain(&d, &o), TL_EINVAL, "C dialect must have a name");
  d = test_dialect();
  d.t_i32 = NULL;
  TL_ASSERT_ERR(tl__c_dialect_from_plain(&d, &o), TL_EINVAL, "must name at least the int32 and float32 types");
  d = test_dialect();
  static const tl_c_math bad_math[] = {{"T.exponent", "E(%0)", NULL, NULL}, {NULL, NULL, NULL, NULL}};
  d.math = bad_math;
  TL_ASSERT_ERR(tl__c_dialect_from_plain(&d, &o), TL_EINVAL, "math entry 'T.exponent' names no IR op");
  d = test_dialect();
  d.vector_bases = NULL;
  TL_ASSERT_ERR(tl__c_dialect_from_plain(&d, &o), TL_EINVAL, "vector_type and vector_bases go together");
  /* struct_size 0 is the current size; the portable helpers fill in. */
  d = test_dialect();
  d.struct_size = 0;
  TL_ASSERT_OK(tl__c_dialect_from_plain(&d, &o));
  bool intdiv = false;
  for (const tl__c_helper *h = o.d.helpers; h->name; h++) intdiv |= strcmp(h->name, "intdiv") == 0;
  assert_true(intdiv);
  tl__c_dialect_owned_free(&o);
}

/* -------------------------------------------------------------- OOM sweeps */

typedef struct oom_ctx {
  tl_ir_module *m;
  int which;
} oom_ctx;

static tl_status oom_op(void *p) {
  oom_ctx *c = p;
  char *src = NULL;
  tl_artifact *a = NULL;
  tl_status s;
  if (c->which == 0) s = tl__c_plain_device_source(&tl__c_dialect_hip, c->m, &src);
  else if (c->which == 1) s = tl__metal_device_codegen(c->m, NULL, &a);
  else s = tl__wgsl_device_artifact(c->m, &a);
  tl__free(src);
  tl_artifact_release(a);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  static const char *const targets[] = {"hip", "metal", "webgpu"};
  for (int w = 0; w < 3; w++) {
    tl_ir_module *m = parse_example("softmax");
    tl_backend_context *ctx = NULL;
    TL_ASSERT_OK(tl_create_backend_context(targets[w], NULL, "source", &ctx));
    TL_ASSERT_OK(tl__pass_semantic_check(m, tl_backend_context_target(ctx)));
    TL_ASSERT_OK(tl_backend_context_lower(ctx, m));
    oom_ctx c = {m, w};
    assert_true(tl_oom_sweep(oom_op, NULL, &c) > 10);
    tl_backend_context_release(ctx);
    tl_ir_module_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_goldens),
    cmocka_unit_test(test_hip_wavefront),
    cmocka_unit_test(test_metal_context_hook),
    cmocka_unit_test(test_new_math_per_dialect),
    cmocka_unit_test(test_wgsl_refusals),
    cmocka_unit_test(test_c_dialect_as_plain_data),
    cmocka_unit_test(test_templates),
    cmocka_unit_test(test_plain_atomic_minmax),
    cmocka_unit_test(test_plain_dialect_checks),
    cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
