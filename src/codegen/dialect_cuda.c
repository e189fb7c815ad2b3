/* The CUDA dialect: CUDA C++ for NVRTC and nvcc, from GPU-lowered device kernels
 * (docs/lowering.md, "GPU-lowered device kernels").
 *
 * Kernels are `extern "C" __global__` (unmangled symbols the kernel table names),
 * with `__launch_bounds__` when every launch has the same constant block; block and
 * thread indices are signed locals; shared buffers are `__shared__` arrays and
 * `shared.dyn` buffers point into one `extern __shared__` array; 16-byte vector
 * accesses of global and shared memory are single `float4`/`uint4` loads and
 * stores. float16 and bfloat16 live in memory as `__half` / `__nv_bfloat16`
 * (cuda_fp16.h, cuda_bf16.h, included only by kernels that use them) and are
 * computed in float, rounded to nearest even after every operation, as the
 * interpreter does. Signed arithmetic on data goes through unsigned types (CUDA has
 * no -fwrapv); the compilers run with --fmad=false, so no multiply-add is fused.
 * Math functions are CUDA's exact ones (expf, exp2f, ...); with the pass config
 * tl.enable_fast_math the fast intrinsics (__expf, __logf, ...). */
#include "codegen/c_dialect.h"
#include "codegen/c_helper_texts.h"

static const char k_prelude[] =
  "/* CUDA C++: compiled by NVRTC or nvcc with --fmad=false (one IR operation, one rounding). */\n"
  "#ifndef INFINITY\n"
  "#define INFINITY __int_as_float(0x7f800000)\n"
  "#endif\n"
  "#ifndef NAN\n"
  "#define NAN __int_as_float(0x7fffffff)\n"
  "#endif\n";

/* float16 and bfloat16: the conversions round to nearest even, from float or
 * straight from double (a float64 value converted once, not twice). */
static const char k_fp16[] =
  "#include <cuda_fp16.h>\n"
  "$F __half tl_f16_narrow(float x) { return __float2half_rn(x); }\n"
  "$F __half tl_f16_narrow(double x) { return __double2half(x); }\n"
  "$F float tl_round_f16(float x) { return __half2float(__float2half_rn(x)); }\n"
  "$F float tl_round_f16(double x) { return __half2float(__double2half(x)); }\n";

static const char k_bf16[] =
  "#include <cuda_bf16.h>\n"
  "$F __nv_bfloat16 tl_bf16_narrow(float x) { return __float2bfloat16_rn(x); }\n"
  "$F __nv_bfloat16 tl_bf16_narrow(double x) { return __double2bfloat16(x); }\n"
  "$F float tl_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }\n"
  "$F float tl_round_bf16(double x) { return __bfloat162float(__double2bfloat16(x)); }\n";

/* Atomic adds the hardware lacks on some archs, as compare-and-swap loops on the
 * aligned 32-bit word holding the element: 8- and 16-bit integers (wrapping),
 * float16 before sm_70, bfloat16 before sm_80, float64 before sm_60. */
static const char k_atomic_sub32[] =
  "$F void tl_atomic_add_bits(void *addr, unsigned int v, unsigned int bits) {\n"
  "  unsigned int *word = (unsigned int *)((size_t)addr & ~(size_t)3);\n"
  "  unsigned int shift = (unsigned int)((size_t)addr & 3) * 8u, mask = (bits == 8 ? 0xffu : 0xffffu) << shift;\n"
  "  unsigned int old = *word, assumed;\n"
  "  do {\n"
  "    assumed = old;\n"
  "    unsigned int sum = (((assumed & mask) >> shift) + v) << shift;\n"
  "    old = atomicCAS(word, assumed, (assumed & ~mask) | (sum & mask));\n"
  "  } while (old != assumed);\n"
  "}\n";

static const char k_atomic_f16[] =
  "$F void tl_atomic_add_f16(__half *addr, float v) {\n"
  "#if __CUDA_ARCH__ >= 700\n"
  "  atomicAdd(addr, __float2half_rn(v));\n"
  "#else\n"
  "  unsigned int *word = (unsigned int *)((size_t)addr & ~(size_t)3);\n"
  "  unsigned int shift = (unsigned int)((size_t)addr & 2) * 8u, old = *word, assumed;\n"
  "  do {\n"
  "    assumed = old;\n"
  "    float cur = __half2float(__ushort_as_half((unsigned short)(assumed >> shift)));\n"
  "    unsigned int sum = __half_as_ushort(__float2half_rn(cur + v));\n"
  "    old = atomicCAS(word, assumed, (assumed & ~(0xffffu << shift)) | (sum << shift));\n"
  "  } while (old != assumed);\n"
  "#endif\n"
  "}\n";

