/* tlc: compile, inspect and run TileLang kernels with the native backend system. */
#include <stdio.h>
#include <string.h>

#include "tilelang/base.h"
#include "tlc.h"

static void print_help(FILE *f) {
  fprintf(f,
          "usage: tlc [--version] [--help] <command> [<args>]\n"
          "\n"
          "TileLang's backend system, native in C (version %s).\n",
          tl_version());
  if (tlc_num_commands) {
    fprintf(f, "\ncommands:\n");
    for (size_t i = 0; i < tlc_num_commands; i++)
      fprintf(f, "  %-10s %s\n", tlc_commands[i].name, tlc_commands[i].summary);
  }
  fprintf(f, "\n'tlc <command> --help' describes one command.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_help(stderr);
    return TLC_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
    printf("tlc %s\n", tl_version());
    return TLC_OK;
  }
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 || strcmp(first, "help") == 0) {
    if (argc > 2 && strcmp(first, "help") == 0) {
      const tlc_command *c = tlc_find_command(argv[2]);
      if (!c) return tlc_usage_error(NULL, "unknown command '%s'", argv[2]);
      printf("%s", c->usage);
      return TLC_OK;
    }
    print_help(stdout);
    return TLC_OK;
  }
  if (first[0] == '-') return tlc_usage_error(NULL, "unknown option '%s'", first);
  const tlc_command *cmd = tlc_find_command(first);
  if (!cmd) return tlc_usage_error(NULL, "unknown command '%s'", first);
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("%s", cmd->usage);
      return TLC_OK;
    }
  }
  return cmd->run(argc - 1, argv + 1);
}
