/* WGSL code generation: GPU-lowered device kernels as WebGPU compute shaders.
 *
 * Each device kernel becomes an entry point `@compute @workgroup_size(x, y, z) fn
 * <kernel>(@builtin(workgroup_id) tl_wid: vec3<u32>, @builtin(local_invocation_id)
 * tl_lid: vec3<u32>)`, its workgroup size the block extents of the host entry's
 * launch. Tensor parameters are storage buffers `@group(0) @binding(i)` in
 * parameter order (read-only ones `read`); the scalar parameters are the members
 * of one uniform struct at the next binding. Shared buffers are module-scope
 * `var<workgroup>` arrays, per-thread buffers function-scope arrays. Module-scope
 * names are the kernel's name, two underscores and the buffer's name.
 *
 * WGSL has no implicit conversions: every literal is typed (5i, 5u, 1.5f, 1.5h)
 * and every binary operation is parenthesized (WGSL forbids mixing some operators
 * without parentheses). Integer arithmetic wraps, as lowered code requires.
 * T.if_then_else is select() (WGSL evaluates both sides, and its out-of-bounds
 * reads are defined, so an edge guard stays harmless); T.max/T.min on floats and
 * Python's // and % are helper functions. WGSL has no 8-, 16- or 64-bit integers,
 * no float64 and no bfloat16: those are refused with the type named. */
#include "codegen/wgsl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/fp16.h"
#include "codegen/c_dialect.h"
#include "codegen/c_printer.h"
#include "ir/op_table.h"
#include "transform/kernel_table.h"

/* -------------------------------------------------------------------- state */

enum {
  H_FLOORDIV, H_FLOORMOD, H_CEILDIV,       /* i32 */
  H_FMIN, H_FMAX, H_FFLOORDIV, H_FFLOORMOD, /* per float type */
  H_ROUND, H_INF, H_NAN,
  H__COUNT
};
enum { T_I32, T_F32, T_F16, T__COUNT };

typedef struct wgsl_writer {
  tl__cgen g;              /* names, output, errors, non-negativity */
  tl__sb decls;            /* module-scope declarations of the current kernel */
  bool used[H__COUNT][T__COUNT];
  bool f16;                /* `enable f16;` */
  bool subgroups;          /* `enable subgroups;` */
  const char *kernel;      /* the kernel being printed */
  tl__vec atomics;         /* uint32_t: data var ids of buffers accessed atomically */
  tl__vec vectors;         /* uint32_t: ids of variables holding vectors (arrays by lane) */
  const char *lane;        /* the lane while a vector expression prints lane by lane */
  int in_index;            /* > 0 while a buffer index prints: 64-bit integers are 32-bit there */
} wgsl_writer;

static void wexpr(wgsl_writer *w, const tl_ir_expr *e);
static void wstmt(wgsl_writer *w, const tl_ir_stmt *s);

/* The C-family printer context the writer prints through (names, output, failures). */
#define PRINTER (&w->g)

static bool has_id(const tl__vec *v, uint32_t id) {
  for (size_t i = 0; i < v->len; i++)
    if (TL__VEC_AT(v, uint32_t, i) == id) return true;
  return false;
}

static void add_id(wgsl_writer *w, tl__vec *v, uint32_t id) {
  if (!has_id(v, id) && tl__vec_push(v, &id) != TL_OK) tl__cgen_oom(PRINTER);
}

/* ------------------------------------------------------------------- types */

/* The WGSL type of scalar t, or NULL after recording why there is none. */
static const char *wtype(wgsl_writer *w, tl_dtype t) {
  t = tl_dtype_scalar(t);
  /* Index arithmetic (the flatten pass computes symbolic-size indices in int64) is
   * done in 32 bits: a WGSL array has fewer than 2^31 elements. */
  bool wide_ok = w->in_index > 0 && t.bits == 64;
  switch (t.code) {
  case TL_DTYPE_BOOL: return "bool";
  case TL_DTYPE_INT: if (t.bits == 32 || wide_ok) return "i32"; break;
  case TL_DTYPE_UINT: if (t.bits == 32 || wide_ok) return "u32"; break;
  case TL_DTYPE_FLOAT:
    if (t.bits == 32) return "f32";
    if (t.bits == 16) {
      w->f16 = true;
      return "f16";
    }
    break;
  default: break;
  }
  char buf[32];
  tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "the wgsl dialect has no type for %s%s", tl_dtype_name(t, buf, sizeof buf),
       t.code == TL_DTYPE_BFLOAT ? " (WGSL has f16 but no bfloat16)" : " (WGSL has bool, i32, u32, f32 and f16)");
  return "void";
}

static int float_index(tl_dtype t) { return t.bits == 16 ? T_F16 : T_F32; }
static const char *float_suffix(tl_dtype t) { return t.bits == 16 ? "h" : "f"; }
static const char *float_name(tl_dtype t) { return t.bits == 16 ? "f16" : "f32"; }

static void use(wgsl_writer *w, int helper, int type) { w->used[helper][type] = true; }

/* ---------------------------------------------------------------- literals */

static void int_literal(wgsl_writer *w, tl_dtype t, int64_t v) {
  t = tl_dtype_scalar(t);
  if (t.code == TL_DTYPE_BOOL) {
    tl__cgen_write(PRINTER, "%s", v ? "true" : "false");
  } else if (t.code == TL_DTYPE_UINT && (t.bits == 32 || (t.bits == 64 && w->in_index && v <= (int64_t)UINT32_MAX))) {
    tl__cgen_write(PRINTER, "%" PRIu32 "u", (uint32_t)v);
  } else if (t.code == TL_DTYPE_INT &&
             (t.bits == 32 || (t.bits == 64 && w->in_index && v >= INT32_MIN && v <= INT32_MAX))) {
    int32_t x = (int32_t)v;
    if (x == INT32_MIN) tl__cgen_write(PRINTER, "i32(-2147483648)");
    else if (x < 0) tl__cgen_write(PRINTER, "(%" PRId32 "i)", x);
    else tl__cgen_write(PRINTER, "%" PRId32 "i", x);
  } else {
    wtype(w, t); /* records the refusal */
  }
}

