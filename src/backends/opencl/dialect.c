/* OpenCL C 1.2 as a plain-data dialect (plugin.h's tl_c_dialect), printed by the
 * library's C-family printer through the host table's c_device_artifact.
 *
 *   __kernel void f(__global const float *restrict A, ..., int n)
 *   blockIdx.x -> (int)get_group_id(0), threadIdx.x -> (int)get_local_id(0)
 *   shared buffers -> __local arrays; barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
 *   vectors -> vload4/vstore4 (any address space, element alignment)
 *
 * float16 and bfloat16 are stored as ushort and computed in float (cl_khr_fp16 is
 * often missing, PoCL's CPU device among them): the helpers below convert with
 * round-to-nearest-even, bit for bit as the interpreter (src/base/fp16.c), so a
 * kernel computes what the interpreter computes. Floats add atomically through
 * atomic_cmpxchg loops (16-bit ones on their aligned 32-bit word). The prelude turns
 * FP contraction off: lowered code means one rounding per operation. */
#include "opencl.h"

static const char k_prelude[] =
  "#pragma OPENCL FP_CONTRACT OFF\n"
  "#ifdef cl_khr_fp64\n"
  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
  "#endif\n"
  "#ifdef cl_khr_int64_base_atomics\n"
  "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
  "#endif\n";

/* float <-> the 16-bit types' bits, rounding to nearest even (overflow to infinity,
 * subnormals kept, NaN quieted keeping its leading payload bits). */
static const char k_fp16[] =
  "$F ushort tl_f16_from_f32(float x) {\n"
  "  uint u = as_uint(x);\n"
  "  uint sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, m = u & 0x7fffffu;\n"
  "  if (e == 0xffu) return (ushort)(sign | 0x7c00u | (m ? 0x200u | (m >> 13) : 0u));\n"
  "  if (e == 0u) return (ushort)sign;\n"
  "  int E = (int)e - 127 + 15, shift = 13;\n"
  "  if (E >= 31) return (ushort)(sign | 0x7c00u);\n"
  "  if (E < 1) shift += 1 - E;\n"
  "  if (shift > 24) return (ushort)sign;\n"
  "  uint sig = m | 0x800000u, q = sig >> shift, rem = sig & ((1u << shift) - 1u), half_ = 1u << (shift - 1);\n"
  "  if (rem > half_ || (rem == half_ && (q & 1u))) q++;\n"
  "  if (E < 1) return (ushort)(sign | q);\n"
  "  return (ushort)(sign | (((uint)(E - 1) << 10) + q));\n"
  "}\n"
  "$F float tl_f16_to_f32(ushort h) {\n"
  "  uint sign = (uint)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;\n"
  "  if (e == 0x1fu) u = sign | 0x7f800000u | (m ? 0x400000u | (m << 13) : 0u);\n"
  "  else if (e) u = sign | ((e + 112u) << 23) | (m << 13);\n"
  "  else if (!m) u = sign;\n"
  "  else {\n"
  "    for (e = 113u; !(m & 0x400u); e--) m <<= 1;\n"
  "    u = sign | (e << 23) | ((m & 0x3ffu) << 13);\n"
  "  }\n"
  "  return as_float(u);\n"
  "}\n"
  "$F float tl_round_f16(float x) { return tl_f16_to_f32(tl_f16_from_f32(x)); }\n"
  "$F ushort tl_bf16_from_f32(float x) {\n"
  "  uint u = as_uint(x);\n"
  "  if ((u & 0x7f800000u) == 0x7f800000u) return (ushort)((u >> 16) | ((u & 0x7fffffu) ? 0x40u : 0u));\n"
  "  u += 0x7fffu + ((u >> 16) & 1u);\n"
  "  return (ushort)(u >> 16);\n"
  "}\n"
  "$F float tl_bf16_to_f32(ushort h) {\n"
  "  uint u = (uint)h << 16;\n"
  "  if ((h & 0x7f80u) == 0x7f80u && (h & 0x7fu)) u |= 0x400000u;\n"
  "  return as_float(u);\n"
  "}\n"
  "$F float tl_round_bf16(float x) { return tl_bf16_to_f32(tl_bf16_from_f32(x)); }\n";

