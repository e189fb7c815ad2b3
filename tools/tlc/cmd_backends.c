/* tlc backends: the registered backends, their target kinds and their execution
 * backends in 'auto' order, with whether each is available here (and why not). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "tilelang/backend.h"
#include "tlc.h"

extern const char tlc_backends_usage[];
int tlc_backends_run(int argc, char **argv);

const char tlc_backends_usage[] =
  "usage: tlc backends [--json]\n"
  "\n"
  "Lists the registered backends (built-in, and plugins from TL_PLUGIN_PATH): each\n"
  "backend's target kinds and its execution backends in 'auto' order, marking\n"
  "which are available on this machine and why the others are not.\n"
  "\n"
  "  --json   one JSON array, an object per backend\n";

static void print_text(const tl_backend_module *const *ms, size_t n) {
  if (n == 0) {
    printf("No backends are registered. Backend plugins are loaded from TL_PLUGIN_PATH "
           "(docs/backend-registry.md).\n");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    const tl_backend_module *m = ms[i];
    if (i) printf("\n");
    printf("%s\n  target kinds:", m->name);
    for (size_t k = 0; m->target_kinds[k]; k++) printf("%s %s", k ? "," : "", m->target_kinds[k]);
    printf("%s\n", m->supports_target ? " (with a target predicate)" : "");
    printf("  execution backends ('auto' order):\n");
    for (size_t k = 0; m->execution_backends[k]; k++) {
      const tl_execution_backend_spec *s = m->execution_backends[k];
      if (tl_execution_backend_spec_is_available(s)) {
        printf("    %-12s available\n", s->name);
      } else {
        const char *why = tl_execution_backend_spec_unavailable_reason(s);
        printf("    %-12s not available: %s\n", s->name, why ? why : "its availability check failed");
      }
    }
  }
}

static int print_json(const tl_backend_module *const *ms, size_t n) {
  json_t *all = json_array();
  for (size_t i = 0; all && i < n; i++) {
    const tl_backend_module *m = ms[i];
    json_t *kinds = json_array(), *specs = json_array();
    for (size_t k = 0; m->target_kinds[k]; k++) json_array_append_new(kinds, json_string(m->target_kinds[k]));
    for (size_t k = 0; m->execution_backends[k]; k++) {
      const tl_execution_backend_spec *s = m->execution_backends[k];
      bool ok = tl_execution_backend_spec_is_available(s);
      const char *why = ok ? NULL : tl_execution_backend_spec_unavailable_reason(s);
      json_array_append_new(specs, json_pack("{s:s, s:b, s:s?, s:b, s:b}", "name", s->name, "available", ok, "reason",
                                             why, "enable_host_codegen", s->enable_host_codegen,
                                             "enable_device_compile", s->enable_device_compile));
    }
    json_array_append_new(all, json_pack("{s:s, s:o, s:b, s:o}", "name", m->name, "target_kinds", kinds,
                                         "has_predicate", m->supports_target != NULL, "execution_backends", specs));
  }
  char *text = all ? json_dumps(all, JSON_INDENT(2)) : NULL;
  json_decref(all);
  if (!text) {
    fprintf(stderr, "tlc backends: out of memory\n");
    return TLC_FAIL;
  }
  printf("%s\n", text);
  free(text);
  return TLC_OK;
}

int tlc_backends_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("backends");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  bool json = false;
  while (!tlc_args_done(&a)) {
    if (tlc_args_flag(&a, "--json")) json = true;
    else return tlc_usage_error(cmd, "unknown argument '%s'", tlc_args_peek(&a));
  }
  size_t n = tl_list_backends(NULL, 0);
  if (n == 0 && *tl_last_error()) return tlc_fail();
  const tl_backend_module **ms = calloc(n ? n : 1, sizeof *ms);
  if (!ms) {
    fprintf(stderr, "tlc backends: out of memory\n");
    return TLC_FAIL;
  }
  size_t got = tl_list_backends(ms, n);
  if (got < n) n = got;
  int rc = TLC_OK;
  if (json) rc = print_json(ms, n);
  else print_text(ms, n);
  free(ms);
  return rc;
}

