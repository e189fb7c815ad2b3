/* Global functions (register, get, call, list), tl_value ownership, and the batch
 * registration backend manifests use for their callbacks. */
#include "ffi/global_func.h"
#include "tl_backend_test.h"

static tl_status add_ints(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  int64_t sum = user_data ? *(int64_t *)user_data : 0;
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind != TL_VALUE_INT) return tl__error(TL_EINVAL, "add_ints: argument %d is not an int", i);
    sum += args[i].v.i;
  }
  *ret = tl_value_int(sum);
  return TL_OK;
}

static tl_status constant_7(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  (void)user_data;
  *ret = tl_value_int(7);
  return TL_OK;
}

static bool names_contain(const char *name) {
  size_t n = tl_list_global_funcs(NULL, 0);
  const char **names = calloc(n + 1, sizeof *names);
  size_t m = tl_list_global_funcs(names, n);
  bool found = false;
  for (size_t i = 0; i < m && i < n; i++) found |= strcmp(names[i], name) == 0;
  free(names);
  return found;
}

static void test_register_get_call(void **state) {
  (void)state;
  int64_t base = 100;
  TL_ASSERT_OK(tl_register_global_func("test_ffi.add", add_ints, &base, false));
  tl_packed_fn fn = NULL;
  void *ud = NULL;
  TL_ASSERT_OK(tl_get_global_func("test_ffi.add", &fn, &ud));
  assert_ptr_equal(fn, add_ints);
  assert_ptr_equal(ud, &base);
  tl_value args[2] = {tl_value_int(1), tl_value_int(2)};
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func("test_ffi.add", args, 2, &ret));
  assert_int_equal(ret.kind, TL_VALUE_INT);
  assert_int_equal(ret.v.i, 103);
  /* The function's own failure propagates with its message, and ret is left NONE. */
  args[1] = tl_value_float(2.5);
  TL_ASSERT_ERR(tl_call_global_func("test_ffi.add", args, 2, &ret), TL_EINVAL, "argument 1 is not an int");
  assert_int_equal(ret.kind, TL_VALUE_NONE);
  /* ret may be NULL when the result is not wanted. */
  args[1] = tl_value_int(0);
  TL_ASSERT_OK(tl_call_global_func("test_ffi.add", args, 1, NULL));
  assert_true(names_contain("test_ffi.add"));
}

static void test_conflicts_and_override(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_global_func("test_ffi.dup", add_ints, NULL, false));
  TL_ASSERT_ERR(tl_register_global_func("test_ffi.dup", constant_7, NULL, false), TL_EEXIST, NULL);
  TL_ASSERT_MSG("Global function 'test_ffi.dup' is already registered");
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func("test_ffi.dup", NULL, 0, &ret));
  assert_int_equal(ret.v.i, 0); /* still add_ints */
  size_t before = tl_list_global_funcs(NULL, 0);
  TL_ASSERT_OK(tl_register_global_func("test_ffi.dup", constant_7, NULL, true));
  assert_int_equal(tl_list_global_funcs(NULL, 0), before); /* replaced, not added */
  TL_ASSERT_OK(tl_call_global_func("test_ffi.dup", NULL, 0, &ret));
  assert_int_equal(ret.v.i, 7);
}

static void test_lookup_errors(void **state) {
  (void)state;
  tl_packed_fn fn;
  TL_ASSERT_ERR(tl_get_global_func("test_ffi.nope", &fn, NULL), TL_ENOTFOUND, NULL);
  TL_ASSERT_MSG("Global function 'test_ffi.nope' is not registered");
  TL_ASSERT_ERR(tl_call_global_func("test_ffi.nope", NULL, 0, NULL), TL_ENOTFOUND, "test_ffi.nope");
  TL_ASSERT_ERR(tl_register_global_func("", add_ints, NULL, false), TL_EINVAL, "must not be empty");
  TL_ASSERT_ERR(tl_register_global_func(NULL, add_ints, NULL, false), TL_EINVAL, "must not be empty");
  TL_ASSERT_ERR(tl_register_global_func("test_ffi.null", NULL, NULL, false), TL_EINVAL, "no function pointer");
  TL_ASSERT_ERR(tl_call_global_func("test_ffi.add", NULL, 2, NULL), TL_EINVAL, "bad argument array");
  assert_false(names_contain("test_ffi.null"));
}

static void test_list_in_registration_order(void **state) {
  (void)state;
  size_t before = tl_list_global_funcs(NULL, 0);
  TL_ASSERT_OK(tl_register_global_func("test_ffi.order.b", constant_7, NULL, false));
  TL_ASSERT_OK(tl_register_global_func("test_ffi.order.a", constant_7, NULL, false));
  size_t n = tl_list_global_funcs(NULL, 0);
  assert_int_equal(n, before + 2);
  const char **names = calloc(n, sizeof *names);
  assert_int_equal(tl_list_global_funcs(names, n), n);
  assert_string_equal(names[n - 2], "test_ffi.order.b");
  assert_string_equal(names[n - 1], "test_ffi.order.a");
  /* A short buffer gets the first entries and the full count. */
  const char *one[1] = {NULL};
  assert_int_equal(tl_list_global_funcs(one, 1), n);
  assert_string_equal(one[0], names[0]);
  free(names);
}

