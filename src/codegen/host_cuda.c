/* Launch emitter `cuda_driver` of host codegen `c` (docs/lowering.md): host entries
 * that launch GPU-lowered kernels from an embedded cubin through the CUDA driver.
 *
 * The generated C is self-contained: it opens libcuda.so.1 with dlopen at the first
 * launch (no CUDA header, no link against CUDA), loads the module into the primary
 * context of the tensors' device on the first call there (one slot per device,
 * published with a release store and read with an acquire load, so later calls
 * take no lock), raises the dynamic shared memory limit once for kernels that need
 * more than 48 KB, and launches with cuLaunchKernel on the entry's stream in that
 * context (made current only when another one is, restored after). The image is
 * not part of the host source: the execution backend appends
 *
 *   static const unsigned char *tl_cuda_image_data(size_t *size) { ... }
 *
 * with the cubin's bytes (tl__cuda_image_source), so one host source serves any
 * binary of the same device code. `<entry>_cuda_unload()` unloads the modules and
 * releases the contexts (the execution backend calls it before unloading the
 * library). Errors return the library's status codes (4 unavailable, 7 runtime)
 * with the message in err, as every generated entry does. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "codegen/codegen.h"
#include "codegen/host_emit.h"

/* The driver table and the per-device module slots, once per translation unit. */
static const char k_driver_stub[] =
  "#include <dlfcn.h>\n"
  "#include <pthread.h>\n"
  "#include <stdatomic.h>\n"
  "#include <string.h>\n"
  "\n"
  "/* The CUDA driver, opened at the first launch: no CUDA header, no link against CUDA. */\n"
  "typedef struct TLCudaDriver {\n"
  "  int (*cuInit)(unsigned int flags);\n"
  "  int (*cuGetErrorName)(int error, const char **str);\n"
  "  int (*cuGetErrorString)(int error, const char **str);\n"
  "  int (*cuDeviceGet)(int *device, int ordinal);\n"
  "  int (*cuDevicePrimaryCtxRetain)(void **ctx, int device);\n"
  "  int (*cuDevicePrimaryCtxRelease)(int device);\n"
  "  int (*cuCtxGetCurrent)(void **ctx);\n"
  "  int (*cuCtxSetCurrent)(void *ctx);\n"
  "  int (*cuCtxGetDevice)(int *device);\n"
  "  int (*cuModuleLoadData)(void **module, const void *image);\n"
  "  int (*cuModuleUnload)(void *module);\n"
  "  int (*cuModuleGetFunction)(void **fn, void *module, const char *name);\n"
  "  int (*cuFuncSetAttribute)(void *fn, int attrib, int value);\n"
  "  int (*cuLaunchKernel)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,\n"
  "                        unsigned shared_bytes, void *stream, void **params, void **extra);\n"
  "} TLCudaDriver;\n"
  "\n"
  "static TLCudaDriver tl_cu;\n"
  "static int32_t tl_cu_status; /* 0, or the status every launch reports (4: unavailable) */\n"
  "static char tl_cu_message[512];\n"
  "static pthread_once_t tl_cu_once = PTHREAD_ONCE_INIT;\n"
  "\n"
  "static void tl_cu_open(void) {\n"
  "  static const struct { size_t offset; const char *symbol; } syms[] = {\n"
  "    {offsetof(TLCudaDriver, cuInit), \"cuInit\"},\n"
  "    {offsetof(TLCudaDriver, cuGetErrorName), \"cuGetErrorName\"},\n"
  "    {offsetof(TLCudaDriver, cuGetErrorString), \"cuGetErrorString\"},\n"
  "    {offsetof(TLCudaDriver, cuDeviceGet), \"cuDeviceGet\"},\n"
  "    {offsetof(TLCudaDriver, cuDevicePrimaryCtxRetain), \"cuDevicePrimaryCtxRetain\"},\n"
  "    {offsetof(TLCudaDriver, cuDevicePrimaryCtxRelease), \"cuDevicePrimaryCtxRelease_v2\"},\n"
  "    {offsetof(TLCudaDriver, cuCtxGetCurrent), \"cuCtxGetCurrent\"},\n"
  "    {offsetof(TLCudaDriver, cuCtxSetCurrent), \"cuCtxSetCurrent\"},\n"
  "    {offsetof(TLCudaDriver, cuCtxGetDevice), \"cuCtxGetDevice\"},\n"
  "    {offsetof(TLCudaDriver, cuModuleLoadData), \"cuModuleLoadData\"},\n"
  "    {offsetof(TLCudaDriver, cuModuleUnload), \"cuModuleUnload\"},\n"
  "    {offsetof(TLCudaDriver, cuModuleGetFunction), \"cuModuleGetFunction\"},\n"
  "    {offsetof(TLCudaDriver, cuFuncSetAttribute), \"cuFuncSetAttribute\"},\n"
  "    {offsetof(TLCudaDriver, cuLaunchKernel), \"cuLaunchKernel\"},\n"
  "  };\n"
  "  TLCudaDriver d;\n"
  "  void *h = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
  "  if (!h) {\n"
  "    const char *why = dlerror();\n"
  "    snprintf(tl_cu_message, sizeof tl_cu_message, \"CUDA driver library libcuda.so.1 could not be loaded (%s); \"\n"
  "             \"install the NVIDIA driver, or add its directory to LD_LIBRARY_PATH\", why ? why : \"unknown reason\");\n"
  "    tl_cu_status = 4;\n"
  "    return;\n"
  "  }\n"
  "  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {\n"
  "    void *p = dlsym(h, syms[i].symbol);\n"
  "    if (!p) {\n"
  "      snprintf(tl_cu_message, sizeof tl_cu_message, \"CUDA driver library libcuda.so.1 lacks the symbol %s; \"\n"
  "               \"install a current NVIDIA driver\", syms[i].symbol);\n"
  "      tl_cu_status = 4;\n"
  "      return;\n"
  "    }\n"
  "    memcpy((char *)&d + syms[i].offset, &p, sizeof p);\n"
  "  }\n"
  "  int r = d.cuInit(0);\n"
  "  if (r != 0) {\n"
  "    const char *name = NULL;\n"
  "    d.cuGetErrorName(r, &name);\n"
  "    snprintf(tl_cu_message, sizeof tl_cu_message, \"libcuda.so.1: cuInit failed with %s: no usable CUDA device\",\n"
  "             name ? name : \"an unknown error\");\n"
  "    tl_cu_status = 4;\n"
  "    return;\n"
  "  }\n"
  "  tl_cu = d;\n"
  "}\n"
  "\n"
  "/* \"<what> of '<name>' failed: CUDA_ERROR_X (description)\"; returns 7 (a runtime failure). */\n"
  "static int32_t tl_cu_fail(int r, const char *what, const char *name, char *err, size_t errcap) {\n"
  "  const char *en = NULL, *es = NULL;\n"
  "  tl_cu.cuGetErrorName(r, &en);\n"
  "  tl_cu.cuGetErrorString(r, &es);\n"
  "  snprintf(err, errcap, \"%s%s%s%s failed: %s (%s)\", what, name ? \" of '\" : \"\", name ? name : \"\", name ? \"'\" : \"\",\n"
  "           en ? en : \"CUDA error\", es ? es : \"\");\n"
  "  return 7;\n"
  "}\n";

