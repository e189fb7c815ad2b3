/* Kernel tables (runtime.h): JSON round trip, copy, validation of malformed tables
 * and JSON, launch expressions, argument binding with every check's message, and
 * out-of-memory sweeps. */
#include "kernel_table/kernel_table.h"
#include "lowered_fixtures.h"
#include "runtime/dl_names.h"

/* A table exercising every field: two tensors sharing N, a constant dim, a scalar
 * binding a sym (K), two launches with arithmetic extents and shared memory. */
static tl_kernel_table *rich_table(void) {
  static const tl_host_dim da[2] = {{0, 0}, {64, -1}}, db[1] = {{0, 0}}, dc[2] = {{0, 1}, {0, 0}};
  tl_host_param params[4] = {{"A", true, TL_DT_FLOAT16, 2, da, false, 0},
                             {"B", true, TL_DT_FLOAT32, 1, db, false, 16},
                             {"K", false, TL_DT_INT32, 0, NULL, false, 0},
                             {"C", true, TL_DT_BFLOAT16, 2, dc, true, 0}};
  tl_host_sym syms[2] = {{"N", 0, 0}, {"K", 2, -1}};
  static const tl_lexpr_insn ceil[] = {{TL_LX_SYM, 0}, {TL_LX_CONST, 127}, {TL_LX_ADD, 0}, {TL_LX_CONST, 128},
                                       {TL_LX_FLOORDIV, 0}};
  static const tl_lexpr_insn kk[] = {{TL_LX_SYM, 1}, {TL_LX_CONST, 4}, {TL_LX_MAX, 0}};
  static const tl_lexpr_insn smem[] = {{TL_LX_SYM, 1}, {TL_LX_CONST, 2}, {TL_LX_MUL, 0}, {TL_LX_CONST, -3},
                                       {TL_LX_FLOORMOD, 0}, {TL_LX_SYM, 0}, {TL_LX_MIN, 0}, {TL_LX_CONST, 1},
                                       {TL_LX_SUB, 0}};
  tl_kernel_arg a0[4] = {{TL_KARG_TENSOR, 0, TL_DT_FLOAT16}, {TL_KARG_TENSOR, 1, TL_DT_FLOAT32},
                         {TL_KARG_SCALAR, 2, TL_DT_INT32}, {TL_KARG_SYM, 0, TL_DT_INT32}};
  tl_kernel_arg a1[2] = {{TL_KARG_TENSOR, 3, TL_DT_BFLOAT16}, {TL_KARG_SYM, 1, TL_DT_INT32}};
  tl_kernel_launch launches[2] = {
    {"k0", 4, a0, {{5, ceil}, {3, kk}, {0, NULL}}, {{0, NULL}, {0, NULL}, {0, NULL}}, {0, NULL}},
    {"k_1", 2, a1, {{0, NULL}, {0, NULL}, {0, NULL}}, {{3, kk}, {0, NULL}, {0, NULL}}, {9, smem}},
  };
  tl_kernel_table t = {"f\"x\\", 4, params, 2, syms, 2, launches};
  tl_kernel_table *out = NULL;
  TL_ASSERT_OK(tl__kernel_table_pack(&t, &out));
  TL_ASSERT_OK(tl__kernel_table_validate(out));
  return out;
}

static void assert_expr_equal(const tl_launch_expr *a, const tl_launch_expr *b) {
  assert_int_equal(a->n, b->n);
  for (uint32_t i = 0; i < a->n; i++) {
    assert_int_equal(a->code[i].op, b->code[i].op);
    assert_int_equal(a->code[i].value, b->code[i].value);
  }
}

