/* alloc — see mw_alloc.h. One place decides what out of memory does: a message naming the
 * size, then abort(), so that a core dump shows where. */
#include "mw_alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "mw: out of memory (%zu bytes)\n", n);
    abort();
}

void *mw_xcalloc(size_t n, size_t size)
{
    if (!n) n = 1;
    if (!size) size = 1;
    if (n > SIZE_MAX / size) out_of_memory(SIZE_MAX);
    void *p = calloc(n, size);
    if (!p) out_of_memory(n * size);
    return p;
}

void *mw_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) out_of_memory(size);
    return q;
}

char *mw_xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) out_of_memory(strlen(s ? s : "") + 1);
    return d;
}

char *mw_xstrndup(const char *s, size_t n)
{
    char *d = strndup(s ? s : "", n);
    if (!d) out_of_memory(n + 1);
    return d;
}
