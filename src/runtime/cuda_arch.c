/* CUDA arch validation and resolution (cuda_arch.h). */
#include "runtime/cuda_arch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "runtime/cuda_driver.h"

/* ^sm_[0-9]+[a-z]?$ */
static bool arch_token(const char *s) {
  if (strncmp(s, "sm_", 3) != 0) return false;
  const char *p = s + 3;
  if (!isdigit((unsigned char)*p)) return false;
  while (isdigit((unsigned char)*p)) p++;
  if (*p >= 'a' && *p <= 'z') p++;
  return *p == '\0';
}

/* ^sm_[A-Za-z0-9]+$ */
static bool code_token(const char *s) {
  if (strncmp(s, "sm_", 3) != 0 || !s[3]) return false;
  for (const char *p = s + 3; *p; p++)
    if (!isalnum((unsigned char)*p)) return false;
  return true;
}

int tl__cuda_arch_number(const char *arch) {
  if (!arch || strncmp(arch, "sm_", 3) != 0 || !isdigit((unsigned char)arch[3])) return -1;
  long v = strtol(arch + 3, NULL, 10);
  return v > 0 && v < 100000 ? (int)v : -1;
}

size_t tl__cuda_target_codes(const tl_target *t, const char **out, size_t cap) {
  size_t n = tl_target_attr_array(t, "code", out, cap);
  return n < cap ? n : cap;
}

tl_status tl__cuda_validate_target(const tl_target *t) {
  const char *arch = NULL;
  if (tl_target_attr_str(t, "arch", &arch) && !arch_token(arch))
    return tl__error(TL_EINVAL, "CUDA target arch must be an exact SM token such as 'sm_90' or 'sm_100f'.");
  if (tl_target_has_attr(t, "code")) {
    const char *codes[TL__CUDA_MAX_CODES];
    size_t n = tl_target_attr_array(t, "code", codes, TL__CUDA_MAX_CODES);
    if (n == 0) return tl__error(TL_EINVAL, "CUDA target code must be a non-empty list of SM code tokens");
    if (n > TL__CUDA_MAX_CODES)
      return tl__error(TL_EINVAL, "CUDA target code lists at most %d entries here, not %zu", TL__CUDA_MAX_CODES, n);
    for (size_t i = 0; i < n; i++)
      if (!code_token(codes[i]))
        return tl__error(TL_EINVAL,
                         "CUDA target code entries must be exact SM code tokens such as 'sm_100a' or 'sm_103a'.");
  }
  return TL_OK;
}

/* The arch of the GPU present (the current context's device, else device 0), or
 * TL_EUNAVAILABLE saying why there is none. */
static tl_status detect(char *buf, size_t cap) {
  const tl__cuda_driver *d;
  TL__TRY(tl__cuda_driver_get(&d));
  tl__CUcontext ctx = NULL;
  tl__CUdevice dev = 0;
  tl__CUresult r = d->cuCtxGetCurrent(&ctx);
  if (r == TL__CUDA_SUCCESS && ctx) r = d->cuCtxGetDevice(&dev);
  else if (r == TL__CUDA_SUCCESS) r = d->cuDeviceGet(&dev, 0);
  int major = 0, minor = 0;
  if (r == TL__CUDA_SUCCESS) r = d->cuDeviceGetAttribute(&major, TL__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  if (r == TL__CUDA_SUCCESS) r = d->cuDeviceGetAttribute(&minor, TL__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  if (r != TL__CUDA_SUCCESS)
    return tl__error(TL_EUNAVAILABLE, "no usable CUDA device (%s: %s)", tl__cuda_error_name(d, r),
                     tl__cuda_error_string(d, r));
  /* TileLang's get_target_arch: the "a" variant from major 9 on. */
  snprintf(buf, cap, "sm_%d%s", major * 10 + minor, major >= 9 ? "a" : "");
  return TL_OK;
}

tl_status tl__cuda_resolve_arch(const tl_target *t, char *buf, size_t cap) {
  TL__TRY(tl__cuda_validate_target(t));
  const char *arch = NULL;
  if (tl_target_attr_str(t, "arch", &arch)) {
    if (strlen(arch) >= cap) return tl__error(TL_EINVAL, "CUDA target arch '%s' is too long", arch);
    snprintf(buf, cap, "%s", arch);
    return TL_OK;
  }
  tl_status s = detect(buf, cap);
  if (s == TL_OK) return TL_OK;
  if (s == TL_ENOMEM) return s;
  char why[256];
  snprintf(why, sizeof why, "%s", tl_last_error());
  return tl__error(TL_EINVAL,
                   "CUDA target %s has no arch, and there is no GPU here to take it from (%s); pin the arch in the "
                   "target, e.g. {\"kind\":\"cuda\",\"arch\":\"sm_90a\"}",
                   tl_target_str(t), why);
}
