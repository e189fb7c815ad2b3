/* The kernel cache on disk: layout, publish and lookup, damaged entries removed,
 * unsafe directories refused, publishing races (threads of one process and forked
 * processes), the stale staging sweep, the key's canonical text. A fake
 * implementation's build writes two files; nothing here compiles code. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/files.h"
#include "base/str.h"
#include "engine/cache.h"
#include "engine/cache_disk.h"
#include "tl_test.h"

static const char *const k_files[] = {"kernel.bin", "launcher.txt", NULL};
static const char k_key[] = "0123456789abcdef0123456789abcdef";

/* The fake implementation's build: two files whose content depends on `tag`. */
static void fake_build(const char *dir, const char *tag) {
  char *a = tl__path_join(dir, "kernel.bin"), *b = tl__path_join(dir, "launcher.txt");
  char bin[64];
  snprintf(bin, sizeof bin, "\x7f" "BIN %s", tag);
  TL_ASSERT_OK(tl__file_write_new(a, bin, strlen(bin)));
  TL_ASSERT_OK(tl__file_write_new(b, "launch\n", 7));
  /* As a build under umask 002 leaves it: publishing must tighten it. */
  assert_int_equal(chmod(b, 0664), 0);
  tl__free(a);
  tl__free(b);
}

static tl__cache_entry fake_entry(void) {
  tl__cache_entry e = {0};
  e.name = "vadd";
  e.execution_backend = "fake";
  e.target = "{\"kind\":\"c\"}";
  e.table_json = "{\"entry\":\"vadd\",\"params\":[]}";
  e.device_format = "c";
  e.device_source = "void vadd_kernel(void) {}\n";
  e.host_format = "c";
  e.host_source = "int vadd(void) { return 0; }\n";
  return e;
}

/* A fresh private cache root under the build's test cache directory. */
static char *fresh_root(void) {
  char *dir = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-test-cache-", &dir));
  return dir;
}

/* tl__disk_lookup keeping only the entry's path (the open entry is closed). */
static tl_status lookup_path(const tl__disk_ns *ns, tl__disk_result *res, tl__cache_entry *got, char **dir, char *why,
                             size_t cap) {
  tl__disk_entry hit;
  tl_status s = tl__disk_lookup(ns, k_key, k_files, res, got, &hit, why, cap);
  *dir = hit.path ? tl__strdup(hit.path) : NULL;
  if (s == TL_OK && hit.path && !*dir) {
    tl__cache_entry_free(got);
    s = tl__oom();
  }
  tl__disk_entry_close(ns, &hit);
  return s;
}

/* tl__disk_publish keeping only the entry's path and whether it was our staging
 * directory (removed as the open entry is closed). */
static tl_status publish_path(const tl__disk_ns *ns, const tl__cache_entry *e, const char *staging, char **dir,
                              bool *temporary) {
  tl__disk_entry hit;
  tl_status s = tl__disk_publish(ns, k_key, k_files, e, staging, &hit);
  *dir = hit.path ? tl__strdup(hit.path) : NULL;
  *temporary = hit.staging_name != NULL;
  tl__disk_entry_close(ns, &hit);
  return s;
}

/* Stages, builds and publishes one entry; returns the directory to load from. */
static char *publish(const tl__disk_ns *ns, const char *tag, bool *temporary) {
  char *staging = NULL, *dir = NULL;
  TL_ASSERT_OK(tl__disk_stage(ns, k_key, &staging));
  fake_build(staging, tag);
  tl__cache_entry e = fake_entry();
  TL_ASSERT_OK(publish_path(ns, &e, staging, &dir, temporary));
  tl__free(staging);
  return dir;
}

static bool exists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

static mode_t mode_of(const char *p) {
  struct stat st;
  assert_int_equal(lstat(p, &st), 0);
  return st.st_mode & 07777;
}

