#include <stdarg.h>
#include <string.h>

#include "tilelang/base.h"
#include "tlc.h"

int tlc_usage_error(const tlc_command *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tlc%s%s: ", cmd ? " " : "", cmd ? cmd->name : "");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  if (cmd && cmd->usage) fprintf(stderr, "%s", cmd->usage);
  else fprintf(stderr, "Try 'tlc --help'.\n");
  return TLC_USAGE;
}

int tlc_fail(void) {
  fprintf(stderr, "tlc: %s\n", tl_last_error());
  return TLC_FAIL;
}

const tlc_command *tlc_find_command(const char *name) {
  for (size_t i = 0; i < tlc_num_commands; i++)
    if (strcmp(tlc_commands[i].name, name) == 0) return &tlc_commands[i];
  return NULL;
}

void tlc_args_init(tlc_args *a, const tlc_command *cmd, int argc, char **argv) {
  a->argc = argc;
  a->argv = argv;
  a->i = 1;
  a->cmd = cmd;
}

bool tlc_args_done(const tlc_args *a) { return a->i >= a->argc; }
const char *tlc_args_peek(const tlc_args *a) { return a->i < a->argc ? a->argv[a->i] : NULL; }

bool tlc_args_flag(tlc_args *a, const char *name) {
  if (a->i < a->argc && strcmp(a->argv[a->i], name) == 0) {
    a->i++;
    return true;
  }
  return false;
}

bool tlc_args_value(tlc_args *a, const char *name, const char **value, bool *missing) {
  if (a->i >= a->argc) return false;
  const char *arg = a->argv[a->i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    a->i++;
    return true;
  }
  if (arg[n] != '\0') return false;
  if (a->i + 1 >= a->argc) {
    *value = NULL;
    if (missing) *missing = true;
    a->i++;
    return true;
  }
  *value = a->argv[a->i + 1];
  a->i += 2;
  return true;
}
