/* Host tensors for running a function from the command line: allocation from the
 * parameters' shapes (symbolic dimensions given values), seeded random inputs,
 * which parameters are outputs, per-output checksums, and an element-wise
 * comparison with dtype tolerances. Used by `tlc interp` and `tlc run`. */
#ifndef TLC_KERNEL_IO_H
#define TLC_KERNEL_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dlpack/dlpack.h>

#include "tilelang/ffi.h"
#include "tilelang/ir.h"

/* The value a symbolic dimension (or integer scalar parameter) gets when the
 * command line gives none. 1000 is divisible by none of the usual tile sizes
 * (16, 32, 64, 128, 256), so boundary handling is exercised by default. */
#define TLC_DEFAULT_DIM 1000

/* `NAME=VALUE` for a symbolic dimension or a scalar parameter. */
typedef struct tlc_dim_binding {
  const char *name;
  const char *value;
} tlc_dim_binding;

typedef struct tlc_kernel_io {
  const tl_ir_func *func;
  uint32_t n;          /* parameters */
  tl_value *args;      /* n values, ready for tl_ir_interpret or tl_kernel_call */
  DLTensor *tensors;   /* n entries; used by buffer parameters */
  bool *is_output;     /* n: is_output, or a buffer the function writes */
  bool *is_read;       /* n: a buffer the function reads */
} tlc_kernel_io;

/* Allocates host tensors (kDLCPU, compact) for every buffer parameter of f (a
 * function of mod; launches are followed into mod's kernels) and
 * values for its scalars. Symbolic dimensions and integer scalars take their
 * value from `dims`, else default_dim; float scalars from `dims`, else a value
 * drawn from the seed; bool scalars from `dims`, else true. A binding naming
 * nothing in f is TL_EINVAL. Tensors start zeroed; call tlc_kernel_io_fill. */
tl_status tlc_kernel_io_create(const tl_ir_module *mod, const tl_ir_func *f, const tlc_dim_binding *dims, size_t ndims,
                               int64_t default_dim, uint64_t seed, tlc_kernel_io **out);
void tlc_kernel_io_free(tlc_kernel_io *io);
/* The check tlc_kernel_io_create makes of `dims` alone: every binding names a
 * symbolic dimension or scalar parameter of f, and integer values parse
 * (TL_EINVAL naming the binding otherwise). For commands that do not run f. */
tl_status tlc_kernel_io_check_dims(const tl_ir_func *f, const tlc_dim_binding *dims, size_t ndims);

/* Fills every tensor the function reads with seeded random values (floats uniform
 * in [-1, 1] rounded to the dtype, signed integers in [-8, 8], unsigned in
 * [0, 16], bools 0/1) and poisons write-only outputs (NaN for floats, 0xA5 bytes
 * otherwise), so elements a kernel never writes stand out. Deterministic. */
void tlc_kernel_io_fill(tlc_kernel_io *io, uint64_t seed);

/* Makes a deep copy of the tensors' contents (same shapes), e.g. to run the
 * interpreter and a backend on the same inputs. */
tl_status tlc_kernel_io_clone(const tlc_kernel_io *io, tlc_kernel_io **out);

/* Prints one line per output: "NAME DTYPE[SHAPE] sum=S abssum=A hash=H". Sums
 * run in element order in double; NaN elements make them nan; the hash is XXH3
 * of the bytes. */
void tlc_kernel_io_print_checksums(const tlc_kernel_io *io, FILE *f);

/* Element-wise comparison: |got - expected| <= atol + rtol * |expected|; NaNs
 * match NaNs and infinities match equal infinities. Integers and bools must be
 * equal. */
typedef struct tlc_compare_result {
  uint64_t checked, mismatches;
  uint64_t worst_index;       /* flat row-major index of the worst element */
  double worst_got, worst_expected;
  double worst_excess;        /* |diff| / (atol + rtol*|expected|); > 1 fails */
} tlc_compare_result;

/* The default tolerances for a dtype: float16 1e-2/1e-2, bfloat16 2e-2/2e-2,
 * float32 1e-4/1e-5, float64 1e-9/1e-12 (rtol/atol); 0 for integers and bools. */
void tlc_default_tolerance(tl_dtype t, double *rtol, double *atol);
/* Compares two tensors of equal dtype and shape (TL_EINVAL otherwise). */
tl_status tlc_compare_tensors(const DLTensor *got, const DLTensor *expected, double rtol, double atol,
                              tlc_compare_result *out);
/* Writes "worst element [i, j]: got G, expected E (N of M elements differ)". */
void tlc_compare_describe(const DLTensor *t, const tlc_compare_result *r, char *buf, size_t cap);

#endif
