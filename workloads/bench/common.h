/* common.h — what the mwb-* micro-benchmarks share: strict command-line options and clocks.
 *
 * Options are long only ("--name VALUE" or "--name=VALUE"), described by a table of
 * struct mwb_opt. mwb_parse() fills the values, prints the usage for --help and one line
 * naming the argument for anything it does not accept (an unknown option, a missing value,
 * a number that is not a whole number in the allowed range, a stray argument). Numbers are
 * plain decimals (no suffixes), read in full: "10x", "", "nan" and "1e999" are rejected. */
#ifndef MWB_COMMON_H
#define MWB_COMMON_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum mwb_opt_type {
    MWB_DOUBLE, /* double *, any finite decimal in [min, max] */
    MWB_INT,    /* int64_t *, an integer in [min, max] */
};

struct mwb_opt {
    const char *name; /* without the leading "--" */
    enum mwb_opt_type type;
    void *value; /* where the value goes; left alone unless the option is given */
    double min, max;
    bool *given; /* set to true when the option is given; may be NULL */
};

/* Parse argv against opts (n entries). Returns -1 when the program should go on; otherwise
 * the exit status it should end with: 0 after --help (usage printed to stdout), 2 after a
 * usage error (one line on stderr: "PROG: ..."). Prints only when speak is true (MPI ranks
 * other than 0 stay silent but return the same status). */
int mwb_parse(int argc, char **argv, const struct mwb_opt *opts, int n, const char *usage,
              bool speak);

/* Seconds on CLOCK_MONOTONIC. */
double mwb_now(void);
/* ns on CLOCK_REALTIME (the clock libmwprobe stamps events with). */
int64_t mwb_realtime_ns(void);
/* Sleep until t (seconds on CLOCK_MONOTONIC). */
void mwb_sleep_until(double t);
/* Sleep until t_ns (ns on CLOCK_REALTIME). */
void mwb_sleep_until_realtime(int64_t t_ns);

/* The CPU load of mwb-cpuburn and mwb-pattern: a fixed, register-resident mix of 4
 * independent 64-bit integer chains x = x * M + C and 4 double chains y = y * A + B (A < 1,
 * so y converges and stays normal), MWB_BURN_OPS_PER_STEP operations per step (8 integer,
 * 8 floating point), no memory traffic. Runs batches of MWB_BURN_STEPS steps (a few us) until
 * clock (CLOCK_MONOTONIC or CLOCK_REALTIME) reads deadline_ns or later, at least one batch;
 * returns the steps done. The chains' results go to an atomic sink. */
enum { MWB_BURN_STEPS = 4096, MWB_BURN_OPS_PER_STEP = 16 };
uint64_t mwb_burn(clockid_t clock, int64_t deadline_ns, uint64_t seed);
/* ns on clock. */
int64_t mwb_clock_ns(clockid_t clock);

/* The program's name for messages ("mwb-stream"), set by mwb_parse from argv[0]. */
extern const char *mwb_prog;

#endif
