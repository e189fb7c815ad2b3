/* Target construction, as TVM's TargetInternal::FromString and FromConfig
 * (shared/ref/TARGETS.md section 2): tag, JSON or bare kind; tag expansion, kind,
 * host, feature.* entries, schema resolution with TVM's coercions, the kind's
 * canonicalizer, the keys rule; TVM's messages, wrapped with the same suffixes.
 *
 * Bare kinds and tags name fixed configurations, and targets are immutable, so
 * their targets are built once and shared (a lock-free cache per kind and per
 * tag, filled by compare-and-swap; bounded, so nothing grows). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "tags.h"
#include "target_impl.h"

static tl_status from_string(const char *s, int depth, tl_target **out);

/* TVM's Target(String) wrapper: ". Target creation from string failed: <s>". */
static tl_status wrap_string(tl_status s, const char *spec) {
  if (s == TL_OK || s == TL_ENOMEM) return s;
  return tl__error(s, "%s. Target creation from string failed: %s", tl_last_error(), spec);
}

/* ---- caches of immutable targets ---- */

#define KIND_CACHE_SIZE 16
#define TAG_CACHE_SIZE 128
static _Atomic(tl_target *) g_kind_cache[KIND_CACHE_SIZE];
static _Atomic(tl_target *) g_tag_cache[TAG_CACHE_SIZE];
_Static_assert(KIND_CACHE_SIZE >= 10, "one cache slot per kind");

/* Returns the cached target of *slot, building it with make(arg) the first time.
 * Racing builders agree through compare-and-swap; the loser frees its copy. */
static tl_status cached(_Atomic(tl_target *) *slot, tl_status (*make)(const void *, tl_target **), const void *arg,
                        tl_target **out) {
  tl_target *t = atomic_load_explicit(slot, memory_order_acquire);
  if (!t) {
    tl_target *made = NULL;
    TL__TRY(make(arg, &made));
    tl_target *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(slot, &expected, made, memory_order_acq_rel, memory_order_acquire)) {
      t = made; /* the cache keeps this reference */
    } else {
      tl_target_release(made);
      t = expected;
    }
  }
  *out = tl_target_retain(t);
  return TL_OK;
}

/* FromConfig({"kind": name}). */
static tl_status make_kind_target(const void *arg, tl_target **out) {
  const tl__target_kind *k = arg;
  tl__tmember m = {"kind", tl__tv_str(k->name)};
  tl__tmap config = {&m, 1, 1};
  return tl__target_from_config(&config, 0, out);
}

/* Parsed tag configurations, built once per tag and shared (immutable). */
typedef struct tag_value {
  tl__arena arena;
  tl__tval value;
} tag_value;
static _Atomic(tag_value *) g_tag_values[TAG_CACHE_SIZE];

/* A tag's configuration as a value (borrowed when cached, else in arena a). The
 * table's JSON is valid (every tag is built by the tests), so a failure can only be
 * jansson running out of memory, which it sometimes reports as a syntax error. */
static tl_status parse_tag_config(tl__arena *a, size_t i, tl__tval *out) {
  const tl__target_tag *tag = tl__target_tag_at(i);
  if (i >= TAG_CACHE_SIZE) {
    tl_status s = tl__tv_parse_json(a, tag->config, "", out);
    return s == TL_OK || s == TL_ENOMEM ? s : tl__oom();
  }
  tag_value *tv = atomic_load_explicit(&g_tag_values[i], memory_order_acquire);
  if (!tv) {
    tl__arena own;
    tl__arena_init(&own, 1024);
    tag_value *made = tl__arena_alloc(&own, sizeof *made);
    tl_status s = made ? tl__tv_parse_json(&own, tag->config, "", &made->value) : TL_ENOMEM;
    if (s != TL_OK) {
      tl__arena_free(&own);
      return tl__oom();
    }
    made->arena = own; /* the arena holds the struct itself: it is never freed */
    tag_value *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&g_tag_values[i], &expected, made, memory_order_acq_rel,
                                                memory_order_acquire)) {
      tv = made;
    } else {
      tl__arena_free(&own);
      tv = expected;
    }
  }
  *out = tv->value;
  return TL_OK;
}

