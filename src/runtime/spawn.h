/* Running a tool (the C compiler) without a shell: posix_spawnp with stdin from
 * /dev/null and stdout+stderr captured together. */
#ifndef TL_RUNTIME_SPAWN_H
#define TL_RUNTIME_SPAWN_H

#include "tilelang/base.h"

/* Runs argv (argv[0] looked up on PATH) and waits for it. *output gets what it wrote
 * (the first 64 KiB; tl__free it), *exit_status its exit status (or 128 + the signal
 * that killed it). TL_EUNAVAILABLE if it could not be started (message names
 * argv[0] and why). Thread-safe. */
tl_status tl__spawn_capture(char *const *argv, char **output, int *exit_status);

#endif
