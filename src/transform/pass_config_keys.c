/* The known pass config keys (see pass_config_keys.h): a table. */
#include "transform/pass_config_keys.h"

#include <string.h>

#include "base/error.h"

typedef struct key_info {
  const char *key;
  const char *honored; /* what this library does with it; NULL: accepted, no effect here */
} key_info;

static const key_info k_keys[] = {
  /* This library's own. */
  {"tl.verify_after_each_pass", "the IR is verified after every pass"},
  {"tl.cpu.num_threads", "the most threads of a CPU kernel's OpenMP team (c target; 1: none)"},
  /* Upstream TileLang's PassConfigKey. */
  {"tl.enable_fast_math", "fast math in CUDA code generation"},
  {"tl.Simplify", NULL},
  {"tl.disable_buffer_init_check", NULL},
  {"tl.disable_data_race_check", NULL},
  {"tl.disable_prelower_semantic_check", NULL},
  {"tl.disable_warp_specialized", NULL},
  {"tl.ptxas_register_usage_level", NULL},
  {"tl.enable_ptxas_verbose_output", NULL},
  {"tl.device_compile_flags", NULL},
  {"tl.emit_line_directives", NULL},
  {"tl.config_index_bitwidth", NULL},
  {"tl.enable_reducer_plan_verbose", NULL},
  {"tl.layout_cost_model", NULL},
  {"tl.reducer_force_baseline", NULL},
  {"tl.disable_tma_lower", NULL},
  {"tl.disable_safe_memory_legalize", NULL},
  {"tl.disable_vectorize_256", NULL},
  {"tl.enable_async_copy", NULL},
  {"tl.enable_async_copy_swizzle", NULL},
  {"tl.enable_lower_ldgstg", NULL},
  {"tl.enable_lower_ldgstg_predicated", NULL},
  {"tl.enable_vectorize_planner_verbose", NULL},
  {"tl.disable_wgmma", NULL},
  {"tl.debug_merge_shared_memory_allocations", NULL},
  {"tl.enable_aggressive_shared_memory_merge", NULL},
  {"tl.disable_shared_memory_reuse", NULL},
  {"tl.disable_shuffle_elect", NULL},
  {"tl.disable_loop_unswitching", NULL},
  {"tl.loop_unswitching_allow_non_trivial_else", NULL},
  {"tl.if_stmt_binding_inline_replayable_binds", NULL},
  {"tl.disable_thread_storage_sync", NULL},
  {"tl.force_let_inline", NULL},
  {"tl.ast_print_enable", NULL},
  {"tl.layout_visualization_enable", NULL},
  {"tl.layout_visualization_formats", NULL},
  {"tl.storage_rewrite_detect_inplace", NULL},
  {"tl.disable_out_of_bound_warning", NULL},
  {"tl.enable_dump_ir", NULL},
  {"tl.dump_ir_path", NULL},
  {"tl.pass_profile", NULL},
  {"tl.pass_profile_threshold_ms", NULL},
  {"tl.disable_dynamic_tail_split", NULL},
  {"tl.dynamic_alignment", NULL},
  {"tir.enable_equiv_terms_in_cse_tir", NULL},
  {"tirx.disable_cse_tir", NULL},
  {"tir.disable_cse_tir", NULL},
  {"tirx.Simplify", NULL},
  {"tir.Simplify", NULL},
  {"tirx.disable_storage_rewrite", NULL},
  {"tir.disable_storage_rewrite", NULL},
  {"tirx.disable_vectorize", NULL},
  {"tir.disable_vectorize", NULL},
  {"tirx.use_async_copy", NULL},
  {"tir.use_async_copy", NULL},
  {"tirx.enable_debug", NULL},
  {"tir.enable_debug", NULL},
  {"tirx.merge_static_smem", NULL},
  {"tir.merge_static_smem", NULL},
  {"tirx.add_lower_pass", NULL},
  {"tir.add_lower_pass", NULL},
  {"tirx.noalias", NULL},
  {"tir.noalias", NULL},
  {"cuda.kernels_output_dir", NULL},
};

bool tl__pass_config_known(const char *key, size_t len) {
  for (size_t i = 0; i < sizeof k_keys / sizeof *k_keys; i++)
    if (strlen(k_keys[i].key) == len && memcmp(k_keys[i].key, key, len) == 0) return true;
  return false;
}

/* Edit distance of a[0..n) and b, capped (small strings only). */
static size_t distance(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  if (n > 63 || m > 63) return 99;
  size_t row[64];
  for (size_t j = 0; j <= m; j++) row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

tl_status tl__pass_configs_check(const char *const *configs) {
  for (size_t i = 0; configs && configs[i]; i++) {
    const char *c = configs[i], *eq = strchr(c, '=');
    if (!eq || eq == c) return tl__error(TL_EINVAL, "pass config '%s' is not of the form key=value", c);
    size_t len = (size_t)(eq - c);
    if (tl__pass_config_known(c, len)) continue;
    const char *close = NULL;
    size_t best = 4;
    for (size_t k = 0; k < sizeof k_keys / sizeof *k_keys; k++) {
      size_t d = distance(c, len, k_keys[k].key);
      if (d < best) best = d, close = k_keys[k].key;
    }
    if (close) return tl__error(TL_EINVAL, "unknown pass config key '%.*s' (did you mean '%s'?)", (int)len, c, close);
    return tl__error(TL_EINVAL, "unknown pass config key '%.*s' (docs/engine.md lists the known keys)", (int)len, c);
  }
  return TL_OK;
}
