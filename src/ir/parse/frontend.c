/* The front end's entry points: source text to a module (lex, parse, elaborate). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "parse.h"

/* Parses len bytes (NUL bytes inside are reported as invalid characters). */
static tl_status parse_n(const char *source, size_t len, const char *filename, const tl_ir_parse_options *opts,
                         tl_ir_module **out) {
  if (opts && opts->struct_size < offsetof(tl_ir_parse_options, nconsts) + sizeof opts->nconsts)
    return tl__error(TL_EINVAL, "tl_ir_parse: opts->struct_size (%zu) is too small", opts->struct_size);
  if (opts && opts->nconsts && !opts->consts)
    return tl__error(TL_EINVAL, "tl_ir_parse: opts->consts is NULL but nconsts is %zu", opts->nconsts);
  tl__parse_ctx p;
  tl__parse_ctx_init(&p, source, len, filename);
  tl__vec toks = TL__VEC_INIT(tl__tok);
  tl__ast_block file = {0, NULL};
  tl_ir_module *mod = NULL;
  if (tl__lex(&p, &toks) == TL_OK && tl__parse_file(&p, toks.data, toks.len, &file) == TL_OK) {
    if (tl_ir_module_create(&mod) != TL_OK) p.status = TL_ENOMEM;
    else tl__elab_module(&p, &file, opts, mod);
  }
  tl_status s = p.status;
  tl__vec_free(&toks);
  tl__parse_ctx_free(&p);
  if (s != TL_OK) {
    tl_ir_module_free(mod);
    return s;
  }
  *out = mod;
  return TL_OK;
}

tl_status tl_ir_parse(const char *source, const char *filename, const tl_ir_parse_options *opts, tl_ir_module **out) {
  if (out) *out = NULL;
  if (!source || !out) return tl__error(TL_EINVAL, "tl_ir_parse: source and out must not be NULL");
  return parse_n(source, strlen(source), filename, opts, out);
}

tl_status tl_ir_parse_file(const char *path, const tl_ir_parse_options *opts, tl_ir_module **out) {
  if (out) *out = NULL;
  if (!path || !out) return tl__error(TL_EINVAL, "tl_ir_parse_file: path and out must not be NULL");
  FILE *f = fopen(path, "rb");
  if (!f) return tl__error(TL_EIO, "cannot open '%s': %s", path, strerror(errno));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  tl_status s = TL_OK;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      size_t ncap = cap ? cap * 2 : 8192;
      if (ncap > TL__PARSE_MAX_SOURCE + 8192) {
        s = tl__error(TL_EINVAL, "'%s' is too large", path);
        break;
      }
      char *nb = tl__realloc(buf, ncap);
      if (!nb) {
        s = tl__oom();
        break;
      }
      buf = nb;
      cap = ncap;
    }
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    len += n;
    if (n == 0) {
      if (ferror(f)) s = tl__error(TL_EIO, "cannot read '%s': %s", path, strerror(errno));
      break;
    }
  }
  fclose(f);
  if (s == TL_OK) {
    buf[len] = '\0';
    s = parse_n(buf, len, path, opts, out);
  }
  tl__free(buf);
  return s;
}
