/* tlc interp: runs a kernel file's function with the reference interpreter on
 * seeded random inputs and prints a checksum line per output. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"
#include "kernel_args.h"
#include "kernel_io.h"
#include "tilelang/ir.h"
#include "tlc.h"

/* Listed in commands.c. */
extern const char tlc_interp_usage[];
int tlc_interp_run(int argc, char **argv);

const char tlc_interp_usage[] =
    "usage: tlc interp [--param K=V]... [--func NAME] [--dim N=V]... [--seed S] FILE\n"
    "\n"
    "Runs a function of FILE (TileLang script) with the reference interpreter on\n"
    "seeded random inputs and prints one line per output:\n"
    "  NAME DTYPE[SHAPE] sum=S abssum=A hash=H\n"
    "\n"
    TLC_KERNEL_ARGS_USAGE
    "                (--func is needed when FILE defines several functions)\n"
    "                (--dim: integer dimensions default to 1000, float scalars to a\n"
    "                seeded random value, bool scalars to true)\n"
    "  --seed S      seed of the random inputs (default 0)\n"
    "\n"
    "Inputs are uniform in [-1, 1] for floats and small integers otherwise; outputs\n"
    "the function only writes start as NaN (0xA5 bytes for integers), so elements it\n"
    "never writes show up.\n"
    "\n"
    "Exit status: 0 success, 1 a parse, argument or interpreter error (on stderr),\n"
    "2 usage error.\n";

/* Consumes --seed at the iterator: 1 if taken, 0 if not ours, or
 * -TLC_USAGE after a usage error. */
static int take_option(tlc_args *a, uint64_t *seed) {
  const char *v = NULL;
  bool missing = false;
  if (tlc_args_value(a, "--seed", &v, &missing)) {
    char *end = NULL;
    errno = 0;
    unsigned long long s = missing || !v || v[0] == '-' ? 0 : strtoull(v, &end, 0);
    if (missing || !v || v[0] == '-' || errno || end == v || *end)
      return -tlc_usage_error(a->cmd, "--seed needs a non-negative integer");
    *seed = s;
    return 1;
  }
  return 0;
}

int tlc_interp_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("interp");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  tlc_kernel_args ka;
  tlc_kernel_args_init(&ka);
  uint64_t seed = 0;
  int rc = TLC_OK;
  while (!tlc_args_done(&a) && rc == TLC_OK) {
    int r = take_option(&a, &seed);
    if (r == 0) r = tlc_kernel_args_take(&ka, &a);
    if (r < 0) rc = -r;
    else if (r == 0) rc = tlc_usage_error(cmd, "unknown option '%s'", tlc_args_peek(&a));
  }
  if (rc == TLC_OK) rc = tlc_kernel_args_check(&ka, cmd);
  tl_ir_module *mod = NULL;
  tl_ir_func *f = NULL;
  tlc_kernel_io *io = NULL;
  if (rc == TLC_OK) rc = tlc_kernel_args_load_one(&ka, &mod, &f);
  if (rc == TLC_OK) {
    if (tlc_kernel_io_create(mod, f, ka.dims, ka.ndims, TLC_DEFAULT_DIM, seed, &io) != TL_OK) {
      rc = tlc_fail();
    } else {
      tlc_kernel_io_fill(io, seed);
      if (tl_ir_interpret(mod, f->name, io->args, (int)io->n) != TL_OK) rc = tlc_fail();
      else tlc_kernel_io_print_checksums(io, stdout);
    }
  }
  tlc_kernel_io_free(io);
  tl_ir_module_free(mod);
  tlc_kernel_args_free(&ka);
  return rc;
}
