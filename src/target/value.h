/* Target values: the typed attribute values of a target and the configuration maps
 * they are resolved from. Values live in an arena (the target's, or a parse's scratch
 * arena); maps keep insertion order, like TVM's ffi::Map. */
#ifndef TL_TARGET_VALUE_H
#define TL_TARGET_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/str.h"
#include "tilelang/base.h"

typedef enum tl__tv_type {
  TL__TV_NONE, /* JSON null */
  TL__TV_BOOL,
  TL__TV_INT,
  TL__TV_FLOAT,
  TL__TV_STR,
  TL__TV_ARRAY,
  TL__TV_MAP,
  TL__TV_RAW /* already-rendered JSON text (v.s); only inside the writer's input */
} tl__tv_type;

typedef struct tl__tval tl__tval;
typedef struct tl__tmember tl__tmember;

/* An insertion-ordered map; `cap` is the capacity of `m` (arena-grown). */
typedef struct tl__tmap {
  tl__tmember *m;
  size_t n, cap;
} tl__tmap;

struct tl__tval {
  tl__tv_type type;
  union {
    bool b;
    int64_t i;
    double f;
    const char *s;
    struct {
      tl__tval *items;
      size_t n;
    } arr;
    tl__tmap map;
  } v;
};

struct tl__tmember {
  const char *key;
  tl__tval val;
};

static inline tl__tval tl__tv_int(int64_t i) { return (tl__tval){.type = TL__TV_INT, .v.i = i}; }
static inline tl__tval tl__tv_bool(bool b) { return (tl__tval){.type = TL__TV_BOOL, .v.b = b}; }
static inline tl__tval tl__tv_str(const char *s) { return (tl__tval){.type = TL__TV_STR, .v.s = s}; }

/* TVM's type key of a value, as its error messages print it ("int", "ffi.String"). */
const char *tl__tv_type_key(const tl__tval *v);
/* True for an array whose elements are all strings (an Array<str>). */
bool tl__tv_is_str_array(const tl__tval *v);

/* The member named key, or NULL. */
tl__tval *tl__tmap_get(const tl__tmap *m, const char *key);
/* Sets key to v: replaces in place if present, else appends. The key pointer is
 * kept, not copied: it must live as long as the map (static or in the arena).
 * TL_ENOMEM on failure, map unchanged. */
tl_status tl__tmap_set(tl__tmap *m, tl__arena *a, const char *key, tl__tval v);

/* A deep copy of v into arena a. TL_ENOMEM on failure. */
tl_status tl__tv_copy(tl__arena *a, const tl__tval *v, tl__tval *out);

/* Sorts the members of every map inside v by key (byte order), in place, so that
 * equal values render to equal text. Writes nothing when v is already sorted. */
void tl__tv_sort_maps(tl__tval *v);

/* Parses JSON text into a value in arena a (objects keep their key order; duplicate
 * keys are rejected). On bad JSON: TL_EINVAL with jansson's message, line and column,
 * prefixed by `what` ("Failed to parse target JSON config: "). TL_ENOMEM when jansson
 * or the arena runs out of memory. */
tl_status tl__tv_parse_json(tl__arena *a, const char *text, const char *what, tl__tval *out);

/* JSON output, as tvm-ffi's json::Stringify writes it: compact when indent is 0,
 * else tvm-ffi's indented layout. With tvm_escape, strings are escaped as tvm-ffi's
 * EscapeString ('/' as "\/", control bytes and 0x7f as \u00xx); without, '/' is left
 * alone (for messages that show users JSON to type). The writer always counts
 * and writes only what fits in buf[0..cap), so a caller can write into a buffer it
 * has and size a second pass from len when that was too small. */
typedef struct tl__jw {
  char *buf;  /* may be NULL with cap 0: count only */
  size_t len; /* bytes of output so far (written or not) */
  size_t cap;
  int indent;
  bool tvm_escape;
} tl__jw;
void tl__jw_value(tl__jw *w, const tl__tval *v, int level);
/* v rendered into a fresh string (tl__free it), or NULL with TL_ENOMEM set. */
char *tl__json_dump(const tl__tval *v, int indent, bool tvm_escape);

#endif
