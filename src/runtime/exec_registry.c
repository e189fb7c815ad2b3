/* The registry of execution backend implementations (exec_backend.h): a list of
 * descriptors kept by pointer under one read-write lock. The built-in ones (native,
 * tcc, source) are registered with the other built-ins on first use. */
#include <pthread.h>
#include <string.h>

#include "base/error.h"
#include "base/init.h"
#include "base/vec.h"
#include "runtime/exec_impls.h"

static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_INITIALIZER;
static tl__vec g_impls = TL__VEC_INIT(const tl__exec_impl *);

/* The registered implementation named `name`; caller holds the lock. */
static const tl__exec_impl *find_locked(const char *name) {
  for (size_t i = 0; i < g_impls.len; i++) {
    const tl__exec_impl *impl = TL__VEC_AT(&g_impls, const tl__exec_impl *, i);
    if (strcmp(impl->name, name) == 0) return impl;
  }
  return NULL;
}

tl_status tl__register_exec_impl(const tl__exec_impl *impl) {
  if (!impl || !impl->name || !*impl->name)
    return tl__error(TL_EINVAL, "execution backend implementation must have a name");
  if (!impl->files || !impl->identity || !impl->build || !impl->load)
    return tl__error(TL_EINVAL, "execution backend implementation '%s' must define files, identity, build and load",
                     impl->name);
  pthread_rwlock_wrlock(&g_lock);
  const tl__exec_impl *old = find_locked(impl->name);
  tl_status s = TL_OK;
  if (old && old != impl)
    s = tl__error(TL_EEXIST, "Execution backend implementation '%s' is already registered", impl->name);
  else if (!old)
    s = tl__vec_push(&g_impls, &impl);
  pthread_rwlock_unlock(&g_lock);
  return s;
}

const tl__exec_impl *tl__find_exec_impl(const char *name) {
  if (!name || tl__ensure_builtins() != TL_OK) return NULL;
  pthread_rwlock_rdlock(&g_lock);
  const tl__exec_impl *impl = find_locked(name);
  pthread_rwlock_unlock(&g_lock);
  return impl;
}

tl_status tl__runtime_register_builtins(void) {
  TL__TRY(tl__register_exec_impl(&tl__exec_native));
#ifdef TL_HAVE_LIBTCC
  TL__TRY(tl__register_exec_impl(&tl__exec_tcc));
#endif
  return tl__register_exec_impl(&tl__exec_source);
}
