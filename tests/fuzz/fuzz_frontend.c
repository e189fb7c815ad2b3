/* libFuzzer target for the TileLang-script front end.
 *
 * Any input must be handled without a crash, a leak or undefined behaviour, and
 * with a located message on rejection ("fuzz.py:LINE:COL: ..." or out of memory).
 * Any accepted input must satisfy the printer's contract: its IR prints as text
 * that parses back to an equal module, and printing that is a fixed point. The
 * verifier must not crash on it either (it may reject it).
 *
 * Seeds: tests/fuzz/corpus/frontend/. tests/unit/test_frontend_fuzz.c replays them
 * and fixed mutations through this function in `make test`. By hand, with clang:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     '-DTL_VERSION_STRING="0"' '-DTL_INSTALL_LIBDIR=""' '-DTL_BUILD_LIBDIR=""' \
 *     -Iinclude -Isrc tests/fuzz/fuzz_frontend.c src/base/[a-z]*.c src/ir/[a-z]*.c \
 *     src/ir/parse/[a-z]*.c src/backends/builtin.c -o fuzz_frontend -lpthread -ldl -lm
 *   ./fuzz_frontend -max_len=8192 -runs=100000 corpus_copy/ */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilelang/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_frontend: %s\n%s\n", what, detail ? detail : "");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 20)) return 0;
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = '\0';
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse(src, "fuzz.py", NULL, &m);
  if (s != TL_OK) {
    const char *e = tl_last_error();
    if (m) fuzz_fail("a failed parse returned a module", e);
    if (s != TL_ENOMEM && strncmp(e, "fuzz.py:", 8) != 0) fuzz_fail("an error without a location", e);
    free(src);
    return 0;
  }
  char *text = tl_ir_print_module(m);
  if (!text) fuzz_fail("printing failed", tl_last_error());
  tl_ir_module *m2 = NULL;
  if (tl_ir_parse(text, "printed.py", NULL, &m2) != TL_OK) fuzz_fail(tl_last_error(), text);
  if (!tl_ir_module_equal(m, m2)) fuzz_fail("parse(print(m)) differs from m", text);
  char *text2 = tl_ir_print_module(m2);
  if (!text2 || strcmp(text, text2) != 0) fuzz_fail("printing is not a fixed point", text2);
  (void)tl_ir_verify_module(m);
  tl_free(text2);
  tl_free(text);
  tl_ir_module_free(m2);
  tl_ir_module_free(m);
  free(src);
  return 0;
}
