/* The kernel cache's in-memory level (see cache.h): key -> kernel under one mutex. */
#include <pthread.h>

#include "base/map.h"
#include "engine/cache.h"
#include "tilelang/engine.h"

static pthread_mutex_t g_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static tl__map g_mem = TL__MAP_INIT;

tl_kernel *tl__kcache_mem_get(const char *key) {
  pthread_mutex_lock(&g_mem_lock);
  const tl_kernel *k = tl__map_find(&g_mem, key);
  tl_kernel *r = k ? tl_kernel_retain(k) : NULL;
  pthread_mutex_unlock(&g_mem_lock);
  return r;
}

tl_status tl__kcache_mem_put(const char *key, const tl_kernel *k) {
  pthread_mutex_lock(&g_mem_lock);
  tl_status s = TL_OK;
  if (!tl__map_find(&g_mem, key)) {
    tl_kernel *ref = tl_kernel_retain(k);
    s = tl__map_put(&g_mem, key, ref, NULL);
    if (s != TL_OK) tl_kernel_release(ref);
  }
  pthread_mutex_unlock(&g_mem_lock);
  return s;
}

size_t tl__kcache_mem_size(void) {
  pthread_mutex_lock(&g_mem_lock);
  size_t n = tl__map_len(&g_mem);
  pthread_mutex_unlock(&g_mem_lock);
  return n;
}

static void release_kernel(void *k) { tl_kernel_release(k); }

void tl_kernel_cache_clear_memory(void) {
  pthread_mutex_lock(&g_mem_lock);
  tl__map old = g_mem;
  tl__map_init(&g_mem);
  pthread_mutex_unlock(&g_mem_lock);
  /* Kernels are released outside the lock: a destructor may take other locks. */
  tl__map_free(&old, release_kernel);
}
