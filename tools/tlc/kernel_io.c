/* Host tensors for command-line runs: shapes from symbolic dimension values,
 * seeded inputs, output detection, checksums and comparisons. */
#include "kernel_io.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/fp16.h"
#include "base/hash.h"
#include "base/str.h"
#include "base/vec.h"
#include "ir/op_table.h"

/* ------------------------------------------------------------- elements */

static double elem_read(tl_dtype t, const void *p) {
  switch (t.code) {
  case TL_DTYPE_FLOAT:
    if (t.bits == 16) { uint16_t h; memcpy(&h, p, 2); return tl__f16_to_f64(h); }
    if (t.bits == 32) { float f; memcpy(&f, p, 4); return f; }
    { double d; memcpy(&d, p, 8); return d; }
  case TL_DTYPE_BFLOAT: { uint16_t h; memcpy(&h, p, 2); return tl__bf16_to_f64(h); }
  case TL_DTYPE_BOOL: return *(const uint8_t *)p != 0;
  case TL_DTYPE_INT:
    switch (t.bits) {
    case 8: return *(const int8_t *)p;
    case 16: { int16_t x; memcpy(&x, p, 2); return x; }
    case 32: { int32_t x; memcpy(&x, p, 4); return x; }
    default: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    }
  default:
    switch (t.bits) {
    case 8: return *(const uint8_t *)p;
    case 16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case 32: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    }
  }
}

/* Writes x (already integral for integer types) as one element of dtype t. */
static void elem_write(tl_dtype t, void *p, double x) {
  switch (t.code) {
  case TL_DTYPE_FLOAT:
    if (t.bits == 16) { uint16_t h = tl__f64_to_f16(x); memcpy(p, &h, 2); }
    else if (t.bits == 32) { float f = (float)x; memcpy(p, &f, 4); }
    else memcpy(p, &x, 8);
    return;
  case TL_DTYPE_BFLOAT: { uint16_t h = tl__f64_to_bf16(x); memcpy(p, &h, 2); return; }
  case TL_DTYPE_BOOL: *(uint8_t *)p = x != 0; return;
  default: {
    int64_t v = (int64_t)x;
    switch (t.bits) {
    case 8: { int8_t y = (int8_t)v; memcpy(p, &y, 1); break; }
    case 16: { int16_t y = (int16_t)v; memcpy(p, &y, 2); break; }
    case 32: { int32_t y = (int32_t)v; memcpy(p, &y, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
  }
  }
}

static tl_dtype dt_of(DLDataType d) { return (tl_dtype){d.code, d.bits, d.lanes}; }

static uint64_t numel(const DLTensor *t) {
  uint64_t n = 1;
  for (int i = 0; i < t->ndim; i++) n *= (uint64_t)t->shape[i];
  return n;
}

/* splitmix64: a small, well-mixed, reproducible generator. */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A uniform double in [-1, 1]. */
static double uniform(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1p-52 - 1.0; }

/* ---------------------------------------------------------- reads, writes */

typedef struct access_scan {
  const tl_ir_module *mod;
  const tl_ir_func *f;
  bool *read, *written; /* per parameter of f */
  int depth;
} access_scan;

static void scan_func(access_scan *sc);

/* Parameter index of f whose buffer shares buf's data variable, or -1. */
static int param_of(const tl_ir_func *f, const tl_ir_buffer *buf) {
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_BUFFER && f->params[i].buffer && f->params[i].buffer->data == buf->data)
      return (int)i;
  return -1;
}

static void mark(access_scan *sc, const tl_ir_expr *region_or_load, bool is_read, bool is_write) {
  if (!region_or_load) return;
  const tl_ir_buffer *b = region_or_load->kind == TL_EXPR_REGION ? region_or_load->u.region.buffer
                          : region_or_load->kind == TL_EXPR_LOAD ? region_or_load->u.load.buffer
                                                                 : NULL;
  int i = b ? param_of(sc->f, b) : -1;
  if (i < 0) return;
  if (is_read) sc->read[i] = true;
  if (is_write) sc->written[i] = true;
}

/* Reads and writes of a tile op, from the op table (ir/op_table.h): its WRITTEN
 * region written (and read per WRITTEN_READ), every other operand read. */
static void scan_tile_op(access_scan *sc, const tl_ir_expr *call) {
  const tl__tile_op_info *t = tl__tile_op(call->u.call.op);
  if (!t || call->u.call.nargs != t->nargs) return;
  for (uint32_t i = 0; i < t->nargs; i++) {
    if (t->sig[i] == 'I') continue;
    bool written = i == t->written;
    mark(sc, call->u.call.args[i], !written || tl__tile_op_reads_written(t, call), written);
  }
}

/* A launch passes the caller's buffers to a kernel: what the kernel reads or
 * writes through a parameter, the caller does through the argument. */
static void scan_launch(access_scan *sc, const tl_ir_stmt *s) {
  const tl_ir_func *k = sc->mod && s->u.launch.kernel ? tl_ir_module_find_func(sc->mod, s->u.launch.kernel) : NULL;
  if (!k || k->nparams != s->u.launch.nargs || sc->depth > 8) return;
  bool *flags = tl__calloc(2 * (size_t)k->nparams + 1, sizeof *flags);
  if (!flags) return; /* only refines which buffers count as read */
  access_scan inner = {sc->mod, k, flags, flags + k->nparams, sc->depth + 1};
  scan_func(&inner);
  for (uint32_t j = 0; j < k->nparams; j++) {
    const tl_ir_expr *arg = s->u.launch.args[j];
    if (!arg || arg->kind != TL_EXPR_VAR) continue;
    for (uint32_t i = 0; i < sc->f->nparams; i++) {
      const tl_ir_param *p = &sc->f->params[i];
      if (p->kind == TL_PARAM_BUFFER && p->buffer && p->buffer->data == arg->u.var) {
        sc->read[i] |= inner.read[j];
        sc->written[i] |= inner.written[j];
      }
    }
  }
  tl__free(flags);
}

static bool scan_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  access_scan *sc = v->ctx;
  if (s->kind == TL_STMT_STORE) {
    int i = s->u.store.buffer ? param_of(sc->f, s->u.store.buffer) : -1;
    if (i >= 0) sc->written[i] = true;
  } else if (s->kind == TL_STMT_EVAL && s->u.eval.expr && s->u.eval.expr->kind == TL_EXPR_CALL) {
    scan_tile_op(sc, s->u.eval.expr);
  } else if (s->kind == TL_STMT_LAUNCH) {
    scan_launch(sc, s);
  }
  return true;
}

static bool scan_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_LOAD) mark(v->ctx, e, true, false);
  return true;
}

