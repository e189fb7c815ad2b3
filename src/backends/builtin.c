/* The compiled-in components, registered on first use of any registry: this file
 * installs their registration in src/base/init.c (tl__builtins_install below). Each entry registers one backend's pieces; registrations are
 * idempotent, so a retry after a failure is safe. Order matters where upstream's
 * does: target detectors run in registration order (cuda before cpu).
 *
 * After the built-ins, the plugins named by TL_PLUGIN_PATH are imported. If one
 * fails (missing file, missing symbol, ABI mismatch, failing init), the call that
 * triggered the registration fails with that reason and nothing is marked done: the
 * next registry call tries again (plugins already imported are not imported twice). */
#include "backend/plugin_loader.h"
#include "backends/cpu/backend.h"
#include "backends/cpu/target.h"
#include "backends/cuda/backend.h"
#include "backends/cuda/target.h"
#include "backends/lazy_plugins.h"
#include "backends/metal/backend.h"
#include "backends/plugin_services.h"
#include "backends/rocm/backend.h"
#include "backends/rocm/target.h"
#include "backends/webgpu/backend.h"
#include "base/error.h"
#include "base/init.h"
#include "codegen/codegen.h"
#include "codegen/gpu_dialects.h"
#include "runtime/exec_impls.h"

typedef tl_status (*tl__builtin_init_fn)(void);

static const struct {
  const char *name;
  tl__builtin_init_fn init;
} builtins[] = {
  /* Shared pieces backends name: code generators (global functions) and execution
   * backend implementations. */
  {"codegen", tl__codegen_register_builtins},
  {"runtime", tl__runtime_register_builtins},
  /* The plugin host table's services (lowering, code generation, runtimes), before
   * anything can import a plugin through the registries. */
  {"plugin services", tl__plugin_services_init},
  /* Target detectors run in this order (cuda, then cpu); normalizers: cuda, hip. */
  {"cuda", tl__cuda_target_init},
  {"rocm", tl__rocm_target_init},
  {"cpu", tl__cpu_target_init},
  /* Backend manifests. */
  {"cpu backend", tl__cpu_backend_init},
  {"cuda backend", tl__cuda_backend_init},
  {"rocm backend", tl__rocm_backend_init},
  {"metal backend", tl__metal_backend_init},
  {"webgpu backend", tl__webgpu_backend_init},
  /* The opencl backend is a plugin of its own (src/backends/opencl/), registered
   * lazily: its library is loaded on the first use of the kind. */
  {"lazy plugins", tl__lazy_plugins_init},
  {NULL, NULL}, /* sentinel */
};

static tl_status register_builtins(void) {
  for (size_t i = 0; builtins[i].name; i++) {
    tl_status s = builtins[i].init();
    if (s != TL_OK) return tl__error_context(s, "while registering built-in '%s': ", builtins[i].name);
  }
  return tl__plugin_load_env();
}

/* Runs before main (or when the shared library is loaded), so the first registry
 * call of any program registers the built-ins, as when base called them by name.
 * Only the registration is installed here; it runs lazily, on first use. A static
 * archive member nothing refers to is not linked: users of the static library link
 * with --undefined=tl__builtins_install (CMakeLists.txt: the static target's
 * interface link options, the pkg-config file's Libs.private). */
void tl__builtins_install(void);
__attribute__((constructor)) void tl__builtins_install(void) {
  tl__install_builtins_registration(register_builtins);
}
