/* tilelang/ffi.h - global functions: named packed functions that backends publish
 * (compile callbacks, codegen entry points such as "target.build.tilelang_cuda"),
 * the equivalent of tvm_ffi.register_global_func / get_global_func. */
#ifndef TILELANG_FFI_H
#define TILELANG_FFI_H

#include "tilelang/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tl_value_kind, tl_value and tl_packed_fn are defined in tilelang/plugin.h (shared
 * with plugins; included through base.h). Arguments are borrowed; a returned
 * STR/BYTES/ARTIFACT/TARGET is owned by the caller (free with tl_value_clear). */

/* Registers `fn` under `name` (copied). An existing name fails with TL_EEXIST unless
 * override is true, in which case it is replaced. Thread-safe. */
TL_API tl_status tl_register_global_func(const char *name, tl_packed_fn fn, void *user_data, bool override);
/* Looks up a global function; TL_ENOTFOUND if absent. Thread-safe. */
TL_API tl_status tl_get_global_func(const char *name, tl_packed_fn *fn, void **user_data);
/* Looks up and calls a global function (without holding any lock during the call). Thread-safe. */
TL_API tl_status tl_call_global_func(const char *name, const tl_value *args, int nargs, tl_value *ret);
/* Names of all global functions in registration order; returns the full count
 * (call with cap = 0 to size). The strings stay valid while the function stays
 * registered. Thread-safe. */
TL_API size_t tl_list_global_funcs(const char **out, size_t cap);

/* Value constructors (no allocation; the value borrows). */
static inline tl_value tl_value_int(int64_t i) { tl_value v = {TL_VALUE_INT, 0, {.i = i}}; return v; }
static inline tl_value tl_value_float(double f) { tl_value v = {TL_VALUE_FLOAT, 0, {.f = f}}; return v; }
static inline tl_value tl_value_bool(bool b) { tl_value v = {TL_VALUE_BOOL, 0, {.b = b}}; return v; }
static inline tl_value tl_value_ptr(void *p) { tl_value v = {TL_VALUE_PTR, 0, {.ptr = p}}; return v; }
static inline tl_value tl_value_tensor(struct DLTensor *t) { tl_value v = {TL_VALUE_TENSOR, 0, {.tensor = t}}; return v; }
/* Borrowed string/bytes/object arguments (size is strlen(s) for strings). */
TL_API tl_value tl_value_str(const char *s);
static inline tl_value tl_value_bytes(const void *p, size_t n) { tl_value v = {TL_VALUE_BYTES, n, {.bytes = p}}; return v; }
static inline tl_value tl_value_target(const struct tl_target *t) { tl_value v = {TL_VALUE_TARGET, 0, {.target = t}}; return v; }
static inline tl_value tl_value_module(struct tl_ir_module *m) { tl_value v = {TL_VALUE_IR_MODULE, 0, {.mod = m}}; return v; }
static inline tl_value tl_value_artifact(struct tl_artifact *a) { tl_value v = {TL_VALUE_ARTIFACT, 0, {.artifact = a}}; return v; }

/* Makes `v` an owned copy of the string `s` / of `size` bytes (what a packed function
 * returning a string stores in `ret`). What `v` held before is released as by
 * tl_value_clear, so it must be NONE or owned. TL_ENOMEM leaves `v` as it was.
 * Thread-safe. */
TL_API tl_status tl_value_set_str(tl_value *v, const char *s);
TL_API tl_status tl_value_set_bytes(tl_value *v, const void *data, size_t size);

/* Releases what an owned value holds (STR/BYTES memory from tl_free, an artifact or
 * target reference) and resets it to NONE. For values returned by packed functions. */
TL_API void tl_value_clear(tl_value *v);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_FFI_H */