static void scan_func(access_scan *sc) {
  tl_ir_visitor v = {scan_expr, scan_stmt, sc};
  if (sc->f->body) tl_ir_visit_stmt(&v, sc->f->body);
}

/* ------------------------------------------------------- shapes, scalars */

typedef struct sym {
  const char *name;
  int64_t value;
} sym;

static bool find_sym(const sym *syms, size_t n, const char *name, int64_t *out) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(syms[i].name, name) == 0) {
      *out = syms[i].value;
      return true;
    }
  return false;
}

static int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* Evaluates an integer shape expression over the symbolic values. */
static bool eval_shape(const tl_ir_expr *e, const sym *syms, size_t n, int64_t *out) {
  int64_t a, b;
  if (!e) return false;
  switch (e->kind) {
  case TL_EXPR_INT: *out = e->u.int_value; return true;
  case TL_EXPR_VAR: return find_sym(syms, n, e->u.var->name, out);
  case TL_EXPR_CAST: return tl_dtype_is_int(e->dtype) && eval_shape(e->u.cast.value, syms, n, out);
  case TL_EXPR_CALL:
    if (e->u.call.op != TL_OP_CEILDIV || e->u.call.nargs != 2) return false;
    if (!eval_shape(e->u.call.args[0], syms, n, &a) || !eval_shape(e->u.call.args[1], syms, n, &b) || b == 0)
      return false;
    *out = -floordiv(-a, b);
    return true;
  case TL_EXPR_BINARY:
    if (!eval_shape(e->u.binary.a, syms, n, &a) || !eval_shape(e->u.binary.b, syms, n, &b)) return false;
    switch (e->u.binary.op) {
    case TL_BIN_ADD: *out = a + b; return true;
    case TL_BIN_SUB: *out = a - b; return true;
    case TL_BIN_MUL: *out = a * b; return true;
    case TL_BIN_DIV: if (!b) return false; *out = a / b; return true;
    case TL_BIN_FLOORDIV: if (!b) return false; *out = floordiv(a, b); return true;
    case TL_BIN_FLOORMOD: if (!b) return false; *out = a - floordiv(a, b) * b; return true;
    case TL_BIN_MIN: *out = a < b ? a : b; return true;
    case TL_BIN_MAX: *out = a > b ? a : b; return true;
    default: return false;
    }
  default: return false;
  }
}

