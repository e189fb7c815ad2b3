/* The `opencl` execution backend: builds generated OpenCL C for the device of the
 * platform it finds, caches the program binary, and launches from the kernel table.
 *
 * The device: TL_OPENCL_PLATFORM / TL_OPENCL_DEVICE (indices, as clinfo lists them)
 * when set; else the first GPU of any platform; else the first device. One context
 * and one in-order queue per process, made on first use (pthread_once).
 *
 * Tensors (docs/writing-a-backend.md, "Memory"): kDLCPU tensors are host memory,
 * wrapped for the call with CL_MEM_USE_HOST_PTR (zero-copy on CPU devices such as
 * PoCL's; the driver copies on others) and mapped back when the launches are done;
 * kDLOpenCL tensors hold a cl_mem of this backend's context in `data` (a nonzero
 * byte_offset becomes a sub-buffer). A call's tensors all have the device type of
 * its first tensor; the argument checks (the kernel table's) require it.
 *
 * build writes kernel.cl and the program binary kernel.bin (CL_PROGRAM_BINARIES),
 * so a load from the kernel cache creates the program from the binary; a binary the
 * device no longer takes falls back to the source next to it. */
#define _GNU_SOURCE /* pthread, strnlen under -std=c11 */

#include <dlpack/dlpack.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_api.h"
#include "opencl.h"

#define K_DL_CPU ((int32_t)kDLCPU)
#define K_DL_OPENCL ((int32_t)kDLOpenCL)

/* ----------------------------------------------------------- the runtime */

typedef struct cl_runtime {
  const tlp_cl *cl;
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  bool ok;
  char why[1024];
  char device_desc[640];
  char options[128];
  char identity[1536];
} cl_runtime;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cl_runtime g_rt;

