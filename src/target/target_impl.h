/* The target object. Everything a target owns lives in its arena (the struct
 * included), so creating one costs one or two allocations; with_host copies share
 * their base's data and hold a reference to it. */
#ifndef TL_TARGET_IMPL_H
#define TL_TARGET_IMPL_H

#include "base/refcount.h"
#include "kinds.h"
#include "tilelang/target.h"
#include "value.h"

/* Hosts nest to this depth at most: parsing recurses once per level, and the limit
 * keeps adversarial input from exhausting the stack. */
#define TL__TARGET_MAX_HOST_DEPTH 256

struct tl_target {
  tl__refcount rc;
  const tl__target_kind *kind;
  const char *tag;          /* "" if none */
  const char *const *keys;
  size_t nkeys;
  const tl__tmember *attrs; /* in the order of the JSON text */
  size_t nattrs;
  const tl_target *host;    /* a reference, or NULL */
  const tl_target *base;    /* a reference to the target whose data this one shares, or NULL */
  const char *str;          /* compact JSON: canonical, so equal targets have equal text */
  size_t str_len;
  tl__arena arena;          /* owns the struct and everything it points to (except host/base) */
};

/* A new target with tag, keys and attrs (in the given order); renders its text and
 * takes a new reference to host. With adopt == NULL everything is copied into a new
 * arena. Otherwise everything it points to lives in *adopt (or is static), and on
 * success the target takes the arena over (*adopt is left empty): a parse builds a
 * target in one arena without copying. TL_ENOMEM on failure (*adopt unchanged). */
tl_status tl__target_create(const tl__target_kind *kind, const char *tag, const char *const *keys, size_t nkeys,
                            tl__tmember *attrs, size_t nattrs, const tl_target *host, tl__arena *adopt,
                            tl_target **out);

/* The target as a value (kind, tag, keys, host as a nested map, attrs) in arena a,
 * for indented output and for rebuilding a modified configuration. */
tl_status tl__target_to_value(const tl_target *t, tl__arena *a, tl__tval *out);

/* Builds a target from a configuration map (TVM's Target(Map)); failures carry the
 * ". Target creation from config dict failed: <config as JSON>" suffix. */
tl_status tl__target_from_config(const tl__tmap *config, int depth, tl_target **out);

/* The memo of parsed JSON specs (memo.c): a spec's key, false when the spec is too
 * long to memoize; a retained target for an identical earlier spec, or NULL; and
 * recording a parse's result. Thread-safe; never allocates. */
typedef struct tl__target_memo {
  const char *spec;
  size_t len;
  uint64_t hash;
} tl__target_memo;
bool tl__target_memo_key(const char *spec, tl__target_memo *key);
/* On by default; benchmarks turn it off to time cold parses. */
void tl__target_memo_enable(bool on);
tl_target *tl__target_memo_get(const tl__target_memo *key);
void tl__target_memo_put(const tl__target_memo *key, const tl_target *t);

/* Appends the JSON a user would write instead of a legacy option string
 * ("cuda -arch=sm_90" -> {"kind":"cuda","arch":"sm_90"}) to sb. False (nothing
 * appended) when the string does not read as kind-or-tag plus options. */
bool tl__target_legacy_to_json(const char *spec, tl__sb *sb);

#endif
