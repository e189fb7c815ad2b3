/* Target tags: names for complete target configurations ("nvidia/nvidia-h100"). */
#ifndef TL_TARGET_TAGS_H
#define TL_TARGET_TAGS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tl__target_tag {
  const char *name;
  const char *config;  /* JSON object text */
  bool upstream;       /* in TVM's public tag registry (else a project addition) */
} tl__target_tag;

size_t tl__target_tag_count(void);
const tl__target_tag *tl__target_tag_at(size_t i);
/* The index of the tag named `name`, or -1. O(log n). Thread-safe. */
long tl__target_tag_index(const char *name);

#endif
