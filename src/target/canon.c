/* The kind canonicalizers, as TVM's UpdateCUDAAttrs, UpdateNVPTXAttrs,
 * UpdateROCmAttrs, UpdateWebGPUAttrs and the LLVM canonicalizer, with one deliberate
 * difference: nothing here queries a device. TVM fills a missing CUDA arch (or NVPTX
 * mcpu) from GPU 0 and falls back to sm_50 without one; here the attribute stays
 * absent, and tl_determine_target's "cuda" normalizer supplies the detected arch. */
#include <ctype.h>
#include <string.h>

#include "base/error.h"
#include "kinds.h"

/* TVM's CheckOrSetAttr: sets name to value if absent, else requires that value. */
static tl_status check_or_set(tl__tmap *cfg, tl__arena *a, const char *name, const char *value) {
  tl__tval *v = tl__tmap_get(cfg, name);
  if (!v) return tl__tmap_set(cfg, a, name, tl__tv_str(value));
  if (v->type != TL__TV_STR || strcmp(v->v.s, value) != 0)
    return tl__error(TL_EINVAL, "Expects \"%s\" to be \"%s\", but gets: %s", name, value,
                     v->type == TL__TV_STR ? v->v.s : tl__tv_type_key(v));
  return TL_OK;
}

/* A present string attribute, or NULL. */
static const char *get_str(const tl__tmap *cfg, const char *name) {
  const tl__tval *v = tl__tmap_get(cfg, name);
  return v && v->type == TL__TV_STR ? v->v.s : NULL;
}

tl_status tl__canon_cuda(tl__tmap *cfg, tl__arena *a) {
  (void)a;
  const char *arch = get_str(cfg, "arch");
  if (arch && strncmp(arch, "sm_", 3) != 0)
    return tl__error(TL_EINVAL, "CUDA target gets an invalid CUDA arch: -arch=%s", arch);
  return TL_OK;
}

tl_status tl__canon_nvptx(tl__tmap *cfg, tl__arena *a) {
  TL__TRY(check_or_set(cfg, a, "mtriple", "nvptx64-nvidia-cuda"));
  const char *mcpu = get_str(cfg, "mcpu");
  if (mcpu && strncmp(mcpu, "sm_", 3) != 0)
    return tl__error(TL_EINVAL, "NVPTX target gets an invalid CUDA arch: -mcpu=%s", mcpu);
  return TL_OK;
}

/* For both rocm and hip. A missing mcpu becomes gfx900, TVM's value when no
 * tvm_callback_rocm_get_arch is registered; mattr is left alone (TVM assumes ROCm
 * >= 3.5 when it cannot detect one). */
tl_status tl__canon_rocm(tl__tmap *cfg, tl__arena *a) {
  TL__TRY(check_or_set(cfg, a, "mtriple", "amdgcn-amd-amdhsa-hcc"));
  const char *mcpu = get_str(cfg, "mcpu");
  if (!mcpu) return tl__tmap_set(cfg, a, "mcpu", tl__tv_str("gfx900"));
  /* ExtractStringWithPrefix(mcpu, "gfx") must find at least one alphanumeric. */
  if (strncmp(mcpu, "gfx", 3) != 0 || !isalnum((unsigned char)mcpu[3]))
    return tl__error(TL_EINVAL, "ROCm target gets an invalid GFX version: -mcpu=%s", mcpu);
  return TL_OK;
}

tl_status tl__canon_webgpu(tl__tmap *cfg, tl__arena *a) {
  const tl__tval *sg = tl__tmap_get(cfg, "supports_subgroups");
  bool subgroups = sg && sg->type == TL__TV_BOOL && sg->v.b;
  const tl__tval *ws = tl__tmap_get(cfg, "thread_warp_size");
  if (ws && ws->type == TL__TV_INT && !subgroups && ws->v.i > 1)
    return tl__error(TL_EINVAL, "WebGPU target with thread_warp_size=%lld requires supports_subgroups=true",
                     (long long)ws->v.i);
  if (subgroups) return tl__tmap_set(cfg, a, "thread_warp_size", tl__tv_int(32));
  return TL_OK;
}

const char *tl__target_default_triple(void) {
#if defined(__linux__) && defined(__x86_64__)
  return "x86_64-unknown-linux-gnu";
#elif defined(__linux__) && defined(__aarch64__)
  return "aarch64-unknown-linux-gnu";
#elif defined(__linux__) && defined(__riscv) && __riscv_xlen == 64
  return "riscv64-unknown-linux-gnu";
#elif defined(__linux__) && defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
  return "powerpc64le-unknown-linux-gnu";
#else
  return "";
#endif
}

/* LLVM's canonicalizer for kind llvm: no mtriple and no mcpu means the default
 * triple. Its Arm feature.* additions are out of TileLang's scope. */
tl_status tl__canon_llvm(tl__tmap *cfg, tl__arena *a) {
  if (tl__tmap_get(cfg, "mtriple") || tl__tmap_get(cfg, "mcpu")) return TL_OK;
  return tl__tmap_set(cfg, a, "mtriple", tl__tv_str(tl__target_default_triple()));
}