/* The slot machinery after the kernel tables (TL_CU_NUM_KERNELS, the names and
 * the dynamic shared memory sizes are emitted before it). */
static const char k_slots[] =
  "#define TL_CU_MAX_DEVICES 64\n"
  "typedef struct TLCudaSlot {\n"
  "  atomic_int ready; /* set (release) once everything below is */\n"
  "  int dev;\n"
  "  void *ctx;\n"
  "  void *mod;\n"
  "  void *fn[TL_CU_NUM_KERNELS];\n"
  "} TLCudaSlot;\n"
  "static TLCudaSlot tl_cu_slots[TL_CU_MAX_DEVICES];\n"
  "static pthread_mutex_t tl_cu_lock = PTHREAD_MUTEX_INITIALIZER;\n"
  "\n"
  "static const unsigned char *tl_cuda_image_data(size_t *size); /* appended with the cubin */\n"
  "\n"
  "/* Loads the module into device dev's primary context; caller holds tl_cu_lock. */\n"
  "static int32_t tl_cu_load(int32_t dev, TLCudaSlot *s, char *err, size_t errcap) {\n"
  "  void *ctx = NULL, *prev = NULL, *mod = NULL, *fn[TL_CU_NUM_KERNELS] = {0};\n"
  "  int d = 0, r = tl_cu.cuDeviceGet(&d, dev);\n"
  "  if (r != 0) return tl_cu_fail(r, \"cuDeviceGet\", NULL, err, errcap);\n"
  "  if ((r = tl_cu.cuDevicePrimaryCtxRetain(&ctx, d)) != 0) return tl_cu_fail(r, \"cuDevicePrimaryCtxRetain\", NULL, err, errcap);\n"
  "  int32_t rc = 0;\n"
  "  if ((r = tl_cu.cuCtxGetCurrent(&prev)) != 0) rc = tl_cu_fail(r, \"cuCtxGetCurrent\", NULL, err, errcap);\n"
  "  if (rc == 0 && prev != ctx && (r = tl_cu.cuCtxSetCurrent(ctx)) != 0) rc = tl_cu_fail(r, \"cuCtxSetCurrent\", NULL, err, errcap);\n"
  "  size_t size = 0;\n"
  "  const unsigned char *image = tl_cuda_image_data(&size);\n"
  "  if (rc == 0 && (r = tl_cu.cuModuleLoadData(&mod, image)) != 0) rc = tl_cu_fail(r, \"cuModuleLoadData\", NULL, err, errcap);\n"
  "  for (int k = 0; rc == 0 && k < TL_CU_NUM_KERNELS; k++) {\n"
  "    if ((r = tl_cu.cuModuleGetFunction(&fn[k], mod, tl_cu_kernel_names[k])) != 0)\n"
  "      rc = tl_cu_fail(r, \"cuModuleGetFunction\", tl_cu_kernel_names[k], err, errcap);\n"
  "    else if (tl_cu_kernel_dyn_shared[k] > 48 * 1024 &&\n"
  "             (r = tl_cu.cuFuncSetAttribute(fn[k], 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, tl_cu_kernel_dyn_shared[k])) != 0)\n"
  "      rc = tl_cu_fail(r, \"cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)\", tl_cu_kernel_names[k], err, errcap);\n"
  "  }\n"
  "  if (rc != 0 && mod) tl_cu.cuModuleUnload(mod);\n"
  "  if (prev != ctx) tl_cu.cuCtxSetCurrent(prev);\n"
  "  if (rc != 0) {\n"
  "    tl_cu.cuDevicePrimaryCtxRelease(d);\n"
  "    return rc;\n"
  "  }\n"
  "  s->dev = d;\n"
  "  s->ctx = ctx;\n"
  "  s->mod = mod;\n"
  "  memcpy(s->fn, fn, sizeof fn);\n"
  "  atomic_store_explicit(&s->ready, 1, memory_order_release);\n"
  "  return 0;\n"
  "}\n"
  "\n"
  "/* The slot of device dev (-1: the current context's device, else 0), loaded on first use. */\n"
  "static int32_t tl_cu_slot(int32_t dev, TLCudaSlot **out, char *err, size_t errcap) {\n"
  "  pthread_once(&tl_cu_once, tl_cu_open);\n"
  "  if (tl_cu_status != 0) {\n"
  "    snprintf(err, errcap, \"%s\", tl_cu_message);\n"
  "    return tl_cu_status;\n"
  "  }\n"
  "  if (dev < 0) {\n"
  "    void *ctx = NULL;\n"
  "    int d = 0;\n"
  "    dev = tl_cu.cuCtxGetCurrent(&ctx) == 0 && ctx && tl_cu.cuCtxGetDevice(&d) == 0 ? d : 0;\n"
  "  }\n"
  "  if (dev >= TL_CU_MAX_DEVICES) {\n"
  "    snprintf(err, errcap, \"CUDA device %d is out of range (at most %d devices)\", (int)dev, TL_CU_MAX_DEVICES);\n"
  "    return 1;\n"
  "  }\n"
  "  TLCudaSlot *s = &tl_cu_slots[dev];\n"
  "  if (!atomic_load_explicit(&s->ready, memory_order_acquire)) {\n"
  "    pthread_mutex_lock(&tl_cu_lock);\n"
  "    int32_t rc = atomic_load_explicit(&s->ready, memory_order_relaxed) ? 0 : tl_cu_load(dev, s, err, errcap);\n"
  "    pthread_mutex_unlock(&tl_cu_lock);\n"
  "    if (rc != 0) return rc;\n"
  "  }\n"
  "  *out = s;\n"
  "  return 0;\n"
  "}\n";