static void test_layout_and_roundtrip(void **state) {
  (void)state;
  char *root = fresh_root();
  char *sub = tl__path_join(root, "nested/cache");
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(sub, &ns));
  /* <root>/<version>/<platform>-<machine>/kernels and .staging, all 0700. */
  char *ver = tl__path_join(sub, tl_version());
  assert_true(tl__str_starts_with(ns.dir, ver));
  assert_true(tl__str_ends_with(ns.kernels, "/kernels"));
  assert_true(tl__str_ends_with(ns.staging, "/.staging"));
  assert_int_equal(mode_of(sub), 0700);
  assert_int_equal(mode_of(ver), 0700);
  assert_int_equal(mode_of(ns.kernels), 0700);

  tl__disk_result res;
  tl__cache_entry got;
  char *dir = NULL;
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_MISS);

  bool temporary = true;
  char *pub = publish(&ns, "one", &temporary);
  assert_false(temporary);
  char *final = tl__path_join(ns.kernels, k_key);
  assert_string_equal(pub, final);
  /* The staging area is empty again. */
  char *meta = tl__path_join(final, "meta.json");
  assert_true(exists(meta));

  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_HIT);
  assert_string_equal(dir, final);
  assert_string_equal(got.name, "vadd");
  assert_string_equal(got.execution_backend, "fake");
  assert_string_equal(got.target, "{\"kind\":\"c\"}");
  assert_non_null(strstr(got.table_json, "\"entry\":\"vadd\""));
  assert_string_equal(got.device_format, "c");
  assert_string_equal(got.device_source, "void vadd_kernel(void) {}\n");
  assert_string_equal(got.host_source, "int vadd(void) { return 0; }\n");
  tl__cache_entry_free(&got);
  tl__free(dir);

  TL_ASSERT_OK(tl__disk_evict(&ns, k_key));
  assert_false(exists(final));
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_MISS);

  tl__free(meta);
  tl__free(final);
  tl__free(pub);
  tl__free(ver);
  tl__free(sub);
  tl__disk_ns_free(&ns);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

/* Damages the published entry with `damage`, then expects a miss naming `reason`
 * and the entry gone. */
static void expect_damaged(void (*damage)(const char *entry), const char *reason) {
  char *root = fresh_root();
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  bool temporary;
  char *entry = publish(&ns, "one", &temporary);
  damage(entry);
  tl__disk_result res;
  tl__cache_entry got;
  char *dir = NULL, why[256];
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, why, sizeof why));
  assert_int_equal(res, TL__DISK_MISS);
  if (!strstr(why, reason)) fail_msg("damage reason \"%s\" lacks \"%s\"", why, reason);
  assert_false(exists(entry));
  /* Rebuilt afterwards, it is sound again. */
  tl__free(publish(&ns, "two", &temporary));
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_HIT);
  tl__cache_entry_free(&got);
  tl__free(dir);
  tl__free(entry);
  tl__disk_ns_free(&ns);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

static void rewrite(const char *entry, const char *name, const char *content) {
  char *p = tl__path_join(entry, name);
  assert_int_equal(unlink(p), 0);
  TL_ASSERT_OK(tl__file_write_new(p, content, strlen(content)));
  tl__free(p);
}

static void flip_binary(const char *entry) { rewrite(entry, "kernel.bin", "\x7f" "BIN two"); }
static void truncate_binary(const char *entry) { rewrite(entry, "kernel.bin", "\x7f"); }
static void drop_launcher(const char *entry) {
  char *p = tl__path_join(entry, "launcher.txt");
  assert_int_equal(unlink(p), 0);
  tl__free(p);
}
static void drop_meta(const char *entry) {
  char *p = tl__path_join(entry, "meta.json");
  assert_int_equal(unlink(p), 0);
  tl__free(p);
}
static void garble_meta(const char *entry) { rewrite(entry, "meta.json", "{\"format\": 1, "); }
static void edit_meta(const char *entry) {
  char *p = tl__path_join(entry, "meta.json"), *text = NULL;
  TL_ASSERT_OK(tl__file_read_no_link(p, true, &text, NULL));
  char *at = strstr(text, "\"vadd\"");
  assert_non_null(at);
  at[1] = 'w'; /* "wadd": a valid JSON edit the checksum must catch */
  rewrite(entry, "meta.json", text);
  tl__free(text);
  tl__free(p);
}
static void edit_source(const char *entry) { rewrite(entry, "device_source.c", "void evil_kernel(void) {}\n"); /* same size */ }

