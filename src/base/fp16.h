/* IEEE 754 binary16 ("float16", "half") and bfloat16 conversions, bit-exact.
 *
 * Narrowing rounds to nearest, ties to even, as GPUs do for __float2half_rn and
 * __float2bfloat16_rn: values past the largest finite number by half an ulp or more
 * become infinity, tiny values become subnormals (float16) or signed zero, and NaN
 * stays NaN (quiet, sign and leading payload bits kept). Widening is exact.
 *
 * Narrowing from double rounds once, directly from the double's bits, so a value
 * computed in double (the product or sum of two halves, which double holds exactly)
 * is correctly rounded: no double rounding through float. The interpreter, the code
 * generators and the runtime all use these. Pure functions; thread-safe. */
#ifndef TL_BASE_FP16_H
#define TL_BASE_FP16_H

#include <stdint.h>

uint16_t tl__f64_to_f16(double x);
uint16_t tl__f32_to_f16(float x);
double tl__f16_to_f64(uint16_t h);
float tl__f16_to_f32(uint16_t h);

uint16_t tl__f64_to_bf16(double x);
uint16_t tl__f32_to_bf16(float x);
double tl__bf16_to_f64(uint16_t h);
float tl__bf16_to_f32(uint16_t h);

/* x rounded to the nearest float16 / bfloat16 value, as a double (exact). */
double tl__round_f16(double x);
double tl__round_bf16(double x);

#endif
