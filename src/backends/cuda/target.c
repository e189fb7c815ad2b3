/* The cuda target detector and normalizer (upstream tilelang/cuda/target.py), on
 * the CUDA driver directly instead of torch: a device present gives
 * {"kind":"cuda","arch":"sm_XY"} for the current context's device (device 0 when
 * no context is current). No device or no driver is "not found", never an error,
 * and never a guessed arch. */
#include "target.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "runtime/cuda_driver.h"
#include "tilelang/target.h"

void tl__cuda_arch_name(int major, int minor, char *arch, size_t size) {
  snprintf(arch, size, "sm_%d%s", major * 10 + minor, major >= 9 ? "a" : "");
}

/* A failed driver call: "no device" is not found (reason set), anything else fails. */
static tl_status driver_failure(const tl__cuda_driver *d, const char *call, tl__CUresult r, bool *found) {
  *found = false;
  if (tl__cuda_is_no_device(r)) {
    tl__error(TL_EUNAVAILABLE, "no usable CUDA device (%s returned %s)", call, tl__cuda_error_name(d, r));
    return TL_OK;
  }
  return tl__error(TL_ERUNTIME, "%s failed: %s (%s)", call, tl__cuda_error_name(d, r), tl__cuda_error_string(d, r));
}

tl_status tl__cuda_detect_arch(char *arch, size_t size, bool *found) {
  *found = false;
  const tl__cuda_driver *d;
  if (tl__cuda_driver_get(&d) != TL_OK) return TL_OK; /* the message says why */
  tl__CUcontext ctx = NULL;
  tl__CUdevice dev = 0;
  tl__CUresult r = d->cuCtxGetCurrent(&ctx);
  if (r != TL__CUDA_SUCCESS) return driver_failure(d, "cuCtxGetCurrent", r, found);
  if (ctx) {
    if ((r = d->cuCtxGetDevice(&dev)) != TL__CUDA_SUCCESS) return driver_failure(d, "cuCtxGetDevice", r, found);
  } else {
    int count = 0;
    if ((r = d->cuDeviceGetCount(&count)) != TL__CUDA_SUCCESS) return driver_failure(d, "cuDeviceGetCount", r, found);
    if (count == 0) {
      tl__error(TL_EUNAVAILABLE, "no CUDA device (the driver reports none)");
      return TL_OK;
    }
    if ((r = d->cuDeviceGet(&dev, 0)) != TL__CUDA_SUCCESS) return driver_failure(d, "cuDeviceGet", r, found);
  }
  int major = 0, minor = 0;
  if ((r = d->cuDeviceGetAttribute(&major, TL__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) != TL__CUDA_SUCCESS ||
      (r = d->cuDeviceGetAttribute(&minor, TL__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) != TL__CUDA_SUCCESS)
    return driver_failure(d, "cuDeviceGetAttribute", r, found);
  tl__cuda_arch_name(major, minor, arch, size);
  *found = true;
  return TL_OK;
}

/* The detected GPU as a target, or NULL. */
static tl_status detected_target(tl_target **out) {
  *out = NULL;
  char arch[32];
  bool found;
  TL__TRY(tl__cuda_detect_arch(arch, sizeof arch, &found));
  if (!found) return TL_OK;
  char spec[96];
  snprintf(spec, sizeof spec, "{\"kind\":\"cuda\",\"arch\":\"%s\"}", arch);
  return tl_target_parse(spec, out);
}

static tl_status cuda_detect(void *user_data, tl_target **out) {
  (void)user_data;
  return detected_target(out);
}

/* Only the string "cuda" (surrounding whitespace ignored) is ours. */
static tl_status cuda_normalize(const char *spec, void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  while (isspace((unsigned char)*spec)) spec++;
  size_t n = strlen(spec);
  while (n && isspace((unsigned char)spec[n - 1])) n--;
  if (n != 4 || strncmp(spec, "cuda", 4) != 0) return TL_OK;
  return detected_target(out);
}

tl_status tl__cuda_target_init(void) {
  TL__TRY(tl_register_target_detector("cuda", cuda_detect, NULL, false));
  return tl_register_target_normalizer("cuda", cuda_normalize, NULL, false);
}
