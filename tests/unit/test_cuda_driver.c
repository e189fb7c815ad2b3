/* The dlopen'd CUDA driver table: all-or-nothing resolution, actionable messages,
 * the toolkit's stub library (every symbol of the list must exist there, and its
 * cuInit means "no device"), and the process-wide table on this machine. */
#include <stdlib.h>
#include <unistd.h>

#include "runtime/cuda_driver.h"
#include "tl_test.h"

/* The toolkit's stub libcuda, if the toolkit is installed; NULL otherwise. */
static const char *stub_path(void) {
  static char path[512];
  const char *home = getenv("CUDA_HOME");
  const char *dirs[] = {home, "/usr/local/cuda", NULL};
  for (int i = 0; i < 2; i++) {
    if (!dirs[i]) continue;
    snprintf(path, sizeof path, "%s/lib64/stubs/libcuda.so", dirs[i]);
    if (access(path, R_OK) == 0) return path;
  }
  return NULL;
}

static bool all_null(const tl__cuda_driver *d) {
  static const tl__cuda_driver zero;
  return memcmp(d, &zero, sizeof zero) == 0;
}

static void test_missing_library(void **state) {
  (void)state;
  tl__cuda_driver d;
  memset(&d, 0xab, sizeof d);
  TL_ASSERT_ERR(tl__cuda_driver_open("/nonexistent/libcuda.so.1", &d), TL_EUNAVAILABLE,
                "CUDA driver library /nonexistent/libcuda.so.1 could not be loaded");
  assert_non_null(strstr(tl_last_error(), "install the NVIDIA driver"));
  assert_true(all_null(&d));
}

static void test_missing_symbol_is_all_or_nothing(void **state) {
  (void)state;
  tl__cuda_driver d;
  memset(&d, 0xab, sizeof d);
  /* A real library without the driver API: nothing is half-resolved. */
  TL_ASSERT_ERR(tl__cuda_driver_open("libm.so.6", &d), TL_EUNAVAILABLE,
                "CUDA driver library libm.so.6 lacks the symbol cuInit");
  assert_true(all_null(&d));
}

static void test_stub_library_resolves_everything(void **state) {
  (void)state;
  const char *path = stub_path();
  if (!path) skip();
  tl__cuda_driver d;
  TL_ASSERT_OK(tl__cuda_driver_open(path, &d));
  assert_non_null(d.handle);
  /* Every entry of the X-macro list, by its exported (versioned) name. */
#define CHECK_FIELD(field, symbol, ret, params) \
  if (!d.field) fail_msg("%s not resolved", symbol);
  TL__CUDA_DRIVER_SYMBOLS(CHECK_FIELD)
#undef CHECK_FIELD
  /* The stub's cuInit fails in a way that means "no device here". */
  tl__CUresult r = d.cuInit(0);
  assert_int_not_equal(r, TL__CUDA_SUCCESS);
  assert_true(tl__cuda_is_no_device(r));
  assert_non_null(tl__cuda_error_name(&d, r));
  tl__cuda_driver_close(&d);
  assert_true(all_null(&d));
}

static void test_process_wide_driver(void **state) {
  (void)state;
  const tl__cuda_driver *d = (const tl__cuda_driver *)(uintptr_t)1;
  tl_status s = tl__cuda_driver_get(&d);
  if (s == TL_OK) {
    /* A machine with a driver and a device. */
    assert_non_null(d);
    assert_true(d->driver_version > 0);
    int count = 0;
    assert_int_equal(d->cuDeviceGetCount(&count), TL__CUDA_SUCCESS);
    assert_true(count > 0);
  } else {
    /* No driver or no device: unavailable, saying which, the same every time. */
    assert_int_equal(s, TL_EUNAVAILABLE);
    assert_null(d);
    assert_non_null(strstr(tl_last_error(), "libcuda.so.1"));
    char first[512];
    snprintf(first, sizeof first, "%s", tl_last_error());
    assert_int_equal(tl__cuda_driver_get(&d), TL_EUNAVAILABLE);
    assert_string_equal(tl_last_error(), first);
  }
}

static void test_result_classification(void **state) {
  (void)state;
  assert_true(tl__cuda_is_no_device(TL__CUDA_ERROR_NO_DEVICE));
  assert_true(tl__cuda_is_no_device(TL__CUDA_ERROR_STUB_LIBRARY));
  assert_true(tl__cuda_is_no_device(TL__CUDA_ERROR_INSUFFICIENT_DRIVER));
  assert_false(tl__cuda_is_no_device(TL__CUDA_SUCCESS));
  assert_false(tl__cuda_is_no_device(700)); /* CUDA_ERROR_ILLEGAL_ADDRESS: a real failure */
  assert_string_equal(tl__cuda_error_name(NULL, 100), "CUDA error 100");
  assert_string_equal(tl__cuda_error_string(NULL, 100), "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_missing_library),
    cmocka_unit_test(test_missing_symbol_is_all_or_nothing),
    cmocka_unit_test(test_stub_library_resolves_everything),
    cmocka_unit_test(test_process_wide_driver),
    cmocka_unit_test(test_result_classification),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
