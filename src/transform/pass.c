/* Running a list of passes under the session's instrumentation (pass.h). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "transform/pass.h"
#include "transform/session.h"

tl_status tl__pass_error(tl_status s, tl_ir_span span, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (span.line == 0) return tl__error(s, "%s", msg);
  return tl__error(s, "%s:%u:%u: %s", span.file ? span.file : "<unknown>", (unsigned)span.line, (unsigned)span.col,
                   msg);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool config_on(const char *key) {
  const char *v = tl__session_config(key);
  return v && (tl__str_eq(v, "1") || tl__str_eq_nocase(v, "true") || tl__str_eq_nocase(v, "yes") ||
               tl__str_eq_nocase(v, "on"));
}

static FILE *log_of(const tl__session *s) { return s && s->log ? s->log : stderr; }

/* "# IR after pass 'NAME'" and the module, to the session's log. */
static tl_status print_after(const tl__session *s, const tl_ir_module *mod, const char *name) {
  char *text = tl_ir_print_module(mod);
  if (!text) return TL_ENOMEM;
  FILE *log = log_of(s);
  fprintf(log, "# IR after pass '%s'\n%s", name, text);
  if (!tl__str_ends_with(text, "\n")) fputc('\n', log);
  tl_free(text);
  return TL_OK;
}

static void trace_line(const tl__session *s, size_t i, size_t n, const char *name, double ms, tl_status st) {
  fprintf(log_of(s), "[TL_LOWER_TRACE] kernel=%s backend=%s pass %zu/%zu %s: %.3f ms%s%s\n",
          s->kernel_name ? s->kernel_name : "?", s->backend_name ? s->backend_name : "?", i + 1, n, name, ms,
          st == TL_OK ? "" : " FAILED: ", st == TL_OK ? "" : tl_last_error());
}

static tl_status run_one(tl_ir_module *mod, const tl_target *target, const tl__pass *p, size_t i, size_t n) {
  tl__session *s = tl__session_current();
  double t0 = now_ms();
  tl_status st = p->fn(mod, target);
  double ms = now_ms() - t0;
  if (st != TL_OK) tl__error_context(st, "pass '%s': ", p->name);
  if (s && s->trace) trace_line(s, i, n, p->name, ms, st);
  if (st != TL_OK) return st;
  if (s && s->time_passes) {
    tl__pass_timing t = {p->name, ms};
    TL__TRY(tl__vec_push(&s->timings, &t));
  }
  if (config_on("tl.verify_after_each_pass")) {
    tl_status v = tl_ir_verify_module(mod);
    if (v != TL_OK) return tl__error_context(TL_EINTERNAL, "pass '%s' left invalid IR: ", p->name);
  }
  if (s) {
    tl__sb_appendf(&s->passes_run, "%s%s", s->passes_run.len ? ", " : "", p->name);
    if (tl__str_eq(s->print_after, p->name)) s->print_after_matched = true;
  }
  if (s && (s->print_after_all || tl__str_eq(s->print_after, p->name))) TL__TRY(print_after(s, mod, p->name));
  return TL_OK;
}

tl_status tl__run_passes(tl_ir_module *mod, const tl_target *target, const tl__pass *passes, size_t n) {
  if (!mod) return tl__error(TL_EINVAL, "tl__run_passes: module is NULL");
  for (size_t i = 0; i < n; i++) TL__TRY(run_one(mod, target, &passes[i], i, n));
  return TL_OK;
}
