/* The CUDA dialect: golden CUDA for two examples, every example (several
 * parameterizations, float16 and bfloat16 included) compiled to a cubin by NVRTC
 * with ptxas' register, spill and shared memory report kept in a golden summary,
 * focused constructs (atomics of every dtype, shuffles, dynamic shared memory,
 * vector accesses, wrapping arithmetic, fast math) compiled too, and the nvcc
 * path's C launcher compiled with the C compiler for every example.
 *
 * Without NVRTC the compile checks are skipped, saying why. TL_CUDA_PRINT=1 prints
 * the generated sources; TL_REGEN_GOLDEN=1 rewrites the golden files. */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include "base/error.h"
#include "base/files.h"
#include "cuda_test.h"
#include "runtime/cuda_driver.h"
#include "runtime/exec_impls.h"
#include "runtime/nvcc_tool.h"
#include "runtime/spawn.h"
#include "transform/kernel_table.h"

static bool regen(void) { return getenv("TL_REGEN_GOLDEN") && strcmp(getenv("TL_REGEN_GOLDEN"), "1") == 0; }

/* Compares text with the golden file (or rewrites it). */
static void check_golden(const char *rel, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/golden/%s", TL_SOURCE_DIR, rel);
  if (regen()) {
    TL_ASSERT_OK(tl__file_write(path, text, strlen(text)));
    return;
  }
  char *want = NULL;
  if (tl__file_read(path, &want, NULL) != TL_OK)
    fail_msg("missing golden %s (TL_REGEN_GOLDEN=1 writes it): %s", rel, tl_last_error());
  if (strcmp(want, text) != 0) {
    /* the first differing line, for the message */
    const char *a = want, *b = text;
    int line = 1;
    while (*a && *a == *b) {
      if (*a == '\n') line++;
      a++, b++;
    }
    fprintf(stderr, "---- generated:\n%s---- golden %s differs at line %d\n", text, rel, line);
    tl__free(want);
    fail_msg("%s differs from the generated text at line %d (TL_REGEN_GOLDEN=1 rewrites it; review the diff)", rel,
             line);
  }
  tl__free(want);
}

/* ----------------------------------------------------------------- goldens */

static void test_golden(void **state) {
  (void)state;
  static const struct {
    const char *file, *label;
    const char *golden;
  } cases[] = {{"elementwise_add.py", "default", "cuda/elementwise_add.cu"},
               {"softmax.py", "default", "cuda/softmax.cu"},
               {"gemm.py", "default_float16", "cuda/gemm_float16.cu"},
               {"gemm.py", "float16_64x64", "cuda/gemm_mma_float16.cu"}}; /* tensor cores */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const cuda_example *ex = NULL;
    for (size_t j = 0; j < CUDA_NEXAMPLES && !ex; j++)
      if (strcmp(k_cuda_examples[j].file, cases[i].file) == 0 && strcmp(k_cuda_examples[j].label, cases[i].label) == 0)
        ex = &k_cuda_examples[j];
    if (!ex) fail_msg("no example %s (%s) in cuda_cases.h", cases[i].file, cases[i].label);
    tl_ir_module *m = cuda_parse_example(ex);
    tl_ir_module *low = cuda_lowered(m, NULL);
    char *src = cuda_source(low);
    check_golden(cases[i].golden, src);
    tl__free(src);
    tl_ir_module_free(low);
    tl_ir_module_free(m);
  }
}

/* --------------------------------------------------- every example, NVRTC */

/* ptxas' report for each kernel of a log: "<kernel>: registers R, spill stores S,
 * spill loads L, stack F, shared B" lines appended to out. */
