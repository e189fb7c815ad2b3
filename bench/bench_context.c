/* Backend context creation: tl_create_backend_context for the JSON cuda target, host
 * "c", execution backend "auto" (target: at most 2 us median), with 0 and 1,000 extra
 * backends registered on other kinds (target: flat), plus the resolution itself
 * without the target cache, and the cost of backends sharing the target's kind.
 *
 * The built-in cuda backend resolves the target; where it does not (a library built
 * without it), the benchmark registers a test manifest owning cuda (an nvrtc-like
 * spec whose availability check caches its answer, and "source"). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tilelang/backend.h"

static const char cuda_json[] = "{\"kind\":\"cuda\",\"arch\":\"sm_90\"}";

static void die(const char *what) {
  fprintf(stderr, "bench_context: %s: %s\n", what, tl_last_error());
  exit(1);
}

/* ---------------------------------------------------------- the test backend */

static bool bench_predicate(const tl_target *t, void *user_data) {
  /* What a real predicate does: look at an attribute or a key. */
  (void)user_data;
  return !tl_target_has_key(t, "bench-other");
}
static bool nvrtc_available(void *user_data) {
  /* A real check dlopens once and caches the answer; this one is the cached answer. */
  return atomic_load((atomic_bool *)user_data);
}
static tl_status lower(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)mod;
  (void)target;
  (void)user_data;
  return TL_OK;
}
static tl_status build(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out) {
  (void)mod;
  (void)target;
  return tl_artifact_create((const char *)user_data, "", out);
}

