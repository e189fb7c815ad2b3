/* The Metal Shading Language dialect, as plain data (plugin.h's tl_c_dialect).
 *
 * A kernel is `kernel void f(device const float *A [[buffer(0)]], ..., constant
 * int &n [[buffer(k)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3
 * threadIdx [[thread_position_in_threadgroup]])`: tensors and scalars are buffer
 * arguments in parameter order (the kernel table's order), the block and thread
 * positions come as attributes. Shared memory is `threadgroup`, the barrier
 * threadgroup_barrier (ordering threadgroup and device memory, as the IR's barrier
 * does), warp shuffles simd_shuffle_xor. float16 and bfloat16 live in memory as
 * half and bfloat (MSL 3.1) and are computed in float, rounded after every
 * operation; Metal has no double, so exact intermediates go through float (exact
 * for 16-bit results) and float64 is refused. Math uses the precise:: functions,
 * since Metal compiles with fast math by default. */
#include "codegen/gpu_dialects.h"

static const char k_prelude[] =
  "#include <metal_stdlib>\n"
  "using namespace metal;\n";

/* Separate sections: bfloat needs MSL 3.1, half does not. */
static const char k_fp16[] = "$F float tl_round_f16(float x) { return float(half(x)); }\n";
static const char k_bf16[] = "$F float tl_round_bf16(float x) { return float(bfloat(x)); }\n";

static const tl_c_helper k_helpers[] = {
  {"fp16", false, NULL, k_fp16},
  {"bf16", false, NULL, k_bf16},
  {NULL, false, NULL, NULL},
};

static const tl_c_math k_math[] = {
  {"T.exp", "precise::exp(%0)", NULL, NULL},
  {"T.exp2", "precise::exp2(%0)", NULL, NULL},
  {"T.log", "precise::log(%0)", NULL, NULL},
  {"T.log2", "precise::log2(%0)", NULL, NULL},
  {"T.sqrt", "precise::sqrt(%0)", NULL, NULL},
  {"T.rsqrt", "(1.0f / precise::sqrt(%0))", NULL, NULL},
  {"T.tanh", "precise::tanh(%0)", NULL, NULL},
  {"T.sigmoid", "(1.0f / (1.0f + precise::exp(-(%0))))", NULL, NULL},
  {"T.pow", "precise::pow(%0, %1)", NULL, NULL},
  {"T.fma", "fma(%0, %1, %2)", NULL, NULL},
  {"T.floor", "floor(%0)", NULL, NULL},
  {"T.ceil", "ceil(%0)", NULL, NULL},
  {"T.round", "round(%0)", NULL, NULL}, /* half away from zero (rint rounds to even) */
  {"T.trunc", "trunc(%0)", NULL, NULL},
  {"T.sin", "precise::sin(%0)", NULL, NULL},
  {"T.cos", "precise::cos(%0)", NULL, NULL},
  {"T.abs", "fabs(%0)", NULL, NULL},
  {"T.log10", "precise::log10(%0)", NULL, NULL},
  {"T.tan", "precise::tan(%0)", NULL, NULL},
  {"T.fmod", "fmod(%0, %1)", NULL, NULL},
  {NULL, NULL, NULL, NULL},
};

static const tl_c_pair k_tags[] = {
  {"blockIdx.x", "(int)blockIdx.x"},   {"blockIdx.y", "(int)blockIdx.y"},   {"blockIdx.z", "(int)blockIdx.z"},
  {"threadIdx.x", "(int)threadIdx.x"}, {"threadIdx.y", "(int)threadIdx.y"}, {"threadIdx.z", "(int)threadIdx.z"},
  {NULL, NULL},
};

static const tl_c_pair k_vector_bases[] = {
  {"i8", "char"},  {"u8", "uchar"}, {"i16", "short"}, {"u16", "ushort"}, {"i32", "int"},     {"u32", "uint"},
  {"i64", "long"}, {"u64", "ulong"}, {"f32", "float"}, {"f16", "half"},   {"bf16", "bfloat"}, {NULL, NULL},
};

static const tl_c_pair k_atomics[] = {
  {"i32", "atomic_fetch_add_explicit(($A atomic_int *)&$D, $V, memory_order_relaxed);"},
  {"u32", "atomic_fetch_add_explicit(($A atomic_uint *)&$D, $V, memory_order_relaxed);"},
  {"f32", "atomic_fetch_add_explicit(($A atomic_float *)&$D, $V, memory_order_relaxed);"},
  {NULL, NULL},
};

/* C++ keywords and Metal names a variable must not shadow. */
static const char *const k_reserved[] = {
  "alignas", "alignof", "and", "and_eq", "bitand", "bitor", "catch", "class", "compl", "constexpr",
  "const_cast", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new",
  "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "protected", "public", "reinterpret_cast",
  "static_assert", "static_cast", "template", "this", "thread_local", "throw", "try", "typeid", "typename", "using",
  "virtual", "wchar_t", "xor", "xor_eq",
  "metal", "precise", "fast", "half", "bfloat", "uint3", "uchar", "ushort", "uint", "ulong", "char2", "char4",
  "uchar2", "uchar4", "short2", "short4", "ushort2", "ushort4", "int2", "int4", "uint2", "uint4", "long2", "long4",
  "ulong2", "ulong4", "float2", "float4", "half2", "half4", "bfloat2", "bfloat4", "simd_shuffle_xor",
  "threadgroup_barrier", "mem_flags", "atomic_int", "atomic_uint", "atomic_float", "atomic_fetch_add_explicit",
  "memory_order_relaxed", "min", "max", NULL,
};

const tl_c_dialect tl__c_dialect_metal = {
  .struct_size = sizeof(tl_c_dialect),
  .name = "metal",
  .wrap_signed_data = true, /* no -fwrapv: signed data arithmetic through the unsigned type */
  .reserved_words = k_reserved,
  .t_bool = "bool", .t_i8 = "char", .t_i16 = "short", .t_i32 = "int", .t_i64 = "long",
  .t_u8 = "uchar", .t_u16 = "ushort", .t_u32 = "uint", .t_u64 = "ulong",
  .t_f32 = "float", .t_f64 = NULL, .t_handle = NULL,
  .f16 = {"half", "float", "float", "half", "tl_round_f16", "fp16"},
  .bf16 = {"bfloat", "float", "float", "bfloat", "tl_round_bf16", "bf16"},
  .t_wide = "float",
  .wide_suffix = "f",
  .int64_suffix = "L",
  .uint64_suffix = "UL",
  .global_space = "device",
  .shared_space = "threadgroup",
  .local_space = "thread",
  .kernel_prefix = "kernel",
  .helper_prefix = "static inline",
  .buffer_param = "$G$C$T *$N [[buffer($I)]]",
  .scalar_param = "constant $T &$N [[buffer($I)]]",
  .extra_params = "uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]",
  .shared_array = "threadgroup $T $N[$C] __attribute__((aligned(16)));",
  .local_array = "$T $N[$C] __attribute__((aligned(16)));",
  .thread_tags = k_tags,
  .barrier = "threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);",
  .math = k_math,
  .warp_shfl_xor = "simd_shuffle_xor(%0, (ushort)(%1))",
  .vector_type = "$B$N",
  .vector_bases = k_vector_bases,
  .vector_lanes = (1u << 2) | (1u << 4),
  .vector_copy = "*($DA $V *)&$D = *($SA const $V *)&$S;",
  .atomic_add = k_atomics,
  .helpers = k_helpers,
  .prelude = k_prelude,
};
