/* Backend manifests: validation in upstream's order and the identity relation. */
#include "backend/manifest.h"

#include <stdlib.h>
#include <string.h>

#include "backend/codegen_registries.h"
#include "backend/message.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"

/* ------------------------------------------------------------------ lookups */

size_t tl__manifest_num_kinds(const tl_backend_module *m) {
  size_t n = 0;
  while (m->target_kinds && m->target_kinds[n]) n++;
  return n;
}

size_t tl__manifest_num_specs(const tl_backend_module *m) {
  size_t n = 0;
  while (m->execution_backends && m->execution_backends[n]) n++;
  return n;
}

bool tl__manifest_owns_kind(const tl_backend_module *m, const char *kind) {
  for (size_t i = 0; m->target_kinds && m->target_kinds[i]; i++)
    if (strcmp(m->target_kinds[i], kind) == 0) return true;
  return false;
}

const tl_pass_pipeline *tl__manifest_pipeline(const tl_backend_module *m, const char *kind) {
  for (const tl_pipeline_entry *e = m->pipelines; e && e->target_kind; e++)
    if (strcmp(e->target_kind, kind) == 0) return e->pipeline;
  return NULL;
}

const tl_device_codegen *tl__manifest_device_codegen(const tl_backend_module *m, const char *kind) {
  for (const tl_device_codegen_entry *e = m->device_codegens; e && e->target_kind; e++)
    if (strcmp(e->target_kind, kind) == 0) return e->codegen;
  return NULL;
}

const tl_host_codegen *tl__manifest_host_codegen(const tl_backend_module *m, const char *host_kind) {
  for (const tl_host_codegen_entry *e = m->host_codegens; e && e->target_host_kind; e++)
    if (strcmp(e->target_host_kind, host_kind) == 0) return e->codegen;
  return NULL;
}

const tl_host_codegen_hook *const *tl__manifest_hooks(const tl_backend_module *m, const char *kind) {
  for (const tl_host_codegen_hooks_entry *e = m->host_codegen_hooks; e && e->target_kind; e++)
    if (strcmp(e->target_kind, kind) == 0) return e->hooks;
  return NULL;
}

/* --------------------------------------------------------------- validation */

/* Starts a message "BackendModule 'name' ". */
static void begin(tl__sb *sb, const tl_backend_module *m) {
  tl__sb_append(sb, "BackendModule ");
  tl__sb_repr(sb, m->name);
  tl__sb_putc(sb, ' ');
}

/* "BackendModule 'name' <tail>" as TL_EINVAL. */
static tl_status fail(const tl_backend_module *m, const char *tail) {
  tl__sb sb = TL__SB_INIT;
  begin(&sb, m);
  tl__sb_append(&sb, tail);
  return tl__sb_error(TL_EINVAL, &sb);
}

/* A component check's message, prefixed "BackendModule 'name' <what> for target kind 'k': ". */
static tl_status fail_component(const tl_backend_module *m, const char *what, const char *kind) {
  tl__sb sb = TL__SB_INIT;
  begin(&sb, m);
  tl__sb_appendf(&sb, "%s for target kind ", what);
  tl__sb_repr(&sb, kind);
  tl__sb_append(&sb, ": ");
  tl__sb_append(&sb, tl_last_error());
  return tl__sb_error(TL_EINVAL, &sb);
}

/* Whether the {NULL}-terminated entries' keys are exactly the owned kinds, each once
 * (Python: set(mapping) == set(target_kinds); a C array could repeat a key). */
