/* tilelang/backend.h - the backend system (TileLang's tilelang.backend: module,
 * device_codegen, host_codegen): backend manifests and their registry, device and
 * host codegen registries, execution backend specs, and the immutable per-compilation
 * context.
 *
 * The descriptor types (tl_backend_module, tl_pass_pipeline, tl_device_codegen,
 * tl_host_codegen, tl_host_codegen_hook, tl_execution_backend_spec, the entry
 * structs, tl_target_predicate) are defined in tilelang/plugin.h, shared with
 * plugins. Descriptors are kept by pointer: the caller keeps them alive and
 * unchanged for the life of the process.
 *
 * Every registry call is thread-safe; predicates, codegens, hooks and callbacks are
 * never called with a registry lock held. Messages follow upstream TileLang's wording
 * (docs/backend-registry.md lists them). */
#ifndef TILELANG_BACKEND_H
#define TILELANG_BACKEND_H

#include "tilelang/base.h"
#include "tilelang/ffi.h"
#include "tilelang/ir.h"
#include "tilelang/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ artifacts */

/* A new artifact holding copies of `format` (non-empty: "c", "cuda", "ptx", ...) and
 * `source` (NULL means ""). The caller owns the reference. Thread-safe. */
TL_API tl_status tl_artifact_create(const char *format, const char *source, tl_artifact **out);
/* As tl_artifact_create, with a copy of `size` bytes of compiled binary (cubin,
 * shared object); `bytes` may be NULL only when size is 0. Thread-safe. */
TL_API tl_status tl_artifact_create_binary(const char *format, const char *source, const void *bytes, size_t size,
                                           tl_artifact **out);
/* Another reference to `a` (returned); NULL-safe. Thread-safe. */
TL_API tl_artifact *tl_artifact_retain(const tl_artifact *a);
/* Drops a reference; the last one frees the artifact. NULL-safe. Thread-safe. */
TL_API void tl_artifact_release(const tl_artifact *a);
/* The format, borrowed from `a`. Thread-safe. */
TL_API const char *tl_artifact_format(const tl_artifact *a);
/* The source text ("" if none), borrowed from `a`. Thread-safe. */
TL_API const char *tl_artifact_source(const tl_artifact *a);
/* The compiled bytes (borrowed) and their size, or NULL (size 0) if none. Thread-safe. */
TL_API const void *tl_artifact_binary(const tl_artifact *a, size_t *size);

struct tl_kernel_table; /* tilelang/runtime.h: launch metadata as data */
/* A new artifact with a's format, source and binary, carrying a copy of `table` (NULL:
 * no table). Code generators attach the kernel table this way, so no later stage
 * parses generated code to recover launch metadata. The caller owns the reference;
 * `a` is unchanged. TL_EINVAL for an inconsistent table. Thread-safe. */
TL_API tl_status tl_artifact_with_kernel_table(const tl_artifact *a, const struct tl_kernel_table *table,
                                               tl_artifact **out);
/* The kernel table the artifact carries (borrowed from `a`), or NULL. Thread-safe. */
TL_API const struct tl_kernel_table *tl_artifact_kernel_table(const tl_artifact *a);

/* ============================================================ pass pipelines */

/* Runs the pipeline's lower function on `mod` (in place) for `target`. The pipeline's
 * error propagates unchanged. Thread-safe if the pipeline is. */
TL_API tl_status tl_pass_pipeline_lower(const tl_pass_pipeline *p, tl_ir_module *mod, const tl_target *target);

/* ============================================================ device codegens */

/* global_func_device_codegen(name): a call backed by the global function `name`,
 * which takes (module, target) and returns an artifact. `name` must be a string that
 * stays valid (a literal). The compound literal works in static initializers with
 * GCC and Clang; TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT is the plain brace form. */
#define TL_GLOBAL_FUNC_DEVICE_CODEGEN(global_func_name) \
  ((tl_device_codegen_call){tl_device_codegen_via_global_func, (void *)(global_func_name)})
#define TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT(global_func_name) \
  {tl_device_codegen_via_global_func, (void *)(global_func_name)}
/* A tl_device_codegen_fn that calls the global function named by `name` (a const
 * char *) with (TL_VALUE_IR_MODULE mod, TL_VALUE_TARGET target); it must return an
 * artifact (TL_VALUE_ARTIFACT), which goes to *out. Thread-safe. */
TL_API tl_status tl_device_codegen_via_global_func(tl_ir_module *mod, const tl_target *target, void *name,
                                                   tl_artifact **out);

