/* Math helper sections of the C dialect that replace C library calls where the
 * call keeps a loop from vectorizing (docs/codegen.md).
 *
 * tl_exp2f (section "exp2"): 2^x for float as 2^n * 2^r with n = round(x) and r
 * in [-0.5, 0.5], 2^r by Cephes' degree-6 polynomial, 2^n built in the exponent
 * field in two factors (so subnormal results and overflow to infinity come out
 * right, each rounded once). Branch-free, so gcc and clang vectorize loops over it
 * (the native backend compiles with -fno-trapping-math, which lets them turn the
 * comparisons into selects). Relative error at most 1e-7 (about 1.6 float32 ulp)
 * over the whole range against exp2 in double, which the interpreter uses and
 * rounds; tests/unit/test_codegen_c_math.c checks it with both compilers. NaN
 * stays NaN, -inf gives 0, +inf gives +inf. */
#include "codegen/c_math_text.h"

const char tl__c_text_exp2[] =
  "$F float tl_exp2f(float x) {\n"
  "  float y = x < -151.0f ? -151.0f : x;\n"
  "  y = y > 129.0f ? 129.0f : y;\n"
  "  float n = (y + 12582912.0f) - 12582912.0f; /* round to nearest: |y| < 2^22 */\n"
  "  float r = y - n, p = 1.535336188319500e-4f;\n"
  "  p = p * r + 1.339887440266574e-3f;\n"
  "  p = p * r + 9.618437357674640e-3f;\n"
  "  p = p * r + 5.550332471162809e-2f;\n"
  "  p = p * r + 2.402264791363012e-1f;\n"
  "  p = p * r + 6.931472028550421e-1f;\n"
  "  p = p * r + 1.0f;\n"
  "  float m = n == n ? n : 0.0f; /* NaN: any scale, p is NaN */\n"
  "  int32_t i = (int32_t)m, h = i >> 1;\n"
  "  union { uint32_t u; float f; } s1 = {(uint32_t)(h + 127) << 23}, s2 = {(uint32_t)(i - h + 127) << 23};\n"
  "  return p * s1.f * s2.f;\n"
  "}\n";
