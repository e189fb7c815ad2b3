/* The HIP dialect (AMD GPUs through ROCm), as plain data (plugin.h's tl_c_dialect):
 * CUDA's C++ with HIP's names. What HIP shares with CUDA (the math table, the
 * kernel and helper prefixes, __shared__, __syncthreads) is spelled the same;
 * warp shuffles are __shfl_xor(v, mask, width) without CUDA's sync mask (a
 * wavefront is 64 lanes on gfx9, 32 on gfx10 and later: the lowering's warp size
 * comes from the target). float16 and bfloat16 live in memory as __half and
 * __hip_bfloat16 (hip_fp16.h, hip_bf16.h) and are computed in float, rounded back
 * after every operation as the interpreter does. */
#include "codegen/gpu_dialects.h"

static const char k_prelude[] =
  "#include <hip/hip_runtime.h>\n"
  "#include <hip/hip_fp16.h>\n"
  "#include <hip/hip_bf16.h>\n"
  "#include <math.h>\n"
  "#include <stdint.h>\n";

/* Rounding a float to the 16-bit types' values (to nearest even). */
static const char k_fp16[] =
  "$F float tl_round_f16(float x) { return __half2float(__float2half_rn(x)); }\n"
  "$F float tl_round_bf16(float x) { return __bfloat162float(__float2bfloat16(x)); }\n";

static const tl_c_helper k_helpers[] = {
  {"fp16", false, NULL, k_fp16},
  {NULL, false, NULL, NULL},
};

/* The CUDA math library's names, which HIP provides for device code. */
static const tl_c_math k_math[] = {
  {"T.exp", "expf(%0)", "exp(%0)", NULL},
  {"T.exp2", "exp2f(%0)", "exp2(%0)", NULL},
  {"T.log", "logf(%0)", "log(%0)", NULL},
  {"T.log2", "log2f(%0)", "log2(%0)", NULL},
  {"T.sqrt", "sqrtf(%0)", "sqrt(%0)", NULL},
  {"T.rsqrt", "(1.0f / sqrtf(%0))", "(1.0 / sqrt(%0))", NULL},
  {"T.tanh", "tanhf(%0)", "tanh(%0)", NULL},
  {"T.sigmoid", "(1.0f / (1.0f + expf(-(%0))))", "(1.0 / (1.0 + exp(-(%0))))", NULL},
  {"T.pow", "powf(%0, %1)", "pow(%0, %1)", NULL},
  {"T.fma", "fmaf(%0, %1, %2)", "fma(%0, %1, %2)", NULL},
  {"T.floor", "floorf(%0)", "floor(%0)", NULL},
  {"T.ceil", "ceilf(%0)", "ceil(%0)", NULL},
  {"T.round", "roundf(%0)", "round(%0)", NULL}, /* half away from zero */
  {"T.trunc", "truncf(%0)", "trunc(%0)", NULL},
  {"T.sin", "sinf(%0)", "sin(%0)", NULL},
  {"T.cos", "cosf(%0)", "cos(%0)", NULL},
  {"T.abs", "fabsf(%0)", "fabs(%0)", NULL},
  {"T.erf", "erff(%0)", "erf(%0)", NULL},
  {"T.log10", "log10f(%0)", "log10(%0)", NULL},
  {"T.log1p", "log1pf(%0)", "log1p(%0)", NULL},
  {"T.expm1", "expm1f(%0)", "expm1(%0)", NULL},
  {"T.tan", "tanf(%0)", "tan(%0)", NULL},
  {"T.fmod", "fmodf(%0, %1)", "fmod(%0, %1)", NULL},
  {NULL, NULL, NULL, NULL},
};

static const tl_c_pair k_tags[] = {
  {"blockIdx.x", "(int)blockIdx.x"},   {"blockIdx.y", "(int)blockIdx.y"},   {"blockIdx.z", "(int)blockIdx.z"},
  {"threadIdx.x", "(int)threadIdx.x"}, {"threadIdx.y", "(int)threadIdx.y"}, {"threadIdx.z", "(int)threadIdx.z"},
  {NULL, NULL},
};

/* HIP's vector types (hip_vector_type.h); 16-bit floats are copied as bits. */
static const tl_c_pair k_vector_bases[] = {
  {"i8", "char"},  {"u8", "uchar"},    {"i16", "short"},      {"u16", "ushort"}, {"i32", "int"},
  {"u32", "uint"}, {"i64", "longlong"}, {"u64", "ulonglong"}, {"f32", "float"},  {"f64", "double"},
  {"f16", "ushort"}, {"bf16", "ushort"}, {NULL, NULL},
};

static const tl_c_pair k_atomics[] = {
  {"i32", "atomicAdd(&$D, $V);"},
  {"u32", "atomicAdd(&$D, $V);"},
  {"u64", "atomicAdd((unsigned long long *)&$D, (unsigned long long)($V));"},
  {"f32", "atomicAdd(&$D, $V);"},
  {"f64", "atomicAdd(&$D, $V);"},
  {NULL, NULL},
};

/* C++ keywords and HIP names a variable must not shadow. */
static const char *const k_reserved[] = {
  "alignas", "alignof", "and", "and_eq", "bitand", "bitor", "catch", "class", "compl", "constexpr",
  "const_cast", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new",
  "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "protected", "public", "reinterpret_cast",
  "static_assert", "static_cast", "template", "this", "thread_local", "throw", "try", "typeid", "typename", "using",
  "virtual", "wchar_t", "xor", "xor_eq",
  "dim3", "min", "max", "atomicAdd", "char2", "char4", "uchar2", "uchar4", "short2", "short4", "ushort2", "ushort4",
  "int2", "int4", "uint2", "uint4", "longlong2", "longlong4", "ulonglong2", "ulonglong4", "float2", "float4",
  "double2", "double4", "uint", "ushort", "uchar", NULL,
};

const tl_c_dialect tl__c_dialect_hip = {
  .struct_size = sizeof(tl_c_dialect),
  .name = "hip",
  .wrap_signed_data = true, /* no -fwrapv: signed data arithmetic through the unsigned type */
  .reserved_words = k_reserved,
  .t_bool = "bool", .t_i8 = "int8_t", .t_i16 = "int16_t", .t_i32 = "int32_t", .t_i64 = "int64_t",
  .t_u8 = "uint8_t", .t_u16 = "uint16_t", .t_u32 = "uint32_t", .t_u64 = "uint64_t",
  .t_f32 = "float", .t_f64 = "double", .t_handle = "void *",
  .f16 = {"__half", "float", "__half2float", "__float2half_rn", "tl_round_f16", "fp16"},
  .bf16 = {"__hip_bfloat16", "float", "__bfloat162float", "__float2bfloat16", "tl_round_bf16", "fp16"},
  .restrict_kw = "__restrict__",
  .kernel_prefix = "extern \"C\" __global__",
  .helper_prefix = "static inline __device__",
  .shared_space = "__shared__",
  .shared_array = "__shared__ $T $N[$C] __attribute__((aligned(16)));",
  .local_array = "$T $N[$C] __attribute__((aligned(16)));",
  .thread_tags = k_tags,
  .barrier = "__syncthreads();",
  .math = k_math,
  .warp_shfl_xor = "__shfl_xor(%0, %1, %2)",
  .vector_type = "$B$N",
  .vector_bases = k_vector_bases,
  .vector_lanes = (1u << 2) | (1u << 4),
  .atomic_add = k_atomics,
  .unroll_pragma = "#pragma unroll",
  .helpers = k_helpers,
  .prelude = k_prelude,
};
