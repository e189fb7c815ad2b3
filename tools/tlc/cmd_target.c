/* tlc target SPEC: the canonical JSON of a target. */
#include <stdio.h>

#include "tilelang/target.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_target_usage[];
int tlc_target_run(int argc, char **argv);

const char tlc_target_usage[] =
  "usage: tlc target [--pretty] [--determine] SPEC\n"
  "\n"
  "Parses SPEC as a target (a tag such as nvidia/nvidia-h100, a JSON object such as\n"
  "'{\"kind\":\"cuda\",\"arch\":\"sm_90\"}', or a bare kind such as cuda) and prints its\n"
  "canonical JSON: kind, tag, keys, host, then attributes in schema order.\n"
  "\n"
  "  --pretty     indent the JSON (2 spaces per level)\n"
  "  --determine  resolve SPEC as tl_determine_target does: \"auto\" detects the\n"
  "               target (TILELANG_DEFAULT_TARGET, else CUDA, else CPU), and a bare\n"
  "               \"cuda\" gets the detected GPU's arch\n"
  "\n"
  "Exit status: 0 success, 1 invalid target (the message on stderr), 2 usage error.\n";

int tlc_target_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("target");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  bool pretty = false, determine = false;
  const char *spec = NULL;
  while (!tlc_args_done(&a)) {
    const char *arg = tlc_args_peek(&a);
    if (tlc_args_flag(&a, "--pretty")) pretty = true;
    else if (tlc_args_flag(&a, "--determine")) determine = true;
    else if (tlc_args_flag(&a, "--")) {
      if (tlc_args_done(&a)) break;
      if (spec) return tlc_usage_error(cmd, "more than one target given");
      spec = a.argv[a.i++];
    } else if (arg[0] == '-' && arg[1] != '\0') return tlc_usage_error(cmd, "unknown option '%s'", arg);
    else if (spec) return tlc_usage_error(cmd, "more than one target given");
    else spec = a.argv[a.i++];
  }
  if (!spec && !determine) return tlc_usage_error(cmd, "missing target");
  tl_target *t = NULL;
  tl_status s = determine ? tl_determine_target(spec, &t) : tl_target_parse(spec, &t);
  if (s != TL_OK) return tlc_fail();
  char *text = pretty ? tl_target_export_indent(t, 2) : tl_target_export(t);
  tl_target_release(t);
  if (!text) return tlc_fail();
  printf("%s\n", text);
  tl_free(text);
  return TLC_OK;
}
