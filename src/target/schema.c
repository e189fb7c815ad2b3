/* Listing the kinds, their schemas and the tags (for tools such as `tlc targets`). */
#include <string.h>

#include "kinds.h"
#include "tags.h"
#include "tilelang/target.h"

size_t tl_list_target_kinds(const char **out, size_t cap) {
  size_t n = tl__target_kind_count();
  for (size_t i = 0; i < n && i < cap; i++) out[i] = tl__target_kind_at(i)->name;
  return n;
}

size_t tl_target_kind_options(const char *kind, tl_target_option_info *out, size_t cap) {
  const tl__target_kind *k = tl__target_kind_find(kind);
  if (!k) return 0;
  const tl__target_option *lists[2] = {tl__target_common_options, k->options};
  size_t n = 0;
  for (int l = 0; l < 2; l++)
    for (const tl__target_option *o = lists[l]; o->name; o++, n++)
      if (n < cap) out[n] = (tl_target_option_info){o->name, tl__target_opt_type_name(o->type), o->dflt_json};
  return n;
}

size_t tl_target_kind_default_keys(const char *kind, const char **out, size_t cap) {
  const tl__target_kind *k = tl__target_kind_find(kind);
  if (!k) return 0;
  size_t n = 0;
  for (; k->default_keys[n]; n++)
    if (n < cap) out[n] = k->default_keys[n];
  return n;
}

int tl_target_kind_device_type(const char *kind) {
  const tl__target_kind *k = tl__target_kind_find(kind);
  return k ? k->device_type : -1;
}

size_t tl_list_target_tags(const char **out, size_t cap) {
  size_t n = tl__target_tag_count();
  for (size_t i = 0; i < n && i < cap; i++) out[i] = tl__target_tag_at(i)->name;
  return n;
}

const char *tl_target_tag_config(const char *tag) {
  long i = tag ? tl__target_tag_index(tag) : -1;
  return i < 0 ? NULL : tl__target_tag_at((size_t)i)->config;
}