static void float_literal(wgsl_writer *w, tl_dtype t, double v) {
  t = tl_dtype_scalar(t);
  if (strcmp(wtype(w, t), "void") == 0) return;
  int ti = float_index(t);
  if (isnan(v)) {
    use(w, H_NAN, ti);
    tl__cgen_write(PRINTER, "tl_nan_%s()", float_name(t));
    return;
  }
  if (isinf(v)) {
    use(w, H_INF, ti);
    tl__cgen_write(PRINTER, "%stl_inf_%s()", v < 0 ? "-" : "", float_name(t));
    return;
  }
  /* The value the interpreter uses: rounded to the type; printed so it reads back. */
  double x = t.bits == 16 ? tl__f16_to_f64(tl__f64_to_f16(v)) : (double)(float)v;
  if (isinf(x)) {
    use(w, H_INF, ti);
    tl__cgen_write(PRINTER, "%stl_inf_%s()", x < 0 ? "-" : "", float_name(t));
    return;
  }
  char buf[64];
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (strtod(buf, NULL) == x || (t.bits == 32 && strtof(buf, NULL) == (float)x)) break;
  }
  if (!strpbrk(buf, ".e")) strncat(buf, ".0", sizeof buf - strlen(buf) - 1);
  if (signbit(x)) tl__cgen_write(PRINTER, "(%s%s)", buf, float_suffix(t));
  else tl__cgen_write(PRINTER, "%s%s", buf, float_suffix(t));
}

/* -------------------------------------------------------------- expressions */

static bool is_atomic_buf(const wgsl_writer *w, const tl_ir_buffer *b) { return has_id(&w->atomics, b->data->id); }

static void element_at(wgsl_writer *w, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx);

/* buf[index] (flattened row-major, or by declared strides). */
static void element(wgsl_writer *w, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx) {
  w->in_index++;
  element_at(w, buf, n, idx);
  w->in_index--;
}

static void element_at(wgsl_writer *w, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx) {
  const char *name = tl__cgen_var_text(PRINTER, buf->data);
  if (!name) {
    tl__cgen_error(PRINTER, TL_EINVAL, "buffer '%s' is used but not defined in this function", buf->name);
    return;
  }
  tl__cgen_write(PRINTER, "%s[", name);
  if (n != buf->ndim) {
    tl__cgen_error(PRINTER, TL_EINVAL, "buffer '%s' of rank %u indexed with %u indices", buf->name, buf->ndim, n);
  } else if (n == 0) {
    tl__cgen_write(PRINTER, "0");
  } else if (buf->strides) {
    for (uint32_t k = 0; k < n; k++) {
      if (k) tl__cgen_write(PRINTER, " + ");
      tl__cgen_write(PRINTER, "(");
      wexpr(w, idx[k]);
      tl__cgen_write(PRINTER, " * ");
      wexpr(w, buf->strides[k]);
      tl__cgen_write(PRINTER, ")");
    }
  } else {
    for (uint32_t k = 0; k + 1 < n; k++) tl__cgen_write(PRINTER, "(");
    wexpr(w, idx[0]);
    for (uint32_t k = 1; k < n; k++) {
      tl__cgen_write(PRINTER, " * ");
      wexpr(w, buf->shape[k]);
      tl__cgen_write(PRINTER, " + ");
      wexpr(w, idx[k]);
      tl__cgen_write(PRINTER, ")");
    }
  }
  tl__cgen_write(PRINTER, "]");
}

static void call_helper(wgsl_writer *w, const char *name, const tl_ir_expr *a, const tl_ir_expr *b) {
  tl__cgen_write(PRINTER, "%s(", name);
  wexpr(w, a);
  if (b) {
    tl__cgen_write(PRINTER, ", ");
    wexpr(w, b);
  }
  tl__cgen_write(PRINTER, ")");
}

static void infix(wgsl_writer *w, const char *op, const tl_ir_expr *a, const tl_ir_expr *b) {
  tl__cgen_write(PRINTER, "(");
  wexpr(w, a);
  tl__cgen_write(PRINTER, " %s ", op);
  wexpr(w, b);
  tl__cgen_write(PRINTER, ")");
}

static void binary(wgsl_writer *w, const tl_ir_expr *e) {
  const tl_ir_expr *a = e->u.binary.a, *b = e->u.binary.b;
  tl_dtype t = tl_dtype_scalar(a->dtype);
  bool isf = tl_dtype_is_float(t), isb = tl_dtype_is_bool(t);
  bool nonneg = tl__cgen_expr_nonneg(PRINTER, a) && tl__cgen_expr_nonneg(PRINTER, b);
  wtype(w, t); /* an operand type WGSL lacks is refused here, by name */
  char fn[32];
  switch (e->u.binary.op) {
  case TL_BIN_ADD: infix(w, "+", a, b); return;
  case TL_BIN_SUB: infix(w, "-", a, b); return;
  case TL_BIN_MUL: infix(w, "*", a, b); return;
  case TL_BIN_DIV: infix(w, "/", a, b); return;
  case TL_BIN_EQ: infix(w, "==", a, b); return;
  case TL_BIN_NE: infix(w, "!=", a, b); return;
  case TL_BIN_LT: infix(w, "<", a, b); return;
  case TL_BIN_LE: infix(w, "<=", a, b); return;
  case TL_BIN_GT: infix(w, ">", a, b); return;
  case TL_BIN_GE: infix(w, ">=", a, b); return;
  case TL_BIN_AND: infix(w, "&&", a, b); return;
  case TL_BIN_OR: infix(w, "||", a, b); return;
  case TL_BIN_BITAND: infix(w, "&", a, b); return;
  case TL_BIN_BITOR: infix(w, "|", a, b); return;
  case TL_BIN_BITXOR: infix(w, isb ? "!=" : "^", a, b); return;
  case TL_BIN_SHL:
  case TL_BIN_SHR:
    tl__cgen_write(PRINTER, "(");
    wexpr(w, a);
    tl__cgen_write(PRINTER, " %s u32(", e->u.binary.op == TL_BIN_SHL ? "<<" : ">>");
    wexpr(w, b);
    tl__cgen_write(PRINTER, "))");
    return;
  case TL_BIN_FLOORDIV:
  case TL_BIN_FLOORMOD: {
    bool div = e->u.binary.op == TL_BIN_FLOORDIV;
    if (isf) {
      use(w, div ? H_FFLOORDIV : H_FFLOORMOD, float_index(t));
      snprintf(fn, sizeof fn, "tl_%s_%s", div ? "floordiv" : "floormod", float_name(t));
      call_helper(w, fn, a, b);
    } else if (t.code == TL_DTYPE_UINT || nonneg) {
      infix(w, div ? "/" : "%", a, b);
    } else {
      use(w, div ? H_FLOORDIV : H_FLOORMOD, T_I32);
      call_helper(w, div ? "tl_floordiv_i32" : "tl_floormod_i32", a, b);
    }
    return;
  }
  case TL_BIN_MIN:
  case TL_BIN_MAX: {
    bool mn = e->u.binary.op == TL_BIN_MIN;
    if (isb) {
      infix(w, mn ? "&&" : "||", a, b);
    } else if (isf) {
      use(w, mn ? H_FMIN : H_FMAX, float_index(t));
      snprintf(fn, sizeof fn, "tl_%s_%s", mn ? "min" : "max", float_name(t));
      call_helper(w, fn, a, b);
    } else {
      call_helper(w, mn ? "min" : "max", a, b);
    }
    return;
  }
  }
  tl__cgen_error(PRINTER, TL_EINVAL, "unknown binary operator %d", (int)e->u.binary.op);
}

