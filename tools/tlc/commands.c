/* The subcommand table: one line per command, in `tlc --help` order. Each command's
 * usage text and run function live in its cmd_<name>.c. */
#include "tlc.h"

#define TLC_COMMAND(name) extern const char tlc_##name##_usage[]; int tlc_##name##_run(int argc, char **argv);
TLC_COMMAND(target)
TLC_COMMAND(targets)
TLC_COMMAND(backends)
TLC_COMMAND(context)
TLC_COMMAND(parse)
TLC_COMMAND(check)
TLC_COMMAND(interp)
TLC_COMMAND(lower)
TLC_COMMAND(source)
TLC_COMMAND(build)
TLC_COMMAND(run)

const tlc_command tlc_commands[] = {
  {"target", "print the canonical JSON of a target", tlc_target_usage, tlc_target_run},
  {"targets", "list target kinds and their options, or target tags", tlc_targets_usage, tlc_targets_run},
  {"backends", "list the registered backends and their execution backends", tlc_backends_usage, tlc_backends_run},
  {"context", "resolve and print the backend context for a target", tlc_context_usage, tlc_context_run},
  {"parse", "parse a TileLang kernel file and print its IR", tlc_parse_usage, tlc_parse_run},
  {"check", "parse a TileLang kernel file and verify its IR", tlc_check_usage, tlc_check_run},
  {"interp", "run a kernel with the reference interpreter and print output checksums", tlc_interp_usage, tlc_interp_run},
  {"lower", "lower a kernel for a target and print the lowered IR", tlc_lower_usage, tlc_lower_run},
  {"source", "print the device (or host) source generated for a kernel", tlc_source_usage, tlc_source_run},
  {"build", "compile a kernel ahead of time: shared library, header, sources", tlc_build_usage, tlc_build_run},
  {"run", "compile a kernel, run it on random inputs; --check against the interpreter", tlc_run_usage, tlc_run_run},
  {NULL, NULL, NULL, NULL}, /* sentinel: lets the table be empty */
};
const size_t tlc_num_commands = sizeof tlc_commands / sizeof tlc_commands[0] - 1;
