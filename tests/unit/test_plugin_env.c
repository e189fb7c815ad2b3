/* TL_PLUGIN_PATH: plugins imported on the first use of any registry, after the
 * built-ins. A failing path makes that call fail with the reason, and the next call
 * tries again. Its own program: first use happens once per process. */
#include "tl_backend_test.h"

static int64_t global_int(const char *name) {
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func(name, NULL, 0, &ret));
  return ret.v.i;
}

static void test_plugin_path(void **state) {
  (void)state;
  /* A missing library: every registry call reports it, nothing is marked done. */
  setenv("TL_PLUGIN_PATH", TLP_DIR "/libtlp_missing.so", 1);
  const tl_backend_module *m = NULL;
  TL_ASSERT_ERR(tl_get_backend("tlp_good", &m), TL_EUNAVAILABLE,
                "while loading TL_PLUGIN_PATH: Cannot load plugin '" TLP_DIR "/libtlp_missing.so': ");
  assert_non_null(strstr(tl_last_error(), "No such file or directory"));
  assert_int_equal(tl_list_backends(NULL, 0), 0);
  assert_non_null(strstr(tl_last_error(), "libtlp_missing.so"));
  TL_ASSERT_ERR(tl_register_global_func("test_env.f", tlt_echo, NULL, false), TL_EUNAVAILABLE, "libtlp_missing.so");

  /* Fixed: empty elements are skipped; an identifier element names the previous
   * library's init symbol. */
  setenv("TL_PLUGIN_PATH", "::" TLP_GOOD ":" TLP_NOINIT ":tlp_noinit_setup:", 1);
  TL_ASSERT_OK(tl_get_backend("tlp_good", &m));
  assert_string_equal(m->name, "tlp_good");
  assert_int_equal(global_int("tlp_good.init_count"), 1);
  assert_int_equal(global_int("tlp_noinit.setup_count"), 1);
  /* Done once: later changes to the variable are not read again. */
  setenv("TL_PLUGIN_PATH", TLP_DIR "/libtlp_missing.so", 1);
  TL_ASSERT_OK(tl_get_backend("tlp_good", &m));
  assert_int_equal(global_int("tlp_good.init_count"), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_plugin_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
