/* Launch expressions: postfix programs over the symbolic dims, evaluated at every
 * launch with a fixed stack and no allocation. Arithmetic wraps (two's complement)
 * instead of overflowing; floordiv/floormod follow Python's sign rules. */
#include "kernel_table/kernel_table.h"
#include "tilelang/runtime.h"

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* a // b rounded toward negative infinity; b != 0. INT64_MIN // -1 wraps. */
static int64_t floordiv(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}

/* a % b with the sign of b; b != 0. */
static int64_t floormod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

bool tl_launch_expr_eval(const tl_launch_expr *e, const int64_t *syms, uint32_t nsyms, int64_t *out) {
  if (!e || !out) return false;
  if (e->n == 0) {
    *out = 1;
    return true;
  }
  if (!e->code) return false;
  int64_t stack[TL__LAUNCH_EXPR_MAX_DEPTH];
  uint32_t sp = 0;
  for (uint32_t i = 0; i < e->n; i++) {
    const tl_lexpr_insn *in = &e->code[i];
    if (in->op == TL_LX_CONST || in->op == TL_LX_SYM) {
      if (sp == TL__LAUNCH_EXPR_MAX_DEPTH) return false;
      if (in->op == TL_LX_SYM) {
        if (in->value < 0 || (uint64_t)in->value >= nsyms || !syms) return false;
        stack[sp++] = syms[in->value];
      } else {
        stack[sp++] = in->value;
      }
      continue;
    }
    if (sp < 2) return false;
    int64_t b = stack[--sp], a = stack[sp - 1], r;
    switch (in->op) {
    case TL_LX_ADD: r = wrap_add(a, b); break;
    case TL_LX_SUB: r = wrap_sub(a, b); break;
    case TL_LX_MUL: r = wrap_mul(a, b); break;
    case TL_LX_FLOORDIV:
      if (b == 0) return false;
      r = floordiv(a, b);
      break;
    case TL_LX_FLOORMOD:
      if (b == 0) return false;
      r = floormod(a, b);
      break;
    case TL_LX_MIN: r = a < b ? a : b; break;
    case TL_LX_MAX: r = a > b ? a : b; break;
    default: return false;
    }
    stack[sp - 1] = r;
  }
  if (sp != 1) return false;
  *out = stack[0];
  return true;
}
