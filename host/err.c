/* err — see mw_err.h. */
#include "mw_err.h"

#include <stdio.h>

int mw_verr(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    return -1;
}

int mw_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mw_verr(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}
