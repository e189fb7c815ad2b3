/* A tiny benchmark harness. bench_run times a body in batches: the batch size is
 * calibrated so that one batch takes about a millisecond, then `samples` batches
 * are timed and each gives a time per operation; the report is the median, the
 * minimum and the 90th percentile in nanoseconds per operation. Header-only. */
#ifndef TL_BENCH_H
#define TL_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct bench_result {
  double median_ns, min_ns, p90_ns;
  long batch; /* operations per timed batch */
} bench_result;

static inline double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Runs body(ctx) repeatedly; prints one line "name median min p90" and returns it.
 * bench_run_samples times `samples` batches (at most 201; bench_run: 201), for
 * bodies that take long. */
static inline bench_result bench_run_samples(const char *name, void (*body)(void *ctx), void *ctx, int samples) {
  enum { MAX_SAMPLES = 201 };
  const int SAMPLES = samples < 1 ? 1 : samples > MAX_SAMPLES ? MAX_SAMPLES : samples;
  long batch = 1;
  for (;;) { /* calibrate (also warms caches and lazily built state) */
    double t0 = bench_now_ns();
    for (long i = 0; i < batch; i++) body(ctx);
    if (bench_now_ns() - t0 > 1e6 || batch >= (1L << 28)) break;
    batch *= 2;
  }
  double per_op[MAX_SAMPLES];
  for (int s = 0; s < SAMPLES; s++) {
    double t0 = bench_now_ns();
    for (long i = 0; i < batch; i++) body(ctx);
    per_op[s] = (bench_now_ns() - t0) / (double)batch;
  }
  qsort(per_op, SAMPLES, sizeof per_op[0], bench_cmp);
  bench_result r = {per_op[SAMPLES / 2], per_op[0], per_op[SAMPLES * 9 / 10], batch};
  printf("%-52s %10.1f %10.1f %10.1f\n", name, r.median_ns, r.min_ns, r.p90_ns);
  fflush(stdout);
  return r;
}

static inline bench_result bench_run(const char *name, void (*body)(void *ctx), void *ctx) {
  return bench_run_samples(name, body, ctx, 201);
}

static inline void bench_header(const char *title) {
  printf("%-52s %10s %10s %10s   (ns per operation, %d batches)\n", title, "median", "min", "p90", 201);
}

#endif
