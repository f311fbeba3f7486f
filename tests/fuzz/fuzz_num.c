/* fuzz_num — the number reader (host/num.c, mw_num.h) that every command-line number and
 * every number in a profile goes through.
 *
 * The input's first byte picks a range (wide open, [0, 1], [-1e6, 1e6], the int64 limits or
 * [1, 10]); the rest is the text. The oracle is independent of num.c's hand-written grammar:
 * a POSIX extended regular expression for plain decimal. Invariants: a text the expression
 * refuses is "not a number" (-1) for both readers; one it takes is read (0) or out of range
 * (-2), never -1; a double that is read is finite, inside the range, and survives a round
 * trip through "%.17g"; an int64 that is read prints back ("%lld") as the text less its '+'
 * and leading zeros; nothing is written to *out unless the answer is 0. */
#include "fuzz.h"
#include "mw_num.h"

#include <float.h>
#include <math.h>
#include <regex.h>

static regex_t real_re, int_re;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    FUZZ_CHECK(regcomp(&real_re, "^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$",
                       REG_EXTENDED | REG_NOSUB) == 0);
    FUZZ_CHECK(regcomp(&int_re, "^[+-]?[0-9]+$", REG_EXTENDED | REG_NOSUB) == 0);
    return 0;
}

static void check_double(const char *s, double lo, double hi)
{
    int want_number = regexec(&real_re, s, 0, NULL, 0) == 0;
    double v = 12345.5;
    int rc = mw_num_double(s, lo, hi, &v);
    FUZZ_CHECK(rc == 0 || rc == -1 || rc == -2);
    FUZZ_CHECK(want_number ? rc != -1 : rc == -1);
    if (rc != 0) {
        FUZZ_CHECK(v == 12345.5);
        return;
    }
    FUZZ_CHECK(isfinite(v) && v >= lo && v <= hi);
    char back[64];
    snprintf(back, sizeof back, "%.17g", v);
    double w = 0;
    FUZZ_CHECK(strchr(back, 'n') || mw_num_double(back, lo, hi, &w) == 0);
    FUZZ_CHECK(w == v);
}

static void check_int(const char *s, int64_t lo, int64_t hi)
{
    int want_number = regexec(&int_re, s, 0, NULL, 0) == 0;
    int64_t v = 12345;
    int rc = mw_num_int64(s, lo, hi, &v);
    FUZZ_CHECK(rc == 0 || rc == -1 || rc == -2);
    FUZZ_CHECK(want_number ? rc != -1 : rc == -1);
    if (rc != 0) {
        FUZZ_CHECK(v == 12345);
        return;
    }
    FUZZ_CHECK(v >= lo && v <= hi);
    const char *digits = s + (s[0] == '+' || s[0] == '-');
    while (digits[0] == '0' && digits[1]) digits++;
    char want[64], got[64];
    snprintf(want, sizeof want, "%s%s", s[0] == '-' && strcmp(digits, "0") ? "-" : "", digits);
    snprintf(got, sizeof got, "%lld", (long long)v);
    FUZZ_CHECK(strlen(digits) > 40 || strcmp(want, got) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const double dlo[] = {-DBL_MAX, 0, -1e6, -1e300, 1};
    static const double dhi[] = {DBL_MAX, 1, 1e6, 1e300, 10};
    static const int64_t ilo[] = {INT64_MIN, 0, -1000000, INT64_MIN + 1, 1};
    static const int64_t ihi[] = {INT64_MAX, 1, 1000000, INT64_MAX - 1, 10};
    int r = data[0] % 5;
    char *s = fuzz_cstr(data + 1, size - 1);
    check_double(s, dlo[r], dhi[r]);
    check_int(s, ilo[r], ihi[r]);
    free(s);
    return 0;
}
