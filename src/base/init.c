/* One-time registration of built-ins. Not pthread_once: a registration that fails
 * for lack of memory must be retryable, and registration calls back into the
 * registries, which call tl__ensure_builtins again on the same thread. */
#include "init.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

static _Atomic(tl__builtins_registration_fn) g_registration;
static atomic_bool g_done;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local bool t_in_init;

void tl__install_builtins_registration(tl__builtins_registration_fn registration) {
  atomic_store_explicit(&g_registration, registration, memory_order_release);
}

tl_status tl__ensure_builtins(void) {
  if (atomic_load_explicit(&g_done, memory_order_acquire) || t_in_init) return TL_OK;
  tl__builtins_registration_fn registration = atomic_load_explicit(&g_registration, memory_order_acquire);
  if (!registration) return TL_OK; /* nothing installed, nothing to register */
  pthread_mutex_lock(&g_lock);
  tl_status s = TL_OK;
  if (!atomic_load_explicit(&g_done, memory_order_relaxed)) {
    t_in_init = true;
    s = registration();
    t_in_init = false;
    if (s == TL_OK) atomic_store_explicit(&g_done, true, memory_order_release);
  }
  pthread_mutex_unlock(&g_lock);
  return s;
}
