/* tilelang/plugin.h - everything a backend plugin needs, in one standalone header.
 *
 * This header includes only standard C headers, so a plugin (a shared library that
 * declares a complete backend) compiles against it alone and needs no link-time
 * dependency on the library: registration and the other services reach the plugin
 * through the host table (tl_plugin_host) its init function receives.
 *
 * It is also the one place where the types shared by the library and its plugins are
 * defined: the status codes, tl_value and packed functions, and the descriptors of the
 * backend system (pipelines, codegens, hooks, execution backend specs, manifests).
 * The library's own headers (base.h, ffi.h, backend.h) obtain them from here, so
 * there is exactly one definition of each.
 *
 * Writing a plugin:
 *
 *     #include "tilelang/plugin.h"
 *
 *     TL_PLUGIN_ABI_VERSION_SYMBOL();          // exports tl_plugin_abi_version
 *
 *     static const tl_backend_module my_backend = { sizeof(tl_backend_module), "mine", ... };
 *
 *     TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host) {
 *       return host->register_backend(&my_backend, NULL);
 *     }
 *
 * The library loads it from TL_PLUGIN_PATH or from a lazy registration's import
 * path ("path/libmine.so" or "path/libmine.so:my_init"), at most once per import
 * path. See docs/backend-registry.md for the whole model. */
#ifndef TILELANG_PLUGIN_H
#define TILELANG_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* =========================================================== status codes */

/* The one list of status codes: X(name, value, default message). */
#define TL_STATUS_MAP(X)                                                              \
  X(TL_OK, 0, "success")                                                              \
  X(TL_EINVAL, 1, "invalid argument")                                                 \
  X(TL_ENOTFOUND, 2, "not found")                                                     \
  X(TL_EEXIST, 3, "conflicting registration")                                         \
  X(TL_EUNAVAILABLE, 4, "a library, toolchain or device needed for this is missing") \
  X(TL_EUNSUPPORTED, 5, "the component cannot do the requested mode")                 \
  X(TL_ECOMPILE, 6, "an external compiler rejected generated code")                   \
  X(TL_ERUNTIME, 7, "driver or launch failure")                                       \
  X(TL_EIO, 8, "input/output error")                                                  \
  X(TL_ENOMEM, 9, "out of memory")                                                    \
  X(TL_EINTERNAL, 10, "internal error")

typedef enum tl_status {
#define TL__STATUS_ENUM(name, value, msg) name = value,
  TL_STATUS_MAP(TL__STATUS_ENUM)
#undef TL__STATUS_ENUM
} tl_status;

/* ============================================================ opaque types */

typedef struct tl_target tl_target;         /* tilelang/target.h */
typedef struct tl_ir_module tl_ir_module;   /* tilelang/ir.h */
typedef struct tl_artifact tl_artifact;     /* generated code, tilelang/backend.h */
struct DLTensor;                            /* dlpack/dlpack.h */

/* =============================================== values and packed functions */

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

/* A tagged value passed to and returned from packed functions. Arguments are
 * borrowed. A returned STR/BYTES (memory from the library's allocator, freed by
 * tl_free), ARTIFACT or TARGET (a reference) is owned by the caller: release it with
 * tl_value_clear. */
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

/* A global function (tvm_ffi's packed function). `ret` starts as NONE. */
typedef tl_status (*tl_packed_fn)(const tl_value *args, int nargs, tl_value *ret, void *user_data);

/* ====================================================== backend descriptors
 *
 * Plain structs the caller fills, usually `static const`. Registration keeps the
 * pointer: they must stay alive and unchanged for the life of the process. */

/* Whether a component accepts a target (upstream TargetPredicate). Must be cheap,
 * thread-safe and free of side effects: the registry calls it on every resolution. */
typedef bool (*tl_target_predicate)(const tl_target *target, void *user_data);

/* PassPipeline: lowers the module in place for a target of its kind. */
typedef struct tl_pass_pipeline {
  const char *name; /* equals the target kind it is declared for */
  tl_status (*lower)(tl_ir_module *mod, const tl_target *target, void *user_data);
  void *user_data;
} tl_pass_pipeline;

/* DeviceCodegen: device code for one backend target variant. */
typedef tl_status (*tl_device_codegen_fn)(tl_ir_module *mod, const tl_target *target, void *user_data,
                                          tl_artifact **out);
typedef struct tl_device_codegen_call {
  tl_device_codegen_fn fn; /* NULL: the mode is not supported */
  void *user_data;
} tl_device_codegen_call;
typedef struct tl_device_codegen {
  const char *name;
  tl_device_codegen_call build;                 /* compiles; fn may be NULL */
  tl_device_codegen_call build_without_compile; /* source only; fn may be NULL */
  tl_target_predicate supports_target;          /* NULL: every target of its kind */
  void *predicate_data;
} tl_device_codegen;

