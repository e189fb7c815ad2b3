/* The `nvrtc` execution backend: NVRTC compiles the CUDA source of device codegen
 * `cuda` to a cubin for the target's arch, and the kernel table drives the launch
 * (no host code: the spec has enable_host_codegen = false, as upstream's nvrtc).
 *
 * build   NVRTC with --gpu-architecture=<arch> -I<CUDA include> --fmad=false
 *         -default-device -std=c++17; writes kernel.cu and kernel.cubin.
 * load    keeps the cubin bytes and the table; nothing touches the GPU yet.
 * call    tl_kernel_table_bind_args (device type kDLCUDA; all tensors on one
 *         device), then per launch: grid, block and dynamic shared memory from the
 *         table's launch expressions, the parameters from the tensors' data +
 *         byte_offset and the scalars by dtype, cuLaunchKernel on the caller's
 *         stream in the primary context of the tensors' device (made current only
 *         when another one is, and restored after).
 *
 * Per device, on the first call there: retain the primary context,
 * cuModuleLoadData, cuModuleGetFunction for each launch's symbol and, for a launch
 * needing more than 48 KB of dynamic shared memory, cuFuncSetAttribute(MAX_DYNAMIC_
 * SHARED_SIZE_BYTES) once. Those handles belong to this kernel object: two kernels
 * whose device functions share a name never share a handle. After the first call
 * per device the call path takes no lock, allocates nothing and formats nothing
 * unless it fails. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "base/alloc.h"
#include "base/dl_fd.h"
#include "base/error.h"
#include "base/files.h"
#include "base/fp16.h"
#include "base/str.h"
#include "runtime/cuda_arch.h"
#include "runtime/cuda_driver.h"
#include "runtime/exec_impls.h"
#include "runtime/nvrtc_lib.h"

/* Limits of the stack arrays on the call path (a table beyond them is refused at
 * load, with a message). */
#define MAX_SYMS 64
#define MAX_ARGS 128
#define MAX_DEVICES 64
/* Dynamic shared memory a kernel may use without opting in. */
#define DEFAULT_DYN_SHARED (48 * 1024)
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8

/* ------------------------------------------------------------------ identity */

/* The NVRTC options for an arch (static strings but the two built ones). */
typedef struct nvrtc_options {
  char arch[64];
  char include[600];
  const char *argv[8];
  int n;
} nvrtc_options;

static void make_options(const tl__nvrtc *n, const char *arch, nvrtc_options *o) {
  snprintf(o->arch, sizeof o->arch, "--gpu-architecture=%s", arch);
  o->n = 0;
  o->argv[o->n++] = o->arch;
  if (n->include[0]) {
    snprintf(o->include, sizeof o->include, "-I%s", n->include);
    o->argv[o->n++] = o->include;
  }
  /* --fmad=false: one IR operation is one rounding, as the interpreter computes. */
  o->argv[o->n++] = "--fmad=false";
  o->argv[o->n++] = "-default-device";
  o->argv[o->n++] = "-std=c++17";
}

/* "nvrtc 13.0|sm_90a|<options>", cached per arch (a small list: one entry per arch
 * a process compiles for). */
static pthread_mutex_t g_id_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  char arch[32];
  char *text;
} g_ids[64];