static bool keys_are_kinds(const tl_backend_module *m, const void *entries, size_t stride) {
  size_t nk = tl__manifest_num_kinds(m), n = 0;
  for (const char *p = entries; p && *(const char *const *)p; p += stride, n++) {
    const char *key = *(const char *const *)p;
    if (!tl__manifest_owns_kind(m, key)) return false;
    for (const char *q = entries; q != p; q += stride)
      if (strcmp(*(const char *const *)q, key) == 0) return false;
  }
  return n == nk;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static tl_status check_kinds(const tl_backend_module *m) {
  size_t n = tl__manifest_num_kinds(m);
  bool empty = n == 0;
  for (size_t i = 0; i < n; i++)
    if (!*m->target_kinds[i]) empty = true;
  if (empty) return fail(m, "must own at least one non-empty target kind");
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(m->target_kinds[i], m->target_kinds[j]) == 0) return fail(m, "target kinds must be unique");
  return TL_OK;
}

static tl_status check_pipelines(const tl_backend_module *m) {
  if (!keys_are_kinds(m, m->pipelines, sizeof *m->pipelines))
    return fail(m, "must define exactly one pipeline for every target kind");
  for (const tl_pipeline_entry *e = m->pipelines; e->target_kind; e++) {
    tl__sb sb = TL__SB_INIT;
    begin(&sb, m);
    if (!e->pipeline) {
      tl__sb_append(&sb, "pipeline for target kind ");
      tl__sb_repr(&sb, e->target_kind);
      tl__sb_append(&sb, " must not be NULL");
      return tl__sb_error(TL_EINVAL, &sb);
    }
    if (!tl__str_eq(e->pipeline->name, e->target_kind)) {
      tl__sb_append(&sb, "pipeline ");
      tl__sb_repr(&sb, e->pipeline->name);
      tl__sb_append(&sb, " does not match target kind ");
      tl__sb_repr(&sb, e->target_kind);
      return tl__sb_error(TL_EINVAL, &sb);
    }
    if (!e->pipeline->lower) {
      tl__sb_append(&sb, "pipeline ");
      tl__sb_repr(&sb, e->pipeline->name);
      tl__sb_append(&sb, " has no lower function");
      return tl__sb_error(TL_EINVAL, &sb);
    }
    tl__sb_free(&sb);
  }
  return TL_OK;
}

static tl_status check_device_codegens(const tl_backend_module *m) {
  if (!keys_are_kinds(m, m->device_codegens, sizeof *m->device_codegens))
    return fail(m, "must define device codegen for every target kind");
  for (const tl_device_codegen_entry *e = m->device_codegens; e->target_kind; e++)
    if (tl__check_device_codegen(e->codegen) != TL_OK) return fail_component(m, "device codegen", e->target_kind);
  return TL_OK;
}

/* C only: a Python mapping cannot repeat or lose a key, nor hold None. */
static tl_status check_host_codegens(const tl_backend_module *m) {
  for (const tl_host_codegen_entry *e = m->host_codegens; e && e->target_host_kind; e++) {
    if (!*e->target_host_kind) return fail(m, "host codegen target kinds must not be empty");
    for (const tl_host_codegen_entry *f = m->host_codegens; f != e; f++)
      if (strcmp(f->target_host_kind, e->target_host_kind) == 0)
        return fail(m, "host codegen target kinds must be unique");
    if (tl__check_host_codegen(e->codegen) != TL_OK) return fail_component(m, "host codegen", e->target_host_kind);
  }
  return TL_OK;
}

