/* BackendContext and create_backend_context (upstream module.py): resolved once per
 * compilation, immutable afterwards, shared by reference count. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "backend/codegen_registries.h"
#include "backend/manifest.h"
#include "backend/message.h"
#include "backend/registry.h"
#include "backend/target_cache.h"
#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/init.h"
#include "base/refcount.h"

struct tl_backend_context {
  tl__refcount rc;
  const tl_backend_module *module;
  tl_target *target;      /* with target_host attached */
  tl_target *target_host;
  const tl_execution_backend_spec *execution_backend;
};

#define DEFAULT_TARGET_HOST "c"

/* ----------------------------------------------------------- construction */

/* Upstream BackendContext.__post_init__. */
static tl_status validate(const tl_backend_module *module, const tl_target *target,
                          const tl_execution_backend_spec *spec) {
  tl__sb sb = TL__SB_INIT;
  if (!tl_backend_module_matches(module, target)) {
    tl__sb_append(&sb, "Backend module ");
    tl__sb_repr(&sb, module->name);
    tl__sb_append(&sb, " does not match target ");
    tl__sb_target(&sb, target);
    return tl__sb_error(TL_EINVAL, &sb);
  }
  if (!tl__manifest_declares_spec(module, spec)) {
    tl__sb_append(&sb, "Execution backend ");
    tl__sb_repr(&sb, spec->name);
    tl__sb_append(&sb, " is not declared by backend module ");
    tl__sb_repr(&sb, module->name);
    return tl__sb_error(TL_EINVAL, &sb);
  }
  if (!tl_execution_backend_spec_matches(spec, target)) {
    tl__sb_append(&sb, "Execution backend ");
    tl__sb_repr(&sb, spec->name);
    tl__sb_append(&sb, " does not match target ");
    tl__sb_target(&sb, target);
    return tl__sb_error(TL_EINVAL, &sb);
  }
  return TL_OK;
}

/* Builds the context, taking over the references to target and target_host. */
static tl_status make_context(const tl_backend_module *module, tl_target *target, tl_target *target_host,
                              const tl_execution_backend_spec *spec, tl_backend_context **out) {
  tl_backend_context *c = tl__malloc(sizeof *c);
  if (!c) {
    tl_target_release(target);
    tl_target_release(target_host);
    return tl__oom();
  }
  tl__ref_init(&c->rc);
  c->module = module;
  c->target = target;
  c->target_host = target_host;
  c->execution_backend = spec;
  *out = c;
  return TL_OK;
}

tl_status tl_backend_context_create(const tl_backend_module *module, const tl_target *target,
                                    const tl_target *target_host, const tl_execution_backend_spec *execution_backend,
                                    tl_backend_context **out) {
  if (!out) return tl__error(TL_EINVAL, "out must not be NULL");
  *out = NULL;
  if (!module || !target || !execution_backend)
    return tl__error(TL_EINVAL, "backend context needs a module, a target and an execution backend");
  if (!target_host) target_host = tl_target_host(target);
  if (!target_host) return tl__error(TL_EINVAL, "backend context needs a target host (the target has none)");
  TL__TRY(validate(module, target, execution_backend));
  return make_context(module, tl_target_retain(target), tl_target_retain(target_host), execution_backend, out);
}

/* ------------------------------------------------------------- resolution */

/* The default host target, parsed once: targets are immutable. */
static _Atomic(tl_target *) g_default_host;

static tl_status default_host(tl_target **out) {
  tl_target *h = atomic_load_explicit(&g_default_host, memory_order_acquire);
  if (!h) {
    TL__TRY(tl_target_parse(DEFAULT_TARGET_HOST, &h));
    tl_target *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&g_default_host, &expected, h, memory_order_acq_rel,
                                                 memory_order_acquire)) {
      tl_target_release(h); /* another thread won */
      h = expected;
    }
  }
  *out = tl_target_retain(h);
  return TL_OK;
}

/* Upstream _resolve_backend_module: exactly one registered manifest owns the target. */
static tl_status select_module(const tl_target *target, const tl_backend_module **out) {
  const tl_backend_module *buf[8], **cands = buf;
  size_t n;
  const char *kind = tl_target_kind(target);
  /* A backend registered lazily (its device codegen's import path) comes in with
   * its plugin: import it before looking for the kind's manifests. A failing import
   * is the answer (its reason beats "no backend registered"). */
  TL__TRY(tl__component_ensure_loaded(&tl__device_codegens, kind));
  tl_status found = tl__backends_for_kind(kind, buf, 8, &n);
  if (found == TL_ENOTFOUND) {
    /* The message lists the kinds there are: those of lazy registrations too. */
    (void)tl__component_load_all(&tl__device_codegens);
    found = tl__backends_for_kind(kind, buf, 8, &n);
  }
  TL__TRY(found);
  if (n > 8) {
    /* More owners than the inline buffer: copy again into a heap array (the index may
     * have grown meanwhile; use what fits). */
    size_t cap = n;
    cands = tl__malloc(cap * sizeof *cands);
    if (!cands) return tl__oom();
    tl_status s = tl__backends_for_kind(kind, cands, cap, &n);
    if (s != TL_OK) {
      tl__free(cands);
      return s;
    }
    if (n > cap) n = cap;
  }
  /* Predicates run with no lock held; the matching ones are compacted to the front. */
  size_t matched = 0;
  for (size_t i = 0; i < n; i++)
    if (tl_backend_module_matches(cands[i], target)) cands[matched++] = cands[i];
  tl_status s = TL_OK;
  if (matched == 1) {
    *out = cands[0];
  } else {
    tl__sb sb = TL__SB_INIT;
    if (matched == 0) {
      tl__sb_append(&sb, "No backend matches target ");
      tl__sb_target(&sb, target);
    } else {
      tl__sb_append(&sb, "Multiple backends match target ");
      tl__sb_target(&sb, target);
      tl__sb_append(&sb, ": ");
      for (size_t i = 0; i < matched; i++) {
        if (i) tl__sb_append(&sb, ", ");
        tl__sb_append(&sb, cands[i]->name);
      }
    }
    s = tl__sb_error(TL_EINVAL, &sb);
  }
  if (cands != buf) tl__free(cands);
  return s;
}

