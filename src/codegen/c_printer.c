/* The C-family printer: output, names, types, helper sections, statements and
 * device kernels. Expressions are in c_expr.c. */
#include "codegen/c_printer.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

enum { FLAG_NONNEG = 1, FLAG_VECTOR = 2, FLAG_ELEM = 4, FLAG_DATA = 8 };

/* ------------------------------------------------------------------ state */

void tl__cgen_init(tl__cgen *g, const tl__c_dialect *d) {
  memset(g, 0, sizeof *g);
  g->d = d;
  tl__sb_init(&g->body);
  g->out = &g->body;
  tl__vec_init(&g->var_text, sizeof(char *));
  tl__vec_init(&g->var_flags, sizeof(uint8_t));
  tl__vec_init(&g->var_elem, sizeof(tl_dtype));
  tl__map_init(&g->idents);
  tl__vec_init(&g->helpers, sizeof(tl__cgen_helper_use));
  tl__vec_init(&g->hoisted, sizeof(tl__cgen_hoisted));
  g->status = TL_OK;
}

static void forget_names(tl__cgen *g) {
  for (size_t i = 0; i < g->var_text.len; i++) tl__free(TL__VEC_AT(&g->var_text, char *, i));
  tl__vec_clear(&g->var_text);
  tl__vec_clear(&g->var_flags);
  tl__vec_clear(&g->var_elem);
  tl__map_free(&g->idents, NULL);
  tl__map_init(&g->idents);
}

void tl__cgen_free(tl__cgen *g) {
  forget_names(g);
  tl__vec_free(&g->var_text);
  tl__vec_free(&g->var_flags);
  tl__vec_free(&g->var_elem);
  tl__vec_free(&g->helpers);
  tl__vec_free(&g->hoisted);
  tl__sb_free(&g->body);
}

void tl__cgen_begin_func(tl__cgen *g) {
  forget_names(g);
  g->lane = NULL;
  g->loop_depth = 0;
  g->dyn_offset = 0;
  g->dyn_array = NULL;
  tl__vec_clear(&g->hoisted);
}

tl_status tl__cgen_fail(tl__cgen *g, tl_status s) {
  if (g->status == TL_OK) g->status = s;
  return s;
}

tl_status tl__cgen_error(tl__cgen *g, tl_status s, const char *fmt, ...) {
  if (g->status != TL_OK) return s; /* keep the first message */
  va_list ap;
  va_start(ap, fmt);
  tl__verror(s, fmt, ap);
  va_end(ap);
  return tl__cgen_fail(g, s);
}

tl_status tl__cgen_status(const tl__cgen *g) {
  if (g->status != TL_OK) return g->status;
  return tl__sb_status(&g->body);
}

/* ----------------------------------------------------------------- output */

void tl__cgen_write(tl__cgen *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tl__sb_vappendf(g->out, fmt, ap);
  va_end(ap);
}

void tl__cgen_line(tl__cgen *g, const char *fmt, ...) {
  tl__sb_indent(g->out, 2 * g->indent);
  va_list ap;
  va_start(ap, fmt);
  tl__sb_vappendf(g->out, fmt, ap);
  va_end(ap);
  tl__sb_putc(g->out, '\n');
}

tl__sb *tl__cgen_capture_begin(tl__cgen *g, tl__sb *sb) {
  tl__sb *prev = g->out;
  g->out = sb;
  return prev;
}

void tl__cgen_capture_end(tl__cgen *g, tl__sb *previous) {
  if (tl__sb_status(g->out) != TL_OK) tl__cgen_fail(g, TL_ENOMEM);
  g->out = previous;
}

char *tl__cgen_expr_str(tl__cgen *g, const tl_ir_expr *e) {
  tl__sb sb = TL__SB_INIT;
  tl__sb *prev = tl__cgen_capture_begin(g, &sb);
  tl__cgen_expr(g, e, TL__PREC_TOP);
  tl__cgen_capture_end(g, prev);
  if (g->status != TL_OK) {
    tl__sb_free(&sb);
    return NULL;
  }
  char *s = tl__sb_finish(&sb);
  if (!s) tl__cgen_fail(g, TL_ENOMEM);
  return s;
}

/* -------------------------------------------------------------- templates */

void tl__cgen_expand(tl__cgen *g, const char *tmpl, const tl__cgen_subst *subst, size_t n) {
  for (const char *p = tmpl; *p; p++) {
    if (p[0] == '\n' && p[1]) { /* a statement of several lines keeps the indentation */
      tl__sb_putc(g->out, '\n');
      tl__sb_indent(g->out, 2 * g->indent);
      continue;
    }
    if (p[0] != '$') {
      tl__sb_putc(g->out, *p);
      continue;
    }
    if (p[1] == '$') {
      tl__sb_putc(g->out, '$');
      p++;
      continue;
    }
    /* The longest placeholder that matches ($DA before $D). */
    const tl__cgen_subst *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < n; i++) {
      size_t len = strlen(subst[i].key);
      if (len > best_len && strncmp(p + 1, subst[i].key, len) == 0) {
        best = &subst[i];
        best_len = len;
      }
    }
    if (!best) {
      tl__sb_putc(g->out, *p); /* not a placeholder here: a literal dollar sign */
      continue;
    }
    tl__sb_append(g->out, best->value ? best->value : "");
    p += best_len;
  }
}

const char *tl__cgen_space(const tl__cgen *g, tl_ir_scope scope) {
  const char *s;
  switch (scope) {
  case TL_SCOPE_GLOBAL: s = g->d->global_space; break;
  case TL_SCOPE_SHARED: case TL_SCOPE_SHARED_DYN: s = g->d->shared_space; break;
  default: s = g->d->local_space; break;
  }
  return s ? s : "";
}

const char *tl__cgen_space_word(tl_ir_scope scope) {
  switch (scope) {
  case TL_SCOPE_GLOBAL: return "global";
  case TL_SCOPE_SHARED: case TL_SCOPE_SHARED_DYN: return "shared";
  default: return "local";
  }
}

/* ------------------------------------------------------------------ names */

static const char *const k_keywords[] = {
  "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
  "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
  "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
  "_Complex", "_Imaginary", "_Static_assert", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn",
  "_Thread_local", "bool", "true", "false", "NULL", "INFINITY", "NAN", "asm", "typeof",
  /* CUDA/OpenCL/Metal words a later dialect would trip over */
  "half", "kernel", "device", "constant", "threadgroup", "thread", "global", "local", "private",
  "blockIdx", "threadIdx", "blockDim", "gridDim", "warpSize", "main", NULL,
};

