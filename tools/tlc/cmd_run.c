/* tlc run FILE: the main job. Compiles one function through tl_compile, runs it on
 * seeded random inputs and prints a checksum line per output; --check compares
 * every output with the reference interpreter on the same inputs, --bench times
 * calls. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile_args.h"
#include "device_io.h"
#include "kernel_args.h"
#include "kernel_io.h"
#include "tilelang/engine.h"
#include "tilelang/target.h"
#include "tlc.h"

/* Declared here and in commands.c, which lists the command. */
extern const char tlc_run_usage[];
int tlc_run_run(int argc, char **argv);

const char tlc_run_usage[] =
    "usage: tlc run FILE [--func NAME] [--param K=V]... [--dim N=V]... [--seed S]\n"
    "               [--check] [--bench N] [--target T] [--execution-backend E] [options]\n"
    "\n"
    "Compiles one function of FILE with tl_compile (backend context, lowering, code\n"
    "generation, the execution backend's build and load, the kernel cache), runs it on\n"
    "seeded random inputs and prints one line per output:\n"
    "  NAME DTYPE[SHAPE] sum=S abssum=A hash=H\n"
    "A kernel whose tensors live in device memory (a GPU target) gets device copies of\n"
    "the inputs on device 0; its outputs are copied back before they are printed.\n"
    "\n"
    "  (--dim: integer dimensions default to 1000, float scalars to a seeded random\n"
    "  value, bool scalars to true)\n"
    "  --seed S        seed of the random inputs (default 0)\n"
    "  --check         also run the reference interpreter on the same inputs and\n"
    "                  compare every output element (float32: rtol 1e-4, atol 1e-5;\n"
    "                  float16: 1e-2; bfloat16: 2e-2; float64: 1e-9, 1e-12; integers\n"
    "                  and bools exactly), reporting the worst element\n"
    "  --bench N       call the kernel N more times and print the median time per call\n"
    "                  (on a device: each call until the device has finished it)\n" TLC_KERNEL_ARGS_USAGE
        TLC_COMPILE_ARGS_USAGE
    "\n"
    "Exit status: 0 success (and every output matches with --check), 1 a compile or\n"
    "run error or a mismatch, 2 usage error.\n";

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct run_opts {
  const tlc_dim_binding *dims; /* the shared --dim bindings (kernel_args) */
  size_t ndims;
  uint64_t seed;
  bool check;
  long bench;
} run_opts;

/* Consumes one of run's own options: 1, 0 (not ours), or -TLC_USAGE. */
static int take_run_option(run_opts *ro, tlc_args *a) {
  const char *v = NULL;
  bool missing = false;
  if (tlc_args_flag(a, "--check")) return ro->check = true, 1;
  if (tlc_args_value(a, "--seed", &v, &missing)) {
    char *end;
    errno = 0;
    unsigned long long s = missing || !v ? 0 : strtoull(v, &end, 0);
    if (missing || !v || v[0] == '-' || errno || end == v || *end)
      return -tlc_usage_error(a->cmd, "--seed needs a non-negative integer");
    ro->seed = s;
    return 1;
  }
  if (tlc_args_value(a, "--bench", &v, &missing)) {
    char *end;
    errno = 0;
    long n = missing || !v ? 0 : strtol(v, &end, 10);
    if (missing || !v || errno || end == v || *end || n < 1 || n > 100000000)
      return -tlc_usage_error(a->cmd, "--bench needs a number of calls (1 or more)");
    ro->bench = n;
    return 1;
  }
  return 0;
}

/* Compares every output with the interpreter's; returns the number that differ. */
static int check_outputs(const tlc_kernel_io *got, const tlc_kernel_io *ref, int *rc) {
  int bad = 0;
  for (uint32_t i = 0; i < got->n; i++) {
    if (!got->is_output[i]) continue;
    const DLTensor *g = &got->tensors[i], *e = &ref->tensors[i];
    tl_dtype dt = {g->dtype.code, g->dtype.bits, g->dtype.lanes};
    double rtol, atol;
    tlc_default_tolerance(dt, &rtol, &atol);
    tlc_compare_result r;
    const char *name = got->func->params[i].name;
    if (tlc_compare_tensors(g, e, rtol, atol, &r) != TL_OK) {
      *rc = tlc_fail();
      return bad + 1;
    }
    char desc[512];
    tlc_compare_describe(g, &r, desc, sizeof desc);
    if (r.mismatches) {
      bad++;
      printf("check %s: MISMATCH: %s\n", name, desc);
    } else {
      printf("check %s: ok (%" PRIu64 " elements, worst error %.3g of the tolerance)\n", name, r.checked,
             r.worst_excess);
    }
  }
  return bad;
}

/* Times n calls; prints the median and the minimum. A device kernel's call is
 * timed up to the device's being done with it (launches are asynchronous). */