/* Collects the variables (by name, each once) of a shape expression. */
static tl_status collect_vars(const tl_ir_expr *e, tl__vec *names) {
  if (!e) return TL_OK;
  switch (e->kind) {
  case TL_EXPR_VAR:
    for (size_t i = 0; i < names->len; i++)
      if (strcmp(TL__VEC_AT(names, const tl_ir_var *, i)->name, e->u.var->name) == 0) return TL_OK;
    return tl__vec_push(names, &e->u.var);
  case TL_EXPR_BINARY:
    TL__TRY(collect_vars(e->u.binary.a, names));
    return collect_vars(e->u.binary.b, names);
  case TL_EXPR_CAST: return collect_vars(e->u.cast.value, names);
  case TL_EXPR_CALL:
    for (uint32_t i = 0; i < e->u.call.nargs; i++) TL__TRY(collect_vars(e->u.call.args[i], names));
    return TL_OK;
  default: return TL_OK;
  }
}

static const char *binding_of(const tlc_dim_binding *dims, size_t ndims, const char *name) {
  const char *v = NULL;
  for (size_t i = 0; i < ndims; i++)
    if (strcmp(dims[i].name, name) == 0) v = dims[i].value; /* the last one wins */
  return v;
}

static tl_status parse_int(const char *name, const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 0);
  if (errno || end == s || *end) return tl__error(TL_EINVAL, "--dim %s=%s: expected an integer", name, s);
  *out = v;
  return TL_OK;
}

/* A value must fit the variable's integer type (int32 for most symbolic dims): a
 * size the kernel's index arithmetic cannot hold is refused before anything is
 * allocated. */
static tl_status check_range(const tl_ir_var *v, int64_t value, bool given) {
  tl_dtype t = v->dtype;
  if (!tl_dtype_is_int(t) || t.bits == 0 || t.bits > 64) return TL_OK;
  int64_t lo, hi;
  if (t.code == TL_DTYPE_UINT) {
    lo = 0;
    hi = t.bits >= 63 ? INT64_MAX : (int64_t)((UINT64_C(1) << t.bits) - 1);
  } else {
    hi = t.bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (t.bits - 1)) - 1);
    lo = -hi - 1;
  }
  if (value >= lo && value <= hi) return TL_OK;
  char dt[32];
  return tl__error(TL_EINVAL, "%s %s=%" PRId64 " does not fit %s's type %s (%" PRId64 " to %" PRId64 ")",
                   given ? "--dim" : "the default", v->name, value, v->name, tl_dtype_name(t, dt, sizeof dt), lo, hi);
}

