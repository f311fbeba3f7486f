/* mw_alloc — the one allocation helper of every megawatt library and command. Running out of
 * memory is not an error a caller can mend: these print "mw: out of memory (N bytes)" on
 * standard error and abort() (no exit code, no cleanup that could itself allocate). A size
 * of 0 allocates 1 byte, so NULL is never returned. */
#ifndef MW_ALLOC_H
#define MW_ALLOC_H
#include <stddef.h>

void *mw_xcalloc(size_t n, size_t size);        /* zeroed; n * size checked for overflow */
void *mw_xrealloc(void *p, size_t size);        /* as realloc */
char *mw_xstrdup(const char *s);                /* NULL copies as "" */
char *mw_xstrndup(const char *s, size_t n);     /* at most n bytes, NUL-terminated */
#endif
