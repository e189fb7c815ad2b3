/* The hip target normalizer (upstream tilelang/rocm/target.py): a config dict (in
 * C, a JSON object) of kind "hip" whose mcpu names a gfx arch gets mtriple
 * amdgcn-amd-amdhsa-hcc if it has none, and thread_warp_size from the arch (gfx9:
 * 64; gfx10 to gfx12: 32), or loses thread_warp_size when the arch is not one of
 * those. As upstream, the bare string "hip" is not normalized. */
#include "target.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json.h"
#include "tilelang/target.h"

int tl__rocm_warp_size(const char *arch) {
  if (strncmp(arch, "gfx9", 4) == 0) return 64;
  if (strncmp(arch, "gfx10", 5) == 0 || strncmp(arch, "gfx11", 5) == 0 || strncmp(arch, "gfx12", 5) == 0) return 32;
  return 0;
}

/* normalize_rocm_arch: stripped, cut at the first ':', kept only if it starts with
 * "gfx". Writes into arch (size bytes); false when not a gfx arch. */
static bool normalize_arch(const char *mcpu, char *arch, size_t size) {
  while (isspace((unsigned char)*mcpu)) mcpu++;
  size_t n = strcspn(mcpu, ":");
  while (n && isspace((unsigned char)mcpu[n - 1])) n--;
  if (n >= size || strncmp(mcpu, "gfx", 3) != 0 || n < 3) return false;
  memcpy(arch, mcpu, n);
  arch[n] = '\0';
  return true;
}

/* True when jansson failed for lack of memory (some such failures carry no text). */
static bool jansson_oom(const json_error_t *e) { return json_error_code(e) == json_error_out_of_memory || !e->text[0]; }

/* with_rocm_target_attrs: the target's export with mtriple defaulted and the warp
 * size set or removed, rebuilt. */
static tl_status with_rocm_attrs(const tl_target *t, int warp, tl_target **out) {
  json_error_t err;
  json_t *cfg = json_loads(tl_target_str(t), 0, &err);
  if (!cfg) return tl__oom(); /* our own JSON text: only memory can fail */
  int rc = 0;
  if (!json_object_get(cfg, "mtriple")) rc |= json_object_set_new(cfg, "mtriple", json_string("amdgcn-amd-amdhsa-hcc"));
  if (warp) rc |= json_object_set_new(cfg, "thread_warp_size", json_integer(warp));
  else json_object_del(cfg, "thread_warp_size");
  char *text = rc ? NULL : json_dumps(cfg, JSON_COMPACT);
  json_decref(cfg);
  if (!text) return tl__oom();
  tl_status s = tl_target_parse(text, out);
  free(text); /* jansson's allocation */
  return s;
}

static tl_status hip_normalize(const char *spec, void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  while (isspace((unsigned char)*spec)) spec++;
  if (*spec != '{') return TL_OK;
  json_error_t err;
  bool oom = false;
  json_t *cfg = tl__json_loads(spec, JSON_REJECT_DUPLICATES, &err, &oom);
  if (!cfg && (oom || jansson_oom(&err))) return tl__oom();
  const char *kind = cfg ? json_string_value(json_object_get(cfg, "kind")) : NULL;
  bool hip = kind && strcmp(kind, "hip") == 0;
  json_decref(cfg);
  if (!hip) return TL_OK;
  tl_target *t = NULL;
  tl_status s = tl_target_parse(spec, &t);
  if (s == TL_ENOMEM) return s;
  if (s != TL_OK) return TL_OK; /* a dict that does not build is not ours */
  const char *mcpu;
  char arch[64];
  if (tl_target_attr_str(t, "mcpu", &mcpu) && normalize_arch(mcpu, arch, sizeof arch))
    s = with_rocm_attrs(t, tl__rocm_warp_size(arch), out);
  tl_target_release(t);
  return s;
}

tl_status tl__rocm_target_init(void) { return tl_register_target_normalizer("hip", hip_normalize, NULL, false); }