static const char k_atomic_bf16[] =
  "$F void tl_atomic_add_bf16(__nv_bfloat16 *addr, float v) {\n"
  "#if __CUDA_ARCH__ >= 800\n"
  "  atomicAdd(addr, __float2bfloat16_rn(v));\n"
  "#else\n"
  "  unsigned int *word = (unsigned int *)((size_t)addr & ~(size_t)3);\n"
  "  unsigned int shift = (unsigned int)((size_t)addr & 2) * 8u, old = *word, assumed;\n"
  "  do {\n"
  "    assumed = old;\n"
  "    float cur = __bfloat162float(__ushort_as_bfloat16((unsigned short)(assumed >> shift)));\n"
  "    unsigned int sum = __bfloat16_as_ushort(__float2bfloat16_rn(cur + v));\n"
  "    old = atomicCAS(word, assumed, (assumed & ~(0xffffu << shift)) | (sum << shift));\n"
  "  } while (old != assumed);\n"
  "#endif\n"
  "}\n";

static const char k_atomic_f64[] =
  "$F void tl_atomic_add_f64(double *addr, double v) {\n"
  "#if __CUDA_ARCH__ >= 600\n"
  "  atomicAdd(addr, v);\n"
  "#else\n"
  "  unsigned long long *p = (unsigned long long *)addr, old = *p, assumed;\n"
  "  do {\n"
  "    assumed = old;\n"
  "    old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(__longlong_as_double((long long)assumed) + v));\n"
  "  } while (old != assumed);\n"
  "#endif\n"
  "}\n";

/* mma.sync.m16n8k16 (sm_80 and later): this lane's 4 float32 accumulators, 8 A and
 * 4 B elements, packed in pairs into the instruction's 32-bit registers (the
 * lower index in the low half, as the PTX fragment maps place them). A CPU
 * stand-in (tests' cuda_emu.h) defines the guard and its own warp-wide version. */
static const char k_mma_f16[] =
  "$F void tl_mma_m16n8k16_f16(float *d, const __half *a, const __half *b) {\n"
  "  unsigned int ra[4], rb[2];\n"
  "#pragma unroll\n"
  "  for (int i = 0; i < 4; i++)\n"
  "    ra[i] = (unsigned int)__half_as_ushort(a[2 * i]) | ((unsigned int)__half_as_ushort(a[2 * i + 1]) << 16);\n"
  "#pragma unroll\n"
  "  for (int i = 0; i < 2; i++)\n"
  "    rb[i] = (unsigned int)__half_as_ushort(b[2 * i]) | ((unsigned int)__half_as_ushort(b[2 * i + 1]) << 16);\n"
  "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, \"\n"
  "               \"{%8, %9}, {%0, %1, %2, %3};\\n\"\n"
  "               : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n"
  "               : \"r\"(ra[0]), \"r\"(ra[1]), \"r\"(ra[2]), \"r\"(ra[3]), \"r\"(rb[0]), \"r\"(rb[1]));\n"
  "}\n";

static const char k_mma_bf16[] =
  "$F void tl_mma_m16n8k16_bf16(float *d, const __nv_bfloat16 *a, const __nv_bfloat16 *b) {\n"
  "  unsigned int ra[4], rb[2];\n"
  "#pragma unroll\n"
  "  for (int i = 0; i < 4; i++)\n"
  "    ra[i] = (unsigned int)__bfloat16_as_ushort(a[2 * i]) | ((unsigned int)__bfloat16_as_ushort(a[2 * i + 1]) << 16);\n"
  "#pragma unroll\n"
  "  for (int i = 0; i < 2; i++)\n"
  "    rb[i] = (unsigned int)__bfloat16_as_ushort(b[2 * i]) | ((unsigned int)__bfloat16_as_ushort(b[2 * i + 1]) << 16);\n"
  "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, \"\n"
  "               \"{%8, %9}, {%0, %1, %2, %3};\\n\"\n"
  "               : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n"
  "               : \"r\"(ra[0]), \"r\"(ra[1]), \"r\"(ra[2]), \"r\"(ra[3]), \"r\"(rb[0]), \"r\"(rb[1]));\n"
  "}\n";


/* ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16 (sm_75 and later): 4 registers
 * unpacked into 8 consecutive elements (low half first); `trans` is a constant. */
#define TL__LDMATRIX_TEXT(T, SUFFIX, FROM_BITS)                                                                     \
  "$F void tl_ldmatrix_x4_" SUFFIX "(" T " *d, const " T " *s, int trans) {\n"                                      \
  "  unsigned int r[4], a = (unsigned int)__cvta_generic_to_shared(s);\n"                                          \
  "  if (trans)\n"                                                                                                \
  "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\\n\"\n"                \
  "                 : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(a));\n"                       \
  "  else\n"                                                                                                      \
  "    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\\n\"\n"                      \
  "                 : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(a));\n"                       \
  "#pragma unroll\n"                                                                                              \
  "  for (int i = 0; i < 4; i++) {\n"                                                                             \
  "    d[2 * i] = " FROM_BITS "((unsigned short)(r[i] & 0xffffu));\n"                                              \
  "    d[2 * i + 1] = " FROM_BITS "((unsigned short)(r[i] >> 16));\n"                                              \
  "  }\n"                                                                                                         \
  "}\n"

/* cp.async (sm_80 and later): 16 bytes bypass L1 (.cg), 4 and 8 go through it
 * (.ca, the only form for them); a source size of 0 reads nothing and writes
 * zeros (the copy's edge guard). Commit and wait are compiler barriers too
 * ("memory"), so no shared access moves across them. A CPU stand-in (tests'
 * cuda_emu.h) defines the guard and its own versions. */
#define TL__CP_ASYNC_TEXT(N, CACHE)                                                                         \
  "$F void tl_cp_async_" #N "(void *dst, const void *src, bool valid) {\n"                                 \
  "  unsigned int s = (unsigned int)__cvta_generic_to_shared(dst);\n"                                      \
  "  asm volatile(\"cp.async." CACHE ".shared.global [%0], [%1], " #N ", %2;\\n\"\n"                   \
  "               :: \"r\"(s), \"l\"(src), \"r\"(valid ? " #N " : 0) : \"memory\");\n"                 \
  "}\n"
static const char k_cp_async[] =
  TL__CP_ASYNC_TEXT(16, "cg") TL__CP_ASYNC_TEXT(8, "ca") TL__CP_ASYNC_TEXT(4, "ca")
  "$F void tl_cp_async_commit() { asm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\"); }\n"
  "template <int N>\n"
  "$F void tl_cp_async_wait() { asm volatile(\"cp.async.wait_group %0;\\n\" :: \"n\"(N) : \"memory\"); }\n";
#undef TL__CP_ASYNC_TEXT

static const char k_ldmatrix_f16[] = TL__LDMATRIX_TEXT("__half", "f16", "__ushort_as_half");
static const char k_ldmatrix_bf16[] = TL__LDMATRIX_TEXT("__nv_bfloat16", "bf16", "__ushort_as_bfloat16");
/* T.atomic_max / T.atomic_min on floats: compare-and-swap loops that store the
 * interpreter's max (min): NaN if either is NaN, else the larger (smaller), the
 * value on a tie. */
#define TL__CUDA_ATOMIC_FMINMAX(NAME, T, U, TO_BITS, FROM_BITS, CMP)                               \
  "$F void tl_atomic_" NAME "(" T " *addr, " T " v) {\n"                                           \
  "  " U " *p = (" U " *)addr, old = *p, assumed;\n"                                               \
  "  do {\n"                                                                                       \
  "    assumed = old;\n"                                                                           \
  "    " T " cur = " FROM_BITS "(assumed);\n"                                                      \
  "    if ((cur " CMP " v && v == v) || cur != cur) return;\n"                                     \
  "    old = atomicCAS(p, assumed, (" U ")" TO_BITS "(v));\n"                                      \
  "  } while (old != assumed);\n"                                                                  \
  "}\n"
