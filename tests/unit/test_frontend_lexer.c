/* The front end's lexer: Python tokens, INDENT/DEDENT, implicit and explicit line
 * joining, literals, and located errors. */
#include "frontend_test.h"
#include "ir/parse/parse.h"

typedef struct lexed {
  tl__parse_ctx p;
  tl__vec toks;
  tl_status s;
} lexed;

static void lex(lexed *L, const char *src) {
  tl__parse_ctx_init(&L->p, src, strlen(src), "t.py");
  tl__vec_init(&L->toks, sizeof(tl__tok));
  L->s = tl__lex(&L->p, &L->toks);
}

static void lex_free(lexed *L) {
  tl__vec_free(&L->toks);
  tl__parse_ctx_free(&L->p);
}

static const tl__tok *tok(lexed *L, size_t i) {
  assert_true(i < L->toks.len);
  return tl__vec_at(&L->toks, i);
}

/* The token kinds as a compact string: N name, I int, F float, S string, O op,
 * L newline, > indent, < dedent, $ eof. */
static void kinds(lexed *L, char *out) {
  static const char map[] = {[TK_EOF] = '$', [TK_NEWLINE] = 'L', [TK_INDENT] = '>', [TK_DEDENT] = '<',
                             [TK_NAME] = 'N', [TK_INT] = 'I', [TK_FLOAT] = 'F', [TK_STRING] = 'S', [TK_OP] = 'O'};
  size_t i = 0;
  for (; i < L->toks.len; i++) out[i] = map[tok(L, i)->kind];
  out[i] = '\0';
}

static void expect_kinds(const char *src, const char *expected) {
  lexed L;
  lex(&L, src);
  if (L.s != TL_OK) fail_msg("lex failed: %s", tl_last_error());
  char got[512];
  kinds(&L, got);
  if (strcmp(got, expected) != 0) fail_msg("source:\n%s\nkinds %s, expected %s", src, got, expected);
  lex_free(&L);
}

static void expect_error(const char *src, const char *message) {
  lexed L;
  lex(&L, src);
  if (L.s != TL_EINVAL) fail_msg("expected a lex error for:\n%s", src);
  TL_ASSERT_MSG(message);
  lex_free(&L);
}

static void test_simple_line(void **state) {
  (void)state;
  lexed L;
  lex(&L, "x = foo(1, 2.5, 'a') # comment\n");
  TL_ASSERT_OK(L.s);
  char k[64];
  kinds(&L, k);
  assert_string_equal(k, "NONOIOFOSOL$");
  assert_string_equal(tok(&L, 0)->s, "x");
  assert_int_equal(tok(&L, 0)->line, 1);
  assert_int_equal(tok(&L, 0)->col, 1);
  assert_string_equal(tok(&L, 1)->s, "=");
  assert_int_equal(tok(&L, 2)->col, 5);
  assert_int_equal(tok(&L, 4)->ival, 1);
  assert_true(tok(&L, 6)->fval == 2.5);
  assert_string_equal(tok(&L, 8)->s, "a");
  lex_free(&L);
}

static void test_indentation(void **state) {
  (void)state;
  /* Blank and comment-only lines do not count; dedents close several levels. */
  expect_kinds("if a:\n    b\n\n    # c\n    if c:\n        d\ne\n", "NNOL>NLNNOL>NL<<NL$");
  /* A file ending inside blocks closes them. */
  expect_kinds("def f():\n  return 1", "NNOOOL>NIL<$");
  /* Tabs go to the next multiple of 8. */
  expect_kinds("if a:\n\tb\n        c\n", "NNOL>NLNL<$");
  expect_error("if a:\n    b\n  c\n",
               "t.py:3:3: unindent does not match any outer indentation level\n  c\n  ^");
}

static void test_line_joining(void **state) {
  (void)state;
  /* Inside brackets newlines and indentation are ignored. */
  expect_kinds("f(a,\n      b,\n  c)\nd\n", "NONONONOLNL$");
  expect_kinds("x = [1,\n\n  2]\n", "NOOIOIOL$");
  /* A backslash joins lines outside brackets. */
  expect_kinds("x = 1 + \\\n    2\n", "NOIOIL$");
  expect_error("x = 1 \\ 2\n", "t.py:1:7: unexpected character after line continuation character\nx = 1 \\ 2\n      ^");
}

