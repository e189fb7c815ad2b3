/* The `native` execution backend: the system C compiler and dlopen.
 *
 * build writes device and host code as one translation unit `kernel.c` and runs
 * `$CC` (else `cc`; words split on blanks, no shell) with
 * `-O3 -fPIC -shared -fwrapv -ffp-contract=off -fno-trapping-math -march=native [-fopenmp]` (the
 * target's mcpu/mattr choose the instruction set instead: native_isa.c) into
 * `kernel.so`; load dlopens it
 * (RTLD_LOCAL | RTLD_NOW) and looks up the host entry. The compiler is examined once
 * per process: its `--version` first line and the flags are the identity that keys
 * the kernel cache, and a small probe decides whether it has OpenMP (generated code
 * uses OpenMP only through TL_OMP, which expands to nothing without it). What the
 * runs found is remembered on disk (cc_memo.h), keyed by the compiler's files, so a
 * later process runs no compiler until it has to build. */
#include "runtime/exec_impls.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/dl_fd.h"
#include "base/error.h"
#include "base/files.h"
#include "base/str.h"
#include "runtime/cc_memo.h"
#include "runtime/native_isa.h"
#include "runtime/spawn.h"

/* What is known about the compiler, found once (a failure to allocate is retried). */
typedef struct compiler {
  bool done;
  bool available;
  char *reason;   /* why not available */
  char **argv;    /* $CC split into words, NULL-terminated */
  char *version;  /* the first line of `$CC --version` */
  bool openmp;    /* valid once identity is set */
  char *native;   /* what -march=native expands to; valid once identity is set */
  bool known;     /* openmp and native came from the memo (cc_memo.h) */
  char memo_key[33];
  char *identity; /* "<version>|<flags>|cc=<words>|native=<features>", made on first use */
  char *identity_host_cpu; /* identity + " -march=native|cpu=<fingerprint>": -march=native builds */
} compiler;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static compiler g_cc;

/* -fwrapv and -ffp-contract=off keep lowered code's meaning (docs/lowering.md):
 * integer arithmetic wraps, and one IR operation is one rounding (no FMA fusion),
 * so compiled kernels give the interpreter's results bit for bit.
 * -fno-trapping-math changes no result (kernels never read the floating-point
 * exception flags); it lets the vectorizer turn float comparisons into selects. */
static const char *const k_flags[] = {"-O3",    "-fPIC", "-shared", "-fwrapv", "-ffp-contract=off",
                                      "-fno-trapping-math", NULL};
/* The instruction set comes from the target (native_isa.c): -march=native unless
 * it names an mcpu; the flags of the target are part of the cache key. */
static const char *const k_host_isa[] = {"-march=native", NULL};

static void free_argv(char **argv) {
  for (size_t i = 0; argv && argv[i]; i++) tl__free(argv[i]);
  tl__free(argv);
}

/* $CC (or "cc") split on blanks. */
static tl_status split_cc(char ***out) {
  const char *cc = tl__env("CC");
  if (!cc || !*cc) cc = "cc";
  size_t cap = 8, n = 0;
  char **argv = tl__calloc(cap, sizeof *argv);
  if (!argv) return tl__oom();
  for (const char *p = cc; *p;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) break;
    const char *w = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    if (n + 2 > cap) {
      char **grown = tl__realloc(argv, 2 * cap * sizeof *argv);
      if (!grown) {
        free_argv(argv);
        return tl__oom();
      }
      argv = grown;
      cap *= 2;
    }
    argv[n] = tl__strndup(w, (size_t)(p - w));
    argv[++n] = NULL;
    if (!argv[n - 1]) {
      free_argv(argv);
      return tl__oom();
    }
  }
  if (n == 0) {
    tl__free(argv);
    return tl__error(TL_EUNAVAILABLE, "CC is blank");
  }
  *out = argv;
  return TL_OK;
}

/* argv of the compiler followed by the NULL-terminated `extra`; a fresh array of
 * borrowed strings (tl__free the array only). */
