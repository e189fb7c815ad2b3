/* The compiler memo (see cc_memo.h). */
#include "runtime/cc_memo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/str.h"
#include "base/trust.h"

#define MEMO_FORMAT "tilelang cc memo v1"
#define MEMO_MAX 65536

void tl__cc_facts_free(tl__cc_facts *f) {
  if (!f) return;
  tl__free(f->version);
  tl__free(f->native);
  memset(f, 0, sizeof *f);
}

/* The executable `word` names: itself when it has a slash, else the first match
 * on PATH. false when none. */
static bool resolve(const char *word, char *out, size_t cap, struct stat *st) {
  if (strchr(word, '/')) {
    snprintf(out, cap, "%s", word);
    return stat(out, st) == 0 && S_ISREG(st->st_mode);
  }
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(out, cap, "%.*s/%s", (int)n, n ? p : ".", word);
    if (stat(out, st) == 0 && S_ISREG(st->st_mode) && access(out, X_OK) == 0) return true;
    p += n;
    if (*p) p++;
  }
  return false;
}

/* The processor, so that a memo (and the -march=native it records) never travels
 * to another machine with the home directory: CPUID's vendor, signature and
 * feature leaves on x86, the kernel's hardware capabilities elsewhere. */
static void append_cpu(tl__sb *sb) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d, max = __get_cpuid_max(0, NULL);
  if (__get_cpuid(0, &a, &b, &c, &d)) tl__sb_appendf(sb, "cpu0=%x.%x.%x.%x\n", a, b, c, d);
  if (__get_cpuid(1, &a, &b, &c, &d)) tl__sb_appendf(sb, "cpu1=%x.%x.%x\n", a, c, d);
  if (max >= 7 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) tl__sb_appendf(sb, "cpu7=%x.%x.%x\n", b, c, d);
  if (max >= 7 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) tl__sb_appendf(sb, "cpu7.1=%x.%x.%x.%x\n", a, b, c, d);
  if (max >= 13 && __get_cpuid_count(13, 1, &a, &b, &c, &d)) tl__sb_appendf(sb, "cpu13=%x\n", a);
  if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) tl__sb_appendf(sb, "cpuext=%x.%x\n", c, d);
#endif
  tl__sb_appendf(sb, "hwcap=%lx.%lx\n", getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
  const char *platform = (const char *)getauxval(AT_PLATFORM);
  if (platform) tl__sb_appendf(sb, "platform=%s\n", platform);
}

