/* The target kinds: one table of designated initialisers, as TVM's
 * src/target/target_kind.cc declares them (apache/tvm 561ead95, plus the TileLang
 * fork's `hip` kind and cuda `code` option). Declaration order matters: it is the
 * order of attributes in the JSON text. */
#include "kinds.h"

#include <string.h>

#define OPT(n, t) {n, t, false, 0, NULL}
#define OPT_INT_D(n, d) {n, TL__OPT_INT, true, d, #d}
#define OPT_BOOL_D(n, d) {n, TL__OPT_BOOL, true, d, #d}
#define END {NULL, TL__OPT_INT, false, 0, NULL}

/* DLPack device types (dlpack.h DLDeviceType). */
enum { DL_CPU = 1, DL_CUDA = 2, DL_OPENCL = 4, DL_VULKAN = 7, DL_METAL = 8, DL_ROCM = 10, DL_WEBGPU = 15 };

const tl__target_option tl__target_common_options[] = {
  OPT("kind", TL__OPT_STR),
  OPT("keys", TL__OPT_STR_ARRAY),
  OPT("tag", TL__OPT_STR),
  OPT("device", TL__OPT_STR),
  OPT("model", TL__OPT_STR),
  OPT("libs", TL__OPT_STR_ARRAY),
  OPT("host", TL__OPT_TARGET),
  OPT("from_device", TL__OPT_INT),
  OPT("target_device_type", TL__OPT_INT),
  END,
};

static const tl__target_option c_options[] = {
  OPT("mcpu", TL__OPT_STR),
  OPT("march", TL__OPT_STR),
  OPT("workspace-byte-alignment", TL__OPT_INT),
  OPT("constants-byte-alignment", TL__OPT_INT),
  END,
};

static const tl__target_option llvm_options[] = {
  OPT("mattr", TL__OPT_STR_ARRAY),
  OPT("mcpu", TL__OPT_STR),
  OPT("mtriple", TL__OPT_STR),
  OPT("mfloat-abi", TL__OPT_STR),
  OPT("mabi", TL__OPT_STR),
  OPT("num-cores", TL__OPT_INT),
  OPT("fast-math", TL__OPT_BOOL),
  OPT("fast-math-nnan", TL__OPT_BOOL),
  OPT("fast-math-ninf", TL__OPT_BOOL),
  OPT("fast-math-nsz", TL__OPT_BOOL),
  OPT("fast-math-arcp", TL__OPT_BOOL),
  OPT("fast-math-contract", TL__OPT_BOOL),
  OPT("fast-math-reassoc", TL__OPT_BOOL),
  OPT("opt-level", TL__OPT_INT),
  OPT("cl-opt", TL__OPT_STR_ARRAY),
  OPT("jit", TL__OPT_STR),
  OPT("vector-width", TL__OPT_INT),
  END,
};

static const tl__target_option cuda_options[] = {
  OPT("mcpu", TL__OPT_STR),
  OPT("arch", TL__OPT_STR),
  OPT("code", TL__OPT_STR_ARRAY), /* TileLang's fork only */
  OPT("max_shared_memory_per_block", TL__OPT_INT),
  OPT("max_threads_per_block", TL__OPT_INT),
  OPT_INT_D("thread_warp_size", 32),
  OPT("registers_per_block", TL__OPT_INT),
  OPT("l2_cache_size_bytes", TL__OPT_INT),
  OPT_INT_D("max_num_threads", 1024),
  END,
};

/* The fork registers hip's intended defaults (256/256/65536/64) as raw values,
 * which TVM's ConfigSchema ignores: hip has no defaults (TARGETS.md 2.4). */
static const tl__target_option hip_options[] = {
  OPT("mcpu", TL__OPT_STR),
  OPT("mtriple", TL__OPT_STR),
  OPT("mattr", TL__OPT_STR_ARRAY),
  OPT("max_num_threads", TL__OPT_INT),
  OPT("max_threads_per_block", TL__OPT_INT),
  OPT("max_shared_memory_per_block", TL__OPT_INT),
  OPT("thread_warp_size", TL__OPT_INT),
  END,
};

static const tl__target_option rocm_options[] = {
  OPT("mcpu", TL__OPT_STR),
  OPT("mtriple", TL__OPT_STR),
  OPT("mattr", TL__OPT_STR_ARRAY),
  OPT_INT_D("max_num_threads", 256),
  OPT_INT_D("max_threads_per_block", 256),
  OPT_INT_D("max_shared_memory_per_block", 65536),
  OPT_INT_D("thread_warp_size", 64),
  END,
};

static const tl__target_option metal_options[] = {
  OPT_INT_D("max_num_threads", 256),
  OPT_INT_D("max_threads_per_block", 256),
  OPT_INT_D("max_shared_memory_per_block", 32768),
  OPT_INT_D("thread_warp_size", 16),
  OPT_INT_D("max_function_args", 31),
  END,
};

static const tl__target_option webgpu_options[] = {
  OPT_INT_D("max_num_threads", 256),
  OPT_BOOL_D("supports_subgroups", false),
  OPT_INT_D("thread_warp_size", 1),
  END,
};

static const tl__target_option opencl_options[] = {
  OPT_INT_D("max_threads_per_block", 256),
  OPT_INT_D("max_shared_memory_per_block", 16384),
  OPT_INT_D("max_num_threads", 256),
  OPT_INT_D("thread_warp_size", 1),
  OPT_INT_D("texture_spatial_limit", 16384),
  OPT_INT_D("texture_depth_limit", 2048),
  OPT_INT_D("max_function_args", 128),
  OPT_INT_D("image_base_address_alignment", 64),
  END,
};

