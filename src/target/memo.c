/* A memo of parsed JSON target specs. tl_target_parse is a pure function of the
 * spec text (it queries no device and reads no environment) and targets are
 * immutable, so handing back the target an identical spec produced before is
 * indistinguishable from parsing again, and skips jansson, which costs more than
 * everything else in a parse. Programs parse the same few specs over and over
 * (one per compilation), so a small cache serves them.
 *
 * Direct-mapped, MEMO_SLOTS slots chosen by hash, spec text stored inline (specs
 * longer than MEMO_TEXT are not memoized), one mutex. It allocates nothing, so it
 * cannot fail or leak; a slot's target is released when another spec takes the
 * slot, and at most MEMO_SLOTS targets are kept. Only successes are memoized. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/hash.h"
#include "target_impl.h"

#define MEMO_SLOTS 64
#define MEMO_TEXT 256

typedef struct memo_slot {
  uint64_t hash;
  size_t len;
  tl_target *target; /* NULL: empty */
  char text[MEMO_TEXT];
} memo_slot;

static memo_slot g_slots[MEMO_SLOTS];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool g_disabled;

void tl__target_memo_enable(bool on) { atomic_store(&g_disabled, !on); }

bool tl__target_memo_key(const char *spec, tl__target_memo *key) {
  if (atomic_load_explicit(&g_disabled, memory_order_relaxed)) return false;
  size_t len = strnlen(spec, MEMO_TEXT);
  if (len >= MEMO_TEXT) return false;
  key->spec = spec;
  key->len = len;
  key->hash = tl__hash_bytes(spec, len, 0x6d656d6full);
  return true;
}

tl_target *tl__target_memo_get(const tl__target_memo *key) {
  memo_slot *s = &g_slots[key->hash % MEMO_SLOTS];
  tl_target *t = NULL;
  pthread_mutex_lock(&g_lock);
  if (s->target && s->hash == key->hash && s->len == key->len && memcmp(s->text, key->spec, key->len) == 0)
    t = tl_target_retain(s->target);
  pthread_mutex_unlock(&g_lock);
  return t;
}

void tl__target_memo_put(const tl__target_memo *key, const tl_target *t) {
  memo_slot *s = &g_slots[key->hash % MEMO_SLOTS];
  tl_target *evicted;
  pthread_mutex_lock(&g_lock);
  evicted = s->target;
  s->target = tl_target_retain(t);
  s->hash = key->hash;
  s->len = key->len;
  memcpy(s->text, key->spec, key->len);
  pthread_mutex_unlock(&g_lock);
  tl_target_release(evicted); /* outside the lock: it may free a whole target */
}
