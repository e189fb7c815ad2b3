/* Strings: formatting into fresh allocations and a string builder that records
 * allocation failure once, so callers check at the end instead of after every append. */
#ifndef TL_BASE_STR_H
#define TL_BASE_STR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "tilelang/base.h"

/* A fresh string (tl__free it), or NULL with TL_ENOMEM set. */
char *tl__format(const char *fmt, ...) TL_PRINTF(1, 2);
char *tl__vformat(const char *fmt, va_list ap);

typedef struct tl__sb {
  char *buf;
  size_t len, cap;
  bool failed; /* an append could not allocate; the content is incomplete */
} tl__sb;

#define TL__SB_INIT {NULL, 0, 0, false}

void tl__sb_init(tl__sb *sb);
void tl__sb_append(tl__sb *sb, const char *s);
void tl__sb_appendn(tl__sb *sb, const char *s, size_t n);
void tl__sb_appendf(tl__sb *sb, const char *fmt, ...) TL_PRINTF(2, 3);
void tl__sb_vappendf(tl__sb *sb, const char *fmt, va_list ap);
void tl__sb_putc(tl__sb *sb, char c);
/* Appends items[0..n) separated by sep; an empty list appends `empty` (may be NULL). */
void tl__sb_join(tl__sb *sb, const char *const *items, size_t n, const char *sep, const char *empty);
/* Appends `indent` spaces. */
void tl__sb_indent(tl__sb *sb, int indent);
/* Drops the content after `len` (len <= sb->len). */
void tl__sb_truncate(tl__sb *sb, size_t len);
/* The content so far ("" when empty); borrowed. */
const char *tl__sb_str(const tl__sb *sb);
/* TL_OK, or TL_ENOMEM (message set) if any append failed. */
tl_status tl__sb_status(const tl__sb *sb);
/* Hands the buffer to the caller (tl__free it) and resets sb. NULL with TL_ENOMEM set
 * if any append failed (the buffer is freed then). */
char *tl__sb_finish(tl__sb *sb);
void tl__sb_free(tl__sb *sb);

bool tl__str_eq(const char *a, const char *b);      /* NULL-safe */
bool tl__str_eq_nocase(const char *a, const char *b);
bool tl__str_starts_with(const char *s, const char *prefix);
bool tl__str_ends_with(const char *s, const char *suffix);
/* A fresh lowercase copy, or NULL with TL_ENOMEM set. */
char *tl__str_lower(const char *s);

#endif
