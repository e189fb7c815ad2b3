/* Golden files: the text of every kind's bare form and of chosen tags and configs
 * must match tests/golden/target/targets.golden (regenerate with
 * scripts/regen-golden.sh target and review the diff). */
#include <stdlib.h>

#include "target_test.h"

#define GOLDEN TL_SOURCE_DIR "/tests/golden/target/targets.golden"

/* The golden file's entries: specs[i] and expected[i], in file order. */
typedef struct golden {
  char *text;
  char *specs[256];
  char *expected[256];
  size_t n;
} golden;

static void load(golden *g) {
  FILE *f = fopen(GOLDEN, "rb");
  if (!f) fail_msg("cannot open %s", GOLDEN);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  g->text = malloc((size_t)size + 1);
  assert_non_null(g->text);
  assert_int_equal(fread(g->text, 1, (size_t)size, f), (size_t)size);
  g->text[size] = '\0';
  fclose(f);
  g->n = 0;
  char *spec = NULL;
  for (char *line = strtok(g->text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    if (strncmp(line, "== ", 3) == 0) {
      spec = line + 3;
    } else {
      if (!spec) fail_msg("%s: text without a '== SPEC' line: %s", GOLDEN, line);
      assert_true(g->n < 256);
      g->specs[g->n] = spec;
      g->expected[g->n++] = line;
      spec = NULL;
    }
  }
  if (spec) fail_msg("%s: '== %s' has no expected text (run scripts/regen-golden.sh target)", GOLDEN, spec);
}

/* expected with @HOST_TRIPLE@ replaced by this build's llvm default triple. */
static char *expand(const char *expected) {
  const char *mark = "@HOST_TRIPLE@";
  const char *triple = tl__target_default_triple();
  char *out = malloc(strlen(expected) * 2 + 64);
  assert_non_null(out);
  char *w = out;
  for (const char *p = expected; *p;) {
    if (strncmp(p, mark, strlen(mark)) == 0) {
      w += sprintf(w, "%s", triple);
      p += strlen(mark);
    } else {
      *w++ = *p++;
    }
  }
  *w = '\0';
  return out;
}

static void test_golden_texts(void **state) {
  (void)state;
  golden g;
  load(&g);
  size_t failures = 0;
  for (size_t i = 0; i < g.n; i++) {
    char *want = expand(g.expected[i]);
    tl_target *t = NULL;
    tl_status s = tl_target_parse(g.specs[i], &t);
    if (s != TL_OK) {
      print_error("%s: %s\n", g.specs[i], tl_last_error());
      failures++;
    } else if (strcmp(tl_target_str(t), want) != 0) {
      print_error("%s:\n  got:      %s\n  expected: %s\n", g.specs[i], tl_target_str(t), want);
      failures++;
    }
    tl_target_release(t);
    free(want);
  }
  /* Every kind's bare form is covered, and at least a dozen tags. */
  const char *kinds[16];
  size_t nk = tl_list_target_kinds(kinds, 16);
  for (size_t k = 0; k < nk; k++) {
    bool found = false;
    for (size_t i = 0; i < g.n && !found; i++) found = strcmp(g.specs[i], kinds[k]) == 0;
    if (!found) fail_msg("%s lacks the bare kind '%s'", GOLDEN, kinds[k]);
  }
  size_t ntags = 0;
  for (size_t i = 0; i < g.n; i++) ntags += tl_target_tag_config(g.specs[i]) != NULL;
  assert_true(ntags >= 12);
  free(g.text);
  if (failures) fail_msg("%zu golden mismatches; if intended, run scripts/regen-golden.sh target", failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_golden_texts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
