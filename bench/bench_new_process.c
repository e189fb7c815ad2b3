/* A disk hit in a new process: this program run again as a child (posix_spawn)
 * that parses examples/vector_add.py, calls tl_compile once (the kernel is in the
 * disk cache, written by a warm-up run) and exits. Reported per run, as medians:
 *   - the child's whole life, spawn to exit, as the parent sees it (what `tlc run`
 *     of a cached kernel costs before it computes anything);
 *   - tl_compile alone inside the child (context resolution, the key, the lookup,
 *     verification and dlopen).
 * Twice: with the compiler memo (the normal case: no compiler runs) and with the
 * memo removed before each run (what every new process paid before the memo:
 * `cc --version`, an OpenMP probe build and the -march=native probe).
 *   bench_new_process [EXAMPLE.py]   (default: the source tree's examples/vector_add.py) */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/str.h"
#include "bench.h"
#include "base/files.h"
#include "tilelang/engine.h"

extern char **environ;

static int child(const char *path) {
  char *src = NULL;
  if (tl__file_read(path, &src, NULL) != TL_OK) return 2;
  tl_ir_module *m = NULL;
  if (tl_ir_parse(src, path, NULL, &m) != TL_OK) return 3;
  tl_compile_options o = {0};
  o.struct_size = sizeof o;
  o.target = "c";
  o.execution_backend = "native";
  double t0 = bench_now_ns();
  tl_kernel *k = NULL;
  if (tl_compile(m, NULL, &o, &k) != TL_OK) {
    fprintf(stderr, "bench_new_process: %s\n", tl_last_error());
    return 4;
  }
  double ns = bench_now_ns() - t0;
  printf("%.0f %d\n", ns, tl_kernel_from_cache(k) ? 1 : 0);
  tl_kernel_release(k);
  tl_ir_module_free(m);
  tl__free(src);
  return 0;
}

/* Runs the child once; *compile_ns what it measured, *hit whether it was a hit.
 * Returns the wall time in ns. */
static double run_child(const char *self, const char *example, double *compile_ns, int *hit) {
  int fds[2];
  if (pipe(fds) != 0) exit(1);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  char *argv[] = {(char *)self, "--child", (char *)example, NULL};
  double t0 = bench_now_ns();
  pid_t pid;
  if (posix_spawn(&pid, self, &fa, NULL, argv, environ) != 0) exit(1);
  close(fds[1]);
  char buf[128] = {0};
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  int status;
  waitpid(pid, &status, 0);
  double wall = bench_now_ns() - t0;
  close(fds[0]);
  posix_spawn_file_actions_destroy(&fa);
  if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || sscanf(buf, "%lf %d", compile_ns, hit) != 2) {
    fprintf(stderr, "bench_new_process: the child failed\n");
    exit(1);
  }
  return wall;
}

static void measure(const char *name, const char *self, const char *example, const char *memo, int n) {
  double wall[64], comp[64];
  for (int i = 0; i < n; i++) {
    if (memo) {
      char *cmd = tl__format("rm -rf '%s'", memo);
      if (system(cmd) != 0) exit(1);
      tl__free(cmd);
    }
    int hit = 0;
    wall[i] = run_child(self, example, &comp[i], &hit) / 1e6;
    comp[i] /= 1e6;
    if (!hit) {
      fprintf(stderr, "bench_new_process: run %d was not a disk hit\n", i);
      exit(1);
    }
  }
  qsort(wall, (size_t)n, sizeof *wall, bench_cmp);
  qsort(comp, (size_t)n, sizeof *comp, bench_cmp);
  printf("%-44s %8.2f ms process (min %.2f, p90 %.2f), %6.2f ms tl_compile (min %.2f)   (%d runs)\n", name,
         wall[n / 2], wall[0], wall[n * 9 / 10], comp[n / 2], comp[0], n);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(argv[2]);
  const char *example = argc > 1 ? argv[1] : TL_SOURCE_DIR "/examples/vector_add.py";
  char *cache = NULL;
  if (tl__make_scratch_dir("tl-bench-newproc-", &cache) != TL_OK) return 1;
  setenv("TILELANG_CACHE_DIR", cache, 1);
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return 1;
  self[len] = '\0';
  double c;
  int hit;
  run_child(self, example, &c, &hit); /* builds the entry and the memo */
  char *memo = tl__format("%s/%s/compilers", cache, tl_version());
  measure("new process, disk hit (compiler memo)", self, example, NULL, 30);
  measure("new process, disk hit (no memo: runs cc)", self, example, memo, 10);
  char *cmd = tl__format("rm -rf '%s'", cache);
  if (system(cmd) != 0) return 1;
  tl__free(cmd);
  tl__free(memo);
  tl__free(cache);
  return 0;
}
