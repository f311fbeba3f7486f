/* mw_sweep — what `mw sweep` does besides reading its command line and printing
 * (docs/sweep.md): the parameters and their grid of configurations, the {NAME} placeholders
 * of the swept command, the sweep directory and its index (mw_sweepindex.h), the
 * `mw record` child of each run, and the bookkeeping that makes a sweep resumable
 * (planned -> running -> done | failed; runs left running are planned again).
 *
 * What libmw cannot decide comes in through hooks: the repetition rule (libmwmodels,
 * sweep_precision.h), each run's time and energy (energy_store.h), and what to tell the
 * user (the events; the command prints them). Functions returning int give 0, or -1 with a
 * one-line message in err (naming the file, or the --param or placeholder at fault); out of
 * memory aborts (mw_alloc.h). */
#ifndef MW_SWEEP_H
#define MW_SWEEP_H
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "mw_sweepindex.h"

#define MW_SWEEP_MAX_PARAMS 32
#define MW_SWEEP_MAX_CONFIGS 10000
#define MW_SWEEP_MAX_RUNS 100000
#define MW_SWEEP_NAME_MAX 160 /* run directory names: the label's first 160 characters */

/* ---- the parameters and their grid ----------------------------------------------------- */

/* 1 when s[0..n) is a parameter name: a letter or _, then letters, digits, _. */
int mw_sweep_is_name(const char *s, size_t n);

typedef struct {
    size_t n;
    mw_sweepidx_param p[MW_SWEEP_MAX_PARAMS]; /* name, values: as the index holds them */
    char *buf[MW_SWEEP_MAX_PARAMS];           /* each spec, split in place */
} mw_sweep_params;

/* Adds the parameter of spec "NAME=V1,V2,..." (values non-empty and distinct, a name not
 * given before). The messages read "--param 'SPEC': ...", as the option they come from. */
int mw_sweep_params_add(mw_sweep_params *ps, const char *spec, char *err, size_t errlen);
void mw_sweep_params_free(mw_sweep_params *ps);

typedef struct {
    int id;                            /* 1, 2, ... */
    char *label;                       /* "a=1,b=x" */
    const char **values;               /* one per parameter */
    char name[MW_SWEEP_NAME_MAX + 16]; /* of its run directories */
} mw_sweep_config;

/* The cartesian product of the values, the first parameter varying slowest; run names are
 * the label with every character outside [A-Za-z0-9_.=-] made '_', at most
 * MW_SWEEP_NAME_MAX long, "_c<id>" appended where two would be the same. Refused: more than
 * MW_SWEEP_MAX_CONFIGS configurations, or more than MW_SWEEP_MAX_RUNS runs of max_reps. */
int mw_sweep_grid(const mw_sweep_params *ps, int max_reps, mw_sweep_config **out, size_t *n,
                  char *err, size_t errlen);
void mw_sweep_grid_free(mw_sweep_config *c, size_t n);

/* The configuration that run k (0, 1, ...) of round rep (1, 2, ...) records: round rep
 * starts at configuration (rep - 1) mod n, a rotation, so that over n rounds every
 * configuration holds every position once (a slow drift of the machine loads none more). */
const mw_sweep_config *mw_sweep_order(const mw_sweep_config *c, size_t n, int rep, size_t k);

/* ---- the command's placeholders -------------------------------------------------------- */

/* Every {NAME} in the command's words (argv[0..argc)) names a parameter and every
 * parameter appears ({ident} only; other braces are text): -1 naming the word and the
 * unknown placeholder, or the parameter used nowhere. */
int mw_sweep_check_command(const mw_sweep_params *ps, int argc, char *const *argv, char *err,
                           size_t errlen);
/* word with every placeholder replaced by c's value (malloc'd). */
char *mw_sweep_substitute(const mw_sweep_params *ps, const mw_sweep_config *c, const char *word);

/* ---- the sweep ------------------------------------------------------------------------- */

/* What the repetition rule says of one configuration, from its runs in the index so far. */
typedef struct {
    int met;                     /* 1: it needs no more runs */
    size_t runs_needed;          /* the runs it will probably hold, for the plan's total */
    const char *stop;            /* its stop reason: reps | precision | max-reps */
    double time_rel, energy_rel; /* the precisions reached, NAN when unknown */
} mw_sweep_rule;

typedef enum {
    MW_SWEEP_EV_ERROR,       /* msg: an index or file error */
    MW_SWEEP_EV_STARTED,     /* the run is marked running; its recorder starts next */
    MW_SWEEP_EV_NOT_STARTED, /* the recorder exited (code) without starting the run */
    MW_SWEEP_EV_NO_FIGURES,  /* a done run whose time and energy could not be had (msg) */
    MW_SWEEP_EV_ENDED,       /* the run is done (code 0) or failed, after wall_s; indexed,
                                the total estimated again */
    MW_SWEEP_EV_PLAN_DONE,   /* no run from here on (the plan is through, or stopped) */
} mw_sweep_event_kind;

typedef struct {
    mw_sweep_event_kind kind;
    const mw_sweep_config *c; /* the run's configuration (NULL: no run) */
    int rep, code;
    double wall_s;
    const char *msg;
    int in_run; /* an ERROR while a run's progress may be on the terminal's line */
} mw_sweep_event;