/* Atomic adds the OpenCL 1.2 builtins lack: floats through compare-and-swap on
 * their bits; 16-bit floats on the aligned 32-bit word that holds them. One
 * function per address space (OpenCL 1.2 has no generic pointers). */
#define TLP_ATOMIC_F32(SPACE, WORD)                                                                    \
  "$F void tl_atomic_add_f32_" WORD "(volatile " SPACE " float *p, float v) {\n"                       \
  "  uint old = as_uint(*p), assumed;\n"                                                               \
  "  do {\n"                                                                                           \
  "    assumed = old;\n"                                                                               \
  "    old = atomic_cmpxchg((volatile " SPACE " uint *)p, assumed, as_uint(as_float(assumed) + v));\n"  \
  "  } while (old != assumed);\n"                                                                      \
  "}\n"
#define TLP_ATOMIC_HALF(SPACE, WORD, T, FROM, TO)                                                       \
  "$F void tl_atomic_add_" T "_" WORD "(volatile " SPACE " ushort *p, float v) {\n"                    \
  "  volatile " SPACE " uint *w = (volatile " SPACE " uint *)((size_t)p & ~(size_t)3);\n"              \
  "#ifdef __ENDIAN_LITTLE__\n"                                                                         \
  "  uint shift = ((size_t)p & 2) ? 16u : 0u;\n"                                                       \
  "#else\n"                                                                                            \
  "  uint shift = ((size_t)p & 2) ? 0u : 16u;\n"                                                       \
  "#endif\n"                                                                                           \
  "  uint old = *w, assumed;\n"                                                                        \
  "  do {\n"                                                                                           \
  "    assumed = old;\n"                                                                               \
  "    ushort next = " FROM "(" TO "((ushort)(assumed >> shift)) + v);\n"                              \
  "    old = atomic_cmpxchg(w, assumed, (assumed & ~(0xffffu << shift)) | ((uint)next << shift));\n"   \
  "  } while (old != assumed);\n"                                                                      \
  "}\n"

static const char k_atomics[] =
  TLP_ATOMIC_F32("__global", "global") TLP_ATOMIC_F32("__local", "shared")
  TLP_ATOMIC_HALF("__global", "global", "f16", "tl_f16_from_f32", "tl_f16_to_f32")
  TLP_ATOMIC_HALF("__local", "shared", "f16", "tl_f16_from_f32", "tl_f16_to_f32")
  TLP_ATOMIC_HALF("__global", "global", "bf16", "tl_bf16_from_f32", "tl_bf16_to_f32")
  TLP_ATOMIC_HALF("__local", "shared", "bf16", "tl_bf16_from_f32", "tl_bf16_to_f32")
  "#ifdef cl_khr_int64_base_atomics\n"
  "$F void tl_atomic_add_f64_global(volatile __global double *p, double v) {\n"
  "  ulong old = as_ulong(*p), assumed;\n"
  "  do {\n"
  "    assumed = old;\n"
  "    old = atom_cmpxchg((volatile __global ulong *)p, assumed, as_ulong(as_double(assumed) + v));\n"
  "  } while (old != assumed);\n"
  "}\n"
  "#endif\n";

/* T.atomic_max / T.atomic_min on float32: compare-and-swap loops storing the
 * interpreter's max (min): NaN if either is NaN, else the larger (smaller), the
 * value on a tie. */
#define TLP_ATOMIC_FMINMAX(NAME, SPACE, WORD, CMP)                                          \
  "$F void tl_atomic_" NAME "_f32_" WORD "(volatile " SPACE " float *p, float v) {\n"       \
  "  uint old = as_uint(*p), assumed;\n"                                                    \
  "  do {\n"                                                                                \
  "    assumed = old;\n"                                                                    \
  "    float cur = as_float(assumed);\n"                                                    \
  "    if ((cur " CMP " v && v == v) || cur != cur) return;\n"                              \
  "    old = atomic_cmpxchg((volatile " SPACE " uint *)p, assumed, as_uint(v));\n"          \
  "  } while (old != assumed);\n"                                                           \
  "}\n"
