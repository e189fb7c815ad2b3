/* Kernel objects: immutable after creation and reference-counted, so one kernel may
 * be called from many threads at once; calling goes straight to the execution
 * backend's loaded state (for native and tcc, the generated host entry, which checks
 * every argument itself). */
#include "runtime/kernel.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/refcount.h"

struct tl_kernel {
  tl__refcount rc;
  char *name;
  char *exec_name;
  tl_target *target;
  tl_kernel_table *table;
  char *device_source;
  char *host_source;
  bool from_cache;
  const tl__device_memory *memory;
  tl__loaded loaded;
};

static void kernel_free(tl_kernel *k) {
  if (k->loaded.destroy) k->loaded.destroy(k->loaded.state);
  tl__free(k->name);
  tl__free(k->exec_name);
  tl_target_release(k->target);
  tl_kernel_table_free(k->table);
  tl__free(k->device_source);
  tl__free(k->host_source);
  tl__free(k);
}

tl_status tl__kernel_create(const tl__kernel_desc *d, tl__loaded loaded, tl_kernel **out) {
  *out = NULL;
  if (!d || !d->name || !d->exec_name || !loaded.call) {
    if (loaded.destroy) loaded.destroy(loaded.state);
    return tl__error(TL_EINVAL, "a kernel needs a name, an execution backend and a call function");
  }
  tl_kernel *k = tl__calloc(1, sizeof *k);
  if (!k) {
    if (loaded.destroy) loaded.destroy(loaded.state);
    return tl__oom();
  }
  k->loaded = loaded;
  tl__ref_init(&k->rc);
  k->from_cache = d->from_cache;
  k->memory = d->memory;
  k->target = d->target ? tl_target_retain(d->target) : NULL;
  k->name = tl__strdup(d->name);
  k->exec_name = tl__strdup(d->exec_name);
  k->device_source = tl__strdup(d->device_source ? d->device_source : "");
  k->host_source = tl__strdup(d->host_source ? d->host_source : "");
  tl_status s = TL_OK;
  if (!k->name || !k->exec_name || !k->device_source || !k->host_source) s = tl__oom();
  if (s == TL_OK && d->table) s = tl_kernel_table_copy(d->table, &k->table);
  if (s != TL_OK) {
    kernel_free(k);
    return s;
  }
  *out = k;
  return TL_OK;
}

tl_status tl_kernel_call(tl_kernel *k, const tl_value *args, int nargs, void *stream) {
  if (!k) return tl__error(TL_EINVAL, "tl_kernel_call: kernel must not be NULL");
  if (nargs < 0 || (nargs > 0 && !args))
    return tl__error(TL_EINVAL, "tl_kernel_call: %d arguments at %p", nargs, (const void *)args);
  return k->loaded.call(k->loaded.state, args, nargs, stream);
}

tl_kernel *tl_kernel_retain(const tl_kernel *k) {
  if (k) tl__ref_inc(&k->rc);
  return (tl_kernel *)k;
}

void tl_kernel_release(const tl_kernel *k) {
  if (k && tl__ref_dec(&k->rc)) kernel_free((tl_kernel *)k);
}

const char *tl_kernel_name(const tl_kernel *k) { return k ? k->name : NULL; }
const char *tl_kernel_execution_backend(const tl_kernel *k) { return k ? k->exec_name : NULL; }
const tl_target *tl_kernel_target(const tl_kernel *k) { return k ? k->target : NULL; }
const tl_kernel_table *tl_kernel_get_table(const tl_kernel *k) { return k ? k->table : NULL; }
const char *tl_kernel_device_source(const tl_kernel *k) { return k ? k->device_source : ""; }
const char *tl_kernel_host_source(const tl_kernel *k) { return k ? k->host_source : ""; }
bool tl_kernel_from_cache(const tl_kernel *k) { return k && k->from_cache; }

const tl__device_memory *tl__kernel_memory(const tl_kernel *k) { return k ? k->memory : NULL; }

/* ------------------------------------------------------------ device memory */

int32_t tl_kernel_device_type(const tl_kernel *k) {
  return k && k->memory ? k->memory->device_type : 1; /* kDLCPU */
}

/* The kernel's device memory, or TL_EUNSUPPORTED naming the execution backend. */
static tl_status memory_of(const tl_kernel *k, const char *fn, const tl__device_memory **out) {
  if (!k) return tl__error(TL_EINVAL, "%s: kernel must not be NULL", fn);
  if (!k->memory)
    return tl__error(TL_EUNSUPPORTED,
                     "%s: execution backend '%s' runs kernel '%s' on host memory (kDLCPU tensors); it has no "
                     "device memory",
                     fn, k->exec_name, k->name);
  *out = k->memory;
  return TL_OK;
}

tl_status tl_kernel_device_alloc(const tl_kernel *k, int32_t device_id, size_t bytes, void **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_kernel_device_alloc: out must not be NULL");
  *out = NULL;
  const tl__device_memory *m = NULL;
  TL__TRY(memory_of(k, "tl_kernel_device_alloc", &m));
  return m->alloc(device_id, bytes, out);
}

void tl_kernel_device_free(const tl_kernel *k, int32_t device_id, void *data) {
  if (k && k->memory && data) k->memory->free(device_id, data);
}

tl_status tl_kernel_copy_to_device(const tl_kernel *k, int32_t device_id, void *dst, const void *src, size_t bytes) {
  const tl__device_memory *m = NULL;
  TL__TRY(memory_of(k, "tl_kernel_copy_to_device", &m));
  if (bytes && (!dst || !src)) return tl__error(TL_EINVAL, "tl_kernel_copy_to_device: NULL buffer for %zu bytes", bytes);
  return m->to_device(device_id, dst, src, bytes);
}

tl_status tl_kernel_copy_to_host(const tl_kernel *k, int32_t device_id, void *dst, const void *src, size_t bytes) {
  const tl__device_memory *m = NULL;
  TL__TRY(memory_of(k, "tl_kernel_copy_to_host", &m));
  if (bytes && (!dst || !src)) return tl__error(TL_EINVAL, "tl_kernel_copy_to_host: NULL buffer for %zu bytes", bytes);
  return m->to_host(device_id, dst, src, bytes);
}

tl_status tl_kernel_device_synchronize(const tl_kernel *k, int32_t device_id) {
  if (k && !k->memory) return TL_OK; /* host kernels finish before tl_kernel_call returns */
  const tl__device_memory *m = NULL;
  TL__TRY(memory_of(k, "tl_kernel_device_synchronize", &m));
  return m->synchronize(device_id);
}