/* True if the codegen accepts the target (its predicate, or true without one). */
TL_API bool tl_device_codegen_matches(const tl_device_codegen *c, const tl_target *target);
/* Runs `build` (compile_device) or `build_without_compile`. A missing mode fails with
 * TL_EUNSUPPORTED: "Device codegen 'x' for target 'k' does not support lowering
 * with compilation" (or "without compilation"). The artifact is the caller's. */
TL_API tl_status tl_device_codegen_lower(const tl_device_codegen *c, tl_ir_module *mod, const tl_target *target,
                                         bool compile_device, tl_artifact **out);

/* Registers a device codegen for a target kind. A codegen of the same name already
 * registered for the kind fails with TL_EEXIST ("Device codegen 'x' is already
 * registered for target kind 'k'") unless override, which removes every entry of
 * that name and appends this one. Thread-safe. */
TL_API tl_status tl_register_device_codegen(const char *target_kind, const tl_device_codegen *codegen, bool override);
/* Import schemes: an import path "SCHEME:rest" whose SCHEME is registered here is
 * imported by calling fn(rest, user_data) instead of loading a plugin library, with
 * the same guarantees (at most once per import path, also when threads race; a
 * failure is not remembered, so a later lookup tries again; no lock held during the
 * call). Language bindings use it: the Python package registers "python", so
 * "python:pkg.backend" imports a Python module that registers a backend. SCHEME is an
 * identifier other than "builtin"; registering another function under a taken name
 * is TL_EEXIST ("Import scheme 'x' is already registered") unless override (paths
 * already imported stay imported). Thread-safe. */
typedef tl_status (*tl_import_fn)(const char *name, void *user_data);
TL_API tl_status tl_register_import_scheme(const char *scheme, tl_import_fn fn, void *user_data, bool override);

/* Records an import path for the kind (replacing an earlier one) and marks the kind
 * not loaded: the next lookup for the kind imports it first (a plugin
 * "path/lib.so[:init_symbol]" or "builtin:NAME"; see tilelang/plugin.h). An import
 * failure makes that lookup fail and is retried by the next one. Thread-safe. */
TL_API tl_status tl_register_lazy_device_codegen(const char *target_kind, const char *import_path);
/* Names of the codegens for the target's kind that match it, in registration order;
 * returns the full count (cap = 0 to size). Names are borrowed from the descriptors.
 * If the kind's lazy import fails, returns 0 and tl_last_error() says why; on success
 * the thread's message is cleared. Thread-safe. */
TL_API size_t tl_allowed_device_codegens_for_target(const tl_target *target, const char **names, size_t cap);
/* The first registered codegen of the target's kind that matches it (borrowed). None:
 * TL_ENOTFOUND "No device codegen registered for target 'k'. Available: a, b." */
TL_API tl_status tl_resolve_device_codegen(const tl_target *target, const tl_device_codegen **out);

/* ============================================================== host codegens */

/* global_func_host_codegen(name): designated initializers for a tl_host_codegen's
 * build and user_data, backed by the global function `name` (module, target_host) ->
 * artifact:  { .name = "c", TL_GLOBAL_FUNC_HOST_CODEGEN("target.build.tilelang_c_host") } */
#define TL_GLOBAL_FUNC_HOST_CODEGEN(global_func_name) \
  .build = tl_host_codegen_via_global_func, .user_data = (void *)(global_func_name)
/* A tl_host_codegen_fn calling the global function named by `name`. Thread-safe. */
TL_API tl_status tl_host_codegen_via_global_func(tl_ir_module *mod, const tl_target *target_host, void *name,
                                                 tl_artifact **out);

TL_API bool tl_host_codegen_matches(const tl_host_codegen *c, const tl_target *target_host);
/* Runs the codegen's build; the artifact is the caller's. */
TL_API tl_status tl_host_codegen_lower(const tl_host_codegen *c, tl_ir_module *mod, const tl_target *target_host,
                                       tl_artifact **out);
TL_API bool tl_host_codegen_hook_matches(const tl_host_codegen_hook *h, const tl_target *target);
/* Runs the hook's apply on `mod` (in place). */
TL_API tl_status tl_host_codegen_hook_lower(const tl_host_codegen_hook *h, tl_ir_module *mod,
                                            const tl_target *target_host, const tl_target *target);

/* As the device codegen registry: "Host codegen 'x' is already registered for target
 * kind 'k'" / "Host codegen hook 'x' is already registered for target kind 'k'"
 * (TL_EEXIST) unless override. Thread-safe. */