static const char *nvrtc_identity(const tl__build_request *req) {
  const tl__nvrtc *n;
  if (tl__nvrtc_get(&n) != TL_OK) return NULL;
  char arch[32];
  if (tl__cuda_resolve_arch(req->target, arch, sizeof arch) != TL_OK) return NULL;
  pthread_mutex_lock(&g_id_lock);
  const char *found = NULL;
  size_t i = 0;
  for (; i < sizeof g_ids / sizeof g_ids[0] && g_ids[i].text; i++)
    if (strcmp(g_ids[i].arch, arch) == 0) found = g_ids[i].text;
  if (!found) {
    nvrtc_options o;
    make_options(n, arch, &o);
    tl__sb sb = TL__SB_INIT;
    tl__sb_appendf(&sb, "nvrtc %d.%d|%s|", n->major, n->minor, arch);
    for (int k = 0; k < o.n; k++) tl__sb_appendf(&sb, "%s%s", k ? " " : "", o.argv[k]);
    char *text = tl__sb_finish(&sb);
    if (!text) {
      tl__oom();
    } else if (i < sizeof g_ids / sizeof g_ids[0]) {
      snprintf(g_ids[i].arch, sizeof g_ids[i].arch, "%s", arch);
      g_ids[i].text = text; /* kept for the life of the process: callers hold it */
      found = text;
    } else {
      tl__free(text);
      tl__error(TL_EUNSUPPORTED, "execution backend 'nvrtc': one process compiles for at most %zu archs",
                sizeof g_ids / sizeof g_ids[0]);
    }
  }
  pthread_mutex_unlock(&g_id_lock);
  return found;
}

/* -------------------------------------------------------------------- build */

static tl_status nvrtc_build(const tl__build_request *req, const char *dir) {
  const tl__nvrtc *n;
  TL__TRY(tl__nvrtc_get(&n));
  if (!req->device) return tl__error(TL_EINVAL, "execution backend 'nvrtc' needs device code");
  const char *format = tl_artifact_format(req->device);
  if (strcmp(format, "cuda") != 0 && strcmp(format, "cubin") != 0)
    return tl__error(TL_EINVAL, "execution backend 'nvrtc' compiles CUDA source, not an artifact of format '%s'", format);
  if (!req->table)
    return tl__error(TL_EUNSUPPORTED,
                     "execution backend 'nvrtc' launches from the kernel table, and '%s' has none (a parameter "
                     "dimension such as N * 2 cannot be described by one); use execution backend 'nvcc'",
                     req->func_name ? req->func_name : "?");
  char arch[32];
  TL__TRY(tl__cuda_resolve_arch(req->target, arch, sizeof arch));
  nvrtc_options o;
  make_options(n, arch, &o);
  const char *src = tl_artifact_source(req->device);
  char *cu = tl__path_join(dir, "kernel.cu"), *cubin = tl__path_join(dir, "kernel.cubin");
  tl_status s = cu && cubin ? tl__file_write(cu, src, strlen(src)) : tl__oom();
  tl__nvrtc_result r = {0};
  if (s == TL_OK) s = tl__nvrtc_compile(n, src, cu, o.argv, o.n, &r);
  if (s == TL_OK) s = tl__file_write(cubin, r.cubin, r.size);
  tl__nvrtc_result_free(&r);
  tl__free(cu);
  tl__free(cubin);
  return s;
}

/* --------------------------------------------------------------------- load */

/* A launch, prepared: its function per device and the dynamic shared memory it
 * may ask for above the default (set once per device). */
typedef struct launch_plan {
  const tl_kernel_launch *l; /* in the state's table */
  int64_t max_dyn_shared;    /* constant dyn_shared_bytes, or -1 when not constant */
} launch_plan;

typedef struct device_slot {
  atomic_int ready; /* 1 once everything below is set (release/acquire) */
  tl__CUdevice dev;
  tl__CUcontext ctx;
  tl__CUmodule mod;
  tl__CUfunction *fns; /* one per launch */
} device_slot;

typedef struct nvrtc_state {
  tl_kernel_table *table;
  char *cubin;
  size_t cubin_size;
  launch_plan *plans;
  pthread_mutex_t lock; /* first use of a device */
  device_slot slots[MAX_DEVICES];
} nvrtc_state;

static tl_status cu_fail(const tl__cuda_driver *d, tl__CUresult r, const char *what, const char *name) {
  return tl__error(TL_ERUNTIME, "%s%s%s%s failed: %s (%s)", what, name ? " of '" : "", name ? name : "",
                   name ? "'" : "", tl__cuda_error_name(d, r), tl__cuda_error_string(d, r));
}

