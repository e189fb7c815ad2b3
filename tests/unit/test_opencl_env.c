/* The opencl backend's choice of library and device from the environment, each in a
 * fresh child process (the runtime is set up once per process): TL_OPENCL_LIBRARY
 * naming no library, TL_OPENCL_PLATFORM / TL_OPENCL_DEVICE out of range or
 * malformed (the spec is unavailable, saying why), and in range (it works). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tl_test.h"
#include "tilelang/backend.h"

/* In a child with the given environment: 0 if the opencl spec's availability and
 * reason are as expected, 1 otherwise (the reason printed). */
static int child_check(const char *const *env, bool want_available, const char *want_reason) {
  for (size_t i = 0; env[i]; i += 2) setenv(env[i], env[i + 1], 1);
  tl_backend_context *ctx = NULL;
  if (tl_create_backend_context("opencl", NULL, "source", &ctx) != TL_OK) {
    fprintf(stderr, "no context: %s\n", tl_last_error());
    return 1;
  }
  const tl_execution_backend_spec *spec = tl_backend_context_module(ctx)->execution_backends[0];
  bool available = tl_execution_backend_spec_is_available(spec);
  const char *why = tl_execution_backend_spec_unavailable_reason(spec);
  int rc = available == want_available && (!want_reason || (why && strstr(why, want_reason))) ? 0 : 1;
  if (rc) fprintf(stderr, "available %d, reason: %s (wanted %d, '%s')\n", available, why ? why : "(none)",
                  want_available, want_reason ? want_reason : "");
  tl_backend_context_release(ctx);
  return rc;
}

static void run_child(const char *const *env, bool want_available, const char *want_reason) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(child_check(env, want_available, want_reason));
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) != 0) fail_msg("child with %s=%s failed", env[0], env[1]);
}

/* Whether this machine has an OpenCL device at all (asked in a child too). */
static bool have_opencl(void) {
  static const char *const none[] = {NULL};
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(child_check(none, true, NULL));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_library(void **state) {
  (void)state;
  static const char *const env[] = {"TL_OPENCL_LIBRARY", "/nonexistent/libOpenCL.so.1", NULL};
  run_child(env, false, "cannot open the OpenCL ICD loader /nonexistent/libOpenCL.so.1");
}

static void test_device_choice(void **state) {
  (void)state;
  if (!have_opencl()) {
    print_message("skipped: no OpenCL device here\n");
    skip();
  }
  static const char *const first[] = {"TL_OPENCL_PLATFORM", "0", "TL_OPENCL_DEVICE", "0", NULL};
  run_child(first, true, NULL);
  static const char *const platform[] = {"TL_OPENCL_PLATFORM", "99", NULL};
  run_child(platform, false, "TL_OPENCL_PLATFORM=99 but there ");
  static const char *const device[] = {"TL_OPENCL_PLATFORM", "0", "TL_OPENCL_DEVICE", "99", NULL};
  run_child(device, false, "TL_OPENCL_DEVICE=99 but platform 0 has ");
  static const char *const bad[] = {"TL_OPENCL_DEVICE", "first", NULL};
  run_child(bad, false, "TL_OPENCL_DEVICE=first is not a device index");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_library),
    cmocka_unit_test(test_device_choice),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
