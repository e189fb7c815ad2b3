/* Finding and running nvcc (nvcc_tool.h). */
#include "runtime/nvcc_tool.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/str.h"
#include "runtime/spawn.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_found;
static char g_path[600];
static char g_version[256];
static char g_reason[768];

/* dir/nvcc into g_path when it is executable. */
static bool try_dir(const char *dir, size_t len) {
  if (len == 0 || len + 6 >= sizeof g_path) return false;
  snprintf(g_path, sizeof g_path, "%.*s/nvcc", (int)len, dir);
  return access(g_path, X_OK) == 0;
}

static bool search(void) {
  const char *path = tl__env("PATH");
  for (const char *p = path; p && *p;) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len && p[0] == '/' && try_dir(p, len)) return true;
    p = colon ? colon + 1 : p + len;
  }
  static const char *const vars[] = {"CUDA_HOME", "CUDA_PATH", NULL};
  for (size_t i = 0; vars[i]; i++) {
    const char *v = tl__env(vars[i]);
    char dir[560];
    if (v && *v && strlen(v) + 5 < sizeof dir) {
      snprintf(dir, sizeof dir, "%s/bin", v);
      if (try_dir(dir, strlen(dir))) return true;
    }
  }
  return try_dir("/usr/local/cuda/bin", strlen("/usr/local/cuda/bin"));
}

/* "Cuda compilation tools, release 13.0, V13.0.88 / Build cuda_13.0...": the
 * lines of `nvcc --version` that name the release and the build. */
static void version_text(const char *out) {
  tl__sb sb = TL__SB_INIT;
  for (const char *line = out; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if ((len >= 4 && strstr(line, "release") && strstr(line, "release") < line + len) ||
        (len >= 5 && strncmp(line, "Build", 5) == 0))
      tl__sb_appendf(&sb, "%s%.*s", sb.len ? " / " : "", (int)len, line);
    line = end ? end + 1 : NULL;
  }
  snprintf(g_version, sizeof g_version, "%s", sb.len ? tl__sb_str(&sb) : "unknown nvcc version");
  tl__sb_free(&sb);
}

static void find_once(void) {
  if (!search()) {
    snprintf(g_reason, sizeof g_reason,
             "nvcc not found on PATH, in $CUDA_HOME/bin, $CUDA_PATH/bin or /usr/local/cuda/bin; install the CUDA "
             "toolkit or put its bin directory on PATH");
    return;
  }
  char *argv[] = {g_path, "--version", NULL};
  char *out = NULL;
  int status = -1;
  tl_status s = tl__spawn_capture(argv, &out, &status);
  if (s != TL_OK || status != 0) {
    snprintf(g_reason, sizeof g_reason, "%s does not run (%s)", g_path,
             s != TL_OK ? tl_last_error() : "`nvcc --version` failed");
    tl__free(out);
    tl__error_clear();
    return;
  }
  version_text(out);
  tl__free(out);
  g_found = true;
}

tl_status tl__nvcc_find(const char **path, const char **version) {
  pthread_once(&g_once, find_once);
  if (!g_found) return tl__error(TL_EUNAVAILABLE, "%s", g_reason);
  *path = g_path;
  *version = g_version;
  return TL_OK;
}

bool tl__nvcc_available(void) {
  pthread_once(&g_once, find_once);
  return g_found;
}

const char *tl__nvcc_unavailable_reason(void) {
  pthread_once(&g_once, find_once);
  return g_found ? NULL : g_reason;
}

tl_status tl__nvcc_make_options(const char *arch, const char *const *codes, size_t ncodes, tl__nvcc_options *o) {
  memset(o, 0, sizeof *o);
  o->argv[o->n++] = "-O3";
  /* one IR operation, one rounding: no fused multiply-add */
  o->argv[o->n++] = "--fmad=false";
  o->argv[o->n++] = "-std=c++17";
  o->format = ncodes > 1 ? "fatbin" : "cubin";
  o->argv[o->n++] = ncodes > 1 ? "-fatbin" : "-cubin";
  if (ncodes == 0) {
    int n = snprintf(o->arch, sizeof o->arch, "-arch=%s", arch);
    if (n < 0 || (size_t)n >= sizeof o->arch) return tl__error(TL_EINVAL, "CUDA arch '%s' is too long", arch);
    o->argv[o->n++] = o->arch;
    return TL_OK;
  }
  /* compute_<X> for arch sm_<X> */
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "arch=compute_%s,code=", arch + 3);
  if (ncodes > 1) tl__sb_putc(&sb, '[');
  for (size_t i = 0; i < ncodes; i++) tl__sb_appendf(&sb, "%s%s", i ? "," : "", codes[i]);
  if (ncodes > 1) tl__sb_putc(&sb, ']');
  tl_status s = tl__sb_status(&sb);
  if (s == TL_OK && sb.len >= sizeof o->gencode) s = tl__error(TL_EINVAL, "CUDA target code list is too long");
  if (s == TL_OK) snprintf(o->gencode, sizeof o->gencode, "%s", tl__sb_str(&sb));
  tl__sb_free(&sb);
  if (s != TL_OK) return s;
  o->argv[o->n++] = "-gencode";
  o->argv[o->n++] = o->gencode;
  return TL_OK;
}

tl_status tl__nvcc_options_text(const tl__nvcc_options *o, char *buf, size_t cap) {
  size_t len = 0;
  if (cap) buf[0] = '\0';
  for (int i = 0; i < o->n; i++) {
    int n = len < cap ? snprintf(buf + len, cap - len, "%s%s", i ? " " : "", o->argv[i]) : -1;
    if (n < 0 || (size_t)n >= cap - len)
      return tl__error(TL_EINVAL, "the nvcc options do not fit in %zu bytes (at '%s')", cap, o->argv[i]);
    len += (size_t)n;
  }
  return TL_OK;
}

tl_status tl__nvcc_compile(const tl__nvcc_options *o, const char *src, const char *out) {
  const char *path, *version;
  TL__TRY(tl__nvcc_find(&path, &version));
  char *argv[sizeof o->argv / sizeof o->argv[0] + 6];
  int n = 0;
  argv[n++] = (char *)path;
  for (int i = 0; i < o->n; i++) argv[n++] = (char *)o->argv[i];
  argv[n++] = "-o";
  argv[n++] = (char *)out;
  argv[n++] = (char *)src;
  argv[n] = NULL;
  char *output = NULL;
  int status = -1;
  TL__TRY(tl__spawn_capture(argv, &output, &status));
  tl_status s = TL_OK;
  if (status != 0) {
    size_t len = strlen(output);
    while (len && (output[len - 1] == '\n' || output[len - 1] == '\r')) output[--len] = '\0';
    s = tl__error(TL_ECOMPILE, "nvcc failed (exit status %d) on %s:\n%s", status, src, output);
  }
  tl__free(output);
  return s;
}
