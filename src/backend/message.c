/* Error messages in upstream's shape (see message.h). */
#include "backend/message.h"

#include <string.h>

#include "base/error.h"

void tl__sb_repr(tl__sb *sb, const char *s) {
  if (!s) {
    tl__sb_append(sb, "None");
    return;
  }
  /* Python prefers single quotes, and switches to double quotes when the text holds a
   * single quote but no double quote. */
  char q = (strchr(s, '\'') && !strchr(s, '"')) ? '"' : '\'';
  tl__sb_putc(sb, q);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    if (c == '\\' || c == (unsigned char)q) {
      tl__sb_putc(sb, '\\');
      tl__sb_putc(sb, (char)c);
    } else if (c == '\n') {
      tl__sb_append(sb, "\\n");
    } else if (c == '\r') {
      tl__sb_append(sb, "\\r");
    } else if (c == '\t') {
      tl__sb_append(sb, "\\t");
    } else if (c < 0x20 || c == 0x7f) {
      tl__sb_appendf(sb, "\\x%02x", c);
    } else {
      tl__sb_putc(sb, (char)c);
    }
  }
  tl__sb_putc(sb, q);
}

void tl__sb_repr_list(tl__sb *sb, const char *const *names, size_t n) {
  tl__sb_putc(sb, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) tl__sb_append(sb, ", ");
    tl__sb_repr(sb, names[i]);
  }
  tl__sb_putc(sb, ']');
}

void tl__sb_names(tl__sb *sb, const char *const *names, size_t n, const char *empty) {
  tl__sb_join(sb, names, n, ", ", empty);
}

void tl__sb_target(tl__sb *sb, const tl_target *t) { tl__sb_append(sb, t ? tl_target_str(t) : "None"); }

tl_status tl__sb_error(tl_status s, tl__sb *sb) {
  if (sb->failed) {
    tl__sb_free(sb);
    return tl__oom();
  }
  tl__error(s, "%s", tl__sb_str(sb));
  tl__sb_free(sb);
  return s;
}
