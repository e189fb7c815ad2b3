/* tlc source FILE [--host]: the generated device source of one function, or with
 * --host the generated host source. */
#include <stdio.h>
#include <stdlib.h>

#include "compile_args.h"
#include "engine/engine_internal.h"
#include "kernel_args.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_source_usage[];
int tlc_source_run(int argc, char **argv);

const char tlc_source_usage[] =
    "usage: tlc source FILE [--host] [--func NAME] [--param K=V]... [--dim N=V]... [--target T] [options]\n"
    "\n"
    "Lowers one function of FILE and prints the code the backend generates for it:\n"
    "the device code (for the c target, C source), or with --host the host code\n"
    "(the packed entry that checks arguments and launches the device code). Nothing\n"
    "is compiled or run.\n"
    "\n"
    "  --host                  print the host source instead of the device source\n" TLC_KERNEL_ARGS_USAGE
        TLC_COMPILE_ARGS_USAGE
    "\n"
    "Exit status: 0 success, 1 an error (or no host code for --host), 2 usage error.\n";

int tlc_source_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("source");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  tlc_kernel_args ka;
  tlc_compile_args ca;
  tlc_kernel_args_init(&ka);
  tlc_compile_args_init(&ca);
  bool host = false;
  int rc = TLC_OK;
  while (rc == TLC_OK && !tlc_args_done(&a)) {
    if (tlc_args_flag(&a, "--host")) {
      host = true;
      continue;
    }
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
    if (tl__engine_context(&opts, &ctx) != TL_OK || tl__engine_lower(mod, f, &opts, ctx, true, &l) != TL_OK) {
      rc = tlc_fail();
    } else {
      const tl_artifact *art = host ? l.host : l.device;
      if (!art) {
        fprintf(stderr, "tlc: execution backend '%s' of backend '%s' generates no %s code\n",
                tl_backend_context_execution_backend(ctx)->name, tl_backend_context_name(ctx),
                host ? "host" : "device");
        rc = TLC_FAIL;
      } else {
        fputs(tl_artifact_source(art), stdout);
      }
      tl__lowered_free(&l);
    }
    tl_backend_context_release(ctx);
  }
  tl_ir_module_free(mod);
  tlc_compile_args_free(&ca);
  tlc_kernel_args_free(&ka);
  return rc;
}
