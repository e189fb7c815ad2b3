/* Opening the OpenCL ICD loader: one dlopen per process, every symbol looked up,
 * all or nothing (a partial table would fail at some later call instead of saying
 * up front what is missing). */
#define _GNU_SOURCE /* dlopen under -std=c11 */

#include "cl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static tlp_cl g_api;
static const tlp_cl *g_result;
static char g_why[512];

static void open_api(void) {
  const char *lib = getenv("TL_OPENCL_LIBRARY");
  if (!lib || !*lib) lib = "libOpenCL.so.1";
  dlerror();
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(g_why, sizeof g_why, "cannot open the OpenCL ICD loader %s (%s)", lib, e ? e : "dlopen failed");
    return;
  }
  void *sym;
#define TLP_CL_LOAD(name, ret, params)                                                                    \
  sym = dlsym(h, #name);                                                                                  \
  if (!sym) {                                                                                             \
    snprintf(g_why, sizeof g_why, "the OpenCL library %s lacks %s (an OpenCL 1.2 ICD loader is needed)", lib, \
             #name);                                                                                      \
    dlclose(h);                                                                                           \
    return;                                                                                               \
  }                                                                                                       \
  memcpy(&g_api.name, &sym, sizeof sym);
  TLP_CL_FUNCS(TLP_CL_LOAD)
#undef TLP_CL_LOAD
  /* The library stays open for the process: kernels hold its objects. */
  g_result = &g_api;
}

const tlp_cl *tlp_cl_api(const char **why) {
  pthread_once(&g_once, open_api);
  if (!g_result && why) *why = g_why;
  return g_result;
}

const char *tlp_cl_error_name(cl_int err) {
  static const struct {
    cl_int code;
    const char *name;
  } k_names[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
  };
  for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; i++)
    if (k_names[i].code == err) return k_names[i].name;
  return "CL error";
}
