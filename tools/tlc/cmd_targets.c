/* tlc targets [--tags]: the target kinds with their options, or the tags. */
#include <stdio.h>
#include <string.h>

#include "tilelang/target.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_targets_usage[];
int tlc_targets_run(int argc, char **argv);

const char tlc_targets_usage[] =
  "usage: tlc targets [--tags]\n"
  "\n"
  "Lists every target kind with its DLPack device type, default keys and options\n"
  "(name, type, default) in schema order, the order of the JSON text.\n"
  "\n"
  "  --tags   list the target tags and their configurations instead\n";

static void print_kinds(void) {
  const char *kinds[64];
  size_t nk = tl_list_target_kinds(kinds, 64);
  for (size_t i = 0; i < nk && i < 64; i++) {
    const char *keys[16];
    size_t nkeys = tl_target_kind_default_keys(kinds[i], keys, 16);
    printf("%s (device type %d; keys:", kinds[i], tl_target_kind_device_type(kinds[i]));
    for (size_t k = 0; k < nkeys && k < 16; k++) printf("%s%s", k ? ", " : " ", keys[k]);
    printf(")\n");
    tl_target_option_info opts[128];
    size_t no = tl_target_kind_options(kinds[i], opts, 128);
    for (size_t o = 0; o < no && o < 128; o++) {
      printf("  %-40s %-13s", opts[o].name, opts[o].type);
      if (opts[o].default_value) printf(" default %s", opts[o].default_value);
      printf("\n");
    }
  }
}

static void print_tags(void) {
  size_t n = tl_list_target_tags(NULL, 0);
  const char *tags[256];
  if (n > 256) n = 256;
  tl_list_target_tags(tags, n);
  for (size_t i = 0; i < n; i++) printf("%-30s %s\n", tags[i], tl_target_tag_config(tags[i]));
}

int tlc_targets_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("targets");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  bool tags = false;
  while (!tlc_args_done(&a)) {
    const char *arg = tlc_args_peek(&a);
    if (tlc_args_flag(&a, "--tags")) tags = true;
    else return tlc_usage_error(cmd, "unexpected argument '%s'", arg);
  }
  if (tags) print_tags();
  else print_kinds();
  return TLC_OK;
}