static void assert_tables_equal(const tl_kernel_table *a, const tl_kernel_table *b) {
  assert_string_equal(a->entry, b->entry);
  assert_int_equal(a->nparams, b->nparams);
  for (uint32_t i = 0; i < a->nparams; i++) {
    const tl_host_param *p = &a->params[i], *q = &b->params[i];
    assert_string_equal(p->name, q->name);
    assert_int_equal(p->is_tensor, q->is_tensor);
    assert_true(tl_dtype_eq(p->dtype, q->dtype));
    assert_int_equal(p->is_output, q->is_output);
    assert_int_equal(p->data_alignment, q->data_alignment);
    assert_int_equal(p->ndim, q->ndim);
    for (uint32_t d = 0; d < p->ndim; d++) {
      assert_int_equal(p->dims[d].sym, q->dims[d].sym);
      if (p->dims[d].sym < 0) assert_int_equal(p->dims[d].value, q->dims[d].value);
    }
  }
  assert_int_equal(a->nsyms, b->nsyms);
  for (uint32_t i = 0; i < a->nsyms; i++) {
    assert_string_equal(a->syms[i].name, b->syms[i].name);
    assert_int_equal(a->syms[i].param, b->syms[i].param);
    assert_int_equal(a->syms[i].dim, b->syms[i].dim);
  }
  assert_int_equal(a->nlaunches, b->nlaunches);
  for (uint32_t i = 0; i < a->nlaunches; i++) {
    const tl_kernel_launch *l = &a->launches[i], *m = &b->launches[i];
    assert_string_equal(l->symbol, m->symbol);
    assert_int_equal(l->nargs, m->nargs);
    for (uint32_t k = 0; k < l->nargs; k++) {
      assert_int_equal(l->args[k].kind, m->args[k].kind);
      assert_int_equal(l->args[k].index, m->args[k].index);
      assert_true(tl_dtype_eq(l->args[k].dtype, m->args[k].dtype));
    }
    for (int d = 0; d < 3; d++) {
      assert_expr_equal(&l->grid[d], &m->grid[d]);
      assert_expr_equal(&l->block[d], &m->block[d]);
    }
    assert_expr_equal(&l->dyn_shared_bytes, &m->dyn_shared_bytes);
  }
}

static void test_json_round_trip(void **state) {
  (void)state;
  tl_kernel_table *tables[2] = {rich_table(), vadd_table(TL_DT_FLOAT32)};
  for (int i = 0; i < 2; i++) {
    char *json = tl_kernel_table_to_json(tables[i]);
    assert_non_null(json);
    tl_kernel_table *back = NULL;
    TL_ASSERT_OK(tl_kernel_table_from_json(json, &back));
    assert_tables_equal(tables[i], back);
    char *again = tl_kernel_table_to_json(back);
    assert_string_equal(json, again);
    tl_kernel_table *copy = NULL;
    TL_ASSERT_OK(tl_kernel_table_copy(back, &copy));
    assert_tables_equal(tables[i], copy);
    tl_kernel_table_free(copy);
    tl_free(again);
    tl_free(json);
    tl_kernel_table_free(back);
  }
  char *json = tl_kernel_table_to_json(tables[1]);
  assert_string_equal(json,
                      "{\"entry\":\"vadd\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":0}],"
                      "\"output\":false},{\"name\":\"B\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":0}],\"output\":false},"
                      "{\"name\":\"C\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":0}],\"output\":false}],"
                      "\"syms\":[{\"name\":\"N\",\"param\":0,\"dim\":0}],\"launches\":[{\"symbol\":\"vadd_kernel\",\"args\":["
                      "{\"kind\":\"tensor\",\"index\":0,\"dtype\":\"float32\"},{\"kind\":\"tensor\",\"index\":1,\"dtype\":\"float32\"},"
                      "{\"kind\":\"tensor\",\"index\":2,\"dtype\":\"float32\"},{\"kind\":\"sym\",\"index\":0,\"dtype\":\"int32\"}],"
                      "\"grid\":[[],[],[]],\"block\":[[],[],[]],\"dyn_shared_bytes\":[]}]}");
  tl_free(json);
  json = tl_kernel_table_to_json(tables[0]);
  assert_non_null(strstr(json, "\"entry\":\"f\\\"x\\\\\""));
  assert_non_null(strstr(json, "\"grid\":[[{\"sym\":0},127,\"add\",128,\"floordiv\"],[{\"sym\":1},4,\"max\"],[]]"));
  assert_non_null(strstr(json, "\"dims\":[{\"sym\":0}],\"output\":false,\"align\":16}"));
  tl_free(json);
  tl_kernel_table_free(tables[0]);
  tl_kernel_table_free(tables[1]);
}