static const char k_atomic_minmax[] =
  TLP_ATOMIC_FMINMAX("max", "__global", "global", ">") TLP_ATOMIC_FMINMAX("max", "__local", "shared", ">")
  TLP_ATOMIC_FMINMAX("min", "__global", "global", "<") TLP_ATOMIC_FMINMAX("min", "__local", "shared", "<");
#undef TLP_ATOMIC_FMINMAX

static const tl_c_helper k_helpers[] = {
  {"fp16", false, NULL, k_fp16},
  {"atomics", false, "fp16", k_atomics},
  {"atomic_minmax", false, NULL, k_atomic_minmax},
  {NULL, false, NULL, NULL},
};

/* OpenCL's math builtins are overloaded for float and double. */
static const tl_c_math k_math[] = {
  {"T.exp", "exp(%0)", "exp(%0)", NULL},
  {"T.exp2", "exp2(%0)", "exp2(%0)", NULL},
  {"T.log", "log(%0)", "log(%0)", NULL},
  {"T.log2", "log2(%0)", "log2(%0)", NULL},
  {"T.sqrt", "sqrt(%0)", "sqrt(%0)", NULL},
  {"T.rsqrt", "(1.0f / sqrt(%0))", "(1.0 / sqrt(%0))", NULL},
  {"T.tanh", "tanh(%0)", "tanh(%0)", NULL},
  {"T.sigmoid", "(1.0f / (1.0f + exp(-(%0))))", "(1.0 / (1.0 + exp(-(%0))))", NULL},
  {"T.pow", "pow(%0, %1)", "pow(%0, %1)", NULL},
  {"T.fma", "fma(%0, %1, %2)", "fma(%0, %1, %2)", NULL},
  {"T.floor", "floor(%0)", "floor(%0)", NULL},
  {"T.ceil", "ceil(%0)", "ceil(%0)", NULL},
  {"T.round", "round(%0)", "round(%0)", NULL}, /* half away from zero (rint rounds to even) */
  {"T.trunc", "trunc(%0)", "trunc(%0)", NULL},
  {"T.sin", "sin(%0)", "sin(%0)", NULL},
  {"T.cos", "cos(%0)", "cos(%0)", NULL},
  {"T.abs", "fabs(%0)", "fabs(%0)", NULL},
  {"T.erf", "erf(%0)", "erf(%0)", NULL},
  {"T.log10", "log10(%0)", "log10(%0)", NULL},
  {"T.log1p", "log1p(%0)", "log1p(%0)", NULL},
  {"T.expm1", "expm1(%0)", "expm1(%0)", NULL},
  {"T.tan", "tan(%0)", "tan(%0)", NULL},
  {"T.fmod", "fmod(%0, %1)", "fmod(%0, %1)", NULL},
  {NULL, NULL, NULL, NULL},
};

static const tl_c_pair k_tags[] = {
  {"blockIdx.x", "(int)get_group_id(0)"},  {"blockIdx.y", "(int)get_group_id(1)"},
  {"blockIdx.z", "(int)get_group_id(2)"},  {"threadIdx.x", "(int)get_local_id(0)"},
  {"threadIdx.y", "(int)get_local_id(1)"}, {"threadIdx.z", "(int)get_local_id(2)"},
  {NULL, NULL},
};

static const tl_c_pair k_vector_bases[] = {
  {"i8", "char"},  {"u8", "uchar"}, {"i16", "short"},  {"u16", "ushort"}, {"i32", "int"},     {"u32", "uint"},
  {"i64", "long"}, {"u64", "ulong"}, {"f32", "float"}, {"f64", "double"}, {"f16", "ushort"}, {"bf16", "ushort"},
  {NULL, NULL},
};

static const tl_c_pair k_atomic_templates[] = {
  {"i32", "atomic_add(&$D, $V);"},
  {"u32", "atomic_add(&$D, $V);"},
  {"i64", "atom_add(&$D, $V);"},
  {"u64", "atom_add(&$D, $V);"},
  {"f32", "tl_atomic_add_f32_$a(&$D, $V);"},
  {"f64", "tl_atomic_add_f64_$a(&$D, $V);"},
  {"f16", "tl_atomic_add_f16_$a(&$D, $V);"},
  {"bf16", "tl_atomic_add_bf16_$a(&$D, $V);"},
  {NULL, NULL},
};

