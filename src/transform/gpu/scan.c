/* T.cumsum and T.cummax on GPU targets, simple and exact: each line (the elements along `dim`
 * for one index of the other dimensions) is scanned by one thread in index
 * order, as lower_tile_ops scans it, so results match the interpreter bit for
 * bit.
 *  - A per-thread destination (a replicated fragment, a local buffer: layout.c
 *    makes fragments used by T.cumsum replicated): every thread scans every line.
 *  - A shared or global destination: lines are spread over the threads (line
 *    q * T + tid in round q) when the source and destination regions have the
 *    same constant extents; otherwise thread 0 scans everything. */
#include <string.h>

#include "base/error.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

static bool per_thread(const tl_ir_buffer *b) {
  return b->scope == TL_SCOPE_LOCAL || b->scope == TL_SCOPE_LOCAL_VAR || b->scope == TL_SCOPE_LOCAL_FRAGMENT;
}

/* Region e restricted to one line: index idx[d] (relative) in every d != dim. */
static tl_ir_expr *line_region(tl_ir_module *mod, const tl_ir_expr *e, uint32_t dim, tl_ir_expr *const *idx) {
  tl_ir_expr *mins[TL__GPU_MAX_RANK], *ext[TL__GPU_MAX_RANK];
  for (uint32_t d = 0; d < e->u.region.ndim; d++) {
    if (d == dim) {
      mins[d] = e->u.region.mins[d];
      ext[d] = e->u.region.extents[d];
    } else {
      mins[d] = tl__add(mod, e->u.region.mins[d], tl__cast_int(mod, e->u.region.mins[d]->dtype, idx[d]));
      ext[d] = tl__int_like(mod, e->u.region.extents[d], 1);
    }
  }
  return tl_ir_region(mod, e->u.region.buffer, mins, ext, TL_REGION_SLICE);
}

tl_status tl__gpu_lower_cumsum(tl__gpu_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  tl_ir_stmt *eval = tl_ir_eval(mod, (tl_ir_expr *)call), *sw;
  TL__TRY(tl__built(mod, eval));
  TL__TRY(tl__gpu_swap_fragments(c, eval, &sw));
  const tl_ir_expr *sc = sw->u.eval.expr;
  const tl_ir_expr *src = sc->u.call.args[0], *dst = sc->u.call.args[1];
  int64_t dim = -1;
  tl__is_const_int(sc->u.call.args[2], &dim);
  if (src->kind != TL_EXPR_REGION || dst->kind != TL_EXPR_REGION || dim < 0 || dim >= (int64_t)src->u.region.ndim)
    return tl__pass_error(TL_EINVAL, call->span, "%s: malformed arguments", tl_ir_op_name(call->u.call.op));
  if (per_thread(dst->u.region.buffer)) return tl__lower_tile_op_serial(mod, sc, out);
  uint32_t nd = src->u.region.ndim;
  bool same = dst->u.region.ndim == nd && nd <= TL__GPU_MAX_RANK;
  int64_t ext[TL__GPU_MAX_RANK], lines = 1;
  for (uint32_t d = 0; same && d < nd; d++) {
    int64_t e2;
    same = tl__is_const_int(src->u.region.extents[d], &ext[d]) && tl__is_const_int(dst->u.region.extents[d], &e2) &&
           ext[d] == e2 && ext[d] >= 0;
    if (same && d != (uint32_t)dim) lines *= ext[d];
  }
  if (!same) {
    tl_ir_stmt *all;
    TL__TRY(tl__lower_tile_op_serial(mod, sc, &all));
    *out = tl__gpu_one_thread(c, all);
    return tl__built(mod, *out);
  }
  /* for q in range(ceildiv(lines, T)): line = q * T + tid; if line < lines: scan it */
  tl_ir_var *q = tl_ir_var_new(mod, "q", TL_DT_INT32);
  TL__TRY(tl__built(mod, q));
  tl_ir_expr *line = tl__add(mod, tl__mul(mod, tl_ir_var_ref(mod, q), tl_ir_i32(mod, c->T)), c->tid);
  tl_ir_expr *idx[TL__GPU_MAX_RANK];
  int64_t stride = 1;
  for (uint32_t d = nd; d-- > 0;) {
    if (d == (uint32_t)dim) {
      idx[d] = NULL;
      continue;
    }
    tl_ir_expr *x = tl__floordiv(mod, line, tl_ir_i32(mod, stride));
    idx[d] = tl__floormod(mod, x, tl_ir_i32(mod, ext[d]));
    stride *= ext[d];
  }
  tl_ir_expr *args[4] = {line_region(mod, src, (uint32_t)dim, idx), line_region(mod, dst, (uint32_t)dim, idx),
                         sc->u.call.args[2], sc->u.call.args[3]};
  tl_ir_expr *lcall = args[0] && args[1] ? tl_ir_call(mod, call->u.call.op, TL_DT_HANDLE, 4, args) : NULL;
  TL__TRY(tl__built(mod, lcall));
  tl_ir_stmt *scan;
  TL__TRY(tl__lower_tile_op_serial(mod, lcall, &scan));
  tl_ir_stmt *guarded = tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_LT, line, tl_ir_i32(mod, lines)), scan, NULL);
  tl_ir_expr *rounds = tl_ir_i32(mod, (lines + c->T - 1) / c->T);
  *out = tl_ir_for(mod, TL_FOR_SERIAL, 1, &q, NULL, &rounds, guarded);
  return tl__built(mod, *out);
}
