/* The C99 dialect: readable C that any C99 compiler builds (gcc, clang, tcc).
 *
 * float16 and bfloat16 live in memory as uint16_t bit patterns and are computed in
 * float, rounded back to their own precision after every operation (to nearest,
 * ties to even, bit for bit as src/base/fp16.h), so generated code gives the
 * interpreter's results. OpenMP directives go through TL_OMP(...), which expands to
 * _Pragma only where the compiler defines _OPENMP (the native execution backend
 * passes -fopenmp when its compiler supports it; tcc has no OpenMP), so one source
 * serves every execution backend. */
#include "codegen/c_dialect.h"
#include "codegen/c_gemm.h"
#include "codegen/c_math_text.h"
#include "codegen/c_helper_texts.h"

static const char k_prelude[] =
  "#include <math.h>\n"
  "#include <stdbool.h>\n"
  "#include <stddef.h>\n"
  "#include <stdint.h>\n"
  "\n"
  "/* TL_OMP(omp ...): an OpenMP directive where the compiler has OpenMP, else nothing. */\n"
  "#ifndef TL_OMP\n"
  "#ifdef _OPENMP\n"
  "#define TL_OMP(directive) _Pragma(#directive)\n"
  "#else\n"
  "#define TL_OMP(directive)\n"
  "#endif\n"
  "#endif\n"
  "/* TL_TEAM(n): a team of at most n threads, nor more than OpenMP's count (OMP_NUM_THREADS). */\n"
  "#if defined(_OPENMP) && !defined(TL_TEAM)\n"
  "#include <omp.h>\n"
  "#define TL_TEAM(n) ((n) < omp_get_max_threads() ? (int)(n) : omp_get_max_threads())\n"
  "#endif\n";

/* float16 and bfloat16: narrowing from double rounds once, to nearest with ties to
 * even (overflow to infinity, subnormals kept, NaN quieted with its payload's leading
 * bits); widening is exact. Where the compiler targets F16C (__F16C__), float16
 * widening and the narrowing of values that float holds exactly (all that copies
 * and float32 results give) are the hardware conversions, which round the same way;
 * a bfloat16 narrowing of such a value rounds float's bits directly. */
static const char k_fp16[] =
  "#if defined(__F16C__)\n"
  "#include <immintrin.h>\n"
  "#endif\n"
  "$F uint16_t tl_f16_from_f64(double x) {\n"
  "#if defined(__F16C__)\n"
  "  if ((double)(float)x == x) return (uint16_t)_cvtss_sh((float)x, 0);\n"
  "#endif\n"
  "  union { double d; uint64_t u; } v = {x};\n"
  "  uint16_t sign = (uint16_t)((v.u >> 48) & 0x8000u);\n"
  "  int e = (int)((v.u >> 52) & 0x7ff);\n"
  "  uint64_t m = v.u & 0xfffffffffffffull;\n"
  "  if (e == 0x7ff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u | (uint16_t)(m >> 42) : 0u));\n"
  "  if (e == 0) return sign;\n"
  "  int E = e - 1023 + 15, shift = 42;\n"
  "  if (E >= 31) return (uint16_t)(sign | 0x7c00u);\n"
  "  if (E < 1) shift += 1 - E;\n"
  "  if (shift > 53) return sign;\n"
  "  uint64_t sig = m | (1ull << 52), q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);\n"
  "  if (rem > half || (rem == half && (q & 1))) q++;\n"
  "  if (E < 1) return (uint16_t)(sign | q);\n"
  "  return (uint16_t)(sign | (((uint64_t)(E - 1) << 10) + q));\n"
  "}\n"
  "$F float tl_f16_to_f32(uint16_t h) {\n"
  "#if defined(__F16C__)\n"
  "  return _cvtsh_ss(h);\n"
  "#endif\n"
  "  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
  "  union { uint32_t u; float f; } v;\n"
  "  if (e == 0x1f) v.u = sign | 0x7f800000u | (m ? 0x400000u | (m << 13) : 0u);\n"
  "  else if (e) v.u = sign | ((e + 112) << 23) | (m << 13);\n"
  "  else if (!m) v.u = sign;\n"
  "  else {\n"
  "    for (e = 113; !(m & 0x400u); e--) m <<= 1;\n"
  "    v.u = sign | (e << 23) | ((m & 0x3ffu) << 13);\n"
  "  }\n"
  "  return v.f;\n"
  "}\n"
  "$F float tl_round_f16(double x) { return tl_f16_to_f32(tl_f16_from_f64(x)); }\n"
  "$F uint16_t tl_bf16_from_f64(double x) {\n"
  "  if ((double)(float)x == x) {\n"
  "    union { float f; uint32_t u; } b = {(float)x};\n"
  "    return (uint16_t)((b.u + 0x7fffu + ((b.u >> 16) & 1u)) >> 16);\n"
  "  }\n"
  "  union { double d; uint64_t u; } v = {x};\n"
  "  uint16_t sign = (uint16_t)((v.u >> 48) & 0x8000u);\n"
  "  int e = (int)((v.u >> 52) & 0x7ff);\n"
  "  uint64_t m = v.u & 0xfffffffffffffull;\n"
  "  if (e == 0x7ff) return (uint16_t)(sign | 0x7f80u | (m ? 0x40u | (uint16_t)(m >> 45) : 0u));\n"
  "  if (e == 0) return sign;\n"
  "  int E = e - 1023 + 127, shift = 45;\n"
  "  if (E >= 255) return (uint16_t)(sign | 0x7f80u);\n"
  "  if (E < 1) shift += 1 - E;\n"
  "  if (shift > 53) return sign;\n"
  "  uint64_t sig = m | (1ull << 52), q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);\n"
  "  if (rem > half || (rem == half && (q & 1))) q++;\n"
  "  if (E < 1) return (uint16_t)(sign | q);\n"
  "  return (uint16_t)(sign | (((uint64_t)(E - 1) << 7) + q));\n"
  "}\n"
  "$F float tl_bf16_to_f32(uint16_t h) {\n"
  "  union { uint32_t u; float f; } v = {(uint32_t)h << 16};\n"
  "  if ((h & 0x7f80u) == 0x7f80u && (h & 0x7fu)) v.u |= 0x400000u;\n"
  "  return v.f;\n"
  "}\n"
  "$F float tl_round_bf16(double x) { return tl_bf16_to_f32(tl_bf16_from_f64(x)); }\n";