static void resources(const char *log, tl__sb *out, const char *label) {
  const char *fn = NULL;
  size_t fnlen = 0;
  long stack = -1, stores = -1, loads = -1;
  for (const char *line = log; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
    const char *p;
    if ((p = strstr(buf, "Function properties for "))) {
      fn = line + (p - buf) + strlen("Function properties for ");
      fnlen = len - (size_t)(p - buf) - strlen("Function properties for ");
    } else if (strstr(buf, "bytes stack frame")) {
      sscanf(strstr(buf, ".") + 1, " %ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads", &stack,
             &stores, &loads);
    } else if ((p = strstr(buf, "Used ")) && fn) {
      long regs = -1, smem = 0;
      sscanf(p, "Used %ld registers", &regs);
      const char *sm = strstr(p, "bytes smem");
      if (sm) {
        const char *q = sm;
        while (q > p && q[-1] == ' ') q--;
        while (q > p && isdigit((unsigned char)q[-1])) q--;
        smem = strtol(q, NULL, 10);
      }
      tl__sb_appendf(out, "%s %.*s: registers %ld, spill stores %ld, spill loads %ld, stack %ld, smem %ld\n", label,
                     (int)fnlen, fn, regs, stores, loads, stack, smem);
      fn = NULL;
    }
    line = end ? end + 1 : NULL;
  }
}

/* The numbers of a summary line after its label, or false. */
static bool parse_line(const char *line, char *label, size_t cap, long v[5]) {
  const char *colon = strstr(line, ": registers ");
  if (!colon || (size_t)(colon - line) >= cap) return false;
  snprintf(label, cap, "%.*s", (int)(colon - line), line);
  return sscanf(colon, ": registers %ld, spill stores %ld, spill loads %ld, stack %ld, smem %ld", &v[0], &v[1], &v[2],
                &v[3], &v[4]) == 5;
}

/* The golden summary holds for the NVRTC it was made with: the same NVRTC must
 * give the same text; another one may allocate registers differently, but no
 * kernel may spill or use more stack than recorded, and shared memory (ours
 * alone) must be the same. */
static void check_resources(const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/golden/cuda_resources.txt", TL_SOURCE_DIR);
  char *want = NULL;
  if (regen() || tl__file_read(path, &want, NULL) != TL_OK) {
    check_golden("cuda_resources.txt", text); /* writes it, or fails saying it is missing */
    return;
  }
  const char *wv = strstr(want, "# nvrtc "), *gv = strstr(text, "# nvrtc ");
  bool same = wv && gv && strncmp(wv, gv, strcspn(gv, "\n")) == 0;
  if (same) {
    tl__free(want);
    check_golden("cuda_resources.txt", text);
    return;
  }
  print_message("cuda_resources.txt was made with another NVRTC: comparing spills, stack and shared memory only\n");
  for (const char *g = text; *g;) {
    char glabel[256], wlabel[256];
    long gvals[5], wvals[5];
    const char *gend = strchr(g, '\n');
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(gend ? gend - g : (long)strlen(g)), g);
    g = gend ? gend + 1 : g + strlen(g);
    if (line[0] == '#' || !parse_line(line, glabel, sizeof glabel, gvals)) continue;
    bool found = false;
    for (const char *w = want; *w && !found;) {
      const char *wend = strchr(w, '\n');
      char wline[512];
      snprintf(wline, sizeof wline, "%.*s", (int)(wend ? wend - w : (long)strlen(w)), w);
      w = wend ? wend + 1 : w + strlen(w);
      if (!parse_line(wline, wlabel, sizeof wlabel, wvals) || strcmp(wlabel, glabel) != 0) continue;
      found = true;
      if (gvals[1] > wvals[1] || gvals[2] > wvals[2] || gvals[3] > wvals[3] || gvals[4] != wvals[4])
        fail_msg("%s: now %s, recorded %s", glabel, line, wline);
    }
    if (!found) fail_msg("%s is not in cuda_resources.txt (regenerate it)", glabel);
  }
  tl__free(want);
}