tl_status tl__cc_memo_key(char *const *argv, char key[33]) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, MEMO_FORMAT "\n");
  struct utsname u;
  if (uname(&u) == 0) tl__sb_appendf(&sb, "machine=%s %s\n", u.sysname, u.machine);
  append_cpu(&sb);
  for (size_t i = 0; argv[i]; i++) {
    tl__sb_appendf(&sb, "word=%zu:%s\n", strlen(argv[i]), argv[i]);
    char path[4096];
    struct stat st;
    if (argv[i][0] != '-' && resolve(argv[i], path, sizeof path, &st))
      tl__sb_appendf(&sb, "file=%zu:%s dev=%llu ino=%llu size=%lld mtime=%lld.%09ld\n", strlen(path), path,
                     (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
                     (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
  }
  TL__TRY(tl__sb_status(&sb));
  tl__hash128_hex(sb.buf, sb.len, key);
  tl__sb_free(&sb);
  return TL_OK;
}

/* The kernel cache root (as the engine's default): TILELANG_CACHE_DIR, else
 * ~/.tilelang-c/cache. */
static char *memo_root(void) {
  const char *env = tl__env("TILELANG_CACHE_DIR");
  if (env && *env) return tl__strdup(env);
  const char *home = tl__env_home();
  return home ? tl__format("%s/.tilelang-c/cache", home) : NULL;
}

/* "<root>/<version>/compilers" opened as a private directory; created when
 * `create`. -1 on any failure. */
static int open_memo_dir(bool create) {
  char *root = memo_root();
  if (!root) return -1;
  int rfd = -1, vfd = -1, cfd = -1;
  tl_status s = tl__trust_open(root, true, TL__TRUST_PRIVATE, &rfd);
  if (s == TL_ENOTFOUND && create) {
    for (char *q = root + 1;; q++) { /* mkdir -p, 0700 */
      if (*q != '/' && *q != '\0') continue;
      char saved = *q;
      *q = '\0';
      (void)mkdir(root, 0700);
      *q = saved;
      if (!saved) break;
    }
    s = tl__trust_open(root, true, TL__TRUST_PRIVATE, &rfd);
  }
  const char *names[2] = {tl_version(), "compilers"};
  int *fds[2] = {&vfd, &cfd};
  int parent = rfd;
  for (int i = 0; s == TL_OK && i < 2; i++) {
    s = tl__trust_openat(parent, names[i], true, TL__TRUST_PRIVATE, names[i], fds[i]);
    if (s == TL_ENOTFOUND && create && mkdirat(parent, names[i], 0700) == 0)
      s = tl__trust_openat(parent, names[i], true, TL__TRUST_PRIVATE, names[i], fds[i]);
    parent = *fds[i];
  }
  if (rfd >= 0) close(rfd);
  if (vfd >= 0) close(vfd);
  tl__free(root);
  tl__error_clear();
  if (s != TL_OK) {
    if (cfd >= 0) close(cfd);
    return -1;
  }
  return cfd;
}

/* The value of "name=" on its own line of text, copied; NULL if absent. */
static char *field(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, name, n) == 0 && p[n] == '=') return tl__strndup(p + n + 1, strcspn(p + n + 1, "\n"));
  return NULL;
}

bool tl__cc_memo_load(const char *key, tl__cc_facts *f) {
  memset(f, 0, sizeof *f);
  int dir = open_memo_dir(false);
  if (dir < 0) return false;
  int fd = -1;
  tl_status s = tl__trust_openat(dir, key, false, TL__TRUST_PRIVATE, key, &fd);
  close(dir);
  tl__error_clear();
  if (s != TL_OK) return false;
  char buf[MEMO_MAX + 1];
  ssize_t n = read(fd, buf, MEMO_MAX);
  close(fd);
  if (n <= 0 || n == MEMO_MAX) return false;
  buf[n] = '\0';
  if (strncmp(buf, MEMO_FORMAT "\n", sizeof MEMO_FORMAT) != 0) return false;
  char *openmp = field(buf, "openmp");
  f->version = field(buf, "version");
  f->native = field(buf, "native");
  bool ok = f->version && f->native && openmp && (strcmp(openmp, "0") == 0 || strcmp(openmp, "1") == 0);
  if (ok) f->openmp = openmp[0] == '1';
  tl__free(openmp);
  if (!ok) tl__cc_facts_free(f);
  tl__error_clear();
  return ok;
}

void tl__cc_memo_store(const char *key, const tl__cc_facts *f) {
  if (strchr(f->version, '\n') || strchr(f->native, '\n')) return;
  char *text = tl__format(MEMO_FORMAT "\nversion=%s\nopenmp=%d\nnative=%s\n", f->version, f->openmp ? 1 : 0, f->native);
  char *tmp = tl__format("%s.%ld.tmp", key, (long)getpid());
  int dir = text && tmp ? open_memo_dir(true) : -1;
  if (dir >= 0) {
    (void)unlinkat(dir, tmp, 0);
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      size_t len = strlen(text);
      bool ok = write(fd, text, len) == (ssize_t)len;
      ok = close(fd) == 0 && ok;
      if (!ok || renameat(dir, tmp, dir, key) != 0) (void)unlinkat(dir, tmp, 0);
    }
    close(dir);
  }
  tl__free(text);
  tl__free(tmp);
  tl__error_clear();
}