static void nvrtc_destroy(void *state) {
  nvrtc_state *st = state;
  if (!st) return;
  const tl__cuda_driver *d = NULL;
  bool used = false; /* a device was set up, so the driver is open */
  for (int i = 0; i < MAX_DEVICES; i++) used = used || st->slots[i].ctx;
  if (used && tl__cuda_driver_get(&d) != TL_OK) d = NULL;
  for (int i = 0; i < MAX_DEVICES; i++) {
    device_slot *sl = &st->slots[i];
    tl__free(sl->fns);
    if (!d) continue;
    if (sl->mod) {
      tl__CUcontext prev = NULL;
      if (d->cuCtxGetCurrent(&prev) == TL__CUDA_SUCCESS && prev != sl->ctx) d->cuCtxSetCurrent(sl->ctx);
      d->cuModuleUnload(sl->mod);
      if (prev != sl->ctx) d->cuCtxSetCurrent(prev);
    }
    if (sl->ctx) d->cuDevicePrimaryCtxRelease(sl->dev);
  }
  pthread_mutex_destroy(&st->lock);
  tl_kernel_table_free(st->table);
  tl__free(st->cubin);
  tl__free(st->plans);
  tl__free(st);
}

/* The constant value of a launch expression, or -1. */
static int64_t constant_of(const tl_launch_expr *e) {
  int64_t v;
  for (uint32_t i = 0; i < e->n; i++)
    if (e->code[i].op == TL_LX_SYM) return -1;
  return tl_launch_expr_eval(e, NULL, 0, &v) ? v : -1;
}

static tl_status nvrtc_call(void *state, const tl_value *args, int nargs, void *stream);

static tl_status nvrtc_load(const tl__build_request *req, const char *dir, tl__loaded *out) {
  if (!req->table)
    return tl__error(TL_EUNSUPPORTED, "execution backend 'nvrtc' launches from the kernel table, and there is none");
  const tl_kernel_table *t = req->table;
  if (t->nsyms > MAX_SYMS)
    return tl__error(TL_EUNSUPPORTED, "execution backend 'nvrtc': '%s' has %u symbolic dims (at most %d)", t->entry,
                     t->nsyms, MAX_SYMS);
  for (uint32_t i = 0; i < t->nlaunches; i++)
    if (t->launches[i].nargs > MAX_ARGS)
      return tl__error(TL_EUNSUPPORTED, "execution backend 'nvrtc': kernel '%s' has %u parameters (at most %d)",
                       t->launches[i].symbol, t->launches[i].nargs, MAX_ARGS);
  nvrtc_state *st = tl__calloc(1, sizeof *st);
  if (!st) return tl__oom();
  pthread_mutex_init(&st->lock, NULL);
  char *path = tl__load_path(dir, "kernel.cubin"); /* the verified file, when loading from the cache */
  tl_status s = path ? tl__file_read(path, &st->cubin, &st->cubin_size) : tl__oom();
  tl__free(path);
  if (s == TL_OK && st->cubin_size == 0) s = tl__error(TL_EIO, "execution backend 'nvrtc': %s/kernel.cubin is empty", dir);
  if (s == TL_OK) s = tl_kernel_table_copy(t, &st->table);
  if (s == TL_OK && !(st->plans = tl__calloc(t->nlaunches ? t->nlaunches : 1, sizeof *st->plans))) s = tl__oom();
  if (s == TL_OK) {
    for (uint32_t i = 0; i < st->table->nlaunches; i++) {
      st->plans[i].l = &st->table->launches[i];
      st->plans[i].max_dyn_shared = constant_of(&st->table->launches[i].dyn_shared_bytes);
    }
  }
  if (s != TL_OK) {
    nvrtc_destroy(st);
    return s;
  }
  *out = (tl__loaded){st, nvrtc_call, nvrtc_destroy};
  return TL_OK;
}