static void test_examples_nvrtc(void **state) {
  (void)state;
  const tl__nvrtc *n = cuda_test_nvrtc();
  if (!n) {
    print_message("NVRTC is not available, CUDA compile checks skipped: %s\n", tl__nvrtc_unavailable_reason());
    skip();
  }
  tl__sb summary = TL__SB_INIT;
  tl__sb_appendf(&summary,
                 "# ptxas resources of every example's CUDA kernels, compiled by NVRTC for sm_90a\n"
                 "# (tests/unit/test_codegen_cuda.c; scripts/regen-golden.sh rewrites it: review the diff)\n"
                 "# nvrtc %d.%d\n",
                 n->major, n->minor);
  for (size_t i = 0; i < CUDA_NEXAMPLES; i++) {
    const cuda_example *ex = &k_cuda_examples[i];
    tl_ir_module *m = cuda_parse_example(ex);
    tl_ir_module *low = cuda_lowered(m, NULL);
    char *src = cuda_source(low);
    if (getenv("TL_CUDA_PRINT")) fprintf(stderr, "==== %s (%s)\n%s\n", ex->file, ex->label, src);
    char name[128], label[160];
    snprintf(name, sizeof name, "%s-%s.cu", ex->file, ex->label);
    snprintf(label, sizeof label, "%s[%s]", ex->file, ex->label);
    char *log = NULL;
    tl_status s = cuda_nvrtc_compile(n, src, name, &log);
    if (s != TL_OK) {
      fprintf(stderr, "%s\n", src);
      fail_msg("%s: NVRTC rejected the generated CUDA: %s", label, tl_last_error());
    }
    resources(log, &summary, label);
    tl__free(log);
    tl__free(src);
    tl_ir_module_free(low);
    tl_ir_module_free(m);
  }
  TL_ASSERT_OK(tl__sb_status(&summary));
  check_resources(tl__sb_str(&summary));
  tl__sb_free(&summary);
}

/* ------------------------------------------------------ focused kernels */

static void test_cases_nvrtc(void **state) {
  (void)state;
  const tl__nvrtc *n = cuda_test_nvrtc();
  for (size_t i = 0; i < CUDA_NCASES; i++) {
    const cuda_case *c = &k_cuda_cases[i];
    tl_ir_module *m = cuda_parse_case(c);
    tl_ir_module *low = cuda_lowered(m, NULL);
    char *src = cuda_source(low);
    if (getenv("TL_CUDA_PRINT")) fprintf(stderr, "==== %s\n%s\n", c->name, src);
    if (c->expect && !strstr(src, c->expect)) {
      fprintf(stderr, "%s\n", src);
      fail_msg("%s: the CUDA source lacks '%s'", c->name, c->expect);
    }
    char *log = NULL;
    if (n && cuda_nvrtc_compile(n, src, c->func, &log) != TL_OK) {
      fprintf(stderr, "%s\n", src);
      fail_msg("%s: NVRTC rejected the generated CUDA: %s", c->name, tl_last_error());
    }
    tl__free(log);
    /* Fast math: the intrinsics, where exact math has the library functions. */
    static const char *const fast_cfg[] = {"tl.enable_fast_math=1", NULL};
    tl__session ses;
    tl__session_init(&ses);
    ses.pass_configs = fast_cfg;
    tl__session *prev = tl__session_enter(&ses);
    char *fast = cuda_source(low);
    tl__session_exit(prev);
    tl__session_free(&ses);
    if (strstr(src, "expf(")) {
      assert_non_null(strstr(fast, "__expf("));
      assert_null(strstr(src, "__expf("));
      if (n && cuda_nvrtc_compile(n, fast, c->func, &log) != TL_OK)
        fail_msg("%s (fast math): NVRTC rejected the generated CUDA: %s", c->name, tl_last_error());
      tl__free(log);
    } else {
      assert_string_equal(src, fast);
    }
    tl__free(fast);
    tl__free(src);
    tl_ir_module_free(low);
    tl_ir_module_free(m);
  }
  if (!n) {
    print_message("NVRTC is not available, CUDA compile checks skipped: %s\n", tl__nvrtc_unavailable_reason());
    skip();
  }
}