static char **compose(char **cc, const char *const *extra) {
  size_t n = 0, m = 0;
  while (cc[n]) n++;
  while (extra[m]) m++;
  char **argv = tl__calloc(n + m + 1, sizeof *argv);
  if (!argv) {
    tl__oom();
    return NULL;
  }
  for (size_t i = 0; i < n; i++) argv[i] = cc[i];
  for (size_t i = 0; i < m; i++) argv[n + i] = (char *)extra[i];
  return argv;
}

/* Runs the compiler with extra arguments; TL_OK only if it exited with 0. */
static tl_status run_cc(char **cc, const char *const *extra, char **output, int *status) {
  char **argv = compose(cc, extra);
  if (!argv) return tl__oom();
  tl_status s = tl__spawn_capture(argv, output, status);
  tl__free(argv);
  return s;
}

/* A fresh scratch directory for a probe: under TMPDIR, else /tmp. NULL when
 * neither can be written (message set). */
static char *probe_dir(void) {
  const char *tmp = tl__env("TMPDIR");
  const char *places[] = {tmp && *tmp ? tmp : "/tmp", "/tmp"};
  for (size_t i = 0; i < 2; i++) {
    char *dir = tl__format("%s/tl-openmp-XXXXXX", places[i]);
    if (!dir) return NULL;
    if (mkdtemp(dir)) return dir;
    tl__error(TL_EUNAVAILABLE, "cannot examine the C compiler: no writable temporary directory (TMPDIR='%s'): %s",
              tmp ? tmp : "", strerror(errno));
    tl__free(dir);
  }
  return NULL;
}

/* Whether `cc -fopenmp` builds a shared object with a parallel loop: 1 or 0; -1
 * when it cannot be tried (no scratch directory: the message says so), which must
 * not pass for "no OpenMP" (that would change the cache key silently). */
static int probe_openmp(char **cc) {
  char *dir = probe_dir();
  if (!dir) return -1;
  bool ok = false;
  char *src = tl__path_join(dir, "probe.c"), *so = tl__path_join(dir, "probe.so");
  static const char text[] =
    "int tl_probe(int n) {\n  int s = 0;\n#pragma omp parallel for reduction(+ : s)\n"
    "  for (int i = 0; i < n; ++i) s += i;\n  return s;\n}\n";
  if (src && so && tl__file_write(src, text, sizeof text - 1) == TL_OK) {
    const char *extra[] = {"-fPIC", "-shared", "-fopenmp", "-o", so, src, NULL};
    char *out = NULL;
    int status = -1;
    ok = run_cc(cc, extra, &out, &status) == TL_OK && status == 0;
    tl__free(out);
  }
  if (src) unlink(src);
  if (so) unlink(so);
  rmdir(dir);
  tl__free(src);
  tl__free(so);
  tl__free(dir);
  tl__error_clear();
  return ok;
}

/* The options -march=native expands to, as the driver passes them on (`-###`):
 * GCC's -march=/-mtune=/-m<feature> and Clang's -target-cpu/-target-feature values,
 * in the driver's order. "" when the driver shows none. */
static char *probe_native(char **cc) {
  const char *extra[] = {"-march=native", "-###", "-E", "-x", "c", "/dev/null", NULL};
  char *out = NULL;
  int status = -1;
  tl_status s = run_cc(cc, extra, &out, &status);
  tl__sb sb = TL__SB_INIT;
  bool take_next = false;
  for (char *p = s == TL_OK ? out : NULL; p && *p;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) break;
    char *w = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    size_t n = (size_t)(p - w);
    if (n >= 2 && w[0] == '"' && w[n - 1] == '"') w++, n -= 2;
    bool keep = take_next || (n > 2 && w[0] == '-' && w[1] == 'm' && strncmp(w, "-mllvm", 6) != 0);
    take_next = (n == 11 && strncmp(w, "-target-cpu", 11) == 0) || (n == 15 && strncmp(w, "-target-feature", 15) == 0);
    if (keep) {
      if (sb.len) tl__sb_putc(&sb, ' ');
      tl__sb_appendn(&sb, w, n);
    }
  }
  tl__free(out);
  tl__error_clear();
  if (!sb.len) tl__sb_append(&sb, "");
  return tl__sb_finish(&sb);
}

