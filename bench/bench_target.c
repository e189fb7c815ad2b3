/* Target benchmarks: parsing the common spellings, cold (every parse does the work)
 * and warm (JSON specs memoized, as in a program that parses the same spec per
 * compilation), the text accessors, equality, and jansson alone on the same JSON as
 * a baseline. Targets: parsing {"kind":"cuda","arch":"sm_90"} at most 2 us median,
 * a bare "cuda" at most 0.5 us. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "target/target_impl.h"
#include "tilelang/target.h"

static void die(const char *what) {
  fprintf(stderr, "bench_target: %s: %s\n", what, tl_last_error());
  exit(1);
}

static void parse_and_release(void *ctx) {
  tl_target *t;
  if (tl_target_parse(ctx, &t) != TL_OK) die(ctx);
  tl_target_release(t);
}

static void determine_and_release(void *ctx) {
  tl_target *t;
  if (tl_determine_target(ctx, &t) != TL_OK) die(ctx);
  tl_target_release(t);
}

static void jansson_only(void *ctx) {
  json_t *j = json_loads(ctx, 0, NULL);
  if (!j) die("json_loads");
  json_decref(j);
}

static volatile size_t g_sink;

static void target_str(void *ctx) { g_sink += strlen(tl_target_str(ctx)); }

static void target_export(void *ctx) {
  char *s = tl_target_export(ctx);
  g_sink += s[0];
  tl_free(s);
}

static void target_equal_hash(void *ctx) {
  const tl_target *const *pair = ctx;
  g_sink += tl_target_equal(pair[0], pair[1]) + (size_t)tl_target_hash(pair[0]);
}

int main(void) {
  static const char cuda_json[] = "{\"kind\":\"cuda\",\"arch\":\"sm_90\"}";
  static const char host_json[] =
    "{\"kind\":\"cuda\",\"arch\":\"sm_90a\",\"max_threads_per_block\":1024,\"registers_per_block\":65536,"
    "\"max_shared_memory_per_block\":49152,\"l2_cache_size_bytes\":52428800,\"host\":\"c\"}";
  bench_header("targets (cold: JSON memo off)");
  tl__target_memo_enable(false);
  bench_result cold = bench_run("tl_target_parse {\"kind\":\"cuda\",\"arch\":\"sm_90\"}", parse_and_release,
                                (void *)cuda_json);
  bench_run("tl_target_parse {\"tag\":\"nvidia/nvidia-h100\"}", parse_and_release,
            "{\"tag\":\"nvidia/nvidia-h100\"}");
  bench_run("tl_target_parse cuda JSON with host and 6 attrs", parse_and_release, (void *)host_json);
  bench_result jansson = bench_run("jansson json_loads+json_decref (same cuda JSON)", jansson_only, (void *)cuda_json);
  bench_run("jansson json_loads+json_decref (host and 6 attrs JSON)", jansson_only, (void *)host_json);
  tl__target_memo_enable(true);
  printf("\n");
  bench_header("targets (warm: as a program sees them)");
  bench_result warm = bench_run("tl_target_parse {\"kind\":\"cuda\",\"arch\":\"sm_90\"}", parse_and_release,
                                (void *)cuda_json);
  bench_result bare = bench_run("tl_target_parse cuda", parse_and_release, "cuda");
  bench_run("tl_target_parse nvidia/nvidia-h100 (tag)", parse_and_release, "nvidia/nvidia-h100");
  bench_run("tl_target_parse cuda JSON with host and 6 attrs", parse_and_release, (void *)host_json);
  bench_run("tl_determine_target cuda (normalizers, no GPU)", determine_and_release, "cuda");
  tl_target *t, *u;
  if (tl_target_parse(cuda_json, &t) != TL_OK || tl_target_parse(cuda_json, &u) != TL_OK) die("parse");
  bench_run("tl_target_str", target_str, t);
  bench_run("tl_target_export", target_export, t);
  const tl_target *pair[2] = {t, u};
  bench_run("tl_target_equal + tl_target_hash", target_equal_hash, (void *)pair);
  tl_target_release(t);
  tl_target_release(u);
  printf("\ntargets: JSON parse %.0f ns warm (limit 2000), bare cuda %.0f ns (limit 500): %s\n", warm.median_ns,
         bare.median_ns, warm.median_ns <= 2000 && bare.median_ns <= 500 ? "met" : "NOT MET");
  printf("targets: JSON parse cold %.0f ns = %.1fx jansson's own parse+free of that text (%.0f ns, same run)\n",
         cold.median_ns, cold.median_ns / jansson.median_ns, jansson.median_ns);
  return 0;
}
