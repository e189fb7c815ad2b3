/* Module cloning: a deep, independent copy, equal to the original, in which a
 * variable or buffer used in several places is one object. */
#include <string.h>

#include "base/error.h"
#include "ir/module.h"
#include "ir_fixtures.h"
#include "tl_test.h"

static tl_ir_module *build_all(void) {
  tl_ir_module *m;
  if (tl_ir_module_create(&m) != TL_OK) return NULL;
  if (!fx_vadd(m, "vadd") || !fx_matmul(m, "matmul") || !fx_host_device(m, "scale", "scale_kernel") ||
      tl_ir_module_set_attr_str(m, "source", "k.py") != TL_OK || tl_ir_module_set_attr_int(m, "opt", 3) != TL_OK ||
      tl_ir_func_set_attr_str(m, tl_ir_module_find_func(m, "vadd"), "target", "{\"kind\":\"c\"}") != TL_OK) {
    tl_ir_module_free(m);
    return NULL;
  }
  return m;
}

static void test_clone_equal_and_valid(void **state) {
  (void)state;
  tl_ir_module *src = build_all(), *dst;
  assert_non_null(src);
  TL_ASSERT_OK(tl_ir_module_clone(src, &dst));
  assert_ptr_not_equal(src, dst);
  assert_true(tl_ir_module_equal(src, dst));
  assert_int_equal(tl_ir_module_hash(src), tl_ir_module_hash(dst));
  TL_ASSERT_OK(tl_ir_verify_module(dst));
  assert_int_equal(tl_ir_module_num_funcs(dst), 4); /* vadd, matmul, scale_kernel, scale */
  for (size_t i = 0; i < 4; i++) {
    tl_ir_func *a = tl_ir_module_func(src, i), *b = tl_ir_module_func(dst, i);
    assert_ptr_not_equal(a, b);
    assert_string_equal(a->name, b->name);
    assert_ptr_not_equal(a->name, b->name);
    assert_ptr_not_equal(a->body, b->body);
    assert_int_equal(a->callconv, b->callconv);
    assert_true(tl_ir_func_equal(a, b));
    assert_int_equal(a->span.line, b->span.line);
    assert_string_equal(a->span.file, b->span.file);
    assert_ptr_not_equal(a->span.file, b->span.file);
  }
  assert_string_equal(tl_ir_module_attr(dst, "source")->s, "k.py");
  assert_ptr_not_equal(tl_ir_module_attr(dst, "source")->s, tl_ir_module_attr(src, "source")->s);
  assert_int_equal(tl_ir_module_attr(dst, "opt")->i, 3);
  assert_string_equal(tl_ir_func_attr(tl_ir_module_find_func(dst, "vadd"), "target")->s, "{\"kind\":\"c\"}");
  /* Ids are kept, and new nodes continue after them. */
  assert_int_equal(dst->next_var_id, src->next_var_id);
  assert_int_equal(dst->next_buffer_id, src->next_buffer_id);
  tl_ir_var *v = tl_ir_var_new(dst, "fresh", TL_DT_INT32);
  assert_int_equal(v->id, src->next_var_id);
  tl_ir_module_free(src);
  tl_ir_module_free(dst);
}

static void test_clone_identity(void **state) {
  (void)state;
  tl_ir_module *src = build_all(), *dst;
  TL_ASSERT_OK(tl_ir_module_clone(src, &dst));
  /* vadd: N is one variable in every shape; bx is one variable in the kernel and its uses. */
  tl_ir_func *sf = tl_ir_module_find_func(src, "vadd"), *f = tl_ir_module_find_func(dst, "vadd");
  tl_ir_var *n = f->params[0].buffer->shape[0]->u.var;
  assert_ptr_equal(f->params[1].buffer->shape[0]->u.var, n);
  assert_ptr_equal(f->params[2].buffer->shape[0]->u.var, n);
  assert_ptr_not_equal(n, sf->params[0].buffer->shape[0]->u.var);
  assert_int_equal(n->id, sf->params[0].buffer->shape[0]->u.var->id);
  assert_string_equal(n->name, "N");
  for (int p = 0; p < 3; p++) assert_ptr_equal(f->params[p].var, f->params[p].buffer->data);
  tl_ir_stmt *k = f->body;
  tl_ir_var *bx = k->u.kernel.block_vars[0];
  tl_ir_stmt *loop = k->u.kernel.body;
  tl_ir_stmt *guard = loop->u.loop.body;
  tl_ir_expr *gi = guard->u.if_.then_->u.store.indices[0];
  assert_ptr_equal(gi->u.binary.a->u.binary.a->u.var, bx);
  assert_ptr_equal(gi->u.binary.b->u.var, loop->u.loop.vars[0]);
  assert_ptr_equal(guard->u.if_.then_->u.store.buffer, f->params[2].buffer);
  assert_ptr_equal(guard->u.if_.then_->u.store.value->u.binary.a->u.load.buffer, f->params[0].buffer);
  /* matmul: the allocated buffers are the ones its regions name. */
  tl_ir_func *mm = tl_ir_module_find_func(dst, "matmul");
  tl_ir_stmt *body = mm->body->u.kernel.body;
  tl_ir_buffer *as = body->u.seq.stmts[0]->u.alloc.buffer, *cl = body->u.seq.stmts[2]->u.alloc.buffer;
  tl_ir_stmt *kl = body->u.seq.stmts[4];
  assert_int_equal(kl->u.loop.num_stages, 3);
  tl_ir_expr *gemm = kl->u.loop.body->u.seq.stmts[2]->u.eval.expr;
  assert_ptr_equal(gemm->u.call.args[0]->u.region.buffer, as);
  assert_ptr_equal(gemm->u.call.args[2]->u.region.buffer, cl);
  assert_ptr_equal(body->u.seq.stmts[3]->u.eval.expr->u.call.args[0]->u.region.buffer, cl);
  /* The lowered pair: thread tags and launch names are copied. */
  tl_ir_func *dk = tl_ir_module_find_func(dst, "scale_kernel");
  assert_string_equal(dk->body->u.loop.thread_tag, "blockIdx.x");
  assert_string_equal(dk->body->u.loop.body->u.loop.thread_tag, "threadIdx.x");
  tl_ir_func *h = tl_ir_module_find_func(dst, "scale");
  tl_ir_stmt *launch = h->body->u.seq.stmts[1];
  assert_string_equal(launch->u.launch.kernel, "scale_kernel");
  assert_ptr_equal(launch->u.launch.args[0]->u.var, h->params[0].var);
  assert_string_equal(h->body->u.seq.stmts[0]->u.assert_.message, "n must be >= 0");
  /* The copy outlives the original. */
  uint64_t hash = tl_ir_module_hash(dst);
  tl_ir_module_free(src);
  TL_ASSERT_OK(tl_ir_verify_module(dst));
  assert_int_equal(tl_ir_module_hash(dst), hash);
  tl_ir_module *again;
  TL_ASSERT_OK(tl_ir_module_clone(dst, &again));
  assert_true(tl_ir_module_equal(dst, again));
  tl_ir_module_free(again);
  tl_ir_module_free(dst);
}

