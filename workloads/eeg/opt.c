/* opt.c — strict number parsing for the eeg programs' options (opt.h). */
#include "opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int eeg_opt_long(const char *prog, const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: %s wants an integer in %ld … %ld, not '%s'\n", prog, opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int eeg_opt_real(const char *prog, const char *opt, const char *s, double lo, double hi,
                 double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "%s: %s wants a number in %g … %g, not '%s'\n", prog, opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}
