/* Round trip: for thousands of generated target configurations (every kind, random
 * options of every type, coercible values, odd strings, feature values of any JSON
 * shape, hosts nested as objects, JSON strings, kinds and tags), parsing the text
 * of a target gives an equal target with the same text and hash; so does parsing
 * its indented export. Generated with a fixed seed, so failures reproduce. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "target_test.h"

#define ITERATIONS 4000

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}
static unsigned pick(unsigned n) { return (unsigned)(rnd() % n); }
static bool chance(unsigned percent) { return pick(100) < percent; }

/* A random string with characters that need escaping, slashes and UTF-8. */
static json_t *rand_string(void) {
  static const char *const pieces[] = {"a", "Z", "0", "_", "-", "/", "\"", "\\", " ", "\t", "\n", "\x01", "\x7f",
                                       "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "sm", "gfx", ":", "{", "}"};
  char buf[128] = "";
  unsigned n = pick(8);
  for (unsigned i = 0; i < n; i++) strcat(buf, pieces[pick(sizeof pieces / sizeof *pieces)]);
  return json_string(buf);
}

static json_t *rand_int(void) {
  switch (pick(4)) {
    case 0: return json_integer((json_int_t)pick(2048));
    case 1: return json_integer(-(json_int_t)pick(1u << 30));
    case 2: return json_integer((json_int_t)rnd());
    default: return json_integer(chance(50) ? INT64_MAX : INT64_MIN);
  }
}

static json_t *rand_str_array(void) {
  json_t *a = json_array();
  unsigned n = pick(4);
  for (unsigned i = 0; i < n; i++) json_array_append_new(a, rand_string());
  return a;
}

/* Any JSON value (for feature.* entries), nesting up to `depth`. */
static json_t *rand_any(int depth) {
  switch (pick(depth > 0 ? 8 : 6)) {
    case 0: return json_null();
    case 1: return json_boolean(chance(50));
    case 2: return rand_int();
    case 3: {
      double f = ldexp((double)(int64_t)(rnd() >> 11) * (chance(50) ? 1 : -1), (int)pick(200) - 100);
      if (chance(20)) f = (double)pick(1000);
      return json_real(f);
    }
    case 4:
    case 5: return rand_string();
    case 6: {
      json_t *a = json_array();
      for (unsigned i = pick(4); i > 0; i--) json_array_append_new(a, rand_any(depth - 1));
      return a;
    }
    default: {
      json_t *o = json_object();
      for (unsigned i = pick(4); i > 0; i--) {
        char key[16];
        snprintf(key, sizeof key, "k%u", pick(6));
        json_object_set_new(o, key, rand_any(depth - 1));
      }
      return o;
    }
  }
}

/* A value valid for the option (with TVM's coercions sometimes exercised). */
static json_t *rand_option_value(const tl_target_option_info *o) {
  if (strcmp(o->type, "int") == 0) return chance(10) ? json_boolean(chance(50)) : rand_int();
  if (strcmp(o->type, "bool") == 0) return chance(20) ? json_integer((json_int_t)pick(3)) : json_boolean(chance(50));
  if (strcmp(o->type, "Array<str>") == 0) return rand_str_array();
  return rand_string();
}

static json_t *rand_config(int depth);

/* A host in any accepted form. */
static json_t *rand_host(int depth) {
  const char *names[300];
  switch (pick(4)) {
    case 0: {
      size_t n = tl_list_target_kinds(names, 300);
      return json_string(names[pick((unsigned)n)]);
    }
    case 1: {
      size_t n = tl_list_target_tags(names, 300);
      return json_string(names[pick((unsigned)n)]);
    }
    case 2: {
      json_t *c = rand_config(depth);
      char *text = json_dumps(c, JSON_COMPACT);
      json_decref(c);
      json_t *s = json_string(text);
      free(text);
      return s;
    }
    default: return rand_config(depth);
  }
}

static json_t *rand_config(int depth) {
  const char *kinds[16];
  size_t nk = tl_list_target_kinds(kinds, 16);
  json_t *c = json_object();
  const char *kind;
  if (chance(10)) {
    /* The tag form: the tag's configuration plus overrides. */
    const char *tags[300];
    size_t n = tl_list_target_tags(tags, 300);
    const char *tag = tags[pick((unsigned)n)];
    json_object_set_new(c, "tag", json_string(tag));
    kind = strstr(tl_target_tag_config(tag), "\"metal\"") ? "metal" : "cuda";
  } else {
    kind = kinds[pick((unsigned)nk)];
    json_object_set_new(c, "kind", json_string(kind));
  }
  tl_target_option_info opts[64];
  size_t no = tl_target_kind_options(kind, opts, 64);
  for (size_t i = 0; i < no; i++) {
    const char *name = opts[i].name;
    if (strcmp(name, "kind") == 0 || strcmp(name, "host") == 0 || !chance(25)) continue;
    if (strcmp(name, "tag") == 0 && json_object_get(c, "tag")) continue;
    json_object_set_new(c, name, rand_option_value(&opts[i]));
  }
  /* Keep the canonicalizers satisfied. */
  char buf[64];
  if (strcmp(kind, "cuda") == 0 && json_object_get(c, "arch")) {
    snprintf(buf, sizeof buf, "sm_%u%s", 20 + pick(110), chance(30) ? "a" : "");
    json_object_set_new(c, "arch", json_string(buf));
  }
  if (strcmp(kind, "nvptx") == 0) {
    if (json_object_get(c, "mcpu")) {
      snprintf(buf, sizeof buf, "sm_%u", 30 + pick(90));
      json_object_set_new(c, "mcpu", json_string(buf));
    }
    if (json_object_get(c, "mtriple")) json_object_set_new(c, "mtriple", json_string("nvptx64-nvidia-cuda"));
  }
  if (strcmp(kind, "hip") == 0 || strcmp(kind, "rocm") == 0) {
    if (json_object_get(c, "mcpu")) {
      snprintf(buf, sizeof buf, "gfx%x%s", 0x800 + pick(0x500), chance(30) ? ":sramecc+:xnack-" : "");
      json_object_set_new(c, "mcpu", json_string(buf));
    }
    if (json_object_get(c, "mtriple")) json_object_set_new(c, "mtriple", json_string("amdgcn-amd-amdhsa-hcc"));
  }
  if (strcmp(kind, "webgpu") == 0 && json_object_get(c, "thread_warp_size")) json_object_set_new(c, "supports_subgroups", json_true());
  for (unsigned i = pick(3); i > 0; i--) {
    snprintf(buf, sizeof buf, "feature.f%u/%s", pick(5), chance(50) ? "x" : "\xc3\xa9");
    json_object_set_new(c, buf, rand_any(3));
  }
  if (depth > 0 && chance(30)) json_object_set_new(c, "host", rand_host(depth - 1));
  return c;
}

static void test_generated_targets_round_trip(void **state) {
  (void)state;
  size_t with_host = 0, with_tag = 0;
  for (int i = 0; i < ITERATIONS; i++) {
    json_t *c = rand_config(3);
    char *text = json_dumps(c, JSON_COMPACT | (chance(30) ? JSON_ENSURE_ASCII : 0) | (chance(30) ? JSON_INDENT(1) : 0));
    json_decref(c);
    assert_non_null(text);
    tl_target *t = NULL;
    if (tl_target_parse(text, &t) != TL_OK) fail_msg("iteration %d: %s\n  %s", i, text, tl_last_error());
    tl_target *u = NULL;
    if (tl_target_parse(tl_target_str(t), &u) != TL_OK) fail_msg("reparse %d: %s\n  %s", i, tl_target_str(t), tl_last_error());
    if (!tl_target_equal(t, u) || strcmp(tl_target_str(t), tl_target_str(u)) != 0)
      fail_msg("iteration %d: not equal after a round trip\n  in:  %s\n  t:   %s\n  u:   %s", i, text, tl_target_str(t),
               tl_target_str(u));
    assert_true(tl_target_hash(t) == tl_target_hash(u));
    char *pretty = tl_target_export_indent(t, 2);
    tl_target *v = NULL;
    TL_ASSERT_OK(tl_target_parse(pretty, &v));
    assert_true(tl_target_equal(t, v));
    with_host += tl_target_host(t) != NULL;
    with_tag += tl_target_tag(t)[0] != '\0';
    tl_free(pretty);
    tl_target_release(v);
    tl_target_release(u);
    tl_target_release(t);
    free(text);
  }
  /* The generator really covers hosts and recorded tags. */
  assert_true(with_host > ITERATIONS / 10);
  assert_true(with_tag > ITERATIONS / 20);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_generated_targets_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