/* Variables a pass made by copying a struct (same id) or from another module
 * (id out of range) stay distinct objects in the copy. */
static void test_clone_odd_ids(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  tl_ir_var *a = tl_ir_var_new(m, "a", TL_DT_INT32);
  tl_ir_var *twin = tl__ir_alloc(m, sizeof *twin);
  *twin = *a;
  twin->name = "twin";
  tl_ir_var *far = tl__ir_alloc(m, sizeof *far);
  *far = *a;
  far->name = "far";
  far->id = 1000000;
  tl_ir_var *vars[3] = {a, twin, far};
  tl_ir_expr *e[1] = {tl_ir_i32(m, 2)};
  tl_ir_stmt *body = tl_ir_seq(m, 0, NULL);
  for (int i = 2; i >= 0; i--) body = tl_ir_let(m, vars[i], tl_ir_var_ref(m, vars[i]), body);
  body = tl_ir_for(m, TL_FOR_SERIAL, 1, &a, NULL, e, body);
  f->body = body;
  tl_ir_module *c;
  TL_ASSERT_OK(tl_ir_module_clone(m, &c));
  tl_ir_func *g = tl_ir_module_func(c, 0);
  tl_ir_stmt *l0 = g->body->u.loop.body, *l1 = l0->u.let.body, *l2 = l1->u.let.body;
  assert_ptr_equal(l0->u.let.var, g->body->u.loop.vars[0]);
  assert_ptr_equal(l0->u.let.value->u.var, l0->u.let.var);
  assert_ptr_equal(l1->u.let.value->u.var, l1->u.let.var);
  assert_ptr_equal(l2->u.let.value->u.var, l2->u.let.var);
  assert_ptr_not_equal(l0->u.let.var, l1->u.let.var);
  assert_ptr_not_equal(l1->u.let.var, l2->u.let.var);
  assert_string_equal(l1->u.let.var->name, "twin");
  assert_string_equal(l2->u.let.var->name, "far");
  assert_true(tl_ir_module_equal(m, c));
  tl_ir_module_free(c);
  tl_ir_module_free(m);
}

static void test_clone_empty_and_null(void **state) {
  (void)state;
  tl_ir_module *m, *c;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  TL_ASSERT_OK(tl_ir_module_clone(m, &c));
  assert_int_equal(tl_ir_module_num_funcs(c), 0);
  assert_true(tl_ir_module_equal(m, c));
  tl_ir_module_free(c);
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "nobody", &f)); /* a function without a body yet */
  TL_ASSERT_OK(tl_ir_module_clone(m, &c));
  assert_null(tl_ir_module_func(c, 0)->body);
  tl_ir_module_free(c);
  tl_ir_module_free(m);
  TL_ASSERT_ERR(tl_ir_module_clone(NULL, &c), TL_EINVAL, "module is NULL");
  assert_null(c);
}

static tl_status oom_clone(void *ctx) {
  tl_ir_module *out;
  TL__TRY(tl_ir_module_clone(ctx, &out));
  tl_status s = tl_ir_module_equal(ctx, out) ? TL_OK : TL_EINTERNAL;
  tl_ir_module_free(out);
  return s;
}

static void test_clone_oom(void **state) {
  (void)state;
  tl_ir_module *src = build_all();
  assert_non_null(src);
  assert_true(tl_oom_sweep(oom_clone, NULL, src) >= 5);
  tl_ir_module_free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clone_equal_and_valid), cmocka_unit_test(test_clone_identity),
      cmocka_unit_test(test_clone_odd_ids),         cmocka_unit_test(test_clone_empty_and_null),
      cmocka_unit_test(test_clone_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
