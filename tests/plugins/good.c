/* A complete backend as a plugin: the manifest, its pipeline, codegens and execution
 * backend, declared through tilelang/plugin.h alone. It owns targets of kind nvptx
 * whose "model" is "tlp_good". A second init symbol (tlp_alt_init) registers one more
 * device codegen directly. Calls are counted so the tests can see each init run once. */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "tilelang/plugin.h"

TL_PLUGIN_ABI_VERSION_SYMBOL();

static const tl_plugin_host *g_host;
static atomic_int g_inits, g_alt_inits;

static bool is_mine(const tl_target *t, void *user_data) {
  const char *model = NULL;
  return g_host->target_attr_str(t, "model", &model) && strcmp(model, (const char *)user_data) == 0;
}

static tl_status lower(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)mod;
  (void)target;
  (void)user_data;
  return TL_OK;
}

static tl_status build(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out) {
  (void)mod;
  char text[256];
  strcpy(text, "// tlp_good device code for ");
  strncat(text, g_host->target_str(target), sizeof text - strlen(text) - 1);
  return g_host->artifact_create((const char *)user_data, text, out);
}

static tl_status host_build(tl_ir_module *mod, const tl_target *target_host, void *user_data, tl_artifact **out) {
  (void)mod;
  (void)target_host;
  (void)user_data;
  return g_host->artifact_create_binary("so", "// tlp_good host stub", "\x7f" "ELF", 4, out);
}

static tl_status count(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  ret->kind = TL_VALUE_INT;
  ret->v.i = atomic_load((atomic_int *)user_data);
  return TL_OK;
}

/* What this translation unit sees of the shared definitions, for the ABI test. */
static tl_status abi_info(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  (void)user_data;
  const uint64_t info[] = {
    sizeof(tl_value), sizeof(tl_pass_pipeline), sizeof(tl_device_codegen), sizeof(tl_host_codegen),
    sizeof(tl_host_codegen_hook), sizeof(tl_execution_backend_spec), sizeof(tl_backend_module),
    sizeof(tl_plugin_host), offsetof(tl_backend_module, callbacks), offsetof(tl_plugin_host, artifact_binary),
    TL_OK, TL_EINVAL, TL_ENOTFOUND, TL_EEXIST, TL_EUNAVAILABLE, TL_EUNSUPPORTED, TL_ECOMPILE, TL_ERUNTIME, TL_EIO,
    TL_ENOMEM, TL_EINTERNAL, TL_VALUE_NONE, TL_VALUE_TENSOR, TL_PLUGIN_ABI_VERSION,
  };
  return g_host->value_set_bytes(ret, info, sizeof info);
}

static const tl_pass_pipeline pipeline = {"nvptx", lower, NULL};
static const tl_device_codegen device = {"tlp_good", {build, "ptx"}, {build, "ptx-text"}, NULL, NULL};
static const tl_device_codegen alt_device = {"tlp_alt", {build, "alt"}, {NULL, NULL}, is_mine, "tlp_alt"};
static const tl_host_codegen host = {"tlp_good_host", host_build, NULL, NULL, NULL};
static const tl_execution_backend_spec source = {"tlp_source", NULL, NULL, NULL, true, false, NULL};

static const char *const kinds[] = {"nvptx", NULL};
static const tl_pipeline_entry pipelines[] = {{"nvptx", &pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry devices[] = {{"nvptx", &device}, {NULL, NULL}};
static const tl_host_codegen_entry hosts[] = {{"c", &host}, {NULL, NULL}};
static const tl_execution_backend_spec *const specs[] = {&source, NULL};
static const tl_callback_entry callbacks[] = {
  {"tlp_good.init_count", count, &g_inits},
  {"tlp_good.alt_init_count", count, &g_alt_inits},
  {"tlp_good.abi_info", abi_info, NULL},
  {NULL, NULL, NULL},
};

static const tl_backend_module backend = {
  sizeof(tl_backend_module), "tlp_good", kinds, pipelines, devices, specs, is_mine, "tlp_good", hosts, NULL, callbacks,
};

/* Widens the window in which racing threads could run an init twice. */
static void pause_a_little(void) {
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
}

TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host_table);
TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host_table) {
  atomic_fetch_add(&g_inits, 1);
  if (!TL_PLUGIN_HOST_HAS(host_table, artifact_binary)) return TL_EUNAVAILABLE;
  g_host = host_table;
  pause_a_little();
  return host_table->register_backend(&backend, NULL);
}

TL_PLUGIN_EXPORT tl_status tlp_alt_init(const tl_plugin_host *host_table);
TL_PLUGIN_EXPORT tl_status tlp_alt_init(const tl_plugin_host *host_table) {
  atomic_fetch_add(&g_alt_inits, 1);
  g_host = host_table;
  tl_status s = host_table->register_global_func("tlp_good.alt_init_count", count, &g_alt_inits, true);
  if (s != TL_OK) return s;
  return host_table->register_device_codegen("nvptx", &alt_device, false);
}
