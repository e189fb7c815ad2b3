/* Helpers shared by the front-end tests: reading files, listing a directory,
 * parsing text with bindings. */
#ifndef FRONTEND_TEST_H
#define FRONTEND_TEST_H

#include <dirent.h>
#include <stdlib.h>

#include "tilelang/ir.h"
#include "tl_test.h"

#define EXAMPLES_DIR TL_SOURCE_DIR "/examples"
#define GOLDEN_IR_DIR TL_SOURCE_DIR "/tests/golden/ir"
#define GOLDEN_ERR_DIR TL_SOURCE_DIR "/tests/golden/parse_errors"

/* The whole file, NUL-terminated (free it), or NULL if unreadable. */
static inline char *ft_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    if (n == 0) break;
    len += n;
  }
  fclose(f);
  buf[len] = '\0';
  return buf;
}

static int ft_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names in dir ending with suffix (free each and the array). */
static inline char **ft_list(const char *dir, const char *suffix, size_t *n) {
  DIR *d = opendir(dir);
  char **names = NULL;
  *n = 0;
  if (!d) return NULL;
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name), sl = strlen(suffix);
    if (l <= sl || strcmp(e->d_name + l - sl, suffix) != 0) continue;
    if (*n == cap) names = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *names);
    names[(*n)++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, *n, sizeof *names, ft_cmp);
  return names;
}

static inline void ft_free_list(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* Parses text with "K=V" bindings (NULL-terminated list, may be NULL). */
static inline tl_status ft_parse(const char *text, const char *const *kv, tl_ir_module **out) {
  tl_ir_const_binding b[16];
  char names[16][64];
  size_t n = 0;
  for (; kv && kv[n]; n++) {
    const char *eq = strchr(kv[n], '=');
    snprintf(names[n], sizeof names[n], "%.*s", (int)(eq - kv[n]), kv[n]);
    b[n].name = names[n];
    b[n].value = eq + 1;
  }
  tl_ir_parse_options opts = {sizeof opts, b, n, NULL, false};
  return tl_ir_parse(text, "t.py", &opts, out);
}

/* Parses text and prints it back (free the result). Fails the test on error. */
static inline char *ft_roundtrip_text(const char *text) {
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(text, "t.py", NULL, &m));
  char *s = tl_ir_print_module(m);
  assert_non_null(s);
  tl_ir_module_free(m);
  return s;
}

#endif
