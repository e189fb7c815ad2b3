/* tl__spawn_capture: posix_spawnp, a close-on-exec pipe for the child's output, and
 * waitpid. No shell is involved, so nothing in argv is interpreted. */
#include "runtime/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"

extern char **environ;

#define OUTPUT_LIMIT (64 * 1024)

tl_status tl__spawn_capture(char *const *argv, char **output, int *exit_status) {
  *output = NULL;
  *exit_status = -1;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return tl__error(TL_EIO, "cannot create a pipe: %s", strerror(errno));
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc == 0) rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  pid_t pid = -1;
  if (rc == 0) rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return tl__error(TL_EUNAVAILABLE, "cannot run '%s': %s", argv[0], strerror(rc));
  }
  tl__sb sb = TL__SB_INIT;
  char buf[4096];
  for (;;) {
    ssize_t r = read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (sb.len < OUTPUT_LIMIT) tl__sb_appendn(&sb, buf, (size_t)r < OUTPUT_LIMIT - sb.len ? (size_t)r : OUTPUT_LIMIT - sb.len);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      tl__sb_free(&sb);
      return tl__error(TL_EIO, "cannot wait for '%s': %s", argv[0], strerror(errno));
    }
  }
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  *output = tl__sb_finish(&sb);
  return *output ? TL_OK : tl__oom();
}
