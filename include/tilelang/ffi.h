/* tilelang/ffi.h - global functions: named packed functions that backends publish
 * (compile callbacks, codegen entry points such as "target.build.tilelang_cuda"),
 * the equivalent of tvm_ffi.register_global_func / get_global_func. */
#ifndef TILELANG_FFI_H
#define TILELANG_FFI_H

#include "tilelang/base.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tl_target;
struct tl_ir_module;
struct tl_artifact;
struct DLTensor;

typedef enum tl_value_kind {
  TL_VALUE_NONE,
  TL_VALUE_INT,
  TL_VALUE_FLOAT,
  TL_VALUE_BOOL,
  TL_VALUE_STR,
  TL_VALUE_BYTES,
  TL_VALUE_PTR,
  TL_VALUE_TARGET,
  TL_VALUE_IR_MODULE,
  TL_VALUE_ARTIFACT,
  TL_VALUE_TENSOR /* DLTensor* */
} tl_value_kind;

/* A tagged value passed to and returned from packed functions. Values are borrowed
 * unless a function documents otherwise; a returned STR/BYTES/ARTIFACT/TARGET is owned
 * by the caller (free with tl_value_clear). */
typedef struct tl_value {
  tl_value_kind kind;
  size_t size; /* for STR/BYTES */
  union {
    int64_t i;
    double f;
    bool b;
    const char *s;
    const void *bytes;
    void *ptr;
    const struct tl_target *target;
    struct tl_ir_module *mod;
    struct tl_artifact *artifact;
    struct DLTensor *tensor;
  } v;
} tl_value;

typedef tl_status (*tl_packed_fn)(const tl_value *args, int nargs, tl_value *ret, void *user_data);

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

/* Releases what an owned value holds (STR/BYTES memory from tl_free, an artifact or
 * target reference) and resets it to NONE. For values returned by packed functions. */
TL_API void tl_value_clear(tl_value *v);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_FFI_H */
