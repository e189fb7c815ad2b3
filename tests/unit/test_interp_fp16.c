/* float16 and bfloat16 conversions (src/base/fp16.h): rounding to nearest even,
 * overflow to infinity, subnormals, NaN and signed zero, checked against known bit
 * patterns, an exhaustive round trip, and independent references (the compiler's
 * _Float16 where it has one; the classic bit trick for bfloat16). */
#include <float.h>
#include <math.h>

#include "base/fp16.h"
#include "tl_test.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static float f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void test_f16_known_values(void **state) {
  (void)state;
  assert_int_equal(tl__f32_to_f16(0.0f), 0x0000);
  assert_int_equal(tl__f32_to_f16(-0.0f), 0x8000);
  assert_int_equal(tl__f32_to_f16(1.0f), 0x3c00);
  assert_int_equal(tl__f32_to_f16(-2.0f), 0xc000);
  assert_int_equal(tl__f32_to_f16(0.5f), 0x3800);
  assert_int_equal(tl__f32_to_f16(65504.0f), 0x7bff);           /* largest finite */
  assert_int_equal(tl__f64_to_f16(0.333333333333), 0x3555);
  assert_int_equal(tl__f32_to_f16(INFINITY), 0x7c00);
  assert_int_equal(tl__f32_to_f16(-INFINITY), 0xfc00);
  assert_int_equal(tl__f64_to_f16(ldexp(1.0, -14)), 0x0400);    /* smallest normal */
  assert_int_equal(tl__f64_to_f16(ldexp(1.0, -24)), 0x0001);    /* smallest subnormal */
  assert_int_equal(tl__f64_to_f16(ldexp(1023.0, -24)), 0x03ff); /* largest subnormal */
  /* Widening is exact. */
  assert_true(tl__f16_to_f64(0x0001) == ldexp(1.0, -24));
  assert_true(tl__f16_to_f64(0x7bff) == 65504.0);
  assert_true(tl__f16_to_f64(0x3555) == 0.333251953125);
  assert_true(tl__f16_to_f32(0xc000) == -2.0f);
  assert_true(isinf(tl__f16_to_f64(0x7c00)) && tl__f16_to_f64(0x7c00) > 0);
  assert_true(signbit(tl__f16_to_f64(0x8000)) && tl__f16_to_f64(0x8000) == 0.0);
}

static void test_f16_ties_to_even(void **state) {
  (void)state;
  double ulp = ldexp(1.0, -10); /* spacing of float16 in [1, 2) */
  assert_int_equal(tl__f64_to_f16(1.0 + ulp / 2), 0x3c00);         /* tie: down to even */
  assert_int_equal(tl__f64_to_f16(1.0 + 3 * ulp / 2), 0x3c02);     /* tie: up to even */
  assert_int_equal(tl__f64_to_f16(1.0 + ulp / 2 + 1e-12), 0x3c01); /* just above: up */
  assert_int_equal(tl__f64_to_f16(1.0 + ulp / 2 - 1e-12), 0x3c00); /* just below: down */
  assert_int_equal(tl__f64_to_f16(-(1.0 + 3 * ulp / 2)), 0xbc02);
  /* Ties between subnormals. */
  assert_int_equal(tl__f64_to_f16(ldexp(1.0, -25)), 0x0000);       /* half the smallest: to zero (even) */
  assert_int_equal(tl__f64_to_f16(ldexp(3.0, -25)), 0x0002);       /* 1.5 ulp: to 2 (even) */
  assert_int_equal(tl__f64_to_f16(ldexp(1.0, -25) * 1.0000001), 0x0001);
  assert_int_equal(tl__f64_to_f16(-ldexp(1.0, -26)), 0x8000);      /* underflow keeps the sign */
  /* The largest subnormal plus half an ulp rounds (to even) into the smallest normal. */
  assert_int_equal(tl__f64_to_f16(ldexp(1023.5, -24)), 0x0400);
  /* A carry out of the mantissa bumps the exponent. */
  assert_int_equal(tl__f64_to_f16(2.0 - ulp / 4), 0x4000);
}

static void test_f16_overflow(void **state) {
  (void)state;
  assert_int_equal(tl__f64_to_f16(65519.99), 0x7bff); /* below max + half ulp */
  assert_int_equal(tl__f64_to_f16(65520.0), 0x7c00);  /* tie with infinity: to "even" infinity */
  assert_int_equal(tl__f64_to_f16(1e10), 0x7c00);
  assert_int_equal(tl__f64_to_f16(-1e300), 0xfc00);
  assert_int_equal(tl__f32_to_f16(FLT_MAX), 0x7c00);
}

static void test_f16_nan(void **state) {
  (void)state;
  uint16_t h = tl__f64_to_f16(NAN);
  assert_int_equal(h & 0x7c00, 0x7c00);
  assert_true((h & 0x03ff) != 0);
  assert_true(isnan(tl__f16_to_f64(h)));
  assert_true(isnan(tl__f16_to_f64(0x7c01))); /* signaling NaN widens to NaN */
  assert_int_equal(tl__f64_to_f16(-NAN) & 0x8000, 0x8000);
  /* A NaN whose payload sits below float16's mantissa still stays NaN. */
  assert_int_equal(tl__f32_to_f16(f32_from_bits(0x7f800001u)) & 0x7e00, 0x7e00);
}

