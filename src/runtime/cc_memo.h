/* What the `native` execution backend learns about the C compiler by running it
 * (its `--version` line, whether it builds OpenMP, the CPU features -march=native
 * resolves to), remembered on disk so that a new process with a cached kernel
 * starts no compiler at all.
 *
 * The memo's key covers every word of $CC and, for each word that names an
 * executable (the compiler, or the wrapper and the compiler: `ccache gcc`), its
 * resolved path, device, inode, size and modification time, and the machine: a
 * compiler replaced or upgraded in place gets a new key. The memo lives under the
 * kernel cache root (TILELANG_CACHE_DIR, else ~/.tilelang-c/cache) in
 * <root>/<library version>/compilers/<key>, opened and written by the rules of
 * base/trust.h (written to a temporary name, then renamed). Any failure to read or
 * write it only means asking the compiler again. */
#ifndef TL_RUNTIME_CC_MEMO_H
#define TL_RUNTIME_CC_MEMO_H

#include <stdbool.h>

#include "tilelang/base.h"

typedef struct tl__cc_facts {
  char *version; /* the first line of `$CC --version` */
  bool openmp;   /* builds a shared object with -fopenmp */
  char *native;  /* the options -march=native expands to ("" when not shown) */
} tl__cc_facts;

void tl__cc_facts_free(tl__cc_facts *f);

/* The memo key of the compiler command `argv` (NULL-terminated words of $CC), 32
 * hex digits. TL_ENOMEM. */
tl_status tl__cc_memo_key(char *const *argv, char key[33]);

/* Loads the memo for `key`: true and *f filled when there is a sound one. */
bool tl__cc_memo_load(const char *key, tl__cc_facts *f);

/* Stores *f as the memo for `key` (best effort: failures are ignored). */
void tl__cc_memo_store(const char *key, const tl__cc_facts *f);

#endif