/* Values of the symbolic dimensions and integer scalars, by name. */
static tl_status bind_syms(const tl_ir_func *f, const tlc_dim_binding *dims, size_t ndims, int64_t dflt,
                           tl__vec *syms) {
  tl__vec names = TL__VEC_INIT(const tl_ir_var *);
  tl_status s = TL_OK;
  for (uint32_t i = 0; i < f->nparams && s == TL_OK; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind == TL_PARAM_SCALAR && p->var && tl_dtype_is_int(p->var->dtype)) {
      s = collect_vars(&(tl_ir_expr){.kind = TL_EXPR_VAR, .u.var = p->var}, &names);
    } else if (p->kind == TL_PARAM_BUFFER && p->buffer) {
      for (uint32_t d = 0; d < p->buffer->ndim && s == TL_OK; d++) s = collect_vars(p->buffer->shape[d], &names);
    }
  }
  for (size_t i = 0; i < names.len && s == TL_OK; i++) {
    const tl_ir_var *var = TL__VEC_AT(&names, const tl_ir_var *, i);
    sym y = {var->name, dflt};
    const char *v = binding_of(dims, ndims, y.name);
    if (v) s = parse_int(y.name, v, &y.value);
    if (s == TL_OK) s = check_range(var, y.value, v != NULL);
    if (s == TL_OK) s = tl__vec_push(syms, &y);
  }
  tl__vec_free(&names);
  return s;
}

/* Every --dim binding must name a symbolic dimension or scalar parameter. */
static tl_status check_bindings(const tl_ir_func *f, const tlc_dim_binding *dims, size_t ndims, const tl__vec *syms) {
  for (size_t i = 0; i < ndims; i++) {
    int64_t ignored;
    bool found = find_sym(syms->data, syms->len, dims[i].name, &ignored);
    for (uint32_t j = 0; j < f->nparams && !found; j++)
      found = f->params[j].kind == TL_PARAM_SCALAR && strcmp(f->params[j].name, dims[i].name) == 0;
    if (!found)
      return tl__error(TL_EINVAL, "--dim %s: '%s' has no symbolic dimension or scalar parameter named so", dims[i].name,
                       f->name);
  }
  return TL_OK;
}

tl_status tlc_kernel_io_check_dims(const tl_ir_func *f, const tlc_dim_binding *dims, size_t ndims) {
  tl__vec syms = TL__VEC_INIT(sym);
  tl_status s = bind_syms(f, dims, ndims, TLC_DEFAULT_DIM, &syms);
  if (s == TL_OK) s = check_bindings(f, dims, ndims, &syms);
  tl__vec_free(&syms);
  return s;
}

static tl_status scalar_value(const tl_ir_param *p, const tlc_dim_binding *dims, size_t ndims, const tl__vec *syms,
                              uint64_t *rng, tl_value *out) {
  tl_dtype t = p->var->dtype;
  const char *v = binding_of(dims, ndims, p->name);
  if (tl_dtype_is_int(t)) {
    int64_t x = 0;
    find_sym(syms->data, syms->len, p->var->name, &x);
    *out = tl_value_int(x);
  } else if (tl_dtype_is_float(t)) {
    double x = uniform(rng);
    if (v) {
      char *end;
      x = strtod(v, &end);
      if (end == v || *end) return tl__error(TL_EINVAL, "--dim %s=%s: expected a number", p->name, v);
    }
    *out = tl_value_float(x);
  } else if (tl_dtype_is_bool(t)) {
    bool b = true;
    if (v) {
      if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0 || strcmp(v, "1") == 0) b = true;
      else if (strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || strcmp(v, "0") == 0) b = false;
      else return tl__error(TL_EINVAL, "--dim %s=%s: expected true or false", p->name, v);
    }
    *out = tl_value_bool(b);
  } else {
    char nb[32];
    return tl__error(TL_EUNSUPPORTED, "parameter '%s': cannot make a value of %s", p->name, tl_dtype_name(t, nb, sizeof nb));
  }
  return TL_OK;
}

/* ------------------------------------------------------------- lifetime */

static tlc_kernel_io *io_alloc(const tl_ir_func *f) {
  tlc_kernel_io *io = tl__calloc(1, sizeof *io);
  if (!io) return NULL;
  io->func = f;
  io->n = f->nparams;
  size_t n = f->nparams ? f->nparams : 1;
  io->args = tl__calloc(n, sizeof *io->args);
  io->tensors = tl__calloc(n, sizeof *io->tensors);
  io->is_output = tl__calloc(n, sizeof *io->is_output);
  io->is_read = tl__calloc(n, sizeof *io->is_read);
  if (!io->args || !io->tensors || !io->is_output || !io->is_read) {
    tlc_kernel_io_free(io);
    return NULL;
  }
  return io;
}