static const tl__target_option vulkan_options[] = {
  OPT("mattr", TL__OPT_STR_ARRAY),
  OPT("supports_float16", TL__OPT_BOOL),
  OPT_BOOL_D("supports_float32", true),
  OPT("supports_float64", TL__OPT_BOOL),
  OPT("supports_int8", TL__OPT_BOOL),
  OPT("supports_int16", TL__OPT_BOOL),
  OPT_BOOL_D("supports_int32", true),
  OPT("supports_int64", TL__OPT_BOOL),
  OPT("supports_8bit_buffer", TL__OPT_BOOL),
  OPT("supports_16bit_buffer", TL__OPT_BOOL),
  OPT("supports_storage_buffer_storage_class", TL__OPT_BOOL),
  OPT("supports_push_descriptor", TL__OPT_BOOL),
  OPT("supports_dedicated_allocation", TL__OPT_BOOL),
  OPT("supports_integer_dot_product", TL__OPT_BOOL),
  OPT("supports_cooperative_matrix", TL__OPT_BOOL),
  OPT("supported_subgroup_operations", TL__OPT_INT),
  OPT_INT_D("max_num_threads", 256),
  OPT_INT_D("max_threads_per_block", 256),
  OPT_INT_D("thread_warp_size", 1),
  OPT("max_block_size_x", TL__OPT_INT),
  OPT("max_block_size_y", TL__OPT_INT),
  OPT("max_block_size_z", TL__OPT_INT),
  OPT("max_push_constants_size", TL__OPT_INT),
  OPT("max_uniform_buffer_range", TL__OPT_INT),
  OPT("max_storage_buffer_range", TL__OPT_INT),
  OPT("max_per_stage_descriptor_storage_buffer", TL__OPT_INT),
  OPT("max_shared_memory_per_block", TL__OPT_INT),
  OPT("device_type", TL__OPT_STR),
  OPT("device_name", TL__OPT_STR),
  OPT("driver_name", TL__OPT_STR),
  OPT("driver_version", TL__OPT_INT),
  OPT("vulkan_api_version", TL__OPT_INT),
  OPT("max_spirv_version", TL__OPT_INT),
  END,
};

static const tl__target_option nvptx_options[] = {
  OPT("mcpu", TL__OPT_STR),
  OPT("mtriple", TL__OPT_STR),
  OPT_INT_D("max_num_threads", 1024),
  OPT_INT_D("thread_warp_size", 32),
  END,
};

static const char *const cpu_keys[] = {"cpu", NULL};
static const char *const cuda_keys[] = {"cuda", "gpu", NULL};
static const char *const hip_keys[] = {"hip", "gpu", NULL};
static const char *const rocm_keys[] = {"rocm", "gpu", NULL};
static const char *const metal_keys[] = {"metal", "gpu", NULL};
static const char *const webgpu_keys[] = {"webgpu", "gpu", NULL};
static const char *const opencl_keys[] = {"opencl", "gpu", NULL};
static const char *const vulkan_keys[] = {"vulkan", "gpu", NULL};

static const tl__target_kind kinds[] = {
  {.name = "c", .device_type = DL_CPU, .default_keys = cpu_keys, .options = c_options}, /* LLVM canon.: a no-op for c */
  {.name = "llvm", .device_type = DL_CPU, .default_keys = cpu_keys, .options = llvm_options, .canonicalize = tl__canon_llvm},
  {.name = "cuda", .device_type = DL_CUDA, .default_keys = cuda_keys, .options = cuda_options, .canonicalize = tl__canon_cuda},
  {.name = "hip", .device_type = DL_ROCM, .default_keys = hip_keys, .options = hip_options, .canonicalize = tl__canon_rocm},
  {.name = "rocm", .device_type = DL_ROCM, .default_keys = rocm_keys, .options = rocm_options, .canonicalize = tl__canon_rocm},
  {.name = "metal", .device_type = DL_METAL, .default_keys = metal_keys, .options = metal_options},
  {.name = "webgpu", .device_type = DL_WEBGPU, .default_keys = webgpu_keys, .options = webgpu_options, .canonicalize = tl__canon_webgpu},
  {.name = "opencl", .device_type = DL_OPENCL, .default_keys = opencl_keys, .options = opencl_options},
  {.name = "vulkan", .device_type = DL_VULKAN, .default_keys = vulkan_keys, .options = vulkan_options},
  {.name = "nvptx", .device_type = DL_CUDA, .default_keys = cuda_keys, .options = nvptx_options, .canonicalize = tl__canon_nvptx},
};

size_t tl__target_kind_count(void) { return sizeof kinds / sizeof kinds[0]; }

const tl__target_kind *tl__target_kind_at(size_t i) { return i < tl__target_kind_count() ? &kinds[i] : NULL; }

const tl__target_kind *tl__target_kind_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < tl__target_kind_count(); i++)
    if (strcmp(kinds[i].name, name) == 0) return &kinds[i];
  return NULL;
}

const tl__target_option *tl__target_option_find(const tl__target_kind *k, const char *name) {
  for (const tl__target_option *o = tl__target_common_options; o->name; o++)
    if (strcmp(o->name, name) == 0) return o;
  for (const tl__target_option *o = k->options; o->name; o++)
    if (strcmp(o->name, name) == 0) return o;
  return NULL;
}

const char *tl__target_opt_type_name(tl__opt_type t) {
  switch (t) {
    case TL__OPT_INT: return "int";
    case TL__OPT_BOOL: return "bool";
    case TL__OPT_STR: return "str";
    case TL__OPT_STR_ARRAY: return "Array<str>";
    case TL__OPT_TARGET: return "target.Target";
  }
  return "?";
}
