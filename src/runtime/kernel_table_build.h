/* How a tl_kernel_table (include/tilelang/runtime.h) is laid out in memory, shared
 * by everything that makes one (src/transform/kernel_table.c from lowered IR, the
 * runtime's JSON reader and tl_kernel_table_copy) and by tl_kernel_table_free.
 *
 * Every table handed out by the library is ONE block from tl__malloc: the
 * tl_kernel_table header first, then its arrays (params, their dims, syms,
 * launches, their args and launch-expression code) and its strings (entry, param
 * and sym names, launch symbols), every pointer pointing into the same block.
 * So tl_kernel_table_free(t) is tl__free(t), a copy is one allocation, and a table
 * can be handed between threads and components without ownership questions.
 *
 * A producer assembles a table anywhere it likes (stack, arena, a parsed JSON
 * document), with its pointers pointing wherever, and calls tl__kernel_table_pack
 * to get the owned block. */
#ifndef TL_RUNTIME_KERNEL_TABLE_BUILD_H
#define TL_RUNTIME_KERNEL_TABLE_BUILD_H

#include "tilelang/runtime.h"

/* A deep copy of `src` in one tl__malloc block (free it with tl__free, which is
 * what tl_kernel_table_free does). Arrays whose count is 0 become NULL; NULL
 * strings become "". TL_EINVAL if an array with a non-zero count is NULL (the
 * message names it); TL_ENOMEM on allocation failure. Thread-safe. */
tl_status tl__kernel_table_pack(const tl_kernel_table *src, tl_kernel_table **out);

#endif
