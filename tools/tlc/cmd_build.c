/* tlc build FILE -o DIR: ahead-of-time compilation of one function into a shared
 * library, a C header and the generated sources (tl_export). */
#include <stdio.h>
#include <stdlib.h>

#include "compile_args.h"
#include "kernel_args.h"
#include "tilelang/engine.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_build_usage[];
int tlc_build_run(int argc, char **argv);

const char tlc_build_usage[] =
    "usage: tlc build FILE -o DIR [--func NAME] [--param K=V]... [--dim N=V]... [--target T] [options]\n"
    "\n"
    "Compiles one function of FILE ahead of time and writes into DIR (created if\n"
    "missing):\n"
    "  lib<func>.so              the shared library (built by the execution backend,\n"
    "                            which must produce one: native)\n"
    "  <func>.h                  declares the packed entry <func>(args, nargs, stream,\n"
    "                            err, errcap) and a typed wrapper <func>_call(...)\n"
    "  <func>_device.c, <func>_host.c   the generated sources\n"
    "  <func>.kernel_table.json  parameters, symbolic dims and launches\n"
    "\n"
    "  -o, --output DIR        the output directory\n" TLC_KERNEL_ARGS_USAGE TLC_COMPILE_ARGS_USAGE
    "\n"
    "Exit status: 0 success, 1 an error, 2 usage error.\n";

int tlc_build_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("build");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  tlc_kernel_args ka;
  tlc_compile_args ca;
  tlc_kernel_args_init(&ka);
  tlc_compile_args_init(&ca);
  const char *dir = NULL;
  int rc = TLC_OK;
  while (rc == TLC_OK && !tlc_args_done(&a)) {
    const char *v = NULL;
    bool missing = false;
    if (tlc_args_value(&a, "-o", &v, &missing) || tlc_args_value(&a, "--output", &v, &missing)) {
      if (missing || !v || !*v) rc = tlc_usage_error(cmd, "-o needs a directory");
      else if (dir) rc = tlc_usage_error(cmd, "-o is given twice");
      else dir = v;
      continue;
    }
    int r = tlc_kernel_args_take(&ka, &a);
    if (r == 0) r = tlc_compile_args_take(&ca, &a);
    if (r == 0) r = -tlc_usage_error(cmd, "unknown option '%s'", tlc_args_peek(&a));
    if (r < 0) rc = -r;
  }
  if (rc == TLC_OK) rc = tlc_kernel_args_check(&ka, cmd);
  if (rc == TLC_OK && !dir) rc = tlc_usage_error(cmd, "missing -o DIR");
  tl_ir_module *mod = NULL;
  tl_ir_func *f = NULL;
  if (rc == TLC_OK) rc = tlc_kernel_args_load_one(&ka, &mod, &f);
  if (rc == TLC_OK) {
    tl_compile_options opts;
    tlc_compile_args_options(&ca, &opts);
    if (tl_export(mod, f->name, &opts, dir) != TL_OK) rc = tlc_fail();
    else printf("%s: exported to %s\n", f->name, dir);
  }
  tl_ir_module_free(mod);
  tlc_compile_args_free(&ca);
  tlc_kernel_args_free(&ka);
  return rc;
}
