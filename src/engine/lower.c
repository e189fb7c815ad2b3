/* The stages of a compilation before the execution backend (docs/lowering.md):
 * options, the function, the context, then lowering inside a compilation session
 * and code generation. */
#include <stddef.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "base/vec.h"
#include "engine/engine_internal.h"
#include "kernel_table/kernel_table.h"
#include "transform/pass_config_keys.h"
#include "transform/kernel_table.h"
#include "transform/pass.h"
#include "transform/session.h"

/* The first version's size: every field through `log`. */
#define OPTIONS_V1_SIZE (offsetof(tl_compile_options, log) + sizeof(FILE *))

tl_status tl__compile_options_normalize(const tl_compile_options *in, tl_compile_options *out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  if (!in) return TL_OK;
  size_t n = in->struct_size ? in->struct_size : sizeof *out;
  if (n < OPTIONS_V1_SIZE)
    return tl__error(TL_EINVAL, "tl_compile_options.struct_size is %zu; expected sizeof(tl_compile_options) (%zu)",
                     in->struct_size, sizeof *out);
  memcpy(out, in, n < sizeof *out ? n : sizeof *out);
  out->struct_size = sizeof *out;
  return tl__pass_configs_check(out->pass_configs); /* unknown keys too: a typo must not pass silently */
}

tl_status tl__engine_pick_func(const tl_ir_module *mod, const char *name, const tl_ir_func **out) {
  *out = NULL;
  if (name) {
    *out = tl_ir_module_find_func(mod, name);
    return *out ? TL_OK : tl__error(TL_ENOTFOUND, "the module has no function '%s'", name);
  }
  size_t n = tl_ir_module_num_funcs(mod);
  if (n == 1) {
    *out = tl_ir_module_func(mod, 0);
    return TL_OK;
  }
  if (n == 0) return tl__error(TL_EINVAL, "the module has no function to compile");
  tl__sb sb = TL__SB_INIT;
  for (size_t i = 0; i < n; i++) tl__sb_appendf(&sb, "%s'%s'", i ? ", " : "", tl_ir_module_func(mod, i)->name);
  TL__TRY(tl__sb_status(&sb));
  tl_status s = tl__error(TL_EINVAL, "the module has %zu functions (%s); name the one to compile", n, tl__sb_str(&sb));
  tl__sb_free(&sb);
  return s;
}

tl_status tl__engine_context(const tl_compile_options *opts, tl_backend_context **out) {
  *out = NULL;
  if (opts->context) {
    *out = tl_backend_context_retain(opts->context);
    return TL_OK;
  }
  return tl_create_backend_context(opts->target, opts->target_host, opts->execution_backend, out);
}

tl_status tl__engine_exec_impl(const tl_backend_context *ctx, const tl__exec_impl **out) {
  const tl_execution_backend_spec *spec = tl_backend_context_execution_backend(ctx);
  *out = tl__find_exec_impl(spec->name);
  if (!*out)
    return tl__error(TL_EUNSUPPORTED, "Execution backend '%s' has no implementation in this library (backend '%s')",
                     spec->name, tl_backend_context_name(ctx));
  return TL_OK;
}

void tl__lowered_free(tl__lowered *l) {
  if (!l) return;
  tl_ir_module_free(l->mod);
  tl_kernel_table_free(l->table);
  tl_artifact_release(l->device);
  tl_artifact_release(l->host);
  memset(l, 0, sizeof *l);
}

/* ------------------------------------------------ restricting the module copy */

typedef struct reach {
  tl_ir_module *mod;
  tl__vec names; /* const char *: functions to keep */
  tl_status status;
} reach;

static bool keep_name(reach *r, const char *name) {
  for (size_t i = 0; i < r->names.len; i++)
    if (strcmp(TL__VEC_AT(&r->names, const char *, i), name) == 0) return false;
  if (tl__vec_push(&r->names, &name) != TL_OK) r->status = tl__oom();
  return r->status == TL_OK;
}

static bool reach_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  reach *r = v->ctx;
  if (s->kind == TL_STMT_LAUNCH && r->status == TL_OK) {
    const tl_ir_func *k = tl_ir_module_find_func(r->mod, s->u.launch.kernel);
    if (k && keep_name(r, k->name)) tl_ir_visit_stmt(v, k->body);
  }
  return true;
}

