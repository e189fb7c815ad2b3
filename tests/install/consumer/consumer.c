/* A program outside the project that uses the installed library. */
#include <stdio.h>
#include <string.h>

#include <tilelang/tilelang.h>

int main(void) {
  const char *v = tl_version();
  if (!v || !*v) return 1;
  if (strcmp(tl_status_name(TL_EINVAL), "TL_EINVAL") != 0) return 1;
  /* The built-in backends are installed by the library itself (src/base/init.h),
   * also when it is linked statically. */
  if (tl_list_backends(NULL, 0) == 0 || tl_list_target_detectors(NULL, 0) == 0) {
    fprintf(stderr, "consumer: no built-in backends or target detectors registered\n");
    return 1;
  }
  printf("consumer linked against tilelang-backend %s\n", v);
  return 0;
}
