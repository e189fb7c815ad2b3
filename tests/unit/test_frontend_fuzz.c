/* The front end's fuzz target (tests/fuzz/fuzz_frontend.c) run without libFuzzer
 * for a fixed number of inputs: the seed corpus and deterministic mutations of it
 * (truncations, byte changes, deleted, duplicated and re-indented lines, inserted
 * tokens). The target aborts on any broken property (a crash, an unlocated error,
 * a failed round trip); the sanitizer build adds memory errors and leaks. */
#include "../fuzz/fuzz_frontend.c"

#include "frontend_test.h"

#define CORPUS_DIR TL_SOURCE_DIR "/tests/fuzz/corpus/frontend"
#define MUTANTS_PER_SEED 200

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return n ? (uint32_t)(rng % n) : 0;
}

static const char *const TOKENS[] = {
  "(", ")", "[", "]", ":", ",", "\n", "    ", "\t", "T.copy(", "T.Kernel(", "for i in T.Parallel(4):\n",
  " = ", "+", "*", "//", "-", "**", "'", "\"", "\"\"\"", "\\", "#", "@T.prim_func\n", "lambda", "T.float16",
  "1e309", "9223372036854775807", "-T.infinity(\"float32\")", "T.alloc_var(\"int32\")", "if x:\n", "else:\n",
  "return ", "T.symbolic(\"N\")", "A[0:4, :]", "\xc3\xa9", "\xff", "not ", " and ", "T.gemm(", "T.reduce_sum(",
};

static void run(const char *data, size_t n) { LLVMFuzzerTestOneInput((const uint8_t *)data, n); }

static size_t mutate(const char *src, size_t len, char *out, size_t cap) {
  size_t at = len ? next((uint32_t)len) : 0;
  switch (next(6)) {
    case 0: /* truncate */
      memcpy(out, src, at);
      return at;
    case 1: { /* change a byte */
      memcpy(out, src, len);
      if (len) out[at] = (char)(next(2) ? " ():,[]=\n\t#'\"\\@.-+*0123456789abcT"[next(34)] : (char)next(256));
      return len;
    }
    case 2: { /* insert a token */
      const char *t = TOKENS[next(sizeof TOKENS / sizeof TOKENS[0])];
      size_t tl = strlen(t);
      if (len + tl > cap) return len;
      memcpy(out, src, at);
      memcpy(out + at, t, tl);
      memcpy(out + at + tl, src + at, len - at);
      return len + tl;
    }
    case 3: { /* delete the line at `at` */
      size_t b = at, e = at;
      while (b > 0 && src[b - 1] != '\n') b--;
      while (e < len && src[e] != '\n') e++;
      if (e < len) e++;
      memcpy(out, src, b);
      memcpy(out + b, src + e, len - e);
      return len - (e - b);
    }
    case 4: { /* duplicate the line at `at` */
      size_t b = at, e = at;
      while (b > 0 && src[b - 1] != '\n') b--;
      while (e < len && src[e] != '\n') e++;
      if (e < len) e++;
      if (len + (e - b) > cap) return len;
      memcpy(out, src, e);
      memcpy(out + e, src + b, e - b);
      memcpy(out + e + (e - b), src + e, len - e);
      return len + (e - b);
    }
    default: { /* re-indent a line: remove or add a space at its start */
      size_t b = at;
      while (b > 0 && src[b - 1] != '\n') b--;
      if (next(2) && b < len && src[b] == ' ') {
        memcpy(out, src, b);
        memcpy(out + b, src + b + 1, len - b - 1);
        return len - 1;
      }
      memcpy(out, src, b);
      out[b] = ' ';
      memcpy(out + b + 1, src + b, len - b);
      return len + 1;
    }
  }
}

static void test_corpus_and_mutants(void **state) {
  (void)state;
  size_t n;
  char **names = ft_list(CORPUS_DIR, ".py", &n);
  assert_true(n >= 10);
  size_t runs = 0;
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CORPUS_DIR, names[i]);
    char *src = ft_read(path);
    assert_non_null(src);
    size_t len = strlen(src), cap = len * 2 + 256;
    char *a = malloc(cap), *b = malloc(cap);
    run(src, len);
    runs++;
    for (int k = 0; k < MUTANTS_PER_SEED; k++) {
      /* One to three mutations stacked. */
      size_t m = mutate(src, len, a, cap);
      for (int extra = (int)next(3); extra > 0 && m + 64 < cap; extra--) {
        size_t m2 = mutate(a, m, b, cap);
        memcpy(a, b, m2);
        m = m2;
      }
      run(a, m);
      runs++;
    }
    free(a);
    free(b);
    free(src);
  }
  ft_free_list(names, n);
  assert_true(runs >= n * (MUTANTS_PER_SEED + 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus_and_mutants)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
