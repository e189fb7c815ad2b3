/* tlc: the command-line tool. Each subcommand lives in its own cmd_*.c file and is
 * listed once in commands.c. Exit status: 0 success, 1 failure of the work asked
 * for, 2 usage error (unknown subcommand or option). */
#ifndef TLC_H
#define TLC_H

#include <stdbool.h>
#include <stdio.h>

typedef struct tlc_command {
  const char *name;
  const char *summary; /* one line for `tlc --help` */
  const char *usage;   /* full usage text for `tlc NAME --help` */
  int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} tlc_command;

extern const tlc_command tlc_commands[];
extern const size_t tlc_num_commands;

enum { TLC_OK = 0, TLC_FAIL = 1, TLC_USAGE = 2 };

/* Prints "tlc NAME: message" and the command's usage to stderr; returns TLC_USAGE. */
int tlc_usage_error(const tlc_command *cmd, const char *fmt, ...);
/* Prints "tlc: <tl_last_error()>" to stderr; returns TLC_FAIL. */
int tlc_fail(void);
const tlc_command *tlc_find_command(const char *name);

/* Option parsing shared by subcommands. An argument iterator over argv[1..]. */
typedef struct tlc_args {
  int argc, i;
  char **argv;
  const tlc_command *cmd;
} tlc_args;
void tlc_args_init(tlc_args *a, const tlc_command *cmd, int argc, char **argv);
/* True and advances if argv[i] is `--name` (flag). */
bool tlc_args_flag(tlc_args *a, const char *name);
/* True if argv[i] is `--name VALUE` or `--name=VALUE`; *value is set. A missing value
 * sets *value to NULL and *missing = true. */
bool tlc_args_value(tlc_args *a, const char *name, const char **value, bool *missing);
bool tlc_args_done(const tlc_args *a);
const char *tlc_args_peek(const tlc_args *a);

#endif
