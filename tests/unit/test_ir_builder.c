/* The IR builder: dtype/scope/op names, node construction, dtype inference, NULL
 * propagation, locations, functions and attributes, and an OOM sweep. */
#include <math.h>

#include "base/error.h"
#include "ir/module.h"
#include "tilelang/ir.h"
#include "tl_test.h"

static void test_dtype_names(void **state) {
  (void)state;
  static const char *names[] = {"bool",    "int8",    "int16",   "int32",    "int64",  "uint8",  "uint16",
                                "uint32",  "uint64",  "float16", "float32",  "float64", "bfloat16", "handle"};
  char buf[32];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    tl_dtype t;
    assert_true(tl_dtype_parse(names[i], &t));
    assert_int_equal(t.lanes, 1);
    assert_string_equal(tl_dtype_name(t, NULL, 0), names[i]); /* scalars need no buffer */
    assert_string_equal(tl_dtype_name(t, buf, sizeof buf), names[i]);
  }
  tl_dtype t;
  assert_true(tl_dtype_parse("float32x4", &t));
  assert_true(tl_dtype_eq(t, tl_dtype_with_lanes(TL_DT_FLOAT32, 4)));
  assert_string_equal(tl_dtype_name(t, buf, sizeof buf), "float32x4");
  assert_true(tl_dtype_parse("int8x16", &t));
  assert_true(tl_dtype_eq(t, tl_dtype_with_lanes(TL_DT_INT8, 16)));
  assert_true(tl_dtype_eq(TL_DT_BOOL, (tl_dtype){TL_DTYPE_BOOL, 8, 1}));
  assert_int_equal(tl_dtype_bytes(t), 16);
  static const char *bad[] = {"half", "float", "int", "int3", "int32x", "int32x1", "int32x0", "int32x04",
                              "int32x65536", "int32x-4", "int32 ", "Float32", "", "int64x4y", "float32x4x4"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_false(tl_dtype_parse(bad[i], &t));
  assert_false(tl_dtype_parse(NULL, &t));
  /* Types outside the table are still named (for messages). */
  assert_string_equal(tl_dtype_name(TL_DT(TL_DTYPE_INT, 4), buf, sizeof buf), "int4");
  assert_string_equal(tl_dtype_name(tl_dtype_with_lanes(TL_DT(TL_DTYPE_FLOAT, 8), 2), buf, sizeof buf), "float8x2");
}

static void test_scope_and_op_names(void **state) {
  (void)state;
  static const char *scopes[] = {"global", "shared", "shared.dyn", "local", "local.fragment", "local.var"};
  for (int i = 0; i < 6; i++) {
    assert_string_equal(tl_ir_scope_name((tl_ir_scope)i), scopes[i]);
    tl_ir_scope s;
    assert_true(tl_ir_scope_parse(scopes[i], &s));
    assert_int_equal(s, i);
  }
  assert_false(tl_ir_scope_parse("fragment", NULL));
  assert_false(tl_ir_scope_parse(NULL, NULL));
  for (int i = 0; i < TL_OP__COUNT; i++) {
    const char *n = tl_ir_op_name((tl_ir_op)i);
    assert_true(strncmp(n, "T.", 2) == 0);
    tl_ir_op op;
    assert_true(tl_ir_op_parse(n, &op));
    assert_int_equal(op, i);
    for (int j = 0; j < i; j++) assert_string_not_equal(n, tl_ir_op_name((tl_ir_op)j));
  }
  assert_string_equal(tl_ir_op_name(TL_OP_GEMM), "T.gemm");
  assert_string_equal(tl_ir_op_name(TL_OP_REDUCE_ABSMAX), "T.reduce_absmax");
  assert_false(tl_ir_op_parse("T.nope", NULL));
  assert_true(tl_ir_op_is_tile(TL_OP_COPY));
  assert_true(tl_ir_op_is_tile(TL_OP_CUMSUM));
  assert_true(tl_ir_op_is_tile(TL_OP_ATOMIC_ADD_ELEM));
  assert_false(tl_ir_op_is_tile(TL_OP_EXP));
  assert_false(tl_ir_op_is_tile(TL_OP_CEILDIV));
  assert_false(tl_ir_op_is_tile(TL_OP_WARP_SHFL_XOR));
}

