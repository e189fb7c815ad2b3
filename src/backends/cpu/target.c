/* The cpu target detector: the last resort of auto-detection, always available,
 * answering "c" (the C backend runs anywhere a C compiler does). */
#include "target.h"

#include "tilelang/target.h"

static tl_status cpu_detect(void *user_data, tl_target **out) {
  (void)user_data;
  return tl_target_parse("c", out);
}

tl_status tl__cpu_target_init(void) { return tl_register_target_detector("cpu", cpu_detect, NULL, false); }
