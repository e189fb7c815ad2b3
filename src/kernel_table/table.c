/* Kernel tables: validation, deep copy and free (runtime.h). Every table the library
 * hands out is one block (kernel_table.h), so a copy is a validated pack and
 * freeing is one tl__free. JSON lives in kernel_table_json.c. */
#include "base/alloc.h"
#include "base/error.h"
#include "kernel_table/kernel_table.h"
#include "tilelang/runtime.h"

void tl_kernel_table_free(tl_kernel_table *t) { tl__free(t); }

/* ------------------------------------------------------------- validation */

bool tl__launch_expr_valid(const tl_launch_expr *e, uint32_t nsyms) {
  if (e->n == 0) return true;
  if (!e->code) return false;
  uint32_t depth = 0;
  for (uint32_t i = 0; i < e->n; i++) {
    const tl_lexpr_insn *in = &e->code[i];
    switch (in->op) {
    case TL_LX_SYM:
      if (in->value < 0 || (uint64_t)in->value >= nsyms) return false;
      /* fall through */
    case TL_LX_CONST:
      if (++depth > TL__LAUNCH_EXPR_MAX_DEPTH) return false;
      break;
    case TL_LX_ADD: case TL_LX_SUB: case TL_LX_MUL: case TL_LX_FLOORDIV: case TL_LX_FLOORMOD:
    case TL_LX_MIN: case TL_LX_MAX:
      if (depth < 2) return false;
      depth--;
      break;
    default:
      return false;
    }
  }
  return depth == 1;
}

static bool dtype_known(tl_dtype d) {
  tl_dtype s = tl_dtype_scalar(d);
  char buf[32];
  tl_dtype back;
  return d.lanes >= 1 && tl_dtype_parse(tl_dtype_name(s, buf, sizeof buf), &back) && tl_dtype_eq(back, s);
}

#define BAD(...) tl__error(TL_EINVAL, "invalid kernel table: " __VA_ARGS__)

static tl_status validate_params(const tl_kernel_table *t) {
  if (t->nparams && !t->params) return BAD("%u parameters but no parameter array", t->nparams);
  for (uint32_t i = 0; i < t->nparams; i++) {
    const tl_host_param *p = &t->params[i];
    if (!p->name || !*p->name) return BAD("parameter %u has no name", i);
    if (!dtype_known(p->dtype)) return BAD("parameter '%s' has an unknown dtype", p->name);
    if (!p->is_tensor && p->ndim) return BAD("scalar parameter '%s' has dimensions", p->name);
    if (p->ndim && !p->dims) return BAD("parameter '%s' has %u dimensions but no dimension array", p->name, p->ndim);
    if (p->data_alignment & (p->data_alignment - 1))
      return BAD("parameter '%s' has alignment %u, not a power of two", p->name, p->data_alignment);
    if (!p->is_tensor && p->data_alignment > 1) return BAD("scalar parameter '%s' has an alignment", p->name);
    for (uint32_t d = 0; d < p->ndim; d++) {
      const tl_host_dim *dim = &p->dims[d];
      if (dim->sym < -1 || (dim->sym >= 0 && (uint32_t)dim->sym >= t->nsyms))
        return BAD("parameter '%s' dimension %u refers to symbolic dim %d of %u", p->name, d, dim->sym, t->nsyms);
      if (dim->sym < 0 && dim->value < 0) return BAD("parameter '%s' dimension %u is negative", p->name, d);
    }
  }
  return TL_OK;
}