static const tl__c_helper k_helpers[] = {
  {"fp16", false, NULL, k_fp16},
  {"intdiv", true, NULL, tl__c_text_intdiv},
  {"minmax", true, NULL, tl__c_text_minmax},
  {"abs", true, NULL, tl__c_text_abs},
  {"fminmax", true, NULL, tl__c_text_fminmax},
  {"fdiv", true, NULL, tl__c_text_fdiv_double},
  {"gemm", false, "fp16", tl__c_text_gemm},
  {"exp2", false, NULL, tl__c_text_exp2},
  {"exp", false, NULL, tl__c_text_exp},
  {NULL, false, NULL, NULL},
};

static const tl__c_math k_math[] = {
  {TL_OP_EXP, "tl_expf(%0)", "exp(%0)", "exp"}, /* vectorizable (c_math_text.c) */
  {TL_OP_EXP2, "tl_exp2f(%0)", "exp2(%0)", "exp2"}, /* vectorizable (c_math_text.c) */
  {TL_OP_LOG, "logf(%0)", "log(%0)", NULL},
  {TL_OP_LOG2, "log2f(%0)", "log2(%0)", NULL},
  {TL_OP_SQRT, "sqrtf(%0)", "sqrt(%0)", NULL},
  {TL_OP_RSQRT, "(1.0f / sqrtf(%0))", "(1.0 / sqrt(%0))", NULL},
  {TL_OP_TANH, "tanhf(%0)", "tanh(%0)", NULL},
  {TL_OP_SIGMOID, "(1.0f / (1.0f + tl_expf(-(%0))))", "(1.0 / (1.0 + exp(-(%0))))", "exp"},
  {TL_OP_POW, "powf(%0, %1)", "pow(%0, %1)", NULL},
  {TL_OP_FMA, "fmaf(%0, %1, %2)", "fma(%0, %1, %2)", NULL},
  {TL_OP_FLOOR, "floorf(%0)", "floor(%0)", NULL},
  {TL_OP_CEIL, "ceilf(%0)", "ceil(%0)", NULL},
  {TL_OP_ROUND, "roundf(%0)", "round(%0)", NULL}, /* half away from zero, as CUDA's round() */
  {TL_OP_TRUNC, "truncf(%0)", "trunc(%0)", NULL},
  {TL_OP_SIN, "sinf(%0)", "sin(%0)", NULL},
  {TL_OP_COS, "cosf(%0)", "cos(%0)", NULL},
  {TL_OP_ABS, "fabsf(%0)", "fabs(%0)", NULL},
  {TL_OP_ERF, "erff(%0)", "erf(%0)", NULL},
  {TL_OP_LOG10, "log10f(%0)", "log10(%0)", NULL},
  {TL_OP_LOG1P, "log1pf(%0)", "log1p(%0)", NULL},
  {TL_OP_EXPM1, "expm1f(%0)", "expm1(%0)", NULL},
  {TL_OP_TAN, "tanf(%0)", "tan(%0)", NULL},
  {TL_OP_FMOD, "fmodf(%0, %1)", "fmod(%0, %1)", NULL},
  {TL_OP__COUNT, NULL, NULL, NULL},
};

/* Blocks of one kernel run in parallel under OpenMP: element updates that must be
 * atomic are `omp atomic` (a read-modify-write of a 16-bit float, which omp atomic
 * cannot express, is an `omp critical` section). */
