/* Plugin loading: dlopen + symbol lookup (loading) kept separate from calling the
 * init function with the host table (initialising), at most once per import path.
 * One mutex guards the table of import paths; it is never held while a library is
 * opened or an init function runs, so an init function may use every registry. */
#include "backend/plugin_loader.h"
#include "backend/plugin_trust.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/map.h"
#include "base/str.h"
#include "tilelang/backend.h"

#define BUILTIN_PREFIX "builtin:"

typedef enum { IMPORT_RUNNING, IMPORT_DONE } import_state;

typedef struct import_record {
  import_state state;
  pthread_t owner; /* the thread running the init while RUNNING */
} import_record;

typedef struct builtin_plugin {
  tl_plugin_init_fn init;
} builtin_plugin;

typedef struct import_scheme {
  tl_import_fn fn;
  void *user_data;
} import_scheme;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_changed = PTHREAD_COND_INITIALIZER;
static tl__map g_imports = TL__MAP_INIT;  /* import path -> import_record* */
static tl__map g_builtins = TL__MAP_INIT; /* NAME -> builtin_plugin* */
static tl__map g_schemes = TL__MAP_INIT;  /* scheme -> import_scheme* */

/* ------------------------------------------------------------- the host table */

static tl_status host_set_error(tl_status status, const char *message) {
  return tl__error(status, "%s", message ? message : "");
}

/* The ABI 1.0 part of the table (its struct_size says so). */
static const tl_plugin_host g_host = {
  .struct_size = offsetof(tl_plugin_host, alloc),
  .abi_version = TL_PLUGIN_ABI_VERSION,
  .library_version = TL_VERSION_STRING,
  .register_backend = tl_register_backend,
  .register_device_codegen = tl_register_device_codegen,
  .register_host_codegen = tl_register_host_codegen,
  .register_host_codegen_hook = tl_register_host_codegen_hook,
  .register_lazy_device_codegen = tl_register_lazy_device_codegen,
  .register_lazy_host_codegen = tl_register_lazy_host_codegen,
  .register_lazy_host_codegen_hooks = tl_register_lazy_host_codegen_hooks,
  .register_global_func = tl_register_global_func,
  .get_global_func = tl_get_global_func,
  .call_global_func = tl_call_global_func,
  .value_clear = tl_value_clear,
  .value_set_str = tl_value_set_str,
  .value_set_bytes = tl_value_set_bytes,
  .set_error = host_set_error,
  .last_error = tl_last_error,
  .target_kind = tl_target_kind,
  .target_str = tl_target_str,
  .target_host = tl_target_host,
  .target_has_key = tl_target_has_key,
  .target_attr_str = tl_target_attr_str,
  .target_attr_int = tl_target_attr_int,
  .target_attr_bool = tl_target_attr_bool,
  .target_attr_array = tl_target_attr_array,
  .artifact_create = tl_artifact_create,
  .artifact_create_binary = tl_artifact_create_binary,
  .artifact_retain = tl_artifact_retain,
  .artifact_release = tl_artifact_release,
  .artifact_format = tl_artifact_format,
  .artifact_source = tl_artifact_source,
  .artifact_binary = tl_artifact_binary,
};

/* The table with the ABI 1.1 services (code generation, lowering, runtimes), which
 * live in layers above this one: tl__plugin_host_extend publishes it once, during
 * the registration of the built-ins, before any plugin is imported through them.
 * Until then (a direct tl__plugin_import in a test) plugins get the 1.0 table, whose
 * struct_size tells them so. */
static tl_plugin_host g_full;
static _Atomic(const tl_plugin_host *) g_current = &g_host;

const tl_plugin_host *tl__plugin_host(void) { return atomic_load_explicit(&g_current, memory_order_acquire); }

void tl__plugin_host_extend(const tl_plugin_host *ext) {
  pthread_mutex_lock(&g_lock);
  if (atomic_load_explicit(&g_current, memory_order_relaxed) == &g_host) {
    const size_t base = offsetof(tl_plugin_host, alloc);
    memcpy(&g_full, ext, sizeof g_full);
    memcpy(&g_full, &g_host, base); /* the 1.0 part is always this file's */
    g_full.struct_size = sizeof g_full;
    atomic_store_explicit(&g_current, &g_full, memory_order_release);
  }
  pthread_mutex_unlock(&g_lock);
}

/* ------------------------------------------------------------ import paths */

static bool is_identifier(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
  return true;
}

/* Splits "lib.so:symbol" at its last colon when what follows is an identifier; the
 * library part is copied to *lib (tl__free it), the symbol points into path. */
static tl_status split_path(const char *path, char **lib, const char **symbol) {
  const char *colon = strrchr(path, ':');
  if (colon && colon > path && is_identifier(colon + 1)) {
    *lib = tl__strndup(path, (size_t)(colon - path));
    *symbol = colon + 1;
  } else {
    *lib = tl__strdup(path);
    *symbol = TL_PLUGIN_DEFAULT_INIT;
  }
  return *lib ? TL_OK : tl__oom();
}