void tlc_kernel_io_free(tlc_kernel_io *io) {
  if (!io) return;
  if (io->tensors)
    for (uint32_t i = 0; i < io->n; i++) {
      tl__free(io->tensors[i].data);
      tl__free(io->tensors[i].shape);
    }
  tl__free(io->args);
  tl__free(io->tensors);
  tl__free(io->is_output);
  tl__free(io->is_read);
  tl__free(io);
}

/* Allocates a zeroed compact CPU tensor of dtype t and the given shape. */
static tl_status tensor_alloc(DLTensor *t, tl_dtype dt, int ndim, const int64_t *shape, const char *name) {
  memset(t, 0, sizeof *t);
  t->device.device_type = kDLCPU;
  t->ndim = ndim;
  t->dtype.code = dt.code;
  t->dtype.bits = dt.bits;
  t->dtype.lanes = dt.lanes;
  t->shape = tl__calloc(ndim ? (size_t)ndim : 1, sizeof *t->shape);
  if (!t->shape) return tl__oom();
  uint64_t n = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return tl__error(TL_EINVAL, "parameter '%s': dimension %d is negative (%" PRId64 ")", name, i, shape[i]);
    t->shape[i] = shape[i];
    if (shape[i] && n > (UINT64_MAX >> 4) / (uint64_t)shape[i])
      return tl__error(TL_EINVAL, "parameter '%s' is too large", name);
    n *= (uint64_t)shape[i];
  }
  size_t esz = tl_dtype_bytes(dt);
  if (n > SIZE_MAX / (esz ? esz : 1) - 1) return tl__error(TL_EINVAL, "parameter '%s' is too large", name);
  t->data = tl__calloc((size_t)n * esz + 1, 1); /* never NULL, also for empty tensors */
  if (!t->data) return tl__oom();
  return TL_OK;
}

tl_status tlc_kernel_io_create(const tl_ir_module *mod, const tl_ir_func *f, const tlc_dim_binding *dims, size_t ndims,
                               int64_t default_dim, uint64_t seed, tlc_kernel_io **out) {
  *out = NULL;
  tlc_kernel_io *io = io_alloc(f);
  if (!io) return tl__oom();
  tl__vec syms = TL__VEC_INIT(sym);
  tl_status s = bind_syms(f, dims, ndims, default_dim, &syms);
  if (s == TL_OK) s = check_bindings(f, dims, ndims, &syms);
  uint64_t rng = seed ^ 0x5CA1AB1Eull;
  for (uint32_t i = 0; i < f->nparams && s == TL_OK; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind == TL_PARAM_SCALAR) {
      s = scalar_value(p, dims, ndims, &syms, &rng, &io->args[i]);
      continue;
    }
    const tl_ir_buffer *b = p->buffer;
    int64_t shape[64];
    if (b->ndim > 64) {
      s = tl__error(TL_EUNSUPPORTED, "parameter '%s' has too many dimensions", p->name);
      break;
    }
    for (uint32_t d = 0; d < b->ndim && s == TL_OK; d++)
      if (!eval_shape(b->shape[d], syms.data, syms.len, &shape[d]))
        s = tl__error(TL_EINVAL, "parameter '%s': cannot evaluate dimension %u of its shape", p->name, d);
    if (s == TL_OK) s = tensor_alloc(&io->tensors[i], b->dtype, (int)b->ndim, shape, p->name);
    io->args[i] = tl_value_tensor((struct DLTensor *)(void *)&io->tensors[i]);
  }
  tl__vec_free(&syms);
  if (s == TL_OK) {
    /* Which buffers the function reads and writes decides what gets inputs. */
    bool *flags = tl__calloc(2 * (size_t)io->n + 1, sizeof *flags);
    if (!flags) s = tl__oom();
    else {
      access_scan sc = {mod, f, flags, flags + io->n, 0};
      scan_func(&sc);
      for (uint32_t i = 0; i < io->n; i++) {
        io->is_read[i] = flags[i];
        io->is_output[i] = f->params[i].kind == TL_PARAM_BUFFER && (f->params[i].is_output || flags[io->n + i]);
      }
      tl__free(flags);
    }
  }
  if (s != TL_OK) {
    tlc_kernel_io_free(io);
    return s;
  }
  *out = io;
  return TL_OK;
}

