/* Internals of the global function registry shared with the backend registry. */
#ifndef TL_FFI_GLOBAL_FUNC_H
#define TL_FFI_GLOBAL_FUNC_H

#include "tilelang/ffi.h"

/* Registers n callbacks as global functions (with override) all at once: either all
 * are registered, or (TL_ENOMEM) the registry is left exactly as it was. Entries'
 * names are non-empty and fns non-NULL (the caller validated them). Thread-safe. */
tl_status tl__global_funcs_register_batch(const tl_callback_entry *entries, size_t n);

#endif
