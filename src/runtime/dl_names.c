/* Names used by argument-check messages (dl_names.h). */
#include "runtime/dl_names.h"

#include <stdio.h>

#include "tilelang/ir.h"

/* The scalar dtypes TileLang names ("float16"); vectors add "x<lanes>". */
static const struct {
  uint8_t code, bits;
  const char *name;
} k_dtypes[] = {
  {TL_DTYPE_BOOL, 8, "bool"},      {TL_DTYPE_INT, 8, "int8"},       {TL_DTYPE_INT, 16, "int16"},
  {TL_DTYPE_INT, 32, "int32"},     {TL_DTYPE_INT, 64, "int64"},     {TL_DTYPE_UINT, 8, "uint8"},
  {TL_DTYPE_UINT, 16, "uint16"},   {TL_DTYPE_UINT, 32, "uint32"},   {TL_DTYPE_UINT, 64, "uint64"},
  {TL_DTYPE_FLOAT, 16, "float16"}, {TL_DTYPE_FLOAT, 32, "float32"}, {TL_DTYPE_FLOAT, 64, "float64"},
  {TL_DTYPE_BFLOAT, 16, "bfloat16"}, {TL_DTYPE_HANDLE, 64, "handle"},
};

/* The name stem of a dtype code TileLang knows ("int" + bits), or NULL. */
static const char *stem(uint8_t code) {
  switch (code) {
  case TL_DTYPE_INT: return "int";
  case TL_DTYPE_UINT: return "uint";
  case TL_DTYPE_FLOAT: return "float";
  case TL_DTYPE_HANDLE: return "handle";
  case TL_DTYPE_BFLOAT: return "bfloat";
  case TL_DTYPE_BOOL: return "bool";
  default: return NULL;
  }
}

/* As tl_dtype_name (and the interpreter's messages) names it: the table's name or
 * stem + bits, "x<lanes>" unless lanes is 1; an unknown code as dtype(...). */
const char *tl__dl_dtype_name(uint8_t code, uint8_t bits, uint16_t lanes, char *buf, size_t cap) {
  const char *name = NULL;
  for (size_t i = 0; i < sizeof k_dtypes / sizeof k_dtypes[0]; i++)
    if (k_dtypes[i].code == code && k_dtypes[i].bits == bits) name = k_dtypes[i].name;
  char scalar[32];
  if (!name && stem(code)) {
    snprintf(scalar, sizeof scalar, "%s%u", stem(code), (unsigned)bits);
    name = scalar;
  }
  if (!name) snprintf(buf, cap, "dtype(code=%u, bits=%u, lanes=%u)", (unsigned)code, (unsigned)bits, (unsigned)lanes);
  else if (lanes == 1) snprintf(buf, cap, "%s", name);
  else snprintf(buf, cap, "%sx%u", name, (unsigned)lanes);
  return buf;
}

const char *tl__value_kind_words(int32_t kind) {
  static const char *const words[] = {"none", "an int", "a float", "a bool", "a string", "bytes",
                                      "a pointer", "a target", "an IR module", "an artifact", "a tensor"};
  if (kind < 0 || (size_t)kind >= sizeof words / sizeof words[0]) return "an unknown value";
  return words[kind];
}

const char *tl__dl_device_words(int32_t device_type) {
  switch (device_type) {
  case 1: return "a CPU tensor (kDLCPU)";
  case 2: return "a CUDA tensor (kDLCUDA)";
  case 3: return "a pinned CUDA host tensor (kDLCUDAHost)";
  case 4: return "an OpenCL tensor (kDLOpenCL)";
  case 7: return "a Vulkan tensor (kDLVulkan)";
  case 8: return "a Metal tensor (kDLMetal)";
  case 10: return "a ROCm tensor (kDLROCM)";
  case 15: return "a WebGPU tensor (kDLWebGPU)";
  default: return NULL;
  }
}