/* A global function that registers and calls others while it runs: no lock is held. */
static tl_status reentrant(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  (void)user_data;
  TL__TRY(tl_register_global_func("test_ffi.inner", constant_7, NULL, true));
  return tl_call_global_func("test_ffi.inner", NULL, 0, ret);
}

static void test_reentrant_call(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_global_func("test_ffi.reentrant", reentrant, NULL, false));
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func("test_ffi.reentrant", NULL, 0, &ret));
  assert_int_equal(ret.v.i, 7);
}

static void test_owned_values(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_global_func("test_ffi.echo", tlt_echo, "hello", false));
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func("test_ffi.echo", NULL, 0, &ret));
  assert_int_equal(ret.kind, TL_VALUE_STR);
  assert_int_equal(ret.size, 5);
  assert_string_equal(ret.v.s, "hello");
  tl_value_clear(&ret); /* freed: the ASan build would report a leak otherwise */
  assert_int_equal(ret.kind, TL_VALUE_NONE);

  tl_value borrowed = tl_value_str("borrowed");
  assert_int_equal(borrowed.kind, TL_VALUE_STR);
  assert_int_equal(borrowed.size, 8);
  tl_value v = {TL_VALUE_NONE, 0, {.i = 0}};
  TL_ASSERT_OK(tl_value_set_bytes(&v, "\0\1\2", 3));
  assert_int_equal(v.kind, TL_VALUE_BYTES);
  assert_int_equal(v.size, 3);
  assert_memory_equal(v.v.bytes, "\0\1\2", 3);
  TL_ASSERT_OK(tl_value_set_str(&v, "replaces the bytes"));
  assert_string_equal(v.v.s, "replaces the bytes");
  tl_value_clear(&v);

  /* Owned references: clearing drops exactly one. */
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_artifact_create("c", "int x;", &a));
  tl_value av = tl_value_artifact(tl_artifact_retain(a));
  tl_value_clear(&av);
  assert_string_equal(tl_artifact_source(a), "int x;"); /* still alive: one reference left */
  tl_artifact_release(a);

  tl_target *t = tlt_target("c");
  tl_value tv = tl_value_target(tl_target_retain(t));
  tl_value_clear(&tv);
  assert_string_equal(tl_target_kind(t), "c");
  tl_target_release(t);

  tl_value_clear(NULL);
  tl_value i = tl_value_int(3);
  tl_value_clear(&i);
  assert_int_equal(i.kind, TL_VALUE_NONE);
}

/* -------------------------------------------------------- batch registration */

static const tl_callback_entry batch[] = {
  {"test_ffi.batch.new1", constant_7, NULL},
  {"test_ffi.existing", add_ints, NULL}, /* overrides */
  {"test_ffi.batch.new2", constant_7, NULL},
  {"test_ffi.batch.new1", add_ints, NULL}, /* the same name twice: the later wins */
};

static tl_status batch_op(void *ctx) {
  (void)ctx;
  return tl__global_funcs_register_batch(batch, 4);
}

static void batch_unchanged(void *ctx) {
  size_t *count = ctx;
  assert_int_equal(tl_list_global_funcs(NULL, 0), *count);
  tl_packed_fn fn;
  assert_int_equal(tl_get_global_func("test_ffi.batch.new1", &fn, NULL), TL_ENOTFOUND);
  assert_int_equal(tl_get_global_func("test_ffi.batch.new2", &fn, NULL), TL_ENOTFOUND);
  TL_ASSERT_OK(tl_get_global_func("test_ffi.existing", &fn, NULL));
  assert_ptr_equal(fn, constant_7);
}

static void test_batch_is_all_or_nothing(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_global_func("test_ffi.existing", constant_7, NULL, false));
  size_t count = tl_list_global_funcs(NULL, 0);
  long sites = tl_oom_sweep(batch_op, batch_unchanged, &count);
  assert_true(sites >= 4);
  tl_packed_fn fn;
  TL_ASSERT_OK(tl_get_global_func("test_ffi.batch.new1", &fn, NULL));
  assert_ptr_equal(fn, add_ints);
  TL_ASSERT_OK(tl_get_global_func("test_ffi.existing", &fn, NULL));
  assert_ptr_equal(fn, add_ints);
  assert_int_equal(tl_list_global_funcs(NULL, 0), count + 2);
}

static tl_status register_op(void *ctx) {
  (void)ctx;
  return tl_register_global_func("test_ffi.oom", constant_7, NULL, false);
}

static void register_unchanged(void *ctx) {
  (void)ctx;
  assert_int_equal(tl_get_global_func("test_ffi.oom", NULL, NULL), TL_ENOTFOUND);
}

static void test_register_oom(void **state) {
  (void)state;
  assert_true(tl_oom_sweep(register_op, register_unchanged, NULL) >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_register_get_call),
    cmocka_unit_test(test_conflicts_and_override),
    cmocka_unit_test(test_lookup_errors),
    cmocka_unit_test(test_list_in_registration_order),
    cmocka_unit_test(test_reentrant_call),
    cmocka_unit_test(test_owned_values),
    cmocka_unit_test(test_batch_is_all_or_nothing),
    cmocka_unit_test(test_register_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
