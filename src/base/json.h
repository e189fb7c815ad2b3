/* jansson through the library's allocator, so that out of memory inside a JSON
 * parse is known for what it is (jansson itself reports some allocation failures
 * as syntax errors) and OOM sweeps reach its allocations. Installed when the
 * library loads, unless the program had already given jansson allocators of its
 * own (then those are kept, and only jansson's own out-of-memory code is trusted). */
#ifndef TL_BASE_JSON_H
#define TL_BASE_JSON_H

#include <stdbool.h>

#include <jansson.h>

/* json_loads; on failure *oom says whether an allocation failed meanwhile (report
 * TL_ENOMEM, not the parse error). */
json_t *tl__json_loads(const char *text, size_t flags, json_error_t *err, bool *oom);

#endif
