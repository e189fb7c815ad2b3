/* The subcommand table: one line per command, in `tlc --help` order. */
#include "tlc.h"

extern const char tlc_parse_usage[], tlc_check_usage[], tlc_interp_usage[];
int tlc_parse_run(int argc, char **argv);
int tlc_check_run(int argc, char **argv);
int tlc_interp_run(int argc, char **argv);

const tlc_command tlc_commands[] = {
  {"parse", "parse a TileLang kernel file and print its IR", tlc_parse_usage, tlc_parse_run},
  {"check", "parse a TileLang kernel file and verify its IR", tlc_check_usage, tlc_check_run},
  {"interp", "run a kernel with the reference interpreter and print output checksums", tlc_interp_usage, tlc_interp_run},
  {NULL, NULL, NULL, NULL}, /* sentinel: lets the table be empty */
};
const size_t tlc_num_commands = sizeof tlc_commands / sizeof tlc_commands[0] - 1;
