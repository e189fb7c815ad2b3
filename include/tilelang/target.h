/* tilelang/target.h - TVM-compatible targets, target tags, detection and normalization.
 *
 * A target is an immutable, refcounted value with the semantics of TVM's
 * tvm.target.Target: a kind (c, llvm, cuda, hip, rocm, metal, webgpu, opencl,
 * vulkan, nvptx), ordered keys, typed attributes, an optional tag and an optional
 * host target. Targets may be shared freely across threads.
 *
 * The JSON text of a target (tl_target_str, tl_target_export) is compact JSON with
 * "kind", "tag", "keys", then "host" (if any, as a nested object), then the
 * attributes in SCHEMA ORDER: the common options (device, model, libs,
 * target_device_type), then the kind's own options in declaration order, then any
 * other key a canonicalizer added (by name), then "feature.*" keys by name (maps
 * inside their values sorted by key too). TVM lists attributes in the iteration
 * order of a C++ unordered_map, which depends on the standard library; a
 * deterministic order is a deliberate difference, and it makes the text canonical:
 * equal targets have equal texts. Strings are escaped exactly as TVM escapes them
 * ('/' becomes "\/", control bytes become \u00xx). Parsing the text gives an equal
 * target. See docs/targets.md. */
#ifndef TILELANG_TARGET_H
#define TILELANG_TARGET_H

#include "tilelang/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_target tl_target;

/* Parses a target spec as current TVM accepts it:
 *   - a registered tag ("nvidia/nvidia-h100"): the tag's configuration, tag not recorded;
 *   - a JSON object ({"kind":"cuda","arch":"sm_90","keys":["cuda","gpu"],"host":"c"},
 *     or {"tag":"nvidia/nvidia-a100", ...overrides}, which records the tag);
 *   - a bare kind name ("cuda").
 * The legacy option form ("cuda -arch=sm_90", any string with a space) is rejected
 * as TVM rejects it; the message also shows the equivalent JSON. Unknown kind,
 * unknown option (the message lists the known ones), wrong attribute type, bad JSON
 * (with line and column), failed canonicalization: TL_EINVAL, worded as TVM words it,
 * ending in ". Target creation from string failed: <spec>".
 * Parsing never queries a device: a CUDA target without "arch" stays without one
 * (tl_determine_target normalizes a bare "cuda" to the detected GPU).
 * On success *out is a new reference (tl_target_release it). Thread-safe. */
TL_API tl_status tl_target_parse(const char *spec, tl_target **out);

/* Target(target, host): a new target equal to `t` with `host` as its host (an
 * existing host is replaced). host == NULL gives `t` without a host. On success
 * *out is a new reference. Thread-safe. */
TL_API tl_status tl_target_with_host(const tl_target *t, const tl_target *host, tl_target **out);

/* Adds a reference; returns t. NULL-safe. Thread-safe. */
TL_API tl_target *tl_target_retain(const tl_target *t);
/* Drops a reference; the last one frees the target. NULL-safe. Thread-safe. */
TL_API void tl_target_release(const tl_target *t);

/* The kind name ("cuda"). Borrowed, static. NULL for NULL. */
TL_API const char *tl_target_kind(const tl_target *t);
/* The recorded tag, "" if none. Borrowed from t. */
TL_API const char *tl_target_tag(const tl_target *t);
/* The compact JSON text (see the top of this header). Owned by t, rendered once at
 * construction; parses back to an equal target. */
TL_API const char *tl_target_str(const tl_target *t);
/* The same JSON text as a fresh string (tl_free it); NULL with TL_ENOMEM set. */
TL_API char *tl_target_export(const tl_target *t);
/* The JSON text indented by `indent` spaces per level (0: compact, as
 * tl_target_str), in tvm-ffi's indented layout. Fresh string (tl_free it), or NULL
 * with TL_ENOMEM set. */
TL_API char *tl_target_export_indent(const tl_target *t, int indent);
/* The host target, NULL if none. Borrowed from t. */
TL_API const tl_target *tl_target_host(const tl_target *t);
/* The DLPack device type: the "target_device_type" attribute if set, else the
 * kind's default (kDLCPU=1, kDLCUDA=2, kDLVulkan=7, kDLMetal=8, kDLROCM=10, ...). */
TL_API int tl_target_device_type(const tl_target *t);

/* Keys, in order (deduplicated). Borrowed from t. */
TL_API size_t tl_target_num_keys(const tl_target *t);
TL_API const char *tl_target_key(const tl_target *t, size_t i); /* NULL if out of range */
TL_API bool tl_target_has_key(const tl_target *t, const char *key);

/* Attributes, in the order of the JSON text. Names are borrowed from t. */
TL_API size_t tl_target_num_attrs(const tl_target *t);
TL_API const char *tl_target_attr_name(const tl_target *t, size_t i); /* NULL if out of range */
TL_API bool tl_target_has_attr(const tl_target *t, const char *name);
/* Attribute getters: false if the attribute is absent or of another type (an int
 * attribute is not a bool, nor the other way round). Strings are borrowed from t. */
