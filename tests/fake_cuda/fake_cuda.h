/* The control side of the fake CUDA driver (fake_libcuda.c), for
 * tests/fake_cuda/test_fake_driver.c: what the library asked of the driver, and
 * failures to inject. The fake is built as libcuda.so.1 in its own directory; the
 * test runs with LD_LIBRARY_PATH pointing there, so every dlopen("libcuda.so.1")
 * (the library's and the generated nvcc launchers') finds it. */
#ifndef TL_FAKE_CUDA_H
#define TL_FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_MAX_PARAMS 16

typedef struct fake_launch {
  int device;         /* of the function's module */
  int module;         /* the module's serial number */
  char name[128];     /* the function's name */
  unsigned grid[3], block[3], shared;
  void *stream;
  void *ctx;          /* current when launched */
  int nparams;
  unsigned char params[FAKE_MAX_PARAMS][8]; /* each parameter's bytes (fake_set_param_sizes) */
} fake_launch;

typedef struct fake_stats {
  int inits, module_loads, module_unloads, get_functions, set_attributes, launches;
  int ctx_sets, retains, releases;
  int last_attribute, last_attribute_value;
  fake_launch last;
} fake_stats;

typedef void (*fake_reset_fn)(void);
typedef void (*fake_get_fn)(fake_stats *out);
/* Sizes of the next launches' parameters (the fake copies that many bytes each). */
typedef void (*fake_set_param_sizes_fn)(const size_t *sizes, int n);
/* The result cuLaunchKernel returns from now on (0: success). */
typedef void (*fake_fail_launch_fn)(int result);
/* The context of device d (the primary one). */
typedef void *(*fake_context_fn)(int d);

#endif
