/* The kernel table from a lowered host entry (kernel_table.h). The table is
 * assembled in temporary arrays pointing into the module, then packed into one
 * block (src/kernel_table/kernel_table.h). */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"
#include "kernel_table/kernel_table.h"
#include "transform/kernel_table.h"
#include "transform/util.h"

typedef struct let_sym {
  const tl_ir_var *var;
  int32_t sym; /* symbolic dim the LET binds, or -1 */
} let_sym;

typedef struct kt {
  const tl_ir_func *f;
  tl_host_param *params; /* the table's parameters, being built */
  tl__vec syms;     /* tl_host_sym */
  tl__vec sym_vars; /* const tl_ir_var*, parallel to syms */
  tl__vec dims;     /* tl_host_dim, all params' dims back to back */
  tl__vec lets;     /* let_sym */
  tl__vec launches; /* tl_kernel_launch (args and code point into the vectors below) */
  tl__vec args;     /* tl_kernel_arg arrays, one per launch (kept until packed) */
  tl__vec code;     /* tl_lexpr_insn* arrays (tl__malloc'd) */
} kt;

static int32_t sym_of_var(const kt *t, const tl_ir_var *v) {
  for (size_t i = 0; i < t->sym_vars.len; i++)
    if (TL__VEC_AT(&t->sym_vars, const tl_ir_var *, i) == v) return (int32_t)i;
  for (size_t i = 0; i < t->lets.len; i++)
    if (TL__VEC_AT(&t->lets, let_sym, i).var == v) return TL__VEC_AT(&t->lets, let_sym, i).sym;
  return -1;
}

static int scalar_index(const tl_ir_func *f, const tl_ir_var *v) {
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_SCALAR && f->params[i].var == v) return (int)i;
  return -1;
}

static tl_status add_sym(kt *t, const tl_ir_var *v, uint32_t param, int32_t dim) {
  tl_host_sym s = {v->name, param, dim};
  TL__TRY(tl__vec_push(&t->syms, &s));
  return tl__vec_push(&t->sym_vars, &v);
}

/* Symbolic dims: scalar parameters mentioned as a whole dimension bind
 * themselves; other variables are bound by their first whole dimension. */
static tl_status find_syms(kt *t) {
  const tl_ir_func *f = t->f;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind != TL_PARAM_BUFFER) continue;
    if (p->buffer->strides)
      return tl__error(TL_EUNSUPPORTED, "kernel table of '%s': parameter '%s' declares strides, which a kernel table cannot describe",
                       f->name, p->name);
    for (uint32_t d = 0; d < p->buffer->ndim; d++) {
      const tl_ir_expr *e = p->buffer->shape[d];
      if (e->kind == TL_EXPR_INT) continue;
      if (e->kind != TL_EXPR_VAR)
        return tl__error(TL_EUNSUPPORTED,
                         "kernel table of '%s': dimension %u of parameter '%s' is an expression of symbolic dims, which a "
                         "kernel table cannot describe",
                         f->name, d, p->name);
      if (sym_of_var(t, e->u.var) >= 0) continue;
      int sp = scalar_index(f, e->u.var);
      TL__TRY(add_sym(t, e->u.var, sp >= 0 ? (uint32_t)sp : i, sp >= 0 ? -1 : (int32_t)d));
    }
  }
  return TL_OK;
}

