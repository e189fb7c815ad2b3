/* tlc lower FILE: runs the backend's pipeline on one function and prints the lowered
 * module (host entry and device kernels) in TileLang-script style. */
#include <stdio.h>
#include <stdlib.h>

#include "compile_args.h"
#include "engine/engine_internal.h"
#include "kernel_args.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_lower_usage[];
int tlc_lower_run(int argc, char **argv);

const char tlc_lower_usage[] =
    "usage: tlc lower FILE [--func NAME] [--param K=V]... [--dim N=V]... [--target T] [options]\n"
    "\n"
    "Resolves the backend context for the target, then runs the semantic check and\n"
    "the backend's lowering pipeline on one function of FILE and prints the lowered\n"
    "module: the host entry (argument checks, launches) and the device kernels.\n"
    "Instrumentation (--time-passes, --print-after-all, --print-after, and\n"
    "TL_LOWER_TRACE=1) writes to stderr.\n"
    "\n" TLC_KERNEL_ARGS_USAGE TLC_COMPILE_ARGS_USAGE
    "\n"
    "Exit status: 0 success, 1 a parse, resolution or lowering error, 2 usage error.\n";

int tlc_lower_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("lower");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  tlc_kernel_args ka;
  tlc_compile_args ca;
  tlc_kernel_args_init(&ka);
  tlc_compile_args_init(&ca);
  int rc = TLC_OK;
  while (rc == TLC_OK && !tlc_args_done(&a)) {
    int r = tlc_kernel_args_take(&ka, &a);
    if (r == 0) r = tlc_compile_args_take(&ca, &a);
    if (r == 0) r = -tlc_usage_error(cmd, "unknown option '%s'", tlc_args_peek(&a));
    if (r < 0) rc = -r;
  }
  if (rc == TLC_OK) rc = tlc_kernel_args_check(&ka, cmd);
  tl_ir_module *mod = NULL;
  tl_ir_func *f = NULL;
  if (rc == TLC_OK) rc = tlc_kernel_args_load_one(&ka, &mod, &f);
  if (rc == TLC_OK) {
    tl_compile_options opts;
    tlc_compile_args_options(&ca, &opts);
    tl_backend_context *ctx = NULL;
    tl__lowered l;
    if (tl__engine_context(&opts, &ctx) != TL_OK || tl__engine_lower(mod, f, &opts, ctx, false, &l) != TL_OK) {
      rc = tlc_fail();
    } else {
      char *text = tl_ir_print_module(l.mod);
      if (!text) rc = tlc_fail();
      else fputs(text, stdout);
      tl_free(text);
      tl__lowered_free(&l);
    }
    tl_backend_context_release(ctx);
  }
  tl_ir_module_free(mod);
  tlc_compile_args_free(&ca);
  tlc_kernel_args_free(&ka);
  return rc;
}
