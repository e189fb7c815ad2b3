/* Execution backend specs and their resolution for a manifest and a target (upstream
 * execution_backend.py and BackendModule.resolve_execution_backend). Availability is
 * asked every time, as upstream does: a spec whose check is expensive caches inside it. */
#include <string.h>

#include "backend/manifest.h"
#include "backend/message.h"
#include "backend/registry.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"

bool tl_execution_backend_spec_matches(const tl_execution_backend_spec *s, const tl_target *target) {
  if (!s || !target) return false;
  return s->supports_target ? s->supports_target(target, s->user_data) : true;
}

bool tl_execution_backend_spec_is_available(const tl_execution_backend_spec *s) {
  if (!s) return false;
  return s->is_available ? s->is_available(s->user_data) : true;
}

const char *tl_execution_backend_spec_unavailable_reason(const tl_execution_backend_spec *s) {
  return s && s->unavailable_reason ? s->unavailable_reason(s->user_data) : NULL;
}

bool tl__manifest_declares_spec(const tl_backend_module *m, const tl_execution_backend_spec *spec) {
  for (size_t i = 0; m->execution_backends && m->execution_backends[i]; i++)
    if (m->execution_backends[i] == spec) return true;
  return false;
}

size_t tl_backend_module_allowed_execution_backends(const tl_backend_module *m, const tl_target *target,
                                                    bool include_unavailable, const char **names, size_t cap) {
  if (tl__module_require_target(m, target) != TL_OK) return 0;
  size_t n = 0;
  for (size_t i = 0; m->execution_backends[i]; i++) {
    const tl_execution_backend_spec *s = m->execution_backends[i];
    if (!tl_execution_backend_spec_matches(s, target)) continue;
    if (!include_unavailable && !tl_execution_backend_spec_is_available(s)) continue;
    if (n < cap) names[n] = s->name;
    n++;
  }
  tl__error_clear();
  return n;
}

/* Specs of a manifest filtered for one resolution: a few inline, more on the heap. */
#define SPECS_INLINE 16
typedef struct spec_list {
  const tl_execution_backend_spec **items;
  size_t len;
  const tl_execution_backend_spec *inline_items[SPECS_INLINE];
} spec_list;

static tl_status spec_list_init(spec_list *l, size_t cap) {
  l->len = 0;
  l->items = l->inline_items;
  if (cap > SPECS_INLINE) {
    l->items = tl__malloc(cap * sizeof *l->items);
    if (!l->items) {
      l->items = l->inline_items;
      return tl__oom();
    }
  }
  return TL_OK;
}

static void spec_list_free(spec_list *l) {
  if (l->items != l->inline_items) tl__free(l->items);
}

/* "a, b" of the specs' names, or "<none>". */
static void append_names(tl__sb *sb, const spec_list *l) {
  if (l->len == 0) tl__sb_append(sb, "<none>");
  for (size_t i = 0; i < l->len; i++) {
    if (i) tl__sb_append(sb, ", ");
    tl__sb_append(sb, l->items[i]->name);
  }
}

tl_status tl_backend_module_resolve_execution_backend(const tl_backend_module *m, const char *requested,
                                                      const tl_target *target,
                                                      const tl_execution_backend_spec **out) {
  if (out) *out = NULL;
  TL__TRY(tl__module_require_target(m, target));
  size_t nspecs = tl__manifest_num_specs(m);
  spec_list all, avail;
  TL__TRY(spec_list_init(&all, nspecs));
  tl_status s = spec_list_init(&avail, nspecs);
  if (s != TL_OK) {
    spec_list_free(&all);
    return s;
  }
  for (size_t i = 0; i < nspecs; i++) {
    const tl_execution_backend_spec *spec = m->execution_backends[i];
    if (!tl_execution_backend_spec_matches(spec, target)) continue;
    all.items[all.len++] = spec;
  }
  const tl_execution_backend_spec *found = NULL;
  tl__sb sb = TL__SB_INIT;
  if (!requested || tl__str_eq_nocase(requested, "auto")) {
    /* The first available one; availability is asked in order and no further than
     * needed (checks are side-effect free by contract). */
    for (size_t i = 0; i < all.len && !found; i++)
      if (tl_execution_backend_spec_is_available(all.items[i])) found = all.items[i];
    if (!found) {
      tl__sb_append(&sb, "No available execution backend for target ");
      tl__sb_repr(&sb, tl_target_kind(target));
      tl__sb_append(&sb, ". Allowed: ");
      append_names(&sb, &all);
      tl__sb_append(&sb, ".");
      s = tl__sb_error(TL_EINVAL, &sb);
    }
  } else {
    const tl_execution_backend_spec *spec = NULL;
    for (size_t i = 0; i < all.len && !spec; i++) {
      /* str(requested).lower() == spec.name */
      const char *a = requested, *b = all.items[i]->name;
      bool eq = true;
      for (; *a && *b && eq; a++, b++) eq = (char)(*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) == *b;
      if (eq && !*a && !*b) spec = all.items[i];
    }
    if (!spec) {
      tl__sb_append(&sb, "Invalid execution backend ");
      tl__sb_repr(&sb, requested);
      tl__sb_append(&sb, " for target ");
      tl__sb_repr(&sb, tl_target_kind(target));
      tl__sb_append(&sb, ". Allowed: ");
      append_names(&sb, &all);
      tl__sb_append(&sb, ". Tip: use execution_backend='auto'.");
      s = tl__sb_error(TL_EINVAL, &sb);
    } else if (!tl_execution_backend_spec_is_available(spec)) {
      for (size_t i = 0; i < all.len; i++)
        if (tl_execution_backend_spec_is_available(all.items[i])) avail.items[avail.len++] = all.items[i];
      tl__sb_append(&sb, "Execution backend ");
      tl__sb_repr(&sb, requested);
      tl__sb_append(&sb, " requires extra dependencies and is not available now. Try one of: ");
      append_names(&sb, &avail);
      tl__sb_append(&sb, ".");
      s = tl__sb_error(TL_EUNAVAILABLE, &sb);
    } else {
      found = spec;
    }
  }
  tl__sb_free(&sb);
  spec_list_free(&all);
  spec_list_free(&avail);
  if (found && out) *out = found;
  return s;
}
