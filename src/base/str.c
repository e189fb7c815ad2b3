#include "str.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"

char *tl__vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    tl__error(TL_EINTERNAL, "could not format string");
    return NULL;
  }
  char *s = tl__malloc((size_t)n + 1);
  if (!s) {
    tl__oom();
    return NULL;
  }
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  return s;
}

char *tl__format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = tl__vformat(fmt, ap);
  va_end(ap);
  return s;
}

void tl__sb_init(tl__sb *sb) { *sb = (tl__sb)TL__SB_INIT; }

/* Makes room for `extra` more bytes plus the terminator. */
static bool sb_grow(tl__sb *sb, size_t extra) {
  if (sb->failed) return false;
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap) return true;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < need) cap *= 2;
  char *b = tl__realloc(sb->buf, cap);
  if (!b) {
    sb->failed = true;
    return false;
  }
  if (!sb->buf) b[0] = '\0';
  sb->buf = b;
  sb->cap = cap;
  return true;
}

void tl__sb_appendn(tl__sb *sb, const char *s, size_t n) {
  if (!sb_grow(sb, n)) return;
  memcpy(sb->buf + sb->len, s, n);
  sb->len += n;
  sb->buf[sb->len] = '\0';
}

void tl__sb_append(tl__sb *sb, const char *s) { tl__sb_appendn(sb, s ? s : "(null)", strlen(s ? s : "(null)")); }

void tl__sb_putc(tl__sb *sb, char c) { tl__sb_appendn(sb, &c, 1); }

void tl__sb_vappendf(tl__sb *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    sb->failed = true;
    return;
  }
  if (!sb_grow(sb, (size_t)n)) return;
  vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
  sb->len += (size_t)n;
}

void tl__sb_appendf(tl__sb *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tl__sb_vappendf(sb, fmt, ap);
  va_end(ap);
}

void tl__sb_join(tl__sb *sb, const char *const *items, size_t n, const char *sep, const char *empty) {
  if (n == 0 && empty) tl__sb_append(sb, empty);
  for (size_t i = 0; i < n; i++) {
    if (i) tl__sb_append(sb, sep);
    tl__sb_append(sb, items[i]);
  }
}

void tl__sb_indent(tl__sb *sb, int indent) {
  for (int i = 0; i < indent; i++) tl__sb_putc(sb, ' ');
}

void tl__sb_truncate(tl__sb *sb, size_t len) {
  if (len < sb->len) {
    sb->len = len;
    sb->buf[len] = '\0';
  }
}

const char *tl__sb_str(const tl__sb *sb) { return sb->buf ? sb->buf : ""; }

tl_status tl__sb_status(const tl__sb *sb) { return sb->failed ? tl__oom() : TL_OK; }

char *tl__sb_finish(tl__sb *sb) {
  if (sb->failed) {
    tl__sb_free(sb);
    tl__oom();
    return NULL;
  }
  if (!sb->buf && !sb_grow(sb, 0)) {
    tl__sb_free(sb);
    tl__oom();
    return NULL;
  }
  char *b = sb->buf;
  tl__sb_init(sb);
  return b;
}

void tl__sb_free(tl__sb *sb) {
  tl__free(sb->buf);
  tl__sb_init(sb);
}

bool tl__str_eq(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

bool tl__str_eq_nocase(const char *a, const char *b) {
  if (!a || !b) return a == b;
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

bool tl__str_starts_with(const char *s, const char *prefix) {
  return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool tl__str_ends_with(const char *s, const char *suffix) {
  if (!s || !suffix) return false;
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

char *tl__str_lower(const char *s) {
  char *d = tl__strdup(s ? s : "");
  if (!d) {
    tl__oom();
    return NULL;
  }
  for (char *p = d; *p; p++) *p = (char)tolower((unsigned char)*p);
  return d;
}
