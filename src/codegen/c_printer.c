/* The C-family printer: output, names, types, helper sections, statements and
 * device kernels. Expressions are in c_expr.c. */
#include "codegen/c_printer.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

enum { FLAG_NONNEG = 1, FLAG_VECTOR = 2, FLAG_ELEM = 4 };

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
  tl__sb_free(&g->body);
}

void tl__cgen_begin_func(tl__cgen *g) {
  forget_names(g);
  g->lane = NULL;
  g->loop_depth = 0;
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
  for (unsigned k = 1; reserved(name) || tl__map_get(&g->idents, name, NULL); k++)
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
  if (h) return h->storage; /* a plain type: no helper needed to hold bits */
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
  if (constant) return g->d->parallel_for(depth, NULL, buf, cap);
  tl__sb cond = TL__SB_INIT;
  tl__sb *prev = tl__cgen_capture_begin(g, &cond);
  for (int k = 0; k < depth; k++) {
    if (k) tl__cgen_write(g, " * ");
    tl__cgen_expr(g, extents[k], depth > 1 ? TL__PREC_MUL + 1 : TL__PREC_REL);
  }
  tl__cgen_write(g, " > 1");
  tl__cgen_capture_end(g, prev);
  const char *line = g->d->parallel_for(depth, tl__sb_str(&cond), buf, cap);
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
  if (s->u.loop.kind == TL_FOR_PARALLEL && g->loop_depth == 0 && d->parallel_for)
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

/* The contiguous vector copy A[ramp(a, 1, n)] = B[ramp(b, 1, n)] in a dialect with
 * vector types: one vector load and store. */
static bool print_vector_copy(tl__cgen *g, const tl_ir_stmt *s, uint16_t lanes) {
  const tl_ir_expr *v = s->u.store.value;
  if (!g->d->vector_type || v->kind != TL_EXPR_LOAD || s->u.store.n != 1 || v->u.load.n != 1) return false;
  const tl_ir_expr *di = s->u.store.indices[0], *si = v->u.load.indices[0];
  if (di->kind != TL_EXPR_RAMP || si->kind != TL_EXPR_RAMP || di->u.ramp.stride != 1 || si->u.ramp.stride != 1)
    return false;
  if (!tl_dtype_eq(s->u.store.buffer->dtype, v->u.load.buffer->dtype)) return false;
  char buf[32];
  const char *vt = g->d->vector_type(tl_dtype_scalar(s->u.store.buffer->dtype), lanes, buf, sizeof buf);
  if (!vt) return false;
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "*(%s *)&", vt);
  tl__cgen_element(g, s->u.store.buffer, 1, (tl_ir_expr *const *)&di->u.ramp.base);
  tl__cgen_write(g, " = *(const %s *)&", vt);
  tl__cgen_element(g, v->u.load.buffer, 1, (tl_ir_expr *const *)&si->u.ramp.base);
  tl__cgen_write(g, ";\n");
  return true;
}

/* `dst = value;` where value is an expression of the buffer's compute type. */
static void print_assign(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx,
                         const tl_ir_expr *value) {
  const tl__c_half_type *h = tl__cgen_half_type(g, buf->dtype);
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_element(g, buf, n, idx);
  tl__cgen_write(g, " = ");
  if (h) {
    /* Narrowing rounds to the 16-bit type: the value's own last rounding (of an
     * operation, a call or a conversion) is left out, as it would round twice. */
    tl__cgen_type(g, buf->dtype);
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

/* Opens `for (int32_t lane = 0; lane < n; ++lane) {` and makes vector expressions
 * print at that lane. */
static const char *open_lanes(tl__cgen *g, uint16_t lanes) {
  const char *lane = tl__cgen_fresh(g, "lane");
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

static void print_store(tl__cgen *g, const tl_ir_stmt *s) {
  uint16_t lanes = store_lanes(s);
  if (lanes == 1) {
    print_assign(g, s->u.store.buffer, s->u.store.n, s->u.store.indices, s->u.store.value);
    return;
  }
  if (print_vector_copy(g, s, lanes)) return;
  open_lanes(g, lanes);
  print_assign(g, s->u.store.buffer, s->u.store.n, s->u.store.indices, s->u.store.value);
  close_lanes(g);
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
    bool nonneg = tl__cgen_expr_nonneg(g, value);
    char *text = tl__cgen_expr_str(g, value);
    const char *name = tl__cgen_declare(g, v);
    if (nonneg) tl__cgen_set_nonneg(g, v);
    if (v->dtype.code == TL_DTYPE_HANDLE)
      tl__cgen_line(g, "%s%s = %s;", type, name, text ? text : "");
    else
      tl__cgen_line(g, "const %s %s = %s;", type, name, text ? text : "");
    tl__free(text);
  }
  tl__cgen_stmt(g, s->u.let.body);
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
  const char *name = tl__cgen_declare(g, buf->data);
  set_elem(g, buf->data, tl_dtype_scalar(buf->dtype));
  bool shared = buf->scope == TL_SCOPE_SHARED || buf->scope == TL_SCOPE_SHARED_DYN;
  const char *space = shared && g->d->shared_space && *g->d->shared_space ? g->d->shared_space : NULL;
  tl__cgen_line(g, "%s%s%s %s[%lld];", space ? space : "", space ? " " : "", type, name, (long long)size);
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
    if (v && tl__sb_status(&d) == TL_OK) g->d->atomic_add(g, tl__sb_str(&d), v, dst->u.region.buffer->dtype);
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
  tl__cgen_write(g, "%s%svoid %s(", d->kernel_prefix, *d->kernel_prefix ? " " : "", f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (i) tl__cgen_write(g, ", ");
    if (p->kind == TL_PARAM_BUFFER) {
      const tl_ir_buffer *b = p->buffer;
      const char *type = tl__cgen_storage_type(g, b->dtype);
      const char *name = tl__cgen_declare(g, b->data);
      set_elem(g, b->data, tl_dtype_scalar(b->dtype));
      bool ro = !is_written(&wc, b->data);
      tl__cgen_write(g, "%s%s%s%s *%s%s%s", d->global_space, *d->global_space ? " " : "", ro ? "const " : "", type,
                     d->restrict_kw, *d->restrict_kw ? " " : "", name);
    } else {
      const char *type = tl__cgen_type(g, p->var->dtype);
      const char *name = tl__cgen_declare(g, p->var);
      tl__cgen_write(g, "%s%s%s", type, p->var->dtype.code == TL_DTYPE_HANDLE ? "" : " ", name);
    }
  }
  if (f->nparams == 0) tl__cgen_write(g, "void");
  tl__cgen_write(g, ")");
  tl__vec_free(&wc.ids);
  mark_shape_vars(g, f);
}

void tl__cgen_kernel(tl__cgen *g, const tl_ir_func *f) {
  tl__cgen_begin_func(g);
  tl__cgen_kernel_signature(g, f);
  tl__cgen_write(g, " {\n");
  block(g, f->body);
  tl__cgen_write(g, "}\n");
}