static void unary(wgsl_writer *w, const tl_ir_expr *e) {
  const tl_ir_expr *a = e->u.unary.a;
  bool isb = tl_dtype_is_bool(a->dtype);
  const char *op = e->u.unary.op == TL_UN_NEG ? "-" : e->u.unary.op == TL_UN_NOT || isb ? "!" : "~";
  tl__cgen_write(PRINTER, "(%s", op);
  wexpr(w, a);
  tl__cgen_write(PRINTER, ")");
}

static void cast(wgsl_writer *w, const tl_ir_expr *e) {
  const char *to = wtype(w, e->dtype), *from = wtype(w, e->u.cast.value->dtype);
  if (strcmp(to, from) == 0) { /* also int32 -> int64 in an index */
    wexpr(w, e->u.cast.value);
    return;
  }
  tl__cgen_write(PRINTER, "%s(", to);
  wexpr(w, e->u.cast.value);
  tl__cgen_write(PRINTER, ")");
}

/* A math call on floats by WGSL builtin (or helper) name. */
static void float_math(wgsl_writer *w, const tl_ir_expr *e, tl_dtype t) {
  const char *sfx = float_suffix(t);
  const tl_ir_expr *a = e->u.call.nargs > 0 ? e->u.call.args[0] : NULL;
  const tl_ir_expr *b = e->u.call.nargs > 1 ? e->u.call.args[1] : NULL;
  const tl_ir_expr *c = e->u.call.nargs > 2 ? e->u.call.args[2] : NULL;
  const char *fn = NULL;
  switch (e->u.call.op) {
  case TL_OP_EXP: fn = "exp"; break;
  case TL_OP_EXP2: fn = "exp2"; break;
  case TL_OP_LOG: fn = "log"; break;
  case TL_OP_LOG2: fn = "log2"; break;
  case TL_OP_SQRT: fn = "sqrt"; break;
  case TL_OP_TANH: fn = "tanh"; break;
  case TL_OP_FLOOR: fn = "floor"; break;
  case TL_OP_CEIL: fn = "ceil"; break;
  case TL_OP_TRUNC: fn = "trunc"; break;
  case TL_OP_SIN: fn = "sin"; break;
  case TL_OP_COS: fn = "cos"; break;
  case TL_OP_TAN: fn = "tan"; break;
  case TL_OP_ABS: fn = "abs"; break;
  case TL_OP_POW: fn = "pow"; break;
  case TL_OP_FMA: fn = "fma"; break;
  case TL_OP_ROUND: { /* half away from zero; WGSL's round() rounds halves to even */
    char h[24];
    use(w, H_ROUND, float_index(t));
    snprintf(h, sizeof h, "tl_round_%s", float_name(t));
    call_helper(w, h, a, NULL);
    return;
  }
  case TL_OP_RSQRT:
    tl__cgen_write(PRINTER, "(1.0%s / sqrt(", sfx);
    wexpr(w, a);
    tl__cgen_write(PRINTER, "))");
    return;
  case TL_OP_SIGMOID:
    tl__cgen_write(PRINTER, "(1.0%s / (1.0%s + exp(-(", sfx, sfx);
    wexpr(w, a);
    tl__cgen_write(PRINTER, "))))");
    return;
  default:
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "the wgsl dialect cannot print %s", tl_ir_op_name(e->u.call.op));
    return;
  }
  tl__cgen_write(PRINTER, "%s(", fn);
  if (a) wexpr(w, a);
  if (b) {
    tl__cgen_write(PRINTER, ", ");
    wexpr(w, b);
  }
  if (c) {
    tl__cgen_write(PRINTER, ", ");
    wexpr(w, c);
  }
  tl__cgen_write(PRINTER, ")");
}

static void int_math(wgsl_writer *w, const tl_ir_expr *e, tl_dtype t) {
  const tl_ir_expr *a = e->u.call.nargs > 0 ? e->u.call.args[0] : NULL;
  const tl_ir_expr *b = e->u.call.nargs > 1 ? e->u.call.args[1] : NULL;
  if (!a) {
    tl__cgen_error(PRINTER, TL_EINVAL, "%s takes arguments", tl_ir_op_name(e->u.call.op));
    return;
  }
  switch (e->u.call.op) {
  case TL_OP_FLOOR: case TL_OP_CEIL: case TL_OP_ROUND: case TL_OP_TRUNC:
    wexpr(w, a); /* already whole */
    return;
  case TL_OP_ABS:
    if (t.code == TL_DTYPE_UINT) wexpr(w, a);
    else call_helper(w, "abs", a, NULL);
    return;
  case TL_OP_CEILDIV:
    if (!b) break;
    if (t.code == TL_DTYPE_UINT || (tl__cgen_expr_nonneg(PRINTER, a) && tl__cgen_expr_nonneg(PRINTER, b))) {
      const char *z = t.code == TL_DTYPE_UINT ? "0u" : "0i", *one = t.code == TL_DTYPE_UINT ? "1u" : "1i";
      tl__cgen_write(PRINTER, "((");
      wexpr(w, a);
      tl__cgen_write(PRINTER, " / ");
      wexpr(w, b);
      tl__cgen_write(PRINTER, ") + select(%s, %s, (", z, one);
      wexpr(w, a);
      tl__cgen_write(PRINTER, " %% ");
      wexpr(w, b);
      tl__cgen_write(PRINTER, ") != %s))", z);
    } else {
      use(w, H_CEILDIV, T_I32);
      call_helper(w, "tl_ceildiv_i32", a, b);
    }
    return;
  default: break;
  }
  tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "%s is not defined for integers", tl_ir_op_name(e->u.call.op));
}

static void call(wgsl_writer *w, const tl_ir_expr *e) {
  tl_ir_op op = e->u.call.op;
  tl_dtype t = tl_dtype_scalar(e->dtype);
  if ((unsigned)op >= TL_OP__COUNT || tl_ir_op_is_tile(op)) {
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "%s must be lowered before wgsl code generation",
                   (unsigned)op < TL_OP__COUNT ? tl_ir_op_name(op) : "an unknown op");
    return;
  }
  if (op == TL_OP_WARP_SHFL_XOR) {
    if (e->u.call.nargs != 3) {
      tl__cgen_error(PRINTER, TL_EINVAL, "T.warp_shfl_xor takes (value, lane mask, width)");
      return;
    }
    w->subgroups = true;
    tl__cgen_write(PRINTER, "subgroupShuffleXor(");
    wexpr(w, e->u.call.args[0]);
    tl__cgen_write(PRINTER, ", u32(");
    wexpr(w, e->u.call.args[1]);
    tl__cgen_write(PRINTER, "))");
    return;
  }
  if (tl_dtype_is_int(t)) int_math(w, e, t);
  else if (tl_dtype_is_float(t) && strcmp(wtype(w, t), "void") != 0) float_math(w, e, t);
  else if (!tl_dtype_is_float(t)) tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "the wgsl dialect has no %s for this type", tl_ir_op_name(op));
}