static int bench(tl_kernel *k, const tlc_device_io *io, long n) {
  double *t = malloc((size_t)n * sizeof *t);
  if (!t) {
    fprintf(stderr, "tlc: out of memory\n");
    return TLC_FAIL;
  }
  for (long i = 0; i < n; i++) {
    double t0 = now_us();
    tl_status s = tl_kernel_call(k, io->args, (int)io->n, NULL);
    if (s == TL_OK && io->on_device) s = tlc_device_io_synchronize(io);
    t[i] = now_us() - t0;
    if (s != TL_OK) {
      free(t);
      return tlc_fail();
    }
  }
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  double median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  printf("bench: %ld calls, median %.3f us per call (min %.3f us)%s\n", n, median, t[0],
         io->on_device ? ", each until the device finished" : "");
  free(t);
  return TLC_OK;
}

/* Compiles, runs, checks and benchmarks `f`. */
static int run_kernel(const tl_ir_module *mod, const tl_ir_func *f, const tl_compile_options *opts,
                      const run_opts *ro) {
  tl_kernel *k = NULL;
  tlc_kernel_io *io = NULL, *ref = NULL;
  tlc_device_io *dev = NULL;
  double t0 = now_us();
  if (tl_compile(mod, f->name, opts, &k) != TL_OK) return tlc_fail();
  double compile_ms = (now_us() - t0) / 1e3;
  printf("%s: target %s, execution backend %s, %s in %.1f ms\n", f->name, tl_target_str(tl_kernel_target(k)),
         tl_kernel_execution_backend(k), tl_kernel_from_cache(k) ? "loaded from the kernel cache" : "compiled",
         compile_ms);
  int rc = TLC_OK;
  if (tlc_kernel_io_create(mod, f, ro->dims, ro->ndims, TLC_DEFAULT_DIM, ro->seed, &io) != TL_OK) rc = tlc_fail();
  if (rc == TLC_OK) {
    tlc_kernel_io_fill(io, ro->seed);
    if (ro->check && tlc_kernel_io_clone(io, &ref) != TL_OK) rc = tlc_fail();
  }
  /* Tensors where the kernel takes them: device copies for a GPU kernel. */
  if (rc == TLC_OK && tlc_device_io_create(k, io, &dev) != TL_OK) rc = tlc_fail();
  if (rc == TLC_OK && tl_kernel_call(k, dev->args, (int)dev->n, NULL) != TL_OK) rc = tlc_fail();
  if (rc == TLC_OK && tlc_device_io_download(dev, io) != TL_OK) rc = tlc_fail();
  if (rc == TLC_OK) tlc_kernel_io_print_checksums(io, stdout);
  if (rc == TLC_OK && ref) {
    if (tl_ir_interpret(mod, f->name, ref->args, (int)ref->n) != TL_OK) {
      fprintf(stderr, "tlc: the reference interpreter failed: %s\n", tl_last_error());
      rc = TLC_FAIL;
    } else if (check_outputs(io, ref, &rc) > 0) {
      rc = TLC_FAIL;
    }
  }
  if (rc == TLC_OK && ro->bench > 0) rc = bench(k, dev, ro->bench);
  tlc_device_io_free(dev);
  tlc_kernel_io_free(ref);
  tlc_kernel_io_free(io);
  tl_kernel_release(k);
  return rc;
}

int tlc_run_run(int argc, char **argv) {
  const tlc_command *cmd = tlc_find_command("run");
  tlc_args a;
  tlc_args_init(&a, cmd, argc, argv);
  tlc_kernel_args ka;
  tlc_compile_args ca;
  run_opts ro = {0};
  tlc_kernel_args_init(&ka);
  tlc_compile_args_init(&ca);
  int rc = TLC_OK;
  while (rc == TLC_OK && !tlc_args_done(&a)) {
    int r = take_run_option(&ro, &a);
    if (r == 0) r = tlc_kernel_args_take(&ka, &a);
    if (r == 0) r = tlc_compile_args_take(&ca, &a);
    if (r == 0) r = -tlc_usage_error(cmd, "unknown option '%s'", tlc_args_peek(&a));
    if (r < 0) rc = -r;
  }
  if (rc == TLC_OK) rc = tlc_kernel_args_check(&ka, cmd);
  tl_ir_module *mod = NULL;
  tl_ir_func *f = NULL;
  if (rc == TLC_OK) rc = tlc_kernel_args_load_one(&ka, &mod, &f);
  if (rc == TLC_OK) {
    tl_compile_options opts;
    tlc_compile_args_options(&ca, &opts);
    ro.dims = ka.dims;
    ro.ndims = ka.ndims;
    rc = run_kernel(mod, f, &opts, &ro);
  }
  tl_ir_module_free(mod);
  tlc_compile_args_free(&ca);
  tlc_kernel_args_free(&ka);
  return rc;
}
