/* The names the subset knows: members of tilelang.language (T.*), the Python
 * builtins it evaluates, and dtype spellings. A table, so the accepted surface
 * reads in one place (docs/frontend.md lists the same names). */
#include <string.h>

#include "elab.h"

static const tl__builtin_info LANG[] = {
  {"Tensor", BI_TENSOR, -1},
  {"Buffer", BI_BUFFER, -1},
  {"prim_func", BI_PRIM_FUNC, -1},
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
  {"copy", BI_COPY, TL_OP_COPY},
  {"fill", BI_FILL, TL_OP_FILL},
  {"clear", BI_CLEAR, TL_OP_CLEAR},
  {"gemm", BI_GEMM, TL_OP_GEMM},
  {"reduce_sum", BI_REDUCE, TL_OP_REDUCE_SUM},
  {"reduce_max", BI_REDUCE, TL_OP_REDUCE_MAX},
  {"reduce_min", BI_REDUCE, TL_OP_REDUCE_MIN},
  {"reduce_abssum", BI_REDUCE, TL_OP_REDUCE_ABSSUM},
  {"reduce_absmax", BI_REDUCE, TL_OP_REDUCE_ABSMAX},
  {"atomic_add", BI_ATOMIC_ADD, TL_OP_ATOMIC_ADD},
  {"cumsum", BI_CUMSUM, TL_OP_CUMSUM},
  {"sync_threads", BI_SYNC_THREADS, -1},
  {"exp", BI_MATH, TL_OP_EXP},
  {"exp2", BI_MATH, TL_OP_EXP2},
  {"log", BI_MATH, TL_OP_LOG},
  {"log2", BI_MATH, TL_OP_LOG2},
  {"sqrt", BI_MATH, TL_OP_SQRT},
  {"rsqrt", BI_MATH, TL_OP_RSQRT},
  {"tanh", BI_MATH, TL_OP_TANH},
  {"sigmoid", BI_MATH, TL_OP_SIGMOID},
  {"pow", BI_MATH, TL_OP_POW},
  {"fma", BI_MATH, TL_OP_FMA},
  {"floor", BI_MATH, TL_OP_FLOOR},
  {"ceil", BI_MATH, TL_OP_CEIL},
  {"round", BI_MATH, TL_OP_ROUND},
  {"trunc", BI_MATH, TL_OP_TRUNC},
  {"sin", BI_MATH, TL_OP_SIN},
  {"cos", BI_MATH, TL_OP_COS},
  {"abs", BI_MATH, TL_OP_ABS},
  {"max", BI_MAX, -1},
  {"min", BI_MIN, -1},
  {"if_then_else", BI_IF_THEN_ELSE, -1},
  {"ceildiv", BI_CEILDIV, TL_OP_CEILDIV},
  {"truncdiv", BI_TRUNCDIV, -1},
  {"Cast", BI_CAST_DT_X, -1},
  {"cast", BI_CAST_X_DT, -1},
  {"infinity", BI_INFINITY, -1},
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
};

static const tl__builtin_info PYTHON[] = {
  {"range", BI_RANGE, -1},
  {"min", BI_PY_MIN, -1},
  {"max", BI_PY_MAX, -1},
  {"abs", BI_PY_ABS, -1},
  {"int", BI_PY_INT, -1},
  {"float", BI_PY_FLOAT, -1},
  {"bool", BI_PY_BOOL, -1},
  {"len", BI_PY_LEN, -1},
};

const tl__builtin_info *tl__builtin_lang(const char *name) {
  for (size_t i = 0; i < sizeof LANG / sizeof LANG[0]; i++)
    if (strcmp(LANG[i].name, name) == 0) return &LANG[i];
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
