/* The subcommand table: one line per command, in `tlc --help` order. */
#include "tlc.h"

extern const char tlc_target_usage[], tlc_targets_usage[];
int tlc_target_run(int argc, char **argv);
int tlc_targets_run(int argc, char **argv);

const tlc_command tlc_commands[] = {
  {"target", "print the canonical JSON of a target", tlc_target_usage, tlc_target_run},
  {"targets", "list target kinds and their options, or target tags", tlc_targets_usage, tlc_targets_run},
  {NULL, NULL, NULL, NULL}, /* sentinel: lets the table be empty */
};
const size_t tlc_num_commands = sizeof tlc_commands / sizeof tlc_commands[0] - 1;