static void test_vars_buffers_locations(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_span loc = {"k.py", 3, 7};
  tl_ir_builder_set_loc(m, loc);
  assert_int_equal(tl_ir_builder_loc(m).line, 3);
  char name[] = "i";
  tl_ir_var *i = tl_ir_var_new(m, name, TL_DT_INT32);
  name[0] = 'x'; /* the name was copied */
  assert_string_equal(i->name, "i");
  assert_string_equal(i->span.file, "k.py");
  assert_int_equal(i->span.col, 7);
  assert_null(i->thread_tag);
  tl_ir_var *j = tl_ir_var_new(m, "j", TL_DT_INT64);
  assert_true(j->id > i->id);

  tl_ir_expr *shape[2] = {tl_ir_i32(m, 4), tl_ir_var_ref(m, i)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT16, 2, shape, NULL, TL_SCOPE_SHARED);
  assert_non_null(a);
  shape[0] = NULL; /* the array was copied */
  assert_non_null(a->shape[0]);
  assert_int_equal(a->shape[0]->u.int_value, 4);
  assert_ptr_equal(a->shape[1]->u.var, i);
  assert_null(a->strides);
  assert_int_equal(a->scope, TL_SCOPE_SHARED);
  assert_string_equal(a->name, "A");
  assert_non_null(a->data);
  assert_string_equal(a->data->name, "A");
  assert_true(tl_dtype_eq(a->data->dtype, TL_DT_HANDLE));
  assert_true(a->data->id > j->id);
  tl_ir_buffer *b = tl_ir_buffer_new(m, "B", TL_DT_FLOAT32, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
  assert_non_null(b);
  assert_true(b->id > a->id);
  assert_null(b->shape);
  tl_ir_expr *strides[1] = {tl_ir_i32(m, 2)};
  tl_ir_expr *sh1[1] = {tl_ir_i32(m, 8)};
  tl_ir_buffer *c = tl_ir_buffer_new(m, "C", TL_DT_FLOAT32, 1, sh1, strides, TL_SCOPE_GLOBAL);
  assert_int_equal(c->strides[0]->u.int_value, 2);
  assert_ptr_not_equal(c->strides, strides);

  /* Every node gets the location current when it was built. */
  tl_ir_builder_set_loc(m, (tl_ir_span){"k.py", 9, 1});
  tl_ir_expr *e = tl_ir_i32(m, 1);
  tl_ir_stmt *s = tl_ir_barrier(m);
  assert_int_equal(e->span.line, 9);
  assert_int_equal(s->span.line, 9);
  assert_int_equal(shape[1]->span.line, 3);
  tl_ir_module_free(m);
}

static void test_expr_dtypes(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *x = tl_ir_var_new(m, "x", TL_DT_FLOAT16);
  tl_ir_expr *xr = tl_ir_var_ref(m, x);
  assert_true(tl_dtype_eq(xr->dtype, TL_DT_FLOAT16));
  tl_ir_expr *one = tl_ir_float(m, TL_DT_FLOAT16, 1.0);
  assert_int_equal(one->kind, TL_EXPR_FLOAT);
  assert_true(one->u.float_value == 1.0);
  assert_true(isinf(tl_ir_float(m, TL_DT_FLOAT32, -INFINITY)->u.float_value));
  for (int op = TL_BIN_ADD; op <= TL_BIN_SHR; op++) {
    tl_ir_expr *e = tl_ir_binary(m, (tl_ir_binop)op, xr, one);
    assert_int_equal(e->kind, TL_EXPR_BINARY);
    assert_int_equal(e->u.binary.op, op);
    assert_ptr_equal(e->u.binary.a, xr);
    bool is_bool = (op >= TL_BIN_EQ && op <= TL_BIN_GE) || op == TL_BIN_AND || op == TL_BIN_OR;
    assert_true(tl_dtype_eq(e->dtype, is_bool ? TL_DT_BOOL : TL_DT_FLOAT16));
  }
  tl_ir_expr *cmp = tl_ir_binary(m, TL_BIN_LT, xr, one);
  assert_true(tl_dtype_eq(tl_ir_unary(m, TL_UN_NOT, cmp)->dtype, TL_DT_BOOL));
  assert_true(tl_dtype_eq(tl_ir_unary(m, TL_UN_NEG, xr)->dtype, TL_DT_FLOAT16));
  tl_ir_expr *sel = tl_ir_select(m, cmp, xr, one);
  assert_true(tl_dtype_eq(sel->dtype, TL_DT_FLOAT16));
  assert_ptr_equal(sel->u.select.f, one);
  tl_ir_expr *cast = tl_ir_cast(m, TL_DT_FLOAT32, xr);
  assert_true(tl_dtype_eq(cast->dtype, TL_DT_FLOAT32));
  assert_ptr_equal(cast->u.cast.value, xr);
  tl_ir_expr *b = tl_ir_bool(m, true);
  assert_true(tl_dtype_eq(b->dtype, TL_DT_BOOL));
  assert_int_equal(b->u.int_value, 1);
  assert_int_equal(tl_ir_bool(m, false)->u.int_value, 0);
  tl_ir_expr *i64 = tl_ir_int(m, TL_DT_INT64, -5);
  assert_true(tl_dtype_eq(i64->dtype, TL_DT_INT64));
  assert_int_equal(i64->u.int_value, -5);
  tl_ir_expr *str = tl_ir_str(m, "msg");
  assert_string_equal(str->u.str, "msg");
  assert_true(tl_dtype_eq(str->dtype, TL_DT_HANDLE));

  /* Loads: the buffer's dtype, vector lanes from a ramp index; vector ops follow. */
  tl_ir_expr *n8[1] = {tl_ir_i32(m, 8)};
  tl_ir_buffer *buf = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, n8, NULL, TL_SCOPE_GLOBAL);
  tl_ir_expr *idx[1] = {tl_ir_i32(m, 3)};
  tl_ir_expr *ld = tl_ir_load(m, buf, 1, idx);
  assert_true(tl_dtype_eq(ld->dtype, TL_DT_FLOAT32));
  assert_ptr_not_equal(ld->u.load.indices, idx);
  tl_ir_expr *ramp = tl_ir_ramp(m, tl_ir_i32(m, 0), 1, 4);
  assert_true(tl_dtype_eq(ramp->dtype, tl_dtype_with_lanes(TL_DT_INT32, 4)));
  assert_int_equal(ramp->u.ramp.stride, 1);
  tl_ir_expr *ridx[1] = {ramp};
  tl_ir_expr *vld = tl_ir_load(m, buf, 1, ridx);
  assert_true(tl_dtype_eq(vld->dtype, tl_dtype_with_lanes(TL_DT_FLOAT32, 4)));
  tl_ir_expr *bc = tl_ir_broadcast(m, tl_ir_float(m, TL_DT_FLOAT32, 2.0), 4);
  assert_true(tl_dtype_eq(bc->dtype, tl_dtype_with_lanes(TL_DT_FLOAT32, 4)));
  assert_true(tl_dtype_eq(tl_ir_binary(m, TL_BIN_EQ, vld, bc)->dtype, tl_dtype_with_lanes(TL_DT_BOOL, 4)));
  tl_ir_buffer *v = tl_ir_buffer_new(m, "acc", TL_DT_FLOAT32, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
  tl_ir_expr *vl = tl_ir_load(m, v, 0, NULL);
  assert_int_equal(vl->u.load.n, 0);
  assert_null(vl->u.load.indices);

  /* Calls keep the given dtype and copy their arguments. */
  tl_ir_expr *args[1] = {xr};
  tl_ir_expr *call = tl_ir_call(m, TL_OP_EXP, TL_DT_FLOAT16, 1, args);
  assert_int_equal(call->u.call.op, TL_OP_EXP);
  assert_int_equal(call->u.call.nargs, 1);
  assert_ptr_not_equal(call->u.call.args, args);
  assert_ptr_equal(call->u.call.args[0], xr);

  /* Regions: NULL mins/extents is the whole buffer. */
  tl_ir_expr *shape[2] = {tl_ir_i32(m, 64), tl_ir_i32(m, 32)};
  tl_ir_buffer *s = tl_ir_buffer_new(m, "S", TL_DT_FLOAT16, 2, shape, NULL, TL_SCOPE_SHARED);
  tl_ir_expr *full = tl_ir_region(m, s, NULL, NULL, TL_REGION_SLICE);
  assert_int_equal(full->u.region.form, TL_REGION_FULL);
  assert_int_equal(full->u.region.ndim, 2);
  for (int d = 0; d < 2; d++) {
    assert_int_equal(full->u.region.mins[d]->kind, TL_EXPR_INT);
    assert_int_equal(full->u.region.mins[d]->u.int_value, 0);
    assert_true(tl_dtype_eq(full->u.region.mins[d]->dtype, TL_DT_INT32));
    assert_ptr_equal(full->u.region.extents[d], s->shape[d]);
  }
  tl_ir_expr *mins[2] = {tl_ir_i32(m, 0), tl_ir_i32(m, 16)};
  tl_ir_expr *ext[2] = {tl_ir_i32(m, 64), tl_ir_i32(m, 16)};
  tl_ir_expr *slice = tl_ir_region(m, s, mins, ext, TL_REGION_SLICE);
  assert_int_equal(slice->u.region.form, TL_REGION_SLICE);
  assert_ptr_equal(slice->u.region.mins[1], mins[1]);
  assert_ptr_equal(slice->u.region.extents[0], ext[0]);
  assert_null(tl_ir_region(m, s, mins, NULL, TL_REGION_SLICE));
  assert_string_equal(tl_last_error(), "tl_ir_region: give both mins and extents, or neither");
  tl_ir_module_free(m);
}

static void test_stmts(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *k = tl_ir_var_new(m, "k", TL_DT_INT64);
  tl_ir_var *vars[2] = {i, k};
  tl_ir_expr *ext[2] = {tl_ir_i32(m, 4), tl_ir_int(m, TL_DT_INT64, 8)};
  tl_ir_stmt *body = tl_ir_seq(m, 0, NULL);
  assert_int_equal(body->kind, TL_STMT_SEQ);
  assert_int_equal(body->u.seq.n, 0);
  tl_ir_stmt *loop = tl_ir_for(m, TL_FOR_PARALLEL, 2, vars, NULL, ext, body);
  assert_int_equal(loop->u.loop.kind, TL_FOR_PARALLEL);
  assert_int_equal(loop->u.loop.n, 2);
  assert_ptr_equal(loop->u.loop.vars[1], k);
  assert_int_equal(loop->u.loop.mins[0]->u.int_value, 0);
  assert_true(tl_dtype_eq(loop->u.loop.mins[0]->dtype, TL_DT_INT32));
  assert_true(tl_dtype_eq(loop->u.loop.mins[1]->dtype, TL_DT_INT64)); /* typed as its variable */
  assert_int_equal(loop->u.loop.num_stages, 0);
  assert_null(loop->u.loop.thread_tag);
  assert_ptr_equal(loop->u.loop.body, body);
  assert_null(tl_ir_for(m, TL_FOR_SERIAL, 0, vars, NULL, ext, body));
  assert_string_equal(tl_last_error(), "tl_ir_for: a loop needs at least one variable");

  tl_ir_expr *g[2] = {tl_ir_i32(m, 4), tl_ir_i32(m, 2)};
  tl_ir_expr *t[1] = {tl_ir_i32(m, 128)};
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_var *bvars[2] = {bx, NULL};
  tl_ir_stmt *kern = tl_ir_kernel(m, 2, g, 1, t, bvars, loop);
  assert_int_equal(kern->u.kernel.grid_ndim, 2);
  assert_ptr_equal(kern->u.kernel.grid[1], g[1]);
  assert_null(kern->u.kernel.grid[2]);
  assert_null(kern->u.kernel.threads[1]);
  assert_ptr_equal(kern->u.kernel.block_vars[0], bx);
  assert_null(kern->u.kernel.block_vars[1]);
  assert_null(kern->u.kernel.thread_vars[0]);
  assert_null(tl_ir_kernel(m, 4, g, 1, t, NULL, loop));
  assert_string_equal(tl_last_error(), "tl_ir_kernel: grid_ndim must be 1, 2 or 3");
  assert_null(tl_ir_kernel(m, 1, g, 0, t, NULL, loop));
  assert_string_equal(tl_last_error(), "tl_ir_kernel: threads_ndim must be 1, 2 or 3");
  kern = tl_ir_kernel(m, 1, g, 1, t, NULL, loop);
  assert_null(kern->u.kernel.block_vars[0]);

  tl_ir_expr *cond = tl_ir_binary(m, TL_BIN_LT, tl_ir_var_ref(m, i), tl_ir_i32(m, 3));
  tl_ir_stmt *iff = tl_ir_if(m, cond, body, NULL);
  assert_null(iff->u.if_.else_);
  tl_ir_expr *one[1] = {tl_ir_i32(m, 1)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_INT32, 1, one, NULL, TL_SCOPE_GLOBAL);
  tl_ir_expr *idx[1] = {tl_ir_i32(m, 0)};
  tl_ir_stmt *st = tl_ir_store(m, a, 1, idx, tl_ir_i32(m, 5));
  assert_ptr_equal(st->u.store.indices[0], idx[0]);
  assert_int_equal(st->u.store.value->u.int_value, 5);
  tl_ir_stmt *let = tl_ir_let(m, i, tl_ir_i32(m, 2), st);
  assert_ptr_equal(let->u.let.var, i);
  assert_int_equal(tl_ir_alloc(m, a)->u.alloc.buffer->id, a->id);
  tl_ir_stmt *as = tl_ir_assert(m, cond, "bad shape");
  assert_string_equal(as->u.assert_.message, "bad shape");
  assert_string_equal(tl_ir_assert(m, cond, NULL)->u.assert_.message, "");
  tl_ir_stmt *list[3] = {iff, let, as};
  tl_ir_stmt *seq = tl_ir_seq(m, 3, list);
  assert_int_equal(seq->u.seq.n, 3);
  assert_ptr_not_equal(seq->u.seq.stmts, list);
  assert_ptr_equal(seq->u.seq.stmts[2], as);

  tl_ir_expr *grid[3] = {tl_ir_i32(m, 4), tl_ir_i32(m, 1), tl_ir_i32(m, 1)};
  tl_ir_expr *block[3] = {tl_ir_i32(m, 128), tl_ir_i32(m, 1), tl_ir_i32(m, 1)};
  tl_ir_expr *largs[1] = {tl_ir_var_ref(m, a->data)};
  tl_ir_stmt *launch = tl_ir_launch(m, "k_kernel", 1, largs, grid, block, NULL);
  assert_string_equal(launch->u.launch.kernel, "k_kernel");
  assert_ptr_equal(launch->u.launch.block[0], block[0]);
  assert_null(launch->u.launch.dyn_shared_bytes);
  assert_int_equal(tl_ir_barrier(m)->kind, TL_STMT_BARRIER);
  tl_ir_module_free(m);
}

/* A NULL node argument gives NULL and leaves the message alone. */
static void test_null_propagation(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl__error(TL_ENOMEM, "earlier failure");
  tl_ir_expr *x = tl_ir_i32(m, 1);
  tl_ir_expr *nul = NULL;
  tl_ir_stmt *s = tl_ir_barrier(m);
  tl_ir_var *v = tl_ir_var_new(m, "v", TL_DT_INT32);
  tl_ir_expr *shape[1] = {NULL};
  assert_null(tl_ir_buffer_new(m, "A", TL_DT_INT32, 1, shape, NULL, TL_SCOPE_GLOBAL));
  assert_null(tl_ir_var_ref(m, NULL));
  assert_null(tl_ir_binary(m, TL_BIN_ADD, x, NULL));
  assert_null(tl_ir_binary(m, TL_BIN_ADD, NULL, x));
  assert_null(tl_ir_unary(m, TL_UN_NEG, NULL));
  assert_null(tl_ir_select(m, x, NULL, x));
  assert_null(tl_ir_cast(m, TL_DT_INT64, NULL));
  assert_null(tl_ir_load(m, NULL, 0, NULL));
  shape[0] = x;
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_INT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  assert_null(tl_ir_load(m, a, 1, &nul));
  assert_null(tl_ir_call(m, TL_OP_EXP, TL_DT_FLOAT32, 1, &nul));
  assert_null(tl_ir_region(m, NULL, NULL, NULL, TL_REGION_FULL));
  assert_null(tl_ir_region(m, a, &nul, &x, TL_REGION_SLICE));
  assert_null(tl_ir_ramp(m, NULL, 1, 4));
  assert_null(tl_ir_broadcast(m, NULL, 4));
  tl_ir_stmt *nuls = NULL;
  tl_ir_stmt *pair[2] = {s, NULL};
  assert_null(tl_ir_seq(m, 2, pair));
  assert_null(tl_ir_for(m, TL_FOR_SERIAL, 1, &v, NULL, &x, NULL));
  assert_null(tl_ir_for(m, TL_FOR_SERIAL, 1, &v, NULL, &nul, s));
  assert_null(tl_ir_for(m, TL_FOR_SERIAL, 1, &v, &nul, &x, s));
  tl_ir_var *nv = NULL;
  assert_null(tl_ir_for(m, TL_FOR_SERIAL, 1, &nv, NULL, &x, s));
  assert_null(tl_ir_if(m, NULL, s, NULL));
  assert_null(tl_ir_if(m, x, NULL, s));
  assert_null(tl_ir_store(m, a, 1, &x, NULL));
  assert_null(tl_ir_store(m, NULL, 1, &x, x));
  assert_null(tl_ir_let(m, v, x, NULL));
  assert_null(tl_ir_let(m, NULL, x, s));
  assert_null(tl_ir_alloc(m, NULL));
  assert_null(tl_ir_eval(m, NULL));
  assert_null(tl_ir_kernel(m, 1, &x, 1, &nul, NULL, s));
  assert_null(tl_ir_kernel(m, 1, &nul, 1, &x, NULL, s));
  assert_null(tl_ir_kernel(m, 1, &x, 1, &x, NULL, nuls));
  assert_null(tl_ir_assert(m, NULL, "m"));
  tl_ir_expr *grid[3] = {x, x, NULL};
  tl_ir_expr *block[3] = {x, x, x};
  assert_null(tl_ir_launch(m, "k", 0, NULL, grid, block, NULL));
  assert_null(tl_ir_launch(m, "k", 1, &nul, block, block, NULL));
  assert_string_equal(tl_last_error(), "earlier failure");
  tl_ir_module_free(m);
}

static void test_funcs_and_attrs(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_builder_set_loc(m, (tl_ir_span){"f.py", 2, 1});
  tl_ir_func *f, *g;
  TL_ASSERT_OK(tl_ir_func_new(m, "main", &f));
  assert_string_equal(f->name, "main");
  assert_int_equal(f->callconv, TL_CALLCONV_DEFAULT);
  assert_int_equal(f->span.line, 2);
  assert_int_equal(f->nparams, 0);
  assert_null(f->body);
  TL_ASSERT_ERR(tl_ir_func_new(m, "main", &g), TL_EINVAL, "");
  TL_ASSERT_MSG("function 'main' is already defined in the module");
  assert_null(g);
  TL_ASSERT_ERR(tl_ir_func_new(m, "", &g), TL_EINVAL, "needs a name");
  TL_ASSERT_OK(tl_ir_func_new(m, "other", &g));
  assert_int_equal(tl_ir_module_num_funcs(m), 2);
  assert_ptr_equal(tl_ir_module_func(m, 1), g);
  assert_null(tl_ir_module_func(m, 2));
  assert_ptr_equal(tl_ir_module_find_func(m, "main"), f);
  assert_null(tl_ir_module_find_func(m, "nope"));

  tl_ir_var *n = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_expr *shape[1] = {tl_ir_var_ref(m, n)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *c = tl_ir_buffer_new(m, "C", TL_DT_FLOAT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *alpha = tl_ir_var_new(m, "alpha", TL_DT_FLOAT32);
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, a, false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, alpha));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, c, true));
  assert_int_equal(f->nparams, 3);
  assert_int_equal(f->params[0].kind, TL_PARAM_BUFFER);
  assert_string_equal(f->params[0].name, "A");
  assert_ptr_equal(f->params[0].buffer, a);
  assert_ptr_equal(f->params[0].var, a->data);
  assert_false(f->params[0].is_output);
  assert_int_equal(f->params[1].kind, TL_PARAM_SCALAR);
  assert_string_equal(f->params[1].name, "alpha");
  assert_ptr_equal(f->params[1].var, alpha);
  assert_null(f->params[1].buffer);
  assert_true(f->params[2].is_output);
  /* A NULL node from a failed builder call reports that failure. */
  TL_ASSERT_ERR(tl_ir_func_add_buffer_param(m, f, tl_ir_buffer_new(m, NULL, TL_DT_INT32, 0, NULL, NULL, 0), false),
                TL_EINVAL, "");
  TL_ASSERT_MSG("tl_ir_buffer_new: name is NULL");
  assert_int_equal(f->nparams, 3);

  TL_ASSERT_OK(tl_ir_func_set_attr_str(m, f, "target", "{\"kind\":\"c\"}"));
  TL_ASSERT_OK(tl_ir_func_set_attr_int(m, f, "tl.n", 3));
  TL_ASSERT_OK(tl_ir_func_set_attr_int(m, f, "target", 7)); /* replaces, keeps position */
  assert_int_equal(f->nattrs, 2);
  assert_string_equal(f->attrs[0].key, "target");
  const tl_ir_attr *at = tl_ir_func_attr(f, "target");
  assert_int_equal(at->kind, TL_ATTR_INT);
  assert_int_equal(at->i, 7);
  assert_int_equal(tl_ir_func_attr(f, "tl.n")->i, 3);
  assert_null(tl_ir_func_attr(f, "x"));
  assert_null(tl_ir_func_attr(g, "target"));
  TL_ASSERT_ERR(tl_ir_func_set_attr_str(m, f, "k", NULL), TL_EINVAL, "");

  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "name", "mod"));
  TL_ASSERT_OK(tl_ir_module_set_attr_int(m, "opt", 2));
  TL_ASSERT_OK(tl_ir_module_set_attr_int(m, "opt", 3));
  assert_int_equal(tl_ir_module_attr(m, "opt")->i, 3);
  assert_string_equal(tl_ir_module_attr(m, "name")->s, "mod");
  assert_null(tl_ir_module_attr(m, "none"));
  TL_ASSERT_ERR(tl_ir_module_set_attr_str(m, NULL, "v"), TL_EINVAL, "");

  tl_ir_module_remove_func(m, 0);
  assert_int_equal(tl_ir_module_num_funcs(m), 1);
  assert_ptr_equal(tl_ir_module_func(m, 0), g);
  TL_ASSERT_OK(tl_ir_func_new(m, "main", &f)); /* the name is free again */
  tl_ir_module_free(m);
  tl_ir_module_free(NULL);
}

