/* Shared handling of a kernel file and its --param/--func options. */
#include "kernel_args.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

void tlc_kernel_args_init(tlc_kernel_args *ka) { memset(ka, 0, sizeof *ka); }

void tlc_kernel_args_free(tlc_kernel_args *ka) {
  for (size_t i = 0; i < ka->nparams; i++) tl__free((char *)ka->params[i].name);
  tl__free(ka->params);
  for (size_t i = 0; i < ka->ndims; i++) tl__free((char *)ka->dims[i].name);
  tl__free(ka->dims);
  memset(ka, 0, sizeof *ka);
}

static bool is_identifier(const char *s, size_t n) {
  if (n == 0 || (s[0] >= '0' && s[0] <= '9')) return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

/* Adds K=V; the name is copied (it ends at '='), the value points into argv. */
static int add_param(tlc_kernel_args *ka, const tlc_command *cmd, const char *kv) {
  const char *eq = kv ? strchr(kv, '=') : NULL;
  if (!eq) return -tlc_usage_error(cmd, "--param needs K=V, got '%s'", kv ? kv : "");
  size_t n = (size_t)(eq - kv);
  if (!is_identifier(kv, n)) return -tlc_usage_error(cmd, "--param: '%.*s' is not a name", (int)n, kv);
  for (size_t i = 0; i < ka->nparams; i++)
    if (strlen(ka->params[i].name) == n && strncmp(ka->params[i].name, kv, n) == 0)
      return -tlc_usage_error(cmd, "--param %.*s is given twice", (int)n, kv);
  if (ka->nparams == ka->cap) {
    size_t cap = ka->cap ? ka->cap * 2 : 8;
    tl_ir_const_binding *p = tl__realloc(ka->params, cap * sizeof *p);
    if (!p) {
      fprintf(stderr, "tlc: out of memory\n");
      return -TLC_USAGE;
    }
    ka->params = p;
    ka->cap = cap;
  }
  char *name = tl__malloc(n + 1);
  if (!name) {
    fprintf(stderr, "tlc: out of memory\n");
    return -TLC_USAGE;
  }
  memcpy(name, kv, n);
  name[n] = '\0';
  ka->params[ka->nparams].name = name;
  ka->params[ka->nparams].value = eq + 1;
  ka->nparams++;
  return 1;
}

/* Adds N=V of --dim; the name is copied, the value points into argv. */
static int add_dim(tlc_kernel_args *ka, const tlc_command *cmd, const char *kv) {
  const char *eq = kv ? strchr(kv, '=') : NULL;
  if (!eq || eq == kv) return -tlc_usage_error(cmd, "--dim needs N=V, got '%s'", kv ? kv : "");
  size_t n = (size_t)(eq - kv);
  if (ka->ndims == ka->dims_cap) {
    size_t cap = ka->dims_cap ? ka->dims_cap * 2 : 8;
    tlc_dim_binding *p = tl__realloc(ka->dims, cap * sizeof *p);
    if (!p) {
      fprintf(stderr, "tlc: out of memory\n");
      return -TLC_USAGE;
    }
    ka->dims = p;
    ka->dims_cap = cap;
  }
  char *name = tl__malloc(n + 1);
  if (!name) {
    fprintf(stderr, "tlc: out of memory\n");
    return -TLC_USAGE;
  }
  memcpy(name, kv, n);
  name[n] = '\0';
  ka->dims[ka->ndims++] = (tlc_dim_binding){name, eq + 1};
  return 1;
}

int tlc_kernel_args_take(tlc_kernel_args *ka, tlc_args *a) {
  const char *value = NULL;
  bool missing = false;
  if (tlc_args_value(a, "--dim", &value, &missing)) {
    if (missing) return -tlc_usage_error(a->cmd, "--dim needs N=V");
    return add_dim(ka, a->cmd, value);
  }
  if (tlc_args_value(a, "--param", &value, &missing)) {
    if (missing) return -tlc_usage_error(a->cmd, "--param needs K=V");
    return add_param(ka, a->cmd, value);
  }
  if (tlc_args_value(a, "--func", &value, &missing)) {
    if (missing || !value[0]) return -tlc_usage_error(a->cmd, "--func needs a function name");
    if (ka->func) return -tlc_usage_error(a->cmd, "--func is given twice");
    ka->func = value;
    return 1;
  }
  const char *arg = tlc_args_peek(a);
  if (!arg || (arg[0] == '-' && arg[1] != '\0')) return 0;
  if (ka->file) return -tlc_usage_error(a->cmd, "more than one file given ('%s' and '%s')", ka->file, arg);
  ka->file = arg;
  a->i++;
  return 1;
}

int tlc_kernel_args_check(const tlc_kernel_args *ka, const tlc_command *cmd) {
  if (!ka->file) return tlc_usage_error(cmd, "missing kernel file");
  return TLC_OK;
}

/* Each --dim names a dimension or scalar of f, or of some function when f is NULL. */
static int check_dims(const tlc_kernel_args *ka, const tl_ir_module *mod, const tl_ir_func *f) {
  for (size_t i = 0; i < ka->ndims; i++) {
    tl_status s = TL_EINVAL;
    size_t n = f ? 1 : tl_ir_module_num_funcs(mod);
    for (size_t j = 0; j < n && s != TL_OK; j++) s = tlc_kernel_io_check_dims(f ? f : tl_ir_module_func(mod, j), &ka->dims[i], 1);
    if (s == TL_OK) continue;
    if (!f && n != 1) {
      fprintf(stderr, "tlc: --dim %s: no function of %s has a symbolic dimension or scalar parameter named so\n",
              ka->dims[i].name, ka->file);
      return TLC_FAIL;
    }
    return tlc_fail();
  }
  return TLC_OK;
}

int tlc_kernel_args_load(const tlc_kernel_args *ka, tl_ir_module **mod, tl_ir_func **func) {
  tl_ir_parse_options opts = {sizeof opts, ka->params, ka->nparams, ka->func, false};
  *mod = NULL;
  if (func) *func = NULL;
  if (tl_ir_parse_file(ka->file, &opts, mod) != TL_OK) return tlc_fail();
  if (!ka->func) {
    int rc = check_dims(ka, *mod, NULL);
    if (rc != TLC_OK) {
      tl_ir_module_free(*mod);
      *mod = NULL;
    }
    return rc;
  }
  tl_ir_func *f = tl_ir_module_find_func(*mod, ka->func);
  if (!f) {
    size_t n = tl_ir_module_num_funcs(*mod);
    fprintf(stderr, "tlc: %s has no function '%s' (", ka->file, ka->func);
    if (n == 0) fprintf(stderr, "it defines none");
    for (size_t i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? ", " : "functions: ", tl_ir_module_func(*mod, i)->name);
    fprintf(stderr, ")\n");
    tl_ir_module_free(*mod);
    *mod = NULL;
    return TLC_FAIL;
  }
  if (check_dims(ka, *mod, f) != TLC_OK) {
    tl_ir_module_free(*mod);
    *mod = NULL;
    return TLC_FAIL;
  }
  if (func) *func = f;
  return TLC_OK;
}

int tlc_kernel_args_load_one(const tlc_kernel_args *ka, tl_ir_module **mod, tl_ir_func **func) {
  int rc = tlc_kernel_args_load(ka, mod, func);
  if (rc != TLC_OK || *func) return rc;
  size_t n = tl_ir_module_num_funcs(*mod);
  if (n == 1) {
    *func = tl_ir_module_func(*mod, 0);
    return TLC_OK;
  }
  if (n == 0) fprintf(stderr, "tlc: %s defines no kernel function\n", ka->file);
  else {
    fprintf(stderr, "tlc: %s defines %zu functions; choose one with --func (", ka->file, n);
    for (size_t i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? ", " : "", tl_ir_module_func(*mod, i)->name);
    fprintf(stderr, ")\n");
  }
  tl_ir_module_free(*mod);
  *mod = NULL;
  return TLC_FAIL;
}
