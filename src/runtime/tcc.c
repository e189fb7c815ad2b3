/* The `tcc` execution backend: the same translation unit as `native`, compiled in
 * memory by libtcc (milliseconds instead of the system compiler's tens of
 * milliseconds; no OpenMP, so TL_OMP directives expand to nothing).
 *
 * build writes `kernel.c`; load compiles it from the directory and relocates it into
 * memory, keeping the TCCState alive with the kernel. libtcc of this vintage keeps
 * global state while compiling, so every use of it holds one global mutex. Available
 * only when the library was built with libtcc (TL_HAVE_LIBTCC) and tcc's runtime
 * library (libtcc1.a, found by CMake: TL_TCC_LIBDIR) is present. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/dl_fd.h"
#include "base/error.h"
#include "base/files.h"
#include "base/str.h"
#include "runtime/exec_impls.h"

#ifndef TL_HAVE_LIBTCC

bool tl__tcc_available(void) { return false; }
const char *tl__tcc_unavailable_reason(void) { return "the library was built without libtcc"; }

#else

#include <libtcc.h>

#ifndef TL_TCC_LIBDIR
#define TL_TCC_LIBDIR ""
#endif

/* libtcc is referenced weakly: programs linking the static library get it, the shared
 * library cannot contain Debian's position-dependent archive and finds these NULL
 * (cmake/Dependencies.cmake). */
#pragma weak tcc_new
#pragma weak tcc_delete
#pragma weak tcc_set_lib_path
#pragma weak tcc_set_error_func
#pragma weak tcc_set_output_type
#pragma weak tcc_add_file
#pragma weak tcc_compile_string
#pragma weak tcc_relocate
#pragma weak tcc_get_symbol

static bool linked(void) {
  return tcc_new && tcc_delete && tcc_set_lib_path && tcc_set_error_func && tcc_set_output_type && tcc_add_file &&
         tcc_compile_string && tcc_relocate && tcc_get_symbol;
}

static pthread_mutex_t g_tcc = PTHREAD_MUTEX_INITIALIZER;

static void on_error(void *opaque, const char *msg) {
  tl__sb *sb = opaque;
  tl__sb_appendf(sb, "%s\n", msg);
}

/* Examined once per process: context resolution asks on every tl_compile, and an
 * access() there cost a memory cache hit about 2 us. */
static pthread_once_t g_available_once = PTHREAD_ONCE_INIT;
static bool g_available;

static void examine_available(void) {
  static const char path[] = TL_TCC_LIBDIR "/libtcc1.a";
  g_available = linked() && TL_TCC_LIBDIR[0] && access(path, R_OK) == 0;
}

bool tl__tcc_available(void) {
  pthread_once(&g_available_once, examine_available);
  return g_available;
}

const char *tl__tcc_unavailable_reason(void) {
  if (tl__tcc_available()) return NULL;
  if (!linked())
    return "libtcc is not linked into this program (it comes only with the static library libtilelang-backend.a)";
  if (!TL_TCC_LIBDIR[0]) return "tcc's runtime library libtcc1.a was not found when the library was built";
  return "tcc's runtime library " TL_TCC_LIBDIR "/libtcc1.a is missing";
}

/* A fresh TCCState compiling to memory; caller holds g_tcc. */
static TCCState *new_state(tl__sb *errors) {
  TCCState *s = tcc_new();
  if (!s) return NULL;
  tcc_set_lib_path(s, TL_TCC_LIBDIR);
  tcc_set_error_func(s, errors, on_error);
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  return s;
}

/* "tcc 0.9.27", from the compiler's own __TINYC__ (computed once). */
static const char *tcc_identity(const tl__build_request *req) {
  (void)req;
  static char identity[64];
  static bool done;
  if (!tl__tcc_available()) {
    tl__error(TL_EUNAVAILABLE, "%s", tl__tcc_unavailable_reason());
    return NULL;
  }
  pthread_mutex_lock(&g_tcc);
  if (!done) {
    tl__sb errors = TL__SB_INIT;
    TCCState *s = new_state(&errors);
    long v = -1;
    if (s && tcc_compile_string(s, "int tl_tcc_version = __TINYC__;") == 0 && tcc_relocate(s, TCC_RELOCATE_AUTO) >= 0) {
      const int *p = tcc_get_symbol(s, "tl_tcc_version");
      if (p) v = *p;
    }
    if (s) tcc_delete(s);
    tl__sb_free(&errors);
    if (v >= 0) {
      snprintf(identity, sizeof identity, "tcc %ld.%ld.%ld", v / 10000, v / 100 % 100, v % 100);
      done = true;
    }
  }
  pthread_mutex_unlock(&g_tcc);
  if (!done) tl__error(TL_EUNAVAILABLE, "libtcc cannot compile (%s)", TL_TCC_LIBDIR);
  return done ? identity : NULL;
}

