/* The lexer: Python's tokens for the whole file, with INDENT/DEDENT from the
 * indentation of logical lines, implicit line joining inside brackets, backslash
 * continuation, comments and blank lines dropped, and string literals decoded. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "parse.h"

/* Longest first, so the first match is the longest. */
static const char *const OPS[] = {
  "**=", "//=", ">>=", "<<=", "...",
  "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=", "%=",
  "&=", "|=", "^=", "@=",
  "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", "{", "}",
  ",", ":", ";", ".", "=",
};

static const char *const KEYWORDS[] = {
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
  "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
  "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
  "with", "yield",
};

bool tl__tok_is_keyword(const tl__tok *t) {
  if (t->kind != TK_NAME) return false;
  for (size_t i = 0; i < sizeof KEYWORDS / sizeof KEYWORDS[0]; i++)
    if (strcmp(t->s, KEYWORDS[i]) == 0) return true;
  return false;
}

typedef struct lexer {
  tl__parse_ctx *p;
  tl__vec *toks;
  size_t pos;
  uint32_t line, col;
  uint32_t indents[TL__PARSE_MAX_BLOCK_DEPTH + 2];
  int nindents;
  struct { char c; uint32_t line, col; } brackets[TL__PARSE_MAX_BRACKETS];
  int nbrackets;
  bool line_has_tokens; /* the current logical line produced a token */
} lexer;

static int cur(const lexer *L) { return L->pos < L->p->len ? (unsigned char)L->p->src[L->pos] : -1; }
static int at(const lexer *L, size_t k) {
  return L->pos + k < L->p->len ? (unsigned char)L->p->src[L->pos + k] : -1;
}

/* Advances one byte, counting columns in characters (UTF-8 continuation bytes add none). */
static void adv(lexer *L) {
  if (L->pos >= L->p->len) return;
  unsigned char c = (unsigned char)L->p->src[L->pos++];
  if ((c & 0xC0) != 0x80) L->col++;
}

static bool is_newline(int c) { return c == '\n' || c == '\r'; }

/* Consumes one line terminator (\n, \r\n or \r). */
static void eat_newline(lexer *L) {
  if (cur(L) == '\r') {
    L->pos++;
    if (cur(L) == '\n') L->pos++;
  } else {
    L->pos++;
  }
  L->line++;
  L->col = 1;
}

#define LERR(L, line, col, ...) tl__parse_error((L)->p, (line), (col), __VA_ARGS__)

static tl__tok *push(lexer *L, tl__tok_kind kind, uint32_t line, uint32_t col, size_t off) {
  tl__tok t = {0};
  t.kind = (uint8_t)kind;
  t.line = line;
  t.col = col;
  t.off = (uint32_t)off;
  t.len = (uint32_t)(L->pos - off);
  if (tl__vec_push(L->toks, &t) != TL_OK) {
    tl__parse_oom(L->p);
    return NULL;
  }
  if (kind != TK_NEWLINE && kind != TK_INDENT && kind != TK_DEDENT) L->line_has_tokens = true;
  return tl__vec_at(L->toks, L->toks->len - 1);
}

static bool ident_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80; }
static bool ident_char(int c) { return ident_start(c) || (c >= '0' && c <= '9'); }

