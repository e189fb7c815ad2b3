/* Error messages in upstream's shape: Python reprs ('cuda'), Python lists
 * (['a', 'b']) and comma-separated name lists ("a, b", "<none>" when empty). */
#ifndef TL_BACKEND_MESSAGE_H
#define TL_BACKEND_MESSAGE_H

#include <stddef.h>

#include "base/str.h"
#include "tilelang/backend.h"

/* Appends repr(s) as Python writes it for a str ('x', or "it's"); NULL is None. */
void tl__sb_repr(tl__sb *sb, const char *s);
/* Appends names as a Python list of strs: ['a', 'b']. */
void tl__sb_repr_list(tl__sb *sb, const char *const *names, size_t n);
/* Appends "a, b" or `empty` when n == 0. */
void tl__sb_names(tl__sb *sb, const char *const *names, size_t n, const char *empty);
/* Appends the target's text as str(target) gives it ("None" for NULL). */
void tl__sb_target(tl__sb *sb, const tl_target *t);
/* Sets the thread's message to the builder's content and returns s (TL_ENOMEM if the
 * builder ran out of memory); frees the builder. */
tl_status tl__sb_error(tl_status s, tl__sb *sb);

#endif