/* Target(tag_config): the tag's configuration; the tag is not recorded. */
static tl_status make_tag_target(const void *arg, tl_target **out) {
  const tl__target_tag *tag = arg;
  tl__arena a;
  tl__arena_init(&a, 2048);
  tl__tval v;
  tl_status s = parse_tag_config(&a, (size_t)(tag - tl__target_tag_at(0)), &v);
  if (s == TL_OK) s = tl__target_from_config(&v.v.map, 0, out);
  tl__arena_free(&a);
  return s;
}

static tl_status kind_target(const tl__target_kind *k, tl_target **out) {
  size_t i = (size_t)(k - tl__target_kind_at(0));
  if (i < KIND_CACHE_SIZE) return cached(&g_kind_cache[i], make_kind_target, k, out);
  return make_kind_target(k, out);
}

static tl_status tag_target(size_t i, tl_target **out) {
  const tl__target_tag *tag = tl__target_tag_at(i);
  if (i < TAG_CACHE_SIZE) return cached(&g_tag_cache[i], make_tag_target, tag, out);
  return make_tag_target(tag, out);
}

/* ---- FromConfig ---- */

static bool is_feature_key(const char *key) { return strncmp(key, "feature.", 8) == 0 && key[8] != '\0'; }

/* TVM's per-option validator (TypeTraits::TryCastFromAnyView): int takes bool,
 * bool takes int; nothing else converts. */
static tl_status validate(const tl__target_option *o, const tl__tval *v, tl__tval *out) {
  switch (o->type) {
    case TL__OPT_INT:
      if (v->type == TL__TV_INT) return *out = *v, TL_OK;
      if (v->type == TL__TV_BOOL) return *out = tl__tv_int(v->v.b), TL_OK;
      break;
    case TL__OPT_BOOL:
      if (v->type == TL__TV_BOOL) return *out = *v, TL_OK;
      if (v->type == TL__TV_INT) return *out = tl__tv_bool(v->v.i != 0), TL_OK;
      break;
    case TL__OPT_STR:
      if (v->type == TL__TV_STR) return *out = *v, TL_OK;
      break;
    case TL__OPT_STR_ARRAY:
      if (tl__tv_is_str_array(v)) return *out = *v, TL_OK;
      break;
    case TL__OPT_TARGET: break;
  }
  return tl__error(TL_EINVAL, "Option '%s': expected type '%s' but got '%s'", o->name, tl__target_opt_type_name(o->type),
                   tl__tv_type_key(v));
}

/* "Unknown config option 'k'. Known options: 'kind', 'keys', ...". */
static tl_status unknown_option(const tl__target_kind *kind, const char *key) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "Unknown config option '%s'. Known options: ", key);
  const tl__target_option *lists[2] = {tl__target_common_options, kind->options};
  bool first = true;
  for (int l = 0; l < 2; l++)
    for (const tl__target_option *o = lists[l]; o->name; o++) {
      tl__sb_appendf(&sb, "%s'%s'", first ? "" : ", ", o->name);
      first = false;
    }
  if (tl__sb_status(&sb) != TL_OK) {
    tl__sb_free(&sb);
    return TL_ENOMEM;
  }
  tl__error(TL_EINVAL, "%s", tl__sb_str(&sb));
  tl__sb_free(&sb);
  return TL_EINVAL;
}

/* Step 0: {"tag": name, ...overrides} without "kind" becomes the tag's
 * configuration with the overrides on top and "tag" recorded. */
static tl_status expand_tag(const tl__tmap *input, const tl__tval *tagv, tl__arena *a, tl__tmap *merged) {
  if (tagv->type != TL__TV_STR)
    return tl__error(TL_EINVAL, "Expect type of field \"tag\" is String, but get type: %s", tl__tv_type_key(tagv));
  long ti = tl__target_tag_index(tagv->v.s);
  if (ti < 0) return tl__error(TL_EINVAL, "Unknown target tag: %s", tagv->v.s);
  tl__tval base;
  TL__TRY(parse_tag_config(a, (size_t)ti, &base));
  /* A copy of the member array (the cached value is shared and immutable). */
  size_t cap = base.v.map.n + input->n + 1;
  merged->m = tl__arena_alloc(a, cap * sizeof *merged->m);
  if (!merged->m) return tl__oom();
  memcpy(merged->m, base.v.map.m, base.v.map.n * sizeof *merged->m);
  merged->n = base.v.map.n;
  merged->cap = cap;
  for (size_t i = 0; i < input->n; i++)
    if (strcmp(input->m[i].key, "tag") != 0) TL__TRY(tl__tmap_set(merged, a, input->m[i].key, input->m[i].val));
  return tl__tmap_set(merged, a, "tag", *tagv);
}