static void test_json_errors(void **state) {
  (void)state;
  tl_kernel_table *t = NULL;
  static const struct {
    const char *json, *needle;
  } cases[] = {
    {"{", "invalid kernel table JSON: "},
    {"[]", "the table is not an object"},
    {"{\"params\":[],\"syms\":[],\"launches\":[]}", "table: 'entry' is missing or not a string"},
    {"{\"entry\":\"f\",\"params\":{},\"syms\":[],\"launches\":[]}", "'params' is missing or not an array"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":1,\"dtype\":\"float32\",\"dims\":[],\"output\":false}],"
     "\"syms\":[],\"launches\":[]}",
     "parameter 0: 'tensor' is missing or not a boolean"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float7\",\"dims\":[],\"output\":false}],"
     "\"syms\":[],\"launches\":[]}",
     "parameter 0: unknown dtype 'float7'"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[\"N\"],\"output\":false}],"
     "\"syms\":[],\"launches\":[]}",
     "dimension 0 is not a number or {\"sym\": i}"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":3}],\"output\":false}],"
     "\"syms\":[],\"launches\":[]}",
     "invalid kernel table: parameter 'A' dimension 0 refers to symbolic dim 3 of 0"},
    {"{\"entry\":\"f\",\"params\":[],\"syms\":[],\"launches\":[{\"symbol\":\"k\",\"args\":[],\"grid\":[[1,\"pow\"],[],[]],"
     "\"block\":[[],[],[]],\"dyn_shared_bytes\":[]}]}",
     "unknown operator 'pow'"},
    {"{\"entry\":\"f\",\"params\":[],\"syms\":[],\"launches\":[{\"symbol\":\"k\",\"args\":[],\"grid\":[[1,\"add\"],[],[]],"
     "\"block\":[[],[],[]],\"dyn_shared_bytes\":[]}]}",
     "invalid kernel table: launch 'k' grid.x is not a well-formed launch expression"},
    {"{\"entry\":\"f\",\"params\":[],\"syms\":[],\"launches\":[{\"symbol\":\"k\",\"args\":[],\"grid\":[[],[]],"
     "\"block\":[[],[],[]],\"dyn_shared_bytes\":[]}]}",
     "'grid' must have 3 entries"},
    {"{\"entry\":\"f\",\"params\":[],\"syms\":[],\"launches\":[{\"symbol\":\"k\",\"args\":[{\"kind\":\"tensor\","
     "\"index\":0,\"dtype\":\"int32\"}],\"grid\":[[],[],[]],\"block\":[[],[],[]],\"dyn_shared_bytes\":[]}]}",
     "launch 'k' argument 0 refers to parameter 0 of 0"},
    {"{\"entry\":\"f\",\"params\":[],\"syms\":[],\"launches\":[{\"symbol\":\"k\",\"args\":[{\"kind\":\"blob\","
     "\"index\":0,\"dtype\":\"int32\"}],\"grid\":[[],[],[]],\"block\":[[],[],[]],\"dyn_shared_bytes\":[]}]}",
     "argument 0 has unknown kind 'blob'"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":0}],"
     "\"output\":false}],\"syms\":[{\"name\":\"N\",\"param\":0,\"dim\":1}],\"launches\":[]}",
     "symbolic dim 'N' is bound by dimension 1 of parameter 'A', which has 1"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[16],"
     "\"output\":false}],\"syms\":[{\"name\":\"N\",\"param\":0,\"dim\":0}],\"launches\":[]}",
     "symbolic dim 'N' is bound by dimension 0 of parameter 'A', which is not that dim"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[4],"
     "\"output\":false,\"align\":\"16\"}],\"syms\":[],\"launches\":[]}",
     "parameter 0: 'align' must be a non-negative integer"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[4],"
     "\"output\":false,\"align\":12}],\"syms\":[],\"launches\":[]}",
     "invalid kernel table: parameter 'A' has alignment 12, not a power of two"},
    {"{\"entry\":\"f\",\"params\":[{\"name\":\"n\",\"tensor\":false,\"dtype\":\"int32\",\"dims\":[],"
     "\"output\":false,\"align\":4}],\"syms\":[],\"launches\":[]}",
     "invalid kernel table: scalar parameter 'n' has an alignment"},
    {"{\"entry\":\"\",\"params\":[],\"syms\":[],\"launches\":[]}", "invalid kernel table: no entry symbol"},
    {"{\"entry\":\"f\",\"entry\":\"g\",\"params\":[],\"syms\":[],\"launches\":[]}", "duplicate"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tl_status s = tl_kernel_table_from_json(cases[i].json, &t);
    if (s != TL_EINVAL || !strstr(tl_last_error(), cases[i].needle))
      fail_msg("case %zu: %s: %s (wanted '%s')", i, tl_status_name(s), tl_last_error(), cases[i].needle);
    assert_null(t);
  }
  TL_ASSERT_ERR(tl_kernel_table_from_json(NULL, &t), TL_EINVAL, "json must not be NULL");
  /* Copy and JSON refuse inconsistent tables. */
  tl_kernel_table *good = vadd_table(TL_DT_FLOAT32);
  tl_kernel_table bad = *good;
  tl_kernel_arg args[1] = {{TL_KARG_SCALAR, 0, TL_DT_INT32}};
  tl_kernel_launch l = good->launches[0];
  l.nargs = 1;
  l.args = args;
  bad.launches = &l;
  TL_ASSERT_ERR(tl_kernel_table_copy(&bad, &t), TL_EINVAL, "passes parameter 'A' as a scalar");
  assert_null(tl_kernel_table_to_json(&bad));
  TL_ASSERT_ERR(tl_kernel_table_copy(NULL, &t), TL_EINVAL, "kernel table must not be NULL");
  tl_kernel_table_free(good);
  tl_kernel_table_free(NULL);
}

/* ------------------------------------------------------ launch expressions */

static void test_launch_expr(void **state) {
  (void)state;
  int64_t syms[2] = {1000, -7}, v = 0;
  tl_launch_expr one = {0, NULL};
  assert_true(tl_launch_expr_eval(&one, NULL, 0, &v));
  assert_int_equal(v, 1);
  const tl_lexpr_insn ceil[] = {{TL_LX_SYM, 0}, {TL_LX_CONST, 255}, {TL_LX_ADD, 0}, {TL_LX_CONST, 256}, {TL_LX_FLOORDIV, 0}};
  tl_launch_expr e = {5, ceil};
  assert_true(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_int_equal(v, 4);
  /* Python's floor division and modulo of negatives */
  const tl_lexpr_insn fd[] = {{TL_LX_SYM, 1}, {TL_LX_CONST, 2}, {TL_LX_FLOORDIV, 0}};
  e = (tl_launch_expr){3, fd};
  assert_true(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_int_equal(v, -4);
  const tl_lexpr_insn fm[] = {{TL_LX_SYM, 1}, {TL_LX_CONST, 3}, {TL_LX_FLOORMOD, 0}};
  e = (tl_launch_expr){3, fm};
  assert_true(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_int_equal(v, 2);
  const tl_lexpr_insn fm2[] = {{TL_LX_CONST, 7}, {TL_LX_CONST, -3}, {TL_LX_FLOORMOD, 0}};
  e = (tl_launch_expr){3, fm2};
  assert_true(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_int_equal(v, -2);
  const tl_lexpr_insn mm[] = {{TL_LX_SYM, 0}, {TL_LX_SYM, 1}, {TL_LX_MIN, 0}, {TL_LX_CONST, 5}, {TL_LX_MAX, 0},
                              {TL_LX_CONST, 3}, {TL_LX_MUL, 0}, {TL_LX_CONST, 1}, {TL_LX_SUB, 0}};
  e = (tl_launch_expr){9, mm};
  assert_true(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_int_equal(v, 14);
  /* wrap instead of overflow, INT64_MIN // -1 */
  const tl_lexpr_insn big[] = {{TL_LX_CONST, INT64_MIN}, {TL_LX_CONST, -1}, {TL_LX_FLOORDIV, 0}};
  e = (tl_launch_expr){3, big};
  assert_true(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_int_equal(v, INT64_MIN);
  /* failures: zero divisor, underflow, leftovers, unknown op, sym out of range, depth */
  const tl_lexpr_insn z[] = {{TL_LX_CONST, 1}, {TL_LX_CONST, 0}, {TL_LX_FLOORMOD, 0}};
  e = (tl_launch_expr){3, z};
  assert_false(tl_launch_expr_eval(&e, syms, 2, &v));
  const tl_lexpr_insn under[] = {{TL_LX_CONST, 1}, {TL_LX_ADD, 0}};
  e = (tl_launch_expr){2, under};
  assert_false(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_false(tl__launch_expr_valid(&e, 2));
  const tl_lexpr_insn left[] = {{TL_LX_CONST, 1}, {TL_LX_CONST, 2}};
  e = (tl_launch_expr){2, left};
  assert_false(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_false(tl__launch_expr_valid(&e, 2));
  const tl_lexpr_insn unk[] = {{TL_LX_CONST, 1}, {TL_LX_CONST, 2}, {99, 0}};
  e = (tl_launch_expr){3, unk};
  assert_false(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_false(tl__launch_expr_valid(&e, 2));
  const tl_lexpr_insn far[] = {{TL_LX_SYM, 2}};
  e = (tl_launch_expr){1, far};
  assert_false(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_false(tl__launch_expr_valid(&e, 2));
  tl_lexpr_insn deep[TL__LAUNCH_EXPR_MAX_DEPTH * 2 + 1];
  uint32_t n = 0;
  for (int i = 0; i <= TL__LAUNCH_EXPR_MAX_DEPTH; i++) deep[n++] = (tl_lexpr_insn){TL_LX_CONST, i};
  for (int i = 0; i < TL__LAUNCH_EXPR_MAX_DEPTH; i++) deep[n++] = (tl_lexpr_insn){TL_LX_ADD, 0};
  e = (tl_launch_expr){n, deep};
  assert_false(tl_launch_expr_eval(&e, syms, 2, &v));
  assert_false(tl__launch_expr_valid(&e, 2));
  e = (tl_launch_expr){n - 2, deep + 1}; /* depth exactly the maximum: fine */
  assert_true(tl__launch_expr_valid(&e, 2) == tl_launch_expr_eval(&e, syms, 2, &v));
  assert_false(tl_launch_expr_eval(NULL, syms, 2, &v));
}

/* ----------------------------------------------------------- bind_args */

typedef struct arg_case {
  const char *what;
  const char *message;
} arg_case;

/* Three float32 tensors of length 4 (A, B, C) for vadd, mutated per case. */
typedef struct vadd_args {
  float a[4], b[4], c[4];
  host_tensor ha, hb, hc;
  int64_t strides[1];
  tl_value v[3];
} vadd_args;

static void vadd_args_init(vadd_args *x) {
  memset(x, 0, sizeof *x);
  x->v[0] = ht_wrap(&x->ha, TL_DT_FLOAT32, x->a, 1, 4, 0);
  x->v[1] = ht_wrap(&x->hb, TL_DT_FLOAT32, x->b, 1, 4, 0);
  x->v[2] = ht_wrap(&x->hc, TL_DT_FLOAT32, x->c, 1, 4, 0);
}

static void test_bind_args(void **state) {
  (void)state;
  tl_kernel_table *t = vadd_table(TL_DT_FLOAT32);
  int64_t syms[1] = {0};
  vadd_args x;
  vadd_args_init(&x);
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms));
  assert_int_equal(syms[0], 4);
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 2, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("function 'vadd' takes 3 arguments but got 2");
  x.v[1] = tl_value_int(3);
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': expected a tensor but got an int");
  x.v[1] = tl_value_tensor(NULL);
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': expected a tensor but got none");
  vadd_args_init(&x);
  x.hb.t.dtype.code = kDLInt;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': expected float32 but got int32");
  x.hb.t.dtype = (DLDataType){kDLFloat, 32, 4};
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': expected float32 but got float32x4");
  x.hb.t.dtype = (DLDataType){9, 7, 1};
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': expected float32 but got dtype(code=9, bits=7, lanes=1)");
  x.hb.t.dtype = (DLDataType){kDLInt, 4, 1}; /* named as tl_dtype_name names it */
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': expected float32 but got int4");
  vadd_args_init(&x);
  x.hc.t.ndim = 2;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'C': expected 1 dimension but got 2");
  vadd_args_init(&x);
  x.ha.t.device.device_type = kDLCUDA;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'A': expected a CPU tensor (kDLCPU) but got device type 2");
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, 99, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'A': expected device type 99 but got device type 2");
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCUDA, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': expected a CUDA tensor (kDLCUDA) but got device type 1");
  vadd_args_init(&x);
  x.hb.t.data = NULL;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': the tensor's data is NULL");
  /* an empty tensor may come without data (but then all must be empty: N = 0) */
  x.ha.shape[0] = x.hb.shape[0] = x.hc.shape[0] = 0;
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms));
  assert_int_equal(syms[0], 0);
  vadd_args_init(&x);
  x.ha.shape[0] = 1ll << 31;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'A': dimension 0 (N = 2147483648) does not fit int32");
  vadd_args_init(&x);
  x.hc.shape[0] = 5;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'C': dimension 0 must equal N (=4 from argument 'A') but is 5");
  vadd_args_init(&x);
  x.strides[0] = 2;
  x.hb.t.strides = x.strides;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': the tensor must be compact (row-major contiguous)");
  x.strides[0] = 1;
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, syms));
  TL_ASSERT_ERR(tl_kernel_table_bind_args(NULL, x.v, 3, kDLCPU, syms), TL_EINVAL, "table must not be NULL");
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, NULL, 3, kDLCPU, syms), TL_EINVAL, "bad argument array");
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, x.v, 3, kDLCPU, NULL), TL_EINVAL, "bad argument array");
  tl_kernel_table_free(t);

  /* Scalars and constant dims (the rich table: A float16 [N, 64], B float32 [N],
   * K int32 scalar binding sym K, C bfloat16 [K, N]). */
  t = rich_table();
  uint16_t a[2 * 64] = {0}, c[3 * 2] = {0};
  _Alignas(16) float b[4] = {0}; /* B needs 16-byte aligned data */
  host_tensor ha, hb, hc;
  tl_value v[4] = {ht_wrap(&ha, TL_DT_FLOAT16, a, 2, 2, 64), ht_wrap(&hb, TL_DT_FLOAT32, b, 1, 2, 0),
                   tl_value_int(3), ht_wrap(&hc, TL_DT_BFLOAT16, c, 2, 3, 2)};
  int64_t s2[2];
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, v, 4, kDLCPU, s2));
  assert_int_equal(s2[0], 2);
  assert_int_equal(s2[1], 3);
  v[2] = tl_value_bool(true); /* a bool is an integer; K = 1 then mismatches C */
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 4, kDLCPU, s2), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'C': dimension 0 must equal K (=1 from argument 'K') but is 3");
  v[2] = tl_value_float(3.0);
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 4, kDLCPU, s2), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'K': expected a scalar int32 but got a float");
  v[2] = tl_value_int(1ll << 33);
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 4, kDLCPU, s2), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'K': 8589934592 does not fit int32");
  v[2] = tl_value_int(3);
  ha.shape[1] = 63;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 4, kDLCPU, s2), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'A': dimension 1 must be 64 but is 63");
  ha.shape[1] = 64;
  hb.t.byte_offset = 4; /* the last check: data alignment for vector accesses */
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 4, kDLCPU, s2), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'B': the tensor's data must be aligned to 16 bytes (the kernel uses vector accesses)");
  hb.t.byte_offset = 8;
  hb.t.data = b + 2; /* data + byte_offset = b + 4 floats: aligned again */
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, v, 4, kDLCPU, s2));
  tl_kernel_table_free(t);
}