/* Names and dialect details of the focused kernels' sources. */
static void test_dialect_details(void **state) {
  (void)state;
  const cuda_case *fm = NULL, *big = NULL;
  for (size_t i = 0; i < CUDA_NCASES; i++) {
    if (!strcmp(k_cuda_cases[i].func, "fm")) fm = &k_cuda_cases[i];
    if (!strcmp(k_cuda_cases[i].func, "big")) big = &k_cuda_cases[i];
  }
  tl_ir_module *m = cuda_parse_case(fm), *low = cuda_lowered(m, NULL);
  char *src = cuda_source(low);
  /* C++ keywords are renamed; the scalar parameters keep their C types; the
   * symbolic dim is a parameter; no __launch_bounds__ beyond the block */
  assert_non_null(strstr(src, "const int new_1 = "));
  assert_non_null(strstr(src, "const float this_1 = "));
  assert_non_null(strstr(src, "extern \"C\" __global__ __launch_bounds__(128) void fm_kernel(const float *__restrict__ A, "
                              "float *__restrict__ B, float alpha, signed char k, int N)"));
  assert_non_null(strstr(src, "tl_max_f32("));
  tl__free(src);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
  m = cuda_parse_case(big);
  low = cuda_lowered(m, NULL);
  src = cuda_source(low);
  /* the two shared.dyn buffers at 16-byte aligned offsets of one array */
  assert_non_null(strstr(src, "float *s = (float *)(dyn_smem + 0);"));
  assert_non_null(strstr(src, "float *t = (float *)(dyn_smem + 32768);"));
  assert_null(strstr(src, "__shared__ __align__(16) float"));
  tl__free(src);
  /* the kernel table asks for 64 KB and records the alignment of the vector accesses */
  tl_kernel_table *t = NULL;
  TL_ASSERT_OK(tl__kernel_table_from_module(low, "big", &t));
  assert_int_equal(t->launches[0].dyn_shared_bytes.code[0].value, 65536);
  assert_int_equal(t->params[0].data_alignment, 16);
  assert_int_equal(t->params[1].data_alignment, 16);
  tl_kernel_table_free(t);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
  /* the C dialect has no warp shuffles, nor dynamic shared memory */
  m = cuda_parse_case(big);
  low = cuda_lowered(m, NULL);
  TL_ASSERT_ERR(tl__c_device_source(&tl__c_dialect_c, low, &src), TL_EUNSUPPORTED, NULL);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
}

/* ------------------------------------------- the nvcc path's C launcher */

typedef int32_t (*entry_fn)(const tl_value *args, int32_t nargs, void *stream, char *err, size_t errcap);

/* Compiles the host source of `low` with an image and checks what its entry
 * `func` says before it would launch: host tensors are refused by the argument
 * checks; device tensors reach the driver, which this machine lacks (when it has
 * a GPU, that part is left to the device tests). */
static void check_launcher(tl_ir_module *low, const tl_ir_module *tile, const char *func, const char *what) {
  char *host = NULL;
  if (tl__c_host_source(low, &host) != TL_OK) fail_msg("%s: host codegen failed: %s", what, tl_last_error());
  static const unsigned char fake_cubin[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33};
  char *image = tl__cuda_image_source(fake_cubin, sizeof fake_cubin);
  assert_non_null(image);
  const char *tmp = getenv("TMPDIR");
  char *dir = tl__format("%s/tl-cuda-stub-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(dir));
  char *c = tl__format("%s/kernel.c", dir), *so = tl__format("%s/kernel.so", dir);
  const char *parts[] = {host, image, NULL};
  TL_ASSERT_OK(tl__file_write_parts(c, parts));
  static const char *const libs[] = {"-ldl", "-lpthread", NULL};
  if (tl__native_compile_shared(c, so, false, true, libs) != TL_OK)
    fail_msg("%s: the C compiler rejected the launcher: %s", what, tl_last_error());
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) fail_msg("%s: %s", what, dlerror());
  char unload[256];
  snprintf(unload, sizeof unload, "%s_cuda_unload", func);
  assert_non_null(dlsym(h, unload));
  entry_fn entry;
  void *p = dlsym(h, func);
  assert_non_null(p);
  memcpy(&entry, &p, sizeof p);
  const tl_ir_func *f = tl_ir_module_find_func(tile, func);
  pt_dim dims[] = {{"N", 300}, {"M", 70}, {"K", 40}, {"alpha", 2}, {"k", 3}};
  pt_args a = pt_args_make(f, dims, 5, 11);
  char err[1024] = "";
  int32_t rc = entry(a.values, (int32_t)a.n, NULL, err, sizeof err);
  if (rc == 0 || !strstr(err, "expected a CUDA tensor (kDLCUDA) but got device type 1"))
    fail_msg("%s: host tensors: rc %d, '%s'", what, rc, err);
  uint32_t first = 0;
  while (first < a.n && a.values[first].kind != TL_VALUE_TENSOR) first++;
  if (a.n > 1 && first + 1 < a.n) {
    /* tensors on two devices */
    for (uint32_t i = 0; i < a.n; i++) a.tensors[i].device.device_type = kDLCUDA;
    uint32_t second = first + 1;
    while (second < a.n && a.values[second].kind != TL_VALUE_TENSOR) second++;
    if (second < a.n) {
      a.tensors[second].device.device_id = 1;
      rc = entry(a.values, (int32_t)a.n, NULL, err, sizeof err);
      if (rc == 0 || !strstr(err, "is on CUDA device 1 but argument '") || !strstr(err, "' is on device 0"))
        fail_msg("%s: two devices: rc %d, '%s'", what, rc, err);
      a.tensors[second].device.device_id = 0;
    }
  }
  const tl__cuda_driver *d;
  if (tl__cuda_driver_get(&d) != TL_OK) {
    for (uint32_t i = 0; i < a.n; i++) a.tensors[i].device.device_type = kDLCUDA;
    rc = entry(a.values, (int32_t)a.n, NULL, err, sizeof err);
    if (rc != TL_EUNAVAILABLE || !strstr(err, "libcuda.so.1")) fail_msg("%s: no driver: rc %d, '%s'", what, rc, err);
  }
  pt_args_free(&a);
  dlclose(h);
  unlink(c);
  unlink(so);
  rmdir(dir);
  tl__free(c);
  tl__free(so);
  tl__free(dir);
  tl__free(image);
  tl__free(host);
}

