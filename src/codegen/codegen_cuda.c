/* Device codegen `cuda`: the device kernels of a GPU-lowered module as CUDA C++
 * (dialect_cuda.c), in the two modes upstream TileLang declares:
 *
 *   target.build.tilelang_cuda_without_compile (module, target) -> artifact "cuda":
 *       the source, carrying the host entry's kernel table;
 *   target.build.tilelang_cuda (module, target) -> artifact "cubin" (or "fatbin"
 *       for several `code` entries): the global function
 *       tilelang_callback_cuda_validate(target) checks the target, then
 *       tilelang_callback_cuda_compile(source, target) returns the binary (nvcc,
 *       with a binary cache: src/backends/cuda/compile.c); the artifact keeps the
 *       source and the kernel table.
 *
 * The callbacks are global functions the cuda backend's manifest registers, so a
 * user may replace them (upstream's register_cuda_postproc-style override). */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "codegen/codegen.h"
#include "transform/kernel_table.h"
#include "transform/session.h"

tl_status tl__cuda_device_source(const tl_ir_module *mod, char **out) {
  const char *fast = tl__session_config("tl.enable_fast_math");
  bool fast_math = fast && (strcmp(fast, "1") == 0 || strcmp(fast, "true") == 0 || strcmp(fast, "True") == 0);
  return tl__c_device_source(fast_math ? &tl__c_dialect_cuda_fast_math : &tl__c_dialect_cuda, mod, out);
}

/* The kernel table of the module's only host entry (NULL when there is none). */
static tl_status entry_table(const tl_ir_module *mod, tl_kernel_table **out) {
  *out = NULL;
  const tl_ir_func *entry = NULL;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_PACKED) continue;
    if (entry) return TL_OK; /* several entries: no single table */
    entry = f;
  }
  return entry ? tl__kernel_table_from_module(mod, entry->name, out) : TL_OK;
}

/* "cubin" for an ELF image, "fatbin" for a fat binary (its magic 0xBA55ED50). */
static const char *binary_format(const unsigned char *b, size_t n) {
  if (n >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') return "cubin";
  if (n >= 4 && b[0] == 0x50 && b[1] == 0xed && b[2] == 0x55 && b[3] == 0xba) return "fatbin";
  return NULL;
}

/* Runs the compile callbacks on `src`; *bin gets the binary (tl_value BYTES). */
static tl_status compile_source(const char *src, const tl_target *target, tl_value *bin) {
  tl_value ret = {TL_VALUE_NONE, 0, {0}};
  tl_value targ = tl_value_target(target);
  tl_status s = tl_call_global_func("tilelang_callback_cuda_validate", &targ, 1, &ret);
  tl_value_clear(&ret);
  if (s == TL_ENOTFOUND)
    return tl__error(TL_EUNAVAILABLE, "device codegen 'cuda' compiles through the global function "
                                      "tilelang_callback_cuda_validate, which is not registered (the cuda backend "
                                      "registers it)");
  if (s != TL_OK) return s;
  tl_value args[2] = {tl_value_str(src), targ};
  s = tl_call_global_func("tilelang_callback_cuda_compile", args, 2, bin);
  if (s == TL_ENOTFOUND)
    return tl__error(TL_EUNAVAILABLE, "device codegen 'cuda' compiles through the global function "
                                      "tilelang_callback_cuda_compile, which is not registered (the cuda backend "
                                      "registers it)");
  if (s != TL_OK) return s;
  if (bin->kind != TL_VALUE_BYTES || !bin->v.bytes || bin->size == 0 || !binary_format(bin->v.bytes, bin->size)) {
    tl_value_clear(bin);
    return tl__error(TL_EINTERNAL, "tilelang_callback_cuda_compile returned no cubin or fatbin");
  }
  return TL_OK;
}

tl_status tl__cuda_device_codegen(const tl_ir_module *mod, const tl_target *target, bool compile, tl_artifact **out) {
  *out = NULL;
  char *src = NULL;
  TL__TRY(tl__cuda_device_source(mod, &src));
  tl_kernel_table *table = NULL;
  tl_status s = entry_table(mod, &table);
  if (s == TL_EUNSUPPORTED) {
    /* A table cannot describe every entry (a dimension N * 2): the host code
     * (execution backend nvcc) launches without one; nvrtc will say it needs one. */
    table = NULL;
    s = TL_OK;
    tl__error_clear();
  }
  tl_value bin = {TL_VALUE_NONE, 0, {0}};
  if (s == TL_OK && compile) s = compile_source(src, target, &bin);
  tl_artifact *plain = NULL;
  if (s == TL_OK && compile)
    s = tl_artifact_create_binary(binary_format(bin.v.bytes, bin.size), src, bin.v.bytes, bin.size, &plain);
  else if (s == TL_OK)
    s = tl_artifact_create("cuda", src, &plain);
  if (s == TL_OK && table) s = tl_artifact_with_kernel_table(plain, table, out);
  else if (s == TL_OK) *out = tl_artifact_retain(plain);
  tl_artifact_release(plain);
  tl_value_clear(&bin);
  tl_kernel_table_free(table);
  tl__free(src);
  return s;
}

tl_status tl__cuda_device_build(const tl_ir_module *mod, const tl_target *target, tl_artifact **out) {
  return tl__cuda_device_codegen(mod, target, true, out);
}

tl_status tl__cuda_device_build_without_compile(const tl_ir_module *mod, const tl_target *target, tl_artifact **out) {
  return tl__cuda_device_codegen(mod, target, false, out);
}