static void var(wgsl_writer *w, const tl_ir_var *v) {
  if (v->thread_tag) {
    static const char *const tags[][2] = {
      {"blockIdx.x", "i32(tl_wid.x)"},   {"blockIdx.y", "i32(tl_wid.y)"},   {"blockIdx.z", "i32(tl_wid.z)"},
      {"threadIdx.x", "i32(tl_lid.x)"}, {"threadIdx.y", "i32(tl_lid.y)"}, {"threadIdx.z", "i32(tl_lid.z)"},
    };
    for (size_t i = 0; i < 6; i++)
      if (strcmp(tags[i][0], v->thread_tag) == 0) {
        tl__cgen_write(PRINTER, "%s", tags[i][1]);
        return;
      }
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "the wgsl dialect has no thread index '%s'", v->thread_tag);
    return;
  }
  const char *text = tl__cgen_var_text(PRINTER, v);
  if (!text) {
    tl__cgen_error(PRINTER, TL_EINVAL, "variable '%s' is used but not defined in this function", v->name);
    return;
  }
  if (has_id(&w->vectors, v->id)) {
    if (!w->lane) {
      tl__cgen_error(PRINTER, TL_EINVAL, "vector variable '%s' used outside a vector statement", v->name);
      return;
    }
    tl__cgen_write(PRINTER, "%s[%s]", text, w->lane);
    return;
  }
  tl__cgen_write(PRINTER, "%s", text);
}

static void wexpr(wgsl_writer *w, const tl_ir_expr *e) {
  if (PRINTER->status != TL_OK) return;
  if (!e) {
    tl__cgen_error(PRINTER, TL_EINVAL, "missing expression");
    return;
  }
  if (e->dtype.lanes > 1 && !w->lane) {
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "vector expression outside a vector store or let");
    return;
  }
  switch (e->kind) {
  case TL_EXPR_INT:
    if (tl_dtype_is_float(e->dtype)) float_literal(w, e->dtype, (double)e->u.int_value);
    else int_literal(w, e->dtype, e->u.int_value);
    return;
  case TL_EXPR_FLOAT:
    float_literal(w, e->dtype, e->u.float_value);
    return;
  case TL_EXPR_STR:
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "a string has no value in wgsl code");
    return;
  case TL_EXPR_VAR: var(w, e->u.var); return;
  case TL_EXPR_BINARY: binary(w, e); return;
  case TL_EXPR_UNARY: unary(w, e); return;
  case TL_EXPR_SELECT:
    /* select(false_value, true_value, condition) */
    tl__cgen_write(PRINTER, "select(");
    wexpr(w, e->u.select.f);
    tl__cgen_write(PRINTER, ", ");
    wexpr(w, e->u.select.t);
    tl__cgen_write(PRINTER, ", ");
    wexpr(w, e->u.select.cond);
    tl__cgen_write(PRINTER, ")");
    return;
  case TL_EXPR_CAST: cast(w, e); return;
  case TL_EXPR_LOAD: {
    const tl_ir_buffer *b = e->u.load.buffer;
    wtype(w, b->dtype);
    bool atomic = is_atomic_buf(w, b);
    if (atomic) tl__cgen_write(PRINTER, "atomicLoad(&");
    element(w, b, e->u.load.n, e->u.load.indices);
    if (atomic) tl__cgen_write(PRINTER, ")");
    return;
  }
  case TL_EXPR_CALL: call(w, e); return;
  case TL_EXPR_REGION:
    tl__cgen_error(PRINTER, TL_EINVAL, "a buffer region is only an argument of a tile op");
    return;
  case TL_EXPR_RAMP:
    tl__cgen_write(PRINTER, "(");
    wexpr(w, e->u.ramp.base);
    if (e->u.ramp.stride == 1) tl__cgen_write(PRINTER, " + %s)", w->lane);
    else tl__cgen_write(PRINTER, " + %s * %" PRId64 "i)", w->lane, e->u.ramp.stride);
    return;
  case TL_EXPR_BROADCAST: {
    const char *lane = w->lane;
    w->lane = NULL; /* the broadcast value is a scalar */
    wexpr(w, e->u.broadcast.value);
    w->lane = lane;
    return;
  }
  }
  tl__cgen_error(PRINTER, TL_EINVAL, "unknown expression kind %d", (int)e->kind);
}

/* --------------------------------------------------------------- statements */

static void block(wgsl_writer *w, const tl_ir_stmt *s) {
  PRINTER->indent++;
  wstmt(w, s);
  PRINTER->indent--;
}

static void line_start(wgsl_writer *w) { tl__sb_indent(PRINTER->out, 2 * PRINTER->indent); }

/* Opens a loop over the lanes of a vector statement. */
static void open_lanes(wgsl_writer *w, uint16_t lanes) {
  const char *lane = tl__cgen_fresh(PRINTER, "lane");
  tl__cgen_line(PRINTER, "for (var %s: i32 = 0i; %s < %ui; %s++) {", lane, lane, (unsigned)lanes, lane);
  PRINTER->indent++;
  w->lane = lane;
}

static void close_lanes(wgsl_writer *w) {
  w->lane = NULL;
  PRINTER->indent--;
  tl__cgen_line(PRINTER, "}");
}

