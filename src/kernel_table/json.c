/* The kernel table as JSON (what the kernel cache stores next to compiled code):
 *
 *   {"entry":"vadd",
 *    "params":[{"name":"A","tensor":true,"dtype":"float32","dims":[{"sym":0}],"output":false},
 *              {"name":"alpha","tensor":false,"dtype":"float32","dims":[],"output":false}],
 *    "syms":[{"name":"N","param":0,"dim":0}],
 *    "launches":[{"symbol":"vadd_kernel",
 *                 "args":[{"kind":"tensor","index":0,"dtype":"float32"},{"kind":"sym","index":0,"dtype":"int32"}],
 *                 "grid":[[{"sym":0},255,"add",256,"floordiv"],[],[]],"block":[[],[],[]],
 *                 "dyn_shared_bytes":[]}]}
 *
 * A dimension is a constant or {"sym":i}. A launch expression is its postfix program:
 * a number pushes a constant, {"sym":i} pushes a symbolic dim, a string applies an
 * operator; [] is the constant 1. Writing builds the text directly; reading uses
 * jansson into a scratch arena, validates the result (tl__kernel_table_validate)
 * and packs it into one block (tl__kernel_table_pack). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/str.h"
#include "kernel_table/kernel_table.h"
#include "tilelang/runtime.h"

static const struct {
  int32_t op;
  const char *name;
} k_ops[] = {
  {TL_LX_ADD, "add"}, {TL_LX_SUB, "sub"}, {TL_LX_MUL, "mul"}, {TL_LX_FLOORDIV, "floordiv"},
  {TL_LX_FLOORMOD, "floormod"}, {TL_LX_MIN, "min"}, {TL_LX_MAX, "max"},
};
#define NOPS (sizeof k_ops / sizeof k_ops[0])

static const char *const k_arg_kinds[] = {"tensor", "scalar", "sym"}; /* tl_kernel_arg_kind order */

/* ------------------------------------------------------------------ writing */

static void put_string(tl__sb *sb, const char *s) {
  tl__sb_putc(sb, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      tl__sb_putc(sb, '\\');
      tl__sb_putc(sb, (char)*p);
    } else if (*p < 0x20) {
      tl__sb_appendf(sb, "\\u%04x", *p);
    } else {
      tl__sb_putc(sb, (char)*p);
    }
  }
  tl__sb_putc(sb, '"');
}

static void put_dtype(tl__sb *sb, tl_dtype d) {
  char buf[32];
  put_string(sb, tl_dtype_name(d, buf, sizeof buf));
}

static void put_expr(tl__sb *sb, const tl_launch_expr *e) {
  tl__sb_putc(sb, '[');
  for (uint32_t i = 0; i < e->n; i++) {
    if (i) tl__sb_putc(sb, ',');
    const tl_lexpr_insn *in = &e->code[i];
    if (in->op == TL_LX_CONST) {
      tl__sb_appendf(sb, "%" PRId64, in->value);
    } else if (in->op == TL_LX_SYM) {
      tl__sb_appendf(sb, "{\"sym\":%" PRId64 "}", in->value);
    } else {
      for (size_t k = 0; k < NOPS; k++)
        if (k_ops[k].op == in->op) put_string(sb, k_ops[k].name);
    }
  }
  tl__sb_putc(sb, ']');
}

static void put_exprs3(tl__sb *sb, const char *key, const tl_launch_expr e[3]) {
  tl__sb_appendf(sb, ",\"%s\":[", key);
  for (int k = 0; k < 3; k++) {
    if (k) tl__sb_putc(sb, ',');
    put_expr(sb, &e[k]);
  }
  tl__sb_putc(sb, ']');
}