/* The target with its host attached, and the host: the host is the argument, else
 * the one the target carries, else "c". */
static tl_status resolve_targets(const char *target, const char *target_host, tl_target **full, tl_target **host) {
  tl_target *t = NULL;
  TL__TRY(tl_determine_target(target ? target : "auto", &t));
  tl_status s = TL_OK;
  if (target_host) s = tl_target_parse(target_host, host);
  else if (tl_target_host(t)) *host = tl_target_retain(tl_target_host(t));
  else s = default_host(host);
  if (s == TL_OK) s = tl_target_with_host(t, *host, full);
  tl_target_release(t);
  if (s != TL_OK) {
    tl_target_release(*host);
    *host = NULL;
  }
  return s;
}

tl_status tl_create_backend_context(const char *target, const char *target_host, const char *execution_backend,
                                    tl_backend_context **out) {
  if (!out) return tl__error(TL_EINVAL, "out must not be NULL");
  *out = NULL;
  TL__TRY(tl__ensure_builtins());
  tl_target *host = NULL, *full = NULL;
  tl__target_cache_key key;
  tl__target_cache_key_init(&key, target, target_host);
  if (!tl__target_cache_get(&key, &full, &host)) {
    TL__TRY(resolve_targets(target, target_host, &full, &host));
    tl__target_cache_put(&key, full, host);
  }

  const tl_backend_module *module = NULL;
  const tl_execution_backend_spec *spec = NULL;
  tl_status s = select_module(full, &module);
  if (s == TL_OK) {
    if (!execution_backend) {
      execution_backend = tl__env("TILELANG_EXECUTION_BACKEND");
      if (execution_backend && !*execution_backend) execution_backend = NULL;
    }
    s = tl_backend_module_resolve_execution_backend(module, execution_backend, full, &spec);
  }
  if (s == TL_OK) s = validate(module, full, spec);
  if (s != TL_OK) {
    tl_target_release(full);
    tl_target_release(host);
    return s;
  }
  return make_context(module, full, host, spec, out);
}

/* ---------------------------------------------------------------- accessors */

tl_backend_context *tl_backend_context_retain(const tl_backend_context *c) {
  if (c) tl__ref_inc(&c->rc);
  return (tl_backend_context *)c;
}

void tl_backend_context_release(const tl_backend_context *c) {
  if (!c || !tl__ref_dec(&c->rc)) return;
  tl_target_release(c->target);
  tl_target_release(c->target_host);
  tl__free((void *)c);
}

const char *tl_backend_context_name(const tl_backend_context *c) { return c ? c->module->name : NULL; }
const tl_backend_module *tl_backend_context_module(const tl_backend_context *c) { return c ? c->module : NULL; }
const tl_target *tl_backend_context_target(const tl_backend_context *c) { return c ? c->target : NULL; }
const tl_target *tl_backend_context_target_host(const tl_backend_context *c) { return c ? c->target_host : NULL; }
const tl_execution_backend_spec *tl_backend_context_execution_backend(const tl_backend_context *c) {
  return c ? c->execution_backend : NULL;
}

/* ------------------------------------------------------------------ stages */

static tl_status check_context(const tl_backend_context *c) {
  return c ? TL_OK : tl__error(TL_EINVAL, "backend context must not be NULL");
}

tl_status tl_backend_context_lower(const tl_backend_context *c, tl_ir_module *mod) {
  TL__TRY(check_context(c));
  return tl_backend_module_lower(c->module, mod, c->target);
}

tl_status tl_backend_context_codegen_device(const tl_backend_context *c, tl_ir_module *mod, int compile_device,
                                            tl_artifact **out) {
  if (out) *out = NULL;
  TL__TRY(check_context(c));
  if (compile_device < -1 || compile_device > 1)
    return tl__error(TL_EINVAL, "compile_device must be 1, 0 or -1 (the execution backend's default), not %d",
                     compile_device);
  bool compile = compile_device < 0 ? c->execution_backend->enable_device_compile : compile_device == 1;
  return tl_backend_module_codegen_device(c->module, mod, c->target, compile, out);
}

tl_status tl_backend_context_preprocess_host_codegen(const tl_backend_context *c, tl_ir_module *mod) {
  TL__TRY(check_context(c));
  return tl_backend_module_preprocess_host_codegen(c->module, mod, c->target_host, c->target);
}

tl_status tl_backend_context_codegen_host(const tl_backend_context *c, tl_ir_module *mod, tl_artifact **out) {
  if (out) *out = NULL;
  TL__TRY(check_context(c));
  return tl_backend_module_codegen_host(c->module, mod, c->target_host, out);
}