TL_API tl_status tl_register_host_codegen(const char *target_host_kind, const tl_host_codegen *codegen, bool override);
TL_API tl_status tl_register_lazy_host_codegen(const char *target_host_kind, const char *import_path);
TL_API tl_status tl_register_host_codegen_hook(const char *target_kind, const tl_host_codegen_hook *hook, bool override);
TL_API tl_status tl_register_lazy_host_codegen_hooks(const char *target_kind, const char *import_path);
/* As tl_allowed_device_codegens_for_target, for the host target's kind. */
TL_API size_t tl_allowed_host_codegens_for_target(const tl_target *target_host, const char **names, size_t cap);
/* Applies every hook registered for the target's kind that matches it, in
 * registration order; the first failure stops and propagates. target NULL: nothing
 * to do. Thread-safe. */
TL_API tl_status tl_apply_host_codegen_hooks(tl_ir_module *mod, const tl_target *target_host, const tl_target *target);
/* The first matching host codegen (borrowed). None: TL_ENOTFOUND "No host codegen
 * registered for target host 'k'. Available: a, b." */
TL_API tl_status tl_resolve_host_codegen(const tl_target *target_host, const tl_host_codegen **out);

/* ======================================================= execution backends */

/* True if the spec accepts the target (its predicate, or true without one). */
TL_API bool tl_execution_backend_spec_matches(const tl_execution_backend_spec *s, const tl_target *target);
/* Calls the spec's is_available (true without one). Not cached: availability can
 * change (a library installed); checks that are expensive cache inside themselves. */
TL_API bool tl_execution_backend_spec_is_available(const tl_execution_backend_spec *s);
/* The spec's explanation of why it is unavailable (borrowed), or NULL if it gives none. */
TL_API const char *tl_execution_backend_spec_unavailable_reason(const tl_execution_backend_spec *s);

/* ================================================= backend manifests: registry */

/* Checks the manifest exactly as tl_register_backend does before registering (upstream
 * BackendModule.__post_init__: every rule in upstream's order, each with its own
 * TL_EINVAL message) without registering anything: what a binding calls when a
 * manifest is constructed. Thread-safe. */
TL_API tl_status tl_backend_module_validate(const tl_backend_module *m);

/* Validates the manifest exactly as upstream BackendModule.__post_init__ (each rule
 * with its own TL_EINVAL message, in upstream's order; docs/backend-registry.md) and
 * registers it: a manifest of the same name that is identical (the same pointer, or
 * equal field by field: strings by content, descriptor pointers by identity, entry
 * arrays element-wise) returns the registered one; a different one fails with
 * TL_EEXIST "Backend 'x' is already registered with a different declaration".
 * Backends sharing a target kind must both define supports_target. Publishes the
 * manifest's device codegens and host codegen hooks (guarded by its predicate) and
 * host codegens into their registries, then registers its callbacks as global
 * functions (with override). Any failure leaves every registry exactly as it was.
 * *out (if non-NULL) gets the registered manifest. Thread-safe. */
TL_API tl_status tl_register_backend(const tl_backend_module *m, const tl_backend_module **out);
/* The registered manifest of that name, or TL_ENOTFOUND "Unknown backend 'x'.
 * Available: a, b" (sorted; "<none>"). Thread-safe. */
TL_API tl_status tl_get_backend(const char *name, const tl_backend_module **out);
/* The registered manifests in registration order (a copy); returns the full count
 * (cap = 0 to size). If registering the built-ins or TL_PLUGIN_PATH's plugins fails,
 * returns 0 with tl_last_error() saying why; on success the message is cleared.
 * Thread-safe. */
TL_API size_t tl_list_backends(const tl_backend_module **out, size_t cap);

/* ================================================ backend manifests: methods
 *
 * Methods taking a target fail with TL_EINVAL "Backend 'x' does not match target T"
 * when the manifest does not own it (kind and predicate). Thread-safe. */

TL_API bool tl_backend_module_matches(const tl_backend_module *m, const tl_target *target);
TL_API tl_status tl_backend_module_get_pipeline(const tl_backend_module *m, const tl_target *target,
                                                const tl_pass_pipeline **out);
TL_API tl_status tl_backend_module_lower(const tl_backend_module *m, tl_ir_module *mod, const tl_target *target);
TL_API tl_status tl_backend_module_get_device_codegen(const tl_backend_module *m, const tl_target *target,
                                                      const tl_device_codegen **out);
TL_API tl_status tl_backend_module_codegen_device(const tl_backend_module *m, tl_ir_module *mod,
                                                  const tl_target *target, bool compile_device, tl_artifact **out);
/* The host codegen declared for the host target's kind (and matching it): none is
 * TL_EINVAL "Backend 'x' has no host codegen matching target H". */
