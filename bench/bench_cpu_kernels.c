/* CPU kernel speed against NumPy, side by side in one run on the same arrays.
 *
 * Each case compiles an example kernel for target c with the native execution
 * backend (examples/gemm.py, softmax.py, rms_norm.py, vector_add.py at benchmark
 * sizes), fills its inputs with seeded random values, writes them to a scratch
 * directory and times tl_kernel_call (bench.h: median, min, p90 over timed
 * batches). Then bench/python/bench_cpu_numpy.py times NumPy on the same arrays
 * (read back from those files) with the same statistics, and one table compares
 * the medians. The NumPy interpreter is $TL_BENCH_PYTHON (scripts/bench.sh makes a
 * virtual environment with NumPy from PyPI); without it only our figures print.
 *
 * The float16 GEMM (float16 in, float32 accumulation) is compared with NumPy's
 * float32 GEMM on the same values: NumPy has no BLAS path for float16 (its own
 * float16 matmul is a slow loop), so float32 BLAS is the honest reference.
 * "vector_add 1000 loaded" runs while two child processes spin on the cores (the
 * machine loaded as the issue describes), for ours and NumPy alike. */
#include <dlpack/dlpack.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fp16.h"
#include "bench.h"
#include "base/files.h"
#include "tilelang/engine.h"

#define MAX_ARGS 3

typedef struct bench_case {
  const char *name;      /* also the NumPy script's case name */
  const char *file;      /* under examples/ */
  const char *params[8]; /* factory constants, NULL-terminated */
  const char *dim;       /* "N=1000" for a symbolic dimension, or NULL */
  int nargs;             /* tensors: inputs first, the output last */
  int64_t shape[MAX_ARGS][2];
  int ndim[MAX_ARGS];
  int f16;               /* inputs and output float16 */
  double flops;          /* per call, for GFLOP/s (0: none) */
  int samples;
  int loaded;            /* time with the cores kept busy */
} bench_case;

#define SQ(n) {{n, n}, {n, n}, {n, n}}, {2, 2, 2}
static const bench_case k_cases[] = {
    {"gemm_f32_512", "gemm.py",
     {"M=512", "N=512", "K=512", "block_M=96", "block_N=256", "block_K=128", "dtype=\"float32\"", NULL}, NULL, 3,
     SQ(512), 0, 2.0 * 512 * 512 * 512, 11, 0},
    {"gemm_f32_512_tiles64", "gemm.py", /* the 64 x 64 x 32 tiles */
     {"M=512", "N=512", "K=512", "block_M=64", "block_N=64", "block_K=32", "dtype=\"float32\"", NULL}, NULL, 3,
     SQ(512), 0, 2.0 * 512 * 512 * 512, 11, 0},
    {"gemm_f32_1024", "gemm.py",
     {"M=1024", "N=1024", "K=1024", "block_M=96", "block_N=256", "block_K=128", "dtype=\"float32\"", NULL}, NULL, 3,
     SQ(1024), 0, 2.0 * 1024 * 1024 * 1024, 11, 0},
    {"gemm_f32_1024_tiles64", "gemm.py",
     {"M=1024", "N=1024", "K=1024", "block_M=64", "block_N=64", "block_K=32", "dtype=\"float32\"", NULL}, NULL, 3,
     SQ(1024), 0, 2.0 * 1024 * 1024 * 1024, 11, 0},
    {"gemm_f32_1024_tiles32", "gemm.py", /* the example's own 32 x 32 x 32 tiles */
     {"M=1024", "N=1024", "K=1024", "dtype=\"float32\"", NULL}, NULL, 3, SQ(1024), 0, 2.0 * 1024 * 1024 * 1024, 11, 0},
    {"gemm_f32_2048", "gemm.py",
     {"M=2048", "N=2048", "K=2048", "block_M=96", "block_N=256", "block_K=128", "dtype=\"float32\"", NULL}, NULL, 3,
     SQ(2048), 0, 2.0 * 2048 * 2048 * 2048, 5, 0},
    {"gemm_f16_1024", "gemm.py",
     {"M=1024", "N=1024", "K=1024", "block_M=96", "block_N=256", "block_K=128", "dtype=\"float16\"", NULL}, NULL, 3,
     SQ(1024), 1, 2.0 * 1024 * 1024 * 1024, 11, 0},
    {"softmax_4096", "softmax.py", {"M=4096", "N=4096", "block_M=8", NULL}, NULL, 2, {{4096, 4096}, {4096, 4096}},
     {2, 2}, 0, 0, 11, 0},
    {"rms_norm_4096", "rms_norm.py", {"M=4096", "N=4096", "blk_m=8", NULL}, NULL, 3,
     {{4096, 4096}, {4096, 0}, {4096, 4096}}, {2, 1, 2}, 0, 0, 11, 0},
    {"vector_add_1000", "vector_add.py", {NULL}, "N=1000", 3, {{1000, 0}, {1000, 0}, {1000, 0}}, {1, 1, 1}, 0, 0, 101,
     0},
    {"vector_add_1000_loaded", "vector_add.py", {NULL}, "N=1000", 3, {{1000, 0}, {1000, 0}, {1000, 0}}, {1, 1, 1}, 0,
     0, 101, 1},
};
#define NCASES (sizeof k_cases / sizeof k_cases[0])

