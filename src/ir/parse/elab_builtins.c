/* The names the subset knows: members of tilelang.language (T.*), the Python
 * builtins it evaluates, and dtype spellings. A table, so the accepted surface
 * reads in one place (docs/frontend.md lists the same names). */
#include <string.h>

#include "elab.h"
#include "ir/op_table.h"

static const tl__builtin_info LANG[] = {
  {"Tensor", BI_TENSOR, -1},
  {"Buffer", BI_BUFFER, -1},
  {"prim_func", BI_PRIM_FUNC, -1},
  {"macro", BI_MACRO, -1},
  {"Kernel", BI_KERNEL, -1},
  {"Parallel", BI_PARALLEL, -1},
  {"serial", BI_SERIAL, -1},
  {"Serial", BI_SERIAL, -1},
  {"grid", BI_GRID, -1},
  {"Pipelined", BI_PIPELINED, -1},
  {"unroll", BI_UNROLL, -1},
  {"vectorized", BI_VECTORIZED, -1},
  {"alloc_shared", BI_ALLOC_SHARED, -1},
  {"alloc_fragment", BI_ALLOC_FRAGMENT, -1},
  {"alloc_local", BI_ALLOC_LOCAL, -1},
  {"alloc_var", BI_ALLOC_VAR, -1},
  {"const", BI_CONST, -1},
  {"empty", BI_EMPTY, -1},
  {"symbolic", BI_SYMBOLIC, -1},
  {"dynamic", BI_SYMBOLIC, -1},
  {"sync_threads", BI_SYNC_THREADS, -1},
  {"max", BI_MAX, -1},
  {"min", BI_MIN, -1},
  {"if_then_else", BI_IF_THEN_ELSE, -1},
  {"truncdiv", BI_TRUNCDIV, -1},
  {"Cast", BI_CAST_DT_X, -1},
  {"cast", BI_CAST_X_DT, -1},
  {"infinity", BI_INFINITY, -1},
  {"atomic_addx2", BI_ATOMIC_ADDX, 2},
  {"atomic_addx4", BI_ATOMIC_ADDX, 4},
  {"any_of", BI_ANY_OF, -1},
  {"all_of", BI_ALL_OF, -1},
  {"get_thread_binding", BI_THREAD_BINDING, -1},
  {"get_block_binding", BI_BLOCK_BINDING, -1},
  {"get_thread_extent", BI_THREAD_EXTENT, -1},
  {"get_block_extent", BI_BLOCK_EXTENT, -1},
  {"thread_binding", BI_THREAD_BINDING_OF, -1},
  {"get_lane_idx", BI_WARP_INDEX, WI_LANE},
  {"get_warp_idx", BI_WARP_INDEX, WI_WARP},
  {"get_warp_idx_sync", BI_WARP_INDEX, WI_WARP}, /* upstream's helper computes the same quotient */
  {"get_warp_group_idx", BI_WARP_INDEX, WI_WARP_GROUP},
  {"reshape", BI_RESHAPE, -1},
  {"view", BI_VIEW, -1},
  /* hints: accepted and recorded (elab_hints.c) */
  {"use_swizzle", BI_HINT, -1},
  {"annotate_layout", BI_HINT, -1},
  {"annotate_safe_value", BI_HINT, -1},
  {"annotate_l2_hit_ratio", BI_HINT, -1},
  {"disable_warp_group_reg_alloc", BI_HINT, -1},
  {"no_set_max_nreg", BI_HINT, -1},
  {"func_attr", BI_FUNC_ATTR, -1},
  {"GemmWarpPolicy", BI_WARP_POLICY, -1},
  {"Layout", BI_LAYOUT, -1},
  {"Fragment", BI_LAYOUT, -1},
  {"dtype", BI_DTYPE_OF, -1},
  /* tvm.tir's operators by name: what the Python operator of the same meaning does */
  {"floordiv", BI_OPERATOR, AOP_FLOORDIV},
  {"floormod", BI_OPERATOR, AOP_MOD},
  {"shift_left", BI_OPERATOR, AOP_LSHIFT},
  {"shift_right", BI_OPERATOR, AOP_RSHIFT},
  {"bitwise_and", BI_OPERATOR, AOP_BITAND},
  {"bitwise_or", BI_OPERATOR, AOP_BITOR},
  {"bitwise_xor", BI_OPERATOR, AOP_BITXOR},
  {"bitwise_not", BI_BITWISE_NOT, -1},
  {"truncmod", BI_TRUNCMOD, -1},
  {"Select", BI_SELECT, -1},
  {"clamp", BI_CLAMP, -1},
  {"max_value", BI_MAX_VALUE, -1},
  {"min_value", BI_MIN_VALUE, -1},
};

/* The operations' members (T.copy, T.exp, ...), from the op table: its NAME
 * without "T.", its FRONT family; rows with FRONT NONE are made by passes only. */
#define VALUE_OP_ROW(op, name, arity, front) {&(name)[2], BI_##front, TL_OP_##op},
#define TILE_OP_ROW(op, name, front, ...) {&(name)[2], BI_##front, TL_OP_##op},
static const tl__builtin_info OPS[] = {TL__VALUE_OPS(VALUE_OP_ROW) TL__TILE_OPS(TILE_OP_ROW)};
#undef VALUE_OP_ROW
#undef TILE_OP_ROW

static const tl__builtin_info PYTHON[] = {
  {"range", BI_RANGE, -1},
  {"min", BI_PY_MIN, -1},
  {"max", BI_PY_MAX, -1},
  {"abs", BI_PY_ABS, -1},
  {"int", BI_PY_INT, -1},
  {"float", BI_PY_FLOAT, -1},
  {"bool", BI_PY_BOOL, -1},
  {"len", BI_PY_LEN, -1},
  {"isinstance", BI_PY_ISINSTANCE, -1},
  {"sum", BI_PY_SUM, -1},
  {"any", BI_PY_ANY, -1},
  {"all", BI_PY_ALL, -1},
  {"enumerate", BI_PY_ENUMERATE, -1},
  {"zip", BI_PY_ZIP, -1},
  {"sorted", BI_PY_SORTED, -1},
  {"reversed", BI_PY_REVERSED, -1},
  {"list", BI_PY_LIST, -1},
  {"tuple", BI_PY_TUPLE, -1},
};

const tl__builtin_info *tl__builtin_lang(const char *name) {
  for (size_t i = 0; i < sizeof LANG / sizeof LANG[0]; i++)
    if (strcmp(LANG[i].name, name) == 0) return &LANG[i];
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    if (OPS[i].id != BI_NONE && strcmp(OPS[i].name, name) == 0) return &OPS[i];
  return NULL;
}

const tl__builtin_info *tl__builtin_python(const char *name) {
  for (size_t i = 0; i < sizeof PYTHON / sizeof PYTHON[0]; i++)
    if (strcmp(PYTHON[i].name, name) == 0) return &PYTHON[i];
  return NULL;
}

bool tl__dtype_from_name(const char *name, tl_dtype *out) {
  /* TVM reads a bare type family as its 32-bit member. */
  static const struct { const char *name; tl_dtype dt; } aliases[] = {
    {"float", {TL_DTYPE_FLOAT, 32, 1}},
    {"int", {TL_DTYPE_INT, 32, 1}},
    {"uint", {TL_DTYPE_UINT, 32, 1}},
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(name, aliases[i].name) == 0) {
      *out = aliases[i].dt;
      return true;
    }
  tl_dtype d;
  if (!tl_dtype_parse(name, &d) || d.lanes != 1 || d.code == TL_DTYPE_HANDLE) return false;
  *out = d;
  return true;
}
