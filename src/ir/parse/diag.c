/* The parse context and its diagnostics: "file:line:col: message", then the source
 * line and a caret under the column (chibicc's style), returned as the error
 * message rather than printed. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/str.h"
#include "parse.h"

void tl__parse_ctx_init(tl__parse_ctx *p, const char *src, size_t len, const char *file) {
  p->src = src;
  p->len = len;
  p->file = file ? file : "<string>";
  tl__arena_init(&p->arena, 0);
  p->status = TL_OK;
  p->outside_subset = false;
}

void tl__parse_ctx_free(tl__parse_ctx *p) { tl__arena_free(&p->arena); }

tl_status tl__parse_oom(tl__parse_ctx *p) {
  if (p->status == TL_OK) p->status = tl__oom();
  return p->status;
}

void *tl__parse_alloc(tl__parse_ctx *p, size_t n) {
  void *m = tl__arena_alloc(&p->arena, n);
  if (!m) tl__parse_oom(p);
  return m;
}

char *tl__pstrndup(tl__parse_ctx *p, const char *s, size_t n) {
  char *d = tl__arena_strndup(&p->arena, s, n);
  if (!d) tl__parse_oom(p);
  return d;
}

/* Start and length of 1-based line `line` (without its terminator); the last
 * line if the file has fewer. */
static void find_line(const tl__parse_ctx *p, uint32_t line, size_t *start, size_t *len) {
  size_t i = 0, cur = 1, begin = 0;
  while (cur < line && i < p->len) {
    char c = p->src[i++];
    if (c == '\r' && i < p->len && p->src[i] == '\n') i++;
    if (c == '\n' || c == '\r') {
      cur++;
      begin = i;
    }
  }
  size_t end = begin;
  while (end < p->len && p->src[end] != '\n' && p->src[end] != '\r') end++;
  *start = begin;
  *len = end - begin;
}

/* The source line `line` and a caret under column `col`, after a newline. */
static void append_caret(tl__sb *sb, const tl__parse_ctx *p, uint32_t line, uint32_t col) {
  if (line == 0) return;
  size_t start, len;
  find_line(p, line, &start, &len);
  tl__sb_putc(sb, '\n');
  tl__sb_appendn(sb, p->src + start, len);
  tl__sb_putc(sb, '\n');
  /* One blank per character before the column (tabs kept, so the caret lines up
   * however the line is displayed); UTF-8 continuation bytes take no column. */
  uint32_t c = 1;
  for (size_t i = 0; i < len && c < col; i++) {
    unsigned char ch = (unsigned char)p->src[start + i];
    if ((ch & 0xC0) == 0x80) continue;
    tl__sb_putc(sb, ch == '\t' ? '\t' : ' ');
    c++;
  }
  for (; c < col; c++) tl__sb_putc(sb, ' ');
  tl__sb_putc(sb, '^');
}

tl_status tl__parse_error(tl__parse_ctx *p, uint32_t line, uint32_t col, const char *fmt, ...) {
  if (p->status != TL_OK) return p->status;
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "%s:%u:%u: ", p->file, line, col);
  va_list ap;
  va_start(ap, fmt);
  tl__sb_vappendf(&sb, fmt, ap);
  va_end(ap);
  append_caret(&sb, p, line, col);
  if (tl__sb_status(&sb) != TL_OK) {
    tl__sb_free(&sb);
    return tl__parse_oom(p);
  }
  p->status = tl__error(TL_EINVAL, "%s", tl__sb_str(&sb));
  tl__sb_free(&sb);
  return p->status;
}

tl_status tl__parse_note(tl__parse_ctx *p, uint32_t line, uint32_t col, const char *fmt, ...) {
  if (p->status != TL_EINVAL) return p->status;
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "%s\n%s:%u:%u: note: ", tl_last_error(), p->file, line, col);
  va_list ap;
  va_start(ap, fmt);
  tl__sb_vappendf(&sb, fmt, ap);
  va_end(ap);
  append_caret(&sb, p, line, col);
  if (tl__sb_status(&sb) != TL_OK) {
    tl__sb_free(&sb);
    p->status = TL_OK;
    return tl__parse_oom(p);
  }
  p->status = tl__error(TL_EINVAL, "%s", tl__sb_str(&sb));
  tl__sb_free(&sb);
  return p->status;
}