static tl_status tcc_build(const tl__build_request *req, const char *dir) {
  if (!tl__tcc_available()) return tl__error(TL_EUNAVAILABLE, "%s", tl__tcc_unavailable_reason());
  if (!req->host)
    return tl__error(TL_EINVAL, "execution backend 'tcc' needs host code (the backend's spec must enable host codegen)");
  char *src = tl__path_join(dir, "kernel.c");
  if (!src) return tl__oom();
  tl_status s = tl__write_translation_unit(req, src);
  tl__free(src);
  return s;
}

typedef int32_t (*host_entry_fn)(const tl_value *args, int32_t nargs, void *stream, char *err, size_t errcap);

typedef struct tcc_kernel {
  TCCState *s;
  host_entry_fn entry;
} tcc_kernel;

static tl_status tcc_call(void *state, const tl_value *args, int nargs, void *stream) {
  tcc_kernel *k = state;
  char err[1024];
  err[0] = '\0';
  return tl__host_entry_result(k->entry(args, nargs, stream, err, sizeof err), err);
}

static void tcc_destroy(void *state) {
  tcc_kernel *k = state;
  if (!k) return;
  pthread_mutex_lock(&g_tcc);
  tcc_delete(k->s);
  pthread_mutex_unlock(&g_tcc);
  tl__free(k);
}

static tl_status tcc_load(const tl__build_request *req, const char *dir, tl__loaded *out) {
  if (!tl__tcc_available()) return tl__error(TL_EUNAVAILABLE, "%s", tl__tcc_unavailable_reason());
  const char *entry = req->table ? req->table->entry : req->func_name;
  if (!entry) return tl__error(TL_EINVAL, "tcc: no host entry name");
  char *src = tl__load_path(dir, "kernel.c"); /* the verified file, when loading from the cache */
  if (!src) return tl__oom();
  if (access(src, R_OK) != 0) {
    tl_status s = tl__error(TL_EIO, "cannot read '%s'", src);
    tl__free(src);
    return s;
  }
  tcc_kernel *k = tl__calloc(1, sizeof *k);
  if (!k) {
    tl__free(src);
    return tl__oom();
  }
  tl__sb errors = TL__SB_INIT;
  tl_status s = TL_OK;
  pthread_mutex_lock(&g_tcc);
  k->s = new_state(&errors);
  if (!k->s) s = tl__oom();
  else if (tcc_add_file(k->s, src) < 0 || tcc_relocate(k->s, TCC_RELOCATE_AUTO) < 0) {
    if (errors.len && tl__sb_str(&errors)[errors.len - 1] == '\n') tl__sb_truncate(&errors, errors.len - 1);
    s = tl__error(TL_ECOMPILE, "tcc failed on %s:\n%s", src, tl__sb_str(&errors));
  }
  else if (!(k->entry = (host_entry_fn)tcc_get_symbol(k->s, entry)))
    s = tl__error(TL_EINTERNAL, "'%s' has no host entry '%s'", src, entry);
  if (k->s) tcc_set_error_func(k->s, NULL, NULL);
  if (s != TL_OK && k->s) tcc_delete(k->s);
  pthread_mutex_unlock(&g_tcc);
  tl__sb_free(&errors);
  tl__free(src);
  if (s != TL_OK) {
    tl__free(k);
    return s;
  }
  *out = (tl__loaded){k, tcc_call, tcc_destroy};
  return TL_OK;
}

static const char *const k_files[] = {"kernel.c", NULL};

const tl__exec_impl tl__exec_tcc = {
  .name = "tcc",
  .files = k_files,
  .identity = tcc_identity,
  .build = tcc_build,
  .load = tcc_load,
};

#endif
