/* Auto-detection and determine_target, as upstream tilelang/backend/target.py and
 * tilelang/env.py (shared/ref/TARGETS.md section 8). Detectors and normalizers run
 * from a snapshot of their registry, with no lock held. */
#include <ctype.h>
#include <string.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/init.h"
#include "base/str.h"
#include "registry.h"
#include "value.h"

/* The first normalizer that claims spec: *out a target, or NULL when none does.
 * A failing normalizer fails the call, as an exception does upstream. */
static tl_status normalize(const char *spec, tl_target **out) {
  *out = NULL;
  tl__target_hook *hooks;
  size_t n;
  TL__TRY(tl__target_registry_snapshot(&tl__target_normalizers, &hooks, &n));
  tl_status s = TL_OK;
  for (size_t i = 0; i < n && s == TL_OK && !*out; i++) {
    tl_target *t = NULL;
    s = hooks[i].fn.normalize(spec, hooks[i].user_data, &t);
    if (s != TL_OK) tl_target_release(t);
    else *out = t;
  }
  tl__free(hooks);
  return s;
}

/* _finalize_target: the normalizers see a result that came from a normalizer or a
 * detector once more (as its JSON text); one that claims it replaces it. */
static tl_status finalize(tl_target *t, tl_target **out) {
  tl_target *n = NULL;
  tl_status s = normalize(tl_target_str(t), &n);
  if (s != TL_OK) {
    tl_target_release(t);
    return s;
  }
  if (n) {
    tl_target_release(t);
    t = n;
  }
  *out = t;
  return TL_OK;
}

tl_status tl_auto_detect_target(tl_target **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_auto_detect_target: out is NULL");
  *out = NULL;
  TL__TRY(tl__ensure_builtins());
  tl__target_hook *hooks;
  size_t n;
  TL__TRY(tl__target_registry_snapshot(&tl__target_detectors, &hooks, &n));
  tl__sb tried = TL__SB_INIT;
  tl_target *found = NULL;
  tl_status s = TL_OK;
  for (size_t i = 0; i < n && !found; i++) {
    tl_target *t = NULL;
    tl__error_clear();
    s = hooks[i].fn.detect(hooks[i].user_data, &t);
    if (s == TL_ENOMEM) {
      tl_target_release(t);
      break;
    }
    if (s == TL_OK && t) {
      found = t;
      break;
    }
    tl_target_release(t);
    /* Say what each detector tried: its error, or the reason it found nothing. */
    const char *why = tl_last_error()[0] ? tl_last_error() : "not found";
    tl__sb_appendf(&tried, "%s%s: %s", tried.len ? ", " : "", hooks[i].name, why);
    s = TL_OK;
  }
  tl__free(hooks);
  if (s == TL_OK && !found && (s = tl__sb_status(&tried)) == TL_OK) {
    if (tried.len) s = tl__error(TL_ENOTFOUND, "No registered target detector found an available target. Tried: %s.",
                                 tl__sb_str(&tried));
    else s = tl__error(TL_ENOTFOUND, "No registered target detector found an available target.");
  }
  tl__sb_free(&tried);
  if (s != TL_OK) return s;
  return finalize(found, out);
}

/* The spec without leading and trailing whitespace (Python's str.strip), in a
 * fresh string; NULL with TL_ENOMEM set. */
static char *strip(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) n--;
  char *r = tl__strndup(s, n);
  if (!r) tl__oom();
  return r;
}

/* _validate_manual_target for a string (as_dict: the C spelling of a dict, a JSON
 * object), then _finalize_target. */
static tl_status manual(const char *spec, bool as_dict, tl_target **out) {
  tl_target *t = NULL;
  TL__TRY(normalize(spec, &t));
  if (t) return finalize(t, out);
  char *stripped = strip(spec);
  if (!stripped) return TL_ENOMEM;
  tl_status s;
  if (!as_dict && !*stripped) {
    s = tl__error(TL_EINVAL, "Target %s is not supported", spec);
  } else {
    s = tl_target_parse(stripped, out);
    if (s != TL_OK && s != TL_ENOMEM)
      s = tl__error(TL_EINVAL, "Target %s is not supported. %s Cause: %s", spec,
                    as_dict ? "Pass a valid target config dict." :
                              "Pass target options as a dict when the target needs attributes.",
                    tl_last_error());
  }
  tl__free(stripped);
  return s;
}

/* True when s, stripped, starts with '{' (a config dict written as JSON). */
static bool looks_like_dict(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return *s == '{';
}

/* Environment.get_default_target: TILELANG_DEFAULT_TARGET, "auto" when unset. */
static tl_status from_default_target(tl_target **out) {
  const char *env = tl__env("TILELANG_DEFAULT_TARGET");
  if (!env || strcmp(env, "auto") == 0) return tl_auto_detect_target(out);
  if (!looks_like_dict(env)) return manual(env, false, out);
  /* _parse_target_config: json.loads; an empty dict is falsy, so the raw string
   * is used instead ("{}" then fails as a target string). */
  tl__arena a;
  tl__arena_init(&a, 1024);
  tl__tval v;
  tl_status s = tl__tv_parse_json(&a, env, "", &v);
  bool empty = s == TL_OK && v.type == TL__TV_MAP && v.v.map.n == 0;
  tl__arena_free(&a);
  if (s == TL_EINVAL)
    return tl__error(TL_EINVAL,
                     "TILELANG_DEFAULT_TARGET looks like a dict but could not be parsed. Use JSON syntax like "
                     "{\"kind\": \"cuda\", \"arch\": \"sm_100\"}. (%s)",
                     tl_last_error());
  if (s != TL_OK) return s;
  return manual(env, !empty, out);
}

tl_status tl_determine_target(const char *spec, tl_target **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_determine_target: out is NULL");
  *out = NULL;
  TL__TRY(tl__ensure_builtins());
  if (!spec || strcmp(spec, "auto") == 0) return from_default_target(out);
  return manual(spec, looks_like_dict(spec), out);
}
