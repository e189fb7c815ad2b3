/* Target values: maps, copies, canonical map order, JSON in (jansson) and JSON out
 * (our own writer, byte-compatible with tvm-ffi's json::Stringify). */
#include "value.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/json.h"

const char *tl__tv_type_key(const tl__tval *v) {
  switch (v->type) {
    case TL__TV_NONE: return "None";
    case TL__TV_BOOL: return "bool";
    case TL__TV_INT: return "int";
    case TL__TV_FLOAT: return "float";
    case TL__TV_STR: return "ffi.String";
    case TL__TV_ARRAY: return "ffi.Array";
    case TL__TV_MAP: return "ffi.Map";
    case TL__TV_RAW: break;
  }
  return "ffi.Object";
}

bool tl__tv_is_str_array(const tl__tval *v) {
  if (v->type != TL__TV_ARRAY) return false;
  for (size_t i = 0; i < v->v.arr.n; i++)
    if (v->v.arr.items[i].type != TL__TV_STR) return false;
  return true;
}

/* ---- maps ---- */

tl__tval *tl__tmap_get(const tl__tmap *m, const char *key) {
  for (size_t i = 0; i < m->n; i++)
    if (m->m[i].key[0] == key[0] && strcmp(m->m[i].key, key) == 0) return &m->m[i].val;
  return NULL;
}

tl_status tl__tmap_set(tl__tmap *m, tl__arena *a, const char *key, tl__tval v) {
  tl__tval *cur = tl__tmap_get(m, key);
  if (cur) {
    *cur = v;
    return TL_OK;
  }
  if (m->n == m->cap) {
    /* Arena memory is not reallocated: copy into a bigger block (maps are small). */
    size_t cap = m->cap ? m->cap * 2 : 8;
    tl__tmember *nm = tl__arena_alloc(a, cap * sizeof *nm);
    if (!nm) return tl__oom();
    if (m->n) memcpy(nm, m->m, m->n * sizeof *nm);
    m->m = nm;
    m->cap = cap;
  }
  m->m[m->n++] = (tl__tmember){key, v};
  return TL_OK;
}

/* ---- copies ---- */

tl_status tl__tv_copy(tl__arena *a, const tl__tval *v, tl__tval *out) {
  *out = *v;
  switch (v->type) {
    case TL__TV_STR:
    case TL__TV_RAW:
      out->v.s = tl__arena_strdup(a, v->v.s);
      return out->v.s ? TL_OK : tl__oom();
    case TL__TV_ARRAY: {
      size_t n = v->v.arr.n;
      out->v.arr.items = n ? tl__arena_alloc(a, n * sizeof(tl__tval)) : NULL;
      if (n && !out->v.arr.items) return tl__oom();
      for (size_t i = 0; i < n; i++) TL__TRY(tl__tv_copy(a, &v->v.arr.items[i], &out->v.arr.items[i]));
      return TL_OK;
    }
    case TL__TV_MAP: {
      size_t n = v->v.map.n;
      out->v.map.m = n ? tl__arena_alloc(a, n * sizeof(tl__tmember)) : NULL;
      if (n && !out->v.map.m) return tl__oom();
      out->v.map.cap = n;
      for (size_t i = 0; i < n; i++) {
        out->v.map.m[i].key = tl__arena_strdup(a, v->v.map.m[i].key);
        if (!out->v.map.m[i].key) return tl__oom();
        TL__TRY(tl__tv_copy(a, &v->v.map.m[i].val, &out->v.map.m[i].val));
      }
      return TL_OK;
    }
    default: return TL_OK;
  }
}

/* ---- canonical order ---- */

static int cmp_member(const void *a, const void *b) {
  return strcmp(((const tl__tmember *)a)->key, ((const tl__tmember *)b)->key);
}

void tl__tv_sort_maps(tl__tval *v) {
  if (v->type == TL__TV_ARRAY) {
    for (size_t i = 0; i < v->v.arr.n; i++) tl__tv_sort_maps(&v->v.arr.items[i]);
  } else if (v->type == TL__TV_MAP) {
    /* Writes only when out of order, so values shared read-only (parsed tag
     * configurations) are never touched. */
    bool sorted = true;
    for (size_t i = 1; i < v->v.map.n && sorted; i++) sorted = cmp_member(&v->v.map.m[i - 1], &v->v.map.m[i]) < 0;
    if (!sorted) qsort(v->v.map.m, v->v.map.n, sizeof *v->v.map.m, cmp_member);
    for (size_t i = 0; i < v->v.map.n; i++) tl__tv_sort_maps(&v->v.map.m[i].val);
  }
}