/* The PTX nvcc makes of the tensor-core GEMMs (upstream's 128 x 128 x 32 tiles
 * with 128 threads and 3 stages, the benchmark's with 256, bfloat16) and of
 * FlashAttention with 2 stages: ldmatrix and mma.sync, the stages' copies as
 * cp.async with commit and wait groups; the GEMMs' B[K, N] through ldmatrix
 * .trans and no local memory (every register array indexed by constants;
 * FlashAttention's K is B[N, K], and its replicated P still spills, so it is not
 * held to those). */
static void test_tensor_core_ptx(void **state) {
  (void)state;
  const char *nvcc = NULL, *version = NULL;
  if (tl__nvcc_find(&nvcc, &version) != TL_OK) {
    tl__error_clear();
    print_message("nvcc is not available: PTX checks skipped\n");
    skip();
  }
  static const struct {
    const char *file, *label;
    tl_ir_const_binding consts[5];
    size_t n;
    const char *mma;
    bool gemm; /* B[K, N] (ldmatrix .trans) and no local memory */
  } k[] = {
      {"examples/gemm.py", "128x128x32, 128 threads", {{"M", "512"}, {"N", "512"}, {"K", "512"}, {"block_M", "128"}, {"block_N", "128"}}, 5,
       "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", true},
      {"bench/device/kernels/gemm.py", "bench, 256 threads", {{"threads", "256"}}, 1, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
       true},
      {"examples/gemm.py", "bfloat16 64x64", {{"block_M", "64"}, {"block_N", "64"}, {"dtype", "\"bfloat16\""}}, 3,
       "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", true},
      {"examples/flash_attention.py", "64x64, 2 stages", {{"seq_q", "256"}, {"seq_kv", "256"}, {"block_M", "64"}, {"block_N", "64"}, {"num_stages", "2"}}, 5,
       "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false},
  };
  char *dir = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-ptx-", &dir));
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TL_SOURCE_DIR, k[i].file);
    tl_ir_parse_options opts = {sizeof opts, k[i].consts, k[i].n, NULL, false};
    tl_ir_module *m = NULL;
    TL_ASSERT_OK(tl_ir_parse_file(path, &opts, &m));
    tl_ir_module *low = cuda_lowered(m, NULL);
    char *src = cuda_source(low);
    char *cu = tl__path_join(dir, "k.cu"), *ptx = tl__path_join(dir, "k.ptx");
    TL_ASSERT_OK(tl__file_write(cu, src, strlen(src)));
    char *argv[] = {(char *)nvcc, "-ptx", "-arch=sm_90a", "--fmad=false", "-std=c++17", "-o", ptx, cu, NULL};
    char *out = NULL;
    int status = -1;
    TL_ASSERT_OK(tl__spawn_capture(argv, &out, &status));
    if (status != 0) fail_msg("%s (%s): nvcc -ptx failed: %s", k[i].file, k[i].label, out);
    char *text = NULL;
    TL_ASSERT_OK(tl__file_read(ptx, &text, NULL));
    if (!strstr(text, k[i].mma)) fail_msg("%s (%s): no %s in the PTX", k[i].file, k[i].label, k[i].mma);
    if (!strstr(text, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"))
      fail_msg("%s (%s): no ldmatrix in the PTX", k[i].file, k[i].label);
    if (k[i].gemm && !strstr(text, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"))
      fail_msg("%s (%s): no ldmatrix .trans (B) in the PTX", k[i].file, k[i].label);
    if (!strstr(text, "cp.async.cg.shared.global") || !strstr(text, "cp.async.commit_group") ||
        !strstr(text, "cp.async.wait_group"))
      fail_msg("%s (%s): no cp.async pipeline in the PTX", k[i].file, k[i].label);
    if (k[i].gemm && (strstr(text, "ld.local") || strstr(text, "st.local")))
      fail_msg("%s (%s): the PTX uses local memory", k[i].file, k[i].label);
    tl__free(text);
    tl__free(out);
    unlink(ptx);
    unlink(cu);
    tl__free(cu);
    tl__free(ptx);
    tl__free(src);
    tl_ir_module_free(low);
    tl_ir_module_free(m);
  }
  rmdir(dir);
  tl__free(dir);
}

static void test_nvcc_launchers(void **state) {
  (void)state;
  if (!tl__native_available()) {
    print_message("no C compiler: %s\n", tl__native_unavailable_reason());
    skip();
  }
  for (size_t i = 0; i < CUDA_NEXAMPLES; i++) {
    tl_ir_module *m = cuda_parse_example(&k_cuda_examples[i]);
    tl_ir_module *low = cuda_lowered(m, NULL);
    char what[160];
    snprintf(what, sizeof what, "%s[%s]", k_cuda_examples[i].file, k_cuda_examples[i].label);
    check_launcher(low, m, tl_ir_module_func(m, 0)->name, what);
    tl_ir_module_free(low);
    tl_ir_module_free(m);
  }
  for (size_t i = 0; i < CUDA_NCASES; i++) {
    tl_ir_module *m = cuda_parse_case(&k_cuda_cases[i]);
    tl_ir_module *low = cuda_lowered(m, NULL);
    check_launcher(low, m, k_cuda_cases[i].func, k_cuda_cases[i].name);
    tl_ir_module_free(low);
    tl_ir_module_free(m);
  }
}

/* Prints the host source of an example (TL_CUDA_PRINT_HOST=file). */
static void test_print_host(void **state) {
  (void)state;
  const char *which = getenv("TL_CUDA_PRINT_HOST");
  if (!which) skip();
  for (size_t i = 0; i < CUDA_NEXAMPLES; i++) {
    if (strcmp(k_cuda_examples[i].file, which) != 0) continue;
    tl_ir_module *m = cuda_parse_example(&k_cuda_examples[i]);
    tl_ir_module *low = cuda_lowered(m, NULL);
    char *host = NULL;
    TL_ASSERT_OK(tl__c_host_source(low, &host));
    fprintf(stderr, "%s\n", host);
    tl__free(host);
    tl_ir_module_free(low);
    tl_ir_module_free(m);
    break;
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_golden),
    cmocka_unit_test(test_examples_nvrtc),
    cmocka_unit_test(test_cases_nvrtc),
    cmocka_unit_test(test_dialect_details),
    cmocka_unit_test(test_tensor_core_ptx),
    cmocka_unit_test(test_nvcc_launchers),
    cmocka_unit_test(test_print_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
