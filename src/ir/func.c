/* Functions: creation, parameters and attributes. Parameter and attribute arrays
 * live in the module's arena and are copied on growth (they are short). */
#include <string.h>

#include "base/error.h"
#include "base/str.h"
#include "base/vec.h"
#include "module.h"

tl_status tl_ir_func_new(tl_ir_module *mod, const char *name, tl_ir_func **out) {
  *out = NULL;
  if (!name || !*name) return tl__ir_fail(mod, tl__error(TL_EINVAL, "tl_ir_func_new: a function needs a name"));
  if (tl_ir_module_find_func(mod, name))
    return tl__ir_fail(mod, tl__error(TL_EINVAL, "function '%s' is already defined in the module", name));
  tl_ir_func *f = tl__ir_alloc(mod, sizeof *f);
  if (!f) return TL_ENOMEM;
  f->name = tl__ir_intern(mod, name);
  if (!f->name) return TL_ENOMEM;
  f->callconv = TL_CALLCONV_DEFAULT;
  f->span = mod->loc;
  if (tl__vec_push(&mod->funcs, &f) != TL_OK) return tl__ir_fail(mod, TL_ENOMEM);
  *out = f;
  return TL_OK;
}

/* Appends a parameter (the array is copied into a larger one). */
static tl_status push_param(tl_ir_module *mod, tl_ir_func *f, tl_ir_param p) {
  tl_ir_param *a = tl__ir_alloc(mod, sizeof *a * (f->nparams + 1));
  if (!a) return TL_ENOMEM;
  if (f->nparams) memcpy(a, f->params, sizeof *a * f->nparams);
  a[f->nparams] = p;
  f->params = a;
  f->nparams++;
  return TL_OK;
}

tl_status tl_ir_func_add_buffer_param(tl_ir_module *mod, tl_ir_func *f, tl_ir_buffer *buf, bool is_output) {
  if (!f) return tl__ir_null_status(mod, "tl_ir_func_add_buffer_param: function is NULL");
  if (!buf) return tl__ir_null_status(mod, "tl_ir_func_add_buffer_param: buffer is NULL");
  return push_param(mod, f, (tl_ir_param){TL_PARAM_BUFFER, buf->name, buf->data, buf, is_output});
}

tl_status tl_ir_func_add_scalar_param(tl_ir_module *mod, tl_ir_func *f, tl_ir_var *var) {
  if (!f) return tl__ir_null_status(mod, "tl_ir_func_add_scalar_param: function is NULL");
  if (!var) return tl__ir_null_status(mod, "tl_ir_func_add_scalar_param: variable is NULL");
  return push_param(mod, f, (tl_ir_param){TL_PARAM_SCALAR, var->name, var, NULL, false});
}

/* Sets key, replacing an existing entry in place or appending a new one. */
static tl_status set_attr(tl_ir_module *mod, tl_ir_func *f, tl_ir_attr a) {
  for (uint32_t i = 0; i < f->nattrs; i++) {
    if (strcmp(f->attrs[i].key, a.key) == 0) {
      a.key = f->attrs[i].key;
      f->attrs[i] = a;
      return TL_OK;
    }
  }
  const char *k = tl__ir_intern(mod, a.key);
  tl_ir_attr *arr = k ? tl__ir_alloc(mod, sizeof *arr * (f->nattrs + 1)) : NULL;
  if (!arr) return TL_ENOMEM;
  if (f->nattrs) memcpy(arr, f->attrs, sizeof *arr * f->nattrs);
  a.key = k;
  arr[f->nattrs] = a;
  f->attrs = arr;
  f->nattrs++;
  return TL_OK;
}

tl_status tl_ir_func_set_attr_str(tl_ir_module *mod, tl_ir_func *f, const char *key, const char *value) {
  if (!f || !key || !value) return tl__error(TL_EINVAL, "tl_ir_func_set_attr_str: function, key and value must not be NULL");
  const char *v = tl__ir_intern(mod, value);
  if (!v) return TL_ENOMEM;
  return set_attr(mod, f, (tl_ir_attr){key, TL_ATTR_STR, 0, v});
}

tl_status tl_ir_func_set_attr_int(tl_ir_module *mod, tl_ir_func *f, const char *key, int64_t value) {
  if (!f || !key) return tl__error(TL_EINVAL, "tl_ir_func_set_attr_int: function and key must not be NULL");
  return set_attr(mod, f, (tl_ir_attr){key, TL_ATTR_INT, value, NULL});
}

const tl_ir_attr *tl_ir_func_attr(const tl_ir_func *f, const char *key) {
  for (uint32_t i = 0; f && key && i < f->nattrs; i++)
    if (strcmp(f->attrs[i].key, key) == 0) return &f->attrs[i];
  return NULL;
}