TL_API tl_status tl_backend_module_get_host_codegen(const tl_backend_module *m, const tl_target *target_host,
                                                    const tl_host_codegen **out);
TL_API tl_status tl_backend_module_codegen_host(const tl_backend_module *m, tl_ir_module *mod,
                                                const tl_target *target_host, tl_artifact **out);
/* Applies the manifest's hooks for the target's kind (those matching it), in order. */
TL_API tl_status tl_backend_module_preprocess_host_codegen(const tl_backend_module *m, tl_ir_module *mod,
                                                           const tl_target *target_host, const tl_target *target);
/* Names of the specs matching the target, in declaration order; only the available
 * ones unless include_unavailable. Returns the full count (cap = 0 to size); when the
 * manifest does not own the target, 0 with the message set. */
TL_API size_t tl_backend_module_allowed_execution_backends(const tl_backend_module *m, const tl_target *target,
                                                           bool include_unavailable, const char **names, size_t cap);
/* Upstream's resolve_execution_backend: among the specs matching the target, NULL or
 * "auto" (any case) takes the first available one ("No available execution backend
 * for target 'k'. Allowed: a, b."); a name is lowered and compared: unknown is
 * "Invalid execution backend 'x' for target 'k'. Allowed: a, b. Tip: use
 * execution_backend='auto'." (TL_EINVAL), unavailable is "Execution backend 'x'
 * requires extra dependencies and is not available now. Try one of: a, b."
 * (TL_EUNAVAILABLE). */
TL_API tl_status tl_backend_module_resolve_execution_backend(const tl_backend_module *m, const char *requested,
                                                             const tl_target *target,
                                                             const tl_execution_backend_spec **out);

/* ========================================================= backend context */

/* The resolved backend state shared by every stage of one compilation: immutable and
 * reference-counted, so it may be shared across threads. */
typedef struct tl_backend_context tl_backend_context;

/* create_backend_context: determines the target (NULL or "auto": detection; see
 * tl_determine_target), the host (target_host, else the target's own host, else
 * "c"), attaches the host, selects exactly one registered backend owning the target
 * ("No backend registered for target kind 'k'. Available: ..." TL_ENOTFOUND, "No
 * backend matches target T", "Multiple backends match target T: a, b"), and resolves
 * the execution backend (NULL: the TILELANG_EXECUTION_BACKEND environment variable,
 * else "auto"). The caller owns the context. Thread-safe. */
TL_API tl_status tl_create_backend_context(const char *target, const char *target_host,
                                           const char *execution_backend, tl_backend_context **out);
/* BackendContext(module, target, target_host, execution_backend), validated as
 * upstream: "Backend module 'x' does not match target T", "Execution backend 'e' is
 * not declared by backend module 'x'", "Execution backend 'e' does not match target
 * T" (TL_EINVAL). `target` is used as given (attach its host first); `target_host`
 * NULL means the target's host, which must then exist. Takes its own references. */
TL_API tl_status tl_backend_context_create(const tl_backend_module *module, const tl_target *target,
                                           const tl_target *target_host,
                                           const tl_execution_backend_spec *execution_backend,
                                           tl_backend_context **out);
TL_API tl_backend_context *tl_backend_context_retain(const tl_backend_context *c);
TL_API void tl_backend_context_release(const tl_backend_context *c); /* NULL-safe */
/* The selected backend's name (borrowed). */
TL_API const char *tl_backend_context_name(const tl_backend_context *c);
TL_API const tl_backend_module *tl_backend_context_module(const tl_backend_context *c);
/* The target with its host attached (borrowed from the context). */
TL_API const tl_target *tl_backend_context_target(const tl_backend_context *c);
TL_API const tl_target *tl_backend_context_target_host(const tl_backend_context *c);
TL_API const tl_execution_backend_spec *tl_backend_context_execution_backend(const tl_backend_context *c);
/* The selected backend's pipeline on `mod`, in place. */
TL_API tl_status tl_backend_context_lower(const tl_backend_context *c, tl_ir_module *mod);
/* compile_device: 1, 0, or -1 for the execution backend's enable_device_compile. */
TL_API tl_status tl_backend_context_codegen_device(const tl_backend_context *c, tl_ir_module *mod,
                                                   int compile_device, tl_artifact **out);
TL_API tl_status tl_backend_context_preprocess_host_codegen(const tl_backend_context *c, tl_ir_module *mod);
TL_API tl_status tl_backend_context_codegen_host(const tl_backend_context *c, tl_ir_module *mod, tl_artifact **out);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_BACKEND_H */