static tl_status validate_syms(const tl_kernel_table *t) {
  if (t->nsyms && !t->syms) return BAD("%u symbolic dims but no symbolic dim array", t->nsyms);
  for (uint32_t i = 0; i < t->nsyms; i++) {
    const tl_host_sym *s = &t->syms[i];
    if (!s->name || !*s->name) return BAD("symbolic dim %u has no name", i);
    if (s->param >= t->nparams) return BAD("symbolic dim '%s' is bound by parameter %u of %u", s->name, s->param, t->nparams);
    const tl_host_param *p = &t->params[s->param];
    if (s->dim == -1) {
      if (p->is_tensor) return BAD("symbolic dim '%s' is bound by tensor parameter '%s' without a dimension", s->name, p->name);
      if (!tl_dtype_is_int(p->dtype)) return BAD("symbolic dim '%s' is bound by non-integer parameter '%s'", s->name, p->name);
    } else {
      if (!p->is_tensor) return BAD("symbolic dim '%s' is bound by a dimension of scalar parameter '%s'", s->name, p->name);
      if (s->dim < 0 || (uint32_t)s->dim >= p->ndim)
        return BAD("symbolic dim '%s' is bound by dimension %d of parameter '%s', which has %u", s->name, s->dim,
                   p->name, p->ndim);
      if (p->dims[s->dim].sym != (int32_t)i)
        return BAD("symbolic dim '%s' is bound by dimension %d of parameter '%s', which is not that dim", s->name,
                   s->dim, p->name);
    }
  }
  return TL_OK;
}

static tl_status validate_launch(const tl_kernel_table *t, uint32_t li) {
  const tl_kernel_launch *l = &t->launches[li];
  if (!l->symbol || !*l->symbol) return BAD("launch %u has no symbol", li);
  if (l->nargs && !l->args) return BAD("launch '%s' has %u arguments but no argument array", l->symbol, l->nargs);
  for (uint32_t a = 0; a < l->nargs; a++) {
    const tl_kernel_arg *arg = &l->args[a];
    switch (arg->kind) {
    case TL_KARG_TENSOR:
    case TL_KARG_SCALAR:
      if (arg->index >= t->nparams)
        return BAD("launch '%s' argument %u refers to parameter %u of %u", l->symbol, a, arg->index, t->nparams);
      if (t->params[arg->index].is_tensor != (arg->kind == TL_KARG_TENSOR))
        return BAD("launch '%s' argument %u passes parameter '%s' as a %s", l->symbol, a, t->params[arg->index].name,
                   arg->kind == TL_KARG_TENSOR ? "tensor" : "scalar");
      break;
    case TL_KARG_SYM:
      if (arg->index >= t->nsyms)
        return BAD("launch '%s' argument %u refers to symbolic dim %u of %u", l->symbol, a, arg->index, t->nsyms);
      break;
    default:
      return BAD("launch '%s' argument %u has unknown kind %d", l->symbol, a, (int)arg->kind);
    }
    if (!dtype_known(arg->dtype)) return BAD("launch '%s' argument %u has an unknown dtype", l->symbol, a);
  }
  static const char *const axis[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; d++) {
    if (!tl__launch_expr_valid(&l->grid[d], t->nsyms))
      return BAD("launch '%s' grid.%s is not a well-formed launch expression", l->symbol, axis[d]);
    if (!tl__launch_expr_valid(&l->block[d], t->nsyms))
      return BAD("launch '%s' block.%s is not a well-formed launch expression", l->symbol, axis[d]);
  }
  if (!tl__launch_expr_valid(&l->dyn_shared_bytes, t->nsyms))
    return BAD("launch '%s' dynamic shared memory is not a well-formed launch expression", l->symbol);
  return TL_OK;
}

tl_status tl__kernel_table_validate(const tl_kernel_table *t) {
  if (!t) return tl__error(TL_EINVAL, "kernel table must not be NULL");
  if (!t->entry || !*t->entry) return BAD("no entry symbol");
  TL__TRY(validate_params(t));
  TL__TRY(validate_syms(t));
  if (t->nlaunches && !t->launches) return BAD("%u launches but no launch array", t->nlaunches);
  for (uint32_t i = 0; i < t->nlaunches; i++) TL__TRY(validate_launch(t, i));
  return TL_OK;
}

/* ------------------------------------------------------------------- copy */

tl_status tl_kernel_table_copy(const tl_kernel_table *t, tl_kernel_table **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_kernel_table_copy: out must not be NULL");
  *out = NULL;
  TL__TRY(tl__kernel_table_validate(t));
  return tl__kernel_table_pack(t, out);
}