/* ---------------------------------------------------------------- contents */

void tlc_kernel_io_fill(tlc_kernel_io *io, uint64_t seed) {
  for (uint32_t i = 0; i < io->n; i++) {
    if (io->func->params[i].kind != TL_PARAM_BUFFER) continue;
    DLTensor *t = &io->tensors[i];
    tl_dtype dt = dt_of(t->dtype);
    size_t esz = tl_dtype_bytes(dt);
    uint64_t n = numel(t);
    char *p = t->data;
    if (!io->is_read[i]) {
      /* Write-only: poisoned, so elements never written show up. */
      for (uint64_t k = 0; k < n; k++) {
        if (tl_dtype_is_float(dt)) elem_write(dt, p + k * esz, NAN);
        else memset(p + k * esz, 0xA5, esz);
      }
      continue;
    }
    /* One stream per parameter: adding a parameter leaves the others' values. */
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + (uint64_t)(i + 1) * 0xD1B54A32D192ED03ull;
    for (uint64_t k = 0; k < n; k++) {
      double x;
      if (tl_dtype_is_float(dt)) x = uniform(&rng);
      else if (tl_dtype_is_bool(dt)) x = (double)(splitmix(&rng) & 1);
      else if (dt.code == TL_DTYPE_UINT) x = (double)(splitmix(&rng) % 17);
      else x = (double)(int64_t)(splitmix(&rng) % 17) - 8;
      elem_write(dt, p + k * esz, x);
    }
  }
}

tl_status tlc_kernel_io_clone(const tlc_kernel_io *io, tlc_kernel_io **out) {
  *out = NULL;
  tlc_kernel_io *c = io_alloc(io->func);
  if (!c) return tl__oom();
  for (uint32_t i = 0; i < io->n; i++) {
    c->is_output[i] = io->is_output[i];
    c->is_read[i] = io->is_read[i];
    c->args[i] = io->args[i];
    if (io->args[i].kind != TL_VALUE_TENSOR) continue;
    const DLTensor *t = &io->tensors[i];
    tl_status s = tensor_alloc(&c->tensors[i], dt_of(t->dtype), t->ndim, t->shape, io->func->params[i].name);
    if (s != TL_OK) {
      tlc_kernel_io_free(c);
      return s;
    }
    memcpy(c->tensors[i].data, t->data, (size_t)numel(t) * tl_dtype_bytes(dt_of(t->dtype)));
    c->args[i] = tl_value_tensor((struct DLTensor *)(void *)&c->tensors[i]);
  }
  *out = c;
  return TL_OK;
}

static void print_shape(FILE *f, const DLTensor *t) {
  fputc('[', f);
  for (int i = 0; i < t->ndim; i++) fprintf(f, "%s%" PRId64, i ? ", " : "", t->shape[i]);
  fputc(']', f);
}

void tlc_kernel_io_print_checksums(const tlc_kernel_io *io, FILE *f) {
  for (uint32_t i = 0; i < io->n; i++) {
    if (!io->is_output[i]) continue;
    const DLTensor *t = &io->tensors[i];
    tl_dtype dt = dt_of(t->dtype);
    size_t esz = tl_dtype_bytes(dt);
    uint64_t n = numel(t);
    double sum = 0, abssum = 0;
    for (uint64_t k = 0; k < n; k++) {
      double x = elem_read(dt, (const char *)t->data + k * esz);
      sum += x;
      abssum += fabs(x);
    }
    char nb[32];
    fprintf(f, "%s %s", io->func->params[i].name, tl_dtype_name(dt, nb, sizeof nb));
    print_shape(f, t);
    fprintf(f, " sum=%.9g abssum=%.9g hash=%016" PRIx64 "\n", sum, abssum,
            tl__hash_bytes(t->data, (size_t)n * esz, 0));
  }
}