/* Index of kernel `name` among the module's device kernels, or -1. */
static int kernel_index(const tl_ir_module *mod, const char *name) {
  int k = 0;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL) continue;
    if (name && strcmp(f->name, name) == 0) return k;
    k++;
  }
  return -1;
}

/* The largest constant dynamic shared memory of kernel `name`'s launches. */
typedef struct dyn_ctx {
  const char *kernel;
  int64_t max;
} dyn_ctx;

static bool dyn_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  dyn_ctx *c = v->ctx;
  const tl_ir_expr *e = s->kind == TL_STMT_LAUNCH ? s->u.launch.dyn_shared_bytes : NULL;
  if (e && e->kind == TL_EXPR_INT && s->u.launch.kernel && strcmp(s->u.launch.kernel, c->kernel) == 0 &&
      e->u.int_value > c->max)
    c->max = e->u.int_value;
  return true;
}

static int64_t kernel_dyn_shared(const tl_ir_module *mod, const char *kernel) {
  dyn_ctx c = {kernel, 0};
  tl_ir_visitor v = {NULL, dyn_stmt, &c};
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv == TL_CALLCONV_PACKED && f->body) tl_ir_visit_stmt(&v, f->body);
  }
  return c.max;
}

/* The module's first host entry (its name names the unload function). */
static const char *first_entry(const tl_ir_module *mod) {
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++)
    if (tl_ir_module_func(mod, i)->callconv == TL_CALLCONV_PACKED) return tl_ir_module_func(mod, i)->name;
  return NULL;
}

