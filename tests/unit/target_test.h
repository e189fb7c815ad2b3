/* Helpers shared by the target tests. */
#ifndef TL_TARGET_TEST_H
#define TL_TARGET_TEST_H

#include "base/str.h"
#include "target/kinds.h"
#include "tilelang/target.h"
#include "tl_test.h"

/* The llvm canonicalizer's default triple on this build machine, as a literal for
 * expected strings; test_target_json checks it against tl__target_default_triple. */
#if defined(__linux__) && defined(__x86_64__)
#define TL_TEST_TRIPLE "x86_64-unknown-linux-gnu"
#elif defined(__linux__) && defined(__aarch64__)
#define TL_TEST_TRIPLE "aarch64-unknown-linux-gnu"
#else
#define TL_TEST_TRIPLE "unknown"
#endif

/* Parses spec, failing the test with the library's message if it does not parse. */
static inline tl_target *parse_ok(const char *spec) {
  tl_target *t = NULL;
  tl_status s = tl_target_parse(spec, &t);
  if (s != TL_OK) fail_msg("tl_target_parse(%s): %s: %s", spec, tl_status_name(s), tl_last_error());
  assert_non_null(t);
  return t;
}

/* Asserts spec parses to a target whose JSON text is exactly `json`. */
#define EXPECT_STR(spec, json)                     \
  do {                                             \
    tl_target *et_t = parse_ok(spec);              \
    assert_string_equal(tl_target_str(et_t), json); \
    tl_target_release(et_t);                       \
  } while (0)

/* Asserts spec fails with TL_EINVAL and exactly the message `msg`, leaving *out NULL. */
#define EXPECT_ERR(spec, msg)                                       \
  do {                                                              \
    tl_target *ee_t = (tl_target *)(uintptr_t)1;                    \
    TL_ASSERT_ERR(tl_target_parse(spec, &ee_t), TL_EINVAL, "");   \
    TL_ASSERT_MSG(msg);                                             \
    assert_null(ee_t);                                              \
  } while (0)

#endif
