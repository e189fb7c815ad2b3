/* Options shared by the tlc subcommands that work on a kernel file (parse, check,
 * interp, lower, source, build, run): `--param K=V` (repeatable) binds a factory's
 * or jit function's compile-time constant (a T.const dim too), `--dim N=V`
 * (repeatable) a run-time dimension or scalar parameter, `--func NAME` selects one
 * function of the file. Every command takes all three, so one command line works
 * for all of them; those that do not run the kernel still check that each --dim
 * names something. */
#ifndef TLC_KERNEL_ARGS_H
#define TLC_KERNEL_ARGS_H

#include <stddef.h>

#include "kernel_io.h"
#include "tilelang/ir.h"
#include "tlc.h"

typedef struct tlc_kernel_args {
  const char *file;             /* the kernel file (positional) */
  const char *func;             /* --func NAME, or NULL */
  tl_ir_const_binding *params;  /* --param K=V, in order (strings point into argv) */
  size_t nparams, cap;
  tlc_dim_binding *dims;        /* --dim N=V, in order (names copied, values in argv) */
  size_t ndims, dims_cap;
} tlc_kernel_args;

/* Usage text for the options, to include in a command's usage. */
#define TLC_KERNEL_ARGS_USAGE                                                               \
  "  --param K=V   bind compile-time constant K of a factory or @tilelang.jit function\n" \
  "                (or a module-level constant) to the Python literal V; repeatable.\n"   \
  "                Unbound constants take their defaults; one without a default is an\n" \
  "                error naming it.\n"                                                    \
  "  --dim N=V     value of run-time dimension or scalar parameter N (commands that\n"  \
  "                run the kernel use it; the others check that N exists); repeatable\n" \
  "  --func NAME   work on function NAME only (the file's other factories and jit\n"  \
  "                functions are not evaluated, as Python runs them only when called)\n"

void tlc_kernel_args_init(tlc_kernel_args *ka);
void tlc_kernel_args_free(tlc_kernel_args *ka);

/* Consumes one option of the group (--param, --dim, --func) or the file name at the
 * iterator. Returns 1 if it consumed something, 0 if the argument is not theirs
 * (another option), or TLC_USAGE's negation (-2) after printing a usage error. */
int tlc_kernel_args_take(tlc_kernel_args *ka, tlc_args *a);
/* After the arguments: the file must have been given. Returns TLC_OK or prints a
 * usage error and returns TLC_USAGE. */
int tlc_kernel_args_check(const tlc_kernel_args *ka, const tlc_command *cmd);

/* Parses the file with the bindings. With --func, only that function is
 * elaborated and *func is it (an error if absent); without, *func is NULL. Each
 * --dim must name a dimension or scalar of *func (without --func: of some
 * function). func may be NULL when the caller does
 * not need it. Returns TLC_OK or prints the error and returns TLC_FAIL. On success
 * the caller frees *mod. */
int tlc_kernel_args_load(const tlc_kernel_args *ka, tl_ir_module **mod, tl_ir_func **func);
/* Like load, but always gives one function: --func's, or the file's only one
 * (an error naming the choices when it has several). */
int tlc_kernel_args_load_one(const tlc_kernel_args *ka, tl_ir_module **mod, tl_ir_func **func);

#endif