static tl_status build_params(kt *t, tl_host_param *params) {
  const tl_ir_func *f = t->f;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    tl_host_param *hp = &params[i];
    memset(hp, 0, sizeof *hp);
    hp->name = p->name;
    hp->is_output = p->is_output;
    if (p->kind == TL_PARAM_SCALAR) {
      hp->dtype = p->var->dtype;
      continue;
    }
    hp->is_tensor = true;
    hp->dtype = p->buffer->dtype;
    hp->ndim = p->buffer->ndim;
    for (uint32_t d = 0; d < p->buffer->ndim; d++) {
      const tl_ir_expr *e = p->buffer->shape[d];
      tl_host_dim hd = {0, -1};
      if (e->kind == TL_EXPR_INT) hd.value = e->u.int_value;
      else hd.sym = sym_of_var(t, e->u.var);
      TL__TRY(tl__vec_push(&t->dims, &hd));
    }
  }
  /* Point into the dims vector only now that it has stopped growing. */
  size_t off = 0;
  for (uint32_t i = 0; i < f->nparams; i++) {
    params[i].dims = params[i].ndim ? &TL__VEC_AT(&t->dims, tl_host_dim, off) : NULL;
    off += params[i].ndim;
  }
  return TL_OK;
}

/* ----------------------------------------------------- launch expressions */

static tl_status emit(tl__vec *code, int32_t op, int64_t value) {
  tl_lexpr_insn in = {op, value};
  return tl__vec_push(code, &in);
}

static tl_status compile_expr(kt *t, const tl_ir_expr *e, tl__vec *code, const char *what) {
  int32_t op;
  switch (e->kind) {
  case TL_EXPR_INT: return emit(code, TL_LX_CONST, e->u.int_value);
  case TL_EXPR_VAR: {
    int32_t s = sym_of_var(t, e->u.var);
    if (s >= 0) return emit(code, TL_LX_SYM, s);
    break;
  }
  case TL_EXPR_CAST:
    if (tl_dtype_is_int(e->u.cast.value->dtype)) return compile_expr(t, e->u.cast.value, code, what);
    break;
  case TL_EXPR_BINARY:
    switch (e->u.binary.op) {
    case TL_BIN_ADD: op = TL_LX_ADD; break;
    case TL_BIN_SUB: op = TL_LX_SUB; break;
    case TL_BIN_MUL: op = TL_LX_MUL; break;
    case TL_BIN_FLOORDIV: op = TL_LX_FLOORDIV; break;
    case TL_BIN_FLOORMOD: op = TL_LX_FLOORMOD; break;
    case TL_BIN_MIN: op = TL_LX_MIN; break;
    case TL_BIN_MAX: op = TL_LX_MAX; break;
    default: op = -1; break;
    }
    if (op < 0) break;
    TL__TRY(compile_expr(t, e->u.binary.a, code, what));
    TL__TRY(compile_expr(t, e->u.binary.b, code, what));
    return emit(code, op, 0);
  case TL_EXPR_CALL:
    if (e->u.call.op == TL_OP_CEILDIV && e->u.call.nargs == 2) {
      /* ceildiv(a, b) = (a + b - 1) // b */
      TL__TRY(compile_expr(t, e->u.call.args[0], code, what));
      TL__TRY(compile_expr(t, e->u.call.args[1], code, what));
      TL__TRY(emit(code, TL_LX_ADD, 0));
      TL__TRY(emit(code, TL_LX_CONST, 1));
      TL__TRY(emit(code, TL_LX_SUB, 0));
      TL__TRY(compile_expr(t, e->u.call.args[1], code, what));
      return emit(code, TL_LX_FLOORDIV, 0);
    }
    break;
  default: break;
  }
  return tl__error(TL_EUNSUPPORTED, "kernel table of '%s': %s is not integer arithmetic of symbolic dims and constants",
                   t->f->name, what);
}

/* Compiles e (NULL: the constant `dflt`) into a fresh code array. */
static tl_status compile_lexpr(kt *t, const tl_ir_expr *e, int64_t dflt, const char *what, tl_launch_expr *out) {
  tl__vec code;
  tl__vec_init(&code, sizeof(tl_lexpr_insn));
  tl_status st = e ? compile_expr(t, e, &code, what) : emit(&code, TL_LX_CONST, dflt);
  if (st == TL_OK) st = tl__vec_push(&t->code, &code.data);
  if (st != TL_OK) {
    tl__vec_free(&code);
    return st;
  }
  out->n = (uint32_t)code.len;
  out->code = code.data;
  return TL_OK;
}