static void print_for(wgsl_writer *w, const tl_ir_stmt *s) {
  if (s->u.loop.kind == TL_FOR_THREAD) {
    const tl_ir_var *v = s->u.loop.vars[0];
    if (!v->thread_tag) {
      static const char *const tags[][2] = {
        {"blockIdx.x", "i32(tl_wid.x)"},   {"blockIdx.y", "i32(tl_wid.y)"},   {"blockIdx.z", "i32(tl_wid.z)"},
        {"threadIdx.x", "i32(tl_lid.x)"}, {"threadIdx.y", "i32(tl_lid.y)"}, {"threadIdx.z", "i32(tl_lid.z)"},
      };
      const char *text = NULL;
      for (size_t i = 0; i < 6 && s->u.loop.thread_tag; i++)
        if (strcmp(tags[i][0], s->u.loop.thread_tag) == 0) text = tags[i][1];
      if (!text) {
        tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "the wgsl dialect has no thread index '%s'",
                       s->u.loop.thread_tag ? s->u.loop.thread_tag : "(none)");
        return;
      }
      const char *name = tl__cgen_declare(PRINTER, v);
      tl__cgen_set_nonneg(PRINTER, v);
      tl__cgen_line(PRINTER, "let %s: i32 = %s;", name, text);
    }
    wstmt(w, s->u.loop.body);
    return;
  }
  uint32_t n = s->u.loop.n;
  for (uint32_t k = 0; k < n; k++) {
    const tl_ir_var *v = s->u.loop.vars[k];
    const tl_ir_expr *min = s->u.loop.mins[k], *ext = s->u.loop.extents[k];
    const char *type = wtype(w, v->dtype);
    bool nonneg = tl__cgen_expr_nonneg(PRINTER, min);
    tl__sb lo = TL__SB_INIT, hi = TL__SB_INIT;
    tl__sb *prev = tl__cgen_capture_begin(PRINTER, &lo);
    wexpr(w, min);
    tl__cgen_capture_end(PRINTER, prev);
    prev = tl__cgen_capture_begin(PRINTER, &hi);
    if (min->kind == TL_EXPR_INT && min->u.int_value == 0) {
      wexpr(w, ext);
    } else {
      tl__cgen_write(PRINTER, "(");
      wexpr(w, min);
      tl__cgen_write(PRINTER, " + ");
      wexpr(w, ext);
      tl__cgen_write(PRINTER, ")");
    }
    tl__cgen_capture_end(PRINTER, prev);
    const char *name = tl__cgen_declare(PRINTER, v);
    if (nonneg) tl__cgen_set_nonneg(PRINTER, v);
    tl__cgen_line(PRINTER, "for (var %s: %s = %s; %s < %s; %s++) {", name, type, tl__sb_str(&lo), name, tl__sb_str(&hi),
                  name);
    tl__sb_free(&lo);
    tl__sb_free(&hi);
    PRINTER->indent++;
  }
  wstmt(w, s->u.loop.body);
  for (uint32_t k = 0; k < n; k++) {
    PRINTER->indent--;
    tl__cgen_line(PRINTER, "}");
  }
}

static void print_if(wgsl_writer *w, const tl_ir_stmt *s) {
  line_start(w);
  for (;;) {
    tl__cgen_write(PRINTER, "if (");
    wexpr(w, s->u.if_.cond);
    tl__cgen_write(PRINTER, ") {\n");
    block(w, s->u.if_.then_);
    const tl_ir_stmt *e = s->u.if_.else_;
    if (!e) break;
    if (e->kind == TL_STMT_IF) {
      line_start(w);
      tl__cgen_write(PRINTER, "} else ");
      s = e;
      continue;
    }
    tl__cgen_line(PRINTER, "} else {");
    block(w, e);
    break;
  }
  tl__cgen_line(PRINTER, "}");
}

static uint16_t store_lanes(const tl_ir_stmt *s) {
  uint16_t lanes = s->u.store.value->dtype.lanes;
  for (uint32_t i = 0; i < s->u.store.n; i++)
    if (s->u.store.indices[i]->dtype.lanes > lanes) lanes = s->u.store.indices[i]->dtype.lanes;
  return lanes;
}

static void assign(wgsl_writer *w, const tl_ir_stmt *s) {
  const tl_ir_buffer *b = s->u.store.buffer;
  wtype(w, b->dtype);
  line_start(w);
  if (is_atomic_buf(w, b)) {
    tl__cgen_write(PRINTER, "atomicStore(&");
    element(w, b, s->u.store.n, s->u.store.indices);
    tl__cgen_write(PRINTER, ", ");
    wexpr(w, s->u.store.value);
    tl__cgen_write(PRINTER, ");\n");
    return;
  }
  element(w, b, s->u.store.n, s->u.store.indices);
  tl__cgen_write(PRINTER, " = ");
  wexpr(w, s->u.store.value);
  tl__cgen_write(PRINTER, ";\n");
}

static void print_store(wgsl_writer *w, const tl_ir_stmt *s) {
  uint16_t lanes = store_lanes(s);
  if (lanes == 1) {
    assign(w, s);
    return;
  }
  open_lanes(w, lanes);
  assign(w, s);
  close_lanes(w);
}

static void print_let(wgsl_writer *w, const tl_ir_stmt *s) {
  const tl_ir_var *v = s->u.let.var;
  const tl_ir_expr *value = s->u.let.value;
  const char *type = wtype(w, v->dtype);
  if (value->dtype.lanes > 1) {
    const char *name = tl__cgen_declare(PRINTER, v);
    tl__cgen_line(PRINTER, "var %s: array<%s, %u>;", name, type, (unsigned)value->dtype.lanes);
    open_lanes(w, value->dtype.lanes);
    line_start(w);
    tl__cgen_write(PRINTER, "%s[%s] = ", name, w->lane);
    wexpr(w, value);
    tl__cgen_write(PRINTER, ";\n");
    close_lanes(w);
    add_id(w, &w->vectors, v->id);
  } else {
    bool nonneg = tl__cgen_expr_nonneg(PRINTER, value);
    tl__sb text = TL__SB_INIT;
    tl__sb *prev = tl__cgen_capture_begin(PRINTER, &text);
    wexpr(w, value);
    tl__cgen_capture_end(PRINTER, prev);
    const char *name = tl__cgen_declare(PRINTER, v);
    if (nonneg) tl__cgen_set_nonneg(PRINTER, v);
    tl__cgen_line(PRINTER, "let %s: %s = %s;", name, type, tl__sb_str(&text));
    tl__sb_free(&text);
  }
  wstmt(w, s->u.let.body);
}

/* The element type of a buffer as declared (atomic<T> when accessed atomically). */
static void elem_decl(wgsl_writer *w, tl__sb *out, const tl_ir_buffer *b) {
  const char *t = wtype(w, b->dtype);
  if (is_atomic_buf(w, b)) tl__sb_appendf(out, "atomic<%s>", t);
  else tl__sb_append(out, t);
}

