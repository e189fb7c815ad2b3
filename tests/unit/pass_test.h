/* Helpers for the pass tests: running passes and printing the result, and host
 * tensors for running a function with the interpreter on seeded random inputs
 * (independent of the tools' kernel_io). */
#ifndef TL_PASS_TEST_H
#define TL_PASS_TEST_H

#include <dlpack/dlpack.h>
#include <math.h>
#include <stdlib.h>

#include "base/fp16.h"
#include "tilelang/ir.h"
#include "tilelang/target.h"
#include "tl_test.h"
#include "transform/pass.h"
#include "transform/session.h"

/* ------------------------------------------------------------ running passes */

/* Runs one pass with verification before and after. */
static inline void pt_run(tl_ir_module *m, tl__pass_fn fn) {
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(fn(m, NULL));
  TL_ASSERT_OK(tl_ir_verify_module(m));
}

/* The printed function (tl_free it). */
static inline char *pt_print(const tl_ir_module *m, const char *name) {
  const tl_ir_func *f = tl_ir_module_find_func(m, name);
  if (!f) fail_msg("no function '%s'", name);
  char *s = tl_ir_print_func(f);
  if (!s) fail_msg("print failed");
  return s;
}

/* Asserts the printed function equals `want` exactly, showing both otherwise. */
#define PT_ASSERT_PRINTS(m, name, want)                                                        \
  do {                                                                                         \
    char *pt_got = pt_print((m), (name));                                                      \
    if (strcmp(pt_got, (want)) != 0) {                                                         \
      fprintf(stderr, "---- got:\n%s---- expected:\n%s----\n", pt_got, (want));               \
      tl_free(pt_got);                                                                         \
      fail_msg("printed IR of '%s' differs", (name));                                          \
    }                                                                                          \
    tl_free(pt_got);                                                                           \
  } while (0)

/* A module parsed from TileLang source (fails the test on error). */
static inline tl_ir_module *pt_parse(const char *src) {
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(src, "k.py", NULL, &m));
  return m;
}

/* Lowers with the c pipeline inside a session that verifies after every pass. */
static inline tl_status pt_lower_c(tl_ir_module *m, const tl_pass_pipeline *pipeline) {
  static const char *const cfg[] = {"tl.verify_after_each_pass=1", NULL};
  tl_target *t = NULL;
  tl_status s = tl_target_parse("c", &t);
  if (s != TL_OK) return s;
  tl__session ses;
  tl__session_init(&ses);
  ses.pass_configs = cfg;
  ses.trace = false;
  tl__session *prev = tl__session_enter(&ses);
  s = tl__pass_semantic_check(m, t);
  if (s == TL_OK) s = pipeline->lower(m, t, pipeline->user_data);
  tl__session_exit(prev);
  tl__session_free(&ses);
  tl_target_release(t);
  return s;
}

/* ------------------------------------------------------------- host tensors */

typedef struct pt_dim {
  const char *name;
  int64_t value;
} pt_dim;

typedef struct pt_args {
  uint32_t n;
  tl_value *values;
  DLTensor *tensors;
  int64_t *shapes; /* 8 per tensor: up to 4 dims, then up to 4 strides */
  size_t *nbytes;
} pt_args;

static inline int64_t pt_eval_dim(const tl_ir_expr *e, const pt_dim *dims, size_t ndims) {
  if (e->kind == TL_EXPR_INT) return e->u.int_value;
  if (e->kind == TL_EXPR_VAR)
    for (size_t i = 0; i < ndims; i++)
      if (strcmp(dims[i].name, e->u.var->name) == 0) return dims[i].value;
  if (e->kind == TL_EXPR_BINARY && e->u.binary.op == TL_BIN_MUL)
    return pt_eval_dim(e->u.binary.a, dims, ndims) * pt_eval_dim(e->u.binary.b, dims, ndims);
  if (e->kind == TL_EXPR_BINARY && e->u.binary.op == TL_BIN_ADD)
    return pt_eval_dim(e->u.binary.a, dims, ndims) + pt_eval_dim(e->u.binary.b, dims, ndims);
  fail_msg("no value for a dimension (give the symbolic dim a value)");
  return 0;
}

static inline uint64_t pt_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Stores x (a double) as element i of dtype t at p. */
static inline void pt_store(tl_dtype t, void *p, size_t i, double x) {
  char *c = (char *)p + i * tl_dtype_bytes(t);
  if (t.code == TL_DTYPE_FLOAT && t.bits == 32) *(float *)c = (float)x;
  else if (t.code == TL_DTYPE_FLOAT && t.bits == 64) *(double *)c = x;
  else if (t.code == TL_DTYPE_FLOAT && t.bits == 16) *(uint16_t *)c = tl__f64_to_f16(x);
  else if (t.code == TL_DTYPE_BFLOAT) *(uint16_t *)c = tl__f64_to_bf16(x);
  else {
    int64_t v = (int64_t)x;
    if (t.code == TL_DTYPE_BOOL) v = v != 0;
    memcpy(c, &v, t.bits / 8); /* little endian */
  }
}