/* Removes every function of `mod` except `name` and the ones it launches. */
static tl_status restrict_module(tl_ir_module *mod, const char *name) {
  reach r = {mod, TL__VEC_INIT(const char *), TL_OK};
  const tl_ir_func *f = tl_ir_module_find_func(mod, name);
  if (!f) return tl__error(TL_EINTERNAL, "function '%s' vanished from the module copy", name);
  if (keep_name(&r, f->name)) {
    tl_ir_visitor v = {NULL, reach_stmt, &r};
    tl_ir_visit_stmt(&v, f->body);
  }
  if (r.status != TL_OK) {
    tl__vec_free(&r.names);
    return tl__oom();
  }
  for (size_t i = tl_ir_module_num_funcs(mod); i-- > 0;) {
    const char *n = tl_ir_module_func(mod, i)->name;
    bool keep = false;
    for (size_t j = 0; j < r.names.len && !keep; j++) keep = strcmp(TL__VEC_AT(&r.names, const char *, j), n) == 0;
    if (!keep) tl_ir_module_remove_func(mod, i);
  }
  tl__vec_free(&r.names);
  return TL_OK;
}

/* ----------------------------------------------------------------- lowering */

static tl_status table_and_codegen(const tl_backend_context *ctx, const char *name, bool codegen, tl__lowered *out);

/* Runs the semantic check, the pipeline and the code generators inside a session
 * (code generators read pass configs too: tl.enable_fast_math, tl.cpu.num_threads). */
static tl_status lower_in_session(tl_ir_module *work, const char *name, const tl_compile_options *opts,
                                  const tl_backend_context *ctx, bool codegen, tl__lowered *out) {
  TL__TRY(tl__pass_configs_check(opts->pass_configs)); /* also for tlc lower/source, which skip tl_compile */
  tl__session session;
  tl__session_init(&session);
  session.kernel_name = name;
  session.backend_name = tl_backend_context_name(ctx);
  session.pass_configs = opts->pass_configs;
  session.time_passes = opts->time_passes;
  session.print_after_all = opts->print_after_all;
  session.print_after = opts->print_after;
  session.log = opts->log;
  tl__session *previous = tl__session_enter(&session);
  /* Run as a pass, so that it is timed and traced with the pipeline's. */
  static const tl__pass check = {"semantic_check", tl__pass_semantic_check};
  tl_status s = tl__run_passes(work, tl_backend_context_target(ctx), &check, 1);
  if (s == TL_OK) s = tl_backend_context_lower(ctx, work);
  if (s == TL_OK) s = table_and_codegen(ctx, name, codegen, out);
  tl__session_exit(previous);
  if (s == TL_OK) s = tl__session_check_print_after(&session);
  if (s == TL_OK && session.time_passes) tl__session_report_timings(&session);
  tl__session_free(&session);
  return s;
}

tl_status tl__engine_lower(const tl_ir_module *mod, const tl_ir_func *func, const tl_compile_options *opts,
                           const tl_backend_context *ctx, bool codegen, tl__lowered *out) {
  memset(out, 0, sizeof *out);
  tl_status s = tl_ir_module_clone(mod, &out->mod);
  if (s == TL_OK) s = restrict_module(out->mod, func->name);
  if (s == TL_OK) s = lower_in_session(out->mod, func->name, opts, ctx, codegen, out);
  if (s != TL_OK) tl__lowered_free(out);
  return s;
}

static tl_status table_and_codegen(const tl_backend_context *ctx, const char *name, bool codegen, tl__lowered *out) {
  tl_status s = tl__kernel_table_from_module(out->mod, name, &out->table);
  if (s == TL_OK && codegen) {
    const tl_execution_backend_spec *spec = tl_backend_context_execution_backend(ctx);
    s = tl_backend_context_codegen_device(ctx, out->mod, -1, &out->device);
    if (s == TL_OK && spec->enable_host_codegen) {
      s = tl_backend_context_preprocess_host_codegen(ctx, out->mod);
      if (s == TL_OK) s = tl_backend_context_codegen_host(ctx, out->mod, &out->host);
    }
  }
  return s;
}