char *tl_kernel_table_to_json(const tl_kernel_table *t) {
  if (tl__kernel_table_validate(t) != TL_OK) return NULL;
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, "{\"entry\":");
  put_string(&sb, t->entry);
  tl__sb_append(&sb, ",\"params\":[");
  for (uint32_t i = 0; i < t->nparams; i++) {
    const tl_host_param *p = &t->params[i];
    if (i) tl__sb_putc(&sb, ',');
    tl__sb_append(&sb, "{\"name\":");
    put_string(&sb, p->name);
    tl__sb_appendf(&sb, ",\"tensor\":%s,\"dtype\":", p->is_tensor ? "true" : "false");
    put_dtype(&sb, p->dtype);
    tl__sb_append(&sb, ",\"dims\":[");
    for (uint32_t d = 0; d < p->ndim; d++) {
      if (d) tl__sb_putc(&sb, ',');
      if (p->dims[d].sym >= 0)
        tl__sb_appendf(&sb, "{\"sym\":%d}", (int)p->dims[d].sym);
      else
        tl__sb_appendf(&sb, "%" PRId64, p->dims[d].value);
    }
    tl__sb_appendf(&sb, "],\"output\":%s", p->is_output ? "true" : "false");
    if (p->data_alignment > 1) tl__sb_appendf(&sb, ",\"align\":%u", (unsigned)p->data_alignment);
    tl__sb_putc(&sb, '}');
  }
  tl__sb_append(&sb, "],\"syms\":[");
  for (uint32_t i = 0; i < t->nsyms; i++) {
    if (i) tl__sb_putc(&sb, ',');
    tl__sb_append(&sb, "{\"name\":");
    put_string(&sb, t->syms[i].name);
    tl__sb_appendf(&sb, ",\"param\":%u,\"dim\":%d}", (unsigned)t->syms[i].param, (int)t->syms[i].dim);
  }
  tl__sb_append(&sb, "],\"launches\":[");
  for (uint32_t i = 0; i < t->nlaunches; i++) {
    const tl_kernel_launch *l = &t->launches[i];
    if (i) tl__sb_putc(&sb, ',');
    tl__sb_append(&sb, "{\"symbol\":");
    put_string(&sb, l->symbol);
    tl__sb_append(&sb, ",\"args\":[");
    for (uint32_t a = 0; a < l->nargs; a++) {
      if (a) tl__sb_putc(&sb, ',');
      tl__sb_appendf(&sb, "{\"kind\":\"%s\",\"index\":%u,\"dtype\":", k_arg_kinds[l->args[a].kind],
                     (unsigned)l->args[a].index);
      put_dtype(&sb, l->args[a].dtype);
      tl__sb_putc(&sb, '}');
    }
    tl__sb_putc(&sb, ']');
    put_exprs3(&sb, "grid", l->grid);
    put_exprs3(&sb, "block", l->block);
    tl__sb_append(&sb, ",\"dyn_shared_bytes\":");
    put_expr(&sb, &l->dyn_shared_bytes);
    tl__sb_putc(&sb, '}');
  }
  tl__sb_append(&sb, "]}");
  return tl__sb_finish(&sb);
}

/* ------------------------------------------------------------------ reading */

#define BAD(...) tl__error(TL_EINVAL, "invalid kernel table JSON: " __VA_ARGS__)

/* Scratch memory for the table being read; the result is packed out of it. */
typedef struct reader {
  tl__arena arena;
} reader;

static void *ralloc(reader *r, size_t n) {
  void *p = tl__arena_alloc(&r->arena, n ? n : 1);
  if (!p) tl__oom();
  return p;
}

static const char *rstrdup(reader *r, const char *s) {
  const char *p = tl__arena_strdup(&r->arena, s);
  if (!p) tl__oom();
  return p;
}

static const char *type_name(json_type type) {
  switch (type) {
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_ARRAY: return "an array";
  case JSON_OBJECT: return "an object";
  default: return "a boolean";
  }
}

/* A member of object o of the given type (JSON_TRUE stands for a boolean), or NULL
 * with the message set. */
static json_t *member(json_t *o, const char *key, json_type type, const char *where) {
  json_t *v = json_object_get(o, key);
  bool ok = v && (type == JSON_TRUE ? json_is_boolean(v) : json_typeof(v) == type);
  if (!ok) BAD("%s: '%s' is missing or not %s", where, key, type_name(type));
  return ok ? v : NULL;
}

static tl_status read_u32(json_t *o, const char *key, const char *where, uint32_t *out) {
  json_t *v = member(o, key, JSON_INTEGER, where);
  if (!v) return TL_EINVAL;
  json_int_t i = json_integer_value(v);
  if (i < 0 || i > (json_int_t)UINT32_MAX) return BAD("%s: '%s' is out of range", where, key);
  *out = (uint32_t)i;
  return TL_OK;
}

static tl_status read_str(reader *r, json_t *o, const char *key, const char *where, const char **out) {
  json_t *v = member(o, key, JSON_STRING, where);
  if (!v) return TL_EINVAL;
  *out = rstrdup(r, json_string_value(v));
  return *out ? TL_OK : tl__oom();
}

static tl_status read_dtype(json_t *o, const char *where, tl_dtype *out) {
  json_t *v = member(o, "dtype", JSON_STRING, where);
  if (!v) return TL_EINVAL;
  if (!tl_dtype_parse(json_string_value(v), out)) return BAD("%s: unknown dtype '%s'", where, json_string_value(v));
  return TL_OK;
}

/* {"sym": i} -> i, or -1 if j is not such an object. */
static int64_t sym_ref(json_t *j) {
  if (!json_is_object(j) || json_object_size(j) != 1) return -1;
  json_t *s = json_object_get(j, "sym");
  if (!json_is_integer(s) || json_integer_value(s) < 0 || json_integer_value(s) > INT32_MAX) return -1;
  return json_integer_value(s);
}