static void test_damaged_entries(void **state) {
  (void)state;
  expect_damaged(flip_binary, "'kernel.bin' fails its checksum");
  expect_damaged(truncate_binary, "'kernel.bin' has the wrong size");
  expect_damaged(drop_launcher, "'launcher.txt' is missing");
  expect_damaged(drop_meta, "meta.json is missing");
  expect_damaged(garble_meta, "meta.json does not parse");
  expect_damaged(edit_meta, "meta.json fails its checksum");
  expect_damaged(edit_source, "'device_source.c' fails its checksum");
}

static void test_unsafe(void **state) {
  (void)state;
  char *root = fresh_root();
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  bool temporary;
  char *entry = publish(&ns, "one", &temporary);
  tl__disk_result res;
  tl__cache_entry got;
  char *dir = NULL;

  /* A group-writable entry is neither used nor removed. */
  assert_int_equal(chmod(entry, 0770), 0);
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_UNSAFE);
  assert_non_null(strstr(tl_last_error(), "writable by group or others"));
  assert_true(exists(entry));
  assert_int_equal(chmod(entry, 0700), 0);

  /* A file of the entry writable by others. */
  char *bin = tl__path_join(entry, "kernel.bin");
  assert_int_equal(chmod(bin, 0602), 0);
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_UNSAFE);
  assert_int_equal(chmod(bin, 0600), 0);
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_HIT);
  tl__cache_entry_free(&got);
  tl__free(dir);

  /* An entry that is a symbolic link to a sound copy is refused. */
  char *copy = tl__format("%s/copy", root);
  assert_int_equal(rename(entry, copy), 0);
  assert_int_equal(symlink(copy, entry), 0);
  TL_ASSERT_OK(lookup_path(&ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_UNSAFE);
  assert_non_null(strstr(tl_last_error(), "symbolic link"));
  assert_int_equal(unlink(entry), 0);
  tl__disk_ns_free(&ns);

  /* A group-writable directory anywhere from the root down: the namespace is refused. */
  assert_int_equal(chmod(root, 0775), 0);
  TL_ASSERT_ERR(tl__disk_ns_open(root, &ns), TL_EUNAVAILABLE, "writable by group or others");
  assert_int_equal(chmod(root, 0700), 0);
  char *ver = tl__path_join(root, tl_version());
  assert_int_equal(chmod(ver, 0777), 0);
  TL_ASSERT_ERR(tl__disk_ns_open(root, &ns), TL_EUNAVAILABLE, "writable by group or others");
  assert_int_equal(chmod(ver, 0700), 0);
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  tl__disk_ns_free(&ns);

  /* A root that cannot be created. */
  char *bad = tl__format("%s/file/below", root);
  char *file = tl__format("%s/file", root);
  TL_ASSERT_OK(tl__file_write_new(file, "x", 1));
  TL_ASSERT_ERR(tl__disk_ns_open(bad, &ns), TL_EUNAVAILABLE, "is not a directory");

  tl__free(file);
  tl__free(bad);
  tl__free(ver);
  tl__free(copy);
  tl__free(bin);
  tl__free(entry);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

static void test_publish_race_in_process(void **state) {
  (void)state;
  char *root = fresh_root();
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  /* Two builders staged before either published. */
  char *s1 = NULL, *s2 = NULL, *d1 = NULL, *d2 = NULL;
  TL_ASSERT_OK(tl__disk_stage(&ns, k_key, &s1));
  TL_ASSERT_OK(tl__disk_stage(&ns, k_key, &s2));
  assert_string_not_equal(s1, s2);
  fake_build(s1, "first");
  fake_build(s2, "second");
  tl__cache_entry e = fake_entry();
  bool t1, t2;
  TL_ASSERT_OK(publish_path(&ns, &e, s1, &d1, &t1));
  TL_ASSERT_OK(publish_path(&ns, &e, s2, &d2, &t2));
  /* The second uses the first's entry and drops its own staging directory. */
  assert_false(t1);
  assert_false(t2);
  assert_string_equal(d1, d2);
  assert_false(exists(s2));
  char *bin = tl__path_join(d2, "kernel.bin"), *text = NULL;
  TL_ASSERT_OK(tl__file_read_no_link(bin, true, &text, NULL));
  assert_non_null(strstr(text, "first"));

  /* The winner damaged in between: the loser replaces it. */
  char *s3 = NULL, *d3 = NULL;
  TL_ASSERT_OK(tl__disk_stage(&ns, k_key, &s3));
  fake_build(s3, "third");
  flip_binary(d1);
  bool t3;
  TL_ASSERT_OK(publish_path(&ns, &e, s3, &d3, &t3));
  assert_false(t3);
  tl__free(text);
  TL_ASSERT_OK(tl__file_read_no_link(bin, true, &text, NULL));
  assert_non_null(strstr(text, "third"));

  tl__free(text);
  tl__free(bin);
  tl__free(s1);
  tl__free(s2);
  tl__free(s3);
  tl__free(d1);
  tl__free(d2);
  tl__free(d3);
  tl__disk_ns_free(&ns);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

/* Forked processes all stage, build and publish the same key at once; every one
 * must end with a sound entry to load. */
static void test_publish_race_processes(void **state) {
  (void)state;
  char *root = fresh_root();
  enum { N = 6 };
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t pids[N];
  for (int i = 0; i < N; i++) {
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) {
      close(go[1]);
      char c;
      if (read(go[0], &c, 1) < 0) _exit(10);
      tl__disk_ns ns;
      if (tl__disk_ns_open(root, &ns) != TL_OK) _exit(11);
      char *staging = NULL, *dir = NULL;
      if (tl__disk_stage(&ns, k_key, &staging) != TL_OK) _exit(12);
      fake_build(staging, "race");
      tl__cache_entry e = fake_entry();
      bool temporary;
      if (publish_path(&ns, &e, staging, &dir, &temporary) != TL_OK) _exit(13);
      tl__disk_result res;
      tl__cache_entry got;
      char *hit = NULL;
      if (lookup_path(&ns, &res, &got, &hit, NULL, 0) != TL_OK || res != TL__DISK_HIT) _exit(14);
      _exit(0);
    }
  }
  close(go[0]);
  close(go[1]); /* releases every child at once */
  for (int i = 0; i < N; i++) {
    int st = 0;
    assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
  }
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  /* Nothing left in staging. */
  char *probe = NULL;
  TL_ASSERT_OK(tl__disk_stage(&ns, "probe", &probe));
  assert_int_equal(rmdir(probe), 0);
  assert_int_equal(rmdir(ns.staging), 0); /* fails unless empty */
  tl__free(probe);
  tl__disk_ns_free(&ns);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

static void test_stale_staging_swept(void **state) {
  (void)state;
  char *root = fresh_root();
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  char *old = NULL, *young = NULL;
  TL_ASSERT_OK(tl__disk_stage(&ns, k_key, &old));
  TL_ASSERT_OK(tl__disk_stage(&ns, k_key, &young));
  fake_build(old, "old");
  struct timeval tv[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  assert_int_equal(utimes(old, tv), 0);
  tl__disk_ns_free(&ns);
  /* This process already swept the namespace: nothing happens now. */
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  assert_true(exists(old));
  tl__disk_ns_free(&ns);
  /* A new process sweeps it once. */
  pid_t pid = fork();
  if (pid == 0) _exit(tl__disk_ns_open(root, &ns) == TL_OK ? 0 : 1);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_int_equal(WEXITSTATUS(st), 0);
  assert_false(exists(old));
  assert_true(exists(young));
  tl__free(old);
  tl__free(young);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

static void test_remove_tree_keeps_link_targets(void **state) {
  (void)state;
  char *root = fresh_root();
  char *outside = tl__format("%s/outside", root), *victim = tl__format("%s/outside/precious", root);
  char *tree = tl__format("%s/tree/a/b", root), *link = tl__format("%s/tree/a/link", root);
  char *top = tl__format("%s/tree", root);
  TL_ASSERT_OK(tl__mkdirs_private(outside));
  TL_ASSERT_OK(tl__file_write_new(victim, "keep", 4));
  TL_ASSERT_OK(tl__mkdirs_private(tree));
  assert_int_equal(symlink(outside, link), 0);
  TL_ASSERT_OK(tl__remove_tree(top));
  assert_false(exists(top));
  assert_true(exists(victim));
  TL_ASSERT_OK(tl__remove_tree(top)); /* missing: fine */
  tl__free(outside);
  tl__free(victim);
  tl__free(tree);
  tl__free(link);
  tl__free(top);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

static void test_key_text(void **state) {
  (void)state;
  const char *cfgs_a[] = {"tl.b=2", "tl.a=1", NULL};
  const char *cfgs_b[] = {"tl.a=0", "tl.b=2", "tl.a=1", NULL};
  const char *bad[] = {"novalue", NULL};
  tl__cache_key_input in = {0x1234, "{\"kind\":\"c\"}", "{\"kind\":\"c\"}", "native", cfgs_a, "cc 12|-O3"};
  char ka[33], kb[33], kc[33];
  TL_ASSERT_OK(tl__cache_key(&in, ka));
  assert_int_equal(strlen(ka), 32);
  in.pass_configs = cfgs_b; /* same configs after the last value wins, other order */
  TL_ASSERT_OK(tl__cache_key(&in, kb));
  assert_string_equal(ka, kb);
  char *text = NULL;
  TL_ASSERT_OK(tl__cache_key_text(&in, &text));
  assert_non_null(strstr(text, "pass_config=6:tl.a=1\n  pass_config=6:tl.b=2\n"));
  assert_non_null(strstr(text, tl_version()));
  tl__free(text);
  /* Each field changes the key. */
  tl__cache_key_input variants[5];
  for (int i = 0; i < 5; i++) variants[i] = in;
  variants[0].func_hash = 0x1235;
  variants[1].target = "{\"kind\":\"c\",\"mcpu\":\"x\"}";
  variants[2].execution_backend = "tcc";
  variants[3].identity = "cc 13|-O3";
  variants[4].pass_configs = NULL;
  for (int i = 0; i < 5; i++) {
    TL_ASSERT_OK(tl__cache_key(&variants[i], kc));
    assert_string_not_equal(ka, kc);
  }
  /* A value cannot forge another field. */
  tl__cache_key_input x = in, y = in;
  x.target = "a\ntarget_host=5:b";
  y.target = "a";
  y.target_host = "b";
  char kx[33], ky[33];
  TL_ASSERT_OK(tl__cache_key(&x, kx));
  TL_ASSERT_OK(tl__cache_key(&y, ky));
  assert_string_not_equal(kx, ky);
  in.pass_configs = bad;
  TL_ASSERT_ERR(tl__cache_key(&in, kc), TL_EINVAL, "pass config 'novalue'");
}

static tl_status oom_lookup(void *ctx) {
  tl__disk_ns *ns = ctx;
  tl__disk_result res;
  tl__cache_entry got;
  char *dir = NULL;
  TL__TRY(lookup_path(ns, &res, &got, &dir, NULL, 0));
  assert_int_equal(res, TL__DISK_HIT);
  tl__cache_entry_free(&got);
  tl__free(dir);
  return TL_OK;
}

static void oom_still_there(void *ctx) {
  tl__disk_ns *ns = ctx;
  char *final = tl__path_join(ns->kernels, k_key);
  assert_true(exists(final)); /* running out of memory never evicts */
  tl__free(final);
}

static void test_lookup_oom(void **state) {
  (void)state;
  char *root = fresh_root();
  tl__disk_ns ns;
  TL_ASSERT_OK(tl__disk_ns_open(root, &ns));
  bool temporary;
  tl__free(publish(&ns, "one", &temporary));
  assert_true(tl_oom_sweep(oom_lookup, oom_still_there, &ns) > 5);
  tl__disk_ns_free(&ns);
  TL_ASSERT_OK(tl__remove_tree(root));
  tl__free(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_and_roundtrip),
      cmocka_unit_test(test_damaged_entries),
      cmocka_unit_test(test_unsafe),
      cmocka_unit_test(test_publish_race_in_process),
      cmocka_unit_test(test_publish_race_processes),
      cmocka_unit_test(test_stale_staging_swept),
      cmocka_unit_test(test_remove_tree_keeps_link_targets),
      cmocka_unit_test(test_key_text),
      cmocka_unit_test(test_lookup_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