/* Appends one code point as UTF-8. */
static size_t put_utf8(char *d, uint32_t cp) {
  if (cp < 0x80) { d[0] = (char)cp; return 1; }
  if (cp < 0x800) { d[0] = (char)(0xC0 | (cp >> 6)); d[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    d[0] = (char)(0xE0 | (cp >> 12)); d[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  d[0] = (char)(0xF0 | (cp >> 18)); d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  d[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); d[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A string literal; the prefix (already consumed) gave `flags`. */
static tl_status lex_string(lexer *L, uint32_t line, uint32_t col, size_t off, uint8_t flags) {
  int q = cur(L);
  bool triple = at(L, 1) == q && at(L, 2) == q;
  adv(L);
  if (triple) { adv(L); adv(L); }
  /* Decoded text is never longer than the source text. */
  size_t cap = L->p->len - L->pos + 1;
  char *buf = tl__parse_alloc(L->p, cap);
  if (!buf) return L->p->status;
  size_t n = 0;
  bool raw = (flags & TL__STR_RAW) != 0;
  for (;;) {
    int c = cur(L);
    if (c < 0)
      return LERR(L, line, col, triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
    if (c == q && (!triple || (at(L, 1) == q && at(L, 2) == q))) {
      adv(L);
      if (triple) { adv(L); adv(L); }
      break;
    }
    if (is_newline(c)) {
      if (!triple) return LERR(L, line, col, "unterminated string literal");
      if (c == '\r' && at(L, 1) == '\n') buf[n++] = '\n', L->pos++;
      else buf[n++] = '\n';
      L->pos++;
      L->line++;
      L->col = 1;
      continue;
    }
    if (c != '\\') {
      buf[n++] = (char)c;
      adv(L);
      continue;
    }
    /* A backslash. */
    int e = at(L, 1);
    if (e < 0) return LERR(L, line, col, "unterminated string literal");
    if (raw) {
      /* Raw strings keep the backslash; it still protects a quote or a newline. */
      buf[n++] = '\\';
      adv(L);
      if (is_newline(e)) {
        buf[n++] = '\n';
        eat_newline(L);
      } else {
        buf[n++] = (char)e;
        adv(L);
      }
      continue;
    }
    adv(L); /* the backslash */
    uint32_t ecol = L->col - 1;
    switch (e) {
      case '\n': case '\r': eat_newline(L); continue; /* line continuation inside the string */
      case '\\': buf[n++] = '\\'; break;
      case '\'': buf[n++] = '\''; break;
      case '"': buf[n++] = '"'; break;
      case 'a': buf[n++] = '\a'; break;
      case 'b': buf[n++] = '\b'; break;
      case 'f': buf[n++] = '\f'; break;
      case 'n': buf[n++] = '\n'; break;
      case 'r': buf[n++] = '\r'; break;
      case 't': buf[n++] = '\t'; break;
      case 'v': buf[n++] = '\v'; break;
      case 'x': case 'u': case 'U': {
        if (e != 'x' && (flags & TL__STR_BYTES)) {
          buf[n++] = '\\'; /* bytes have no \u escapes: kept as written */
          continue;
        }
        int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int k = 1; k <= digits; k++) {
          int h = hexval(at(L, (size_t)k));
          if (h < 0) return LERR(L, line, ecol, "truncated \\%c escape in string literal", e);
          cp = cp * 16 + (uint32_t)h;
        }
        for (int k = 0; k <= digits; k++) adv(L);
        if (e == 'x' && (flags & TL__STR_BYTES)) {
          buf[n++] = (char)cp;
        } else {
          if (cp > 0x10FFFF) return LERR(L, line, ecol, "illegal Unicode character in string literal");
          /* A \u escape is 6 source bytes and at most 3 UTF-8 bytes; \U is 10 and 4. */
          n += put_utf8(buf + n, cp);
        }
        continue;
      }
      case 'N':
        return LERR(L, line, ecol, "\\N{...} escapes are not supported");
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = 0;
          int k = 0;
          while (k < 3 && at(L, 0) >= '0' && at(L, 0) <= '7') {
            v = v * 8 + (uint32_t)(cur(L) - '0');
            adv(L);
            k++;
          }
          if (flags & TL__STR_BYTES) buf[n++] = (char)(v & 0xFF);
          else n += put_utf8(buf + n, v);
          continue;
        }
        /* Unknown escapes keep the backslash, as Python does. */
        buf[n++] = '\\';
        continue;
    }
    adv(L);
  }
  buf[n] = '\0';
  tl__tok *t = push(L, TK_STRING, line, col, off);
  if (!t) return L->p->status;
  t->s = buf;
  t->slen = n;
  t->flags = flags;
  return TL_OK;
}

/* Digits in base `base` with single underscores between them; returns the count. */
static int scan_digits(lexer *L, int base, char *out, size_t *n, size_t cap) {
  int count = 0;
  for (;;) {
    int c = cur(L);
    if (c == '_' && count > 0 && hexval(at(L, 1)) >= 0 && hexval(at(L, 1)) < base) {
      adv(L);
      continue;
    }
    int v = hexval(c);
    if (v < 0 || v >= base) break;
    if (out && *n + 1 < cap) out[(*n)++] = (char)c;
    adv(L);
    count++;
  }
  return count;
}

static tl_status lex_number(lexer *L) {
  uint32_t line = L->line, col = L->col;
  size_t off = L->pos;
  int c = cur(L);
  if (c == '0' && (at(L, 1) == 'x' || at(L, 1) == 'X' || at(L, 1) == 'o' || at(L, 1) == 'O' ||
                   at(L, 1) == 'b' || at(L, 1) == 'B')) {
    int k = at(L, 1);
    int base = (k == 'x' || k == 'X') ? 16 : (k == 'o' || k == 'O') ? 8 : 2;
    adv(L);
    adv(L);
    if (cur(L) == '_') adv(L);
    size_t start = L->pos;
    if (scan_digits(L, base, NULL, NULL, 0) == 0) return LERR(L, line, col, "invalid %s literal", base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
    if (ident_char(cur(L))) return LERR(L, line, col, "invalid %s literal", base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary");
    uint64_t v = 0;
    for (size_t i = start; i < L->pos; i++) {
      if (L->p->src[i] == '_') continue;
      uint64_t d = (uint64_t)hexval((unsigned char)L->p->src[i]);
      if (v > (UINT64_MAX - d) / (uint64_t)base || v * (uint64_t)base + d > (uint64_t)INT64_MAX)
        return LERR(L, line, col, "integer literal too large");
      v = v * (uint64_t)base + d;
    }
    tl__tok *t = push(L, TK_INT, line, col, off);
    if (!t) return L->p->status;
    t->ival = (int64_t)v;
    return TL_OK;
  }
  /* Decimal: digits [. digits] [e [+-] digits], or . digits ... */
  char buf[512];
  size_t n = 0;
  bool is_float = false;
  scan_digits(L, 10, buf, &n, sizeof buf);
  if (cur(L) == '.' && !(at(L, 1) == '.' && at(L, 2) == '.')) {
    is_float = true;
    if (n + 1 < sizeof buf) buf[n++] = '.';
    adv(L);
    scan_digits(L, 10, buf, &n, sizeof buf);
  }
  if (cur(L) == 'e' || cur(L) == 'E') {
    int s = at(L, 1);
    size_t k = (s == '+' || s == '-') ? 2 : 1;
    if (at(L, k) >= '0' && at(L, k) <= '9') {
      is_float = true;
      if (n + 1 < sizeof buf) buf[n++] = 'e';
      adv(L);
      if (k == 2) {
        if (n + 1 < sizeof buf) buf[n++] = (char)s;
        adv(L);
      }
      scan_digits(L, 10, buf, &n, sizeof buf);
    }
  }
  if (cur(L) == 'j' || cur(L) == 'J') return LERR(L, line, col, "complex numbers are not supported");
  if (ident_char(cur(L))) return LERR(L, line, col, "invalid decimal literal");
  if (n + 1 >= sizeof buf) return LERR(L, line, col, "numeric literal too long");
  buf[n] = '\0';
  if (is_float) {
    errno = 0;
    double v = strtod(buf, NULL);
    tl__tok *t = push(L, TK_FLOAT, line, col, off);
    if (!t) return L->p->status;
    t->fval = v;
    return TL_OK;
  }
  if (n > 1 && buf[0] == '0') {
    for (size_t i = 0; i < n; i++)
      if (buf[i] != '0')
        return LERR(L, line, col, "leading zeros in decimal integer literals are not permitted");
  }
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t d = (uint64_t)(buf[i] - '0');
    if (v > ((uint64_t)INT64_MAX - d) / 10) return LERR(L, line, col, "integer literal too large");
    v = v * 10 + d;
  }
  tl__tok *t = push(L, TK_INT, line, col, off);
  if (!t) return L->p->status;
  t->ival = (int64_t)v;
  return TL_OK;
}

static const char *closer_of(char c) { return c == '(' ? ")" : c == '[' ? "]" : "}"; }

static tl_status lex_op(lexer *L) {
  uint32_t line = L->line, col = L->col;
  size_t off = L->pos;
  const char *rest = L->p->src + L->pos;
  size_t left = L->p->len - L->pos;
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++) {
    size_t k = strlen(OPS[i]);
    if (k > left || memcmp(rest, OPS[i], k) != 0) continue;
    char c = OPS[i][0];
    if (k == 1 && (c == '(' || c == '[' || c == '{')) {
      if (L->nbrackets >= TL__PARSE_MAX_BRACKETS) return LERR(L, line, col, "too many nested parentheses");
      L->brackets[L->nbrackets].c = c;
      L->brackets[L->nbrackets].line = line;
      L->brackets[L->nbrackets].col = col;
      L->nbrackets++;
    } else if (k == 1 && (c == ')' || c == ']' || c == '}')) {
      if (L->nbrackets == 0) {
        char s[2] = {c, 0};
        return LERR(L, line, col, "unmatched '%s'", s);
      }
      char open = L->brackets[L->nbrackets - 1].c;
      if (closer_of(open)[0] != c) {
        return tl__parse_error(L->p, line, col, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, open);
      }
      L->nbrackets--;
    }
    for (size_t j = 0; j < k; j++) adv(L);
    tl__tok *t = push(L, TK_OP, line, col, off);
    if (!t) return L->p->status;
    t->s = OPS[i];
    t->slen = k;
    return TL_OK;
  }
  int c = cur(L);
  if (c == '!') return LERR(L, line, col, "invalid syntax: '!' (use 'not' or '!=')");
  if (c >= 0x20 && c < 0x7F) return tl__parse_error(L->p, line, col, "invalid character '%c'", c);
  return tl__parse_error(L->p, line, col, "invalid character (byte 0x%02x)", (unsigned)c);
}

/* Measures the indentation at the start of a logical line and emits INDENT/DEDENTs.
 * Blank and comment-only lines are skipped entirely. Returns false at end of input. */
static tl_status line_start(lexer *L, bool *eof) {
  for (;;) {
    uint32_t width = 0;
    while (cur(L) == ' ' || cur(L) == '\t' || cur(L) == '\f') {
      if (cur(L) == ' ') width++;
      else if (cur(L) == '\t') width = (width / 8 + 1) * 8;
      else width = 0;
      adv(L);
    }
    int c = cur(L);
    if (c < 0) {
      *eof = true;
      return TL_OK;
    }
    if (c == '#') {
      while (cur(L) >= 0 && !is_newline(cur(L))) adv(L);
      if (cur(L) < 0) {
        *eof = true;
        return TL_OK;
      }
    }
    if (is_newline(cur(L))) {
      eat_newline(L);
      continue;
    }
    if (c == '\\' && is_newline(at(L, 1))) {
      /* A continuation on an otherwise empty line: the logical line starts here. */
      *eof = false;
      L->line_has_tokens = false;
      return TL_OK;
    }
    *eof = false;
    L->line_has_tokens = false;
    uint32_t top = L->indents[L->nindents - 1];
    if (width > top) {
      if (L->nindents >= TL__PARSE_MAX_BLOCK_DEPTH + 1)
        return LERR(L, L->line, L->col, "too many levels of indentation");
      L->indents[L->nindents++] = width;
      tl__tok *t = push(L, TK_INDENT, L->line, L->col, L->pos);
      if (!t) return L->p->status;
      t->len = 0;
    } else {
      while (width < L->indents[L->nindents - 1]) {
        L->nindents--;
        tl__tok *t = push(L, TK_DEDENT, L->line, L->col, L->pos);
        if (!t) return L->p->status;
        t->len = 0;
      }
      if (width != L->indents[L->nindents - 1])
        return LERR(L, L->line, L->col, "unindent does not match any outer indentation level");
    }
    return TL_OK;
  }
}

tl_status tl__lex(tl__parse_ctx *p, tl__vec *toks) {
  if (p->len > TL__PARSE_MAX_SOURCE) return tl__parse_error(p, 0, 0, "source too large (%zu bytes)", p->len);
  lexer L = {0};
  L.p = p;
  L.toks = toks;
  L.line = 1;
  L.col = 1;
  L.indents[0] = 0;
  L.nindents = 1;
  /* A UTF-8 byte order mark is ignored, as Python does. */
  if (p->len >= 3 && memcmp(p->src, "\xEF\xBB\xBF", 3) == 0) L.pos = 3;
  bool at_line_start = true;
  for (;;) {
    if (p->status != TL_OK) return p->status;
    if (at_line_start) {
      bool eof = false;
      if (line_start(&L, &eof) != TL_OK) return p->status;
      at_line_start = false;
      if (eof) break;
    }
    int c = cur(&L);
    if (c == ' ' || c == '\t' || c == '\f') {
      adv(&L);
      continue;
    }
    if (c < 0) break;
    if (c == '#') {
      while (cur(&L) >= 0 && !is_newline(cur(&L))) adv(&L);
      continue;
    }
    if (c == '\\') {
      if (is_newline(at(&L, 1))) {
        adv(&L);
        eat_newline(&L);
        if (cur(&L) < 0) return LERR(&L, L.line, L.col, "unexpected end of file after line continuation");
        continue;
      }
      return LERR(&L, L.line, L.col, "unexpected character after line continuation character");
    }
    if (is_newline(c)) {
      uint32_t line = L.line, col = L.col;
      size_t off = L.pos;
      eat_newline(&L);
      if (L.nbrackets > 0) continue; /* implicit line joining */
      if (L.line_has_tokens) {
        tl__tok *t = push(&L, TK_NEWLINE, line, col, off);
        if (!t) return p->status;
        t->len = 0;
        L.line_has_tokens = false;
      }
      at_line_start = true;
      continue;
    }
    uint32_t line = L.line, col = L.col;
    size_t off = L.pos;
    if (ident_start(c)) {
      if (c >= 0x80 && c < 0xC2) return tl__parse_error(p, line, col, "invalid character (byte 0x%02x)", (unsigned)c);
      while (ident_char(cur(&L))) adv(&L);
      size_t n = L.pos - off;
      int q = cur(&L);
      if ((q == '\'' || q == '"') && n <= 2) {
        uint8_t flags = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++) {
          char ch = p->src[off + i];
          if (ch == 'r' || ch == 'R') flags |= TL__STR_RAW;
          else if (ch == 'b' || ch == 'B') flags |= TL__STR_BYTES;
          else if (ch == 'f' || ch == 'F') flags |= TL__STR_F;
          else if (ch == 'u' || ch == 'U') ok = n == 1;
          else ok = false;
        }
        if ((flags & TL__STR_BYTES) && (flags & TL__STR_F)) ok = false;
        if (ok) {
          if (lex_string(&L, line, col, off, flags) != TL_OK) return p->status;
          continue;
        }
      }
      tl__tok *t = push(&L, TK_NAME, line, col, off);
      if (!t) return p->status;
      t->s = tl__pstrndup(p, p->src + off, n);
      t->slen = n;
      if (!t->s) return p->status;
      continue;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && at(&L, 1) >= '0' && at(&L, 1) <= '9')) {
      if (lex_number(&L) != TL_OK) return p->status;
      continue;
    }
    if (c == '\'' || c == '"') {
      if (lex_string(&L, line, col, off, 0) != TL_OK) return p->status;
      continue;
    }
    if (lex_op(&L) != TL_OK) return p->status;
  }
  if (L.nbrackets > 0) {
    char s[2] = {L.brackets[L.nbrackets - 1].c, 0};
    return LERR(&L, L.brackets[L.nbrackets - 1].line, L.brackets[L.nbrackets - 1].col, "'%s' was never closed", s);
  }
  if (L.line_has_tokens) {
    tl__tok *t = push(&L, TK_NEWLINE, L.line, L.col, L.pos);
    if (!t) return p->status;
    t->len = 0;
  }
  while (L.nindents > 1) {
    L.nindents--;
    tl__tok *t = push(&L, TK_DEDENT, L.line, L.col, L.pos);
    if (!t) return p->status;
    t->len = 0;
  }
  tl__tok *t = push(&L, TK_EOF, L.line, L.col, L.pos);
  if (!t) return p->status;
  t->len = 0;
  return TL_OK;
}
