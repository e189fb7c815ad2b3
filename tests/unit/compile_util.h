/* Compiling a standalone C snippet in a test with the system compiler (cc -shared +
 * dlopen) or with libtcc in memory, to check generated helpers and layouts. */
#ifndef TL_COMPILE_UTIL_H
#define TL_COMPILE_UTIL_H

#include <dlfcn.h>

#include "base/files.h"
#include "runtime/spawn.h"
#include "runtime_test.h"
#ifdef TL_HAVE_LIBTCC
#include <libtcc.h>
#endif

typedef struct compiled {
  void *dl;  /* native */
  void *tcc; /* TCCState */
} compiled;

#ifdef TL_HAVE_LIBTCC
static void cu_tcc_error(void *opaque, const char *msg) { tl__sb_appendf(opaque, "%s\n", msg); }
#endif

/* Compiles src with `runner` ("native" or "tcc"). Returns false with the compiler's
 * messages in *errors (tl__free it) when it does not compile. */
static inline bool cu_compile(const char *runner, const char *src, compiled *out, char **errors) {
  memset(out, 0, sizeof *out);
  *errors = NULL;
  if (!strcmp(runner, "native")) {
    char *dir = rt_mkdtemp();
    char *c = tl__format("%s/snippet.c", dir), *so = tl__format("%s/snippet.so", dir);
    TL_ASSERT_OK(tl__file_write(c, src, strlen(src)));
    const char *cc = getenv("CC");
    char *argv[] = {(char *)(cc && *cc ? cc : "cc"), "-O2", "-fPIC", "-shared", "-o", so, c, "-lm", NULL};
    char *output = NULL;
    int status = -1;
    TL_ASSERT_OK(tl__spawn_capture(argv, &output, &status));
    bool ok = status == 0;
    if (ok) {
      out->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
      assert_non_null(out->dl);
      tl__free(output);
    } else {
      *errors = output;
    }
    tl__free(c);
    tl__free(so);
    rt_rmdir(dir);
    return ok;
  }
#ifdef TL_HAVE_LIBTCC
  tl__sb sb = TL__SB_INIT;
  TCCState *s = tcc_new();
  assert_non_null(s);
  tcc_set_lib_path(s, TL_TCC_LIBDIR);
  tcc_set_error_func(s, &sb, cu_tcc_error);
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  bool ok = tcc_compile_string(s, src) == 0 && tcc_relocate(s, TCC_RELOCATE_AUTO) >= 0;
  tcc_set_error_func(s, NULL, NULL);
  if (!ok) {
    tcc_delete(s);
    *errors = tl__sb_finish(&sb);
    return false;
  }
  tl__sb_free(&sb);
  out->tcc = s;
  return true;
#else
  fail_msg("tcc is not available");
  return false;
#endif
}

static inline void *cu_sym(compiled *c, const char *name) {
  void *p = NULL;
  if (c->dl) p = dlsym(c->dl, name);
#ifdef TL_HAVE_LIBTCC
  if (c->tcc) p = tcc_get_symbol(c->tcc, name);
#endif
  if (!p) fail_msg("symbol %s not found", name);
  return p;
}

static inline void cu_free(compiled *c) {
  if (c->dl) dlclose(c->dl);
#ifdef TL_HAVE_LIBTCC
  if (c->tcc) tcc_delete(c->tcc);
#endif
}

#endif