static void print_alloc(wgsl_writer *w, const tl_ir_stmt *s) {
  const tl_ir_buffer *b = s->u.alloc.buffer;
  int64_t size = 1;
  for (uint32_t i = 0; i < b->ndim; i++) {
    const tl_ir_expr *e = b->shape[i];
    if (!e || e->kind != TL_EXPR_INT || e->u.int_value < 0) {
      tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "buffer '%s' (%s) needs a constant size for wgsl code generation", b->name,
           tl_ir_scope_name(b->scope));
      return;
    }
    size *= e->u.int_value;
  }
  if (size == 0) size = 1; /* WGSL arrays have at least one element */
  bool shared = b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN;
  const char *local = tl__cgen_fresh(PRINTER, b->name);
  if (shared) {
    /* Workgroup memory lives at module scope; a fixed array, shared.dyn included. */
    tl__sb name = TL__SB_INIT;
    tl__sb_appendf(&name, "%s__%s", w->kernel, local);
    tl__cgen_reserve(PRINTER, tl__sb_str(&name));
    tl__cgen_bind(PRINTER, b->data, tl__sb_str(&name));
    tl__sb_appendf(&w->decls, "var<workgroup> %s: array<", tl__sb_str(&name));
    elem_decl(w, &w->decls, b);
    tl__sb_appendf(&w->decls, ", %lld>;\n", (long long)size);
    if (tl__sb_status(&name) != TL_OK) tl__cgen_oom(PRINTER);
    tl__sb_free(&name);
    return;
  }
  tl__cgen_bind(PRINTER, b->data, local);
  tl__sb decl = TL__SB_INIT;
  elem_decl(w, &decl, b);
  tl__cgen_line(PRINTER, "var %s: array<%s, %lld>;", local, tl__sb_str(&decl), (long long)size);
  tl__sb_free(&decl);
}

static void print_eval(wgsl_writer *w, const tl_ir_stmt *s) {
  const tl_ir_expr *e = s->u.eval.expr;
  if (e->kind == TL_EXPR_CALL && tl__op_is_atomic_elem(e->u.call.op)) {
    const tl_ir_expr *dst = e->u.call.nargs == 2 ? e->u.call.args[0] : NULL;
    const tl_ir_expr *value = e->u.call.nargs == 2 ? e->u.call.args[1] : NULL;
    if (!dst || dst->kind != TL_EXPR_REGION || !value) {
      tl__cgen_error(PRINTER, TL_EINVAL, "%s takes a one-element region and a value", tl_ir_op_name(e->u.call.op));
      return;
    }
    /* WGSL's atomics on i32 and u32 (the only ones it has: scan_expr checks). */
    tl_ir_op op = e->u.call.op;
    line_start(w);
    tl__cgen_write(PRINTER, op == TL_OP_ATOMIC_MAX_ELEM   ? "atomicMax(&"
                            : op == TL_OP_ATOMIC_MIN_ELEM ? "atomicMin(&"
                                                          : "atomicAdd(&");
    element(w, dst->u.region.buffer, dst->u.region.ndim, dst->u.region.mins);
    tl__cgen_write(PRINTER, ", ");
    wexpr(w, value);
    tl__cgen_write(PRINTER, ");\n");
    return;
  }
  if (e->kind == TL_EXPR_CALL && tl_ir_op_is_tile(e->u.call.op)) {
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "%s must be lowered before wgsl code generation", tl_ir_op_name(e->u.call.op));
    return;
  }
  /* A value computed for nothing: WGSL wants it assigned to the phony `_`. */
  line_start(w);
  tl__cgen_write(PRINTER, "_ = ");
  wexpr(w, e);
  tl__cgen_write(PRINTER, ";\n");
}

static void wstmt(wgsl_writer *w, const tl_ir_stmt *s) {
  if (PRINTER->status != TL_OK) return;
  if (!s) {
    tl__cgen_error(PRINTER, TL_EINVAL, "missing statement");
    return;
  }
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) wstmt(w, s->u.seq.stmts[i]);
    return;
  case TL_STMT_FOR: print_for(w, s); return;
  case TL_STMT_IF: print_if(w, s); return;
  case TL_STMT_STORE: print_store(w, s); return;
  case TL_STMT_LET: print_let(w, s); return;
  case TL_STMT_ALLOC: print_alloc(w, s); return;
  case TL_STMT_EVAL: print_eval(w, s); return;
  case TL_STMT_BARRIER:
    /* The IR's barrier orders shared and global memory of the block. */
    tl__cgen_line(PRINTER, "storageBarrier();");
    tl__cgen_line(PRINTER, "workgroupBarrier();");
    return;
  case TL_STMT_KERNEL:
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "T.Kernel must be lowered before wgsl code generation");
    return;
  case TL_STMT_ASSERT:
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "argument checks belong in host code, not in a device kernel");
    return;
  case TL_STMT_LAUNCH:
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "kernel launches belong in host code, not in a device kernel");
    return;
  }
  tl__cgen_error(PRINTER, TL_EINVAL, "unknown statement kind %d", (int)s->kind);
}

/* ----------------------------------------------------------------- kernels */

/* WGSL's keywords and reserved words a variable might otherwise be named. */
static const char *const k_reserved[] = {
  "alias", "array", "atomic", "bitcast", "bool", "break", "case", "const", "const_assert", "continue", "continuing",
  "default", "diagnostic", "discard", "else", "enable", "f16", "f32", "fallthrough", "false", "fn", "for", "i32",
  "if", "let", "loop", "mat2x2", "mat3x3", "mat4x4", "override", "ptr", "requires", "return", "sampler", "select",
  "storage", "struct", "switch", "texture_2d", "true", "u32", "uniform", "var", "vec2", "vec3", "vec4", "while",
  "workgroup", "function", "private", "read", "write", "read_write", "main", "module", "self", "this", "type",
  "new", "null", "in", "out", "inout", "handle", "layout", "mod", "move", "mut", "namespace", "package", "public",
  "ref", "super", "target", "typedef", "typeof", "union", "using", "virtual", "where", "with", "yield", "abs",
  "min", "max", "exp", "exp2", "log", "log2", "sqrt", "tanh", "pow", "fma", "floor", "ceil", "round", "trunc",
  "sin", "cos", "sign", "clamp", "dot", "all", "any", "arrayLength", NULL,
};

/* Data variables written (stores, atomics) and those accessed atomically. */
typedef struct scan_ctx {
  wgsl_writer *w;
  tl__vec written;
} scan_ctx;

static bool scan_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  scan_ctx *c = v->ctx;
  if (s->kind == TL_STMT_STORE) add_id(c->w, &c->written, s->u.store.buffer->data->id);
  return true;
}

static bool scan_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  scan_ctx *c = v->ctx;
  if (e->kind == TL_EXPR_CALL && tl__op_is_atomic_elem(e->u.call.op) && e->u.call.nargs == 2 &&
      e->u.call.args[0]->kind == TL_EXPR_REGION) {
    const tl_ir_buffer *b = e->u.call.args[0]->u.region.buffer;
    add_id(c->w, &c->written, b->data->id);
    add_id(c->w, &c->w->atomics, b->data->id);
    tl_dtype t = tl_dtype_scalar(b->dtype);
    if (!(tl_dtype_is_int(t) && t.bits == 32)) {
      char buf[32];
      tl__cgen_error(&c->w->g, TL_EUNSUPPORTED, "the wgsl dialect has no %s for %s (WGSL atomics are i32 and u32)",
                     e->u.call.op == TL_OP_ATOMIC_ADD_ELEM ? "atomic add" : tl_ir_op_name(e->u.call.op),
                     tl_dtype_name(t, buf, sizeof buf));
    }
  }
  return true;
}

