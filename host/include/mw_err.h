/* mw_err — how every megawatt library words a failure for its caller: a one-line message
 * into the caller's buffer (err, errlen; either may be 0/NULL: no message wanted), and -1
 * to return. Functions that fail this way say so in their header ("-1 with the message in
 * err"); objects that outlive a call keep their own (mw_store_error()). */
#ifndef MW_ERR_H
#define MW_ERR_H
#include <stdarg.h>
#include <stddef.h>

int mw_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mw_verr(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
#endif