static void cuda_declare(tl__cgen *g, const tl_ir_module *mod) {
  tl__cgen_write(g, "%s\n", k_driver_stub);
  int n = 0;
  tl__sb names = TL__SB_INIT, dyn = TL__SB_INIT;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL) continue;
    int64_t bytes = kernel_dyn_shared(mod, f->name);
    tl__sb_appendf(&names, "%s\"%s\"", n ? ", " : "", f->name);
    tl__sb_appendf(&dyn, "%s%" PRId64, n ? ", " : "", bytes > INT32_MAX ? (int64_t)INT32_MAX : bytes);
    n++;
  }
  if (tl__sb_status(&names) != TL_OK || tl__sb_status(&dyn) != TL_OK) tl__cgen_oom(g);
  tl__cgen_write(g,
                 "/* The device kernels of the embedded module, and the dynamic shared memory each needs. */\n"
                 "#define TL_CU_NUM_KERNELS %d\n"
                 "static const char *const tl_cu_kernel_names[TL_CU_NUM_KERNELS] = {%s};\n"
                 "static const int tl_cu_kernel_dyn_shared[TL_CU_NUM_KERNELS] = {%s};\n\n",
                 n ? n : 1, n ? tl__sb_str(&names) : "\"\"", n ? tl__sb_str(&dyn) : "0");
  tl__sb_free(&names);
  tl__sb_free(&dyn);
  tl__cgen_write(g, "%s\n", k_slots);
  const char *entry = first_entry(mod);
  if (entry && tl__c_is_identifier(entry))
    tl__cgen_write(g,
                   "/* Unloads the modules this library loaded and releases their primary contexts; the next call\n"
                   " * loads them again. Not to be called while a launch of this library is in progress. */\n"
                   "void %s_cuda_unload(void) {\n"
                   "  pthread_mutex_lock(&tl_cu_lock);\n"
                   "  for (int i = 0; i < TL_CU_MAX_DEVICES; i++) {\n"
                   "    TLCudaSlot *s = &tl_cu_slots[i];\n"
                   "    if (!atomic_load_explicit(&s->ready, memory_order_acquire)) continue;\n"
                   "    void *prev = NULL;\n"
                   "    tl_cu.cuCtxGetCurrent(&prev);\n"
                   "    if (prev != s->ctx) tl_cu.cuCtxSetCurrent(s->ctx);\n"
                   "    tl_cu.cuModuleUnload(s->mod);\n"
                   "    if (prev != s->ctx) tl_cu.cuCtxSetCurrent(prev);\n"
                   "    tl_cu.cuDevicePrimaryCtxRelease(s->dev);\n"
                   "    atomic_store_explicit(&s->ready, 0, memory_order_release);\n"
                   "  }\n"
                   "  pthread_mutex_unlock(&tl_cu_lock);\n"
                   "}\n",
                   entry);
}

