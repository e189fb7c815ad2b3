/* nvcc, the CUDA compiler driver, run without a shell (posix_spawn): found once per
 * process on PATH, else in $CUDA_HOME/bin, $CUDA_PATH/bin or /usr/local/cuda/bin.
 * Its `--version` text keys the cuda backend's binary cache and the nvcc execution
 * backend's identity. */
#ifndef TL_RUNTIME_NVCC_TOOL_H
#define TL_RUNTIME_NVCC_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "tilelang/base.h"

/* True if nvcc was found and runs; why not (static storage) or NULL. Thread-safe. */
bool tl__nvcc_available(void);
const char *tl__nvcc_unavailable_reason(void);
/* The nvcc found (an absolute path) and its version text ("Cuda compilation tools,
 * release 13.0, V13.0.88 / Build cuda_13.0.r13.0/compiler.36424714_0"), both
 * static; TL_EUNAVAILABLE with the reason. Thread-safe. */
tl_status tl__nvcc_find(const char **path, const char **version);

/* The option list of one compilation (TARGETS.md 8.4): -O3 --fmad=false
 * -std=c++17, then without `code` -cubin -arch=<arch>, with one entry -cubin
 * -gencode arch=compute_<X>,code=<c>, with several -fatbin -gencode
 * arch=compute_<X>,code=[c1,c2]. */
typedef struct tl__nvcc_options {
  const char *argv[16];
  int n;
  const char *format; /* "cubin" or "fatbin" */
  char gencode[512];
  char arch[64];
} tl__nvcc_options;

/* Fills *o for arch "sm_90a" and the target's code entries (ncodes may be 0).
 * TL_EINVAL when they do not fit. */
tl_status tl__nvcc_make_options(const char *arch, const char *const *codes, size_t ncodes, tl__nvcc_options *o);

/* The options as one line ("-O3 --fmad=false ..."), into buf. TL_EINVAL (never a
 * truncated line) when they do not fit in cap bytes. */
tl_status tl__nvcc_options_text(const tl__nvcc_options *o, char *buf, size_t cap);

/* Runs nvcc with the options on the CUDA file `src`, writing `out`. TL_ECOMPILE
 * with nvcc's output (and the file's path) when it fails. Thread-safe. */
tl_status tl__nvcc_compile(const tl__nvcc_options *o, const char *src, const char *out);

#endif