static tl_status check_hooks(const tl_backend_module *m) {
  /* Unowned hook kinds, sorted and each once, as Python's sorted(set). */
  size_t n = 0;
  for (const tl_host_codegen_hooks_entry *e = m->host_codegen_hooks; e && e->target_kind; e++) n++;
  const char **unknown = n ? tl__calloc(n, sizeof *unknown) : NULL;
  if (n && !unknown) return tl__oom();
  size_t nu = 0;
  for (size_t i = 0; i < n; i++) {
    const char *kind = m->host_codegen_hooks[i].target_kind;
    if (tl__manifest_owns_kind(m, kind)) continue;
    bool seen = false;
    for (size_t j = 0; j < nu && !seen; j++) seen = strcmp(unknown[j], kind) == 0;
    if (!seen) unknown[nu++] = kind;
  }
  if (nu) {
    qsort(unknown, nu, sizeof *unknown, cmp_str);
    tl__sb sb = TL__SB_INIT;
    begin(&sb, m);
    tl__sb_append(&sb, "host codegen hook targets are not owned by this backend: ");
    tl__sb_repr_list(&sb, unknown, nu);
    tl__free(unknown);
    return tl__sb_error(TL_EINVAL, &sb);
  }
  tl__free(unknown);
  for (size_t i = 0; i < n; i++) {
    const tl_host_codegen_hooks_entry *e = &m->host_codegen_hooks[i];
    if (!e->hooks || !e->hooks[0]) return fail(m, "host codegen hook lists must not be empty");
  }
  for (size_t i = 0; i < n; i++) {
    const tl_host_codegen_hooks_entry *e = &m->host_codegen_hooks[i];
    for (size_t j = 0; j < i; j++)
      if (strcmp(m->host_codegen_hooks[j].target_kind, e->target_kind) == 0)
        return fail(m, "host codegen hook target kinds must be unique");
    for (size_t k = 0; e->hooks[k]; k++)
      if (tl__check_host_codegen_hook(e->hooks[k]) != TL_OK) return fail_component(m, "host codegen hook", e->target_kind);
  }
  return TL_OK;
}

static tl_status check_execution_backends(const tl_backend_module *m) {
  size_t n = tl__manifest_num_specs(m);
  if (n == 0) return fail(m, "must define at least one execution backend");
  const char **names = tl__calloc(n, sizeof *names);
  if (!names) return tl__oom();
  bool repeated = false, unnamed = false;
  for (size_t i = 0; i < n; i++) {
    names[i] = m->execution_backends[i]->name;
    if (!names[i] || !*names[i]) unnamed = true;
  }
  for (size_t i = 0; i < n && !unnamed && !repeated; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) repeated = true;
  tl_status s = TL_OK;
  if (unnamed) {
    s = fail(m, "execution backend names must not be empty");
  } else if (repeated) {
    tl__sb sb = TL__SB_INIT;
    begin(&sb, m);
    tl__sb_append(&sb, "execution backend names must be unique: ");
    tl__sb_repr_list(&sb, names, n);
    s = tl__sb_error(TL_EINVAL, &sb);
  }
  tl__free(names);
  TL__TRY(s);
  bool host_codegen = false;
  for (size_t i = 0; i < n; i++) host_codegen |= m->execution_backends[i]->enable_host_codegen;
  if (host_codegen && !(m->host_codegens && m->host_codegens[0].target_host_kind))
    return fail(m, "enables host codegen but defines no host codegen targets");
  return TL_OK;
}

static tl_status check_callbacks(const tl_backend_module *m) {
  for (const tl_callback_entry *e = m->callbacks; e && e->name; e++)
    if (!*e->name) return fail(m, "callback names must not be empty");
  for (const tl_callback_entry *e = m->callbacks; e && e->name; e++) {
    if (!e->fn) {
      tl__sb sb = TL__SB_INIT;
      begin(&sb, m);
      tl__sb_append(&sb, "callback ");
      tl__sb_repr(&sb, e->name);
      tl__sb_append(&sb, " has no function");
      return tl__sb_error(TL_EINVAL, &sb);
    }
  }
  return TL_OK;
}

tl_status tl__manifest_validate(const tl_backend_module *m) {
  if (!m) return tl__error(TL_EINVAL, "backend manifest must not be NULL");
  if (m->struct_size != 0 && m->struct_size < TL__BACKEND_MODULE_MIN_SIZE)
    return tl__error(TL_EINVAL, "BackendModule struct_size is %zu; set it to sizeof(tl_backend_module) (%zu)",
                     m->struct_size, TL__BACKEND_MODULE_MIN_SIZE);
  if (!m->name || !*m->name) return tl__error(TL_EINVAL, "BackendModule.name must not be empty");
  TL__TRY(check_kinds(m));
  TL__TRY(check_pipelines(m));
  TL__TRY(check_device_codegens(m));
  TL__TRY(check_host_codegens(m));
  TL__TRY(check_hooks(m));
  TL__TRY(check_execution_backends(m));
  TL__TRY(check_callbacks(m));
  return TL_OK;
}