/* ---------------------------------------------------------------- the call */

/* Loads the module on device `ordinal` (first call there), under the lock. */
static tl_status init_slot(const tl__cuda_driver *d, nvrtc_state *st, int ordinal, device_slot *sl) {
  tl__CUresult r = d->cuDeviceGet(&sl->dev, ordinal);
  if (r != TL__CUDA_SUCCESS) return cu_fail(d, r, "cuDeviceGet", NULL);
  tl__CUcontext ctx = NULL, prev = NULL;
  if ((r = d->cuDevicePrimaryCtxRetain(&ctx, sl->dev)) != TL__CUDA_SUCCESS)
    return cu_fail(d, r, "cuDevicePrimaryCtxRetain", NULL);
  tl__CUfunction *fns = tl__calloc(st->table->nlaunches ? st->table->nlaunches : 1, sizeof *fns);
  if (!fns) {
    d->cuDevicePrimaryCtxRelease(sl->dev);
    return tl__oom();
  }
  tl_status s = TL_OK;
  tl__CUmodule mod = NULL;
  if ((r = d->cuCtxGetCurrent(&prev)) != TL__CUDA_SUCCESS) s = cu_fail(d, r, "cuCtxGetCurrent", NULL);
  if (s == TL_OK && prev != ctx && (r = d->cuCtxSetCurrent(ctx)) != TL__CUDA_SUCCESS)
    s = cu_fail(d, r, "cuCtxSetCurrent", NULL);
  if (s == TL_OK && (r = d->cuModuleLoadData(&mod, st->cubin)) != TL__CUDA_SUCCESS)
    s = cu_fail(d, r, "cuModuleLoadData", st->table->entry);
  for (uint32_t i = 0; s == TL_OK && i < st->table->nlaunches; i++) {
    const launch_plan *p = &st->plans[i];
    if ((r = d->cuModuleGetFunction(&fns[i], mod, p->l->symbol)) != TL__CUDA_SUCCESS) {
      s = cu_fail(d, r, "cuModuleGetFunction", p->l->symbol);
      break;
    }
    if (p->max_dyn_shared > DEFAULT_DYN_SHARED &&
        (r = d->cuFuncSetAttribute(fns[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)p->max_dyn_shared)) !=
            TL__CUDA_SUCCESS)
      s = cu_fail(d, r, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", p->l->symbol);
  }
  if (s != TL_OK && mod) d->cuModuleUnload(mod);
  if (prev != ctx) d->cuCtxSetCurrent(prev);
  if (s != TL_OK) {
    tl__free(fns);
    d->cuDevicePrimaryCtxRelease(sl->dev);
    return s;
  }
  sl->ctx = ctx;
  sl->mod = mod;
  sl->fns = fns;
  atomic_store_explicit(&sl->ready, 1, memory_order_release);
  return TL_OK;
}

static tl_status get_slot(const tl__cuda_driver *d, nvrtc_state *st, int ordinal, device_slot **out) {
  if (ordinal < 0 || ordinal >= MAX_DEVICES)
    return tl__error(TL_EINVAL, "execution backend 'nvrtc': CUDA device %d is out of range (at most %d devices)",
                     ordinal, MAX_DEVICES);
  device_slot *sl = &st->slots[ordinal];
  if (!atomic_load_explicit(&sl->ready, memory_order_acquire)) {
    pthread_mutex_lock(&st->lock);
    tl_status s = atomic_load_explicit(&sl->ready, memory_order_relaxed) ? TL_OK : init_slot(d, st, ordinal, sl);
    pthread_mutex_unlock(&st->lock);
    if (s != TL_OK) return s;
  }
  *out = sl;
  return TL_OK;
}

/* One kernel parameter's value, as the kernel's C type holds it. */
typedef union param_value {
  uint64_t ptr;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  bool b;
  float f32;
  double f64;
  void *handle;
} param_value;

static int64_t value_int(const tl_value *v) { return v->kind == TL_VALUE_BOOL ? (v->v.b ? 1 : 0) : v->v.i; }
static double value_float(const tl_value *v) { return v->kind == TL_VALUE_FLOAT ? v->v.f : (double)value_int(v); }

/* An integer or float of dtype t from an int64 (symbolic dims) or a scalar value. */
static void set_scalar(param_value *pv, tl_dtype t, const tl_value *v, int64_t iv, bool from_value) {
  if (t.code == TL_DTYPE_FLOAT || t.code == TL_DTYPE_BFLOAT) {
    double f = from_value ? value_float(v) : (double)iv;
    if (t.bits == 64) pv->f64 = f;
    else if (t.code == TL_DTYPE_BFLOAT) pv->f32 = tl__bf16_to_f32(tl__f64_to_bf16(f)); /* computed in float */
    else if (t.bits == 16) pv->f32 = tl__f16_to_f32(tl__f64_to_f16(f));
    else pv->f32 = (float)f;
    return;
  }
  if (t.code == TL_DTYPE_HANDLE) {
    pv->handle = from_value ? v->v.ptr : NULL;
    return;
  }
  int64_t x = from_value ? value_int(v) : iv;
  if (t.code == TL_DTYPE_BOOL) pv->b = x != 0;
  else if (t.bits == 8) pv->i8 = (int8_t)x;
  else if (t.bits == 16) pv->i16 = (int16_t)x;
  else if (t.bits == 32) pv->i32 = (int32_t)x;
  else pv->i64 = x;
}

/* The device of the call: that of the tensors, which must agree; -1 without
 * tensors. */
static tl_status call_device(const nvrtc_state *st, const tl_value *args, int *ordinal) {
  const tl_kernel_table *t = st->table;
  int first = -1;
  for (uint32_t i = 0; i < t->nparams; i++) {
    if (!t->params[i].is_tensor) continue;
    const DLTensor *x = (const DLTensor *)(const void *)args[i].v.tensor;
    if (first < 0) {
      first = (int)i;
      *ordinal = x->device.device_id;
    } else if (x->device.device_id != *ordinal) {
      return tl__error(TL_EINVAL,
                       "argument '%s': the tensor is on CUDA device %d but argument '%s' is on device %d; the "
                       "tensors of one call must be on one device",
                       t->params[i].name, (int)x->device.device_id, t->params[first].name, *ordinal);
    }
  }
  if (first < 0) *ordinal = -1;
  return TL_OK;
}

static tl_status eval_dim(const tl_launch_expr *e, const int64_t *syms, uint32_t nsyms, const char *what,
                          const char *symbol, int64_t limit, int64_t *out) {
  if (!tl_launch_expr_eval(e, syms, nsyms, out))
    return tl__error(TL_EINVAL, "launch of '%s': the %s cannot be evaluated (division by zero)", symbol, what);
  if (*out < 0 || *out > limit)
    return tl__error(TL_EINVAL, "launch of '%s': the %s is %" PRId64 ", outside 0..%" PRId64, symbol, what, *out, limit);
  return TL_OK;
}

static tl_status launch_one(const tl__cuda_driver *d, const nvrtc_state *st, tl__CUfunction fn,
                            const tl_kernel_launch *l, const tl_value *args, const int64_t *syms, void *stream) {
  static const char *const gw[3] = {"grid x extent", "grid y extent", "grid z extent"};
  static const char *const bw[3] = {"block x extent", "block y extent", "block z extent"};
  static const int64_t glim[3] = {2147483647, 65535, 65535}, blim[3] = {1024, 1024, 64};
  int64_t grid[3], block[3], dyn;
  uint32_t nsyms = st->table->nsyms;
  for (int k = 0; k < 3; k++) {
    TL__TRY(eval_dim(&l->grid[k], syms, nsyms, gw[k], l->symbol, glim[k], &grid[k]));
    TL__TRY(eval_dim(&l->block[k], syms, nsyms, bw[k], l->symbol, blim[k], &block[k]));
  }
  TL__TRY(eval_dim(&l->dyn_shared_bytes, syms, nsyms, "dynamic shared memory size", l->symbol, INT32_MAX, &dyn));
  /* An empty grid (a size of 0) has no work: nothing is launched. */
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return TL_OK;
  param_value vals[MAX_ARGS];
  void *params[MAX_ARGS];
  for (uint32_t i = 0; i < l->nargs; i++) {
    const tl_kernel_arg *a = &l->args[i];
    if (a->kind == TL_KARG_TENSOR) {
      const DLTensor *x = (const DLTensor *)(const void *)args[a->index].v.tensor;
      vals[i].ptr = (uint64_t)(uintptr_t)x->data + x->byte_offset;
    } else if (a->kind == TL_KARG_SCALAR) {
      set_scalar(&vals[i], a->dtype, &args[a->index], 0, true);
    } else {
      set_scalar(&vals[i], a->dtype, NULL, syms[a->index], false);
    }
    params[i] = &vals[i];
  }
  tl__CUresult r = d->cuLaunchKernel(fn, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2], (unsigned)block[0],
                                     (unsigned)block[1], (unsigned)block[2], (unsigned)dyn, (tl__CUstream)stream,
                                     l->nargs ? params : NULL, NULL);
  return r == TL__CUDA_SUCCESS ? TL_OK : cu_fail(d, r, "cuLaunchKernel", l->symbol);
}