/* Records that there is no usable compiler (reason: a fresh string, or NULL after a
 * failed allocation, in which case detection is tried again next time). */
static void set_unavailable(char *reason) {
  g_cc.available = false;
  g_cc.reason = reason;
  g_cc.done = reason != NULL;
}

/* Examines the compiler (once). Caller holds g_lock. */
static tl_status detect_locked(void) {
  if (g_cc.done) return TL_OK;
  char **cc = NULL;
  tl_status s = split_cc(&cc);
  if (s == TL_ENOMEM) return s;
  if (s != TL_OK) {
    set_unavailable(tl__format("no C compiler: %s", tl_last_error()));
    return g_cc.done ? TL_OK : tl__oom();
  }
  /* What an earlier process learned about this very compiler: no need to run it. */
  tl__cc_facts facts;
  s = tl__cc_memo_key(cc, g_cc.memo_key);
  if (s == TL_ENOMEM) {
    free_argv(cc);
    return s;
  }
  if (tl__cc_memo_load(g_cc.memo_key, &facts)) {
    g_cc.version = facts.version;
    g_cc.native = facts.native;
    g_cc.openmp = facts.openmp;
    g_cc.known = true;
    g_cc.argv = cc;
    g_cc.available = true;
    g_cc.done = true;
    return TL_OK;
  }
  const char *version_arg[] = {"--version", NULL};
  char *out = NULL;
  int status = -1;
  s = run_cc(cc, version_arg, &out, &status);
  if (s == TL_ENOMEM) {
    free_argv(cc);
    return s;
  }
  if (s != TL_OK || status != 0) {
    set_unavailable(tl__format("no C compiler found (CC='%s'): %s", cc[0],
                               s != TL_OK ? tl_last_error() : "`--version` failed"));
    tl__free(out);
    free_argv(cc);
    return g_cc.done ? TL_OK : tl__oom();
  }
  size_t line = strcspn(out, "\r\n");
  out[line] = '\0';
  g_cc.version = out;
  g_cc.argv = cc;
  g_cc.available = true;
  g_cc.done = true;
  return TL_OK;
}

/* Probes OpenMP (once, on the first build: it compiles a small library) and makes
 * the identity. Caller holds g_lock; the compiler is available. */
static tl_status finish_locked(void) {
  if (g_cc.identity) return TL_OK;
  if (!g_cc.known) {
    int openmp = probe_openmp(g_cc.argv);
    if (openmp < 0) return TL_EUNAVAILABLE;
    char *native = probe_native(g_cc.argv);
    if (!native) return tl__oom();
    tl__free(g_cc.native);
    g_cc.native = native;
    g_cc.openmp = openmp == 1;
    g_cc.known = true;
    tl__cc_facts facts = {g_cc.version, g_cc.openmp, g_cc.native};
    tl__cc_memo_store(g_cc.memo_key, &facts);
  }
  /* Everything that changes the code: the compiler's version, every word of $CC
   * (`gcc -m32` is another compiler), the flags, and the CPU -march=native means. */
  tl__sb id = TL__SB_INIT;
  tl__sb_append(&id, g_cc.version);
  tl__sb_putc(&id, '|');
  for (size_t i = 0; k_flags[i]; i++) tl__sb_appendf(&id, "%s%s", i ? " " : "", k_flags[i]);
  if (g_cc.openmp) tl__sb_append(&id, " -fopenmp");
  tl__sb_append(&id, "|cc=");
  for (size_t i = 0; g_cc.argv[i]; i++) tl__sb_appendf(&id, "%zu:%s;", strlen(g_cc.argv[i]), g_cc.argv[i]);
  tl__sb_appendf(&id, "|native=%s", g_cc.native);
  char *identity = tl__sb_finish(&id), *cpu = identity ? tl__native_host_cpu() : NULL;
  char *with_cpu = identity && cpu ? tl__format("%s -march=native|cpu=%s", identity, cpu) : NULL;
  tl__free(cpu);
  if (!with_cpu) {
    tl__free(identity);
    return tl__oom();
  }
  g_cc.identity = identity;
  g_cc.identity_host_cpu = with_cpu;
  return TL_OK;
}