bool tl__c_is_identifier(const char *s) {
  if (!s || !*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (const char *p = s; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_')) return false;
  for (size_t i = 0; k_keywords[i]; i++)
    if (strcmp(k_keywords[i], s) == 0) return false;
  return true;
}

/* Names the helpers, macros and standard headers use are never given to variables:
 * anything starting with tl_/TL_ or __, and the usual C library names a kernel might
 * otherwise shadow. */
static bool reserved(const char *s) {
  static const char *const k_libc[] = {"exp", "exp2", "log", "log2", "sqrt", "tanh", "pow", "fma", "floor", "ceil",
                                       "round", "trunc", "sin", "cos", "fabs", "expf", "logf", "sqrtf", "floorf",
                                       "fmaf", "powf", "abs", "snprintf", "memcpy", NULL};
  if (!strncmp(s, "tl_", 3) || !strncmp(s, "TL_", 3) || !strncmp(s, "__", 2)) return true;
  for (size_t i = 0; k_libc[i]; i++)
    if (strcmp(k_libc[i], s) == 0) return true;
  return !tl__c_is_identifier(s);
}

/* A word of the dialect's own language (C++ keywords, built-in names). */
static bool dialect_reserved(const tl__c_dialect *d, const char *s) {
  for (const char *const *w = d->reserved_words; w && *w; w++)
    if (strcmp(*w, s) == 0) return true;
  return false;
}

void tl__cgen_reserve(tl__cgen *g, const char *ident) {
  if (tl__map_put(&g->idents, ident, NULL, NULL) != TL_OK) tl__cgen_fail(g, TL_ENOMEM);
}

const char *tl__cgen_fresh(tl__cgen *g, const char *base) {
  char stem[64];
  size_t n = 0;
  for (const char *p = base ? base : ""; *p && n < sizeof stem - 8; p++)
    stem[n++] = isalnum((unsigned char)*p) ? *p : '_';
  stem[n] = '\0';
  if (n == 0 || isdigit((unsigned char)stem[0])) {
    memmove(stem + 1, stem, n + 1);
    stem[0] = 'v';
  }
  char name[80];
  snprintf(name, sizeof name, "%s", stem);
  for (unsigned k = 1; reserved(name) || dialect_reserved(g->d, name) || tl__map_get(&g->idents, name, NULL); k++)
    snprintf(name, sizeof name, "%s_%u", stem, k);
  if (tl__map_put(&g->idents, name, NULL, NULL) != TL_OK) {
    tl__cgen_fail(g, TL_ENOMEM);
    return "tl_oom";
  }
  /* The map owns a copy of the key; hand out that copy. */
  for (size_t i = tl__map_len(&g->idents); i-- > 0;)
    if (strcmp(tl__map_key(&g->idents, i), name) == 0) return tl__map_key(&g->idents, i);
  return "tl_oom";
}

/* Grows the per-variable arrays to cover id (all three or none). */
static bool ensure_var(tl__cgen *g, uint32_t id) {
  size_t need = (size_t)id + 1;
  if (g->var_text.len >= need) return true;
  if (tl__vec_reserve(&g->var_text, need) != TL_OK || tl__vec_reserve(&g->var_flags, need) != TL_OK ||
      tl__vec_reserve(&g->var_elem, need) != TL_OK) {
    tl__cgen_fail(g, TL_ENOMEM);
    return false;
  }
  char *none = NULL;
  uint8_t zero = 0;
  tl_dtype dt = {0, 0, 0};
  while (g->var_text.len < need) {
    tl__vec_push(&g->var_text, &none); /* within the reserved capacity: cannot fail */
    tl__vec_push(&g->var_flags, &zero);
    tl__vec_push(&g->var_elem, &dt);
  }
  return true;
}

void tl__cgen_bind(tl__cgen *g, const tl_ir_var *v, const char *text) {
  if (!ensure_var(g, v->id)) return;
  char *copy = tl__strdup(text);
  if (!copy) {
    tl__cgen_fail(g, tl__oom());
    return;
  }
  char **slot = &TL__VEC_AT(&g->var_text, char *, v->id);
  tl__free(*slot);
  *slot = copy;
}

const char *tl__cgen_declare(tl__cgen *g, const tl_ir_var *v) {
  const char *name = tl__cgen_fresh(g, v->name);
  tl__cgen_bind(g, v, name);
  return tl__cgen_var_text(g, v) ? tl__cgen_var_text(g, v) : "tl_oom";
}

const char *tl__cgen_var_text(const tl__cgen *g, const tl_ir_var *v) {
  return v->id < g->var_text.len ? TL__VEC_AT(&g->var_text, char *, v->id) : NULL;
}

static uint8_t var_flags(const tl__cgen *g, const tl_ir_var *v) {
  return v->id < g->var_flags.len ? TL__VEC_AT(&g->var_flags, uint8_t, v->id) : 0;
}

static void set_flag(tl__cgen *g, const tl_ir_var *v, uint8_t f) {
  if (ensure_var(g, v->id)) TL__VEC_AT(&g->var_flags, uint8_t, v->id) |= f;
}

void tl__cgen_set_nonneg(tl__cgen *g, const tl_ir_var *v) { set_flag(g, v, FLAG_NONNEG); }
bool tl__cgen_var_nonneg(const tl__cgen *g, const tl_ir_var *v) {
  return (var_flags(g, v) & FLAG_NONNEG) || v->thread_tag != NULL;
}
bool tl__cgen_var_vector(const tl__cgen *g, const tl_ir_var *v) { return var_flags(g, v) & FLAG_VECTOR; }
void tl__cgen_set_data(tl__cgen *g, const tl_ir_var *v) { set_flag(g, v, FLAG_DATA); }

bool tl__cgen_expr_is_data(const tl__cgen *g, const tl_ir_expr *e) {
  if (!e) return false;
  switch (e->kind) {
  case TL_EXPR_LOAD: return true;
  case TL_EXPR_VAR: return (var_flags(g, e->u.var) & FLAG_DATA) != 0;
  case TL_EXPR_BINARY: return tl__cgen_expr_is_data(g, e->u.binary.a) || tl__cgen_expr_is_data(g, e->u.binary.b);
  case TL_EXPR_UNARY: return tl__cgen_expr_is_data(g, e->u.unary.a);
  case TL_EXPR_CAST: return tl__cgen_expr_is_data(g, e->u.cast.value);
  case TL_EXPR_BROADCAST: return tl__cgen_expr_is_data(g, e->u.broadcast.value);
  case TL_EXPR_RAMP: return tl__cgen_expr_is_data(g, e->u.ramp.base);
  case TL_EXPR_SELECT:
    return tl__cgen_expr_is_data(g, e->u.select.cond) || tl__cgen_expr_is_data(g, e->u.select.t) ||
           tl__cgen_expr_is_data(g, e->u.select.f);
  case TL_EXPR_CALL:
    for (uint32_t i = 0; i < e->u.call.nargs; i++)
      if (tl__cgen_expr_is_data(g, e->u.call.args[i])) return true;
    return false;
  default: return false;
  }
}

const char *tl__cgen_hoisted_name(const tl__cgen *g, const tl_ir_expr *load) {
  for (size_t i = 0; i < g->hoisted.len; i++) {
    const tl__cgen_hoisted *h = tl__vec_at(&g->hoisted, i);
    if (h->load == load) return h->name;
  }
  return NULL;
}

/* Records the element type a data variable was declared with (pointer or array). */
static void set_elem(tl__cgen *g, const tl_ir_var *data, tl_dtype t) {
  if (!ensure_var(g, data->id)) return;
  TL__VEC_AT(&g->var_elem, tl_dtype, data->id) = t;
  TL__VEC_AT(&g->var_flags, uint8_t, data->id) |= FLAG_ELEM;
}

/* ------------------------------------------------------------------ types */

const tl__c_half_type *tl__cgen_half_type(const tl__cgen *g, tl_dtype t) {
  if (t.bits != 16) return NULL;
  if (t.code == TL_DTYPE_FLOAT) return &g->d->f16;
  if (t.code == TL_DTYPE_BFLOAT) return &g->d->bf16;
  return NULL;
}

static const char *scalar_type(const tl__cgen *g, tl_dtype t) {
  const tl__c_dialect *d = g->d;
  switch (t.code) {
  case TL_DTYPE_BOOL: return d->t_bool;
  case TL_DTYPE_INT: return t.bits == 8 ? d->t_i8 : t.bits == 16 ? d->t_i16 : t.bits == 32 ? d->t_i32 : t.bits == 64 ? d->t_i64 : NULL;
  case TL_DTYPE_UINT: return t.bits == 8 ? d->t_u8 : t.bits == 16 ? d->t_u16 : t.bits == 32 ? d->t_u32 : t.bits == 64 ? d->t_u64 : NULL;
  case TL_DTYPE_FLOAT: return t.bits == 32 ? d->t_f32 : t.bits == 64 ? d->t_f64 : NULL;
  case TL_DTYPE_HANDLE: return d->t_handle;
  default: return NULL;
  }
}

static const char *no_type(tl__cgen *g, tl_dtype t) {
  char buf[32];
  tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no type for %s", g->d->name, tl_dtype_name(t, buf, sizeof buf));
  return "void";
}

const char *tl__cgen_type(tl__cgen *g, tl_dtype t) {
  t = tl_dtype_scalar(t);
  const tl__c_half_type *h = tl__cgen_half_type(g, t);
  if (h) {
    if (h->helper) tl__cgen_use_helper(g, h->helper, t);
    return h->compute;
  }
  const char *s = scalar_type(g, t);
  return s ? s : no_type(g, t);
}

const char *tl__cgen_storage_type(tl__cgen *g, tl_dtype t) {
  t = tl_dtype_scalar(t);
  const tl__c_half_type *h = tl__cgen_half_type(g, t);
  if (h) {
    /* A plain type holds the bits (C); a header's type needs its section. */
    if (h->storage_helper && h->helper) tl__cgen_use_helper(g, h->helper, t);
    return h->storage;
  }
  const char *s = scalar_type(g, t);
  return s ? s : no_type(g, t);
}

/* "i32", "u8", "f32" (16-bit floats are computed as f32). */
static const char *type_suffix(tl_dtype t) {
  switch (t.code) {
  case TL_DTYPE_INT: return t.bits == 8 ? "i8" : t.bits == 16 ? "i16" : t.bits == 32 ? "i32" : "i64";
  case TL_DTYPE_UINT: return t.bits == 8 ? "u8" : t.bits == 16 ? "u16" : t.bits == 32 ? "u32" : "u64";
  case TL_DTYPE_FLOAT: return t.bits == 64 ? "f64" : "f32";
  case TL_DTYPE_BFLOAT: return "f32";
  default: return "b";
  }
}

const char *tl__cgen_storage_suffix(tl_dtype t) {
  t = tl_dtype_scalar(t);
  if (t.code == TL_DTYPE_FLOAT && t.bits == 16) return "f16";
  if (t.code == TL_DTYPE_BFLOAT) return "bf16";
  if (t.code == TL_DTYPE_BOOL) return "b";
  if (t.code == TL_DTYPE_HANDLE) return "h";
  return type_suffix(t);
}

/* --------------------------------------------------------------- helpers */

static const tl__c_helper *find_helper(const tl__c_dialect *d, const char *name) {
  for (const tl__c_helper *h = d->helpers; h && h->name; h++)
    if (strcmp(h->name, name) == 0) return h;
  return NULL;
}

/* The type a per-type section is instantiated for: 16-bit floats use float's. */
static tl_dtype helper_type(const tl__c_helper *h, tl_dtype t) {
  if (!h->per_type) return (tl_dtype){0, 0, 0};
  t = tl_dtype_scalar(t);
  if (t.code == TL_DTYPE_BFLOAT || (t.code == TL_DTYPE_FLOAT && t.bits == 16)) return TL_DT_FLOAT32;
  return t;
}

void tl__cgen_use_helper(tl__cgen *g, const char *name, tl_dtype t) {
  const tl__c_helper *h = find_helper(g->d, name);
  if (!h) {
    tl__cgen_error(g, TL_EINTERNAL, "the %s dialect has no helper section '%s'", g->d->name, name);
    return;
  }
  tl_dtype ht = helper_type(h, t);
  if (h->requires) tl__cgen_use_helper(g, h->requires, t);
  for (size_t i = 0; i < g->helpers.len; i++) {
    tl__cgen_helper_use *u = tl__vec_at(&g->helpers, i);
    if (u->helper == h && tl_dtype_eq(u->type, ht)) return;
  }
  tl__cgen_helper_use u = {h, ht};
  if (tl__vec_push(&g->helpers, &u) != TL_OK) tl__cgen_fail(g, TL_ENOMEM);
}

/* Appends the section's text with $T, $S and $F replaced, inside its guard. */
static void emit_helper(tl__cgen *g, tl__sb *out, const tl__cgen_helper_use *u) {
  const tl__c_helper *h = u->helper;
  const char *ctype = h->per_type ? scalar_type(g, u->type) : "";
  const char *suffix = h->per_type ? type_suffix(u->type) : "";
  char guard[96];
  int n = snprintf(guard, sizeof guard, "TL_HELPER_%s%s%s", h->name, h->per_type ? "_" : "", suffix);
  for (int i = 0; i < n; i++) guard[i] = (char)toupper((unsigned char)guard[i]);
  tl__sb_appendf(out, "#ifndef %s\n#define %s\n", guard, guard);
  for (const char *p = h->text; *p; p++) {
    if (p[0] == '$' && p[1] == 'T') tl__sb_append(out, ctype ? ctype : "void");
    else if (p[0] == '$' && p[1] == 'S') tl__sb_append(out, suffix);
    else if (p[0] == '$' && p[1] == 'F') tl__sb_append(out, g->d->helper_prefix);
    else if (p[0] == '$' && p[1] == 'W') tl__sb_append(out, g->d->t_wide ? g->d->t_wide : g->d->t_f64 ? g->d->t_f64 : "double");
    else {
      tl__sb_putc(out, *p);
      continue;
    }
    p++;
  }
  tl__sb_append(out, "#endif\n");
}

void tl__cgen_emit_helpers(tl__cgen *g, tl__sb *out) {
  /* use_helper records a section's requirement before the section itself. */
  for (size_t i = 0; i < g->helpers.len; i++) emit_helper(g, out, tl__vec_at(&g->helpers, i));
}

/* --------------------------------------------------------------- elements */

/* How a data variable prints. */
static const char *data_text(tl__cgen *g, const tl_ir_buffer *buf) {
  const char *t = tl__cgen_var_text(g, buf->data);
  if (!t) tl__cgen_error(g, TL_EINVAL, "buffer '%s' is used but not defined in this function", buf->name);
  return t ? t : "tl_undefined";
}

void tl__cgen_element(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx) {
  const char *name = data_text(g, buf);
  tl_dtype t = tl_dtype_scalar(buf->dtype);
  bool known = var_flags(g, buf->data) & FLAG_ELEM;
  if (known && !tl_dtype_eq(TL__VEC_AT(&g->var_elem, tl_dtype, buf->data->id), t))
    tl__cgen_write(g, "((%s *)%s)[", tl__cgen_storage_type(g, t), name);
  else
    tl__cgen_write(g, "%s[", name);
  if (n != buf->ndim) {
    tl__cgen_error(g, TL_EINVAL, "buffer '%s' of rank %u indexed with %u indices", buf->name, buf->ndim, n);
  } else if (n == 0) {
    tl__cgen_write(g, "0");
  } else if (buf->strides) {
    for (uint32_t k = 0; k < n; k++) {
      if (k) tl__cgen_write(g, " + ");
      tl__cgen_expr(g, idx[k], TL__PREC_MUL);
      tl__cgen_write(g, " * ");
      tl__cgen_expr(g, buf->strides[k], TL__PREC_MUL + 1);
    }
  } else if (n == 1) {
    tl__cgen_expr(g, idx[0], TL__PREC_TOP);
  } else {
    /* Row-major: ((i0 * s1 + i1) * s2 + i2) ... */
    for (uint32_t k = 0; k + 2 < n; k++) tl__cgen_write(g, "(");
    tl__cgen_expr(g, idx[0], TL__PREC_MUL);
    for (uint32_t k = 1; k < n; k++) {
      tl__cgen_write(g, " * ");
      tl__cgen_expr(g, buf->shape[k], TL__PREC_MUL + 1);
      tl__cgen_write(g, " + ");
      tl__cgen_expr(g, idx[k], TL__PREC_ADD + 1);
      if (k + 1 < n) tl__cgen_write(g, ")");
    }
  }
  tl__cgen_write(g, "]");
}

/* ------------------------------------------------------------- statements */

static void block(tl__cgen *g, const tl_ir_stmt *s) {
  g->indent++;
  tl__cgen_stmt(g, s);
  g->indent--;
}

/* True if expression e mentions any of the n variables. */
typedef struct mention_ctx {
  tl_ir_var *const *vars;
  uint32_t n;
  bool found;
} mention_ctx;

static bool mention_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  mention_ctx *c = v->ctx;
  if (e->kind == TL_EXPR_VAR)
    for (uint32_t i = 0; i < c->n; i++)
      if (c->vars[i] == e->u.var) c->found = true;
  return !c->found;
}

static bool mentions(const tl_ir_expr *e, tl_ir_var *const *vars, uint32_t n) {
  mention_ctx c = {vars, n, false};
  tl_ir_visitor v = {mention_expr, NULL, &c};
  tl_ir_visit_expr(&v, e);
  return c.found;
}

/* The loops of the perfect nest starting at s (parallel loops whose bounds do not
 * depend on outer ones) a parallel-for directive may cover, at most 3: their
 * count, and their extents in extents[]. */
static int collapse_depth(const tl_ir_stmt *s, const tl_ir_expr *extents[3]) {
  tl_ir_var *outer[3];
  int depth = 0;
  for (const tl_ir_stmt *l = s; l && l->kind == TL_STMT_FOR && l->u.loop.kind == TL_FOR_PARALLEL; l = l->u.loop.body) {
    for (uint32_t k = 0; k < l->u.loop.n; k++) {
      if (depth == 3) return depth;
      if (depth > 0 && (mentions(l->u.loop.mins[k], outer, (uint32_t)depth) ||
                        mentions(l->u.loop.extents[k], outer, (uint32_t)depth)))
        return depth;
      extents[depth] = l->u.loop.extents[k];
      outer[depth++] = l->u.loop.vars[k];
    }
  }
  return depth;
}

/* The parallel-for line of a loop nest, with the condition that it has more than
 * one iteration unless that is a known constant. NULL: no directive (one iteration
 * at most, or the dialect has none). */
/* The parallel-for line from the dialect's hook or its plain-data template. */
static const char *parallel_line(tl__cgen *g, int depth, const char *cond, char *buf, size_t cap) {
  if (g->d->parallel_for) return g->d->parallel_for(depth, cond, buf, cap);
  char c[24] = "";
  if (depth > 1) snprintf(c, sizeof c, " collapse(%d)", depth);
  tl__sb ifc = TL__SB_INIT, line = TL__SB_INIT;
  if (cond) tl__sb_appendf(&ifc, " if(%s)", cond);
  tl__cgen_subst sub[] = {{"C", c}, {"I", cond ? tl__sb_str(&ifc) : ""}};
  tl__sb *prev = tl__cgen_capture_begin(g, &line);
  tl__cgen_expand(g, g->d->parallel_for_tmpl, sub, 2);
  tl__cgen_capture_end(g, prev);
  snprintf(buf, cap, "%s", tl__sb_status(&line) == TL_OK ? tl__sb_str(&line) : "");
  if (tl__sb_status(&ifc) != TL_OK) tl__cgen_fail(g, TL_ENOMEM);
  tl__sb_free(&ifc);
  tl__sb_free(&line);
  return buf;
}

static const char *parallel_pragma(tl__cgen *g, const tl_ir_stmt *s, char *buf, size_t cap) {
  const tl_ir_expr *extents[3];
  int depth = collapse_depth(s, extents);
  bool constant = true;
  int64_t trips = 1;
  for (int k = 0; k < depth; k++) {
    if (extents[k]->kind != TL_EXPR_INT) constant = false;
    else trips *= extents[k]->u.int_value;
  }
  if (constant && trips <= 1) return NULL;
  if (constant) return parallel_line(g, depth, NULL, buf, cap);
  tl__sb cond = TL__SB_INIT;
  tl__sb *prev = tl__cgen_capture_begin(g, &cond);
  for (int k = 0; k < depth; k++) {
    if (k) tl__cgen_write(g, " * ");
    tl__cgen_expr(g, extents[k], depth > 1 ? TL__PREC_MUL + 1 : TL__PREC_REL);
  }
  tl__cgen_write(g, " > 1");
  tl__cgen_capture_end(g, prev);
  const char *line = parallel_line(g, depth, tl__sb_str(&cond), buf, cap);
  tl__sb_free(&cond);
  return line;
}

static bool is_zero(const tl_ir_expr *e) { return e->kind == TL_EXPR_INT && e->u.int_value == 0; }

static void print_for(tl__cgen *g, const tl_ir_stmt *s) {
  const tl__c_dialect *d = g->d;
  if (s->u.loop.kind == TL_FOR_THREAD) {
    /* Runs once per thread: the variable is the thread's index. */
    const char *tag = s->u.loop.thread_tag;
    const char *text = NULL;
    for (const tl__c_thread_tag *t = d->thread_tags; t && t->tag && tag; t++)
      if (strcmp(t->tag, tag) == 0) text = t->text;
    if (!text || s->u.loop.n != 1) {
      tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no thread index '%s'", d->name, tag ? tag : "(none)");
      return;
    }
    const tl_ir_var *v = s->u.loop.vars[0];
    if (!v->thread_tag) { /* a variable tagged itself prints as its index */
      const char *type = tl__cgen_type(g, v->dtype);
      const char *name = tl__cgen_declare(g, v);
      tl__cgen_set_nonneg(g, v);
      tl__cgen_line(g, "const %s %s = %s;", type, name, text);
    }
    tl__cgen_stmt(g, s->u.loop.body);
    return;
  }
  char buf[512];
  const char *pragma = NULL;
  if (s->u.loop.kind == TL_FOR_PARALLEL && g->loop_depth == 0 && (d->parallel_for || d->parallel_for_tmpl))
    pragma = parallel_pragma(g, s, buf, sizeof buf);
  else if (s->u.loop.kind == TL_FOR_UNROLLED)
    pragma = d->unroll_pragma;
  if (pragma) tl__cgen_line(g, "%s", pragma);
  uint32_t n = s->u.loop.n;
  for (uint32_t k = 0; k < n; k++) {
    const tl_ir_var *v = s->u.loop.vars[k];
    const tl_ir_expr *min = s->u.loop.mins[k], *ext = s->u.loop.extents[k];
    const char *type = tl__cgen_type(g, v->dtype);
    bool nonneg = tl__cgen_expr_nonneg(g, min);
    /* The bounds are printed before the variable is named, so they cannot see it. */
    tl__sb_indent(g->out, 2 * g->indent);
    tl__sb_appendf(g->out, "for (%s ", type);
    tl__sb mark = TL__SB_INIT;
    tl__sb *prev = tl__cgen_capture_begin(g, &mark);
    tl__cgen_expr(g, min, TL__PREC_TOP);
    tl__cgen_capture_end(g, prev);
    const char *name = tl__cgen_declare(g, v);
    if (nonneg) tl__cgen_set_nonneg(g, v);
    tl__cgen_write(g, "%s = %s; %s < ", name, tl__sb_str(&mark), name);
    if (is_zero(min)) {
      tl__cgen_expr(g, ext, TL__PREC_REL + 1);
    } else {
      tl__cgen_expr(g, min, TL__PREC_ADD);
      tl__cgen_write(g, " + ");
      tl__cgen_expr(g, ext, TL__PREC_ADD + 1);
    }
    tl__cgen_write(g, "; ++%s) {\n", name);
    tl__sb_free(&mark);
    g->indent++;
    g->loop_depth++;
  }
  tl__cgen_stmt(g, s->u.loop.body);
  for (uint32_t k = 0; k < n; k++) {
    g->indent--;
    g->loop_depth--;
    tl__cgen_line(g, "}");
  }
}

static void print_if(tl__cgen *g, const tl_ir_stmt *s) {
  tl__sb_indent(g->out, 2 * g->indent);
  for (;;) {
    tl__cgen_write(g, "if (");
    tl__cgen_expr(g, s->u.if_.cond, TL__PREC_TOP);
    tl__cgen_write(g, ") {\n");
    block(g, s->u.if_.then_);
    const tl_ir_stmt *e = s->u.if_.else_;
    if (!e) break;
    if (e->kind == TL_STMT_IF) {
      tl__sb_indent(g->out, 2 * g->indent);
      tl__cgen_write(g, "} else ");
      s = e;
      continue;
    }
    tl__cgen_line(g, "} else {");
    block(g, e);
    break;
  }
  tl__cgen_line(g, "}");
}

/* Lanes of a statement's vector parts (1 if scalar). */
static uint16_t store_lanes(const tl_ir_stmt *s) {
  uint16_t lanes = s->u.store.value->dtype.lanes;
  for (uint32_t i = 0; i < s->u.store.n; i++)
    if (s->u.store.indices[i]->dtype.lanes > lanes) lanes = s->u.store.indices[i]->dtype.lanes;
  return lanes;
}

/* The stride-1 ramp a one-dimensional access A[T.Ramp(base, 1, lanes)] indexes
 * with, or NULL. */
static const tl_ir_expr *contiguous(uint32_t n, tl_ir_expr *const *idx, uint16_t lanes) {
  if (n != 1 || idx[0]->kind != TL_EXPR_RAMP || idx[0]->u.ramp.stride != 1 || idx[0]->dtype.lanes != lanes) return NULL;
  return idx[0];
}

/* The vector type of a plain-data dialect for `lanes` elements of t, or NULL. */
static const char *plain_vector_type(tl__cgen *g, tl_dtype t, uint16_t lanes, tl__sb *out) {
  const tl__c_dialect *d = g->d;
  if (!d->vector_type_tmpl || !d->vector_bases || lanes >= 32 || !(d->vector_lanes & (1u << lanes))) return NULL;
  const char *sfx = tl__cgen_storage_suffix(t), *base = NULL;
  for (const tl_c_pair *b = d->vector_bases; b->key && !base; b++)
    if (strcmp(b->key, sfx) == 0) base = b->text;
  if (!base) return NULL;
  char n[8];
  snprintf(n, sizeof n, "%u", (unsigned)lanes);
  tl__cgen_subst sub[] = {{"B", base}, {"N", n}};
  tl__sb *prev = tl__cgen_capture_begin(g, out);
  tl__cgen_expand(g, d->vector_type_tmpl, sub, 2);
  tl__cgen_capture_end(g, prev);
  return tl__sb_status(out) == TL_OK ? tl__sb_str(out) : NULL;
}

/* A contiguous vector copy buf[ramp] = src[ramp] through a plain-data dialect's
 * templates (vector_copy: one statement, which may name address spaces, as
 * OpenCL's vload/vstore or Metal's casts need). False when it does not apply. */
static bool print_plain_vector_copy(tl__cgen *g, const tl_ir_buffer *db, uint32_t n, tl_ir_expr *const *idx,
                                    const tl_ir_expr *v, uint16_t lanes) {
  if (!g->d->vector_type_tmpl || v->kind != TL_EXPR_LOAD || n != 1 || v->u.load.n != 1) return false;
  const tl_ir_expr *di = idx[0], *si = v->u.load.indices[0];
  if (di->kind != TL_EXPR_RAMP || si->kind != TL_EXPR_RAMP || di->u.ramp.stride != 1 || si->u.ramp.stride != 1)
    return false;
  const tl_ir_buffer *sb = v->u.load.buffer;
  if (!tl_dtype_eq(db->dtype, sb->dtype)) return false;
  tl__sb vt = TL__SB_INIT, dst = TL__SB_INIT, src = TL__SB_INIT;
  bool done = false;
  if (plain_vector_type(g, tl_dtype_scalar(db->dtype), lanes, &vt)) {
    tl__sb *prev = tl__cgen_capture_begin(g, &dst);
    tl__cgen_element(g, db, 1, (tl_ir_expr *const *)&di->u.ramp.base);
    tl__cgen_capture_end(g, prev);
    prev = tl__cgen_capture_begin(g, &src);
    tl__cgen_element(g, sb, 1, (tl_ir_expr *const *)&si->u.ramp.base);
    tl__cgen_capture_end(g, prev);
    char nl[8];
    snprintf(nl, sizeof nl, "%u", (unsigned)lanes);
    tl__cgen_subst sub[] = {{"V", tl__sb_str(&vt)},     {"D", tl__sb_str(&dst)},
                            {"S", tl__sb_str(&src)},    {"N", nl},
                            {"DA", tl__cgen_space(g, db->scope)}, {"SA", tl__cgen_space(g, sb->scope)}};
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_expand(g, g->d->vector_copy ? g->d->vector_copy : "*($V *)&$D = *(const $V *)&$S;", sub, 6);
    tl__cgen_write(g, "\n");
    done = true;
  }
  tl__sb_free(&vt);
  tl__sb_free(&dst);
  tl__sb_free(&src);
  return done;
}

/* Memory a vector access reads or writes with one vector load or store (global
 * and shared buffers, aligned by the host checks and the 16-byte rule of
 * docs/lowering.md); per-thread arrays are accessed lane by lane, which keeps
 * them in registers. */
static bool vector_memory(const tl_ir_buffer *b) {
  return b->scope == TL_SCOPE_GLOBAL || b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN;
}

/* The dialect's vector type for `lanes` elements of buffer b (NULL: none). */
static const char *vector_type_of(tl__cgen *g, const tl_ir_buffer *b, uint16_t lanes, char *buf, size_t cap) {
  return g->d->vector_type ? g->d->vector_type(tl_dtype_scalar(b->dtype), lanes, buf, cap) : NULL;
}

/* Prints `*(VT *)&buf[base]` (an lvalue, or a const rvalue). */
static void print_vector_access(tl__cgen *g, const char *vt, bool store, const tl_ir_buffer *buf,
                                const tl_ir_expr *ramp) {
  tl__cgen_write(g, "*(%s%s *)&", store ? "" : "const ", vt);
  tl__cgen_element(g, buf, 1, (tl_ir_expr *const *)&ramp->u.ramp.base);
}

/* `= value;` after an lvalue of buffer dtype t (value of t's compute type). */
static void print_assigned_value(tl__cgen *g, tl_dtype t, const tl_ir_expr *value) {
  const tl__c_half_type *h = tl__cgen_half_type(g, t);
  tl__cgen_write(g, " = ");
  if (h) {
    /* Narrowing rounds to the 16-bit type: the value's own last rounding (of an
     * operation, a call or a conversion) is left out, as it would round twice. */
    tl__cgen_type(g, t);
    tl__cgen_write(g, "%s(", h->narrow);
    g->no_round = true;
    tl__cgen_expr(g, value, TL__PREC_TOP);
    g->no_round = false;
    tl__cgen_write(g, ")");
  } else {
    tl__cgen_expr(g, value, TL__PREC_TOP);
  }
  tl__cgen_write(g, ";\n");
}

/* `dst = value;` where value is an expression of the buffer's compute type. */
static void print_assign(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx,
                         const tl_ir_expr *value) {
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_element(g, buf, n, idx);
  print_assigned_value(g, buf->dtype, value);
}

/* Opens `for (int32_t lane = 0; lane < n; ++lane) {` and makes vector expressions
 * print at that lane. */
static const char *open_lanes(tl__cgen *g, uint16_t lanes) {
  const char *lane = tl__cgen_fresh(g, "lane");
  if (g->d->unroll_pragma) tl__cgen_line(g, "%s", g->d->unroll_pragma);
  tl__cgen_line(g, "for (%s %s = 0; %s < %u; ++%s) {", g->d->t_i32, lane, lane, (unsigned)lanes, lane);
  g->indent++;
  g->lane = lane;
  return lane;
}

static void close_lanes(tl__cgen *g) {
  g->lane = NULL;
  g->indent--;
  tl__cgen_line(g, "}");
}

/* Declares an aligned temporary array of `lanes` elements of t's storage type. */
static const char *vector_temp(tl__cgen *g, const char *base, tl_dtype t, uint16_t lanes) {
  const char *type = tl__cgen_storage_type(g, t);
  const char *name = tl__cgen_fresh(g, base);
  const char *align = g->d->array_align && *g->d->array_align ? g->d->array_align : NULL;
  tl__cgen_line(g, "%s%s%s %s[%u];", align ? align : "", align ? " " : "", type, name, (unsigned)lanes);
  return name;
}

/* Reads ahead, with one vector load each, the contiguous loads of global or
 * shared memory that `e` evaluates unconditionally (not under a select or a
 * short-circuit operator), so the lanes then read the temporaries. */
static void hoist_loads(tl__cgen *g, const tl_ir_expr *e, uint16_t lanes) {
  if (!e || g->status != TL_OK) return;
  switch (e->kind) {
  case TL_EXPR_LOAD: {
    const tl_ir_expr *r = contiguous(e->u.load.n, e->u.load.indices, lanes);
    char vbuf[32];
    const char *vt = r && vector_memory(e->u.load.buffer) ? vector_type_of(g, e->u.load.buffer, lanes, vbuf, sizeof vbuf) : NULL;
    if (!vt || tl__cgen_hoisted_name(g, e)) return;
    const char *name = vector_temp(g, "vec_ld", e->u.load.buffer->dtype, lanes);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "*(%s *)%s = ", vt, name);
    print_vector_access(g, vt, false, e->u.load.buffer, r);
    tl__cgen_write(g, ";\n");
    tl__cgen_hoisted h = {e, name};
    if (tl__vec_push(&g->hoisted, &h) != TL_OK) tl__cgen_fail(g, TL_ENOMEM);
    return;
  }
  case TL_EXPR_BINARY:
    if (e->u.binary.op == TL_BIN_AND || e->u.binary.op == TL_BIN_OR) return;
    hoist_loads(g, e->u.binary.a, lanes);
    hoist_loads(g, e->u.binary.b, lanes);
    return;
  case TL_EXPR_UNARY: hoist_loads(g, e->u.unary.a, lanes); return;
  case TL_EXPR_CAST: hoist_loads(g, e->u.cast.value, lanes); return;
  case TL_EXPR_CALL:
    for (uint32_t i = 0; i < e->u.call.nargs; i++) hoist_loads(g, e->u.call.args[i], lanes);
    return;
  default: return; /* selects evaluate one side only; broadcasts are scalars */
  }
}

