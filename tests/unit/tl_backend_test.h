/* Helpers for the backend system's tests: targets, predicates and small components
 * whose calls are recorded, so a test can see what the registry dispatched.
 *
 * The registries are process-global and built-in backends may own common kinds, so
 * test manifests own the kinds no built-in backend uses (vulkan, nvptx) or guard
 * themselves with a predicate on the target's "model" attribute. */
#ifndef TL_BACKEND_TEST_H
#define TL_BACKEND_TEST_H

#include <stdatomic.h>
#include <stdlib.h>

#include "base/error.h"
#include "tilelang/backend.h"
#include "tl_test.h"

/* A parsed target, or the test fails. The caller releases it. */
static inline tl_target *tlt_target(const char *spec) {
  tl_target *t = NULL;
  tl_status s = tl_target_parse(spec, &t);
  if (s != TL_OK) fail_msg("tl_target_parse(%s): %s", spec, tl_last_error());
  return t;
}

/* Predicate: the target's "model" attribute equals the string user_data. */
static inline bool tlt_model_is(const tl_target *t, void *user_data) {
  const char *m = NULL;
  return tl_target_attr_str(t, "model", &m) && strcmp(m, (const char *)user_data) == 0;
}

/* Predicate: the target has the key named by user_data. */
static inline bool tlt_has_key(const tl_target *t, void *user_data) { return tl_target_has_key(t, user_data); }
static inline bool tlt_never(const tl_target *t, void *user_data) {
  (void)t;
  (void)user_data;
  return false;
}
static inline bool tlt_always(const tl_target *t, void *user_data) {
  (void)t;
  (void)user_data;
  return true;
}

/* Availability: *(atomic_bool *)user_data, or true with NULL. */
static inline bool tlt_flag_available(void *user_data) {
  return user_data ? atomic_load((atomic_bool *)user_data) : true;
}
static inline bool tlt_unavailable(void *user_data) {
  (void)user_data;
  return false;
}

/* A record of calls made by the components below (user_data points to one). */
typedef struct tlt_calls {
  atomic_int n;
  char last[64]; /* what the last call saw: kind of target, or a tag */
} tlt_calls;

static inline tl_status tlt_lower(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)mod;
  tlt_calls *c = user_data;
  if (c) {
    atomic_fetch_add(&c->n, 1);
    snprintf(c->last, sizeof c->last, "%s", tl_target_kind(target));
  }
  return TL_OK;
}

/* A codegen producing an artifact whose format is the string user_data. */
static inline tl_status tlt_build(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out) {
  (void)mod;
  char src[128];
  snprintf(src, sizeof src, "// %s for %s", (const char *)user_data, tl_target_kind(target));
  return tl_artifact_create((const char *)user_data, src, out);
}

static inline tl_status tlt_fail_build(tl_ir_module *mod, const tl_target *target, void *user_data,
                                       tl_artifact **out) {
  (void)mod;
  (void)target;
  (void)user_data;
  (void)out;
  return tl__error(TL_ECOMPILE, "tlt_fail_build: the compiler said no");
}

/* A hook appending its name (user_data) to a shared trace. */
typedef struct tlt_trace {
  char text[256];
} tlt_trace;
static inline tlt_trace *tlt_hook_trace(void) {
  static tlt_trace trace;
  return &trace;
}

static inline tl_status tlt_hook(tl_ir_module *mod, const tl_target *target_host, const tl_target *target,
                                 void *user_data) {
  (void)mod;
  tlt_trace *tr = tlt_hook_trace();
  size_t n = strlen(tr->text);
  snprintf(tr->text + n, sizeof tr->text - n, "%s%s(%s,%s)", n ? " " : "",
           (const char *)user_data, target_host ? tl_target_kind(target_host) : "-", tl_target_kind(target));
  return TL_OK;
}

static inline tl_status tlt_failing_hook(tl_ir_module *mod, const tl_target *target_host, const tl_target *target,
                                         void *user_data) {
  (void)mod;
  (void)target_host;
  (void)target;
  return tl__error(TL_EINVAL, "hook %s failed", (const char *)user_data);
}

/* A global function returning its user_data (a string) as an owned STR. */
static inline tl_status tlt_echo(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  return tl_value_set_str(ret, (const char *)user_data);
}

#endif