static tl_status read_expr(reader *r, json_t *j, const char *where, tl_launch_expr *out) {
  if (!json_is_array(j)) return BAD("%s: a launch expression must be an array", where);
  size_t n = json_array_size(j);
  if (n > UINT32_MAX) return BAD("%s: launch expression too long", where);
  tl_lexpr_insn *code = ralloc(r, n * sizeof *code);
  if (!code) return tl__oom();
  for (size_t i = 0; i < n; i++) {
    json_t *x = json_array_get(j, i);
    if (json_is_integer(x)) {
      code[i] = (tl_lexpr_insn){TL_LX_CONST, json_integer_value(x)};
    } else if (sym_ref(x) >= 0) {
      code[i] = (tl_lexpr_insn){TL_LX_SYM, sym_ref(x)};
    } else if (json_is_string(x)) {
      size_t k = 0;
      while (k < NOPS && strcmp(k_ops[k].name, json_string_value(x)) != 0) k++;
      if (k == NOPS) return BAD("%s: unknown operator '%s'", where, json_string_value(x));
      code[i] = (tl_lexpr_insn){k_ops[k].op, 0};
    } else {
      return BAD("%s: element %zu is not a number, {\"sym\": i} or an operator", where, i);
    }
  }
  out->n = (uint32_t)n;
  out->code = n ? code : NULL;
  return TL_OK;
}

static tl_status read_exprs3(reader *r, json_t *o, const char *key, const char *where, tl_launch_expr out[3]) {
  json_t *a = member(o, key, JSON_ARRAY, where);
  if (!a) return TL_EINVAL;
  if (json_array_size(a) != 3) return BAD("%s: '%s' must have 3 entries", where, key);
  for (size_t k = 0; k < 3; k++) TL__TRY(read_expr(r, json_array_get(a, k), where, &out[k]));
  return TL_OK;
}

static tl_status read_param(reader *r, json_t *o, uint32_t i, tl_host_param *p) {
  char where[48];
  snprintf(where, sizeof where, "parameter %u", (unsigned)i);
  if (!json_is_object(o)) return BAD("%s is not an object", where);
  TL__TRY(read_str(r, o, "name", where, &p->name));
  json_t *tensor = member(o, "tensor", JSON_TRUE, where), *out = member(o, "output", JSON_TRUE, where);
  if (!tensor || !out) return TL_EINVAL;
  p->is_tensor = json_is_true(tensor);
  p->is_output = json_is_true(out);
  json_t *align = json_object_get(o, "align");
  if (align) {
    if (!json_is_integer(align) || json_integer_value(align) < 0 || json_integer_value(align) > UINT32_MAX)
      return BAD("%s: 'align' must be a non-negative integer", where);
    p->data_alignment = (uint32_t)json_integer_value(align);
  }
  TL__TRY(read_dtype(o, where, &p->dtype));
  json_t *dims = member(o, "dims", JSON_ARRAY, where);
  if (!dims) return TL_EINVAL;
  size_t n = json_array_size(dims);
  if (n > UINT32_MAX) return BAD("%s: too many dimensions", where);
  tl_host_dim *d = ralloc(r, n * sizeof *d);
  if (!d) return tl__oom();
  for (size_t k = 0; k < n; k++) {
    json_t *x = json_array_get(dims, k);
    if (json_is_integer(x))
      d[k] = (tl_host_dim){json_integer_value(x), -1};
    else if (sym_ref(x) >= 0)
      d[k] = (tl_host_dim){0, (int32_t)sym_ref(x)};
    else
      return BAD("%s: dimension %zu is not a number or {\"sym\": i}", where, k);
  }
  p->ndim = (uint32_t)n;
  p->dims = d;
  return TL_OK;
}

static tl_status read_sym(reader *r, json_t *o, uint32_t i, tl_host_sym *s) {
  char where[48];
  snprintf(where, sizeof where, "symbolic dim %u", (unsigned)i);
  if (!json_is_object(o)) return BAD("%s is not an object", where);
  TL__TRY(read_str(r, o, "name", where, &s->name));
  TL__TRY(read_u32(o, "param", where, &s->param));
  json_t *dim = member(o, "dim", JSON_INTEGER, where);
  if (!dim) return TL_EINVAL;
  if (json_integer_value(dim) < -1 || json_integer_value(dim) > INT32_MAX) return BAD("%s: 'dim' is out of range", where);
  s->dim = (int32_t)json_integer_value(dim);
  return TL_OK;
}