static const char k_atomic_fminmax[] =
  TL__CUDA_ATOMIC_FMINMAX("max_f32", "float", "unsigned int", "__float_as_uint", "__uint_as_float", ">")
  TL__CUDA_ATOMIC_FMINMAX("min_f32", "float", "unsigned int", "__float_as_uint", "__uint_as_float", "<")
  TL__CUDA_ATOMIC_FMINMAX("max_f64", "double", "unsigned long long", "__double_as_longlong", "__longlong_as_double", ">")
  TL__CUDA_ATOMIC_FMINMAX("min_f64", "double", "unsigned long long", "__double_as_longlong", "__longlong_as_double", "<");
#undef TL__CUDA_ATOMIC_FMINMAX

static const tl__c_helper k_helpers[] = {
  {"cuda_fp16", false, NULL, k_fp16},
  {"cuda_bf16", false, NULL, k_bf16},
  {"intdiv", true, NULL, tl__c_text_intdiv},
  {"minmax", true, NULL, tl__c_text_minmax},
  {"abs", true, NULL, tl__c_text_abs},
  {"fminmax", true, NULL, tl__c_text_fminmax},
  {"fdiv", true, NULL, tl__c_text_fdiv_double},
  {"atomic_bits", false, NULL, k_atomic_sub32},
  {"atomic_f16", false, "cuda_fp16", k_atomic_f16},
  {"atomic_bf16", false, "cuda_bf16", k_atomic_bf16},
  {"atomic_f64", false, NULL, k_atomic_f64},
  {"mma_f16", false, "cuda_fp16", k_mma_f16},
  {"mma_bf16", false, "cuda_bf16", k_mma_bf16},
  {"ldmatrix_f16", false, "cuda_fp16", k_ldmatrix_f16},
  {"ldmatrix_bf16", false, "cuda_bf16", k_ldmatrix_bf16},
  {"atomic_fminmax", false, NULL, k_atomic_fminmax},
  {"cp_async", false, NULL, k_cp_async},
  {NULL, false, NULL, NULL},
};

