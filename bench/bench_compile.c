/* Compilation through tl_compile for examples/vector_add.py on target c:
 *   - cold compiles (cache off) with tcc (target: under 10 ms) and native;
 *   - our own share: parse + lower + codegen, against the C compiler's;
 *   - a warm hit from disk (memory cleared before each; target: under 1 ms) and
 *     from memory (target: under 5 us), for native and tcc.
 * The cache lives in a private scratch directory removed at the end.
 *   bench_compile [EXAMPLE.py]   (default: the source tree's examples/vector_add.py) */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/files.h"
#include "bench.h"
#include "engine/engine_internal.h"
#include "tilelang/engine.h"

static void die(const char *what) {
  fprintf(stderr, "bench_compile: %s: %s\n", what, tl_last_error());
  exit(1);
}

typedef struct ctx {
  const char *path;
  char *source;
  tl_ir_module *mod;
  tl_compile_options opts;
} ctx;

/* Medians of slow operations: n timed runs (after one warm-up). */
static double slow_median_ms(const char *name, void (*body)(void *), void *c, int n) {
  double t[64];
  body(c);
  for (int i = 0; i < n; i++) {
    double t0 = bench_now_ns();
    body(c);
    t[i] = (bench_now_ns() - t0) / 1e6;
  }
  qsort(t, (size_t)n, sizeof *t, bench_cmp);
  printf("%-52s %10.3f %10.3f %10.3f   (ms, %d runs)\n", name, t[n / 2], t[0], t[n * 9 / 10], n);
  fflush(stdout);
  return t[n / 2];
}

static void compile_once(void *p) {
  ctx *c = p;
  tl_kernel *k = NULL;
  if (tl_compile(c->mod, NULL, &c->opts, &k) != TL_OK) die("tl_compile");
  tl_kernel_release(k);
}

static void disk_hit(void *p) {
  tl_kernel_cache_clear_memory();
  compile_once(p);
}

/* parse + semantic check + pipeline + kernel table + device and host codegen. */
static void front_to_codegen(void *p) {
  ctx *c = p;
  tl_ir_module *m = NULL;
  if (tl_ir_parse(c->source, c->path, NULL, &m) != TL_OK) die("parse");
  tl_backend_context *bc = NULL;
  if (tl__engine_context(&c->opts, &bc) != TL_OK) die("context");
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  tl__lowered l;
  if (tl__engine_lower(m, f, &c->opts, bc, true, &l) != TL_OK) die("lower");
  tl__lowered_free(&l);
  tl_backend_context_release(bc);
  tl_ir_module_free(m);
}

/* The execution backend's build alone (the C compiler for native), into scratch. */
typedef struct build_ctx {
  tl__lowered l;
  const tl__exec_impl *impl;
  const tl_target *target;
  const char *name;
} build_ctx;

static void build_only(void *p) {
  build_ctx *b = p;
  char *dir = NULL;
  if (tl__make_scratch_dir("tl-bench-build-", &dir) != TL_OK) die("scratch");
  tl__build_request req = {b->name, b->target, b->l.device, b->l.host, b->l.table, NULL};
  if (b->impl->build(&req, dir) != TL_OK) die("build");
  tl__remove_tree(dir);
  tl__free(dir);
}

static void parse_only(void *p) {
  ctx *c = p;
  tl_ir_module *m = NULL;
  if (tl_ir_parse(c->source, c->path, NULL, &m) != TL_OK) die("parse");
  tl_ir_module_free(m);
}

static bool available(const char *exec) {
  tl_backend_context *bc = NULL;
  tl_status s = tl_create_backend_context("c", NULL, exec, &bc);
  tl_backend_context_release(bc);
  if (s != TL_OK) printf("%-52s (skipped: %s)\n", exec, tl_last_error());
  return s == TL_OK;
}

int main(int argc, char **argv) {
  ctx c;
  memset(&c, 0, sizeof c);
  c.path = argc > 1 ? argv[1] : TL_SOURCE_DIR "/examples/vector_add.py";
  if (tl__file_read_no_link(c.path, false, &c.source, NULL) != TL_OK) die("read");
  if (tl_ir_parse(c.source, c.path, NULL, &c.mod) != TL_OK) die("parse");
  char *root = NULL;
  if (tl__make_scratch_dir("tl-bench-cache-", &root) != TL_OK) die("scratch");
  c.opts.struct_size = sizeof c.opts;
  c.opts.target = "c";
  c.opts.cache_dir = root;
  printf("kernel: %s\n\n", c.path);

  printf("%-52s %10s %10s %10s\n", "cold compiles (cache off)", "median", "min", "p90");
  double ours_ms = 0, native_ms = 0;
  static const char *const execs[] = {"tcc", "native"};
  for (int i = 0; i < 2; i++) {
    if (!available(execs[i])) continue;
    c.opts.execution_backend = execs[i];
    c.opts.disable_cache = true;
    char name[64];
    snprintf(name, sizeof name, "tl_compile cold, %s", execs[i]);
    double ms = slow_median_ms(name, compile_once, &c, i == 0 ? 41 : 11);
    if (i == 1) native_ms = ms;
  }
  c.opts.execution_backend = "native";
  ours_ms = slow_median_ms("parse + lower + codegen (ours)", front_to_codegen, &c, 41);
  slow_median_ms("  of which parse", parse_only, &c, 41);
  if (native_ms > 0) {
    build_ctx b;
    tl_backend_context *bc = NULL;
    if (tl__engine_context(&c.opts, &bc) != TL_OK || tl__engine_exec_impl(bc, &b.impl) != TL_OK ||
        tl__engine_lower(c.mod, tl_ir_module_func(c.mod, 0), &c.opts, bc, true, &b.l) != TL_OK)
      die("lower");
    b.target = tl_backend_context_target(bc);
    b.name = tl_ir_module_func(c.mod, 0)->name;
    double cc_ms = slow_median_ms("native build alone (the C compiler)", build_only, &b, 11);
    printf("%-52s %9.1f%% of the C compiler's time, %.1f%% of a cold native compile\n", "ours:",
           100.0 * ours_ms / cc_ms, 100.0 * ours_ms / native_ms);
    tl__lowered_free(&b.l);
    tl_backend_context_release(bc);
  }

  printf("\n");
  bench_header("warm hits (cache on)");
  for (int i = 0; i < 2; i++) {
    if (!available(execs[i])) continue;
    c.opts.execution_backend = execs[i];
    c.opts.disable_cache = false;
    compile_once(&c); /* the entry exists from here on */
    char name[64];
    snprintf(name, sizeof name, "tl_compile disk hit, %s", execs[i]);
    bench_run(name, disk_hit, &c);
    compile_once(&c);
    snprintf(name, sizeof name, "tl_compile memory hit, %s", execs[i]);
    bench_run(name, compile_once, &c);
  }
  tl_kernel_cache_clear_memory();
  tl__remove_tree(root);
  tl__free(root);
  tl__free(c.source);
  tl_ir_module_free(c.mod);
  return 0;
}