/* The examined compiler (with its identity and OpenMP support when `full`), or
 * TL_EUNAVAILABLE with the reason. */
static tl_status get_compiler_ex(bool full, const compiler **out) {
  pthread_mutex_lock(&g_lock);
  tl_status s = detect_locked();
  if (s == TL_OK && full && g_cc.available) s = finish_locked();
  pthread_mutex_unlock(&g_lock);
  if (s != TL_OK) return s;
  if (!g_cc.available) return tl__error(TL_EUNAVAILABLE, "%s", g_cc.reason);
  *out = &g_cc;
  return TL_OK;
}

static tl_status get_compiler(const compiler **out) { return get_compiler_ex(true, out); }

bool tl__native_available(void) {
  const compiler *cc;
  return get_compiler_ex(false, &cc) == TL_OK;
}

const char *tl__native_unavailable_reason(void) {
  const compiler *cc;
  if (get_compiler_ex(false, &cc) == TL_OK) return NULL;
  return g_cc.done ? g_cc.reason : "out of memory while looking for a C compiler";
}

bool tl__native_has_openmp(void) {
  const compiler *cc;
  return get_compiler(&cc) == TL_OK && cc->openmp;
}

/* A build for the host's own instruction set (no mcpu) is keyed on the host CPU. */
static const char *native_identity(const tl__build_request *req) {
  const compiler *cc;
  const char *mcpu = NULL;
  bool portable = req && req->target &&
                  (tl_target_attr_str(req->target, "march", &mcpu) || tl_target_attr_str(req->target, "mcpu", &mcpu)) &&
                  mcpu && *mcpu && strcmp(mcpu, "native") != 0;
  return get_compiler(&cc) == TL_OK ? (portable ? cc->identity : cc->identity_host_cpu) : NULL;
}

/* ------------------------------------------------------------------- build */

/* Writes device + host code as one translation unit. */
tl_status tl__write_translation_unit(const tl__build_request *req, const char *path) {
  const char *device = req->device ? tl_artifact_source(req->device) : "";
  const char *host = req->host ? tl_artifact_source(req->host) : "";
  const char *parts[] = {device, *device && *host ? "\n" : "", host, NULL};
  return tl__file_write_parts(path, parts);
}

/* Compiles with the instruction-set flags `isa` (NULL-terminated; NULL: none). */
static tl_status compile_shared(const char *src, const char *so, bool openmp, const char *const *isa,
                                const char *const *libs) {
  const compiler *cc;
  TL__TRY(get_compiler(&cc));
  size_t nlibs = 0, nisa = 0;
  while (libs && libs[nlibs]) nlibs++;
  while (isa && isa[nisa]) nisa++;
  const char **extra = tl__calloc(sizeof k_flags / sizeof k_flags[0] + nisa + nlibs + 6, sizeof *extra);
  if (!extra) return tl__oom();
  size_t n = 0;
  for (size_t i = 0; k_flags[i]; i++) extra[n++] = k_flags[i];
  for (size_t i = 0; i < nisa; i++) extra[n++] = isa[i];
  if (openmp && cc->openmp) extra[n++] = "-fopenmp";
  extra[n++] = "-o";
  extra[n++] = so;
  extra[n++] = src;
  extra[n++] = "-lm";
  for (size_t i = 0; i < nlibs; i++) extra[n++] = libs[i];
  extra[n] = NULL;
  char *out = NULL;
  int status = -1;
  tl_status s = run_cc(cc->argv, extra, &out, &status);
  if (s == TL_OK && status != 0) {
    size_t len = out ? strlen(out) : 0;
    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == '\r')) out[--len] = '\0';
    s = tl__error(TL_ECOMPILE, "C compiler '%s' failed (exit status %d) on %s:\n%s", cc->argv[0], status, src,
                  out ? out : "");
  }
  tl__free(out);
  tl__free(extra);
  return s;
}

