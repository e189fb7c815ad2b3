/* Fuzzes tl_target_parse with arbitrary text (tags, JSON, bare kinds, legacy
 * strings, nested hosts). Besides crashes, leaks and undefined behaviour, it checks
 * the invariants of the target model on every input that parses: the text parses
 * back to an equal target with the same text and hash, and so does the indented
 * export; inputs that do not parse fail with TL_EINVAL, a message and no output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilelang/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: report and stop the fuzzer with the input saved. */
static void broken(const char *what, const char *input) {
  fprintf(stderr, "invariant broken: %s\ninput: %s\n", what, input);
  abort();
}

/* Parses text, which must give a target equal to t. */
static void expect_same(const tl_target *t, const char *text, const char *input) {
  tl_target *u = NULL;
  if (tl_target_parse(text, &u) != TL_OK) broken(tl_last_error(), input);
  if (!tl_target_equal(t, u) || tl_target_hash(t) != tl_target_hash(u)) broken("round trip not equal", input);
  if (strcmp(tl_target_str(t), tl_target_str(u)) != 0) broken("round trip text differs", input);
  tl_target_release(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return 0;
  memcpy(s, data, size);
  s[size] = '\0';
  tl_target *t = NULL;
  tl_status st = tl_target_parse(s, &t);
  if (st == TL_OK) {
    if (!t) broken("TL_OK without a target", s);
    expect_same(t, tl_target_str(t), s);
    char *pretty = tl_target_export_indent(t, 2);
    if (!pretty) broken("export failed", s);
    expect_same(t, pretty, s);
    tl_free(pretty);
    tl_target_release(t);
  } else {
    if (t) broken("failure with a target", s);
    if (st != TL_EINVAL) broken(tl_status_name(st), s);
    if (!strstr(tl_last_error(), ". Target creation from string failed: ")) broken(tl_last_error(), s);
  }
  free(s);
  return 0;
}