/* ----------------------------------------------------------------- identity */

static bool kinds_equal(const char *const *a, const char *const *b) {
  size_t i = 0;
  for (; a[i] && b[i]; i++)
    if (strcmp(a[i], b[i]) != 0) return false;
  return !a[i] && !b[i];
}

/* Element-wise comparison of {key, descriptor}-shaped entry arrays: keys by content,
 * descriptors by identity; a NULL array equals an empty one. */
#define DEFINE_ENTRIES_EQUAL(fn, type, key, ptr)                          \
  static bool fn(const type *a, const type *b) {                           \
    static const type empty = {0};                                        \
    if (!a) a = &empty;                                                   \
    if (!b) b = &empty;                                                   \
    for (;; a++, b++) {                                                   \
      if (!a->key || !b->key) return !a->key && !b->key;                  \
      if (strcmp(a->key, b->key) != 0 || a->ptr != b->ptr) return false;  \
    }                                                                     \
  }
DEFINE_ENTRIES_EQUAL(pipelines_equal, tl_pipeline_entry, target_kind, pipeline)
DEFINE_ENTRIES_EQUAL(device_codegens_equal, tl_device_codegen_entry, target_kind, codegen)
DEFINE_ENTRIES_EQUAL(host_codegens_equal, tl_host_codegen_entry, target_host_kind, codegen)

static bool hooks_equal(const tl_host_codegen_hooks_entry *a, const tl_host_codegen_hooks_entry *b) {
  if (!a || !b) {
    const tl_host_codegen_hooks_entry *other = a ? a : b;
    return !other || !other->target_kind;
  }
  for (;; a++, b++) {
    if (!a->target_kind || !b->target_kind) return !a->target_kind && !b->target_kind;
    if (strcmp(a->target_kind, b->target_kind) != 0) return false;
    size_t i = 0;
    for (; a->hooks[i] && b->hooks[i]; i++)
      if (a->hooks[i] != b->hooks[i]) return false;
    if (a->hooks[i] || b->hooks[i]) return false;
  }
}

static bool callbacks_equal(const tl_callback_entry *a, const tl_callback_entry *b) {
  if (!a || !b) {
    const tl_callback_entry *other = a ? a : b;
    return !other || !other->name;
  }
  for (;; a++, b++) {
    if (!a->name || !b->name) return !a->name && !b->name;
    if (strcmp(a->name, b->name) != 0 || a->fn != b->fn || a->user_data != b->user_data) return false;
  }
}

bool tl__manifest_equal(const tl_backend_module *a, const tl_backend_module *b) {
  if (a == b) return true;
  size_t sa = a->struct_size ? a->struct_size : sizeof *a, sb = b->struct_size ? b->struct_size : sizeof *b;
  if (sa != sb || strcmp(a->name, b->name) != 0) return false;
  if (!kinds_equal(a->target_kinds, b->target_kinds)) return false;
  if (!pipelines_equal(a->pipelines, b->pipelines)) return false;
  if (!device_codegens_equal(a->device_codegens, b->device_codegens)) return false;
  size_t i = 0;
  for (; a->execution_backends[i] && b->execution_backends[i]; i++)
    if (a->execution_backends[i] != b->execution_backends[i]) return false;
  if (a->execution_backends[i] || b->execution_backends[i]) return false;
  if (a->supports_target != b->supports_target || a->predicate_data != b->predicate_data) return false;
  if (!host_codegens_equal(a->host_codegens, b->host_codegens)) return false;
  return hooks_equal(a->host_codegen_hooks, b->host_codegen_hooks) && callbacks_equal(a->callbacks, b->callbacks);
}

tl_status tl_backend_module_validate(const tl_backend_module *m) { return tl__manifest_validate(m); }
