/* Shared compile options of tlc's lower, source, build and run commands. */
#include "compile_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tlc_compile_args_init(tlc_compile_args *ca) { memset(ca, 0, sizeof *ca); }

void tlc_compile_args_free(tlc_compile_args *ca) {
  free(ca->pass_configs);
  memset(ca, 0, sizeof *ca);
}

/* Appends a pass config, keeping the list NULL-terminated. */
static int add_config(tlc_compile_args *ca, const tlc_command *cmd, const char *kv) {
  const char *eq = kv ? strchr(kv, '=') : NULL;
  if (!eq || eq == kv) return -tlc_usage_error(cmd, "--pass-config needs K=V, got '%s'", kv ? kv : "");
  if (ca->npass_configs + 1 >= ca->cap) {
    size_t cap = ca->cap ? ca->cap * 2 : 8;
    const char **p = realloc(ca->pass_configs, cap * sizeof *p);
    if (!p) {
      fprintf(stderr, "tlc: out of memory\n");
      return -TLC_USAGE;
    }
    ca->pass_configs = p;
    ca->cap = cap;
  }
  ca->pass_configs[ca->npass_configs++] = kv;
  ca->pass_configs[ca->npass_configs] = NULL;
  return 1;
}

/* A --name VALUE option stored in *slot. */
static int take_value(tlc_args *a, const char *name, const char **slot, int *r) {
  const char *v = NULL;
  bool missing = false;
  if (!tlc_args_value(a, name, &v, &missing)) return 0;
  if (missing || !v || !*v) *r = -tlc_usage_error(a->cmd, "%s needs a value", name);
  else if (*slot) *r = -tlc_usage_error(a->cmd, "%s is given twice", name);
  else *slot = v, *r = 1;
  return 1;
}

int tlc_compile_args_take(tlc_compile_args *ca, tlc_args *a) {
  int r = 0;
  if (take_value(a, "--target-host", &ca->target_host, &r)) return r;
  if (take_value(a, "--target", &ca->target, &r)) return r;
  if (take_value(a, "--execution-backend", &ca->execution_backend, &r)) return r;
  if (take_value(a, "--print-after", &ca->print_after, &r)) return r;
  if (take_value(a, "--cache-dir", &ca->cache_dir, &r)) return r;
  if (tlc_args_flag(a, "--time-passes")) return ca->time_passes = true, 1;
  if (tlc_args_flag(a, "--print-after-all")) return ca->print_after_all = true, 1;
  if (tlc_args_flag(a, "--no-cache")) return ca->no_cache = true, 1;
  const char *v = NULL;
  bool missing = false;
  if (tlc_args_value(a, "--pass-config", &v, &missing)) {
    if (missing) return -tlc_usage_error(a->cmd, "--pass-config needs K=V");
    return add_config(ca, a->cmd, v);
  }
  return 0;
}

void tlc_compile_args_options(const tlc_compile_args *ca, tl_compile_options *out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  out->target = ca->target;
  out->target_host = ca->target_host;
  out->execution_backend = ca->execution_backend;
  out->pass_configs = ca->pass_configs;
  out->time_passes = ca->time_passes;
  out->print_after_all = ca->print_after_all;
  out->print_after = ca->print_after;
  out->disable_cache = ca->no_cache;
  out->cache_dir = ca->cache_dir;
  out->log = stderr;
}
