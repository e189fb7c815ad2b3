/* The removed CLI target grammar ("cuda -arch=sm_90 -keys=cuda,gpu -flag"), read
 * only to tell users what JSON to write instead. Tokens split at whitespace; single
 * quotes group, with backslash escapes inside; options are -k=v, -k v or -flag;
 * values are typed by the kind's schema (arrays split at commas, as the old grammar
 * did) and guessed for options the kind does not declare. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "tags.h"
#include "target_impl.h"

/* Splits s into tokens written NUL-separated into buf (strlen(s) + 1 bytes);
 * returns the count, or -1 for an unterminated quote or too many tokens. */
static int tokenize(const char *s, char *buf, char **tok, int max) {
  int n = 0;
  char *w = buf;
  const char *p = s;
  for (;;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) return n;
    if (n == max) return -1;
    tok[n++] = w;
    while (*p && !isspace((unsigned char)*p)) {
      if (*p != '\'') {
        *w++ = *p++;
        continue;
      }
      for (p++; *p != '\''; p++) {
        if (!*p) return -1;
        if (*p == '\\' && p[1]) p++;
        *w++ = *p;
      }
      p++;
    }
    *w++ = '\0';
  }
}

static bool parse_int(const char *s, int64_t *out) {
  if (!*s) return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static bool parse_bool(const char *s, bool *out) {
  if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0) return *out = true, true;
  if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0) return *out = false, true;
  return false;
}

/* The value of option `name` given as text (NULL for a bare -flag): 1, or 0 when
 * there is no sensible value, -1 out of memory. */
static int typed_value(const tl__target_option *o, const char *text, tl__arena *a, tl__tval *out) {
  int64_t i;
  bool b;
  if (!text) {
    if (o && o->type != TL__OPT_BOOL) return 0; /* -arch with no value: nothing to suggest */
    *out = tl__tv_bool(true);
    return 1;
  }
  if (!o) {
    if (parse_int(text, &i)) *out = tl__tv_int(i);
    else if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) *out = tl__tv_bool(text[0] == 't');
    else *out = tl__tv_str(text);
    return 1;
  }
  switch (o->type) {
    case TL__OPT_INT: *out = parse_int(text, &i) ? tl__tv_int(i) : tl__tv_str(text); return 1;
    case TL__OPT_BOOL: *out = parse_bool(text, &b) ? tl__tv_bool(b) : tl__tv_str(text); return 1;
    case TL__OPT_STR_ARRAY: {
      size_t n = *text ? 1 : 0;
      for (const char *p = text; *p; p++) n += *p == ',';
      tl__tval *items = tl__arena_alloc(a, (n ? n : 1) * sizeof *items);
      char *copy = tl__arena_strdup(a, text);
      if (!items || !copy) return -1;
      size_t k = 0;
      for (char *p = copy; n && k < n; k++) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        items[k] = tl__tv_str(p);
        p = comma ? comma + 1 : p + strlen(p);
      }
      *out = (tl__tval){.type = TL__TV_ARRAY, .v.arr = {items, n}};
      return 1;
    }
    default: *out = tl__tv_str(text); return 1;
  }
}

/* The kind a tag's configuration names. */
static const tl__target_kind *tag_kind(const tl__target_tag *tag) {
  const char *p = strstr(tag->config, "\"kind\":\"");
  if (!p) return NULL;
  p += 8;
  const char *q = strchr(p, '"');
  char name[32];
  size_t n = q ? (size_t)(q - p) : 0;
  if (!q || n >= sizeof name) return NULL;
  memcpy(name, p, n);
  name[n] = '\0';
  return tl__target_kind_find(name);
}

/* Builds the suggestion as a map in arena a: 1, 0 when there is none, -1 out of
 * memory. */
static int suggest(char **tok, int n, tl__arena *a, tl__tmap *m) {
  if (n < 1) return 0;
  const tl__target_kind *kind = tl__target_kind_find(tok[0]);
  long ti = kind ? -1 : tl__target_tag_index(tok[0]);
  if (!kind && ti < 0) return 0;
  if (kind) {
    if (tl__tmap_set(m, a, "kind", tl__tv_str(tok[0])) != TL_OK) return -1;
  } else {
    kind = tag_kind(tl__target_tag_at((size_t)ti));
    if (tl__tmap_set(m, a, "tag", tl__tv_str(tok[0])) != TL_OK) return -1;
  }
  for (int i = 1; i < n; i++) {
    char *t = tok[i];
    if (t[0] != '-') return 0;
    char *name = t + (t[1] == '-' ? 2 : 1);
    char *eq = strchr(name, '=');
    const char *text = NULL;
    if (eq) {
      *eq = '\0';
      text = eq + 1;
    } else if (i + 1 < n && tok[i + 1][0] != '-') {
      text = tok[++i];
    }
    if (!*name || tl__tmap_get(m, name)) return 0; /* empty or duplicate option */
    const tl__target_option *o = kind ? tl__target_option_find(kind, name) : NULL;
    tl__tval v;
    int r = typed_value(o, text, a, &v);
    if (r <= 0) return r;
    if (tl__tmap_set(m, a, name, v) != TL_OK) return -1;
  }
  return 1;
}

bool tl__target_legacy_to_json(const char *spec, tl__sb *sb) {
  size_t len = strlen(spec);
  int max = (int)(len / 2 + 2 < 256 ? len / 2 + 2 : 256);
  char *buf = tl__malloc(len + 1);
  char **tok = tl__malloc((size_t)max * sizeof *tok);
  tl__arena a;
  tl__arena_init(&a, 1024);
  bool ok = false;
  if (!buf || !tok) {
    sb->failed = true;
  } else {
    int n = tokenize(spec, buf, tok, max);
    tl__tmap m = {NULL, 0, 0};
    int r = n > 0 ? suggest(tok, n, &a, &m) : 0;
    if (r < 0) sb->failed = true;
    if (r > 0) {
      tl__tval v = {.type = TL__TV_MAP, .v.map = m};
      char *json = tl__json_dump(&v, 0, false);
      if (json) {
        tl__sb_append(sb, json);
        tl__free(json);
        ok = true;
      } else {
        sb->failed = true;
      }
    }
  }
  tl__arena_free(&a);
  tl__free(tok);
  tl__free(buf);
  return ok;
}