/* A vector store buf[idx] = value of `lanes` lanes. In a dialect with vector
 * types: a select on a scalar condition becomes an if/else of two stores (only the
 * chosen side is evaluated, as T.if_then_else means); a contiguous copy is one
 * vector load and store; otherwise the contiguous loads of memory are read ahead
 * as vectors, the lanes are computed one by one (into a temporary when the
 * destination is memory, stored then as one vector). Without vector types: lane by
 * lane. */
static void print_vector_store(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx,
                               const tl_ir_expr *value, uint16_t lanes) {
  char dbuf[32], sbuf[32];
  const tl_ir_expr *dr = contiguous(n, idx, lanes);
  const char *dvt = dr ? vector_type_of(g, buf, lanes, dbuf, sizeof dbuf) : NULL;
  if (g->d->vector_type && value->kind == TL_EXPR_SELECT && value->u.select.cond->dtype.lanes == 1) {
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "if (");
    tl__cgen_expr(g, value->u.select.cond, TL__PREC_TOP);
    tl__cgen_write(g, ") {\n");
    g->indent++;
    print_vector_store(g, buf, n, idx, value->u.select.t, lanes);
    g->indent--;
    tl__cgen_line(g, "} else {");
    g->indent++;
    print_vector_store(g, buf, n, idx, value->u.select.f, lanes);
    g->indent--;
    tl__cgen_line(g, "}");
    return;
  }
  if (dvt && value->kind == TL_EXPR_LOAD && tl_dtype_eq(value->u.load.buffer->dtype, buf->dtype)) {
    const tl_ir_expr *sr = contiguous(value->u.load.n, value->u.load.indices, lanes);
    if (sr && vector_type_of(g, value->u.load.buffer, lanes, sbuf, sizeof sbuf)) {
      tl__sb_indent(g->out, 2 * g->indent);
      print_vector_access(g, dvt, true, buf, dr);
      tl__cgen_write(g, " = ");
      print_vector_access(g, dvt, false, value->u.load.buffer, sr);
      tl__cgen_write(g, ";\n");
      return;
    }
  }
  size_t hoisted = g->hoisted.len;
  if (g->d->vector_type) hoist_loads(g, value, lanes);
  if (dvt && vector_memory(buf)) {
    const char *tmp = vector_temp(g, "vec_st", buf->dtype, lanes);
    const char *lane = open_lanes(g, lanes);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "%s[%s]", tmp, lane);
    print_assigned_value(g, buf->dtype, value);
    close_lanes(g);
    tl__sb_indent(g->out, 2 * g->indent);
    print_vector_access(g, dvt, true, buf, dr);
    tl__cgen_write(g, " = *(const %s *)%s;\n", dvt, tmp);
  } else {
    open_lanes(g, lanes);
    print_assign(g, buf, n, idx, value);
    close_lanes(g);
  }
  g->hoisted.len = hoisted; /* read ahead for this statement only */
}

