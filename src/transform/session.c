/* The compilation session (session.h): a thread-local pointer to per-compilation
 * settings, entered by the engine around lowering. */
#include <string.h>

#include "base/env.h"
#include "base/error.h"
#include "base/str.h"
#include "transform/session.h"

static _Thread_local tl__session *g_current;

void tl__session_init(tl__session *s) {
  memset(s, 0, sizeof *s);
  /* Upstream accepts 1, html, terminal and both: anything but an explicit "off". */
  const char *t = tl__env("TL_LOWER_TRACE");
  s->trace = t && *t && !tl__str_eq(t, "0") && !tl__str_eq_nocase(t, "false") && !tl__str_eq_nocase(t, "no") &&
             !tl__str_eq_nocase(t, "off");
  tl__vec_init(&s->timings, sizeof(tl__pass_timing));
  tl__sb_init(&s->passes_run);
}

void tl__session_free(tl__session *s) {
  if (!s) return;
  tl__vec_free(&s->timings);
  tl__sb_free(&s->passes_run);
}

tl_status tl__session_check_print_after(const tl__session *s) {
  if (!s->print_after || !*s->print_after || s->print_after_matched) return TL_OK;
  TL__TRY(tl__sb_status(&s->passes_run));
  return tl__error(TL_EINVAL, "--print-after: no pass named '%s' ran (the pipeline's passes: %s)", s->print_after,
                   s->passes_run.len ? tl__sb_str(&s->passes_run) : "none");
}

tl__session *tl__session_enter(tl__session *s) {
  tl__session *prev = g_current;
  g_current = s;
  return prev;
}

void tl__session_exit(tl__session *previous) { g_current = previous; }

tl__session *tl__session_current(void) { return g_current; }

const char *tl__session_config(const char *key) {
  const tl__session *s = g_current;
  if (!s || !s->pass_configs || !key) return NULL;
  size_t n = strlen(key);
  const char *found = NULL;
  /* The last setting of a key wins, as in a dict built from the list. */
  for (const char *const *c = s->pass_configs; *c; c++)
    if (strncmp(*c, key, n) == 0 && (*c)[n] == '=') found = *c + n + 1;
  return found;
}

void tl__session_report_timings(const tl__session *s) {
  if (!s || s->timings.len == 0) return;
  FILE *log = s->log ? s->log : stderr;
  double total = 0;
  for (size_t i = 0; i < s->timings.len; i++) total += TL__VEC_AT(&s->timings, tl__pass_timing, i).ms;
  fprintf(log, "pass timings for '%s'%s%s%s:\n", s->kernel_name ? s->kernel_name : "?",
          s->backend_name ? " (backend " : "", s->backend_name ? s->backend_name : "", s->backend_name ? ")" : "");
  for (size_t i = 0; i < s->timings.len; i++) {
    const tl__pass_timing *t = &TL__VEC_AT(&s->timings, tl__pass_timing, i);
    fprintf(log, "  %-24s %10.3f ms %6.1f%%\n", t->name, t->ms, total > 0 ? 100.0 * t->ms / total : 0.0);
  }
  fprintf(log, "  %-24s %10.3f ms\n", "total", total);
}