#define TL__C_OMP_ATOMIC(suffix) {suffix, "TL_OMP(omp atomic)\n$D += $V;", NULL}
static const tl__c_atomic k_atomics[] = {
  {"f16", "TL_OMP(omp critical)\n$D = tl_f16_from_f64((double)tl_f16_to_f32($D) + (double)($V));", NULL},
  {"bf16", "TL_OMP(omp critical)\n$D = tl_bf16_from_f64((double)tl_bf16_to_f32($D) + (double)($V));", NULL},
  TL__C_OMP_ATOMIC("i8"), TL__C_OMP_ATOMIC("i16"), TL__C_OMP_ATOMIC("i32"), TL__C_OMP_ATOMIC("i64"),
  TL__C_OMP_ATOMIC("u8"), TL__C_OMP_ATOMIC("u16"), TL__C_OMP_ATOMIC("u32"), TL__C_OMP_ATOMIC("u64"),
  TL__C_OMP_ATOMIC("f32"), TL__C_OMP_ATOMIC("f64"), TL__C_OMP_ATOMIC("b"),
  {NULL, NULL, NULL},
};
#undef TL__C_OMP_ATOMIC

/* T.atomic_max / T.atomic_min: a critical section around the interpreter's
 * max (min): NaN if either is NaN, else the larger (smaller), the value on a tie
 * (so max(+0, -0) stores -0 as the interpreter does). Integers and bool compare
 * directly; 16-bit floats compare as floats and narrow the value back (exact: it
 * is already of the buffer's dtype). */
#define TL__C_CRIT "TL_OMP(omp critical)\n"
#define TL__C_MINMAX_INT(suffix, type, cmp) {suffix, TL__C_CRIT "{ " type " tl_v = $V; if (!($D " cmp " tl_v)) $D = tl_v; }", NULL}
#define TL__C_MINMAX_FLT(suffix, type, cmp) \
  {suffix, TL__C_CRIT "{ " type " tl_v = $V; if (!(($D " cmp " tl_v && tl_v == tl_v) || $D != $D)) $D = tl_v; }", NULL}
#define TL__C_MINMAX_HALF(suffix, cmp)                                                                       \
  {#suffix, TL__C_CRIT "{ float tl_v = $V, tl_o = tl_" #suffix "_to_f32($D); if (!((tl_o " cmp                 \
            " tl_v && tl_v == tl_v) || tl_o != tl_o)) $D = tl_" #suffix "_from_f64((double)tl_v); }",             \
   NULL}
#define TL__C_MINMAX(cmp)                                                                                            \
  TL__C_MINMAX_HALF(f16, cmp), TL__C_MINMAX_HALF(bf16, cmp), TL__C_MINMAX_FLT("f32", "float", cmp),                \
    TL__C_MINMAX_FLT("f64", "double", cmp), TL__C_MINMAX_INT("i8", "int8_t", cmp),                                  \
    TL__C_MINMAX_INT("i16", "int16_t", cmp), TL__C_MINMAX_INT("i32", "int32_t", cmp),                               \
    TL__C_MINMAX_INT("i64", "int64_t", cmp), TL__C_MINMAX_INT("u8", "uint8_t", cmp),                                \
    TL__C_MINMAX_INT("u16", "uint16_t", cmp), TL__C_MINMAX_INT("u32", "uint32_t", cmp),                             \
    TL__C_MINMAX_INT("u64", "uint64_t", cmp), TL__C_MINMAX_INT("b", "bool", cmp), {NULL, NULL, NULL}
/* max keeps the old value only where it is larger; min where smaller */
static const tl__c_atomic k_atomic_max[] = {TL__C_MINMAX(">")};
static const tl__c_atomic k_atomic_min[] = {TL__C_MINMAX("<")};
#undef TL__C_MINMAX
#undef TL__C_MINMAX_HALF
#undef TL__C_MINMAX_FLT
#undef TL__C_MINMAX_INT
#undef TL__C_CRIT

const tl__c_dialect tl__c_dialect_c = {
  .name = "c",
  .t_bool = "bool", .t_i8 = "int8_t", .t_i16 = "int16_t", .t_i32 = "int32_t", .t_i64 = "int64_t",
  .t_u8 = "uint8_t", .t_u16 = "uint16_t", .t_u32 = "uint32_t", .t_u64 = "uint64_t",
  .t_f32 = "float", .t_f64 = "double", .t_handle = "void *",
  .f16 = {"uint16_t", "float", "tl_f16_to_f32", "tl_f16_from_f64", "tl_round_f16", "fp16"},
  .bf16 = {"uint16_t", "float", "tl_bf16_to_f32", "tl_bf16_from_f64", "tl_round_bf16", "fp16"},
  .restrict_kw = "restrict",
  .global_space = "",
  .shared_space = "",
  .kernel_prefix = "static",
  .helper_prefix = "static inline",
  .thread_tags = NULL,
  .barrier = NULL,
  .math = k_math,
  .atomic_add = k_atomics,
  .atomic_max = k_atomic_max,
  .atomic_min = k_atomic_min,
  /* A single block runs on the calling thread: forking a team for it costs more
   * than the work (tens of microseconds). */
  .parallel_for = "TL_OMP(omp parallel for$C$I$N)",
  .parallel_threads = " num_threads(TL_TEAM($B))",
  .unroll_pragma = NULL,
  .helpers = k_helpers,
  .prelude = k_prelude,
};
