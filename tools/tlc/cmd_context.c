/* tlc context: resolve a backend context (create_backend_context) and print it, or
 * the resolution error with exit status 1. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "tilelang/backend.h"
#include "tlc.h"

extern const char tlc_context_usage[];
int tlc_context_run(int argc, char **argv);

const char tlc_context_usage[] =
  "usage: tlc context [--target T] [--target-host H] [--execution-backend E] [--json]\n"
  "\n"
  "Resolves the backend context one compilation would use and prints it: the backend,\n"
  "the target with its host, and the execution backend.\n"
  "\n"
  "  --target T              a target string: tag, JSON object or kind (default: auto,\n"
  "                          which reads TILELANG_DEFAULT_TARGET, then detects)\n"
  "  --target-host H         the host target (default: the target's own, else c)\n"
  "  --execution-backend E   a name or auto (default: TILELANG_EXECUTION_BACKEND, else auto)\n"
  "  --json                  one JSON object\n";

static int print_json(const tl_backend_context *c) {
  const tl_execution_backend_spec *s = tl_backend_context_execution_backend(c);
  json_t *target = json_loads(tl_target_str(tl_backend_context_target(c)), 0, NULL);
  json_t *host = json_loads(tl_target_str(tl_backend_context_target_host(c)), 0, NULL);
  json_t *o = json_pack("{s:s, s:o?, s:o?, s:{s:s, s:b, s:b}}", "backend", tl_backend_context_name(c), "target",
                        target, "target_host", host, "execution_backend", "name", s->name, "enable_host_codegen",
                        s->enable_host_codegen, "enable_device_compile", s->enable_device_compile);
  char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
  json_decref(o);
  if (!text) {
    fprintf(stderr, "tlc context: out of memory\n");
    return TLC_FAIL;
  }
  printf("%s\n", text);
  free(text);
  return TLC_OK;
}

static void print_text(const tl_backend_context *c) {
  const tl_execution_backend_spec *s = tl_backend_context_execution_backend(c);
  printf("backend:           %s\n", tl_backend_context_name(c));
  printf("target:            %s\n", tl_target_str(tl_backend_context_target(c)));
  printf("target host:       %s\n", tl_target_str(tl_backend_context_target_host(c)));
  printf("execution backend: %s (host codegen: %s, device compile: %s)\n", s->name,
         s->enable_host_codegen ? "yes" : "no", s->enable_device_compile ? "yes" : "no");
}

int tlc_context_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("context");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  const char *target = NULL, *host = NULL, *exec = NULL;
  bool json = false;
  while (!tlc_args_done(&a)) {
    bool missing = false;
    const char *opt = tlc_args_peek(&a);
    if (tlc_args_flag(&a, "--json")) json = true;
    else if (tlc_args_value(&a, "--target", &target, &missing) || tlc_args_value(&a, "--target-host", &host, &missing) ||
             tlc_args_value(&a, "--execution-backend", &exec, &missing)) {
      if (missing) return tlc_usage_error(cmd, "option '%s' needs a value", opt);
    } else {
      return tlc_usage_error(cmd, "unknown argument '%s'", opt);
    }
  }
  tl_backend_context *c = NULL;
  if (tl_create_backend_context(target, host, exec, &c) != TL_OK) return tlc_fail();
  int rc = TLC_OK;
  if (json) rc = print_json(c);
  else print_text(c);
  tl_backend_context_release(c);
  return rc;
}

