/* The kernel cache: its key and its in-memory level. The disk level is in
 * cache_disk.h; docs/engine.md describes both.
 *
 * The key is XXH3-128 over a canonical text of everything that changes what a
 * compilation produces: the structural hash of the function (and of the functions
 * it launches), the resolved target's JSON with its host, the host's JSON, the
 * execution backend, the pass configs (sorted by key), the execution backend
 * implementation's identity (toolchain and flags) and the library version. Bound
 * constants are in the IR, so the function hash covers them; spans and the names
 * of local variables are not, so renaming a local hits the same entry. */
#ifndef TL_ENGINE_CACHE_H
#define TL_ENGINE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "tilelang/runtime.h"

#define TL__CACHE_KEY_LEN 32 /* hex digits */

typedef struct tl__cache_key_input {
  uint64_t func_hash;              /* tl__cache_func_hash */
  const char *target;              /* tl_target_str of the target (host attached) */
  const char *target_host;         /* tl_target_str of the host, or NULL */
  const char *execution_backend;   /* the spec's name */
  const char *const *pass_configs; /* "key=value", NULL-terminated; may be NULL */
  const char *identity;            /* the implementation's identity string */
} tl__cache_key_input;

/* The canonical text the key hashes (*out: tl__free it). TL_EINVAL for a pass
 * config that is not "key=value" (a later value of a key replaces an earlier one),
 * TL_ENOMEM. */
tl_status tl__cache_key_text(const tl__cache_key_input *in, char **out);
/* The key as 32 lowercase hex digits. */
tl_status tl__cache_key(const tl__cache_key_input *in, char out[TL__CACHE_KEY_LEN + 1]);

/* tl_ir_func_hash of `f` combined with the hashes of the module's functions it
 * launches (transitively, each once, in first-launch order). */
uint64_t tl__cache_func_hash(const tl_ir_module *mod, const tl_ir_func *f);

/* The in-memory level: key -> kernel, thread-safe. get returns a new reference or
 * NULL; put keeps a reference (an existing entry for the key is kept and put
 * returns TL_OK without replacing it). */
tl_kernel *tl__kcache_mem_get(const char *key);
tl_status tl__kcache_mem_put(const char *key, const tl_kernel *k);
/* Entries held now (for tests). */
size_t tl__kcache_mem_size(void);

#endif