/* Messages for a pointer and a float scalar. */
static void test_bind_scalars(void **state) {
  (void)state;
  tl_host_param params[3] = {{"p", false, TL_DT_HANDLE, 0, NULL, false, 0},
                             {"f", false, TL_DT_FLOAT16, 0, NULL, false, 0},
                             {"u", false, TL_DT_UINT8, 0, NULL, false, 0}};
  tl_kernel_table t0 = {"g", 3, params, 0, NULL, 0, NULL}, *t;
  TL_ASSERT_OK(tl__kernel_table_pack(&t0, &t));
  tl_value v[3] = {tl_value_ptr(NULL), tl_value_bool(false), tl_value_int(255)};
  TL_ASSERT_OK(tl_kernel_table_bind_args(t, v, 3, kDLCPU, NULL));
  v[0] = tl_value_int(1);
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 3, kDLCPU, NULL), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'p': expected a pointer but got an int");
  v[0] = tl_value_ptr(NULL);
  v[1] = tl_value_str("x");
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 3, kDLCPU, NULL), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'f': expected a scalar float16 but got a string");
  v[1] = tl_value_float(0.5);
  v[2] = tl_value_int(-1);
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 3, kDLCPU, NULL), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'u': -1 does not fit uint8");
  tl_value odd = {(tl_value_kind)42, 0, {.i = 0}};
  v[2] = odd;
  TL_ASSERT_ERR(tl_kernel_table_bind_args(t, v, 3, kDLCPU, NULL), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'u': expected a scalar uint8 but got an unknown value");
  tl_kernel_table_free(t);
  char buf[48];
  assert_string_equal(tl__dl_dtype_name(kDLBfloat, 16, 1, buf, sizeof buf), "bfloat16");
  assert_string_equal(tl__dl_dtype_name(6, 8, 2, buf, sizeof buf), "boolx2");
  /* the same names as tl_dtype_name for every code it knows */
  for (uint8_t code = 0; code < 8; code++)
    for (unsigned bits = 1; bits < 256; bits *= 2)
      for (uint16_t lanes = 0; lanes < 5; lanes++) {
        char want[64], tmp[64];
        const char *n = tl__dl_dtype_name(code, (uint8_t)bits, lanes, buf, sizeof buf);
        if (code == 5 || code == 7) snprintf(want, sizeof want, "dtype(code=%u, bits=%u, lanes=%u)", code, bits, lanes);
        else snprintf(want, sizeof want, "%s", tl_dtype_name((tl_dtype){code, (uint8_t)bits, lanes}, tmp, sizeof tmp));
        assert_string_equal(n, want);
      }
}

/* ------------------------------------------------------------------- OOM */

static tl_status oom_round_trip(void *ctx) {
  char *json = tl_kernel_table_to_json(ctx);
  if (!json) return TL_ENOMEM;
  tl_kernel_table *back = NULL, *copy = NULL;
  tl_status s = tl_kernel_table_from_json(json, &back);
  if (s == TL_OK) s = tl_kernel_table_copy(back, &copy);
  tl_kernel_table_free(copy);
  tl_kernel_table_free(back);
  tl_free(json);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  tl_kernel_table *t = rich_table();
  assert_true(tl_oom_sweep(oom_round_trip, NULL, t) > 3);
  tl_kernel_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_json_errors), cmocka_unit_test(test_launch_expr),
    cmocka_unit_test(test_bind_args),       cmocka_unit_test(test_bind_scalars), cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
