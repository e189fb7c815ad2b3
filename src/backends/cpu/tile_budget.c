/* The C target's tile memory limit (see tile_budget.h). */
#include "backends/cpu/tile_budget.h"

#include <stdio.h>

#include "base/error.h"
#include "transform/pass.h"

typedef struct budget {
  int64_t total;          /* bytes of tiles so far in this function */
  tl_status status;
  const tl_ir_func *func;
} budget;

static bool is_tile(tl_ir_scope s) {
  return s == TL_SCOPE_SHARED || s == TL_SCOPE_LOCAL || s == TL_SCOPE_LOCAL_FRAGMENT;
}

static void human(int64_t bytes, char *buf, size_t cap) {
  if (bytes >= (1 << 20)) snprintf(buf, cap, "%.1f MiB", (double)bytes / (1 << 20));
  else snprintf(buf, cap, "%.1f KiB", (double)bytes / 1024);
}

static bool on_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  budget *b = v->ctx;
  if (b->status != TL_OK) return false;
  if (s->kind != TL_STMT_ALLOC || !s->u.alloc.buffer || !is_tile(s->u.alloc.buffer->scope)) return true;
  if (s->u.alloc.buffer->view) return true; /* T.reshape / T.view: no storage of its own */
  const tl_ir_buffer *buf = s->u.alloc.buffer;
  int64_t n = (int64_t)tl_dtype_bytes(buf->dtype);
  if (n == 0) n = 1; /* sub-byte types: at least a byte each, as the C code holds them */
  for (uint32_t d = 0; d < buf->ndim; d++) {
    const tl_ir_expr *e = buf->shape[d];
    /* A shape that is not constant is flatten's error to report, in its words. */
    if (!e || e->kind != TL_EXPR_INT || e->u.int_value < 0) return true;
    if (__builtin_mul_overflow(n, e->u.int_value, &n)) n = INT64_MAX; /* over the limit anyway */
  }
  if (__builtin_add_overflow(b->total, n, &b->total)) b->total = INT64_MAX;
  if (b->total > TL__CPU_TILE_BYTES_MAX) {
    char size[32], total[32], limit[32];
    human(n, size, sizeof size);
    human(b->total, total, sizeof total);
    human(TL__CPU_TILE_BYTES_MAX, limit, sizeof limit);
    b->status = tl__pass_error(TL_EUNSUPPORTED, buf->span.line ? buf->span : s->span,
                               "tile '%s' (%s) brings the tiles of '%s' to %s; the C target keeps tiles on the stack "
                               "of the thread running a block and allows at most %s per kernel (use smaller tiles)",
                               buf->name, size, b->func->name, total, limit);
    return false;
  }
  return true;
}

tl_status tl__pass_cpu_tile_budget(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    budget b = {0, TL_OK, f};
    tl_ir_visitor v = {NULL, on_stmt, &b};
    tl_ir_visit_stmt(&v, f->body);
    if (b.status != TL_OK) return b.status;
  }
  return TL_OK;
}