static tl_status map_arg(kt *t, const tl_ir_stmt *s, uint32_t i, tl_kernel_arg *out) {
  const tl_ir_func *f = t->f;
  const tl_ir_expr *a = s->u.launch.args[i];
  if (a->kind == TL_EXPR_VAR) {
    const tl_ir_var *v = a->u.var;
    for (uint32_t p = 0; p < f->nparams; p++) {
      if (f->params[p].kind == TL_PARAM_BUFFER && f->params[p].buffer->data == v) {
        *out = (tl_kernel_arg){TL_KARG_TENSOR, p, f->params[p].buffer->dtype};
        return TL_OK;
      }
      if (f->params[p].kind == TL_PARAM_SCALAR && f->params[p].var == v) {
        *out = (tl_kernel_arg){TL_KARG_SCALAR, p, v->dtype};
        return TL_OK;
      }
    }
    int32_t sym = sym_of_var(t, v);
    if (sym >= 0) {
      *out = (tl_kernel_arg){TL_KARG_SYM, (uint32_t)sym, v->dtype};
      return TL_OK;
    }
  }
  return tl__error(TL_EUNSUPPORTED,
                   "kernel table of '%s': argument %u of the launch of '%s' is not a parameter or a symbolic dim",
                   f->name, i, s->u.launch.kernel);
}

static tl_status add_launch(kt *t, const tl_ir_stmt *s) {
  tl_kernel_launch l;
  memset(&l, 0, sizeof l);
  l.symbol = s->u.launch.kernel;
  l.nargs = s->u.launch.nargs;
  tl_kernel_arg *args = tl__calloc(l.nargs ? l.nargs : 1, sizeof *args);
  if (!args) return tl__oom();
  tl_status st = tl__vec_push(&t->args, &args);
  if (st != TL_OK) {
    tl__free(args);
    return st;
  }
  l.args = args;
  for (uint32_t i = 0; i < l.nargs; i++) TL__TRY(map_arg(t, s, i, &args[i]));
  static const char *const gw[3] = {"grid x", "grid y", "grid z"}, *const bw[3] = {"block x", "block y", "block z"};
  for (int d = 0; d < 3; d++) {
    TL__TRY(compile_lexpr(t, s->u.launch.grid[d], 1, gw[d], &l.grid[d]));
    TL__TRY(compile_lexpr(t, s->u.launch.block[d], 1, bw[d], &l.block[d]));
  }
  TL__TRY(compile_lexpr(t, s->u.launch.dyn_shared_bytes, 0, "the dynamic shared memory size", &l.dyn_shared_bytes));
  return tl__vec_push(&t->launches, &l);
}

/* A LET of the host entry: a symbolic dim read from its binding dimension
 * (`T.Cast("int32", T.arg_shape(i, d))`, as make_packed_api writes it). */
static int32_t let_binds_sym(const kt *t, const tl_ir_expr *v) {
  if (v->kind == TL_EXPR_CAST) v = v->u.cast.value;
  if (v->kind != TL_EXPR_CALL || v->u.call.op != TL_OP_ARG_SHAPE || v->u.call.nargs != 2) return -1;
  int64_t p, d;
  if (!tl__is_const_int(v->u.call.args[0], &p) || !tl__is_const_int(v->u.call.args[1], &d)) return -1;
  for (size_t i = 0; i < t->syms.len; i++) {
    const tl_host_sym *s = &TL__VEC_AT(&t->syms, tl_host_sym, i);
    if ((int64_t)s->param == p && s->dim == d) return (int32_t)i;
  }
  return -1;
}

/* make_packed_api's data alignment checks (`T.arg_data_aligned(i, b)`) become the
 * parameters' data_alignment, so runtimes that check arguments from the table
 * (nvrtc, opencl) enforce what the vectorized device code assumes. */