/* HostCodegen: host code for one host target variant. */
typedef tl_status (*tl_host_codegen_fn)(tl_ir_module *mod, const tl_target *target_host, void *user_data,
                                        tl_artifact **out);
typedef struct tl_host_codegen {
  const char *name;
  tl_host_codegen_fn build;
  void *user_data;
  tl_target_predicate supports_target; /* on the host target; NULL: every host target of its kind */
  void *predicate_data;
} tl_host_codegen;

/* HostCodegenHook: a device backend's preparation of the module before host codegen. */
typedef tl_status (*tl_host_codegen_hook_fn)(tl_ir_module *mod, const tl_target *target_host,
                                             const tl_target *target, void *user_data);
typedef struct tl_host_codegen_hook {
  const char *name;
  tl_host_codegen_hook_fn apply;
  void *user_data;
  tl_target_predicate supports_target; /* on the device target; NULL: every target of its kind */
  void *predicate_data;
} tl_host_codegen_hook;

/* ExecutionBackendSpec: what a manifest declares about a shared execution backend. */
typedef struct tl_execution_backend_spec {
  const char *name;                      /* lowercase: requests are lowered before comparing */
  bool (*is_available)(void *user_data); /* NULL: always available; called on every resolution */
  tl_target_predicate supports_target;   /* NULL: every target */
  void *user_data;                       /* for is_available, supports_target, unavailable_reason */
  bool enable_host_codegen;              /* the library generates the host side (host codegen runs) */
  bool enable_device_compile;            /* device codegen compiles (build, not build_without_compile) */
  /* Optional: why is_available returns false ("libnvrtc.so.12 not found"), for tools
   * such as `tlc backends`. A string that stays valid; NULL when unknown. */
  const char *(*unavailable_reason)(void *user_data);
} tl_execution_backend_spec;

/* The entries of a manifest's mappings: arrays ended by an entry whose key is NULL. */
typedef struct tl_pipeline_entry {
  const char *target_kind;
  const tl_pass_pipeline *pipeline;
} tl_pipeline_entry;
typedef struct tl_device_codegen_entry {
  const char *target_kind;
  const tl_device_codegen *codegen;
} tl_device_codegen_entry;
typedef struct tl_host_codegen_entry {
  const char *target_host_kind;
  const tl_host_codegen *codegen;
} tl_host_codegen_entry;
typedef struct tl_host_codegen_hooks_entry {
  const char *target_kind;
  const tl_host_codegen_hook *const *hooks; /* NULL-terminated, non-empty */
} tl_host_codegen_hooks_entry;
typedef struct tl_callback_entry {
  const char *name; /* registered as a global function (with override) */
  tl_packed_fn fn;
  void *user_data;
} tl_callback_entry;

/* BackendModule: the complete manifest of one backend. */
typedef struct tl_backend_module {
  size_t struct_size;                    /* sizeof(tl_backend_module); 0 means the current size */
  const char *name;
  const char *const *target_kinds;       /* NULL-terminated */
  const tl_pipeline_entry *pipelines;    /* {NULL}-terminated, exactly one per kind */
  const tl_device_codegen_entry *device_codegens; /* {NULL}-terminated, exactly one per kind */
  const tl_execution_backend_spec *const *execution_backends; /* NULL-terminated, 'auto' order */
  tl_target_predicate supports_target;   /* NULL: every target of its kinds */
  void *predicate_data;
  const tl_host_codegen_entry *host_codegens;            /* may be NULL */
  const tl_host_codegen_hooks_entry *host_codegen_hooks; /* may be NULL */
  const tl_callback_entry *callbacks;                    /* may be NULL */
} tl_backend_module;

/* ================================================================ plugin ABI */

/* The ABI of this header: a plugin's major must equal the library's; minors only
 * append fields to the host table (check TL_PLUGIN_HOST_HAS before using a field
 * newer than the library you need). */
#define TL_PLUGIN_ABI_MAJOR 1
#define TL_PLUGIN_ABI_MINOR 0
#define TL_PLUGIN_ABI_VERSION ((uint32_t)((TL_PLUGIN_ABI_MAJOR << 16) | TL_PLUGIN_ABI_MINOR))

/* The services the library offers a plugin. Starts with struct_size and abi_version;
 * later versions only append fields. Every function is thread-safe and behaves as
 * its public counterpart (tl_register_backend, tl_target_kind, ...). */