static tl_status read_launch(reader *r, json_t *o, uint32_t i, tl_kernel_launch *l) {
  char where[48];
  snprintf(where, sizeof where, "launch %u", (unsigned)i);
  if (!json_is_object(o)) return BAD("%s is not an object", where);
  TL__TRY(read_str(r, o, "symbol", where, &l->symbol));
  json_t *args = member(o, "args", JSON_ARRAY, where);
  if (!args) return TL_EINVAL;
  size_t n = json_array_size(args);
  if (n > UINT32_MAX) return BAD("%s: too many arguments", where);
  tl_kernel_arg *a = ralloc(r, n * sizeof *a);
  if (!a) return tl__oom();
  for (size_t k = 0; k < n; k++) {
    json_t *x = json_array_get(args, k);
    if (!json_is_object(x)) return BAD("%s: argument %zu is not an object", where, k);
    json_t *kind = member(x, "kind", JSON_STRING, where);
    if (!kind) return TL_EINVAL;
    int32_t kk = -1;
    for (int32_t m = 0; m < 3; m++)
      if (strcmp(k_arg_kinds[m], json_string_value(kind)) == 0) kk = m;
    if (kk < 0) return BAD("%s: argument %zu has unknown kind '%s'", where, k, json_string_value(kind));
    a[k].kind = kk;
    TL__TRY(read_u32(x, "index", where, &a[k].index));
    TL__TRY(read_dtype(x, where, &a[k].dtype));
  }
  l->nargs = (uint32_t)n;
  l->args = a;
  TL__TRY(read_exprs3(r, o, "grid", where, l->grid));
  TL__TRY(read_exprs3(r, o, "block", where, l->block));
  json_t *smem = json_object_get(o, "dyn_shared_bytes");
  if (!smem) return BAD("%s: 'dyn_shared_bytes' is missing", where);
  return read_expr(r, smem, where, &l->dyn_shared_bytes);
}

/* Reads array `key` of o into n elements of `size` bytes with `read`. */
typedef tl_status (*read_elem_fn)(reader *r, json_t *o, uint32_t i, void *elem);

static tl_status read_list(reader *r, json_t *root, const char *key, size_t size, read_elem_fn read,
                           void **items, uint32_t *count) {
  json_t *a = member(root, key, JSON_ARRAY, "table");
  if (!a) return TL_EINVAL;
  size_t n = json_array_size(a);
  if (n > UINT32_MAX) return BAD("too many %s", key);
  char *p = ralloc(r, n * size);
  if (!p) return tl__oom();
  for (size_t i = 0; i < n; i++) TL__TRY(read(r, json_array_get(a, i), (uint32_t)i, p + i * size));
  *items = p;
  *count = (uint32_t)n;
  return TL_OK;
}

static tl_status read_param_v(reader *r, json_t *o, uint32_t i, void *e) { return read_param(r, o, i, e); }
static tl_status read_sym_v(reader *r, json_t *o, uint32_t i, void *e) { return read_sym(r, o, i, e); }
static tl_status read_launch_v(reader *r, json_t *o, uint32_t i, void *e) { return read_launch(r, o, i, e); }

static tl_status read_table(reader *r, json_t *root, tl_kernel_table *t) {
  if (!json_is_object(root)) return BAD("the table is not an object");
  TL__TRY(read_str(r, root, "entry", "table", &t->entry));
  void *params, *syms, *launches;
  TL__TRY(read_list(r, root, "params", sizeof(tl_host_param), read_param_v, &params, &t->nparams));
  t->params = params;
  TL__TRY(read_list(r, root, "syms", sizeof(tl_host_sym), read_sym_v, &syms, &t->nsyms));
  t->syms = syms;
  TL__TRY(read_list(r, root, "launches", sizeof(tl_kernel_launch), read_launch_v, &launches, &t->nlaunches));
  t->launches = launches;
  return tl__kernel_table_validate(t);
}

tl_status tl_kernel_table_from_json(const char *json, tl_kernel_table **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_kernel_table_from_json: out must not be NULL");
  *out = NULL;
  if (!json) return tl__error(TL_EINVAL, "tl_kernel_table_from_json: json must not be NULL");
  json_error_t err;
  bool oom = false;
  json_t *root = tl__json_loads(json, JSON_REJECT_DUPLICATES, &err, &oom);
  if (!root) {
    if (oom || !err.text[0]) return tl__oom();
    return BAD("%s at line %d, column %d", err.text, err.line, err.column);
  }
  reader r;
  tl__arena_init(&r.arena, 1024);
  tl_kernel_table t = {0};
  tl_status s = read_table(&r, root, &t);
  json_decref(root);
  if (s == TL_OK) s = tl__kernel_table_pack(&t, out);
  tl__arena_free(&r.arena);
  return s;
}
