/* The parameters a GPU pipeline lowers with (gpu.h): the current ones (a
 * thread-local set around the pass list), reading them from a target, and the
 * target JSON recorded on device kernels. */
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/error.h"
#include "target/target_impl.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"

static _Thread_local const tl__gpu_params *g_current;

const tl__gpu_params *tl__gpu_params_current(void) { return g_current; }

const tl__gpu_params *tl__gpu_params_enter(const tl__gpu_params *p) {
  const tl__gpu_params *prev = g_current;
  g_current = p;
  return prev;
}

void tl__gpu_params_exit(const tl__gpu_params *previous) { g_current = previous; }

void tl__gpu_params_from_target(const tl_target *target, const tl__gpu_params *defaults, tl__gpu_params *out) {
  static const tl__gpu_params generic = {1, 1024, 48 * 1024, 48 * 1024, 16, "call", 0, false};
  *out = defaults ? *defaults : generic;
  if (!target) return;
  int64_t v;
  if (tl_target_attr_int(target, "thread_warp_size", &v) && v >= 1) out->warp_size = v;
  if (tl_target_attr_int(target, "max_threads_per_block", &v) && v >= 1) out->max_threads = v;
  if (tl_target_attr_int(target, "max_shared_memory_per_block", &v) && v > out->max_shared_bytes)
    out->max_shared_bytes = v;
}

void tl__gpu_params_get(const tl_target *target, tl__gpu_params *out) {
  const tl__gpu_params *p = tl__gpu_params_current();
  if (p) *out = *p;
  else tl__gpu_params_from_target(target, NULL, out);
}

char *tl__gpu_target_json(const tl_target *target, int64_t warp) {
  int64_t have;
  if (tl_target_attr_int(target, "thread_warp_size", &have) && have == warp) return tl_target_export(target);
  tl__arena a;
  tl__arena_init(&a, 1024);
  tl__tval v;
  tl_target *t = NULL;
  tl_status st = tl__target_to_value(target, &a, &v);
  if (st == TL_OK) st = tl__tmap_set(&v.v.map, &a, "thread_warp_size", tl__tv_int(warp));
  if (st == TL_OK) st = tl__target_from_config(&v.v.map, 0, &t);
  tl__arena_free(&a);
  if (st != TL_OK) {
    /* A kind without the option keeps its own JSON (nothing is exchanged in warps). */
    if (st == TL_ENOMEM) return NULL;
    return tl_target_export(target);
  }
  char *s = tl_target_export(t);
  tl_target_release(t);
  return s;
}

/* ------------------------------------------------------------------ pass */

tl_status tl__pass_gpu_annotate_kernels(tl_ir_module *mod, const tl_target *target) {
  if (!target) return TL_OK;
  tl__gpu_params p;
  tl__gpu_params_get(target, &p);
  char *json = tl__gpu_target_json(target, p.warp_size < 1 ? 1 : p.warp_size);
  if (!json) return TL_ENOMEM;
  tl_status st = TL_OK;
  for (size_t i = 0; st == TL_OK && i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv == TL_CALLCONV_DEVICE_KERNEL) st = tl_ir_func_set_attr_str(mod, f, "target", json);
  }
  tl_free(json);
  if (st == TL_OK && p.launch_convention) st = tl_ir_module_set_attr_str(mod, "tl.launch_convention", p.launch_convention);
  return st;
}
