/* The thread-local last-error message. Messages can be long (compiler output), so
 * they live in a per-thread heap buffer freed at thread exit; if that buffer cannot
 * be allocated, a fixed per-thread buffer holds a truncated message instead. The
 * buffers use plain malloc, not the injectable hook, so an OOM sweep still gets its
 * "out of memory" message. */
#include "error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_SMALL_MSG 512

static _Thread_local char t_small[TL_SMALL_MSG];
static _Thread_local char *t_msg;  /* current message: NULL (meaning t_small) or the heap buffer */

static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

static void free_heap_msg(void *p) { free(p); }
static void make_key(void) { (void)pthread_key_create(&g_key, free_heap_msg); }

/* Installs `heap` (owned) as the thread's message buffer, freeing the previous one. */
static void install_heap(char *heap) {
  pthread_once(&g_key_once, make_key);
  char *old = pthread_getspecific(g_key);
  if (pthread_setspecific(g_key, heap) != 0) {
    /* Cannot track it for thread exit: fall back to the small buffer. */
    snprintf(t_small, sizeof t_small, "%s", heap);
    free(heap);
    t_msg = t_small;
    return;
  }
  t_msg = heap;
  free(old);
}

tl_status tl__verror(tl_status s, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  char local[TL_SMALL_MSG];
  int n = vsnprintf(local, sizeof local, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    snprintf(t_small, sizeof t_small, "%s (message could not be formatted)", tl_status_message(s));
    t_msg = t_small;
    return s;
  }
  if ((size_t)n < sizeof local) {
    va_end(ap2);
    memcpy(t_small, local, (size_t)n + 1);
    t_msg = t_small;
    return s;
  }
  char *heap = malloc((size_t)n + 1);
  if (heap) {
    vsnprintf(heap, (size_t)n + 1, fmt, ap2);
    install_heap(heap);
  } else {
    memcpy(t_small, local, sizeof local); /* already truncated and terminated */
    t_msg = t_small;
  }
  va_end(ap2);
  return s;
}

tl_status tl__error(tl_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tl__verror(s, fmt, ap);
  va_end(ap);
  return s;
}

tl_status tl__error_context(tl_status s, const char *fmt, ...) {
  char prefix[TL_SMALL_MSG];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  return tl__error(s, "%s%s", prefix, tl_last_error());
}

tl_status tl__oom(void) {
  snprintf(t_small, sizeof t_small, "out of memory");
  t_msg = t_small;
  return TL_ENOMEM;
}

void tl__error_clear(void) {
  t_small[0] = '\0';
  t_msg = t_small;
}

const char *tl_last_error(void) { return t_msg ? t_msg : t_small; }

const char *tl_status_name(tl_status s) {
  switch (s) {
#define TL__STATUS_NAME(name, value, msg) \
  case name:                              \
    return #name;
    TL_STATUS_MAP(TL__STATUS_NAME)
#undef TL__STATUS_NAME
  }
  return "TL_UNKNOWN";
}

const char *tl_status_message(tl_status s) {
  switch (s) {
#define TL__STATUS_MSG(name, value, msg) \
  case name:                             \
    return msg;
    TL_STATUS_MAP(TL__STATUS_MSG)
#undef TL__STATUS_MSG
  }
  return "unknown status";
}

tl_status tl_set_error(tl_status status, const char *message) {
  return tl__error(status, "%s", message ? message : "");
}