/* Step 2: the host, through TVM's constructor dispatcher. depth counts host
 * levels, this one included. */
static tl_status build_host(const tl__tval *v, int depth, tl_target **out) {
  if (depth > TL__TARGET_MAX_HOST_DEPTH)
    return tl__error(TL_EINVAL, "Target host nesting exceeds %d levels", TL__TARGET_MAX_HOST_DEPTH);
  if (v->type == TL__TV_STR) return wrap_string(from_string(v->v.s, depth, out), v->v.s);
  if (v->type == TL__TV_MAP) return tl__target_from_config(&v->v.map, depth, out);
  return tl__error(TL_EINVAL, "Cannot create target with type: %s", tl__tv_type_key(v));
}

/* The position of option `key` in opts, or -1. */
static int option_index(const tl__target_option *const *opts, int n, const char *key) {
  for (int j = 0; j < n; j++)
    if (opts[j]->name[0] == key[0] && strcmp(opts[j]->name, key) == 0) return j;
  return -1;
}

/* An attribute with its place in the text: schema position, then other keys,
 * then feature.* keys by name. */
typedef struct ranked {
  int rank;
  tl__tmember m;
} ranked;

static int cmp_ranked(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return strcmp(x->m.key, y->m.key);
}

/* Steps 4 to 7 after kind and host: resolve the schema, canonicalize, restore
 * features, compute keys, order the attributes, create. Options are handled by
 * their position in the schema, so each given key is looked up once. Scratch
 * lives on the stack; what the target keeps is allocated in arena a, which the
 * target adopts when `adopt` (config then lives in a too). */