static void print_store(tl__cgen *g, const tl_ir_stmt *s) {
  uint16_t lanes = store_lanes(s);
  if (lanes == 1) {
    print_assign(g, s->u.store.buffer, s->u.store.n, s->u.store.indices, s->u.store.value);
    return;
  }
  if (!g->d->vector_type &&
      print_plain_vector_copy(g, s->u.store.buffer, s->u.store.n, s->u.store.indices, s->u.store.value, lanes))
    return;
  print_vector_store(g, s->u.store.buffer, s->u.store.n, s->u.store.indices, s->u.store.value, lanes);
}

static void print_let(tl__cgen *g, const tl_ir_stmt *s) {
  const tl_ir_var *v = s->u.let.var;
  const tl_ir_expr *value = s->u.let.value;
  const char *type = tl__cgen_type(g, v->dtype);
  if (value->dtype.lanes > 1) {
    /* A vector value lives in an array, filled lane by lane. */
    char *name_copy = tl__strdup(tl__cgen_fresh(g, v->name));
    if (!name_copy) {
      tl__cgen_fail(g, tl__oom());
      return;
    }
    tl__cgen_line(g, "%s %s[%u];", type, name_copy, (unsigned)value->dtype.lanes);
    const char *lane = open_lanes(g, value->dtype.lanes);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "%s[%s] = ", name_copy, lane);
    tl__cgen_expr(g, value, TL__PREC_TOP);
    tl__cgen_write(g, ";\n");
    close_lanes(g);
    tl__cgen_bind(g, v, name_copy);
    set_flag(g, v, FLAG_VECTOR);
    tl__free(name_copy);
  } else {
    bool nonneg = tl__cgen_expr_nonneg(g, value), data = tl__cgen_expr_is_data(g, value);
    char *text = tl__cgen_expr_str(g, value);
    const char *name = tl__cgen_declare(g, v);
    if (nonneg) tl__cgen_set_nonneg(g, v);
    if (data) tl__cgen_set_data(g, v);
    if (v->dtype.code == TL_DTYPE_HANDLE)
      tl__cgen_line(g, "%s%s = %s;", type, name, text ? text : "");
    else
      tl__cgen_line(g, "const %s %s = %s;", type, name, text ? text : "");
    tl__free(text);
  }
  tl__cgen_stmt(g, s->u.let.body);
}