static void test_numbers(void **state) {
  (void)state;
  lexed L;
  lex(&L, "0x1F 0o17 0b101 1_000 0 00 1. .5 1e-3 2.5E+2 9223372036854775807\n");
  TL_ASSERT_OK(L.s);
  assert_int_equal(tok(&L, 0)->ival, 31);
  assert_int_equal(tok(&L, 1)->ival, 15);
  assert_int_equal(tok(&L, 2)->ival, 5);
  assert_int_equal(tok(&L, 3)->ival, 1000);
  assert_int_equal(tok(&L, 4)->ival, 0);
  assert_int_equal(tok(&L, 5)->ival, 0);
  assert_int_equal(tok(&L, 6)->kind, TK_FLOAT);
  assert_true(tok(&L, 6)->fval == 1.0);
  assert_true(tok(&L, 7)->fval == 0.5);
  assert_true(tok(&L, 8)->fval == 1e-3);
  assert_true(tok(&L, 9)->fval == 250.0);
  assert_int_equal(tok(&L, 10)->ival, INT64_MAX);
  lex_free(&L);
  expect_error("x = 012\n", "t.py:1:5: leading zeros in decimal integer literals are not permitted\nx = 012\n    ^");
  expect_error("x = 9223372036854775808\n", "t.py:1:5: integer literal too large\nx = 9223372036854775808\n    ^");
  expect_error("x = 12abc\n", "t.py:1:5: invalid decimal literal\nx = 12abc\n    ^");
  expect_error("x = 3j\n", "t.py:1:5: complex numbers are not supported\nx = 3j\n    ^");
  expect_error("x = 0x\n", "t.py:1:5: invalid hexadecimal literal\nx = 0x\n    ^");
}

static void test_strings(void **state) {
  (void)state;
  lexed L;
  lex(&L, "a = 'x\\ty\\n\\x41\\u00e9\\\\'\nb = r'a\\n'\nc = \"\"\"one\ntwo\"\"\"\nd = f'{x}'\n");
  TL_ASSERT_OK(L.s);
  assert_string_equal(tok(&L, 2)->s, "x\ty\nA\xc3\xa9\\");
  assert_string_equal(tok(&L, 6)->s, "a\\n");
  assert_string_equal(tok(&L, 10)->s, "one\ntwo");
  /* The token after a multi-line string is on the right line. */
  assert_int_equal(tok(&L, 12)->line, 5);
  assert_true(tok(&L, 14)->flags & TL__STR_F);
  lex_free(&L);
  expect_error("x = 'abc\n", "t.py:1:5: unterminated string literal\nx = 'abc\n    ^");
  expect_error("x = '''abc\n\n", "t.py:1:5: unterminated triple-quoted string literal\nx = '''abc\n    ^");
}

static void test_brackets(void **state) {
  (void)state;
  expect_error("x = (1, 2]\n", "t.py:1:10: closing parenthesis ']' does not match opening parenthesis '('\nx = (1, 2]\n         ^");
  expect_error("x = 1)\n", "t.py:1:6: unmatched ')'\nx = 1)\n     ^");
  expect_error("x = f(1,\n  [2,\n", "t.py:2:3: '[' was never closed\n  [2,\n  ^");
}

static void test_characters(void **state) {
  (void)state;
  expect_error("x = $y\n", "t.py:1:5: invalid character '$'\nx = $y\n    ^");
  expect_error("if !x:\n", "t.py:1:4: invalid syntax: '!' (use 'not' or '!=')\nif !x:\n   ^");
  /* Columns count characters, so the caret lines up under UTF-8 text; tabs are kept. */
  expect_error("s = 'é' $\n", "t.py:1:9: invalid character '$'\ns = 'é' $\n        ^");
  expect_error("\tx = $\n", "t.py:1:6: invalid character '$'\n\tx = $\n\t    ^");
  /* A NUL byte inside the text. */
  lexed L;
  tl__parse_ctx_init(&L.p, "x = 1\0", 6, "t.py");
  tl__vec_init(&L.toks, sizeof(tl__tok));
  assert_int_equal(tl__lex(&L.p, &L.toks), TL_EINVAL);
  assert_non_null(strstr(tl_last_error(), "t.py:1:6: invalid character (byte 0x00)"));
  lex_free(&L);
}

static void test_line_endings(void **state) {
  (void)state;
  expect_kinds("if a:\r\n    b\r\nc\r\n", "NNOL>NL<NL$");
  expect_kinds("if a:\r    b\rc\r", "NNOL>NL<NL$");
  /* A UTF-8 byte order mark is skipped. */
  expect_kinds("\xEF\xBB\xBFx = 1\n", "NOIL$");
  expect_kinds("", "$");
  expect_kinds("\n\n   \n# only a comment", "$");
}

static void test_keywords(void **state) {
  (void)state;
  lexed L;
  lex(&L, "for x in range(3): pass\n");
  TL_ASSERT_OK(L.s);
  assert_true(tl__tok_is_keyword(tok(&L, 0)));
  assert_false(tl__tok_is_keyword(tok(&L, 1)));
  assert_true(tl__tok_is_keyword(tok(&L, 2)));
  assert_false(tl__tok_is_keyword(tok(&L, 3)));
  lex_free(&L);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_simple_line), cmocka_unit_test(test_indentation), cmocka_unit_test(test_line_joining),
    cmocka_unit_test(test_numbers),     cmocka_unit_test(test_strings),     cmocka_unit_test(test_brackets),
    cmocka_unit_test(test_characters),  cmocka_unit_test(test_line_endings), cmocka_unit_test(test_keywords),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
