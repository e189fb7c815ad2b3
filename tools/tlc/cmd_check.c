/* tlc check FILE: parses a TileLang kernel file and runs the IR verifier on it. */
#include <stdio.h>

#include "kernel_args.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_check_usage[];
int tlc_check_run(int argc, char **argv);

const char tlc_check_usage[] =
  "usage: tlc check [--param K=V]... [--dim N=V]... [--func NAME] FILE\n"
  "\n"
  "Reads FILE (TileLang's Python DSL, the subset described in docs/frontend.md) and\n"
  "verifies the IR of its kernel functions: operand types, variables defined before\n"
  "use, buffer ranks, scopes, tile-op conventions. Prints one line per function.\n"
  "\n"
  TLC_KERNEL_ARGS_USAGE
  "\n"
  "Exit status: 0 every function is valid, 1 a parse or verification error (on\n"
  "stderr, located in the file), 2 usage error.\n";

int tlc_check_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("check");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  tlc_kernel_args ka;
  tlc_kernel_args_init(&ka);
  int rc = TLC_OK;
  while (!tlc_args_done(&a)) {
    int r = tlc_kernel_args_take(&ka, &a);
    if (r < 0) {
      rc = -r;
      goto done;
    }
    if (r == 0) {
      rc = tlc_usage_error(cmd, "unknown option '%s'", tlc_args_peek(&a));
      goto done;
    }
  }
  if ((rc = tlc_kernel_args_check(&ka, cmd)) != TLC_OK) goto done;
  tl_ir_module *mod = NULL;
  tl_ir_func *f = NULL;
  if ((rc = tlc_kernel_args_load(&ka, &mod, &f)) != TLC_OK) goto done;
  size_t n = tl_ir_module_num_funcs(mod);
  for (size_t i = 0; i < n && rc == TLC_OK; i++) {
    tl_ir_func *g = tl_ir_module_func(mod, i);
    if (f && g != f) continue;
    if (tl_ir_verify_func(g) != TL_OK) rc = tlc_fail();
    else printf("%s: %s: ok\n", ka.file, g->name);
  }
  if (rc == TLC_OK && n == 0) printf("%s: no kernel functions\n", ka.file);
  tl_ir_module_free(mod);
done:
  tlc_kernel_args_free(&ka);
  return rc;
}