/* A shared.dyn buffer: a pointer into the kernel's one dynamic shared array, at
 * the next 16-byte aligned offset (docs/lowering.md); the array is declared with
 * the first such buffer. */
static void print_dyn_shared(tl__cgen *g, const tl_ir_buffer *buf, const char *type, int64_t size) {
  if (!g->d->dyn_shared_decl) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "buffer '%s' (shared.dyn): the %s dialect has no dynamic shared memory",
                   buf->name, g->d->name);
    return;
  }
  if (!g->dyn_array) {
    g->dyn_array = tl__cgen_fresh(g, "dyn_smem");
    const char *decl = g->d->dyn_shared_decl, *at = strstr(decl, "%s");
    if (!at) at = decl + strlen(decl);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__sb_appendn(g->out, decl, (size_t)(at - decl));
    tl__cgen_write(g, "%s%s\n", *at ? g->dyn_array : "", *at ? at + 2 : "");
  }
  const char *name = tl__cgen_declare(g, buf->data);
  set_elem(g, buf->data, tl_dtype_scalar(buf->dtype));
  tl__cgen_line(g, "%s *%s = (%s *)(%s + %lld);", type, name, type, g->dyn_array, (long long)g->dyn_offset);
  int64_t bytes = size * (int64_t)tl_dtype_bytes(tl_dtype_scalar(buf->dtype));
  g->dyn_offset += (bytes + 15) / 16 * 16;
}

