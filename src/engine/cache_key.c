/* The kernel cache key (see cache.h). */
#include "engine/cache.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/str.h"

/* Bumped whenever the text below changes meaning. */
#define KEY_FORMAT "tilelang-c kernel cache key v1"

/* Appends v in decimal (no printf: the key is computed on every tl_compile, memory
 * hits included). */
static void append_u64(tl__sb *sb, uint64_t v, unsigned base, int min_digits) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v || n < min_digits);
  while (n) tl__sb_putc(sb, buf[--n]);
}

/* Appends "name=<len>:value\n": length-prefixed so no value can forge a field. */
static void field(tl__sb *sb, const char *name, const char *value) {
  tl__sb_append(sb, name);
  if (!value) {
    tl__sb_append(sb, "=-\n");
    return;
  }
  size_t len = strlen(value);
  tl__sb_putc(sb, '=');
  append_u64(sb, len, 10, 1);
  tl__sb_putc(sb, ':');
  tl__sb_appendn(sb, value, len);
  tl__sb_putc(sb, '\n');
}

typedef struct kv {
  const char *s;  /* the whole "key=value" */
  size_t keylen;
} kv;

static int kv_cmp(const void *a, const void *b) {
  const kv *x = a, *y = b;
  size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
  int c = memcmp(x->s, y->s, n);
  if (c) return c;
  return (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

/* Appends the pass configs sorted by key, the last value of a repeated key winning. */
static tl_status append_configs(tl__sb *sb, const char *const *configs) {
  size_t n = 0;
  while (configs && configs[n]) n++;
  if (!n) {
    field(sb, "pass_configs", "");
    return TL_OK;
  }
  kv *v = tl__calloc(n, sizeof *v);
  if (!v) return tl__oom();
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const char *eq = strchr(configs[i], '=');
    if (!eq || eq == configs[i]) {
      tl__free(v);
      return tl__error(TL_EINVAL, "pass config '%s' is not of the form key=value", configs[i]);
    }
    kv e = {configs[i], (size_t)(eq - configs[i])};
    size_t j = 0;
    for (; j < m; j++)
      if (v[j].keylen == e.keylen && memcmp(v[j].s, e.s, e.keylen) == 0) break;
    v[j] = e; /* replaces an earlier value of the key, or appends */
    if (j == m) m++;
  }
  qsort(v, m, sizeof *v, kv_cmp);
  tl__sb_append(sb, "pass_configs=");
  append_u64(sb, m, 10, 1);
  tl__sb_putc(sb, '\n');
  for (size_t i = 0; i < m; i++) field(sb, "  pass_config", v[i].s);
  tl__free(v);
  return TL_OK;
}

tl_status tl__cache_key_text(const tl__cache_key_input *in, char **out) {
  *out = NULL;
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, KEY_FORMAT "\n");
  field(&sb, "version", tl_version());
  tl__sb_append(&sb, "func=");
  append_u64(&sb, in->func_hash, 16, 16);
  tl__sb_putc(&sb, '\n');
  field(&sb, "target", in->target);
  field(&sb, "target_host", in->target_host);
  field(&sb, "execution_backend", in->execution_backend);
  field(&sb, "identity", in->identity);
  tl_status s = append_configs(&sb, in->pass_configs);
  if (s != TL_OK) {
    tl__sb_free(&sb);
    return s;
  }
  *out = tl__sb_finish(&sb);
  return *out ? TL_OK : tl__oom();
}

tl_status tl__cache_key(const tl__cache_key_input *in, char out[TL__CACHE_KEY_LEN + 1]) {
  char *text;
  TL__TRY(tl__cache_key_text(in, &text));
  tl__hash128_hex(text, strlen(text), out);
  tl__free(text);
  return TL_OK;
}

/* ------------------------------------------------------- function hashing */

typedef struct launch_scan {
  const tl_ir_module *mod;
  const tl_ir_func *seen[16]; /* functions already hashed (a small program has few) */
  size_t nseen;
  size_t visits; /* bounds the walk of a malformed module whose launches cycle */
  tl__hasher hs;
} launch_scan;

static void hash_func(launch_scan *ls, const tl_ir_func *f);

static bool on_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  if (s->kind == TL_STMT_LAUNCH) {
    launch_scan *ls = v->ctx;
    const tl_ir_func *k = tl_ir_module_find_func(ls->mod, s->u.launch.kernel);
    if (k) hash_func(ls, k);
    else tl__hasher_str(&ls->hs, s->u.launch.kernel);
  }
  return true;
}

/* Hashes f once, then the functions it launches. Beyond 16 distinct functions
 * repeats are hashed again, which changes nothing but time. */
static void hash_func(launch_scan *ls, const tl_ir_func *f) {
  for (size_t i = 0; i < ls->nseen; i++)
    if (ls->seen[i] == f) return;
  if (++ls->visits > 4096) return;
  if (ls->nseen < sizeof ls->seen / sizeof *ls->seen) ls->seen[ls->nseen++] = f;
  tl__hasher_u64(&ls->hs, tl_ir_func_hash(f));
  tl_ir_visitor v = {NULL, on_stmt, ls};
  tl_ir_visit_stmt(&v, f->body);
}

uint64_t tl__cache_func_hash(const tl_ir_module *mod, const tl_ir_func *f) {
  launch_scan ls = {.mod = mod};
  tl__hasher_init(&ls.hs, 0x746c6b65726e656cull);
  hash_func(&ls, f);
  return tl__hasher_done(&ls.hs);
}