/* The registered scheme import_path starts with ("scheme:rest"), copied out under the
 * lock; false if none. *rest points into import_path. */
static bool find_scheme(const char *import_path, import_scheme *out, const char **rest) {
  const char *colon = strchr(import_path, ':');
  if (!colon || colon == import_path || (size_t)(colon - import_path) >= 64) return false;
  char name[64];
  memcpy(name, import_path, (size_t)(colon - import_path));
  name[colon - import_path] = 0;
  pthread_mutex_lock(&g_lock);
  import_scheme *sc = tl__map_find(&g_schemes, name);
  if (sc) *out = *sc;
  pthread_mutex_unlock(&g_lock);
  *rest = colon + 1;
  return sc != NULL;
}

tl_status tl__plugin_check_path(const char *import_path) {
  if (!import_path || !*import_path) return tl__error(TL_EINVAL, "import path must not be empty");
  import_scheme sc;
  const char *rest;
  if (find_scheme(import_path, &sc, &rest) && !*rest)
    return tl__error(TL_EINVAL, "import path '%s' names nothing to import", import_path);
  if (tl__str_starts_with(import_path, BUILTIN_PREFIX) && !import_path[strlen(BUILTIN_PREFIX)])
    return tl__error(TL_EINVAL, "import path '%s' names no built-in backend", import_path);
  if (import_path[0] == ':') return tl__error(TL_EINVAL, "import path '%s' names no library", import_path);
  return TL_OK;
}

/* ---------------------------------------------------------------- loading */

/* Opens the library and finds its init function. Nothing is initialised yet. */
static tl_status load_library(const char *import_path, tl_plugin_init_fn *init) {
  char *lib = NULL;
  const char *symbol = NULL;
  TL__TRY(split_path(import_path, &lib, &symbol));
  void *handle = NULL;
  tl_status s = tl__plugin_dlopen(lib, &handle);
  if (s != TL_OK) {
    s = tl__error_context(s == TL_ENOMEM ? s : TL_EUNAVAILABLE, "Cannot load plugin '%s': ", import_path);
    goto out;
  }
  uint32_t abi = 0;
  s = tl__plugin_abi_word(handle, &abi);
  if (s != TL_OK) {
    s = tl__error_context(s, "Cannot load plugin '%s': ", import_path);
    dlclose(handle);
    goto out;
  }
  if ((abi >> 16) != TL_PLUGIN_ABI_MAJOR) {
    s = tl__error(TL_EUNAVAILABLE,
                  "Cannot load plugin '%s': it was built for plugin ABI %u.%u; this library provides ABI %u.%u",
                  import_path, (unsigned)(abi >> 16), (unsigned)(abi & 0xffffu), (unsigned)TL_PLUGIN_ABI_MAJOR,
                  (unsigned)TL_PLUGIN_ABI_MINOR);
    dlclose(handle);
    goto out;
  }
  dlerror();
  void *fn = dlsym(handle, symbol);
  if (!fn) {
    const char *why = dlerror();
    s = tl__error(TL_EUNAVAILABLE, "Cannot load plugin '%s': it does not export '%s' (%s)", import_path, symbol,
                  why ? why : "symbol is NULL");
    dlclose(handle);
    goto out;
  }
  /* POSIX guarantees that a dlsym'd function pointer round-trips through void *. The
   * handle stays open for the life of the process: the plugin's descriptors are kept
   * by pointer. */
  memcpy(init, &fn, sizeof fn);
out:
  tl__free(lib);
  return s;
}

static tl_status find_builtin(const char *import_path, tl_plugin_init_fn *init) {
  const char *name = import_path + strlen(BUILTIN_PREFIX);
  pthread_mutex_lock(&g_lock);
  builtin_plugin *b = tl__map_find(&g_builtins, name);
  if (b) *init = b->init;
  pthread_mutex_unlock(&g_lock);
  if (!b) return tl__error(TL_EUNAVAILABLE, "Cannot load plugin '%s': no built-in backend is named '%s'", import_path, name);
  return TL_OK;
}

/* Loads and initialises one import path (no lock held). */
static tl_status load_and_init(const char *import_path) {
  import_scheme sc;
  const char *rest;
  if (find_scheme(import_path, &sc, &rest)) {
    tl__error_clear();
    tl_status s = sc.fn(rest, sc.user_data);
    if (s != TL_OK) {
      if (!*tl_last_error()) tl__error(s, "import function returned %s", tl_status_name(s));
      return tl__error_context(s, "while importing '%s': ", import_path);
    }
    return TL_OK;
  }
  tl_plugin_init_fn init = NULL;
  if (tl__str_starts_with(import_path, BUILTIN_PREFIX)) TL__TRY(find_builtin(import_path, &init));
  else TL__TRY(load_library(import_path, &init));
  tl__error_clear();
  tl_status s = init(tl__plugin_host());
  if (s != TL_OK) {
    /* The library stays open: the init may have registered descriptors it holds. */
    if (!*tl_last_error()) tl__error(s, "init function returned %s", tl_status_name(s));
    return tl__error_context(s, "while initialising plugin '%s': ", import_path);
  }
  return TL_OK;
}