static void print_alloc(tl__cgen *g, const tl_ir_stmt *s) {
  const tl_ir_buffer *buf = s->u.alloc.buffer;
  int64_t size = 1;
  for (uint32_t i = 0; i < buf->ndim; i++) {
    const tl_ir_expr *e = buf->shape[i];
    if (!e || e->kind != TL_EXPR_INT || e->u.int_value < 0) {
      tl__cgen_error(g, TL_EUNSUPPORTED, "buffer '%s' (%s) needs a constant size for %s code generation", buf->name,
                     tl_ir_scope_name(buf->scope), g->d->name);
      return;
    }
    size *= e->u.int_value;
  }
  if (size == 0) size = 1; /* a zero-length array is not C */
  const char *type = tl__cgen_storage_type(g, buf->dtype);
  bool any_shared = buf->scope == TL_SCOPE_SHARED || buf->scope == TL_SCOPE_SHARED_DYN;
  const char *tmpl = any_shared ? g->d->shared_array : g->d->local_array;
  /* A dialect with array templates and no dynamic shared memory declares shared.dyn
   * buffers as fixed arrays: their sizes are constants (docs/codegen.md). */
  if (buf->scope == TL_SCOPE_SHARED_DYN && (g->d->dyn_shared_decl || !tmpl)) {
    print_dyn_shared(g, buf, type, size);
    return;
  }
  const char *name = tl__cgen_declare(g, buf->data);
  set_elem(g, buf->data, tl_dtype_scalar(buf->dtype));
  if (tmpl) {
    char count[24];
    snprintf(count, sizeof count, "%lld", (long long)size);
    tl__cgen_subst sub[] = {{"T", type}, {"N", name}, {"C", count}, {"Q", tl__cgen_space(g, buf->scope)}};
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_expand(g, tmpl, sub, 4);
    tl__cgen_write(g, "\n");
    return;
  }
  bool shared = buf->scope == TL_SCOPE_SHARED;
  const char *space = shared && g->d->shared_space && *g->d->shared_space ? g->d->shared_space : NULL;
  const char *align = g->d->array_align && *g->d->array_align ? g->d->array_align : NULL;
  tl__cgen_line(g, "%s%s%s%s%s %s[%lld];", space ? space : "", space ? " " : "", align ? align : "", align ? " " : "",
                type, name, (long long)size);
}