typedef struct {
    void *ctx;
    /* The rule for configuration `config` (called with setup.precision for each run, and
     * for every configuration at the end for its stop reason); -1 stops the sweep. */
    int (*rule)(void *ctx, int config, mw_sweep_rule *out);
    /* A done run's command time, s, and energy, J (energy_store.h's
     * mw_energy_store_command). */
    int (*figures)(const char *rundir, double *cmd_s, double *energy_j, char *err, size_t errlen);
    void (*event)(void *ctx, const mw_sweep_event *e);
    /* Every 20 ms while a run records (to pass signals on, to redraw progress); may be
     * NULL. */
    void (*tick)(void *ctx, pid_t pid);
    /* Nonzero (a signal's number): stop; the run under way is not recorded. */
    volatile sig_atomic_t *stop;
} mw_sweep_hooks;

/* What the sweep records about itself (the index's meta, docs/sweep.md) and passes to each
 * `mw record`. */
typedef struct {
    int argc;
    char *const *argv; /* the command template */
    int precision;     /* 1: repeat to a precision (the rule decides), else reps times */
    int reps;
    double rel, confidence; /* the precision asked (fraction) and its confidence */
    int min_reps, max_reps;
    const char *meter, *idle_s, *channels; /* for mw record; NULL when not given */
} mw_sweep_setup;

typedef struct {
    /* given */
    const char *dir; /* SWEEPDIR */
    const mw_sweep_params *ps;
    const mw_sweep_config *c;
    size_t nc;
    int rounds; /* repetitions at most: reps, or max_reps with a precision */
    mw_sweep_setup setup;
    mw_sweep_hooks hooks;
    /* kept */
    mw_sweepidx_w *w; /* the index, locked */
    int created_db;   /* 1: a new sweep (else one resumed) */
    int created_dir;  /* trailing components of SWEEPDIR this sweep created */
    size_t finished;  /* runs done, repetition <= rounds */
    double wall_sum_s;
    size_t wall_n;     /* every known wall time, for an ETA */
    size_t total;      /* runs in the plan (an estimate with a precision) */
    size_t ran;        /* runs recorded (done or failed) by this invocation */
    size_t failed;     /* ... of which failed */
    int recorder_exit; /* mw record's exit status when it did not start a run */
} mw_sweep;

enum { MW_SWEEP_REFUSED = -1, MW_SWEEP_FAILED = -2 };
/* Opens SWEEPDIR's sweep of these parameters and command (a resumption: runs left running
 * are planned again, their directories removed) or creates one there (SWEEPDIR missing or
 * empty), and SWEEPDIR/runs; writes the configurations and the meta (command quoted, mode,
 * repetitions or precision, meter, idle_s, channels, mw_version, status running; created_ns
 * for a new sweep), every stop reason cleared; counts what is done and estimates the
 * total. 0; MW_SWEEP_REFUSED when SWEEPDIR holds something else (a file, another sweep,
 * other files: the message names -o SWEEPDIR); MW_SWEEP_FAILED when it could not be made
 * or written. */
int mw_sweep_open(mw_sweep *sw, char *err, size_t errlen);

enum { MW_SWEEP_STOPPED = -2, MW_SWEEP_NO_RECORDER = -3, MW_SWEEP_INDEX_ERROR = -4 };
/* Runs the plan: round after round, every configuration (mw_sweep_order) that the rule
 * does not call done gets its next repetition recorded, unless the index has it done; then
 * every configuration's stop reason is written. 0: every run succeeded; 1: some failed
 * (the others still ran); MW_SWEEP_STOPPED (hooks.stop), MW_SWEEP_NO_RECORDER (the recorder
 * did not start a run: recorder_exit) or MW_SWEEP_INDEX_ERROR (told as an event): stopped
 * early, resumable. */
int mw_sweep_run(mw_sweep *sw);
/* With a precision: total from the rule's runs_needed of every configuration. */
void mw_sweep_estimate(mw_sweep *sw);
/* The time the runs left will take at the mean wall time so far; -1 when none is known. */
double mw_sweep_eta_s(const mw_sweep *sw);
/* After mw_sweep_run's result x: the index's status (complete, failed, interrupted or
 * stopped; an error is told as an event); a new sweep that recorded nothing is removed
 * (sweep.db, runs/, the directories made): then 1, else 0. */
int mw_sweep_end(mw_sweep *sw, int x);
/* Closes the index (NULL is fine). */
void mw_sweep_close(mw_sweep *sw);

/* ---- the runs, one by one -------------------------------------------------------------- */

/* Removes SWEEPDIR/rel when rel is "runs/NAME" with NAME made of [A-Za-z0-9_.=-] (as the
 * sweep names runs) and not . or ..: nothing outside SWEEPDIR/runs is ever removed. */
int mw_sweep_remove_run(const char *dir, const char *rel, char *err, size_t errlen);
/* `mw record -o PATH [--meter M] [--idle S] [--channels L] --quiet -- CMD...` with c's
 * values in place of the placeholders: NULL-terminated; free with mw_sweep_argv_free. */
char **mw_sweep_record_argv(const mw_sweep_setup *s, const mw_sweep_params *ps,
                            const mw_sweep_config *c, const char *path);
void mw_sweep_argv_free(char **argv);
/* Runs argv with this executable (/proc/self/exe, posix_spawn, no shell) and waits for it,
 * calling tick(ctx, pid) (may be NULL) every 20 ms while it runs. *code: its exit status,
 * 128 + N when killed by signal N; *wall_s: its wall time. -1 when it could not start. */
int mw_sweep_record(char *const *argv, void (*tick)(void *ctx, pid_t pid), void *ctx, int *code,
                    double *wall_s, char *err, size_t errlen);
#endif