/* Builds a vector-add style tile kernel, checking once at the end:
 *   def vadd(A: T.Tensor((N,), "float32"), B: ..., C: ...):
 *     with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
 *       S = T.alloc_shared((128,), "float32")
 *       T.copy(A[bx * 128], S)
 *       for i in T.Parallel(128):
 *         if bx * 128 + i < N:
 *           C[bx * 128 + i] = S[i] + B[bx * 128 + i]                    */
static tl_status build_vadd(tl_ir_module *m) {
  tl_ir_builder_set_loc(m, (tl_ir_span){"vadd.py", 1, 1});
  tl_ir_var *n = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_expr *nshape[1] = {tl_ir_var_ref(m, n)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, nshape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *b = tl_ir_buffer_new(m, "B", TL_DT_FLOAT32, 1, nshape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_buffer *c = tl_ir_buffer_new(m, "C", TL_DT_FLOAT32, 1, nshape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_expr *s128[1] = {tl_ir_i32(m, 128)};
  tl_ir_buffer *s = tl_ir_buffer_new(m, "S", TL_DT_FLOAT32, 1, s128, NULL, TL_SCOPE_SHARED);
  tl_ir_expr *base = tl_ir_binary(m, TL_BIN_MUL, tl_ir_var_ref(m, bx), tl_ir_i32(m, 128));
  tl_ir_expr *gi[1] = {tl_ir_binary(m, TL_BIN_ADD, base, tl_ir_var_ref(m, i))};
  tl_ir_expr *si[1] = {tl_ir_var_ref(m, i)};
  tl_ir_stmt *store = tl_ir_store(m, c, 1, gi, tl_ir_binary(m, TL_BIN_ADD, tl_ir_load(m, s, 1, si), tl_ir_load(m, b, 1, gi)));
  tl_ir_stmt *guard = tl_ir_if(m, tl_ir_binary(m, TL_BIN_LT, gi[0], tl_ir_var_ref(m, n)), store, NULL);
  tl_ir_stmt *loop = tl_ir_for(m, TL_FOR_PARALLEL, 1, &i, NULL, s128, guard);
  tl_ir_expr *amin[1] = {base};
  tl_ir_expr *copy_args[2] = {tl_ir_region(m, a, amin, s128, TL_REGION_POINT), tl_ir_region(m, s, NULL, NULL, 0)};
  tl_ir_stmt *body[3] = {tl_ir_alloc(m, s), tl_ir_eval(m, tl_ir_call(m, TL_OP_COPY, TL_DT_HANDLE, 2, copy_args)), loop};
  tl_ir_expr *cd_args[2] = {tl_ir_var_ref(m, n), tl_ir_i32(m, 128)};
  tl_ir_expr *grid[1] = {tl_ir_call(m, TL_OP_CEILDIV, TL_DT_INT32, 2, cd_args)};
  tl_ir_stmt *kernel = tl_ir_kernel(m, 1, grid, 1, s128, &bx, tl_ir_seq(m, 3, body));
  if (!kernel) return tl__ir_null_status(m, "vadd: a node is missing");
  tl_ir_func *f;
  TL__TRY(tl_ir_func_new(m, "vadd", &f));
  TL__TRY(tl_ir_func_add_buffer_param(m, f, a, false));
  TL__TRY(tl_ir_func_add_buffer_param(m, f, b, false));
  TL__TRY(tl_ir_func_add_buffer_param(m, f, c, false));
  TL__TRY(tl_ir_func_set_attr_str(m, f, "tl.kernel_source_name", "vadd_kernel"));
  f->body = kernel;
  return TL_OK;
}

static tl_status oom_build(void *ctx) {
  size_t chunk = *(size_t *)ctx;
  tl_ir_module *m;
  TL__TRY(tl_ir_module_create(&m));
  /* A small chunk size makes nearly every node allocation a malloc, so the sweep
   * fails each builder's allocation in turn. */
  if (chunk) m->arena.chunk_size = chunk;
  tl_status s = build_vadd(m);
  if (s == TL_OK) s = tl_ir_module_set_attr_str(m, "source", "vadd.py");
  tl_ir_module_free(m);
  return s;
}

static void test_oom_sweep(void **state) {
  (void)state;
  size_t chunk = 0;
  long sites = tl_oom_sweep(oom_build, NULL, &chunk);
  assert_true(sites >= 3); /* the module, its arena, the function list at least */
  chunk = 1;
  long fine = tl_oom_sweep(oom_build, NULL, &chunk);
  assert_true(fine > 60); /* every node */
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  TL_ASSERT_OK(build_vadd(m));
  tl_ir_func *f = tl_ir_module_find_func(m, "vadd");
  assert_int_equal(f->body->kind, TL_STMT_KERNEL);
  assert_int_equal(f->body->u.kernel.body->u.seq.n, 3);
  assert_string_equal(f->body->span.file, "vadd.py");
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dtype_names),      cmocka_unit_test(test_scope_and_op_names),
      cmocka_unit_test(test_vars_buffers_locations), cmocka_unit_test(test_expr_dtypes),
      cmocka_unit_test(test_stmts),            cmocka_unit_test(test_null_propagation),
      cmocka_unit_test(test_funcs_and_attrs),  cmocka_unit_test(test_oom_sweep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