/* T.atomic_add_elem through a plain-data dialect's templates (by element type). */
static void plain_atomic_add(tl__cgen *g, const tl_ir_buffer *buf, const char *dst, const char *value) {
  tl_dtype t = tl_dtype_scalar(buf->dtype);
  const char *sfx = tl__cgen_storage_suffix(t), *tmpl = NULL;
  for (const tl_c_pair *a = g->d->atomic_add_tmpl; a && a->key && !tmpl; a++)
    if (strcmp(a->key, sfx) == 0) tmpl = a->text;
  if (!tmpl) {
    char tb[32];
    tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no atomic add for %s", g->d->name,
                   tl_dtype_name(t, tb, sizeof tb));
    return;
  }
  tl__cgen_subst sub[] = {{"D", dst},
                          {"V", value},
                          {"T", tl__cgen_storage_type(g, t)},
                          {"S", sfx},
                          {"A", tl__cgen_space(g, buf->scope)},
                          {"a", tl__cgen_space_word(buf->scope)}};
  if (g->d->atomic_helper) tl__cgen_use_helper(g, g->d->atomic_helper, t);
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_expand(g, tmpl, sub, 6);
  tl__cgen_write(g, "\n");
}

static void print_eval(tl__cgen *g, const tl_ir_stmt *s) {
  const tl_ir_expr *e = s->u.eval.expr;
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_ATOMIC_ADD_ELEM) {
    const tl_ir_expr *dst = e->u.call.nargs == 2 ? e->u.call.args[0] : NULL;
    const tl_ir_expr *value = e->u.call.nargs == 2 ? e->u.call.args[1] : NULL;
    if (!dst || dst->kind != TL_EXPR_REGION || !value || value->kind == TL_EXPR_REGION) {
      tl__cgen_error(g, TL_EINVAL, "T.atomic_add_elem takes a one-element region and a value");
      return;
    }
    tl__sb d = TL__SB_INIT;
    tl__sb *prev = tl__cgen_capture_begin(g, &d);
    tl__cgen_element(g, dst->u.region.buffer, dst->u.region.ndim, dst->u.region.mins);
    tl__cgen_capture_end(g, prev);
    char *v = tl__cgen_expr_str(g, value);
    tl__cgen_type(g, dst->u.region.buffer->dtype); /* the element type's helpers, for the hook */
    if (v && tl__sb_status(&d) == TL_OK) {
      if (g->d->atomic_add) g->d->atomic_add(g, tl__sb_str(&d), v, dst->u.region.buffer->dtype);
      else plain_atomic_add(g, dst->u.region.buffer, tl__sb_str(&d), v);
    }
    tl__free(v);
    tl__sb_free(&d);
    return;
  }
  if (e->kind == TL_EXPR_CALL && tl_ir_op_is_tile(e->u.call.op)) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "%s must be lowered before %s code generation", tl_ir_op_name(e->u.call.op),
                   g->d->name);
    return;
  }
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_expr(g, e, TL__PREC_TOP);
  tl__cgen_write(g, ";\n");
}

void tl__cgen_stmt(tl__cgen *g, const tl_ir_stmt *s) {
  if (g->status != TL_OK) return;
  if (!s) {
    tl__cgen_error(g, TL_EINVAL, "missing statement");
    return;
  }
  if (g->ext_stmt && g->ext_stmt(g, s)) return;
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) tl__cgen_stmt(g, s->u.seq.stmts[i]);
    return;
  case TL_STMT_FOR: print_for(g, s); return;
  case TL_STMT_IF: print_if(g, s); return;
  case TL_STMT_STORE: print_store(g, s); return;
  case TL_STMT_LET: print_let(g, s); return;
  case TL_STMT_ALLOC: print_alloc(g, s); return;
  case TL_STMT_EVAL: print_eval(g, s); return;
  case TL_STMT_BARRIER:
    if (g->d->barrier) tl__cgen_line(g, "%s", g->d->barrier);
    return;
  case TL_STMT_KERNEL:
    tl__cgen_error(g, TL_EUNSUPPORTED, "T.Kernel must be lowered before %s code generation", g->d->name);
    return;
  case TL_STMT_ASSERT:
    tl__cgen_error(g, TL_EUNSUPPORTED, "argument checks belong in host code, not in a device kernel");
    return;
  case TL_STMT_LAUNCH:
    tl__cgen_error(g, TL_EUNSUPPORTED, "kernel launches belong in host code, not in a device kernel");
    return;
  }
  tl__cgen_error(g, TL_EINVAL, "unknown statement kind %d", (int)s->kind);
}