/* The block extents of the launch of `kernel` in the module's host entries. */
static bool workgroup_size(const tl_ir_module *mod, const char *kernel, int64_t size[3]) {
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_PACKED || !f->body) continue;
    const tl_ir_stmt *const *stmts = f->body->kind == TL_STMT_SEQ ? (const tl_ir_stmt *const *)f->body->u.seq.stmts
                                                                   : (const tl_ir_stmt *const *)&f->body;
    uint32_t n = f->body->kind == TL_STMT_SEQ ? f->body->u.seq.n : 1;
    for (uint32_t k = 0; k < n; k++) {
      const tl_ir_stmt *s = stmts[k];
      while (s && s->kind == TL_STMT_LET) s = s->u.let.body;
      if (!s || s->kind != TL_STMT_LAUNCH || strcmp(s->u.launch.kernel, kernel) != 0) continue;
      for (int d = 0; d < 3; d++) {
        const tl_ir_expr *e = s->u.launch.block[d];
        if (!e) size[d] = 1;
        else if (e->kind == TL_EXPR_INT && e->u.int_value >= 1) size[d] = e->u.int_value;
        else return false;
      }
      return true;
    }
  }
  return false;
}

static void print_kernel(wgsl_writer *w, const tl_ir_module *mod, const tl_ir_func *f) {
  tl__cgen_begin_func(PRINTER);
  w->kernel = f->name;
  tl__vec_clear(&w->atomics);
  tl__vec_clear(&w->vectors);
  tl__sb_truncate(&w->decls, 0);
  for (size_t i = 0; k_reserved[i]; i++) tl__cgen_reserve(PRINTER, k_reserved[i]);
  tl__cgen_reserve(PRINTER, "tl_wid");
  tl__cgen_reserve(PRINTER, "tl_lid");
  if (!tl__c_is_identifier(f->name)) {
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "kernel name '%s' is not a valid wgsl identifier", f->name);
    return;
  }
  int64_t ws[3];
  if (!workgroup_size(mod, f->name, ws)) {
    tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "kernel '%s' has no launch with constant block extents in a host entry%s", f->name,
         " (WGSL fixes the workgroup size in the shader)");
    return;
  }
  scan_ctx sc = {w, TL__VEC_INIT(uint32_t)};
  tl_ir_visitor v = {scan_expr, scan_stmt, &sc};
  tl_ir_visit_stmt(&v, f->body);

  /* Bindings: tensors in parameter order, then the uniform struct of the scalars. */
  tl__sb_appendf(&w->decls, "// kernel %s\n", f->name);
  uint32_t binding = 0, nscalars = 0;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind != TL_PARAM_BUFFER) {
      nscalars++;
      continue;
    }
    const tl_ir_buffer *b = p->buffer;
    if (tl_dtype_is_bool(b->dtype)) {
      tl__cgen_error(PRINTER, TL_EUNSUPPORTED, "tensor '%s' of bool: WGSL storage buffers cannot hold bool", b->name);
      break;
    }
    const char *local = tl__cgen_fresh(PRINTER, b->name);
    char *name = tl__format("%s__%s", f->name, local);
    if (!name) {
      tl__cgen_oom(PRINTER);
      break;
    }
    tl__cgen_reserve(PRINTER, name);
    tl__cgen_bind(PRINTER, b->data, name);
    bool written = has_id(&sc.written, b->data->id);
    tl__sb_appendf(&w->decls, "@group(0) @binding(%u) var<storage, %s> %s: array<", binding++,
                   written ? "read_write" : "read", name);
    elem_decl(w, &w->decls, b);
    tl__sb_append(&w->decls, ">;\n");
    tl__free(name);
    for (uint32_t d = 0; d < b->ndim; d++) { /* symbolic dims in shapes are sizes */
      const tl_ir_expr *e = b->shape[d];
      if (e->kind == TL_EXPR_VAR) tl__cgen_set_nonneg(PRINTER, e->u.var);
    }
  }
  char *sname = nscalars ? tl__format("%s__Params", f->name) : NULL;
  char *vname = nscalars ? tl__format("%s__params", f->name) : NULL;
  if (nscalars && (!sname || !vname)) tl__cgen_oom(PRINTER);
  if (sname && vname) {
    tl__cgen_reserve(PRINTER, sname);
    tl__cgen_reserve(PRINTER, vname);
    tl__sb_appendf(&w->decls, "struct %s {\n", sname);
    for (uint32_t i = 0; i < f->nparams; i++) {
      const tl_ir_param *p = &f->params[i];
      if (p->kind == TL_PARAM_BUFFER) continue;
      const char *member = tl__cgen_fresh(PRINTER, p->var->name);
      bool isb = tl_dtype_is_bool(p->var->dtype);
      tl__sb_appendf(&w->decls, "  %s: %s,\n", member, isb ? "u32" : wtype(w, p->var->dtype));
      char *text = isb ? tl__format("(%s.%s != 0u)", vname, member) : tl__format("%s.%s", vname, member);
      if (text) tl__cgen_bind(PRINTER, p->var, text);
      else tl__cgen_oom(PRINTER);
      tl__free(text);
    }
    tl__sb_appendf(&w->decls, "}\n@group(0) @binding(%u) var<uniform> %s: %s;\n", binding, vname, sname);
  }
  tl__free(sname);
  tl__free(vname);
  tl__vec_free(&sc.written);
  for (uint32_t i = 0; i < f->nparams; i++) /* a symbolic dim passed as a scalar is a size */
    if (f->params[i].kind != TL_PARAM_BUFFER) {
      for (uint32_t j = 0; j < f->nparams; j++) {
        const tl_ir_buffer *b = f->params[j].buffer;
        if (f->params[j].kind != TL_PARAM_BUFFER) continue;
        for (uint32_t d = 0; d < b->ndim; d++)
          if (b->shape[d]->kind == TL_EXPR_VAR && b->shape[d]->u.var == f->params[i].var)
            tl__cgen_set_nonneg(PRINTER, f->params[i].var);
      }
    }

  tl__sb body = TL__SB_INIT;
  tl__sb *prev = tl__cgen_capture_begin(PRINTER, &body);
  PRINTER->indent = 1;
  wstmt(w, f->body);
  PRINTER->indent = 0;
  tl__cgen_capture_end(PRINTER, prev);

  /* Declarations (workgroup arrays were added while printing), then the function. */
  tl__cgen_write(PRINTER, "%s\n", tl__sb_str(&w->decls));
  tl__cgen_write(PRINTER,
                 "@compute @workgroup_size(%lld, %lld, %lld)\n"
                 "fn %s(@builtin(workgroup_id) tl_wid: vec3<u32>, @builtin(local_invocation_id) tl_lid: vec3<u32>) {\n",
                 (long long)ws[0], (long long)ws[1], (long long)ws[2], f->name);
  tl__cgen_write(PRINTER, "%s}\n", tl__sb_str(&body));
  tl__sb_free(&body);
  if (tl__sb_status(&w->decls) != TL_OK) tl__cgen_oom(PRINTER);
}