typedef struct tl_plugin_host {
  size_t struct_size;
  uint32_t abi_version;          /* the library's TL_PLUGIN_ABI_VERSION */
  const char *library_version;   /* "MAJOR.MINOR.PATCH" */

  /* Registration. */
  tl_status (*register_backend)(const tl_backend_module *m, const tl_backend_module **out);
  tl_status (*register_device_codegen)(const char *target_kind, const tl_device_codegen *codegen, bool override);
  tl_status (*register_host_codegen)(const char *target_host_kind, const tl_host_codegen *codegen, bool override);
  tl_status (*register_host_codegen_hook)(const char *target_kind, const tl_host_codegen_hook *hook, bool override);
  tl_status (*register_lazy_device_codegen)(const char *target_kind, const char *import_path);
  tl_status (*register_lazy_host_codegen)(const char *target_host_kind, const char *import_path);
  tl_status (*register_lazy_host_codegen_hooks)(const char *target_kind, const char *import_path);

  /* Global functions and values. */
  tl_status (*register_global_func)(const char *name, tl_packed_fn fn, void *user_data, bool override);
  tl_status (*get_global_func)(const char *name, tl_packed_fn *fn, void **user_data);
  tl_status (*call_global_func)(const char *name, const tl_value *args, int nargs, tl_value *ret);
  void (*value_clear)(tl_value *v);
  tl_status (*value_set_str)(tl_value *v, const char *s);
  tl_status (*value_set_bytes)(tl_value *v, const void *data, size_t size);

  /* Errors: a plugin's failing callback sets the calling thread's message with
   * set_error (which returns `status`, so `return host->set_error(TL_EINVAL, "...")`). */
  tl_status (*set_error)(tl_status status, const char *message);
  const char *(*last_error)(void);

  /* Targets (read-only accessors, as in tilelang/target.h). */
  const char *(*target_kind)(const tl_target *t);
  const char *(*target_str)(const tl_target *t);
  const tl_target *(*target_host)(const tl_target *t);
  bool (*target_has_key)(const tl_target *t, const char *key);
  bool (*target_attr_str)(const tl_target *t, const char *name, const char **out);
  bool (*target_attr_int)(const tl_target *t, const char *name, int64_t *out);
  bool (*target_attr_bool)(const tl_target *t, const char *name, bool *out);
  size_t (*target_attr_array)(const tl_target *t, const char *name, const char **out, size_t cap);

  /* Artifacts: what codegens return. */
  tl_status (*artifact_create)(const char *format, const char *source, tl_artifact **out);
  tl_status (*artifact_create_binary)(const char *format, const char *source, const void *bytes, size_t size,
                                      tl_artifact **out);
  tl_artifact *(*artifact_retain)(const tl_artifact *a);
  void (*artifact_release)(const tl_artifact *a);
  const char *(*artifact_format)(const tl_artifact *a);
  const char *(*artifact_source)(const tl_artifact *a);
  const void *(*artifact_binary)(const tl_artifact *a, size_t *size);
} tl_plugin_host;

/* True when the host table has `field` (a library at least as new as that field). */
#define TL_PLUGIN_HOST_HAS(host, field) \
  ((host)->struct_size >= offsetof(tl_plugin_host, field) + sizeof((host)->field))

/* The init function a plugin exports (default name "tl_plugin_init"; another name
 * with an import path "lib.so:name"). Called once per import path, with no registry
 * lock held; registers the plugin's components through `host`. */
typedef tl_status (*tl_plugin_init_fn)(const tl_plugin_host *host);

#define TL_PLUGIN_DEFAULT_INIT "tl_plugin_init"
#define TL_PLUGIN_ABI_SYMBOL "tl_plugin_abi_version"

#if defined(_WIN32)
#define TL_PLUGIN_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define TL_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TL_PLUGIN_EXPORT
#endif

/* Defines the exported `const uint32_t tl_plugin_abi_version` (the ABI the plugin
 * was compiled against). Use once, at file scope, in one source of the plugin. */
#ifdef __cplusplus
#define TL_PLUGIN_ABI_VERSION_SYMBOL() \
  extern "C" TL_PLUGIN_EXPORT const uint32_t tl_plugin_abi_version = TL_PLUGIN_ABI_VERSION
#else
#define TL_PLUGIN_ABI_VERSION_SYMBOL() \
  TL_PLUGIN_EXPORT extern const uint32_t tl_plugin_abi_version; \
  TL_PLUGIN_EXPORT const uint32_t tl_plugin_abi_version = TL_PLUGIN_ABI_VERSION
#endif

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_PLUGIN_H */