/* ---- JSON in ---- */

/* Converts a jansson value into arena a. */
static tl_status from_json(tl__arena *a, json_t *j, tl__tval *out) {
  switch (json_typeof(j)) {
    case JSON_NULL: *out = (tl__tval){.type = TL__TV_NONE}; return TL_OK;
    case JSON_TRUE: *out = tl__tv_bool(true); return TL_OK;
    case JSON_FALSE: *out = tl__tv_bool(false); return TL_OK;
    case JSON_INTEGER: *out = tl__tv_int((int64_t)json_integer_value(j)); return TL_OK;
    case JSON_REAL: *out = (tl__tval){.type = TL__TV_FLOAT, .v.f = json_real_value(j)}; return TL_OK;
    case JSON_STRING: {
      char *s = tl__arena_strndup(a, json_string_value(j), json_string_length(j));
      if (!s) return tl__oom();
      *out = tl__tv_str(s);
      return TL_OK;
    }
    case JSON_ARRAY: {
      size_t n = json_array_size(j);
      *out = (tl__tval){.type = TL__TV_ARRAY};
      out->v.arr.n = n;
      if (!n) return TL_OK;
      out->v.arr.items = tl__arena_alloc(a, n * sizeof(tl__tval));
      if (!out->v.arr.items) return tl__oom();
      for (size_t i = 0; i < n; i++) TL__TRY(from_json(a, json_array_get(j, i), &out->v.arr.items[i]));
      return TL_OK;
    }
    case JSON_OBJECT: {
      size_t n = json_object_size(j);
      *out = (tl__tval){.type = TL__TV_MAP};
      if (!n) return TL_OK;
      out->v.map.m = tl__arena_alloc(a, n * sizeof(tl__tmember));
      if (!out->v.map.m) return tl__oom();
      out->v.map.cap = n;
      const char *key;
      json_t *val;
      json_object_foreach(j, key, val) {
        tl__tmember *m = &out->v.map.m[out->v.map.n];
        m->key = tl__arena_strdup(a, key);
        if (!m->key) return tl__oom();
        TL__TRY(from_json(a, val, &m->val));
        out->v.map.n++;
      }
      return TL_OK;
    }
  }
  return tl__error(TL_EINTERNAL, "unexpected JSON value type");
}

tl_status tl__tv_parse_json(tl__arena *a, const char *text, const char *what, tl__tval *out) {
  json_error_t err;
  bool oom = false;
  json_t *j = tl__json_loads(text, JSON_REJECT_DUPLICATES, &err, &oom);
  if (!j) {
    /* jansson reports some allocation failures (its lexer's buffer) with no text. */
    if (oom || !err.text[0]) return tl__oom();
    return tl__error(TL_EINVAL, "%s%s at line %d, column %d", what, err.text, err.line, err.column);
  }
  tl_status s = from_json(a, j, out);
  json_decref(j);
  return s;
}

/* ---- JSON out ---- */

static void jw_raw(tl__jw *w, const char *s, size_t n) {
  if (w->len + n <= w->cap) memcpy(w->buf + w->len, s, n);
  w->len += n;
}

static inline void jw_char(tl__jw *w, char c) {
  if (w->len < w->cap) w->buf[w->len] = c;
  w->len++;
}

/* Bytes that tvm-ffi's EscapeString rewrites: 1 always, 2 ('/') only with TVM
 * escaping. */
static const unsigned char escape_class[256] = {
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  ['"'] = 1, ['\\'] = 1, ['/'] = 2, [0x7f] = 1,
};