/* The tensor parameters of the entry (positions), for the device checks. */
static void device_prologue(tl__cgen *g, tl__host_ctx *c) {
  const tl_ir_func *f = c->f;
  int first = -1;
  for (uint32_t i = 0; i < f->nparams; i++) {
    if (f->params[i].kind != TL_PARAM_BUFFER) continue;
    if (first < 0) {
      first = (int)i;
      tl__cgen_line(g, "const int32_t tl_dev = args[%u].v.tensor->device.device_id;", i);
      continue;
    }
    tl__cgen_line(g, "if (args[%u].v.tensor->device.device_id != tl_dev) {", i);
    g->indent++;
    tl__cgen_line(g,
                  "snprintf(err, errcap, \"argument '%s': the tensor is on CUDA device %%d but argument '%s' is on "
                  "device %%d; the tensors of one call must be on one device\", (int)args[%u].v.tensor->device.device_id, "
                  "(int)tl_dev);",
                  f->params[i].name, f->params[first].name, i);
    tl__cgen_line(g, "return 1;");
    g->indent--;
    tl__cgen_line(g, "}");
  }
  if (first < 0) tl__cgen_line(g, "const int32_t tl_dev = -1; /* no tensors: the current context's device */");
  tl__cgen_line(g, "TLCudaSlot *tl_slot = NULL;");
  tl__cgen_line(g, "int32_t tl_rc = tl_cu_slot(tl_dev, &tl_slot, err, errcap);");
  tl__cgen_line(g, "if (tl_rc != 0) return tl_rc;");
  tl__cgen_line(g, "void *tl_prev = NULL;");
  tl__cgen_line(g, "int tl_r = tl_cu.cuCtxGetCurrent(&tl_prev);");
  tl__cgen_line(g, "if (tl_r != 0) return tl_cu_fail(tl_r, \"cuCtxGetCurrent\", NULL, err, errcap);");
  tl__cgen_line(g, "if (tl_prev != tl_slot->ctx && (tl_r = tl_cu.cuCtxSetCurrent(tl_slot->ctx)) != 0)");
  tl__cgen_line(g, "  return tl_cu_fail(tl_r, \"cuCtxSetCurrent\", NULL, err, errcap);");
}

/* Prints e (NULL: 1) as a long long expression. */
static void extent(tl__cgen *g, const tl_ir_expr *e) {
  if (!e || e->kind == TL_EXPR_INT) {
    tl__cgen_write(g, "%lld", e ? (long long)e->u.int_value : 1LL);
    return;
  }
  tl__cgen_write(g, "(long long)");
  tl__cgen_expr(g, e, TL__PREC_UNARY);
}

