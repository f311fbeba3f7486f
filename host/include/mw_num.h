/* mw_num — the one reader of a number written by a person (a command-line argument, a value
 * in a profile or config file). Every number the tool takes from text goes through here, so
 * that every one refuses the same things: only plain decimal is a number.
 *
 * Accepted: an optional sign, digits with at most one '.', at least one digit, and (for
 * doubles only) an exponent [eE][+-]digits: "12", "-0.5", ".5", "3.", "1e-3", "+7".
 * Refused as not a number (-1): NULL or empty text, leading or trailing space, "nan", "inf",
 * "infinity", hexadecimal ("0x10", "0x1p3"), and anything left over ("10s", "1,5", "1 2").
 * Refused as out of range (-2): a number below min or above max, including one too large for
 * the type ("1e400" as a double, "9223372036854775808" as an int64). A double too small to
 * represent ("1e-400") is not an error: it reads as the nearest double (0 or a subnormal),
 * then meets the range like any other value. -0 reads as 0 (doubles: -0.0, which compares
 * equal to 0).
 *
 * *out is written only on success. The caller names the argument and the range in its
 * message; these functions print nothing. */
#ifndef MW_NUM_H
#define MW_NUM_H
#include <stdint.h>

/* 0: ok; -1: not a number (empty, nan, inf, hex, trailing garbage, leading space); -2: out of [min, max] */
int mw_num_double(const char *text, double min, double max, double *out);
int mw_num_int64(const char *text, int64_t min, int64_t max, int64_t *out);
#endif