static atomic_bool nvrtc_ok = true;
static const tl_pass_pipeline cuda_pipeline = {"cuda", lower, NULL};
static const tl_device_codegen cuda_codegen = {"bench.cuda", {build, "cubin"}, {build, "cuda"}, NULL, NULL};
static const tl_host_codegen c_host = {"c", build, "c", NULL, NULL};
static const tl_execution_backend_spec nvrtc = {"nvrtc", nvrtc_available, NULL, &nvrtc_ok, false, true, NULL};
static const tl_execution_backend_spec source = {"source", NULL, NULL, NULL, false, false, NULL};
static const char *const cuda_kinds[] = {"cuda", NULL};
static const tl_pipeline_entry cuda_pipelines[] = {{"cuda", &cuda_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry cuda_devices[] = {{"cuda", &cuda_codegen}, {NULL, NULL}};
static const tl_host_codegen_entry hosts[] = {{"c", &c_host}, {NULL, NULL}};
static const tl_execution_backend_spec *const specs[] = {&nvrtc, &source, NULL};
static const tl_backend_module bench_cuda = {sizeof(tl_backend_module), "bench.cuda", cuda_kinds, cuda_pipelines,
                                             cuda_devices, specs, bench_predicate, NULL, hosts, NULL, NULL};

/* ---------------------------------------------------------- extra backends */

static bool never(const tl_target *t, void *user_data) {
  (void)t;
  (void)user_data;
  return false;
}

/* n manifests named bench.<prefix>.<i> over the given kinds (each with a predicate,
 * as backends sharing a kind must have). False (with the reason printed) if the
 * registry refuses one, e.g. a built-in owner of the kind without a predicate. */
static bool register_extra(const char *prefix, const char *const *kinds, size_t nkinds, int n) {
  for (int i = 0; i < n; i++) {
    const char *kind = kinds[(size_t)i % nkinds];
    char *name = malloc(64);
    const char **k = calloc(2, sizeof *k);
    tl_pass_pipeline *p = calloc(1, sizeof *p);
    tl_pipeline_entry *pe = calloc(2, sizeof *pe);
    tl_device_codegen_entry *de = calloc(2, sizeof *de);
    tl_backend_module *m = calloc(1, sizeof *m);
    if (!name || !k || !p || !pe || !de || !m) die("malloc");
    snprintf(name, 64, "bench.%s.%d", prefix, i);
    k[0] = kind;
    *p = (tl_pass_pipeline){kind, lower, NULL};
    pe[0] = (tl_pipeline_entry){kind, p};
    de[0] = (tl_device_codegen_entry){kind, &cuda_codegen};
    *m = (tl_backend_module){sizeof *m, name, k, pe, de, specs, never, NULL, hosts, NULL, NULL};
    if (tl_register_backend(m, NULL) != TL_OK) {
      printf("(cannot register %s: %s)\n", name, tl_last_error());
      return false;
    }
  }
  return true;
}

/* ------------------------------------------------------------------ bodies */

typedef struct create_args {
  const char *target, *host, *exec;
} create_args;

static void create_and_release(void *ctx) {
  const create_args *a = ctx;
  tl_backend_context *c;
  if (tl_create_backend_context(a->target, a->host, a->exec, &c) != TL_OK) die("tl_create_backend_context");
  tl_backend_context_release(c);
}

/* Cycles through more distinct target strings than the cache holds: every call
 * resolves its target (normalizers, parse, host) from scratch. */
static void create_uncached(void *ctx) {
  static char specs_text[64][96];
  static int next = -1;
  (void)ctx;
  if (next < 0) {
    for (int i = 0; i < 64; i++)
      snprintf(specs_text[i], sizeof specs_text[i], "{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"max_num_threads\":%d}",
               512 + i);
    next = 0;
  }
  create_args a = {specs_text[next], "c", "auto"};
  next = (next + 1) % 64;
  create_and_release(&a);
}

static void resolve_auto(void *ctx) {
  const tl_execution_backend_spec *s;
  if (tl_backend_module_resolve_execution_backend(tl_backend_context_module(ctx), "auto",
                                                  tl_backend_context_target(ctx), &s) != TL_OK)
    die("resolve");
}

int main(void) {
  create_args json = {cuda_json, "c", "auto"};
  /* Use a registered backend that owns the target if there is one; else ours. */
  tl_backend_context *probe = NULL;
  if (tl_create_backend_context(cuda_json, "c", "auto", &probe) != TL_OK) {
    if (tl_register_backend(&bench_cuda, NULL) != TL_OK) die("registering bench.cuda");
    if (tl_create_backend_context(cuda_json, "c", "auto", &probe) != TL_OK) die("probe");
  }
  printf("backend: %s, execution backend: %s\n", tl_backend_context_name(probe),
         tl_backend_context_execution_backend(probe)->name);

  bench_header("backend context (tl_create_backend_context + release)");
  bench_result base = bench_run("cuda JSON, host c, auto", create_and_release, &json);
  create_args defaults = {cuda_json, NULL, NULL};
  bench_run("cuda JSON, host NULL, execution backend NULL", create_and_release, &defaults);
  create_args named = {cuda_json, "c", "source"};
  bench_run("cuda JSON, host c, \"source\"", create_and_release, &named);
  bench_run("cuda JSON (64 strings cycling: target cache misses)", create_uncached, NULL);
  bench_run("resolve_execution_backend auto", resolve_auto, probe);

  static const char *const other_kinds[] = {"vulkan", "nvptx", "rocm"};
  if (!register_extra("other", other_kinds, 3, 1000)) return 1;
  printf("(+1,000 backends registered on vulkan, nvptx, rocm; %zu in all)\n", tl_list_backends(NULL, 0));
  bench_result extra = bench_run("cuda JSON, host c, auto, +1,000 backends", create_and_release, &json);

  static const char *const cuda_only[] = {"cuda"};
  if (register_extra("cuda", cuda_only, 1, 100)) {
    printf("(+100 backends sharing the cuda kind, each with a predicate that refuses)\n");
    bench_run("cuda JSON, host c, auto, +100 on cuda (predicates run)", create_and_release, &json);
  }

  printf("\ncontext creation: %.0f ns median (target <= 2000 ns); with 1,000 extra backends %.0f ns (%+.1f%%)\n",
         base.median_ns, extra.median_ns, 100.0 * (extra.median_ns - base.median_ns) / base.median_ns);
  tl_backend_context_release(probe);
  return 0;
}
