/* Upstream's thread-index helpers: T.get_lane_idx(warp_size=None),
 * T.get_warp_idx(warp_size=None), T.get_warp_idx_sync(warp_size=None) and
 * T.get_warp_group_idx(warp_size=None, warps_per_group=None).
 *
 * Upstream lowers each to a device helper over the block's linear thread index
 * t = tx + Tx * (ty + Ty * tz): the lane is t % warp_size, the warp t //
 * warp_size (the _sync variant computes the same quotient), the warp group
 * t // (warp_size * warps_per_group). Here they are that arithmetic on T.Kernel's
 * thread variables, built where they are called, so every path (interpreter, c
 * target, GPU lowering) computes them as it computes any index; asking for them
 * makes the kernel per-thread code, as T.get_thread_binding does (elab_simt.c).
 *
 * Defaults, as upstream's helpers choose them: a warp_size that is absent, or
 * not positive, is 32, and warps_per_group 4. Upstream takes the default warp
 * size from the device compiler (64 when it compiles for HIP); the front end
 * elaborates before a target is chosen, so its default is CUDA's 32 and a
 * wave64 kernel names its warp size (docs/frontend.md). The sizes must be
 * compile-time integers: they decide the index arithmetic here. */
#include <stdint.h>
#include <stdio.h>

#include "elab.h"

enum { DEFAULT_WARP_SIZE = 32, DEFAULT_WARPS_PER_GROUP = 4 };

/* A sizing argument: absent (None) or not positive gives dflt, as upstream's
 * device helpers fall back; a value that does not fit int32 is an error. */
static bool size_arg(tl__elab *E, const tl__ast_expr *a, const char *n, const char *what, int64_t dflt,
                     int64_t *out, bool *given) {
  *out = dflt;
  *given = false;
  if (!a) return true;
  tl__val *v = tl__eval(E, a);
  if (!v) return false;
  if (v->kind == V_NONE) return true;
  *given = true;
  char desc[96];
  snprintf(desc, sizeof desc, "%s's %s", n, what);
  int64_t x;
  if (!tl__as_int(E, v, POS(a), desc, &x)) return false;
  if (x > INT32_MAX) {
    tl__elab_error(E, POS(a), "%s is %lld, which does not fit int32", desc, (long long)x);
    return false;
  }
  if (x > 0) *out = x;
  return true;
}

/* t = tx + Tx * (ty + Ty * tz) over the dimensions whose extent is not a
 * constant 1 (their index is 0 there: no thread variable is bound for them). */
static tl_ir_expr *linear_thread_index(tl__elab *E, const tl__ast_expr *e, const char *n) {
  tl__kernel_scope *k = &E->fn->kernel;
  tl_ir_expr *t = NULL;
  for (uint32_t d = k->nt; d-- > 0;) {
    const tl_ir_expr *ext = k->threads[d];
    if (ext && ext->kind == TL_EXPR_INT && ext->u.int_value == 1) continue;
    tl_ir_var *v = tl__elab_thread_var(E, d, e, n);
    if (!v) return NULL;
    tl__elab_at(E, POS(e));
    tl_ir_expr *x = tl_ir_var_ref(E->mod, v);
    /* Horner's rule from the outermost dimension: t = x_d + T_d * t */
    t = t ? tl_ir_binary(E->mod, TL_BIN_ADD, x, tl_ir_binary(E->mod, TL_BIN_MUL, k->threads[d], t)) : x;
    if (!t) return tl__elab_builder_failed(E), NULL;
  }
  if (!t && !(t = tl_ir_i32(E->mod, 0))) tl__elab_builder_failed(E); /* a block of one thread */
  return t;
}

tl__val *tl__elab_warp_index(tl__elab *E, const tl__ast_expr *e, const tl__val *fn) {
  const char *n = fn->u.bi.name;
  tl__warp_index which = (tl__warp_index)fn->u.bi.op;
  if (!E->fn || !E->fn->in_kernel) {
    tl__elab_error(E, POS(e), "%s must be inside a T.Kernel block", n);
    return NULL;
  }
  static const char *const names[] = {"warp_size", "warps_per_group"};
  const tl__ast_expr *a[2] = {0};
  if (!tl__call_args(E, e, n, names, which == WI_WARP_GROUP ? 2 : 1, 0, a)) return NULL;
  int64_t warp, per_group = 1;
  bool warp_given, group_given;
  if (!size_arg(E, a[0], n, "warp_size", DEFAULT_WARP_SIZE, &warp, &warp_given)) return NULL;
  if (which == WI_WARP_GROUP) {
    if (!size_arg(E, a[1], n, "warps_per_group", DEFAULT_WARPS_PER_GROUP, &per_group, &group_given)) return NULL;
    if (group_given && !warp_given) { /* as upstream: warps_per_group only with a warp_size */
      tl__elab_error(E, POS(a[1]), "%s expects warp_size when warps_per_group is given", n);
      return NULL;
    }
    if (warp * per_group > INT32_MAX) {
      tl__elab_error(E, POS(e), "%s: warp_size * warps_per_group = %lld does not fit int32", n,
                     (long long)(warp * per_group));
      return NULL;
    }
  }
  tl_ir_expr *t = linear_thread_index(E, e, n);
  if (!t) return NULL;
  if (t->kind == TL_EXPR_INT) return tl__val_expr(E, t); /* one thread: lane, warp and group 0 */
  tl__elab_at(E, POS(e));
  tl_ir_expr *size = tl_ir_i32(E->mod, warp * per_group);
  return tl__val_expr(E, tl_ir_binary(E->mod, which == WI_LANE ? TL_BIN_FLOORMOD : TL_BIN_FLOORDIV, t, size));
}