static void jw_string(tl__jw *w, const char *s) {
  jw_char(w, '"');
  for (const char *p = s; *p; p++) {
    unsigned char c = (unsigned char)*p, k = escape_class[c];
    if (!k || (k == 2 && !w->tvm_escape)) {
      jw_char(w, (char)c); /* most bytes: copied one by one, no call per run */
      continue;
    }
    switch (c) {
      case '"': jw_raw(w, "\\\"", 2); break;
      case '\\': jw_raw(w, "\\\\", 2); break;
      case '/': jw_raw(w, "\\/", 2); break;
      case '\b': jw_raw(w, "\\b", 2); break;
      case '\f': jw_raw(w, "\\f", 2); break;
      case '\n': jw_raw(w, "\\n", 2); break;
      case '\r': jw_raw(w, "\\r", 2); break;
      case '\t': jw_raw(w, "\\t", 2); break;
      default: {
        static const char hex[] = "0123456789abcdef";
        char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        jw_raw(w, u, 6);
      }
    }
  }
  jw_char(w, '"');
}

/* A newline and the indentation of `level` (tvm-ffi's WriteIndent). */
static void jw_indent(tl__jw *w, int level) {
  jw_char(w, '\n');
  for (int i = 0; i < level * w->indent; i++) jw_char(w, ' ');
}

/* Numbers as tvm-ffi writes them: integral floats keep a ".0". */
static void jw_float(tl__jw *w, double f) {
  char buf[40];
  int n;
  double ip;
  if (isnan(f)) n = snprintf(buf, sizeof buf, "NaN");
  else if (isinf(f)) n = snprintf(buf, sizeof buf, "%s", f < 0 ? "-Infinity" : "Infinity");
  else if (fabs(f) < 9007199254740992.0 && modf(f, &ip) == 0) n = snprintf(buf, sizeof buf, "%.1f", ip);
  else n = snprintf(buf, sizeof buf, "%.17g", f);
  jw_raw(w, buf, (size_t)n);
}

void tl__jw_value(tl__jw *w, const tl__tval *v, int level) {
  switch (v->type) {
    case TL__TV_NONE: jw_raw(w, "null", 4); return;
    case TL__TV_BOOL:
      if (v->v.b) jw_raw(w, "true", 4);
      else jw_raw(w, "false", 5);
      return;
    case TL__TV_INT: {
      /* Decimal, without printf (the hot path of rendering). */
      char buf[24];
      char *p = buf + sizeof buf;
      uint64_t u = v->v.i < 0 ? 0 - (uint64_t)v->v.i : (uint64_t)v->v.i;
      do *--p = (char)('0' + u % 10);
      while (u /= 10);
      if (v->v.i < 0) *--p = '-';
      jw_raw(w, p, (size_t)(buf + sizeof buf - p));
      return;
    }
    case TL__TV_FLOAT: jw_float(w, v->v.f); return;
    case TL__TV_STR: jw_string(w, v->v.s); return;
    case TL__TV_RAW: jw_raw(w, v->v.s, strlen(v->v.s)); return;
    case TL__TV_ARRAY:
      jw_char(w, '[');
      for (size_t i = 0; i < v->v.arr.n; i++) {
        if (i) jw_char(w, ',');
        if (w->indent) jw_indent(w, level + 1);
        tl__jw_value(w, &v->v.arr.items[i], level + 1);
      }
      if (w->indent) jw_indent(w, level);
      jw_char(w, ']');
      return;
    case TL__TV_MAP:
      jw_char(w, '{');
      for (size_t i = 0; i < v->v.map.n; i++) {
        if (i) jw_char(w, ',');
        if (w->indent) jw_indent(w, level + 1);
        jw_string(w, v->v.map.m[i].key);
        jw_char(w, ':');
        if (w->indent) jw_char(w, ' ');
        tl__jw_value(w, &v->v.map.m[i].val, level + 1);
      }
      if (w->indent) jw_indent(w, level);
      jw_char(w, '}');
      return;
  }
}

char *tl__json_dump(const tl__tval *v, int indent, bool tvm_escape) {
  tl__jw w = {NULL, 0, 0, indent, tvm_escape};
  tl__jw_value(&w, v, 0);
  char *buf = tl__malloc(w.len + 1);
  if (!buf) {
    tl__oom();
    return NULL;
  }
  w = (tl__jw){buf, 0, w.len, indent, tvm_escape};
  tl__jw_value(&w, v, 0);
  buf[w.len] = '\0';
  return buf;
}
