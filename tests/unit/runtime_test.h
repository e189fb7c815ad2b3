/* Helpers for the code generator and runtime tests: generate C for a lowered module,
 * build and load it with an execution backend implementation in a scratch
 * directory, and wrap the result as a kernel. */
#ifndef TL_RUNTIME_TEST_H
#define TL_RUNTIME_TEST_H

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/str.h"
#include "codegen/codegen.h"
#include "runtime/exec_impls.h"
#include "runtime/kernel.h"
#include "interp_util.h" /* and tl_test.h, once */

/* A fresh scratch directory (tl__free the path; rt_rmdir removes it). */
static inline char *rt_mkdtemp(void) {
  const char *tmp = getenv("TMPDIR");
  char *dir = tl__format("%s/tl-rt-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(dir);
  assert_non_null(mkdtemp(dir));
  return dir;
}

/* Removes a scratch directory and the files in it. */
static inline void rt_rmdir(char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char *p = tl__format("%s/%s", dir, e->d_name);
      if (p) unlink(p);
      tl__free(p);
    }
    closedir(d);
  }
  rmdir(dir);
  tl__free(dir);
}

/* Device and host artifacts of a lowered module (the caller releases them). */
static inline void rt_codegen(tl_ir_module *m, tl_artifact **device, tl_artifact **host) {
  tl_target *c = NULL;
  TL_ASSERT_OK(tl_target_parse("c", &c));
  TL_ASSERT_OK(tl__c_device_codegen(m, c, device));
  TL_ASSERT_OK(tl__c_host_codegen(m, c, host));
  tl_target_release(c);
}

/* Builds and loads `m` with implementation `impl` into a kernel. Returns the status
 * of the first failing step (the kernel is made only on success). Uses no cmocka
 * assertions, so threads may call it. */
static inline tl_status rt_build(const char *impl_name, tl_ir_module *m, const tl_kernel_table *table,
                                 const char *entry, tl_kernel **out) {
  *out = NULL;
  const tl__exec_impl *impl = tl__find_exec_impl(impl_name);
  if (!impl) return TL_ENOTFOUND;
  tl_artifact *device = NULL, *host = NULL;
  tl_target *c = NULL;
  tl_status s = tl_target_parse("c", &c);
  if (s == TL_OK) s = tl__c_device_codegen(m, c, &device);
  if (s == TL_OK) s = tl__c_host_codegen(m, c, &host);
  const char *tmp = getenv("TMPDIR");
  char *dir = s == TL_OK ? tl__format("%s/tl-rt-test-XXXXXX", tmp && *tmp ? tmp : "/tmp") : NULL;
  if (s == TL_OK && (!dir || !mkdtemp(dir))) s = TL_EIO;
  tl__build_request req = {entry, c, device, host, table, NULL};
  tl__loaded loaded = {0};
  if (s == TL_OK) s = impl->build(&req, dir);
  if (s == TL_OK) s = impl->load(&req, dir, &loaded);
  if (s == TL_OK) {
    tl__kernel_desc d = {entry, c, impl_name, table, tl_artifact_source(device), tl_artifact_source(host), false,
                         impl->memory};
    s = tl__kernel_create(&d, loaded, out);
  }
  if (dir) rt_rmdir(dir);
  tl_artifact_release(device);
  tl_artifact_release(host);
  tl_target_release(c);
  return s;
}

/* The execution backends that can run generated C here. */
static inline size_t rt_runners(const char **names) {
  size_t n = 0;
  if (tl__native_available()) names[n++] = "native";
  if (tl__tcc_available()) names[n++] = "tcc";
  return n;
}

#endif