/* ---------------------------------------------------------------- kernels */

/* Data variables a kernel writes through (stores, atomics) or lets escape. */
typedef struct written_ctx {
  tl__vec ids; /* uint32_t */
  bool oom;
} written_ctx;

static void mark_written(written_ctx *c, const tl_ir_var *v) {
  if (tl__vec_push(&c->ids, &v->id) != TL_OK) c->oom = true;
}

static bool written_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  written_ctx *c = v->ctx;
  if (s->kind == TL_STMT_STORE) mark_written(c, s->u.store.buffer->data);
  return true;
}

static bool written_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  written_ctx *c = v->ctx;
  if (e->kind == TL_EXPR_CALL && tl_ir_op_is_tile(e->u.call.op))
    for (uint32_t i = 0; i < e->u.call.nargs; i++)
      if (e->u.call.args[i]->kind == TL_EXPR_REGION) mark_written(c, e->u.call.args[i]->u.region.buffer->data);
  /* A data pointer used as a value may be written through elsewhere. */
  if (e->kind == TL_EXPR_VAR && e->u.var->dtype.code == TL_DTYPE_HANDLE) mark_written(c, e->u.var);
  return true;
}

static bool is_written(const written_ctx *c, const tl_ir_var *v) {
  for (size_t i = 0; i < c->ids.len; i++)
    if (TL__VEC_AT(&c->ids, uint32_t, i) == v->id) return true;
  return false;
}

/* Variables in the parameters' shapes are symbolic dims (the host entry checked them
 * to be sizes): never negative. */
static bool mark_nonneg(tl_ir_visitor *v, const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_VAR && tl_dtype_is_int(e->dtype)) tl__cgen_set_nonneg(v->ctx, e->u.var);
  return true;
}

static void mark_shape_vars(tl__cgen *g, const tl_ir_func *f) {
  tl_ir_visitor v = {mark_nonneg, NULL, g};
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !b) continue;
    for (uint32_t d = 0; d < b->ndim; d++) tl_ir_visit_expr(&v, b->shape[d]);
  }
}

void tl__cgen_kernel_signature(tl__cgen *g, const tl_ir_func *f) {
  const tl__c_dialect *d = g->d;
  if (!tl__c_is_identifier(f->name)) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "kernel name '%s' is not a valid %s identifier", f->name, d->name);
    return;
  }
  written_ctx wc = {TL__VEC_INIT(uint32_t), false};
  tl_ir_visitor v = {written_expr, written_stmt, &wc};
  tl_ir_visit_stmt(&v, f->body);
  if (wc.oom) tl__cgen_fail(g, tl__oom());
  char bounds[96];
  const char *qual = g->kernel_block && d->kernel_bounds ? d->kernel_bounds(g->kernel_block, bounds, sizeof bounds) : NULL;
  tl__cgen_write(g, "%s%s%s%svoid %s(", d->kernel_prefix, *d->kernel_prefix ? " " : "", qual ? qual : "",
                 qual ? " " : "", f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    char index[16];
    snprintf(index, sizeof index, "%u", (unsigned)i);
    if (i) tl__cgen_write(g, ", ");
    if (p->kind == TL_PARAM_BUFFER) {
      const tl_ir_buffer *b = p->buffer;
      const char *type = tl__cgen_storage_type(g, b->dtype);
      const char *name = tl__cgen_declare(g, b->data);
      set_elem(g, b->data, tl_dtype_scalar(b->dtype));
      bool ro = !is_written(&wc, b->data);
      if (d->buffer_param) {
        char gs[64], rk[64];
        snprintf(gs, sizeof gs, "%s%s", d->global_space, *d->global_space ? " " : "");
        snprintf(rk, sizeof rk, "%s%s", d->restrict_kw, *d->restrict_kw ? " " : "");
        tl__cgen_subst sub[] = {{"G", gs}, {"C", ro ? "const " : ""}, {"T", type}, {"R", rk}, {"N", name}, {"I", index}};
        tl__cgen_expand(g, d->buffer_param, sub, 6);
        continue;
      }
      tl__cgen_write(g, "%s%s%s%s *%s%s%s", d->global_space, *d->global_space ? " " : "", ro ? "const " : "", type,
                     d->restrict_kw, *d->restrict_kw ? " " : "", name);
    } else {
      const char *type = tl__cgen_type(g, p->var->dtype);
      if (d->t_bool_param && tl_dtype_is_bool(p->var->dtype)) type = d->t_bool_param;
      const char *name = tl__cgen_declare(g, p->var);
      if (d->scalar_param) {
        tl__cgen_subst sub[] = {{"T", type}, {"N", name}, {"I", index}};
        tl__cgen_expand(g, d->scalar_param, sub, 3);
        continue;
      }
      tl__cgen_write(g, "%s%s%s", type, p->var->dtype.code == TL_DTYPE_HANDLE ? "" : " ", name);
    }
  }
  if (d->extra_params) tl__cgen_write(g, "%s%s", f->nparams ? ", " : "", d->extra_params);
  else if (f->nparams == 0) tl__cgen_write(g, "void");
  tl__cgen_write(g, ")");
  tl__vec_free(&wc.ids);
  mark_shape_vars(g, f);
}

/* The thread-tagged variables a kernel body mentions (blockIdx.x, threadIdx.x,
 * ...), each once. */
typedef struct tagged_ctx {
  tl__vec vars; /* const tl_ir_var * */
  bool oom;
} tagged_ctx;

static bool tagged_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  tagged_ctx *c = v->ctx;
  if (e->kind != TL_EXPR_VAR || !e->u.var->thread_tag) return true;
  for (size_t i = 0; i < c->vars.len; i++)
    if (TL__VEC_AT(&c->vars, const tl_ir_var *, i) == e->u.var) return true;
  if (tl__vec_push(&c->vars, &e->u.var) != TL_OK) c->oom = true;
  return true;
}

/* Declares the block and thread indices the body uses, as constants of their
 * own type at the top of the kernel (`const int32_t tx = threadIdx.x;`): the
 * dialect's built-ins may be unsigned, lowered index arithmetic is signed. */
static void declare_thread_vars(tl__cgen *g, const tl_ir_func *f) {
  tagged_ctx c = {TL__VEC_INIT(const tl_ir_var *), false};
  tl_ir_visitor v = {tagged_expr, NULL, &c};
  tl_ir_visit_stmt(&v, f->body);
  if (c.oom) tl__cgen_fail(g, tl__oom());
  g->indent++;
  for (size_t i = 0; i < c.vars.len && g->status == TL_OK; i++) {
    const tl_ir_var *var = TL__VEC_AT(&c.vars, const tl_ir_var *, i);
    const char *text = NULL;
    for (const tl__c_thread_tag *t = g->d->thread_tags; t && t->tag; t++)
      if (strcmp(t->tag, var->thread_tag) == 0) text = t->text;
    if (!text) {
      tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no thread index '%s' (variable '%s')", g->d->name,
                     var->thread_tag, var->name);
      break;
    }
    const char *type = tl__cgen_type(g, var->dtype);
    const char *name = tl__cgen_declare(g, var);
    tl__cgen_line(g, "const %s %s = %s;", type, name, text);
  }
  g->indent--;
  tl__vec_free(&c.vars);
}

void tl__cgen_kernel(tl__cgen *g, const tl_ir_func *f) {
  tl__cgen_begin_func(g);
  tl__cgen_kernel_signature(g, f);
  tl__cgen_write(g, " {\n");
  declare_thread_vars(g, f);
  block(g, f->body);
  tl__cgen_write(g, "}\n");
}