tl_status tl__native_compile_shared(const char *src, const char *so, bool openmp, bool portable,
                                    const char *const *libs) {
  return compile_shared(src, so, openmp, portable ? NULL : k_host_isa, libs);
}

const char *tl__native_compiler_version(void) {
  const compiler *cc;
  return get_compiler_ex(false, &cc) == TL_OK ? cc->version : NULL;
}

static tl_status native_build(const tl__build_request *req, const char *dir) {
  if (!req->host)
    return tl__error(TL_EINVAL, "execution backend 'native' needs host code (the backend's spec must enable host codegen)");
  char **isa = NULL;
  TL__TRY(tl__native_isa_flags(req->target, &isa));
  char *src = tl__path_join(dir, "kernel.c"), *so = tl__path_join(dir, "kernel.so");
  tl_status s = src && so ? tl__write_translation_unit(req, src) : tl__oom();
  if (s == TL_OK) s = compile_shared(src, so, true, (const char *const *)isa, NULL);
  tl__native_isa_flags_free(isa);
  tl__free(src);
  tl__free(so);
  return s;
}

/* -------------------------------------------------------------------- load */

/* A generated host entry (docs/lowering.md): tl_value and TLValue share a layout. */
typedef int32_t (*host_entry_fn)(const tl_value *args, int32_t nargs, void *stream, char *err, size_t errcap);

typedef struct native_state {
  void *handle;
  host_entry_fn entry;
} native_state;

tl_status tl__host_entry_result(int32_t rc, const char *err) {
  if (rc == 0) return TL_OK;
  tl_status s = rc > 0 && rc <= TL_EINTERNAL ? (tl_status)rc : TL_EINVAL;
  return tl__error(s, "%s", err[0] ? err : "the host entry failed without a message");
}

static tl_status native_call(void *state, const tl_value *args, int nargs, void *stream) {
  native_state *st = state;
  char err[1024];
  err[0] = '\0';
  int32_t rc = st->entry(args, nargs, stream, err, sizeof err);
  return tl__host_entry_result(rc, err);
}

static void native_destroy(void *state) {
  native_state *st = state;
  if (!st) return;
  dlclose(st->handle);
  tl__free(st);
}

/* A library built with -fopenmp pulls in the OpenMP runtime, whose worker threads
 * outlive any one kernel: unloading the runtime with the last kernel that used it
 * would pull code from under them. Mark it never to be unloaded. */
static void pin_openmp_runtime(void) {
  static const char *const names[] = {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so", NULL};
  for (size_t i = 0; names[i]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (h) dlclose(h);
  }
}

static tl_status native_load(const tl__build_request *req, const char *dir, tl__loaded *out) {
  const char *entry = req->table ? req->table->entry : req->func_name;
  if (!entry) return tl__error(TL_EINVAL, "native: no host entry name");
  char *so = tl__path_join(dir, "kernel.so");
  if (!so) return tl__oom();
  void *h = NULL;
  tl_status ls = tl__load_dlopen(dir, "kernel.so", RTLD_LOCAL | RTLD_NOW, &h);
  if (ls != TL_OK) {
    tl__free(so);
    return ls;
  }
  pin_openmp_runtime();
  host_entry_fn fn = (host_entry_fn)dlsym(h, entry);
  if (!fn) {
    tl_status s = tl__error(TL_EINTERNAL, "'%s' has no host entry '%s'", so, entry);
    dlclose(h);
    tl__free(so);
    return s;
  }
  tl__free(so);
  native_state *st = tl__calloc(1, sizeof *st);
  if (!st) {
    dlclose(h);
    return tl__oom();
  }
  st->handle = h;
  st->entry = fn;
  *out = (tl__loaded){st, native_call, native_destroy};
  return TL_OK;
}

static const char *const k_files[] = {"kernel.c", "kernel.so", NULL};

const tl__exec_impl tl__exec_native = {
  .name = "native",
  .files = k_files,
  .identity = native_identity,
  .build = native_build,
  .load = native_load,
};
