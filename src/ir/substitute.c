/* Variable substitution, built on the mutator: every TL_EXPR_VAR naming vars[i]
 * becomes values[i] (the same node at every use). Definitions (loop and let
 * variables, kernel bindings) and buffer shapes are left as they are. */
#include "base/error.h"
#include "module.h"

typedef struct subst {
  uint32_t n;
  tl_ir_var *const *vars;
  tl_ir_expr *const *values;
} subst;

static tl_ir_expr *subst_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  const subst *sb = mu->ctx;
  if (e->kind == TL_EXPR_VAR) {
    for (uint32_t i = 0; i < sb->n; i++)
      if (sb->vars[i] == e->u.var) return sb->values[i];
    return e;
  }
  return tl_ir_mutate_expr_children(mu, e);
}

/* Checks the arguments; TL_OK or the status to return with NULL. */
static tl_status check_args(tl_ir_module *mod, uint32_t n, tl_ir_var *const *vars, tl_ir_expr *const *values) {
  if (n && (!vars || !values)) return tl__error(TL_EINVAL, "tl_ir_substitute: vars and values must not be NULL");
  for (uint32_t i = 0; i < n; i++) {
    if (!vars[i]) return tl__error(TL_EINVAL, "tl_ir_substitute: vars[%u] is NULL", (unsigned)i);
    if (!values[i]) return tl__ir_null_status(mod, "tl_ir_substitute: a replacement value is NULL");
  }
  return TL_OK;
}

tl_ir_stmt *tl_ir_substitute_stmt(tl_ir_module *mod, tl_ir_stmt *s, uint32_t n, tl_ir_var *const *vars,
                                  tl_ir_expr *const *values) {
  if (!s) return NULL;
  if (check_args(mod, n, vars, values) != TL_OK) return NULL;
  if (n == 0) return s;
  subst sb = {n, vars, values};
  tl_ir_mutator mu = {mod, subst_expr, NULL, &sb, TL_OK};
  return tl_ir_mutate_stmt(&mu, s);
}

tl_ir_expr *tl_ir_substitute_expr(tl_ir_module *mod, tl_ir_expr *e, uint32_t n, tl_ir_var *const *vars,
                                  tl_ir_expr *const *values) {
  if (!e) return NULL;
  if (check_args(mod, n, vars, values) != TL_OK) return NULL;
  if (n == 0) return e;
  subst sb = {n, vars, values};
  tl_ir_mutator mu = {mod, subst_expr, NULL, &sb, TL_OK};
  return tl_ir_mutate_expr(&mu, e);
}
