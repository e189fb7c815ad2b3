/* The global function registry: named packed functions (tvm_ffi's global functions).
 * One rwlock guards the map; a function is never called with the lock held, so a
 * global function may itself register or call global functions. */
#include "ffi/global_func.h"

#include <pthread.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/init.h"
#include "base/map.h"

typedef struct global_func {
  tl_packed_fn fn;
  void *user_data;
} global_func;

static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_INITIALIZER;
static tl__map g_funcs = TL__MAP_INIT; /* name -> global_func* */

static tl_status check_name(const char *name) {
  if (!name || !*name) return tl__error(TL_EINVAL, "global function name must not be empty");
  return TL_OK;
}

tl_status tl_register_global_func(const char *name, tl_packed_fn fn, void *user_data, bool override) {
  TL__TRY(tl__ensure_builtins());
  TL__TRY(check_name(name));
  if (!fn) return tl__error(TL_EINVAL, "global function '%s' has no function pointer", name);
  global_func *f = tl__malloc(sizeof *f);
  if (!f) return tl__oom();
  f->fn = fn;
  f->user_data = user_data;
  pthread_rwlock_wrlock(&g_lock);
  tl_status s = TL_OK;
  if (!override && tl__map_get(&g_funcs, name, NULL)) {
    s = tl__error(TL_EEXIST, "Global function '%s' is already registered", name);
  } else {
    void *old = NULL;
    s = tl__map_put(&g_funcs, name, f, &old);
    if (s == TL_OK) {
      tl__free(old);
      f = NULL;
    }
  }
  pthread_rwlock_unlock(&g_lock);
  tl__free(f);
  return s;
}

/* Copies the function out under the read lock. */
static tl_status lookup(const char *name, tl_packed_fn *fn, void **user_data) {
  pthread_rwlock_rdlock(&g_lock);
  global_func *f = tl__map_find(&g_funcs, name);
  if (f) {
    *fn = f->fn;
    *user_data = f->user_data;
  }
  pthread_rwlock_unlock(&g_lock);
  if (!f) return tl__error(TL_ENOTFOUND, "Global function '%s' is not registered", name);
  return TL_OK;
}

tl_status tl_get_global_func(const char *name, tl_packed_fn *fn, void **user_data) {
  TL__TRY(tl__ensure_builtins());
  TL__TRY(check_name(name));
  tl_packed_fn f;
  void *ud;
  TL__TRY(lookup(name, &f, &ud));
  if (fn) *fn = f;
  if (user_data) *user_data = ud;
  return TL_OK;
}

tl_status tl_call_global_func(const char *name, const tl_value *args, int nargs, tl_value *ret) {
  TL__TRY(tl__ensure_builtins());
  TL__TRY(check_name(name));
  if (nargs < 0 || (nargs > 0 && !args))
    return tl__error(TL_EINVAL, "global function '%s' called with a bad argument array", name);
  tl_packed_fn fn;
  void *ud;
  TL__TRY(lookup(name, &fn, &ud));
  tl_value scratch = {TL_VALUE_NONE, 0, {.i = 0}};
  tl_value *r = ret ? ret : &scratch;
  *r = scratch;
  tl_status s = fn(args, nargs, r, ud);
  if (s != TL_OK || !ret) tl_value_clear(r); /* a failing function's result, or one nobody wants */
  return s;
}

size_t tl_list_global_funcs(const char **out, size_t cap) {
  if (tl__ensure_builtins() != TL_OK) return 0;
  pthread_rwlock_rdlock(&g_lock);
  size_t n = tl__map_len(&g_funcs);
  for (size_t i = 0; i < n && i < cap; i++) out[i] = tl__map_key(&g_funcs, i);
  pthread_rwlock_unlock(&g_lock);
  return n;
}

/* --------------------------------------------------------- batch registration */

tl_status tl__global_funcs_register_batch(const tl_callback_entry *entries, size_t n) {
  if (n == 0) return TL_OK;
  /* Everything that can fail for lack of memory before the lock: new records, and
   * room for the replaced ones (to restore on failure). */
  global_func **fresh = tl__calloc(n, sizeof *fresh);
  global_func **old = tl__calloc(n, sizeof *old);
  bool *existed = tl__calloc(n, sizeof *existed);
  tl_status s = TL_OK;
  if (!fresh || !old || !existed) s = tl__oom();
  for (size_t i = 0; s == TL_OK && i < n; i++) {
    fresh[i] = tl__malloc(sizeof **fresh);
    if (!fresh[i]) s = tl__oom();
    else *fresh[i] = (global_func){entries[i].fn, entries[i].user_data};
  }
  size_t done = 0;
  if (s == TL_OK) {
    pthread_rwlock_wrlock(&g_lock);
    for (; done < n; done++) {
      existed[done] = tl__map_get(&g_funcs, entries[done].name, NULL);
      s = tl__map_put(&g_funcs, entries[done].name, fresh[done], (void **)&old[done]);
      if (s != TL_OK) break;
      fresh[done] = NULL;
    }
    if (s != TL_OK) {
      /* Undo in reverse order, so a name listed twice gets its first value back. */
      while (done-- > 0) {
        void *mine = NULL;
        if (existed[done]) {
          (void)tl__map_put(&g_funcs, entries[done].name, old[done], &mine); /* key present: no allocation */
        } else {
          (void)tl__map_remove(&g_funcs, entries[done].name, &mine);
        }
        fresh[done] = mine; /* freed below */
        old[done] = NULL;
      }
    }
    pthread_rwlock_unlock(&g_lock);
  }
  for (size_t i = 0; fresh && i < n; i++) tl__free(fresh[i]);
  for (size_t i = 0; old && i < n; i++) {
    /* A record replaced by a later entry of the same batch is one of ours: it was
     * freed through `fresh` only if the batch failed; on success free every replaced one. */
    if (s == TL_OK) tl__free(old[i]);
  }
  tl__free(fresh);
  tl__free(old);
  tl__free(existed);
  return s;
}