/* ------------------------------------------------------------- comparing */

void tlc_default_tolerance(tl_dtype t, double *rtol, double *atol) {
  *rtol = *atol = 0;
  if (t.code == TL_DTYPE_BFLOAT) *rtol = *atol = 2e-2;
  else if (t.code == TL_DTYPE_FLOAT && t.bits == 16) *rtol = *atol = 1e-2;
  else if (t.code == TL_DTYPE_FLOAT && t.bits == 32) { *rtol = 1e-4; *atol = 1e-5; }
  else if (t.code == TL_DTYPE_FLOAT) { *rtol = 1e-9; *atol = 1e-12; }
}

static bool compact(const DLTensor *t) {
  if (!t->strides) return true;
  int64_t st = 1;
  for (int i = t->ndim; i-- > 0;) {
    if (t->shape[i] > 1 && t->strides[i] != st) return false;
    st *= t->shape[i];
  }
  return true;
}

tl_status tlc_compare_tensors(const DLTensor *got, const DLTensor *expected, double rtol, double atol,
                              tlc_compare_result *out) {
  memset(out, 0, sizeof *out);
  if (got->dtype.code != expected->dtype.code || got->dtype.bits != expected->dtype.bits ||
      got->dtype.lanes != expected->dtype.lanes || got->ndim != expected->ndim)
    return tl__error(TL_EINVAL, "tensors to compare differ in dtype or rank");
  for (int i = 0; i < got->ndim; i++)
    if (got->shape[i] != expected->shape[i])
      return tl__error(TL_EINVAL, "tensors to compare differ in dimension %d (%" PRId64 " and %" PRId64 ")", i,
                       got->shape[i], expected->shape[i]);
  if (!compact(got) || !compact(expected)) return tl__error(TL_EINVAL, "tensors to compare must be compact");
  tl_dtype dt = dt_of(got->dtype);
  size_t esz = tl_dtype_bytes(dt);
  uint64_t n = numel(got);
  const char *g = (const char *)got->data + got->byte_offset;
  const char *e = (const char *)expected->data + expected->byte_offset;
  for (uint64_t k = 0; k < n; k++) {
    double x = elem_read(dt, g + k * esz), y = elem_read(dt, e + k * esz);
    double excess;
    if (isnan(x) || isnan(y)) excess = isnan(x) && isnan(y) ? 0 : INFINITY;
    else if (isinf(x) || isinf(y)) excess = x == y ? 0 : INFINITY;
    else {
      double tol = atol + rtol * fabs(y), diff = fabs(x - y);
      excess = diff == 0 ? 0 : tol > 0 ? diff / tol : INFINITY;
    }
    if (excess > 1) out->mismatches++;
    if (k == 0 || excess > out->worst_excess) {
      out->worst_excess = excess;
      out->worst_index = k;
      out->worst_got = x;
      out->worst_expected = y;
    }
  }
  out->checked = n;
  return TL_OK;
}

void tlc_compare_describe(const DLTensor *t, const tlc_compare_result *r, char *buf, size_t cap) {
  int64_t idx[64];
  uint64_t f = r->worst_index;
  int nd = t->ndim < 64 ? t->ndim : 64;
  for (int i = nd; i-- > 0;) {
    int64_t e = t->shape[i] > 0 ? t->shape[i] : 1;
    idx[i] = (int64_t)(f % (uint64_t)e);
    f /= (uint64_t)e;
  }
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, "worst element [");
  for (int i = 0; i < nd; i++) tl__sb_appendf(&sb, "%s%" PRId64, i ? ", " : "", idx[i]);
  tl__sb_appendf(&sb, "]: got %.9g, expected %.9g (%" PRIu64 " of %" PRIu64 " elements differ)", r->worst_got,
                 r->worst_expected, r->mismatches, r->checked);
  snprintf(buf, cap, "%s", tl__sb_status(&sb) == TL_OK ? tl__sb_str(&sb) : "out of memory");
  tl__sb_free(&sb);
}