static tl_status resolve(const tl__tmap *config, const tl__target_kind *kind, const tl_target *host, tl__arena *a,
                         bool adopt, tl_target **out) {
  const tl__target_option *opts[TL__MAX_KIND_OPTIONS];
  int nopts = 0;
  for (const tl__target_option *o = tl__target_common_options; o->name; o++) opts[nopts++] = o;
  for (const tl__target_option *o = kind->options; o->name && nopts < TL__MAX_KIND_OPTIONS; o++) opts[nopts++] = o;
  const tl__tval *given[TL__MAX_KIND_OPTIONS];
  memset(given, 0, (size_t)nopts * sizeof *given);
  const char *unknown = NULL;
  for (size_t i = 0; i < config->n; i++) {
    const char *key = config->m[i].key;
    if (is_feature_key(key)) continue;
    int j = option_index(opts, nopts, key);
    if (j < 0) {
      if (!unknown) unknown = key;
    } else if (j != TL__OPT_HOST) { /* the host was taken out before */
      given[j] = &config->m[i].val;
    }
  }
  /* Step 4.1: declared options in declaration order. Canonicalizers and features
   * may add members; past the stack array the map grows in the arena. */
  enum { STACK_MEMBERS = TL__MAX_KIND_OPTIONS + 8 };
  tl__tmember res_stack[STACK_MEMBERS];
  tl__tmap res = {res_stack, 0, STACK_MEMBERS};
  for (int j = 0; j < nopts; j++) {
    const tl__target_option *o = opts[j];
    tl__tval val;
    if (given[j]) TL__TRY(validate(o, given[j], &val));
    else if (o->has_default) val = o->type == TL__OPT_BOOL ? tl__tv_bool(o->dflt != 0) : tl__tv_int(o->dflt);
    else continue;
    res.m[res.n++] = (tl__tmember){o->name, val};
  }
  /* Step 4.2: unknown keys, after validation as in TVM. */
  if (unknown) return unknown_option(kind, unknown);
  /* Step 4.3: the canonicalizer. */
  if (kind->canonicalize) TL__TRY(kind->canonicalize(&res, a));
  /* Step 5: feature.* entries the canonicalizer did not set. */
  for (size_t i = 0; i < config->n; i++)
    if (is_feature_key(config->m[i].key) && !tl__tmap_get(&res, config->m[i].key))
      TL__TRY(tl__tmap_set(&res, a, config->m[i].key, config->m[i].val));
  /* Step 6: tag and keys. Explicit keys replace the defaults; device is appended. */
  const tl__tval *tagv = tl__tmap_get(&res, "tag");
  const char *tag = tagv && tagv->type == TL__TV_STR ? tagv->v.s : "";
  const tl__tval *kv = tl__tmap_get(&res, "keys");
  const tl__tval *dev = tl__tmap_get(&res, "device");
  size_t ndefault = 0;
  while (kind->default_keys[ndefault]) ndefault++;
  const char **keys = tl__arena_alloc(a, ((kv ? kv->v.arr.n : ndefault) + 1) * sizeof *keys);
  if (!keys) return tl__oom();
  size_t nkeys = 0;
  if (kv)
    for (size_t i = 0; i < kv->v.arr.n; i++) keys[nkeys++] = kv->v.arr.items[i].v.s;
  if (dev && dev->type == TL__TV_STR) keys[nkeys++] = dev->v.s;
  if (!kv)
    for (size_t i = 0; i < ndefault; i++) keys[nkeys++] = kind->default_keys[i];
  size_t kept = 0;
  for (size_t i = 0; i < nkeys; i++) {
    bool dup = false;
    for (size_t j = 0; j < kept && !dup; j++) dup = strcmp(keys[j], keys[i]) == 0;
    if (!dup) keys[kept++] = keys[i];
  }
  nkeys = kept;
  /* Step 7: everything else is an attribute, in the order of the text. from_device
   * is dropped: nothing here queries devices (TVM without that runtime keeps the
   * defaults too). */
  ranked r_stack[STACK_MEMBERS];
  ranked *r = res.n <= STACK_MEMBERS ? r_stack : tl__arena_alloc(a, res.n * sizeof *r);
  tl__tmember *attrs = tl__arena_alloc(a, (res.n ? res.n : 1) * sizeof *attrs);
  if (!r || !attrs) return tl__oom();
  size_t n = 0;
  for (size_t i = 0; i < res.n; i++) {
    const char *key = res.m[i].key;
    int j = -1;
    for (int k = 0; k < nopts && j < 0; k++) /* schema names are kept by pointer */
      if (opts[k]->name == key) j = k;
    if (j < 0 && !is_feature_key(key)) j = option_index(opts, nopts, key); /* set by a canonicalizer */
    if (j == TL__OPT_KIND || j == TL__OPT_KEYS || j == TL__OPT_TAG || j == TL__OPT_FROM_DEVICE) continue;
    int rank = j >= 0 ? j : is_feature_key(key) ? TL__MAX_KIND_OPTIONS + 1 : TL__MAX_KIND_OPTIONS;
    r[n++] = (ranked){rank, res.m[i]};
  }
  /* Order: mostly sorted already, usually few; insertion sort unless many. */
  if (n > 32) {
    qsort(r, n, sizeof *r, cmp_ranked);
  } else {
    for (size_t i = 1; i < n; i++)
      for (size_t j = i; j > 0 && cmp_ranked(&r[j - 1], &r[j]) > 0; j--) {
        ranked tmp = r[j];
        r[j] = r[j - 1];
        r[j - 1] = tmp;
      }
  }
  for (size_t i = 0; i < n; i++) attrs[i] = r[i].m;
  return tl__target_create(kind, tag, keys, nkeys, attrs, n, host, adopt ? a : NULL, out);
}

/* TVM's FromConfig, without the error suffix. With `own`, input lives in *own and
 * the new target takes that arena over (the caller frees *own either way: it is
 * left empty on success); without, the target copies what it keeps. */
