/* sweep_precision — the repetition rule of mw sweep (docs/sweep.md) on one configuration's
 * runs: the figures of its finished runs (the command's wall time and its energy, from the
 * sweep index, mw_sweepindex.h), whether both means are within the precision asked
 * (models/include/precision.h, Student t at MW_PRECISION_DEFAULT_LEVEL, at least MW_SWEEP_MIN_REPS
 * runs), how many runs that will probably take, and why the configuration stopped. The
 * runs are read through the sweep index's writer (no SQL here); the verdict is mw_sweep.h's
 * rule hook. */
#ifndef MW_SWEEP_PRECISION_H
#define MW_SWEEP_PRECISION_H
#include <stddef.h>

#include "mw_sweep.h"
#include "mw_sweepindex.h"
#include "precision.h"

#define MW_SWEEP_MIN_REPS 3

typedef struct {
    size_t n;                /* done runs with both figures */
    size_t done, failed;     /* runs done, failed (any repetition) */
    size_t attempts;         /* runs done or failed with repetition <= rounds */
    double *t_s, *e_j;       /* the n figures (one allocation: mw_sweep_eval_free) */
    double mean_t_s, sd_t_s; /* their mean and sample sd (sd 0 when n < 2) */
    double mean_e_j, sd_e_j;
    mw_precision pt, pe; /* mw_precision_check of each, when have */
    int have;            /* n >= 1 and both checks made */
} mw_sweep_eval;

/* The figures of one configuration's runs r[0..n) (any order); rounds: the most
 * repetitions planned; rel: the precision asked, a fraction (1 without one). ev's previous
 * figures are freed. */
void mw_sweep_eval_runs(const mw_sweepidx_w_run *r, size_t n, int rounds, double rel,
                        mw_sweep_eval *ev);
void mw_sweep_eval_free(mw_sweep_eval *ev);
/* 1 when both the time and the energy reached the precision. */
int mw_sweep_precision_met(const mw_sweep_eval *ev);
/* The runs this configuration will probably hold: as it has when the precision is met;
 * else MW_SWEEP_MIN_REPS, or with 2 runs or more mw_precision_runs_needed of each figure
 * (the larger); plus its failures; at most rounds, at least the attempts so far. */
size_t mw_sweep_runs_needed(const mw_sweep_eval *ev, double rel, int rounds);
/* "reps" (no precision asked), "precision" (met) or "max-reps". */
const char *mw_sweep_stop_reason(const mw_sweep_eval *ev, int precision);

/* mw_sweep_eval_runs on configuration config's runs in the index (config 0: all). -1 with
 * the index's message. */
int mw_sweep_eval_config(mw_sweepidx_w *w, int config, int rounds, double rel, mw_sweep_eval *ev,
                         char *err, size_t errlen);
/* The rule's verdict on configuration config (mw_sweep.h's rule hook): met, the runs it
 * will probably need (with a precision; else rounds), its stop reason and the precisions reached
 * (with 2 runs or more, else NAN). precision: whether one was asked (rel is then the fraction
 * asked; the figures are checked against 1 without). -1 with the index's message. */
int mw_sweep_rule_of(mw_sweepidx_w *w, int config, int rounds, int precision, double rel,
                     mw_sweep_rule *out, char *err, size_t errlen);
#endif
