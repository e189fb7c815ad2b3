/* Math helper sections of the C dialect that replace C library calls where the
 * call keeps a loop from vectorizing (docs/codegen.md). Both are branch-free and
 * scale by 2^n built in the exponent field in two factors (so subnormal results
 * and overflow to infinity come out right, each rounded once); gcc and clang
 * vectorize loops over them (the native backend compiles with -fno-trapping-math,
 * which lets them turn the comparisons into selects). tests/e2e/e2e_cpu_kernels.c
 * checks both over the whole float range, through native and tcc.
 *
 * tl_exp2f (section "exp2"): 2^x for float as 2^n * 2^r with n = round(x) and r
 * in [-0.5, 0.5], 2^r by Cephes' degree-6 polynomial, 2^n built in the exponent
 * field in two factors (so subnormal results and overflow to infinity come out
 * right, each rounded once). Branch-free, so gcc and clang vectorize loops over it
 * (the native backend compiles with -fno-trapping-math, which lets them turn the
 * comparisons into selects). Relative error at most 1e-7 (about 1.6 float32 ulp)
 * over the whole range against exp2 in double, which the interpreter uses and
 * rounds. NaN stays NaN, -inf gives 0, +inf gives +inf.
 *
 * tl_expf (section "exp"): e^x for float as 2^n * e^r with n = round(x / ln 2)
 * and r = x - n ln 2 computed in two steps (Cody and Waite: n times the 9-bit
 * leading part of ln 2 is exact), e^r on [-0.35, 0.35] by Cephes' degree-7
 * polynomial for expf. Relative error at most 1e-7 against exp in double (8.3e-8
 * measured over every 97th float in (-120, 100)); same specials as tl_exp2f. */
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

const char tl__c_text_exp[] =
  "$F float tl_expf(float x) {\n"
  "  float y = x < -104.0f ? -104.0f : x;\n"
  "  y = y > 89.0f ? 89.0f : y;\n"
  "  float n = (y * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* round(y / ln 2) */\n"
  "  float r = (y - n * 0.693359375f) + n * 2.12194440e-4f;            /* y - n ln 2 */\n"
  "  float p = 1.9875691500e-4f;\n"
  "  p = p * r + 1.3981999507e-3f;\n"
  "  p = p * r + 8.3334519073e-3f;\n"
  "  p = p * r + 4.1665795894e-2f;\n"
  "  p = p * r + 1.6666665459e-1f;\n"
  "  p = p * r + 5.0000001201e-1f;\n"
  "  p = p * r * r + r + 1.0f;\n"
  "  float m = n == n ? n : 0.0f; /* NaN: any scale, p is NaN */\n"
  "  int32_t i = (int32_t)m, h = i >> 1;\n"
  "  union { uint32_t u; float f; } s1 = {(uint32_t)(h + 127) << 23}, s2 = {(uint32_t)(i - h + 127) << 23};\n"
  "  return p * s1.f * s2.f;\n"
  "}\n";
