/* Options shared by the tlc subcommands that compile (lower, source, build, run):
 * the target, host and execution backend, pass configs, instrumentation and the
 * kernel cache. They fill a tl_compile_options. */
#ifndef TLC_COMPILE_ARGS_H
#define TLC_COMPILE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "tilelang/engine.h"
#include "tlc.h"

typedef struct tlc_compile_args {
  const char *target;
  const char *target_host;
  const char *execution_backend;
  const char **pass_configs; /* NULL-terminated (strings point into argv) */
  size_t npass_configs, cap;
  bool time_passes, print_after_all;
  const char *print_after;
  bool no_cache;
  const char *cache_dir;
} tlc_compile_args;

#define TLC_COMPILE_ARGS_USAGE                                                              \
  "  --target T              target string, tag or JSON (default: auto, which is\n"      \
  "                          TILELANG_DEFAULT_TARGET, else a detected GPU, else c)\n"    \
  "  --target-host H         host target (default: c)\n"                                  \
  "  --execution-backend E   execution backend (default: TILELANG_EXECUTION_BACKEND,\n"   \
  "                          else auto: the backend's first available one)\n"             \
  "  --pass-config K=V       a pass config; repeatable\n"                                 \
  "  --time-passes           print each pass's wall time to stderr\n"                     \
  "  --print-after-all       print the IR after every pass to stderr\n"                   \
  "  --print-after NAME      print the IR after pass NAME to stderr\n"                    \
  "  --no-cache              do not use the kernel cache (TILELANG_DISABLE_CACHE=1)\n"    \
  "  --cache-dir DIR         kernel cache root (default: TILELANG_CACHE_DIR, else\n"      \
  "                          ~/.tilelang-c/cache)\n"

void tlc_compile_args_init(tlc_compile_args *ca);
void tlc_compile_args_free(tlc_compile_args *ca);
/* Consumes one option of the group at the iterator: 1 if it did, 0 if the argument
 * is not one of them, or -TLC_USAGE after printing a usage error. */
int tlc_compile_args_take(tlc_compile_args *ca, tlc_args *a);
/* The options (borrowing the strings of ca and argv). */
void tlc_compile_args_options(const tlc_compile_args *ca, tl_compile_options *out);

#endif
