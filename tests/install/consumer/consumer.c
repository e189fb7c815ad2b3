/* A program outside the project that uses the installed library. */
#include <stdio.h>
#include <string.h>

#include <tilelang/tilelang.h>

int main(void) {
  const char *v = tl_version();
  if (!v || !*v) return 1;
  if (strcmp(tl_status_name(TL_EINVAL), "TL_EINVAL") != 0) return 1;
  printf("consumer linked against tilelang-backend %s\n", v);
  return 0;
}