static tl_status from_config(const tl__tmap *input, int depth, tl__arena *own, tl_target **out) {
  tl__arena scratch;
  tl__arena_init(&scratch, 1024);
  tl__arena *a = own ? own : &scratch;
  tl_target *host = NULL;
  tl_status s = TL_OK;
  const tl__tmap *config = input;
  tl__tmap merged;
  const tl__tval *tagv = tl__tmap_get(input, "tag");
  if (!tl__tmap_get(input, "kind") && tagv) {
    if ((s = expand_tag(input, tagv, a, &merged)) != TL_OK) goto done;
    config = &merged;
  }
  const tl__tval *kindv = tl__tmap_get(config, "kind");
  if (!kindv) {
    s = tl__error(TL_EINVAL, "Field \"kind\" is not found");
    goto done;
  }
  if (kindv->type != TL__TV_STR) {
    s = tl__error(TL_EINVAL, "Expect type of field \"kind\" is String, but get type: %s", tl__tv_type_key(kindv));
    goto done;
  }
  const tl__target_kind *kind = tl__target_kind_find(kindv->v.s);
  if (!kind) {
    s = tl__error(TL_EINVAL, "Target kind \"%s\" is not defined", kindv->v.s);
    goto done;
  }
  const tl__tval *hostv = tl__tmap_get(config, "host");
  if (hostv && (s = build_host(hostv, depth + 1, &host)) != TL_OK) goto done;
  s = resolve(config, kind, host, a, own != NULL, out);
done:
  tl_target_release(host);
  tl__arena_free(&scratch);
  return s;
}

tl_status tl__target_from_config(const tl__tmap *config, int depth, tl_target **out) {
  tl_status s = from_config(config, depth, NULL, out);
  if (s == TL_OK || s == TL_ENOMEM) return s;
  tl__tval v = {.type = TL__TV_MAP, .v.map = *config};
  char *repr = tl__json_dump(&v, 0, true);
  if (!repr) return TL_ENOMEM;
  tl__error(s, "%s. Target creation from config dict failed: %s", tl_last_error(), repr);
  tl__free(repr);
  return s;
}

/* ---- FromString ---- */

/* Rule 3: a string with a space is the removed CLI form. The message is TVM's, plus
 * the JSON to write instead when the string reads as kind-or-tag plus options. */
static tl_status legacy_error(const char *s) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb,
                 "Cannot parse target string \"%s\". CLI target string form (e.g. \"llvm -mcpu=xxx\") is no longer "
                 "supported. Please use JSON dict form (e.g. {\"kind\": \"llvm\", \"mcpu\": \"xxx\"}) instead.",
                 s);
  size_t before = sb.len;
  tl__sb_append(&sb, " Equivalent JSON: ");
  if (!tl__target_legacy_to_json(s, &sb) && !sb.failed) tl__sb_truncate(&sb, before);
  if (tl__sb_status(&sb) != TL_OK) {
    tl__sb_free(&sb);
    return TL_ENOMEM;
  }
  tl__error(TL_EINVAL, "%s", tl__sb_str(&sb));
  tl__sb_free(&sb);
  return TL_EINVAL;
}

/* TVM's FromString, without the error suffix. */
static tl_status from_string(const char *s, int depth, tl_target **out) {
  long ti = tl__target_tag_index(s);
  if (ti >= 0) return tag_target((size_t)ti, out);
  if (s[0] == '{') {
    /* One arena for the parsed JSON and the target built from it. */
    tl__arena a;
    tl__arena_init(&a, 1024);
    tl__tval v;
    tl_status st = tl__tv_parse_json(&a, s, "Failed to parse target JSON config: ", &v);
    if (st == TL_OK && v.type != TL__TV_MAP) st = tl__error(TL_EINVAL, "Target JSON config must be a dict, got: %s", s);
    if (st == TL_OK) st = from_config(&v.v.map, depth, &a, out);
    tl__arena_free(&a);
    return st;
  }
  if (strchr(s, ' ')) return legacy_error(s);
  const tl__target_kind *k = tl__target_kind_find(s);
  if (!k) return tl__error(TL_EINVAL, "Target kind \"%s\" is not defined", s);
  return kind_target(k, out);
}

tl_status tl_target_parse(const char *spec, tl_target **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_target_parse: out is NULL");
  *out = NULL;
  if (!spec) return tl__error(TL_EINVAL, "target has to be a string or dictionary. instead get NULL");
  /* JSON specs are memoized (memo.c); bare kinds and tags have their own caches. */
  tl__target_memo key;
  bool memo = spec[0] == '{' && tl__target_memo_key(spec, &key);
  if (memo && (*out = tl__target_memo_get(&key))) return TL_OK;
  tl_status s = wrap_string(from_string(spec, 0, out), spec);
  if (s == TL_OK && memo) tl__target_memo_put(&key, *out);
  return s;
}