static void cuda_launch(tl__cgen *g, tl__host_ctx *c, const tl_ir_stmt *s) {
  const char *name = s->u.launch.kernel;
  const tl_ir_func *k = tl__host_find_kernel(c->mod, name);
  if (!k) {
    tl__cgen_error(g, TL_EINVAL, "launch of '%s', which is not a device kernel of the module", name ? name : "(null)");
    return;
  }
  if (s->u.launch.nargs != k->nparams) {
    tl__cgen_error(g, TL_EINVAL, "launch of '%s' passes %u arguments for %u parameters", name, s->u.launch.nargs,
                   k->nparams);
    return;
  }
  if (c->launches == 0) device_prologue(g, c);
  tl__cgen_line(g, "{ /* %s */", name);
  g->indent++;
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "const long long tl_grid[3] = {");
  for (int d = 0; d < 3; d++) {
    if (d) tl__cgen_write(g, ", ");
    extent(g, s->u.launch.grid[d]);
  }
  tl__cgen_write(g, "}, tl_block[3] = {");
  for (int d = 0; d < 3; d++) {
    if (d) tl__cgen_write(g, ", ");
    extent(g, s->u.launch.block[d]);
  }
  tl__cgen_write(g, "}, tl_shared = ");
  if (s->u.launch.dyn_shared_bytes) extent(g, s->u.launch.dyn_shared_bytes);
  else tl__cgen_write(g, "0");
  tl__cgen_write(g, ";\n");
  tl__cgen_line(g, "if (tl_grid[0] > 2147483647 || tl_grid[1] > 65535 || tl_grid[2] > 65535) {");
  tl__cgen_line(g, "  if (tl_prev != tl_slot->ctx) tl_cu.cuCtxSetCurrent(tl_prev);");
  tl__cgen_line(g,
                "  snprintf(err, errcap, \"launch of '%s': the grid (%%lld, %%lld, %%lld) is too large\", tl_grid[0], "
                "tl_grid[1], tl_grid[2]);",
                name);
  tl__cgen_line(g, "  return 1;");
  tl__cgen_line(g, "}");
  tl__cgen_line(g, "if (tl_grid[0] > 0 && tl_grid[1] > 0 && tl_grid[2] > 0) { /* an empty grid has no work */");
  g->indent++;
  /* Arguments: the addresses of the entry's locals (or of temporaries). */
  tl__sb params = TL__SB_INIT;
  for (uint32_t i = 0; i < s->u.launch.nargs; i++) {
    const tl_ir_expr *a = s->u.launch.args[i];
    const char *text = a->kind == TL_EXPR_VAR ? tl__cgen_var_text(g, a->u.var) : NULL;
    if (text && !a->u.var->thread_tag) {
      tl__sb_appendf(&params, "%s(void *)&%s", i ? ", " : "", text);
      continue;
    }
    char tmp[32];
    snprintf(tmp, sizeof tmp, "tl_arg%u", i);
    const char *type = tl__cgen_type(g, a->dtype);
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, a->dtype.code == TL_DTYPE_HANDLE ? "%s%s = " : "const %s %s = ", type, tmp);
    tl__cgen_expr(g, a, TL__PREC_TOP);
    tl__cgen_write(g, ";\n");
    tl__sb_appendf(&params, "%s(void *)&%s", i ? ", " : "", tmp);
  }
  if (tl__sb_status(&params) != TL_OK) tl__cgen_oom(g);
  if (s->u.launch.nargs) tl__cgen_line(g, "void *tl_params[] = {%s};", tl__sb_str(&params));
  tl__sb_free(&params);
  int index = kernel_index(c->mod, name);
  tl__cgen_line(g,
                "tl_r = tl_cu.cuLaunchKernel(tl_slot->fn[%d], (unsigned)tl_grid[0], (unsigned)tl_grid[1], "
                "(unsigned)tl_grid[2], (unsigned)tl_block[0], (unsigned)tl_block[1], (unsigned)tl_block[2], "
                "(unsigned)tl_shared, stream, %s, NULL);",
                index, s->u.launch.nargs ? "tl_params" : "NULL");
  tl__cgen_line(g, "if (tl_r != 0) {");
  tl__cgen_line(g, "  if (tl_prev != tl_slot->ctx) tl_cu.cuCtxSetCurrent(tl_prev);");
  tl__cgen_line(g, "  return tl_cu_fail(tl_r, \"cuLaunchKernel\", \"%s\", err, errcap);", name);
  tl__cgen_line(g, "}");
  g->indent--;
  tl__cgen_line(g, "}");
  g->indent--;
  tl__cgen_line(g, "}");
}

static void cuda_finish(tl__cgen *g, tl__host_ctx *c) {
  if (c->launches > 0) tl__cgen_line(g, "if (tl_prev != tl_slot->ctx) tl_cu.cuCtxSetCurrent(tl_prev);");
}

const tl__launch_emitter tl__cuda_driver_emitter = {"cuda_driver", true, cuda_declare, cuda_launch, cuda_finish};

char *tl__cuda_image_source(const void *bytes, size_t size) {
  tl__sb sb = TL__SB_INIT;
  const unsigned char *b = bytes;
  tl__sb_appendf(&sb, "\n/* The device code: %zu bytes of cubin. */\nstatic const unsigned char tl_cuda_image[%zu] = {",
                 size, size ? size : 1);
  for (size_t i = 0; i < size; i++) tl__sb_appendf(&sb, "%s%u,", i % 24 == 0 ? "\n  " : "", (unsigned)b[i]);
  if (!size) tl__sb_append(&sb, "0");
  tl__sb_append(&sb, "\n};\n"
                     "static const unsigned char *tl_cuda_image_data(size_t *size) {\n"
                     "  *size = sizeof tl_cuda_image;\n"
                     "  return tl_cuda_image;\n"
                     "}\n");
  return tl__sb_finish(&sb);
}