static void platform_str(cl_platform_id p, cl_platform_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  if (g_rt.cl->clGetPlatformInfo(p, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
  buf[cap - 1] = '\0';
}

static void device_str(cl_device_id d, cl_device_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  if (g_rt.cl->clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
  buf[cap - 1] = '\0';
}

/* An index from the environment: -1 when unset; -2 (and a reason) when malformed. */
static long env_index(const char *name) {
  const char *s = getenv(name);
  if (!s || !*s) return -1;
  char *end;
  long v = strtol(s, &end, 10);
  if (*end || v < 0) {
    snprintf(g_rt.why, sizeof g_rt.why, "%s=%s is not a device index (0, 1, ...)", name, s);
    return -2;
  }
  return v;
}

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

/* Picks the platform and device; false (and g_rt.why) when there is none. */
static bool pick_device(void) {
  const tlp_cl *cl = g_rt.cl;
  cl_platform_id platforms[MAX_PLATFORMS];
  cl_uint np = 0;
  cl_int err = cl->clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) {
    snprintf(g_rt.why, sizeof g_rt.why,
             "no OpenCL platform is installed (the ICD loader found no vendor in /etc/OpenCL/vendors; "
             "PoCL's CPU device comes with Debian's pocl-opencl-icd)");
    return false;
  }
  if (err != CL_SUCCESS) {
    snprintf(g_rt.why, sizeof g_rt.why, "clGetPlatformIDs failed: %s (%d)", tlp_cl_error_name(err), (int)err);
    return false;
  }
  if (np > MAX_PLATFORMS) np = MAX_PLATFORMS;
  long want_p = env_index("TL_OPENCL_PLATFORM"), want_d = env_index("TL_OPENCL_DEVICE");
  if (want_p == -2 || want_d == -2) return false;
  if (want_p >= (long)np) {
    snprintf(g_rt.why, sizeof g_rt.why, "TL_OPENCL_PLATFORM=%ld but there %s %u platform%s", want_p,
             np == 1 ? "is" : "are", (unsigned)np, np == 1 ? "" : "s");
    return false;
  }
  /* Two passes without an explicit choice: a GPU of any platform, then any device. */
  for (int pass = 0; pass < 2; pass++) {
    for (cl_uint p = 0; p < np; p++) {
      if (want_p >= 0 && (long)p != want_p) continue;
      cl_device_id devs[MAX_DEVICES];
      cl_uint nd = 0;
      if (cl->clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS || nd == 0)
        continue;
      if (nd > MAX_DEVICES) nd = MAX_DEVICES;
      if (want_d >= 0) {
        if (want_p < 0 && pass == 0) continue; /* a device index applies to the chosen platform */
        if (want_d >= (long)nd) {
          snprintf(g_rt.why, sizeof g_rt.why, "TL_OPENCL_DEVICE=%ld but platform %u has %u device%s", want_d,
                   (unsigned)p, (unsigned)nd, nd == 1 ? "" : "s");
          return false;
        }
        g_rt.platform = platforms[p];
        g_rt.device = devs[want_d];
        return true;
      }
      for (cl_uint d = 0; d < nd; d++) {
        cl_device_type type = 0;
        if (pass == 0 && (cl->clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
                          !(type & CL_DEVICE_TYPE_GPU)))
          continue;
        g_rt.platform = platforms[p];
        g_rt.device = devs[d];
        return true;
      }
    }
  }
  snprintf(g_rt.why, sizeof g_rt.why, "no OpenCL platform has a device");
  return false;
}

static void init_runtime(void) {
  const char *why = NULL;
  g_rt.cl = tlp_cl_api(&why);
  if (!g_rt.cl) {
    snprintf(g_rt.why, sizeof g_rt.why, "%s", why);
    return;
  }
  if (!pick_device()) return;
  const tlp_cl *cl = g_rt.cl;
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)g_rt.platform, 0};
  g_rt.ctx = cl->clCreateContext(props, 1, &g_rt.device, NULL, NULL, &err);
  if (!g_rt.ctx || err != CL_SUCCESS) {
    snprintf(g_rt.why, sizeof g_rt.why, "clCreateContext failed: %s (%d)", tlp_cl_error_name(err), (int)err);
    return;
  }
  g_rt.queue = cl->clCreateCommandQueue(g_rt.ctx, g_rt.device, 0, &err);
  if (!g_rt.queue || err != CL_SUCCESS) {
    snprintf(g_rt.why, sizeof g_rt.why, "clCreateCommandQueue failed: %s (%d)", tlp_cl_error_name(err), (int)err);
    return;
  }
  char pname[256], pversion[256], dname[256], driver[128], cversion[128];
  platform_str(g_rt.platform, CL_PLATFORM_NAME, pname, sizeof pname);
  platform_str(g_rt.platform, CL_PLATFORM_VERSION, pversion, sizeof pversion);
  device_str(g_rt.device, CL_DEVICE_NAME, dname, sizeof dname);
  device_str(g_rt.device, CL_DRIVER_VERSION, driver, sizeof driver);
  device_str(g_rt.device, CL_DEVICE_OPENCL_C_VERSION, cversion, sizeof cversion);
  /* Lowered code means one correctly rounded operation each: ask for correctly
   * rounded division and square root where the device offers them. */
  cl_device_fp_config fp = 0;
  bool exact_div = cl->clGetDeviceInfo(g_rt.device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL) == CL_SUCCESS &&
                   (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
  snprintf(g_rt.options, sizeof g_rt.options, "-cl-std=CL1.2%s",
           exact_div ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
  snprintf(g_rt.device_desc, sizeof g_rt.device_desc, "%s on %s", dname, pname);
  snprintf(g_rt.identity, sizeof g_rt.identity, "opencl|%s|%s|%s|%s|%s|%s", pname, pversion, dname, driver, cversion,
           g_rt.options);
  g_rt.ok = true;
}

static bool runtime_ready(void) {
  pthread_once(&g_once, init_runtime);
  return g_rt.ok;
}

bool tlp_opencl_available(void) { return runtime_ready(); }

const char *tlp_opencl_unavailable_reason(void) { return runtime_ready() ? NULL : g_rt.why; }

static tl_status unavailable(void) {
  return tlp_host->set_errorf(TL_EUNAVAILABLE, "the opencl execution backend is not available: %s", g_rt.why);
}

static tl_status cl_fail(tl_status s, const char *what, const char *subject, cl_int err) {
  return tlp_host->set_errorf(s, "OpenCL: %s%s%s%s failed: %s (%d)", what, subject ? "(" : "", subject ? subject : "",
                              subject ? ")" : "", tlp_cl_error_name(err), (int)err);
}

/* ------------------------------------------------------------ global funcs */

static tl_status get_ptr(tl_value *ret, void *p) {
  if (!runtime_ready()) return unavailable();
  ret->kind = TL_VALUE_PTR;
  ret->v.ptr = p;
  return TL_OK;
}

static tl_status fn_context(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args, (void)nargs, (void)user_data;
  return get_ptr(ret, runtime_ready() ? (void *)g_rt.ctx : NULL);
}
static tl_status fn_queue(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args, (void)nargs, (void)user_data;
  return get_ptr(ret, runtime_ready() ? (void *)g_rt.queue : NULL);
}
static tl_status fn_device(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args, (void)nargs, (void)user_data;
  return get_ptr(ret, runtime_ready() ? (void *)g_rt.device : NULL);
}

tl_status tlp_opencl_register_funcs(void) {
  tl_status s = tlp_host->register_global_func("opencl.context", fn_context, NULL, true);
  if (s == TL_OK) s = tlp_host->register_global_func("opencl.queue", fn_queue, NULL, true);
  if (s == TL_OK) s = tlp_host->register_global_func("opencl.device", fn_device, NULL, true);
  return s;
}

/* ----------------------------------------------------------------- build */

/* Builds `program` for the device; on failure TL_ECOMPILE with the build log. */
static tl_status build_program(cl_program program, const char *source_path) {
  const tlp_cl *cl = g_rt.cl;
  cl_int err = cl->clBuildProgram(program, 1, &g_rt.device, g_rt.options, NULL, NULL);
  if (err == CL_SUCCESS) return TL_OK;
  size_t n = 0;
  char *log = NULL;
  if (cl->clGetProgramBuildInfo(program, g_rt.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n) {
    log = tlp_host->alloc(n + 1);
    if (!log) return TL_ENOMEM;
    if (cl->clGetProgramBuildInfo(program, g_rt.device, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) log[0] = 0;
    log[n] = '\0';
  }
  tl_status s = tlp_host->set_errorf(TL_ECOMPILE, "OpenCL could not build %s for %s (%s, options '%s'):\n%s",
                                     source_path, g_rt.device_desc, tlp_cl_error_name(err), g_rt.options,
                                     log && *log ? log : "(no build log)");
  tlp_host->free(log);
  return s;
}

static tl_status program_from_source(const char *src, const char *path, cl_program *out) {
  cl_int err;
  const char *strings[] = {src};
  cl_program p = g_rt.cl->clCreateProgramWithSource(g_rt.ctx, 1, strings, NULL, &err);
  if (!p || err != CL_SUCCESS) return cl_fail(TL_ERUNTIME, "clCreateProgramWithSource", path, err);
  tl_status s = build_program(p, path);
  if (s != TL_OK) {
    g_rt.cl->clReleaseProgram(p);
    return s;
  }
  *out = p;
  return TL_OK;
}

static const char *device_source(const tl_build_request *req) {
  if (!req->device) return NULL;
  const char *fmt = tlp_host->artifact_format(req->device);
  return fmt && strcmp(fmt, "opencl") == 0 ? tlp_host->artifact_source(req->device) : NULL;
}

static tl_status write_in(const char *dir, const char *name, const void *data, size_t size) {
  char *path = tlp_host->path_join(dir, name);
  if (!path) return TL_ENOMEM;
  tl_status s = tlp_host->write_file(path, data, size);
  tlp_host->free(path);
  return s;
}

static tl_status opencl_build(const tl_build_request *req, const char *dir) {
  if (!runtime_ready()) return unavailable();
  const char *src = device_source(req);
  if (!src) return tlp_host->set_errorf(TL_EINVAL, "the opencl execution backend builds device code of format 'opencl'");
  tl_status s = write_in(dir, "kernel.cl", src, strlen(src));
  char *path = s == TL_OK ? tlp_host->path_join(dir, "kernel.cl") : NULL;
  if (s == TL_OK && !path) s = TL_ENOMEM;
  cl_program program = NULL;
  if (s == TL_OK) s = program_from_source(src, path, &program);
  tlp_host->free(path);
  if (s != TL_OK) return s;
  /* The binary for the one device (its size may be 0 where the platform has none). */
  size_t size = 0;
  unsigned char *bin = NULL;
  cl_int err = g_rt.cl->clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
  if (err != CL_SUCCESS) size = 0;
  if (size) {
    bin = tlp_host->alloc(size);
    if (!bin) s = TL_ENOMEM;
    unsigned char *bins[1] = {bin};
    if (s == TL_OK && g_rt.cl->clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS)
      size = 0;
  }
  if (s == TL_OK) s = write_in(dir, "kernel.bin", bin ? (const void *)bin : "", size);
  tlp_host->free(bin);
  g_rt.cl->clReleaseProgram(program);
  return s;
}

static const char *opencl_identity(const tl_build_request *req) {
  (void)req;
  if (!runtime_ready()) {
    unavailable();
    return NULL;
  }
  return g_rt.identity;
}

/* ------------------------------------------------------------------ load */

typedef struct cl_kernel_state {
  pthread_mutex_t lock; /* clSetKernelArg and the enqueue of one kernel object are not reentrant */
  cl_program program;
  uint32_t nkernels;
  cl_kernel *kernels;   /* one per launch of the table */
  tl_kernel_table *table;
} cl_kernel_state;

static void state_destroy(void *p) {
  cl_kernel_state *st = p;
  if (!st) return;
  for (uint32_t i = 0; st->kernels && i < st->nkernels; i++)
    if (st->kernels[i]) g_rt.cl->clReleaseKernel(st->kernels[i]);
  if (st->program) g_rt.cl->clReleaseProgram(st->program);
  tlp_host->kernel_table_free(st->table);
  tlp_host->free(st->kernels);
  pthread_mutex_destroy(&st->lock);
  tlp_host->free(st);
}

static tl_status opencl_call(void *state, const tl_value *args, int nargs, void *stream);

/* The program from kernel.bin, or else from kernel.cl. */
static tl_status load_program(const char *dir, cl_program *out) {
  const tlp_cl *cl = g_rt.cl;
  char *bin_path = tlp_host->path_join(dir, "kernel.bin");
  char *src_path = tlp_host->path_join(dir, "kernel.cl");
  char *bin = NULL, *src = NULL;
  size_t size = 0;
  tl_status s = bin_path && src_path ? TL_OK : TL_ENOMEM;
  if (s == TL_OK) s = tlp_host->read_file(bin_path, &bin, &size);
  if (s == TL_OK && size) {
    cl_int err, status;
    const unsigned char *bins[1] = {(const unsigned char *)bin};
    cl_program p = cl->clCreateProgramWithBinary(g_rt.ctx, 1, &g_rt.device, &size, bins, &status, &err);
    if (p && err == CL_SUCCESS && status == CL_SUCCESS &&
        cl->clBuildProgram(p, 1, &g_rt.device, g_rt.options, NULL, NULL) == CL_SUCCESS) {
      *out = p;
      goto done;
    }
    if (p) cl->clReleaseProgram(p); /* a binary this device does not take: the source */
  }
  if (s == TL_OK) s = tlp_host->read_file(src_path, &src, NULL);
  if (s == TL_OK) s = program_from_source(src, src_path, out);
done:
  tlp_host->free(bin);
  tlp_host->free(src);
  tlp_host->free(bin_path);
  tlp_host->free(src_path);
  return s;
}

static tl_status opencl_load(const tl_build_request *req, const char *dir, tl_loaded_kernel *out) {
  if (!runtime_ready()) return unavailable();
  if (!req->table)
    return tlp_host->set_errorf(TL_EUNSUPPORTED,
                                "the opencl execution backend launches from the kernel table, and kernel '%s' has none "
                                "(a parameter dimension such as N * 2, or declared strides)",
                                req->func_name ? req->func_name : "?");
  cl_kernel_state *st = tlp_host->alloc(sizeof *st);
  if (!st) return TL_ENOMEM;
  memset(st, 0, sizeof *st);
  pthread_mutex_init(&st->lock, NULL);
  tl_status s = tlp_host->kernel_table_copy(req->table, &st->table);
  /* The dialect's vector accesses are vload/vstore, which need only the element's
   * alignment: the 16 bytes the lowering asked of host pointers (a CUDA float4) do
   * not apply, and a kDLOpenCL tensor's data is a cl_mem handle, whose address means
   * nothing. The copy is this kernel's own. */
  for (uint32_t p = 0; s == TL_OK && p < st->table->nparams; p++)
    ((tl_host_param *)st->table->params)[p].data_alignment = 0;
  if (s == TL_OK) s = load_program(dir, &st->program);
  if (s == TL_OK && st->table->nlaunches) {
    st->kernels = tlp_host->alloc(st->table->nlaunches * sizeof *st->kernels);
    if (!st->kernels) s = TL_ENOMEM;
    else memset(st->kernels, 0, st->table->nlaunches * sizeof *st->kernels);
  }
  for (uint32_t i = 0; s == TL_OK && i < st->table->nlaunches; i++) {
    cl_int err;
    const char *sym = st->table->launches[i].symbol;
    st->kernels[i] = g_rt.cl->clCreateKernel(st->program, sym, &err);
    st->nkernels = i + 1;
    if (!st->kernels[i] || err != CL_SUCCESS) s = cl_fail(TL_ERUNTIME, "clCreateKernel", sym, err);
  }
  if (s != TL_OK) {
    state_destroy(st);
    return s;
  }
  *out = (tl_loaded_kernel){st, opencl_call, state_destroy};
  return TL_OK;
}

/* ------------------------------------------------------------------ call */

/* A 16-bit float scalar parameter is passed in its compute type (float), holding
 * a value of the 16-bit type: the argument rounded to nearest even, as the
 * generated host code and the interpreter round it (the dialect's helpers, in C). */
static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static float round_f16(float x) {
  uint32_t u = f32_bits(x), sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, m = u & 0x7fffffu;
  uint32_t h;
  int E = (int)e - 127 + 15, shift = 13;
  if (e == 0xffu) h = sign | 0x7c00u | (m ? 0x200u | (m >> 13) : 0u);
  else if (e == 0u || (E < 1 && 13 + 1 - E > 24)) h = sign;
  else if (E >= 31) h = sign | 0x7c00u;
  else {
    if (E < 1) shift += 1 - E;
    uint32_t sig = m | 0x800000u, q = sig >> shift, rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) q++;
    h = E < 1 ? sign | q : sign | (((uint32_t)(E - 1) << 10) + q);
  }
  /* back to float */
  uint32_t hs = (h & 0x8000u) << 16, he = (h >> 10) & 0x1fu, hm = h & 0x3ffu, r;
  if (he == 0x1fu) r = hs | 0x7f800000u | (hm ? 0x400000u | (hm << 13) : 0u);
  else if (he) r = hs | ((he + 112u) << 23) | (hm << 13);
  else if (!hm) r = hs;
  else {
    for (he = 113u; !(hm & 0x400u); he--) hm <<= 1;
    r = hs | (he << 23) | ((hm & 0x3ffu) << 13);
  }
  return bits_f32(r);
}

static float round_bf16(float x) {
  uint32_t u = f32_bits(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return bits_f32((u & 0xffff0000u) | ((u & 0x7fffffu) ? 0x400000u : 0u));
  u += 0x7fffu + ((u >> 16) & 1u);
  return bits_f32(u & 0xffff0000u);
}

/* The bytes of a scalar kernel argument of dtype t (the dialect's parameter type:
 * bool as int, 16-bit floats as float) from a checked call argument. */
static size_t scalar_arg(const tl_value *v, tl_dtype t, unsigned char buf[8]) {
  int64_t i = v->kind == TL_VALUE_BOOL ? (int64_t)v->v.b : v->kind == TL_VALUE_INT ? v->v.i : 0;
  double f = v->kind == TL_VALUE_FLOAT ? v->v.f : (double)i;
  switch (t.code) {
  case TL_DTYPE_BOOL: {
    int32_t b = i != 0;
    memcpy(buf, &b, 4);
    return 4;
  }
  case TL_DTYPE_INT:
  case TL_DTYPE_UINT: {
    size_t n = t.bits / 8;
    memcpy(buf, &i, n); /* little-endian hosts: the low bytes (the value was range-checked) */
    return n;
  }
  case TL_DTYPE_FLOAT:
    if (t.bits == 64) {
      memcpy(buf, &f, 8);
      return 8;
    } else {
      float x = t.bits == 16 ? round_f16((float)f) : (float)f;
      memcpy(buf, &x, 4);
      return 4;
    }
  case TL_DTYPE_BFLOAT: {
    float x = round_bf16((float)f);
    memcpy(buf, &x, 4);
    return 4;
  }
  default: return 0;
  }
}

/* The buffers of one call: a cl_mem per tensor parameter, made when first used. */
typedef struct call_mem {
  cl_mem mem;
  bool owned;     /* made here (released after the call) */
  bool host;      /* wraps host memory (mapped back after the launches) */
  size_t size;
  void *data;     /* host address (host) */
} call_mem;

static size_t tensor_bytes(const DLTensor *t) {
  size_t n = (size_t)t->dtype.bits / 8 * t->dtype.lanes;
  for (int32_t d = 0; d < t->ndim; d++) n *= (size_t)t->shape[d];
  return n;
}

static tl_status tensor_mem(const tl_value *arg, call_mem *out, call_mem *all, uint32_t nall) {
  const tlp_cl *cl = g_rt.cl;
  const DLTensor *t = (const DLTensor *)arg->v.tensor;
  size_t size = tensor_bytes(t);
  cl_int err = CL_SUCCESS;
  if (t->device.device_type == kDLOpenCL) {
    cl_mem base = (cl_mem)t->data;
    if (size == 0 || !base) {
      out->mem = cl->clCreateBuffer(g_rt.ctx, CL_MEM_READ_WRITE, 16, NULL, &err); /* nothing is read from it */
      out->owned = true;
    } else if (t->byte_offset) {
      cl_buffer_region region = {(size_t)t->byte_offset, size};
      out->mem = cl->clCreateSubBuffer(base, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
      out->owned = true;
    } else {
      out->mem = base;
    }
    if (!out->mem || err != CL_SUCCESS)
      return cl_fail(TL_ERUNTIME, out->owned && size ? "clCreateSubBuffer" : "clCreateBuffer", NULL, err);
    return TL_OK;
  }
  void *data = t->data ? (char *)t->data + t->byte_offset : NULL;
  for (uint32_t i = 0; i < nall; i++) /* the same memory twice: one buffer */
    if (all[i].mem && all[i].host && all[i].data == data && all[i].size == size && size) {
      out->mem = all[i].mem;
      return TL_OK;
    }
  if (size == 0 || !data) {
    out->mem = cl->clCreateBuffer(g_rt.ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
    out->owned = true;
  } else {
    out->mem = cl->clCreateBuffer(g_rt.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, data, &err);
    out->owned = out->host = true;
    out->data = data;
    out->size = size;
  }
  if (!out->mem || err != CL_SUCCESS) return cl_fail(TL_ERUNTIME, "clCreateBuffer", NULL, err);
  return TL_OK;
}

/* Makes the host memory of `m` current (the device may have worked on a copy). */
static tl_status sync_host(cl_command_queue q, const call_mem *m) {
  const tlp_cl *cl = g_rt.cl;
  cl_int err;
  void *p = cl->clEnqueueMapBuffer(q, m->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, m->size, 0, NULL, NULL, &err);
  if (!p || err != CL_SUCCESS) return cl_fail(TL_ERUNTIME, "clEnqueueMapBuffer", NULL, err);
  cl_event ev = NULL;
  err = cl->clEnqueueUnmapMemObject(q, m->mem, p, 0, NULL, &ev);
  if (err == CL_SUCCESS) err = cl->clWaitForEvents(1, &ev);
  if (ev) cl->clReleaseEvent(ev);
  return err == CL_SUCCESS ? TL_OK : cl_fail(TL_ERUNTIME, "clEnqueueUnmapMemObject", NULL, err);
}

/* The device type of the call: its first tensor's (checked for all by bind_args). */
static int32_t call_device_type(const tl_value *args, int nargs) {
  for (int i = 0; i < nargs; i++)
    if (args[i].kind == TL_VALUE_TENSOR && args[i].v.tensor)
      return ((const DLTensor *)args[i].v.tensor)->device.device_type == kDLOpenCL ? K_DL_OPENCL : K_DL_CPU;
  return K_DL_CPU;
}

#define INLINE_SYMS 16
#define INLINE_PARAMS 16

/* Sets the arguments of launch `k` and enqueues it (global = grid * block). */
static tl_status launch(cl_kernel_state *st, uint32_t k, const tl_value *args, const int64_t *syms, call_mem *mems,
                        cl_command_queue q, cl_event *done) {
  const tlp_cl *cl = g_rt.cl;
  const tl_kernel_launch *l = &st->table->launches[k];
  size_t global[3], local[3];
  for (int d = 0; d < 3; d++) {
    int64_t g = 1, b = 1;
    if (!tlp_host->launch_expr_eval(&l->grid[d], syms, st->table->nsyms, &g) ||
        !tlp_host->launch_expr_eval(&l->block[d], syms, st->table->nsyms, &b))
      return tlp_host->set_errorf(TL_EINVAL, "kernel '%s': a launch extent cannot be evaluated (a zero divisor)",
                                  l->symbol);
    if (g < 0 || b < 1 || (g && (uint64_t)b > SIZE_MAX / (uint64_t)g))
      return tlp_host->set_errorf(TL_EINVAL, "kernel '%s': launch extents grid %lld, block %lld in dimension %d",
                                  l->symbol, (long long)g, (long long)b, d);
    if (g == 0) return TL_OK; /* no block to run */
    global[d] = (size_t)g * (size_t)b;
    local[d] = (size_t)b;
  }
  cl_kernel kern = st->kernels[k];
  cl_int err = CL_SUCCESS;
  for (uint32_t a = 0; a < l->nargs && err == CL_SUCCESS; a++) {
    const tl_kernel_arg *ka = &l->args[a];
    unsigned char buf[8];
    size_t n = 0;
    if (ka->kind == TL_KARG_TENSOR) {
      err = cl->clSetKernelArg(kern, a, sizeof(cl_mem), &mems[ka->index].mem);
      continue;
    }
    if (ka->kind == TL_KARG_SCALAR) {
      n = scalar_arg(&args[ka->index], ka->dtype, buf);
    } else {
      tl_value v = {TL_VALUE_INT, 0, {.i = syms[ka->index]}};
      n = scalar_arg(&v, ka->dtype, buf);
    }
    if (!n) return tlp_host->set_errorf(TL_EUNSUPPORTED, "kernel '%s': argument %u has no OpenCL type", l->symbol, a);
    err = cl->clSetKernelArg(kern, a, n, buf);
  }
  if (err != CL_SUCCESS) return cl_fail(TL_ERUNTIME, "clSetKernelArg", l->symbol, err);
  cl_event ev = NULL;
  err = cl->clEnqueueNDRangeKernel(q, kern, 3, NULL, global, local, 0, NULL, &ev);
  if (err != CL_SUCCESS) return cl_fail(TL_ERUNTIME, "clEnqueueNDRangeKernel", l->symbol, err);
  if (*done) cl->clReleaseEvent(*done);
  *done = ev;
  return TL_OK;
}

static tl_status opencl_call(void *state, const tl_value *args, int nargs, void *stream) {
  cl_kernel_state *st = state;
  const tl_kernel_table *t = st->table;
  const tlp_cl *cl = g_rt.cl;
  int32_t device_type = call_device_type(args, nargs);
  int64_t syms_inline[INLINE_SYMS], *syms = syms_inline;
  call_mem mems_inline[INLINE_PARAMS], *mems = mems_inline;
  if (t->nsyms > INLINE_SYMS && !(syms = tlp_host->alloc(t->nsyms * sizeof *syms))) return TL_ENOMEM;
  if (t->nparams > INLINE_PARAMS && !(mems = tlp_host->alloc(t->nparams * sizeof *mems))) {
    if (syms != syms_inline) tlp_host->free(syms);
    return TL_ENOMEM;
  }
  memset(mems, 0, (t->nparams ? t->nparams : 1) * sizeof *mems);
  /* Every argument is checked before anything is made or launched. */
  tl_status s = tlp_host->kernel_table_bind_args(t, args, nargs, device_type, syms);
  for (uint32_t p = 0; s == TL_OK && p < t->nparams; p++)
    if (t->params[p].is_tensor) s = tensor_mem(&args[p], &mems[p], mems, p);
  cl_command_queue q = stream ? (cl_command_queue)stream : g_rt.queue;
  cl_event done = NULL;
  if (s == TL_OK) {
    pthread_mutex_lock(&st->lock);
    for (uint32_t k = 0; s == TL_OK && k < t->nlaunches; k++) s = launch(st, k, args, syms, mems, q, &done);
    pthread_mutex_unlock(&st->lock);
  }
  /* Our queue, or host memory: wait. A caller's queue with its own buffers: its order. */
  bool host_mem = device_type == K_DL_CPU;
  if (done) {
    if (!stream || host_mem) {
      cl_int err = cl->clWaitForEvents(1, &done);
      if (err != CL_SUCCESS && s == TL_OK) s = cl_fail(TL_ERUNTIME, "clWaitForEvents", NULL, err);
    }
    cl->clReleaseEvent(done);
  }
  for (uint32_t p = 0; p < t->nparams; p++) {
    if (mems[p].host && mems[p].owned) {
      tl_status m = sync_host(q, &mems[p]);
      if (s == TL_OK) s = m;
    }
  }
  for (uint32_t p = 0; p < t->nparams; p++)
    if (mems[p].owned && mems[p].mem) cl->clReleaseMemObject(mems[p].mem);
  if (syms != syms_inline) tlp_host->free(syms);
  if (mems != mems_inline) tlp_host->free(mems);
  return s;
}

static const char *const k_files[] = {"kernel.cl", "kernel.bin", NULL};

const tl_exec_impl tlp_opencl_exec = {
  .struct_size = sizeof(tl_exec_impl),
  .name = "opencl",
  .files = k_files,
  .identity = opencl_identity,
  .build = opencl_build,
  .load = opencl_load,
};