/* Exact math: CUDA's correctly rounded or few-ulp library functions. */
static const tl__c_math k_math[] = {
  {TL_OP_EXP, "expf(%0)", "exp(%0)", NULL},
  {TL_OP_EXP2, "exp2f(%0)", "exp2(%0)", NULL},
  {TL_OP_LOG, "logf(%0)", "log(%0)", NULL},
  {TL_OP_LOG2, "log2f(%0)", "log2(%0)", NULL},
  {TL_OP_SQRT, "sqrtf(%0)", "sqrt(%0)", NULL},
  {TL_OP_RSQRT, "(1.0f / sqrtf(%0))", "(1.0 / sqrt(%0))", NULL},
  {TL_OP_TANH, "tanhf(%0)", "tanh(%0)", NULL},
  {TL_OP_SIGMOID, "(1.0f / (1.0f + expf(-(%0))))", "(1.0 / (1.0 + exp(-(%0))))", NULL},
  {TL_OP_POW, "powf(%0, %1)", "pow(%0, %1)", NULL},
  {TL_OP_FMA, "fmaf(%0, %1, %2)", "fma(%0, %1, %2)", NULL},
  {TL_OP_FLOOR, "floorf(%0)", "floor(%0)", NULL},
  {TL_OP_CEIL, "ceilf(%0)", "ceil(%0)", NULL},
  {TL_OP_ROUND, "roundf(%0)", "round(%0)", NULL}, /* half away from zero */
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

/* Fast math (tl.enable_fast_math): the hardware approximations for float32. */
static const tl__c_math k_fast_math[] = {
  {TL_OP_EXP, "__expf(%0)", "exp(%0)", NULL},
  {TL_OP_EXP2, "exp2f(%0)", "exp2(%0)", NULL},
  {TL_OP_LOG, "__logf(%0)", "log(%0)", NULL},
  {TL_OP_LOG2, "__log2f(%0)", "log2(%0)", NULL},
  {TL_OP_SQRT, "sqrtf(%0)", "sqrt(%0)", NULL},
  {TL_OP_RSQRT, "rsqrtf(%0)", "(1.0 / sqrt(%0))", NULL},
  {TL_OP_TANH, "tanhf(%0)", "tanh(%0)", NULL},
  {TL_OP_SIGMOID, "(1.0f / (1.0f + __expf(-(%0))))", "(1.0 / (1.0 + exp(-(%0))))", NULL},
  {TL_OP_POW, "__powf(%0, %1)", "pow(%0, %1)", NULL},
  {TL_OP_FMA, "fmaf(%0, %1, %2)", "fma(%0, %1, %2)", NULL},
  {TL_OP_FLOOR, "floorf(%0)", "floor(%0)", NULL},
  {TL_OP_CEIL, "ceilf(%0)", "ceil(%0)", NULL},
  {TL_OP_ROUND, "roundf(%0)", "round(%0)", NULL},
  {TL_OP_TRUNC, "truncf(%0)", "trunc(%0)", NULL},
  {TL_OP_SIN, "__sinf(%0)", "sin(%0)", NULL},
  {TL_OP_COS, "__cosf(%0)", "cos(%0)", NULL},
  {TL_OP_ABS, "fabsf(%0)", "fabs(%0)", NULL},
  {TL_OP_ERF, "erff(%0)", "erf(%0)", NULL},
  {TL_OP_LOG10, "log10f(%0)", "log10(%0)", NULL},
  {TL_OP_LOG1P, "log1pf(%0)", "log1p(%0)", NULL},
  {TL_OP_EXPM1, "expm1f(%0)", "expm1(%0)", NULL},
  {TL_OP_TAN, "tanf(%0)", "tan(%0)", NULL},
  {TL_OP_FMOD, "fmodf(%0, %1)", "fmod(%0, %1)", NULL},
  {TL_OP__COUNT, NULL, NULL, NULL},
};

static const tl__c_thread_tag k_thread_tags[] = {
  {"blockIdx.x", "blockIdx.x"},   {"blockIdx.y", "blockIdx.y"},   {"blockIdx.z", "blockIdx.z"},
  {"threadIdx.x", "threadIdx.x"}, {"threadIdx.y", "threadIdx.y"}, {"threadIdx.z", "threadIdx.z"},
  {NULL, NULL},
};

/* C++ keywords C lacks, and CUDA's built-in names. */
static const char *const k_reserved[] = {
  "alignas", "alignof", "and", "and_eq", "bitand", "bitor", "catch", "char16_t", "char32_t", "char8_t", "class",
  "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return", "co_yield",
  "decltype", "delete", "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new", "noexcept",
  "not", "not_eq", "nullptr", "operator", "or", "or_eq", "protected", "public", "reinterpret_cast", "requires",
  "static_assert", "static_cast", "template", "this", "thread_local", "throw", "try", "typeid", "typename", "using",
  "virtual", "wchar_t", "xor", "xor_eq", "dim3", "float2", "float4", "uint2", "uint4", "int2", "int4", "atomicAdd",
  "atomicCAS", "atomicMax", "atomicMin", "min", "max", "exp2f", "log2f", "tanhf", "sinf", "cosf", "fabsf", "ceilf", "truncf", "roundf",
  "rsqrtf", "NULL", NULL,
};

/* Vectors of at most 16 bytes as one access: float2/float4 for float32, else
 * the unsigned vector of the same size (a reinterpretation of the bytes). */
static const tl__c_vector_type k_vector_types[] = {
  {"f32", (1u << 2) | (1u << 4), 0, NULL, "float$N"},
  {NULL, 0, 16, NULL, "uint4"},
  {NULL, 0, 8, NULL, "uint2"},
  {NULL, 0, 4, NULL, "unsigned int"},
  {NULL, 0, 2, NULL, "unsigned short"},
  {NULL, 0, 0, NULL, NULL},
};

/* `atomicAdd` where the hardware has it for the type, else a helper: 8- and 16-bit
 * integers add their two's complement low bits into the aligned word (wrapping as
 * the type does), 16-bit floats and float64 are compare-and-swap loops on archs
 * without the instruction. */
static const tl__c_atomic k_atomics[] = {
  {"f16", "tl_atomic_add_f16(&$D, $V);", "atomic_f16"},
  {"bf16", "tl_atomic_add_bf16(&$D, $V);", "atomic_bf16"},
  {"f64", "tl_atomic_add_f64(&$D, $V);", "atomic_f64"},
  {"f32", "atomicAdd(&$D, $V);", NULL},
  {"i8", "tl_atomic_add_bits(&$D, (unsigned int)($V), 8);", "atomic_bits"},
  {"u8", "tl_atomic_add_bits(&$D, (unsigned int)($V), 8);", "atomic_bits"},
  {"i16", "tl_atomic_add_bits(&$D, (unsigned int)($V), 16);", "atomic_bits"},
  {"u16", "tl_atomic_add_bits(&$D, (unsigned int)($V), 16);", "atomic_bits"},
  {"i64", "atomicAdd((unsigned long long *)&$D, (unsigned long long)($V));", NULL},
  {"u64", "atomicAdd((unsigned long long *)&$D, (unsigned long long)($V));", NULL},
  {"i32", "atomicAdd((unsigned int *)&$D, (unsigned int)($V));", NULL},
  {"u32", "atomicAdd((unsigned int *)&$D, (unsigned int)($V));", NULL},
  {NULL, NULL, NULL},
};

/* T.atomic_max / T.atomic_min: the hardware's on 32- and 64-bit integers, the
 * loops above on floats; other types have none (an error naming the op). */
#define TL__CUDA_ATOMIC_MINMAX(F, f)                                                                \
  {"f32", "tl_atomic_" f "_f32(&$D, $V);", "atomic_fminmax"},                                       \
    {"f64", "tl_atomic_" f "_f64(&$D, $V);", "atomic_fminmax"},                                     \
    {"i32", F "((int *)&$D, (int)($V));", NULL}, {"u32", F "((unsigned int *)&$D, (unsigned int)($V));", NULL}, \
    {"i64", F "((long long *)&$D, (long long)($V));", NULL},                                        \
    {"u64", F "((unsigned long long *)&$D, (unsigned long long)($V));", NULL}, {NULL, NULL, NULL}
static const tl__c_atomic k_atomic_max[] = {TL__CUDA_ATOMIC_MINMAX("atomicMax", "max")};
static const tl__c_atomic k_atomic_min[] = {TL__CUDA_ATOMIC_MINMAX("atomicMin", "min")};
#undef TL__CUDA_ATOMIC_MINMAX

/* The hardware builtins: a full-warp shuffle (every lane takes part, as the GPU
 * lowering's butterflies need). */
static const tl__c_builtin k_builtins[] = {
  {TL_OP_WARP_SHFL_XOR, "__shfl_xor_sync(0xffffffffu, %0, %1, %2)", NULL},
  {TL_OP__COUNT, NULL, NULL},
};

#define TL__CUDA_DIALECT(dialect_name, math_table)                                                                \
  {                                                                                                             \
    .name = dialect_name, .t_bool = "bool", .t_i8 = "signed char", .t_i16 = "short", .t_i32 = "int",             \
    .t_i64 = "long long", .t_u8 = "unsigned char", .t_u16 = "unsigned short", .t_u32 = "unsigned int",           \
    .t_u64 = "unsigned long long", .t_f32 = "float", .t_f64 = "double", .t_handle = "void *",                    \
    .f16 = {"__half", "float", "__half2float", "tl_f16_narrow", "tl_round_f16", "cuda_fp16", true},             \
    .bf16 = {"__nv_bfloat16", "float", "__bfloat162float", "tl_bf16_narrow", "tl_round_bf16", "cuda_bf16", true}, \
    .restrict_kw = "__restrict__", .global_space = "", .shared_space = "__shared__",                            \
    .kernel_prefix = "extern \"C\" __global__", .helper_prefix = "static __device__ __forceinline__",           \
    .thread_tags = k_thread_tags, .barrier = "__syncthreads();",                                                \
    .builtins = k_builtins, .array_align = "__align__(16)",                                                     \
    .dyn_shared_decl = "extern __shared__ __align__(16) unsigned char %s[];",                                   \
    .launch_bounds = "__launch_bounds__($N)", .max_block_threads = 1024, /* what ptxas sizes registers for */   \
    .wrap_signed_data = true, .reserved_words = k_reserved, .math = math_table,                                 \
    .vector_types = k_vector_types, .vector_read = "*($V *)$T = *(const $V *)&$S;",                             \
    .vector_write = "*($V *)&$D = *(const $V *)$T;", .atomic_add = k_atomics,                                   \
    .atomic_max = k_atomic_max, .atomic_min = k_atomic_min,                                                     \
    .unroll_pragma = "#pragma unroll", .helpers = k_helpers, .prelude = k_prelude,                              \
  }

const tl__c_dialect tl__c_dialect_cuda = TL__CUDA_DIALECT("cuda", k_math);
const tl__c_dialect tl__c_dialect_cuda_fast_math = TL__CUDA_DIALECT("cuda", k_fast_math);