static void die(const char *what) {
  fprintf(stderr, "bench_cpu_kernels: %s: %s\n", what, tl_last_error());
  exit(1);
}

typedef struct run_ctx {
  tl_kernel *k;
  tl_value args[MAX_ARGS];
  DLTensor t[MAX_ARGS];
} run_ctx;

static int g_nargs;
static void call_kernel_n(void *p) {
  run_ctx *c = p;
  if (tl_kernel_call(c->k, c->args, g_nargs, NULL) != TL_OK) die("tl_kernel_call");
}

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static float next_uniform(void) { /* [-1, 1) */
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(g_rng >> 40) / (double)(1ull << 23) - 1.0);
}

static int64_t count_of(const bench_case *bc, int i) {
  int64_t n = 1;
  for (int d = 0; d < bc->ndim[i]; d++) n *= bc->shape[i][d];
  return n;
}

/* Two children spinning until killed: the cores are busy. */
static void start_load(pid_t pids[2]) {
  for (int i = 0; i < 2; i++) {
    pids[i] = fork();
    if (pids[i] == 0) {
      volatile uint64_t x = 0;
      for (;;) x++;
    }
  }
}
static void stop_load(pid_t pids[2]) {
  for (int i = 0; i < 2; i++)
    if (pids[i] > 0) {
      kill(pids[i], SIGKILL);
      waitpid(pids[i], NULL, 0);
    }
}

/* Writes an input array as raw bytes for the NumPy side. */
static void save(const char *dir, const char *name, int i, const void *data, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%d.bin", dir, name, i);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes) {
    fprintf(stderr, "bench_cpu_kernels: cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

static double g_ours[NCASES];
static int g_samples; /* --samples N: every case times N batches (0: the case's own count) */

static void run_case(size_t ci, const char *cache, const char *data_dir) {
  const bench_case *bc = &k_cases[ci];
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, bc->file);
  tl_ir_const_binding binds[8];
  size_t nb = 0;
  char names[8][32], values[8][32];
  for (; bc->params[nb]; nb++) {
    const char *eq = strchr(bc->params[nb], '=');
    snprintf(names[nb], sizeof names[nb], "%.*s", (int)(eq - bc->params[nb]), bc->params[nb]);
    snprintf(values[nb], sizeof values[nb], "%s", eq + 1);
    binds[nb].name = names[nb];
    binds[nb].value = values[nb];
  }
  tl_ir_parse_options po = {sizeof po, binds, nb, NULL, false};
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, &po, &m) != TL_OK) die(bc->name);
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = "c";
  o.execution_backend = "native";
  o.cache_dir = cache;
  run_ctx c;
  memset(&c, 0, sizeof c);
  if (tl_compile(m, NULL, &o, &c.k) != TL_OK) die(bc->name);
  void *data[MAX_ARGS];
  for (int i = 0; i < bc->nargs; i++) {
    int64_t n = count_of(bc, i);
    size_t esize = bc->f16 ? 2 : 4;
    data[i] = aligned_alloc(64, ((size_t)n * esize + 63) / 64 * 64);
    if (!data[i]) die("out of memory");
    for (int64_t e = 0; e < n; e++) {
      float v = i == bc->nargs - 1 ? 0.0f : next_uniform();
      if (bc->f16) ((uint16_t *)data[i])[e] = tl__f32_to_f16(v);
      else ((float *)data[i])[e] = v;
    }
    if (i < bc->nargs - 1) save(data_dir, bc->name, i, data[i], (size_t)n * esize);
    c.t[i].data = data[i];
    c.t[i].device.device_type = kDLCPU;
    c.t[i].ndim = bc->ndim[i];
    c.t[i].dtype = (DLDataType){kDLFloat, (uint8_t)(bc->f16 ? 16 : 32), 1};
    c.t[i].shape = (int64_t *)bc->shape[i];
    c.args[i] = tl_value_tensor((struct DLTensor *)(void *)&c.t[i]);
  }
  g_nargs = bc->nargs;
  pid_t load[2] = {0, 0};
  if (bc->loaded) start_load(load);
  bench_result r = bench_run_samples(bc->name, call_kernel_n, &c, g_samples ? g_samples : bc->samples);
  if (bc->loaded) stop_load(load);
  g_ours[ci] = r.median_ns;
  for (int i = 0; i < bc->nargs; i++) free(data[i]);
  tl_kernel_release(c.k);
  tl_ir_module_free(m);
}