TL_API bool tl_target_attr_str(const tl_target *t, const char *name, const char **out);
TL_API bool tl_target_attr_int(const tl_target *t, const char *name, int64_t *out);
TL_API bool tl_target_attr_bool(const tl_target *t, const char *name, bool *out);
/* An Array<str> attribute: fills out[0..min(n, cap)) and returns n, its length;
 * 0 if absent, empty or not an array of strings. */
TL_API size_t tl_target_attr_array(const tl_target *t, const char *name, const char **out, size_t cap);

/* Structural equality (as tvm.ir.structural_equal): kind, tag, keys (in order),
 * attributes (as a map) and host; computed on the canonical text, so a float -0.0
 * differs from 0.0. Two NULLs are equal. Thread-safe. */
TL_API bool tl_target_equal(const tl_target *a, const tl_target *b);
/* A hash consistent with tl_target_equal, stable across runs. 0 for NULL. */
TL_API uint64_t tl_target_hash(const tl_target *t);

/* ---- Kinds and tags (static tables; all thread-safe) ---- */

/* Kind names, in table order. Fills out[0..min(n, cap)), returns n. */
TL_API size_t tl_list_target_kinds(const char **out, size_t cap);

/* One option of a kind's schema. */
typedef struct tl_target_option_info {
  const char *name;          /* "thread_warp_size" */
  const char *type;          /* "int", "bool", "str", "Array<str>" or "target.Target" */
  const char *default_value; /* the default as JSON text ("32", "true"), NULL if none */
} tl_target_option_info;

/* A kind's options in declaration order: the common options first, then the kind's.
 * Fills out[0..min(n, cap)), returns n; 0 for an unknown kind. Strings are static. */
TL_API size_t tl_target_kind_options(const char *kind, tl_target_option_info *out, size_t cap);
/* A kind's default keys. Fills out[0..min(n, cap)), returns n; 0 if unknown. */
TL_API size_t tl_target_kind_default_keys(const char *kind, const char **out, size_t cap);
/* A kind's default DLPack device type; -1 for an unknown kind. */
TL_API int tl_target_kind_device_type(const char *kind);

/* Registered tag names, in table order. Fills out[0..min(n, cap)), returns n. */
TL_API size_t tl_list_target_tags(const char **out, size_t cap);
/* A tag's configuration as JSON text (static), NULL for an unknown tag. */
TL_API const char *tl_target_tag_config(const char *tag);

/* ---- Detection and normalization (upstream tilelang/backend/target.py) ---- */

/* A detector looks for an available target. It returns TL_OK with *out = a new
 * reference when it found one, TL_OK with *out = NULL when there is none here, or a
 * failure status (its message is recorded by tl_auto_detect_target). */
typedef tl_status (*tl_target_detect_fn)(void *user_data, tl_target **out);
/* A normalizer rewrites a target spec it owns: TL_OK with *out = a new reference,
 * or TL_OK with *out = NULL for "not mine". */
typedef tl_status (*tl_target_normalize_fn)(const char *spec, void *user_data, tl_target **out);

/* Registers a detector under `name`, after the existing ones. A name already
 * registered with the same fn and user_data is left as it is (TL_OK). A different
 * registration under a taken name fails with TL_EEXIST ("Target detector 'x' is
 * already registered") unless `override`, which replaces it in place (it keeps its
 * position). The caller keeps user_data alive. Thread-safe. */
TL_API tl_status tl_register_target_detector(const char *name, tl_target_detect_fn fn, void *user_data,
                                             bool override);
/* The same for normalizers ("Target normalizer 'x' is already registered"). */
TL_API tl_status tl_register_target_normalizer(const char *name, tl_target_normalize_fn fn, void *user_data,
                                               bool override);
/* Detector names in registration order (built-ins: cuda, then cpu). Fills
 * out[0..min(n, cap)), returns n. Names stay valid for the life of the process.
 * Thread-safe. */
TL_API size_t tl_list_target_detectors(const char **out, size_t cap);
/* Normalizer names in registration order (built-ins: cuda, then hip). */
TL_API size_t tl_list_target_normalizers(const char **out, size_t cap);

/* Runs the detectors in order; the first that finds a target wins, and the
 * normalizers then see its JSON text. None: TL_ENOTFOUND, "No registered target
 * detector found an available target. Tried: cuda: <why>, ...". Detectors run
 * without any lock held. *out is a new reference. Thread-safe. */
TL_API tl_status tl_auto_detect_target(tl_target **out);

/* Upstream determine_target, returning a target object:
 *   - NULL or "auto": the TILELANG_DEFAULT_TARGET environment variable if set (a
 *     target string, or a JSON object; a value that starts with '{' but is not JSON
 *     fails with "... Use JSON syntax like ..."), else tl_auto_detect_target;
 *   - anything else: the normalizers in order (the first that claims the spec
 *     wins; a bare "cuda" becomes the detected GPU's arch when there is one), else
 *     tl_target_parse of the spec. Failures keep TileLang's wording, e.g. "Target x
 *     is not supported. Pass target options as a dict when the target needs
 *     attributes." (TL_EINVAL), followed by the cause.
 * *out is a new reference. Thread-safe. */
TL_API tl_status tl_determine_target(const char *spec, tl_target **out);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_TARGET_H */
