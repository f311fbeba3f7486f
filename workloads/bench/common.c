/* common.c — option parsing and clocks for the mwb-* micro-benchmarks (common.h).
 *
 * The parser walks argv once: "--help" wins wherever it stands; every other argument must be
 * a known "--name" followed by its value (or "--name=value"). Values are converted with
 * strtod/strtoll, which must consume the whole text; integers must also be exact (no
 * fraction, no exponent beyond what strtoll reads). Errors name the offending argument. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *mwb_prog = "mwb";

__attribute__((format(printf, 2, 3))) static int usage_error(bool speak, const char *fmt, ...)
{
    if (speak) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ", mwb_prog);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (try --help)\n");
        va_end(ap);
    }
    return 2;
}

static int set_value(const struct mwb_opt *o, const char *text, bool speak)
{
    char *end = NULL;
    errno = 0;
    if (o->type == MWB_DOUBLE) {
        double v = strtod(text, &end);
        if (*text == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v))
            return usage_error(speak, "--%s: not a number: '%s'", o->name, text);
        if (v < o->min || v > o->max) {
            return usage_error(speak, "--%s: out of range: '%s' (allowed: %g to %g)", o->name, text,
                               o->min, o->max);
        }
        *(double *)o->value = v;
    } else {
        long long v = strtoll(text, &end, 10);
        if (*text == '\0' || *end != '\0' || errno == ERANGE)
            return usage_error(speak, "--%s: not a whole number: '%s'", o->name, text);
        if ((double)v < o->min || (double)v > o->max) {
            return usage_error(speak, "--%s: out of range: '%s' (allowed: %.0f to %.0f)", o->name,
                               text, o->min, o->max);
        }
        *(int64_t *)o->value = (int64_t)v;
    }
    if (o->given) *o->given = true;
    return -1;
}

int mwb_parse(int argc, char **argv, const struct mwb_opt *opts, int n, const char *usage,
              bool speak)
{
    if (argc > 0 && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        mwb_prog = slash ? slash + 1 : argv[0];
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            if (speak) fputs(usage, stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (arg[0] == '-' && arg[1] != '\0')
                return usage_error(speak, "unknown option '%s'", arg);
            return usage_error(speak, "unexpected argument '%s'", arg);
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct mwb_opt *o = NULL;
        for (int k = 0; k < n; k++)
            if (strlen(opts[k].name) == len && strncmp(opts[k].name, name, len) == 0) o = &opts[k];
        if (!o) return usage_error(speak, "unknown option '%s'", arg);
        const char *text;
        if (eq) {
            text = eq + 1;
        } else if (i + 1 < argc) {
            text = argv[++i];
        } else {
            return usage_error(speak, "--%s needs a value", o->name);
        }
        int rc = set_value(o, text, speak);
        if (rc >= 0) return rc;
    }
    return -1;
}

double mwb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t mwb_clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t mwb_realtime_ns(void)
{
    return mwb_clock_ns(CLOCK_REALTIME);
}

static void sleep_abs(clockid_t clock, int64_t t_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(t_ns / 1000000000),
                          .tv_nsec = (long)(t_ns % 1000000000)};
    while (clock_nanosleep(clock, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

void mwb_sleep_until(double t)
{
    if (t > 0) sleep_abs(CLOCK_MONOTONIC, (int64_t)(t * 1e9));
}

void mwb_sleep_until_realtime(int64_t t_ns)
{
    if (t_ns > 0) sleep_abs(CLOCK_REALTIME, t_ns);
}

static _Atomic uint64_t burn_sink; /* keeps the chains' results alive */

uint64_t mwb_burn(clockid_t clock, int64_t deadline_ns, uint64_t seed)
{
    uint64_t x0 = seed, x1 = seed ^ 0x9e3779b97f4a7c15u, x2 = seed + 12345, x3 = ~seed;
    double y0 = 0.25, y1 = 0.5, y2 = 0.75, y3 = 1.25;
    const uint64_t m = 6364136223846793005u, c = 1442695040888963407u;
    const double a = 0.999999, b = 1e-6;
    uint64_t steps = 0;
    do {
        for (int k = 0; k < MWB_BURN_STEPS; k++) {
            x0 = x0 * m + c;
            x1 = x1 * m + c;
            x2 = x2 * m + c;
            x3 = x3 * m + c;
            y0 = y0 * a + b;
            y1 = y1 * a + b;
            y2 = y2 * a + b;
            y3 = y3 * a + b;
        }
        steps += MWB_BURN_STEPS;
    } while (mwb_clock_ns(clock) < deadline_ns);
    atomic_fetch_add(&burn_sink, x0 ^ x1 ^ x2 ^ x3 ^ (uint64_t)((y0 + y1 + y2 + y3) * 1e6));
    return steps;
}
