/* The C code generators: device codegen `c` (global function
 * "target.build.tilelang_c": device kernels as C source, no compilation) and host
 * codegen `c` (global function "target.build.tilelang_c_host", and the `c` entry of
 * the host codegen registry: packed host entries, docs/lowering.md). */
#ifndef TL_CODEGEN_CODEGEN_H
#define TL_CODEGEN_CODEGEN_H

#include "codegen/c_dialect.h"
#include "tilelang/backend.h"

/* The host codegen descriptor named "c" (backed by "target.build.tilelang_c_host"),
 * for manifests' host_codegens. */
extern const tl_host_codegen tl__c_host_codegen_desc;

/* Registers the global functions of every code generator of codegen/
 * (codegen_globals.c; idempotent). */
tl_status tl__codegen_register_builtins(void);

/* Device source of every TL_CALLCONV_DEVICE_KERNEL function of `mod` in dialect `d`
 * (a fresh string, tl__free it). */
tl_status tl__c_device_source(const tl__c_dialect *d, const tl_ir_module *mod, char **out);
/* The artifact of format "c" for the C dialect, carrying the kernel table of the
 * module's host entry when it has one. */
tl_status tl__c_device_codegen(const tl_ir_module *mod, const tl_target *target, tl_artifact **out);

/* CUDA C++ of every device kernel of a GPU-lowered module (the fast-math dialect
 * when the session's pass config tl.enable_fast_math is set). */
tl_status tl__cuda_device_source(const tl_ir_module *mod, char **out);
/* Device codegen `cuda`: with `compile`, the artifact "cubin" (or "fatbin") from
 * the global functions tilelang_callback_cuda_validate and _compile, keeping the
 * source; without, the artifact "cuda" (source). Both carry the kernel table. */
tl_status tl__cuda_device_codegen(const tl_ir_module *mod, const tl_target *target, bool compile, tl_artifact **out);
/* The two modes as (module, target) -> artifact functions (target.build.tilelang_cuda
 * and target.build.tilelang_cuda_without_compile). */
tl_status tl__cuda_device_build(const tl_ir_module *mod, const tl_target *target, tl_artifact **out);
tl_status tl__cuda_device_build_without_compile(const tl_ir_module *mod, const tl_target *target, tl_artifact **out);

/* The C text defining `tl_cuda_image_data()` over `size` bytes of cubin, which
 * host code of launch convention cuda_driver calls (appended after that code by
 * the nvcc execution backend). A fresh string, or NULL out of memory. */
char *tl__cuda_image_source(const void *bytes, size_t size);

/* Host source of every TL_CALLCONV_PACKED function of `mod` (a fresh string). */
tl_status tl__c_host_source(const tl_ir_module *mod, char **out);
tl_status tl__c_host_codegen(const tl_ir_module *mod, const tl_target *target_host, tl_artifact **out);

#endif