static tl_status nvrtc_call(void *state, const tl_value *args, int nargs, void *stream) {
  nvrtc_state *st = state;
  int64_t syms[MAX_SYMS];
  TL__TRY(tl_kernel_table_bind_args(st->table, args, nargs, kDLCUDA, syms));
  int ordinal = 0;
  TL__TRY(call_device(st, args, &ordinal));
  /* The driver is opened by the first call (once per process): building and
   * loading a kernel need no GPU. */
  const tl__cuda_driver *d;
  TL__TRY(tl__cuda_driver_get(&d));
  if (ordinal < 0) {
    /* No tensors: the device of the current context, else device 0. */
    tl__CUcontext ctx = NULL;
    tl__CUdevice dev = 0;
    ordinal = d->cuCtxGetCurrent(&ctx) == TL__CUDA_SUCCESS && ctx && d->cuCtxGetDevice(&dev) == TL__CUDA_SUCCESS ? dev : 0;
  }
  device_slot *sl = NULL;
  TL__TRY(get_slot(d, st, ordinal, &sl));
  tl__CUcontext prev = NULL;
  tl__CUresult r = d->cuCtxGetCurrent(&prev);
  if (r != TL__CUDA_SUCCESS) return cu_fail(d, r, "cuCtxGetCurrent", NULL);
  if (prev != sl->ctx && (r = d->cuCtxSetCurrent(sl->ctx)) != TL__CUDA_SUCCESS)
    return cu_fail(d, r, "cuCtxSetCurrent", NULL);
  tl_status s = TL_OK;
  for (uint32_t i = 0; i < st->table->nlaunches && s == TL_OK; i++)
    s = launch_one(d, st, sl->fns[i], &st->table->launches[i], args, syms, stream);
  if (prev != sl->ctx) d->cuCtxSetCurrent(prev);
  return s;
}

static const char *const k_files[] = {"kernel.cu", "kernel.cubin", NULL};

const tl__exec_impl tl__exec_nvrtc = {
  .name = "nvrtc",
  .files = k_files,
  .identity = nvrtc_identity,
  .build = nvrtc_build,
  .load = nvrtc_load,
  .memory = &tl__cuda_memory,
};
