/* tlc interp: runs a kernel file's function with the reference interpreter on
 * seeded random inputs and prints a checksum line per output. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"
#include "kernel_io.h"
#include "tilelang/ir.h"
#include "tlc.h"

/* Listed in commands.c. */
extern const char tlc_interp_usage[];
int tlc_interp_run(int argc, char **argv);

const char tlc_interp_usage[] =
    "usage: tlc interp FILE [--func NAME] [--param K=V ...] [--dim N=V ...] [--seed S]\n"
    "\n"
    "Runs a function of FILE (TileLang script) with the reference interpreter on\n"
    "seeded random inputs and prints one line per output:\n"
    "  NAME DTYPE[SHAPE] sum=S abssum=A hash=H\n"
    "\n"
    "  --func NAME    the function to run (needed when FILE defines several)\n"
    "  --param K=V    binds a compile-time constant of a factory or jit function\n"
    "                 (integer, float, True/False, string or dtype name); unbound\n"
    "                 constants take their defaults\n"
    "  --dim N=V      value of a symbolic dimension or scalar parameter N\n"
    "                 (integer dimensions default to 1000, float scalars to a\n"
    "                 seeded random value, bool scalars to true)\n"
    "  --seed S       seed of the random inputs (default 0)\n"
    "\n"
    "Inputs are uniform in [-1, 1] for floats and small integers otherwise; outputs\n"
    "the function only writes start as NaN (0xA5 bytes for integers), so elements it\n"
    "never writes show up. Exit status 1 with the interpreter's message on failure.\n";

/* Splits "K=V" (pointing into arg). */
static bool split_binding(char *arg, const char **k, const char **v) {
  char *eq = strchr(arg, '=');
  if (!eq || eq == arg) return false;
  *eq = '\0';
  *k = arg;
  *v = eq + 1;
  return true;
}

/* The function to run: --func, else the module's only function. */
static const tl_ir_func *pick_func(const tl_ir_module *mod, const char *file, const char *name) {
  if (name) {
    const tl_ir_func *f = tl_ir_module_find_func(mod, name);
    if (!f) tl__error(TL_ENOTFOUND, "%s defines no function '%s'", file, name);
    return f;
  }
  size_t n = tl_ir_module_num_funcs(mod);
  if (n == 1) return tl_ir_module_func(mod, 0);
  if (n == 0) {
    tl__error(TL_EINVAL, "%s defines no kernel function", file);
    return NULL;
  }
  /* Several: name them. */
  char list[512] = "";
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", tl_ir_module_func(mod, i)->name);
  }
  tl__error(TL_EINVAL, "%s defines several functions (%s); choose one with --func", file, list);
  return NULL;
}

int tlc_interp_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("interp");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  const char *file = NULL, *func = NULL;
  uint64_t seed = 0;
  tl__vec params = TL__VEC_INIT(tl_ir_const_binding), dims = TL__VEC_INIT(tlc_dim_binding);
  int rc = TLC_OK;
  while (!tlc_args_done(&a) && rc == TLC_OK) {
    const char *v = NULL;
    bool missing = false;
    if (tlc_args_value(&a, "--func", &v, &missing)) {
      if (missing) rc = tlc_usage_error(cmd, "--func needs a function name");
      else func = v;
    } else if (tlc_args_value(&a, "--param", &v, &missing)) {
      const char *k, *val;
      if (missing || !split_binding((char *)v, &k, &val)) rc = tlc_usage_error(cmd, "--param needs K=V");
      else if (tl__vec_push(&params, &(tl_ir_const_binding){k, val}) != TL_OK) rc = tlc_fail();
    } else if (tlc_args_value(&a, "--dim", &v, &missing)) {
      const char *k, *val;
      if (missing || !split_binding((char *)v, &k, &val)) rc = tlc_usage_error(cmd, "--dim needs N=V");
      else if (tl__vec_push(&dims, &(tlc_dim_binding){k, val}) != TL_OK) rc = tlc_fail();
    } else if (tlc_args_value(&a, "--seed", &v, &missing)) {
      char *end;
      errno = 0;
      unsigned long long s = missing || !v ? 0 : strtoull(v, &end, 0);
      if (missing || !v || v[0] == '-' || errno || end == v || *end)
        rc = tlc_usage_error(cmd, "--seed needs a non-negative integer");
      else seed = s;
    } else {
      const char *arg = tlc_args_peek(&a);
      if (arg[0] == '-' && arg[1]) rc = tlc_usage_error(cmd, "unknown option '%s'", arg);
      else if (file) rc = tlc_usage_error(cmd, "unexpected argument '%s'", arg);
      else file = arg;
      a.i++;
    }
  }
  if (rc == TLC_OK && !file) rc = tlc_usage_error(cmd, "missing FILE");
  tl_ir_module *mod = NULL;
  tlc_kernel_io *io = NULL;
  if (rc == TLC_OK) {
    tl_ir_parse_options opts = {sizeof opts, params.data, params.len};
    const tl_ir_func *f = NULL;
    if (tl_ir_parse_file(file, &opts, &mod) != TL_OK || !(f = pick_func(mod, file, func)) ||
        tlc_kernel_io_create(mod, f, dims.data, dims.len, TLC_DEFAULT_DIM, seed, &io) != TL_OK) {
      rc = tlc_fail();
    } else {
      tlc_kernel_io_fill(io, seed);
      if (tl_ir_interpret(mod, f->name, io->args, (int)io->n) != TL_OK) rc = tlc_fail();
      else tlc_kernel_io_print_checksums(io, stdout);
    }
  }
  tlc_kernel_io_free(io);
  tl_ir_module_free(mod);
  tl__vec_free(&params);
  tl__vec_free(&dims);
  return rc;
}
