/* The code generation context of the C-family printer: where text goes, the first
 * failure, the identifier of every variable, what is known of each variable (never
 * negative, a vector, data, its declared element type), the scalar types of the
 * dialect and the helper sections used so far. Expressions (c_expr.c), statements
 * (c_printer.c) and kernels (c_kernel.c) print through it. */
#include "codegen/c_context.h"

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

tl_status tl__cgen_oom(tl__cgen *g) {
  if (g->status != TL_OK) return TL_ENOMEM; /* keep the first message */
  return tl__cgen_fail(g, tl__oom());
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
  return tl__sb_status(&g->body) == TL_OK ? TL_OK : tl__oom();
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
  if (tl__sb_status(g->out) != TL_OK) tl__cgen_oom(g);
  g->out = previous;
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
  if (tl__map_put(&g->idents, ident, NULL, NULL) != TL_OK) tl__cgen_oom(g);
}

/* C99 guarantees 63 significant initial characters of an internal identifier: a
 * longer variable name is shortened to this many (then numbered like any name
 * taken), so no two identifiers differ only past what a compiler must compare. */
#define IDENT_STEM_MAX 56

const char *tl__cgen_fresh(tl__cgen *g, const char *base) {
  char stem[IDENT_STEM_MAX + 2]; /* a leading 'v' and the terminator */
  size_t n = 0;
  for (const char *p = base ? base : ""; *p && n < IDENT_STEM_MAX; p++)
    stem[n++] = isalnum((unsigned char)*p) ? *p : '_';
  stem[n] = '\0';
  if (n == 0 || isdigit((unsigned char)stem[0])) {
    memmove(stem + 1, stem, n + 1);
    stem[0] = 'v';
  }
  char name[sizeof stem + 12]; /* "_" and a counter */
  snprintf(name, sizeof name, "%s", stem);
  for (unsigned k = 1; reserved(name) || dialect_reserved(g->d, name) || tl__map_get(&g->idents, name, NULL); k++)
    snprintf(name, sizeof name, "%s_%u", stem, k);
  if (tl__map_put(&g->idents, name, NULL, NULL) != TL_OK) {
    tl__cgen_oom(g);
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
    tl__cgen_oom(g);
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
    tl__cgen_oom(g);
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
void tl__cgen_set_vector(tl__cgen *g, const tl_ir_var *v) { set_flag(g, v, FLAG_VECTOR); }
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

void tl__cgen_set_elem(tl__cgen *g, const tl_ir_var *data, tl_dtype t) {
  if (!ensure_var(g, data->id)) return;
  TL__VEC_AT(&g->var_elem, tl_dtype, data->id) = t;
  TL__VEC_AT(&g->var_flags, uint8_t, data->id) |= FLAG_ELEM;
}

bool tl__cgen_var_elem(const tl__cgen *g, const tl_ir_var *data, tl_dtype *elem) {
  if (!(var_flags(g, data) & FLAG_ELEM)) return false;
  *elem = TL__VEC_AT(&g->var_elem, tl_dtype, data->id);
  return true;
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

const char *tl__cgen_helper_suffix(tl_dtype t) {
  t = tl_dtype_scalar(t);
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
  return tl__cgen_helper_suffix(t);
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
  if (tl__vec_push(&g->helpers, &u) != TL_OK) tl__cgen_oom(g);
}

/* Appends the section's text with $T, $S and $F replaced, inside its guard. */
static void emit_helper(tl__cgen *g, tl__sb *out, const tl__cgen_helper_use *u) {
  const tl__c_helper *h = u->helper;
  const char *ctype = h->per_type ? scalar_type(g, u->type) : "";
  const char *suffix = h->per_type ? tl__cgen_helper_suffix(u->type) : "";
  tl__sb guard = TL__SB_INIT;
  tl__sb_appendf(&guard, "TL_HELPER_%s%s%s", h->name, h->per_type ? "_" : "", suffix);
  if (tl__sb_status(&guard) != TL_OK) tl__cgen_oom(g);
  char *upper = guard.buf;
  for (size_t i = 0; upper && i < guard.len; i++) upper[i] = (char)toupper((unsigned char)upper[i]);
  tl__sb_appendf(out, "#ifndef %s\n#define %s\n", tl__sb_str(&guard), tl__sb_str(&guard));
  tl__sb_free(&guard);
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