/* T.atomic_max / T.atomic_min: the 32-bit integer builtins, float32 through the
 * loops above; other types have none (an error naming the op). */
static const tl_c_pair k_atomic_max[] = {
  {"i32", "atomic_max(&$D, $V);"}, {"u32", "atomic_max(&$D, $V);"}, {"f32", "tl_atomic_max_f32_$a(&$D, $V);"},
  {NULL, NULL},
};
static const tl_c_pair k_atomic_min[] = {
  {"i32", "atomic_min(&$D, $V);"}, {"u32", "atomic_min(&$D, $V);"}, {"f32", "tl_atomic_min_f32_$a(&$D, $V);"},
  {NULL, NULL},
};

/* OpenCL C's words and built-ins a variable must not shadow (a variable named
 * `barrier` would hide the function in its scope). */
static const char *const k_reserved[] = {
  "__kernel", "__global", "__local", "__constant", "__private", "read_only", "write_only", "read_write", "uchar",
  "ushort", "uint", "ulong", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "image2d_t", "sampler_t", "event_t",
  "barrier", "mem_fence", "get_group_id", "get_local_id", "get_global_id", "get_local_size", "get_num_groups",
  "vload2", "vload4", "vload8", "vload16", "vstore2", "vstore4", "vstore8", "vstore16", "as_uint", "as_float",
  "as_ulong", "as_double", "atomic_add", "atomic_cmpxchg", "atomic_max", "atomic_min", "atom_add", "atom_cmpxchg", "min", "max", "clamp",
  "select", "mad", "rsqrt", "char2", "char4", "char8", "char16", "uchar2", "uchar4", "uchar8", "uchar16", "short2",
  "short4", "short8", "short16", "ushort2", "ushort4", "ushort8", "ushort16", "int2", "int4", "int8", "int16",
  "uint2", "uint4", "uint8", "uint16", "long2", "long4", "long8", "long16", "ulong2", "ulong4", "ulong8", "ulong16",
  "float2", "float4", "float8", "float16", "double2", "double4", "double8", "double16", NULL,
};

const tl_c_dialect tlp_opencl_dialect = {
  .struct_size = sizeof(tl_c_dialect),
  .name = "opencl",
  .wrap_signed_data = true, /* no -fwrapv: signed data arithmetic through the unsigned type */
  .reserved_words = k_reserved,
  .t_bool = "bool", .t_i8 = "char", .t_i16 = "short", .t_i32 = "int", .t_i64 = "long",
  .t_u8 = "uchar", .t_u16 = "ushort", .t_u32 = "uint", .t_u64 = "ulong",
  .t_f32 = "float", .t_f64 = "double", .t_handle = "void *",
  .f16 = {"ushort", "float", "tl_f16_to_f32", "tl_f16_from_f32", "tl_round_f16", "fp16"},
  .bf16 = {"ushort", "float", "tl_bf16_to_f32", "tl_bf16_from_f32", "tl_round_bf16", "fp16"},
  .t_wide = "float",          /* no double needed (rounding twice through float is exact for 16 bits) */
  .wide_suffix = "f",
  .t_bool_param = "int",      /* bool is not a valid kernel argument type */
  .int64_suffix = "L",
  .uint64_suffix = "UL",
  .restrict_kw = "restrict",
  .global_space = "__global",
  .shared_space = "__local",
  .kernel_prefix = "__kernel",
  .helper_prefix = "static inline",
  .shared_array = "__local $T $N[$C] __attribute__((aligned(16)));",
  .local_array = "$T $N[$C] __attribute__((aligned(16)));",
  .thread_tags = k_tags,
  .barrier = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
  .math = k_math,
  .warp_shfl_xor = NULL, /* lowered with warp size 1: reductions through __local memory */
  .vector_type = "$B$N",
  .vector_bases = k_vector_bases,
  .vector_lanes = (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16),
  .vector_copy = "vstore$N(vload$N(0, &$S), 0, &$D);",
  .atomic_add = k_atomic_templates,
  .atomic_helper = "atomics",
  .helpers = k_helpers,
  .prelude = k_prelude,
  .atomic_max = k_atomic_max,
  .atomic_min = k_atomic_min,
  .atomic_minmax_helper = "atomic_minmax",
};