/* Runs the NumPy side and fills numpy[] (ns per call; 0 when missing). */
static void run_numpy(const char *data_dir, double *numpy) {
  const char *py = getenv("TL_BENCH_PYTHON");
  if (!py || !*py) {
    printf("\nNumPy: TL_BENCH_PYTHON is not set (scripts/bench.sh sets it up); ours only.\n");
    return;
  }
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' '%s/bench/python/bench_cpu_numpy.py' '%s' %d", py, TL_SOURCE_DIR, data_dir,
           g_samples);
  FILE *p = popen(cmd, "r");
  if (!p) return;
  char line[512];
  printf("\nNumPy (%s):\n", py);
  while (fgets(line, sizeof line, p)) {
    char name[128];
    double med;
    if (sscanf(line, "result %127s %lf", name, &med) == 2) {
      for (size_t i = 0; i < NCASES; i++)
        if (strcmp(name, k_cases[i].name) == 0) numpy[i] = med;
      continue;
    }
    fputs(line, stdout);
  }
  if (pclose(p) != 0) printf("NumPy side failed; see above.\n");
}

/* Whether case `name` runs: no names on the command line, or one of them is part of it. */
static int selected(const char *name, int argc, char **argv) {
  int any = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--samples") == 0) {
      i++;
      continue;
    }
    any = 1;
    if (strstr(name, argv[i])) return 1;
  }
  return !any;
}

/* bench_cpu_kernels [--samples N] [CASE-SUBSTRING...] */
int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--samples") == 0) g_samples = atoi(argv[i + 1]);
  char *cache = NULL, *data_dir = NULL;
  if (tl__make_scratch_dir("tl-bench-cpu-cache-", &cache) != TL_OK || tl__make_scratch_dir("tl-bench-cpu-data-", &data_dir) != TL_OK)
    die("scratch");
  bench_header("CPU kernels, ours (target c, native)");
  int ran[NCASES] = {0};
  for (size_t i = 0; i < NCASES; i++)
    if ((ran[i] = selected(k_cases[i].name, argc, argv))) run_case(i, cache, data_dir);
  double numpy[NCASES] = {0};
  run_numpy(data_dir, numpy);
  printf("\n%-26s %12s %12s %10s %10s %10s\n", "case (medians)", "ours ms", "NumPy ms", "ours/NumPy", "ours GF/s",
         "NumPy GF/s");
  for (size_t i = 0; i < NCASES; i++) {
    const bench_case *bc = &k_cases[i];
    if (!ran[i]) continue;
    double o = g_ours[i] / 1e6, n = numpy[i] / 1e6;
    printf("%-26s %12.4f ", bc->name, o);
    if (n > 0) printf("%12.4f %9.2fx ", n, n / o); /* > 1: ours faster */
    else printf("%12s %10s ", "-", "-");
    if (bc->flops > 0) {
      printf("%10.1f ", bc->flops / g_ours[i]);
      if (n > 0) printf("%10.1f", bc->flops / numpy[i]);
    }
    printf("\n");
  }
  printf("(ours/NumPy: NumPy's time over ours, above 1 when ours is faster)\n");
  tl__remove_tree(cache);
  tl__remove_tree(data_dir);
  tl__free(cache);
  tl__free(data_dir);
  return 0;
}