tl_status tl__plugin_import(const char *import_path) {
  TL__TRY(tl__plugin_check_path(import_path));
  pthread_t self = pthread_self();
  pthread_mutex_lock(&g_lock);
  for (;;) {
    import_record *r = tl__map_find(&g_imports, import_path);
    if (!r) break;
    if (r->state == IMPORT_DONE || pthread_equal(r->owner, self)) {
      pthread_mutex_unlock(&g_lock);
      return TL_OK;
    }
    pthread_cond_wait(&g_changed, &g_lock); /* another thread is importing it */
  }
  import_record *r = tl__malloc(sizeof *r);
  tl_status s = r ? tl__map_put(&g_imports, import_path, r, NULL) : tl__oom();
  if (s != TL_OK) {
    pthread_mutex_unlock(&g_lock);
    tl__free(r);
    return s;
  }
  r->state = IMPORT_RUNNING;
  r->owner = self;
  pthread_mutex_unlock(&g_lock);

  s = load_and_init(import_path);

  pthread_mutex_lock(&g_lock);
  if (s == TL_OK) {
    r->state = IMPORT_DONE;
  } else {
    tl__map_remove(&g_imports, import_path, NULL); /* a later call tries again */
    tl__free(r);
  }
  pthread_cond_broadcast(&g_changed);
  pthread_mutex_unlock(&g_lock);
  return s;
}

tl_status tl__plugin_register_builtin(const char *name, tl_plugin_init_fn init) {
  if (!name || !*name) return tl__error(TL_EINVAL, "built-in plugin name must not be empty");
  if (!init) return tl__error(TL_EINVAL, "built-in plugin '%s' has no init function", name);
  builtin_plugin *b = tl__malloc(sizeof *b);
  if (!b) return tl__oom();
  b->init = init;
  pthread_mutex_lock(&g_lock);
  void *old = NULL;
  tl_status s = tl__map_put(&g_builtins, name, b, &old);
  pthread_mutex_unlock(&g_lock);
  if (s != TL_OK) {
    tl__free(b);
    return s;
  }
  tl__free(old);
  return TL_OK;
}

tl_status tl_register_import_scheme(const char *scheme, tl_import_fn fn, void *user_data, bool override) {
  if (!scheme || !is_identifier(scheme) || strlen(scheme) >= 64)
    return tl__error(TL_EINVAL, "import scheme '%s' must be an identifier (at most 63 characters)",
                     scheme ? scheme : "(null)");
  if (strcmp(scheme, "builtin") == 0) return tl__error(TL_EINVAL, "import scheme 'builtin' is reserved");
  if (!fn) return tl__error(TL_EINVAL, "import scheme '%s' has no import function", scheme);
  import_scheme *sc = tl__malloc(sizeof *sc);
  if (!sc) return tl__oom();
  sc->fn = fn;
  sc->user_data = user_data;
  pthread_mutex_lock(&g_lock);
  import_scheme *old = tl__map_find(&g_schemes, scheme);
  tl_status s = TL_OK;
  if (old && !override && (old->fn != fn || old->user_data != user_data))
    s = tl__error(TL_EEXIST, "Import scheme '%s' is already registered", scheme);
  else if (old && !override)
    old = NULL; /* the same registration again: nothing to change */
  else
    s = tl__map_put(&g_schemes, scheme, sc, (void **)&old);
  bool stored = s == TL_OK && tl__map_find(&g_schemes, scheme) == sc;
  pthread_mutex_unlock(&g_lock);
  if (!stored) tl__free(sc);
  if (stored) tl__free(old);
  return s;
}

/* -------------------------------------------------------------- TL_PLUGIN_PATH */

static bool is_symbol_element(const char *s, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
  return true;
}

tl_status tl__plugin_load_env(void) {
  const char *env = tl__env("TL_PLUGIN_PATH");
  if (!env || !*env) return TL_OK;
  const char *p = env;
  while (*p) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    const char *next = end ? end + 1 : p + n;
    if (n == 0) {
      p = next;
      continue;
    }
    /* An element that is a bare identifier names the previous library's init symbol. */
    size_t total = n;
    if (*next) {
      const char *end2 = strchr(next, ':');
      size_t n2 = end2 ? (size_t)(end2 - next) : strlen(next);
      if (is_symbol_element(next, n2)) {
        total = n + 1 + n2;
        next = end2 ? end2 + 1 : next + n2;
      }
    }
    char *path = tl__strndup(p, total);
    if (!path) return tl__oom();
    tl_status s = tl__plugin_import(path);
    tl__free(path);
    if (s != TL_OK) return tl__error_context(s, "while loading TL_PLUGIN_PATH: ");
    p = next;
  }
  return TL_OK;
}
