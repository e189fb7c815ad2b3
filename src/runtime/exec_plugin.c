/* Execution backend implementations from plugins: a tl_exec_impl (plugin.h, with
 * struct_size) is checked and copied into a library-owned tl__exec_impl, which is
 * then registered like a built-in. The function pointers have the same signatures,
 * so the copy calls the plugin's functions directly. Copies live for the process
 * (the registry keeps pointers), listed here so the same descriptor registers once. */
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"
#include "runtime/exec_backend.h"

typedef struct plugin_impl {
  const tl_exec_impl *plugin; /* what the plugin registered */
  tl__exec_impl *copy;        /* what the registry holds */
} plugin_impl;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static tl__vec g_copies = TL__VEC_INIT(plugin_impl);

/* The size of the first version of tl_exec_impl (ABI 1.1). */
#define EXEC_IMPL_V1_SIZE (offsetof(tl_exec_impl, load) + sizeof(((tl_exec_impl *)0)->load))

static tl_status check(const tl_exec_impl *impl) {
  if (!impl) return tl__error(TL_EINVAL, "execution backend implementation must not be NULL");
  if (impl->struct_size != 0 && impl->struct_size < EXEC_IMPL_V1_SIZE)
    return tl__error(TL_EINVAL,
                     "execution backend implementation has struct_size %zu, smaller than the first version's (%zu)",
                     impl->struct_size, (size_t)EXEC_IMPL_V1_SIZE);
  return TL_OK;
}

tl_status tl__register_plugin_exec_impl(const tl_exec_impl *impl) {
  TL__TRY(check(impl));
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_copies.len; i++) {
    plugin_impl *p = tl__vec_at(&g_copies, i);
    if (p->plugin == impl) {
      pthread_mutex_unlock(&g_lock);
      return TL_OK; /* registered before (and so checked and copied) */
    }
  }
  tl__exec_impl *copy = tl__malloc(sizeof *copy);
  tl_status s = copy ? tl__vec_reserve(&g_copies, g_copies.len + 1) : tl__oom();
  if (s == TL_OK) {
    copy->name = impl->name;
    copy->files = impl->files;
    copy->identity = impl->identity;
    copy->build = impl->build;
    copy->load = impl->load;
    copy->memory = NULL; /* plugins run on host tensors or manage their own */
    s = tl__register_exec_impl(copy); /* name and field checks, name conflicts */
  }
  if (s == TL_OK) {
    plugin_impl rec = {impl, copy};
    (void)tl__vec_push(&g_copies, &rec); /* reserved above */
  } else {
    tl__free(copy);
  }
  pthread_mutex_unlock(&g_lock);
  return s;
}
