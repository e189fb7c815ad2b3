/* The subcommand table: one line per command, in `tlc --help` order. */
#include "tlc.h"

const tlc_command tlc_commands[] = {
  {NULL, NULL, NULL, NULL}, /* sentinel: lets the table be empty */
};
const size_t tlc_num_commands = sizeof tlc_commands / sizeof tlc_commands[0] - 1;
