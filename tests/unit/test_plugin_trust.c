/* Plugins under the kernel cache's ownership policy (backend/plugin_trust.h): a
 * library in a directory others may write, or writable by others itself, or owned
 * by another user, is refused before it is opened; a sound copy of the same library
 * loads (from the descriptor that was checked); an ABI symbol that is not a data
 * object is refused. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/plugin_loader.h"
#include "backend/plugin_trust.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "base/files.h"
#include "tl_test.h"

/* A copy of the good test plugin at dir/name. */
static char *copy_plugin(const char *dir, const char *name) {
  char *dst = tl__format("%s/%s", dir, name), *text = NULL;
  size_t len = 0;
  TL_ASSERT_OK(tl__file_read(TLP_GOOD, &text, &len));
  TL_ASSERT_OK(tl__file_write_new(dst, text, len));
  assert_int_equal(chmod(dst, 0755), 0);
  tl__free(text);
  return dst;
}

static void test_refused_places(void **state) {
  (void)state;
  char *root = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-test-plugin-trust-", &root));
  char *dir = tl__format("%s/plugins", root);
  assert_int_equal(mkdir(dir, 0755), 0);
  char *lib = copy_plugin(dir, "libtlp_copy.so");
  void *h = NULL;
  /* A world-writable directory without the sticky bit. */
  assert_int_equal(chmod(dir, 0777), 0);
  TL_ASSERT_ERR(tl__plugin_dlopen(lib, &h), TL_EUNAVAILABLE, "writable by group or others and not sticky");
  assert_null(h);
  char *path = tl__format("%s:tl_plugin_init", lib);
  TL_ASSERT_ERR(tl__plugin_import(path), TL_EUNAVAILABLE, "no other user can change");
  assert_int_equal(chmod(dir, 0755), 0);
  /* The library itself writable by others. */
  assert_int_equal(chmod(lib, 0666), 0);
  TL_ASSERT_ERR(tl__plugin_dlopen(lib, &h), TL_EUNAVAILABLE, "writable by group or others");
  assert_int_equal(chmod(lib, 0755), 0);
  /* Owned by another user (when the test can make it so). */
  if (geteuid() == 0) {
    assert_int_equal(chown(lib, 4242, 4242), 0);
    TL_ASSERT_ERR(tl__plugin_dlopen(lib, &h), TL_EUNAVAILABLE, "owned by another user");
    assert_int_equal(chown(lib, 0, 0), 0);
  } else {
    print_message("skipping the other-user case: not running as root\n");
  }
  /* Sound: it loads. */
  TL_ASSERT_OK(tl__plugin_dlopen(lib, &h));
  assert_non_null(h);
  uint32_t abi = 0;
  TL_ASSERT_OK(tl__plugin_abi_word(h, &abi));
  assert_int_equal(abi >> 16, TL_PLUGIN_ABI_MAJOR);
  TL_ASSERT_OK(tl__plugin_import(path));
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(path);
  tl__free(lib);
  tl__free(dir);
  tl__free(root);
}

static void test_abi_symbol_must_be_data(void **state) {
  (void)state;
  TL_ASSERT_ERR(tl__plugin_import(TLP_ABIFN), TL_EUNAVAILABLE, "is not a data object");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refused_places),
      cmocka_unit_test(test_abi_symbol_must_be_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
