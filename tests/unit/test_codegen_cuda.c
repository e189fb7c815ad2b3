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

#include "cuda_test.h"
#include "runtime/exec_impls.h"
#include "runtime/files.h"

static bool regen(void) { return getenv("TL_REGEN_GOLDEN") && strcmp(getenv("TL_REGEN_GOLDEN"), "1") == 0; }

/* Compares text with the golden file (or rewrites it). */
static void check_golden(const char *rel, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/golden/%s", TL_SOURCE_DIR, rel);
  if (regen()) {
    TL_ASSERT_OK(tl__write_file(path, text, strlen(text)));
    return;
  }
  char *want = NULL;
  if (tl__read_file(path, &want, NULL) != TL_OK)
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
    size_t example;
    const char *golden;
  } cases[] = {{1, "cuda/elementwise_add.cu"}, {10, "cuda/softmax.cu"}, {5, "cuda/gemm_float16.cu"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tl_ir_module *m = cuda_parse_example(&k_cuda_examples[cases[i].example]);
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
                 "# (tests/unit/test_codegen_cuda.c; TL_REGEN_GOLDEN=1 rewrites it: review the diff)\n");
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
  check_golden("cuda_resources.txt", tl__sb_str(&summary));
  tl__sb_free(&summary);
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
    cmocka_unit_test(test_print_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