static void record_alignment(kt *t, const tl_ir_expr *cond) {
  int64_t i, b;
  if (!cond || cond->kind != TL_EXPR_CALL || cond->u.call.op != TL_OP_ARG_DATA_ALIGNED || cond->u.call.nargs != 2) return;
  if (!tl__is_const_int(cond->u.call.args[0], &i) || !tl__is_const_int(cond->u.call.args[1], &b)) return;
  if (i < 0 || (uint64_t)i >= t->f->nparams || b <= 1 || b > UINT32_MAX) return;
  if ((uint32_t)b > t->params[i].data_alignment) t->params[i].data_alignment = (uint32_t)b;
}

static tl_status walk_host(kt *t, const tl_ir_stmt *s) {
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) TL__TRY(walk_host(t, s->u.seq.stmts[i]));
    return TL_OK;
  case TL_STMT_LET: {
    let_sym l = {s->u.let.var, let_binds_sym(t, s->u.let.value)};
    TL__TRY(tl__vec_push(&t->lets, &l));
    return walk_host(t, s->u.let.body);
  }
  case TL_STMT_LAUNCH: return add_launch(t, s);
  case TL_STMT_ASSERT: record_alignment(t, s->u.assert_.cond); return TL_OK;
  default: return TL_OK; /* other asserts: the table's own checks replace them */
  }
}

static void kt_free(kt *t) {
  for (size_t i = 0; i < t->args.len; i++) tl__free(TL__VEC_AT(&t->args, tl_kernel_arg *, i));
  for (size_t i = 0; i < t->code.len; i++) tl__free(TL__VEC_AT(&t->code, void *, i));
  tl__vec_free(&t->syms);
  tl__vec_free(&t->sym_vars);
  tl__vec_free(&t->dims);
  tl__vec_free(&t->lets);
  tl__vec_free(&t->launches);
  tl__vec_free(&t->args);
  tl__vec_free(&t->code);
}

tl_status tl__kernel_table_from_module(const tl_ir_module *mod, const char *entry, tl_kernel_table **out) {
  *out = NULL;
  if (!mod || !entry) return tl__error(TL_EINVAL, "kernel table: a module and an entry name are required");
  const tl_ir_func *f = tl_ir_module_find_func(mod, entry);
  if (!f) return tl__error(TL_EINVAL, "kernel table: the module has no function '%s'", entry);
  if (f->callconv != TL_CALLCONV_PACKED)
    return tl__error(TL_EINVAL, "kernel table: function '%s' is not a lowered host entry", entry);
  kt t;
  memset(&t, 0, sizeof t);
  t.f = f;
  tl__vec_init(&t.syms, sizeof(tl_host_sym));
  tl__vec_init(&t.sym_vars, sizeof(const tl_ir_var *));
  tl__vec_init(&t.dims, sizeof(tl_host_dim));
  tl__vec_init(&t.lets, sizeof(let_sym));
  tl__vec_init(&t.launches, sizeof(tl_kernel_launch));
  tl__vec_init(&t.args, sizeof(tl_kernel_arg *));
  tl__vec_init(&t.code, sizeof(void *));
  tl_host_param *params = tl__calloc(f->nparams ? f->nparams : 1, sizeof *params);
  tl_status st = params ? TL_OK : tl__oom();
  t.params = params;
  if (st == TL_OK) st = find_syms(&t);
  if (st == TL_OK) st = build_params(&t, params);
  if (st == TL_OK && f->body) st = walk_host(&t, f->body);
  if (st == TL_OK) {
    tl_kernel_table tab = {f->name,
                           f->nparams,
                           params,
                           (uint32_t)t.syms.len,
                           t.syms.data,
                           (uint32_t)t.launches.len,
                           t.launches.data};
    st = tl__kernel_table_pack(&tab, out);
  }
  tl__free(params);
  kt_free(&t);
  return st;
}
