/* Golden files of the front end and the printer:
 *  - every example (examples/NAME.py) parses (default constants), verifies, prints exactly as
 *    tests/golden/ir/<example>.txt, and the printed text parses back to an equal
 *    module that prints the same text again;
 *  - every tests/golden/parse_errors/<case>.py fails with exactly the message in
 *    <case>.err (location, source line, caret).
 * Regenerate with scripts/regen-golden.sh ir parse_errors and review the diff. */
#include "frontend_test.h"

static void check_example(const char *name) {
  char path[1024], golden[1024];
  snprintf(path, sizeof path, "%s/%s", EXAMPLES_DIR, name);
  snprintf(golden, sizeof golden, "%s/%.*s.txt", GOLDEN_IR_DIR, (int)(strlen(name) - 3), name);
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse_file(path, NULL, &m);
  if (s != TL_OK) fail_msg("%s: %s", name, tl_last_error());
  if (tl_ir_verify_module(m) != TL_OK) fail_msg("%s does not verify: %s", name, tl_last_error());
  char *text = tl_ir_print_module(m);
  assert_non_null(text);
  char *expected = ft_read(golden);
  if (!expected) fail_msg("missing golden file %s (run scripts/regen-golden.sh ir)", golden);
  if (strcmp(text, expected) != 0)
    fail_msg("%s: printed IR differs from %s (scripts/regen-golden.sh ir)\n--- got:\n%s", name, golden, text);
  /* parse(print(m)) == m, and printing is a fixed point. */
  tl_ir_module *m2 = NULL;
  s = tl_ir_parse(text, "printed.py", NULL, &m2);
  if (s != TL_OK) fail_msg("%s: the printed IR does not parse: %s\n%s", name, tl_last_error(), text);
  if (!tl_ir_module_equal(m, m2)) fail_msg("%s: parse(print(m)) is not m", name);
  assert_int_equal(tl_ir_module_hash(m), tl_ir_module_hash(m2));
  char *text2 = tl_ir_print_module(m2);
  assert_non_null(text2);
  assert_string_equal(text, text2);
  tl_free(text2);
  tl_free(text);
  free(expected);
  tl_ir_module_free(m2);
  tl_ir_module_free(m);
}

static void test_examples(void **state) {
  (void)state;
  size_t n;
  char **names = ft_list(EXAMPLES_DIR, ".py", &n);
  if (n < 9) fail_msg("expected at least 9 examples in %s, found %zu", EXAMPLES_DIR, n);
  for (size_t i = 0; i < n; i++) check_example(names[i]);
  /* Every golden file has its example. */
  size_t ng;
  char **goldens = ft_list(GOLDEN_IR_DIR, ".txt", &ng);
  assert_int_equal(ng, n);
  ft_free_list(goldens, ng);
  ft_free_list(names, n);
}

static void test_parse_errors(void **state) {
  (void)state;
  size_t n;
  char **names = ft_list(GOLDEN_ERR_DIR, ".py", &n);
  if (n < 12) fail_msg("expected at least 12 parse-error cases in %s, found %zu", GOLDEN_ERR_DIR, n);
  for (size_t i = 0; i < n; i++) {
    char path[1024], errpath[1024];
    snprintf(path, sizeof path, "%s/%s", GOLDEN_ERR_DIR, names[i]);
    snprintf(errpath, sizeof errpath, "%s/%.*s.err", GOLDEN_ERR_DIR, (int)(strlen(names[i]) - 3), names[i]);
    char *src = ft_read(path), *expected = ft_read(errpath);
    if (!src) fail_msg("cannot read %s", path);
    if (!expected) fail_msg("missing %s (run scripts/regen-golden.sh parse_errors)", errpath);
    size_t el = strlen(expected);
    while (el && expected[el - 1] == '\n') expected[--el] = '\0';
    tl_ir_module *m = NULL;
    tl_status s = tl_ir_parse(src, names[i], NULL, &m);
    if (s != TL_EINVAL) fail_msg("%s: expected TL_EINVAL, got %s", names[i], tl_status_name(s));
    assert_null(m);
    if (strcmp(tl_last_error(), expected) != 0)
      fail_msg("%s: message differs from %s\n--- got:\n%s\n--- expected:\n%s", names[i], errpath, tl_last_error(),
               expected);
    /* Every message points into the file: file:line:col, the line, a caret. */
    assert_true(strncmp(expected, names[i], strlen(names[i])) == 0);
    assert_non_null(strchr(expected, '^'));
    free(src);
    free(expected);
  }
  ft_free_list(names, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_examples),
    cmocka_unit_test(test_parse_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
