/* tlc parse FILE: parses a TileLang kernel file and prints its IR back as TileLang. */
#include <stdio.h>

#include "kernel_args.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_parse_usage[];
int tlc_parse_run(int argc, char **argv);

const char tlc_parse_usage[] =
  "usage: tlc parse [--param K=V]... [--dim N=V]... [--func NAME] FILE\n"
  "\n"
  "Reads FILE (TileLang's Python DSL, the subset described in docs/frontend.md) and\n"
  "prints the IR of its kernel functions in TileLang script style. Factories and\n"
  "@tilelang.jit functions appear with their compile-time constants substituted.\n"
  "\n"
  TLC_KERNEL_ARGS_USAGE
  "\n"
  "Exit status: 0 success, 1 the file is not valid (the error on stderr, with the\n"
  "source line and a caret under the column), 2 usage error.\n";

int tlc_parse_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("parse");
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
  if (f) {
    /* One function: print it as a module of its own, so the output stays a file. */
    for (size_t i = tl_ir_module_num_funcs(mod); i-- > 0;)
      if (tl_ir_module_func(mod, i) != f) tl_ir_module_remove_func(mod, i);
  }
  char *text = tl_ir_print_module(mod);
  tl_ir_module_free(mod);
  if (!text) {
    rc = tlc_fail();
    goto done;
  }
  fputs(text, stdout);
  tl_free(text);
done:
  tlc_kernel_args_free(&ka);
  return rc;
}