/* ----------------------------------------------------------------- helpers */

static void emit_helpers(const wgsl_writer *w, tl__sb *out) {
  if (w->used[H_FLOORDIV][T_I32])
    tl__sb_append(out, "fn tl_floordiv_i32(a: i32, b: i32) -> i32 {\n"
                       "  let q = a / b;\n"
                       "  if ((a % b != 0i) && ((a < 0i) != (b < 0i))) { return q - 1i; }\n"
                       "  return q;\n}\n");
  if (w->used[H_FLOORMOD][T_I32])
    tl__sb_append(out, "fn tl_floormod_i32(a: i32, b: i32) -> i32 {\n"
                       "  let r = a % b;\n"
                       "  if ((r != 0i) && ((r < 0i) != (b < 0i))) { return r + b; }\n"
                       "  return r;\n}\n");
  if (w->used[H_CEILDIV][T_I32])
    tl__sb_append(out, "fn tl_ceildiv_i32(a: i32, b: i32) -> i32 {\n"
                       "  let q = a / b;\n"
                       "  if ((a % b != 0i) && ((a < 0i) == (b < 0i))) { return q + 1i; }\n"
                       "  return q;\n}\n");
  static const struct {
    const char *name, *sfx, *inf, *nan;
    int index;
  } k_floats[] = {{"f32", "f", "bitcast<f32>(b)", "bitcast<f32>(b)", T_F32},
                  {"f16", "h", "bitcast<vec2<f16>>(b).x", "bitcast<vec2<f16>>(b).x", T_F16}};
  for (size_t i = 0; i < 2; i++) {
    const char *T = k_floats[i].name, *S = k_floats[i].sfx;
    int ti = k_floats[i].index;
    if (w->used[H_FMIN][ti])
      tl__sb_appendf(out, "fn tl_min_%s(a: %s, b: %s) -> %s {\n  if ((a < b) || (a != a)) { return a; }\n  return b;\n}\n",
                     T, T, T, T);
    if (w->used[H_FMAX][ti])
      tl__sb_appendf(out, "fn tl_max_%s(a: %s, b: %s) -> %s {\n  if ((a > b) || (a != a)) { return a; }\n  return b;\n}\n",
                     T, T, T, T);
    if (w->used[H_FFLOORDIV][ti])
      tl__sb_appendf(out, "fn tl_floordiv_%s(a: %s, b: %s) -> %s { return floor(a / b); }\n", T, T, T, T);
    if (w->used[H_FFLOORMOD][ti])
      tl__sb_appendf(out, "fn tl_floormod_%s(a: %s, b: %s) -> %s { return a - floor(a / b) * b; }\n", T, T, T, T);
    if (w->used[H_ROUND][ti])
      tl__sb_appendf(out,
                     "fn tl_round_%s(x: %s) -> %s {\n  let t = trunc(x);\n"
                     "  if (abs(x - t) >= 0.5%s) { return t + sign(x); }\n  return t;\n}\n",
                     T, T, T, S);
    /* Not constants: WGSL rejects infinite or NaN constant expressions. */
    if (w->used[H_INF][ti])
      tl__sb_appendf(out, "fn tl_inf_%s() -> %s {\n  var b: u32 = %s;\n  return %s;\n}\n", T, T,
                     ti == T_F32 ? "0x7f800000u" : "0x7c00u", k_floats[i].inf);
    if (w->used[H_NAN][ti])
      tl__sb_appendf(out, "fn tl_nan_%s() -> %s {\n  var b: u32 = %s;\n  return %s;\n}\n", T, T,
                     ti == T_F32 ? "0x7fc00000u" : "0x7e00u", k_floats[i].nan);
  }
}

tl_status tl__wgsl_device_source(const tl_ir_module *mod, char **out) {
  *out = NULL;
  if (!mod) return tl__error(TL_EINVAL, "device codegen: module must not be NULL");
  wgsl_writer w;
  memset(&w, 0, sizeof w);
  tl__cgen_init(&w.g, &tl__c_dialect_c); /* for names only: WGSL is printed here */
  tl__sb_init(&w.decls);
  tl__vec_init(&w.atomics, sizeof(uint32_t));
  tl__vec_init(&w.vectors, sizeof(uint32_t));
  size_t nkernels = 0;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod) && w.g.status == TL_OK; i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL) continue;
    if (nkernels++) tl__cgen_write(&w.g, "\n");
    print_kernel(&w, mod, f);
    if (w.g.status != TL_OK) tl__error_context(w.g.status, "in kernel '%s': ", f->name);
  }
  tl_status s = tl__cgen_status(&w.g);
  if (s == TL_OK) {
    tl__sb sb = TL__SB_INIT;
    tl__sb_append(&sb, "// Device code generated by tilelang-backend (WGSL).\n");
    if (w.f16) tl__sb_append(&sb, "enable f16;\n");
    if (w.subgroups) tl__sb_append(&sb, "enable subgroups;\n");
    tl__sb_append(&sb, "\n");
    size_t before = sb.len;
    emit_helpers(&w, &sb);
    if (sb.len != before) tl__sb_append(&sb, "\n");
    tl__sb_append(&sb, tl__sb_str(&w.g.body));
    *out = tl__sb_finish(&sb);
    if (!*out) s = TL_ENOMEM;
  }
  tl__vec_free(&w.atomics);
  tl__vec_free(&w.vectors);
  tl__sb_free(&w.decls);
  tl__cgen_free(&w.g);
  return s;
}

tl_status tl__wgsl_device_artifact(const tl_ir_module *mod, tl_artifact **out) {
  *out = NULL;
  char *src = NULL;
  TL__TRY(tl__wgsl_device_source(mod, &src));
  tl_kernel_table *table = NULL;
  tl_status s = tl__c_module_kernel_table(mod, &table);
  if (s == TL_EUNSUPPORTED || s == TL_EINVAL) { /* no table for such an entry, as for C */
    table = NULL;
    s = TL_OK;
    tl__error_clear();
  }
  tl_artifact *a = NULL;
  if (s == TL_OK) s = tl_artifact_create("wgsl", src, &a);
  if (s == TL_OK && table) {
    s = tl_artifact_with_kernel_table(a, table, out);
    tl_artifact_release(a);
  } else if (s == TL_OK) {
    *out = a;
  }
  tl_kernel_table_free(table);
  tl__free(src);
  return s;
}