static void test_f16_exhaustive_round_trip(void **state) {
  (void)state;
  for (uint32_t b = 0; b < 0x10000; b++) {
    double d = tl__f16_to_f64((uint16_t)b);
    uint16_t back = tl__f64_to_f16(d);
    if (isnan(d)) {
      assert_true(isnan(tl__f16_to_f64(back)));
      assert_int_equal(back & 0x8000, b & 0x8000);
      assert_int_equal(back | 0x0200, b | 0x0200); /* only the quiet bit may change */
    } else {
      assert_int_equal(back, b);
      assert_true(tl__round_f16(d) == d || (d == 0 && tl__round_f16(d) == 0));
      assert_true((double)tl__f16_to_f32((uint16_t)b) == d);
    }
  }
}

#ifdef __FLT16_MAX__
/* The compiler's own conversions (libgcc's correctly rounded ones) as a reference. */
static void test_f16_against_compiler(void **state) {
  (void)state;
  for (int i = 0; i < 2000000; i++) {
    uint64_t r = next_u64();
    /* Doubles spread over float16's range and around it, and all float bit patterns. */
    double d = ldexp((double)(r >> 11) / 9007199254740992.0 + 0.5, (int)((r & 63) - 40));
    if (r & 64) d = -d;
    _Float16 ref = (_Float16)d;
    uint16_t rb;
    memcpy(&rb, &ref, 2);
    if (tl__f64_to_f16(d) != rb) fail_msg("f64 %.17g: got 0x%04x, expected 0x%04x", d, tl__f64_to_f16(d), rb);
    float f = f32_from_bits((uint32_t)(r >> 32));
    if (isnan(f)) continue;
    ref = (_Float16)f;
    memcpy(&rb, &ref, 2);
    if (tl__f32_to_f16(f) != rb) fail_msg("f32 %.9g: got 0x%04x, expected 0x%04x", (double)f, tl__f32_to_f16(f), rb);
  }
}
#endif

/* float -> bfloat16 by the well-known integer trick (round to nearest even on the
 * upper 16 bits), independent of the code under test. */
static uint16_t bf16_reference(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static void test_bf16(void **state) {
  (void)state;
  assert_int_equal(tl__f32_to_bf16(1.0f), 0x3f80);
  assert_int_equal(tl__f32_to_bf16(-2.0f), 0xc000);
  assert_int_equal(tl__f64_to_bf16(1.0 + ldexp(1.0, -8)), 0x3f80);     /* tie: even */
  assert_int_equal(tl__f64_to_bf16(1.0 + 3 * ldexp(1.0, -8)), 0x3f82); /* tie: even */
  assert_int_equal(tl__f32_to_bf16(FLT_MAX), 0x7f80);                    /* overflow */
  assert_int_equal(tl__f64_to_bf16(3.3895313892515355e38), 0x7f7f);      /* largest finite */
  assert_int_equal(tl__f64_to_bf16(1e39), 0x7f80);
  assert_int_equal(tl__f64_to_bf16(ldexp(1.0, -133)), 0x0001);           /* smallest subnormal */
  assert_int_equal(tl__f64_to_bf16(ldexp(1.0, -134)), 0x0000);           /* its half: even */
  assert_int_equal(tl__f64_to_bf16(ldexp(3.0, -134)), 0x0002);
  assert_true(tl__bf16_to_f64(0x0001) == ldexp(1.0, -133));
  assert_true(tl__bf16_to_f32(0x3f80) == 1.0f);
  assert_true(isnan(tl__bf16_to_f64(tl__f64_to_bf16(NAN))));
  assert_true(tl__round_bf16(1.00390625) == 1.0);
  for (uint32_t b = 0; b < 0x10000; b++) {
    double d = tl__bf16_to_f64((uint16_t)b);
    if (!isnan(d)) assert_int_equal(tl__f64_to_bf16(d), b);
  }
  for (int i = 0; i < 2000000; i++) {
    float f = f32_from_bits((uint32_t)next_u64());
    if (isnan(f)) continue;
    uint16_t want = bf16_reference(f);
    if (tl__f32_to_bf16(f) != want)
      fail_msg("%.9g: got 0x%04x, expected 0x%04x", (double)f, tl__f32_to_bf16(f), want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f16_known_values),
      cmocka_unit_test(test_f16_ties_to_even),
      cmocka_unit_test(test_f16_overflow),
      cmocka_unit_test(test_f16_nan),
      cmocka_unit_test(test_f16_exhaustive_round_trip),
#ifdef __FLT16_MAX__
      cmocka_unit_test(test_f16_against_compiler),
#endif
      cmocka_unit_test(test_bf16),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
