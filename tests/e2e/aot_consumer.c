/* A C program built against `tlc build examples/vector_add.py` output: it includes
 * the generated header, links lib<vector_add>.so, and calls the typed wrapper and
 * the packed entry (run by tests/e2e/tlc_e2e.sh). Prints "ok" on success. */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <string.h>

#include "vector_add.h"

static DLTensor vec(float *data, int64_t *n) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = 1;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = n;
  return t;
}

int main(void) {
  enum { N = 1000 };
  static float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = (float)(2 * i), c[i] = -1;
  int64_t n = N, m = N - 1;
  DLTensor A = vec(a, &n), B = vec(b, &n), C = vec(c, &n), Bshort = vec(b, &m);
  char err[256] = "";
  if (vector_add_call(&A, &B, &C, err, sizeof err) != 0) {
    printf("typed call failed: %s\n", err);
    return 1;
  }
  for (int i = 0; i < N; i++)
    if (c[i] != (float)(3 * i)) {
      printf("C[%d] = %g, expected %g\n", i, c[i], (double)(3 * i));
      return 1;
    }
  /* The packed entry checks its arguments and names the offending one. */
  TLValue args[3];
  memset(args, 0, sizeof args);
  args[0].kind = 10, args[0].v.tensor = &A;
  args[1].kind = 10, args[1].v.tensor = &Bshort;
  args[2].kind = 10, args[2].v.tensor = &C;
  if (vector_add(args, 3, NULL, err, sizeof err) == 0 || !strstr(err, "argument 'B'")) {
    printf("a short B was not refused (\"%s\")\n", err);
    return 1;
  }
  if (vector_add(args, 2, NULL, err, sizeof err) == 0 || !strstr(err, "takes 3 arguments but got 2")) {
    printf("a missing argument was not refused (\"%s\")\n", err);
    return 1;
  }
  printf("ok\n");
  return 0;
}