/* Tensors for every buffer parameter of f (shapes from `dims`), filled with
 * seeded random values; scalar parameters from `dims` by name. */
static inline pt_args pt_args_make(const tl_ir_func *f, const pt_dim *dims, size_t ndims, uint64_t seed) {
  pt_args a;
  a.n = f->nparams;
  a.values = calloc(a.n + 1, sizeof *a.values);
  a.tensors = calloc(a.n + 1, sizeof *a.tensors);
  a.shapes = calloc((a.n + 1) * 8, sizeof *a.shapes);
  a.nbytes = calloc(a.n + 1, sizeof *a.nbytes);
  uint64_t s = seed * 2654435761u + 1;
  for (uint32_t i = 0; i < a.n; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind == TL_PARAM_SCALAR) {
      a.values[i] = tl_value_int(pt_eval_dim(&(tl_ir_expr){.kind = TL_EXPR_VAR, .u.var = p->var}, dims, ndims));
      continue;
    }
    const tl_ir_buffer *b = p->buffer;
    DLTensor *t = &a.tensors[i];
    size_t count = 1;
    for (uint32_t d = 0; d < b->ndim; d++) {
      a.shapes[i * 8 + d] = pt_eval_dim(b->shape[d], dims, ndims);
      count *= (size_t)a.shapes[i * 8 + d];
    }
    if (b->strides) { /* declared strides: the span they cover, strides after the shape */
      count = 1;
      for (uint32_t d = 0; d < b->ndim; d++) {
        a.shapes[i * 8 + 4 + d] = pt_eval_dim(b->strides[d], dims, ndims);
        count += (size_t)((a.shapes[i * 8 + d] - 1) * a.shapes[i * 8 + 4 + d]);
      }
      t->strides = &a.shapes[i * 8 + 4];
    }
    a.nbytes[i] = count * tl_dtype_bytes(b->dtype);
    t->data = calloc(a.nbytes[i] + 1, 1);
    t->device = (DLDevice){kDLCPU, 0};
    t->ndim = (int32_t)b->ndim;
    t->dtype = (DLDataType){b->dtype.code, b->dtype.bits, b->dtype.lanes};
    t->shape = &a.shapes[i * 8];
    for (size_t k = 0; k < count; k++) {
      uint64_t r = pt_rand(&s);
      double x = tl_dtype_is_float(b->dtype) ? (double)(r % 2000001) / 1e6 - 1.0
                 : b->dtype.code == TL_DTYPE_UINT ? (double)(r % 17)
                 : tl_dtype_is_bool(b->dtype)     ? (double)(r % 2)
                                                  : (double)(int64_t)(r % 17) - 8;
      pt_store(b->dtype, t->data, k, x);
    }
    a.values[i] = tl_value_tensor((struct DLTensor *)t);
  }
  return a;
}

/* A deep copy (same shapes, same bytes). */
static inline pt_args pt_args_copy(const pt_args *src) {
  pt_args a = *src;
  a.values = calloc(a.n + 1, sizeof *a.values);
  a.tensors = calloc(a.n + 1, sizeof *a.tensors);
  a.shapes = calloc((a.n + 1) * 8, sizeof *a.shapes);
  a.nbytes = calloc(a.n + 1, sizeof *a.nbytes);
  memcpy(a.values, src->values, a.n * sizeof *a.values);
  memcpy(a.shapes, src->shapes, a.n * 8 * sizeof *a.shapes);
  memcpy(a.nbytes, src->nbytes, a.n * sizeof *a.nbytes);
  for (uint32_t i = 0; i < a.n; i++) {
    if (src->values[i].kind != TL_VALUE_TENSOR) continue;
    a.tensors[i] = src->tensors[i];
    a.tensors[i].shape = &a.shapes[i * 8];
    if (src->tensors[i].strides) a.tensors[i].strides = &a.shapes[i * 8 + 4];
    a.tensors[i].data = malloc(a.nbytes[i] + 1);
    memcpy(a.tensors[i].data, src->tensors[i].data, a.nbytes[i]);
    a.values[i] = tl_value_tensor((struct DLTensor *)&a.tensors[i]);
  }
  return a;
}

static inline void pt_args_free(pt_args *a) {
  for (uint32_t i = 0; i < a->n; i++)
    if (a->values[i].kind == TL_VALUE_TENSOR) free(a->tensors[i].data);
  free(a->values);
  free(a->tensors);
  free(a->shapes);
  free(a->nbytes);
}

/* Index of the first differing byte of tensor i, or -1. */
static inline long pt_first_diff(const pt_args *x, const pt_args *y, uint32_t i) {
  const unsigned char *p = x->tensors[i].data, *q = y->tensors[i].data;
  for (size_t k = 0; k < x->nbytes[i]; k++)
    if (p[k] != q[k]) return (long)k;
  return -1;
}

#endif
