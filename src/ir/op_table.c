/* The IR facts of the op table (op_table.h): names, arities, tile-op
 * signatures, what a tile op writes and how it folds. */
#include "op_table.h"

#include <string.h>

#define TILE_ROW(op, name, front, sig, args, defaults, written, written_read, fold, verify, interp, check, serial, \
                 elementwise, gpu)                                                                                 \
  [TL_OP_##op] = {name,    sig,           sizeof sig - 1, TL__PARENS_TO_BRACES args, TL__PARENS_TO_BRACES defaults, \
                  written, written_read, fold,          elementwise},
static const tl__tile_op_info k_tile_ops[TL_OP__COUNT] = {TL__TILE_OPS(TILE_ROW)};
#undef TILE_ROW

#define VALUE_ARITY(op, name, arity, front) [TL_OP_##op] = (arity) + 1,
static const int8_t k_value_arity_plus_one[TL_OP__COUNT] = {TL__VALUE_OPS(VALUE_ARITY)};
#undef VALUE_ARITY

#define NAME_ROW(op, name, ...) [TL_OP_##op] = name,
static const char *const k_names[TL_OP__COUNT] = {TL__VALUE_OPS(NAME_ROW) TL__TILE_OPS(NAME_ROW)};
#undef NAME_ROW

const tl__tile_op_info *tl__tile_op(tl_ir_op op) {
  return (unsigned)op < TL_OP__COUNT && k_tile_ops[op].name ? &k_tile_ops[op] : NULL;
}

int tl__value_op_arity(tl_ir_op op) { return (unsigned)op < TL_OP__COUNT ? k_value_arity_plus_one[op] - 1 : -1; }

bool tl__tile_op_reads_written(const tl__tile_op_info *t, const tl_ir_expr *call) {
  if (t->written_read == TL__READ_NEVER) return false;
  if (t->written_read == TL__READ_ALWAYS) return true;
  uint32_t k = (uint32_t)t->written_read;
  const tl_ir_expr *flag = k < call->u.call.nargs ? call->u.call.args[k] : NULL;
  bool set = flag && flag->kind == TL_EXPR_INT ? flag->u.int_value != 0 : t->defaults[k] != 0;
  return !set;
}

const char *tl_ir_op_name(tl_ir_op op) {
  return (unsigned)op < TL_OP__COUNT && k_names[op] ? k_names[op] : "<invalid op>";
}

bool tl_ir_op_parse(const char *name, tl_ir_op *out) {
  for (int i = 0; name && i < TL_OP__COUNT; i++) {
    if (k_names[i] && strcmp(name, k_names[i]) == 0) {
      if (out) *out = (tl_ir_op)i;
      return true;
    }
  }
  return false;
}

bool tl_ir_op_is_tile(tl_ir_op op) { return tl__tile_op(op) != NULL; }

/* The atomics: each tile atomic and the one-element op it lowers to. */
static const struct {
  tl_ir_op tile, elem;
} k_atomics[] = {
  {TL_OP_ATOMIC_ADD, TL_OP_ATOMIC_ADD_ELEM},
  {TL_OP_ATOMIC_MAX, TL_OP_ATOMIC_MAX_ELEM},
  {TL_OP_ATOMIC_MIN, TL_OP_ATOMIC_MIN_ELEM},
};

bool tl__op_is_atomic_elem(tl_ir_op op) {
  for (size_t i = 0; i < sizeof k_atomics / sizeof k_atomics[0]; i++)
    if (k_atomics[i].elem == op) return true;
  return false;
}

tl_ir_op tl__atomic_elem_of(tl_ir_op op) {
  for (size_t i = 0; i < sizeof k_atomics / sizeof k_atomics[0]; i++)
    if (k_atomics[i].tile == op) return k_atomics[i].elem;
  return TL_OP__COUNT;
}
