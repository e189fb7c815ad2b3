/* Internal allocation: every allocation in the library goes through these, so a
 * test can make the Nth one fail and check that each caller fails cleanly. */
#ifndef TL_BASE_ALLOC_H
#define TL_BASE_ALLOC_H

#include <stddef.h>

void *tl__malloc(size_t n);
void *tl__calloc(size_t count, size_t size);
void *tl__realloc(void *p, size_t n);
void tl__free(void *p);
char *tl__strdup(const char *s);           /* NULL-safe: NULL in, NULL out (no error) */
char *tl__strndup(const char *s, size_t n);

/* Test hook: the nth allocation from now (1-based) fails, and so does every later
 * one until the hook is reset with n = 0. Thread-safe. */
void tl__alloc_fail_after(long n);
/* Allocations made since the last tl__alloc_fail_after call (failed ones included). */
long tl__alloc_count(void);
/* True while the hook has made at least one allocation fail since it was armed. */
int tl__alloc_failed(void);

#endif
