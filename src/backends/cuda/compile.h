/* The cuda backend's compile callbacks (upstream's tilelang_callback_cuda_compile
 * and tilelang_callback_cuda_validate), registered as global functions through the
 * manifest, and the cross-compilation binary cache they use. */
#ifndef TL_BACKENDS_CUDA_COMPILE_H
#define TL_BACKENDS_CUDA_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "tilelang/base.h"
#include "tilelang/target.h"

/* tilelang_callback_cuda_validate(target) -> none: the target's arch and code
 * list (TARGETS.md 8.4; TL_EINVAL with TileLang's messages). */
tl_status tl__cuda_callback_validate(const tl_value *args, int nargs, tl_value *ret, void *user_data);

/* tilelang_callback_cuda_compile(source, target) -> bytes: the cubin (a fatbin
 * for several code entries) nvcc makes of the CUDA source for the target's arch
 * (its `arch`, else the GPU present; none: TL_EINVAL saying how to pin it). The
 * binary cache answers first: $TILELANG_CACHE_DIR/<version>/cuda-binaries/<key>.<format>
 * (default cache root ~/.tilelang-c/cache), keyed by the source's hash, the arch,
 * the code list, the format, the full nvcc option list and nvcc's version; files
 * are written atomically (temporary file + rename) into private directories (mode
 * 0700, files 0600), checked by a hash on reading (a corrupt entry is compiled
 * again and replaced). TILELANG_DISABLE_CACHE=1 bypasses it. */
tl_status tl__cuda_callback_compile(const tl_value *args, int nargs, tl_value *ret, void *user_data);

/* Compiles `src` for `target` through the binary cache: *out gets the bytes
 * (tl__free them), *format "cubin" or "fatbin" (static). Thread-safe. */
tl_status tl__cuda_compile_cached(const char *src, const tl_target *target, char **out, size_t *size,
                                  const char **format);

/* The binary cache's file for a key (tests): a fresh path, or NULL. */
char *tl__cuda_binary_cache_path(const char *src, const tl_target *target);

/* What the cache did since the process started (tests and tools). */
typedef struct tl__cuda_cache_stats {
  uint64_t hits, misses, corrupt, compiles;
} tl__cuda_cache_stats;
void tl__cuda_binary_cache_stats(tl__cuda_cache_stats *out);

#endif
