/* mw_report — `mw report` in libmwplot (docs/report.md): what one report is made of and the
 * HTML page written from it. Names: rp_ (report).
 *
 * collector/cmd_report.c fills the runs, sweeps, metadata and figures; rp_report_analyse
 * (report_analysis.c) analyses every run as `mw analyze` does (libmwmodels:
 * mw_analysis_read, no options), with the mean +- sd across runs
 * (mw_analysis_aggregate_runs) and the figures derived per run; rp_write_page (report_page.c
 * and the section files report_*.c) writes the page. The model tables are read from
 * rp_report.fit and fit_mode, `mw fit --json`'s documents, which the caller provides until the
 * fit is a library call.
 *
 * Nothing here prints or exits: messages go to rp_report.say, failures come back as -1 with
 * one line in err. */
#ifndef MW_REPORT_H
#define MW_REPORT_H
#include <json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mw_analysis.h"
#include "mw_sweepindex.h"

#define RP_MAX_GAPS 50       /* gaps listed per run */
#define RP_MAX_RUN_FIGURES 8 /* each run's own figures too for 2 to this many runs */

typedef struct {
    int channel;
    char *name, *host, *pin;
} rp_channel;

typedef struct {
    long long start_ns, end_ns;
    char *reason;
} rp_gap;

typedef struct {
    char *dir;
    char *title;         /* how the page names it: the directory, or "LABEL, repetition N" */
    int sweep;           /* index of its sweep, -1 for a run given directly */
    mw_analysis_run *an; /* its analysis (owned), after rp_report_analyse */
    char **key, **val;
    size_t nmeta;
    rp_channel *ch;
    size_t nch;
    long long ngaps, nphases;
    rp_gap *gap; /* the first RP_MAX_GAPS */
    size_t ngap_rows;
    /* from the analysis, as mw analyze --json states it (rp_an_* below) */
    double duration_s; /* the analysed range */
    double cmd_s;      /* the command's duration (mw phase "command"), NaN without one */
    double cmd_j;      /* energy of every channel during the command, NaN without one */
    double total_j;    /* energy of every channel over the range */
    int escobar;       /* 1 when mw_escobar_from_run reads it */
    char escobar_err[256];
} rp_run;

typedef struct {
    char *dir;
    mw_sweepidx *x;
    int *run_of; /* per index run: its rp_run index, or -1 (not done, or not a run) */
} rp_sweep;

/* A figure: DIR/SUB/NAME; run: the run it is of, -1 for the figures over every input. */
typedef struct {
    char *sub, *name;
    int run;
} rp_fig;

/* What a report says on the way (rp_report.say): */
typedef enum {
    RP_SAY_PROGRESS, /* progress ("analysed 3 runs ..."): mw report prefixes "mw report: " */
    RP_SAY_WARNING,  /* a warning, also shown with -q: "mw report: warning: " */
    RP_SAY_LINE      /* a line of mw plot's or mw analyze's, whole ("mw plot: ...") */
} rp_say_kind;

typedef struct {
    rp_run *run;
    size_t nrun;
    rp_sweep *sw;
    size_t nsw;
    mw_analysis_aggregate agg;   /* mean +- sd per channel name over the runs */
    json_object *fit, *fit_mode; /* mw fit --json (predict / fit mode), or NULL */
    char fit_note[512];          /* why no predict table, or why no fit mode */
    char fit_mode_note[512];
    size_t nescobar;
    rp_fig *fig;
    size_t nfig;
    int fig_failed;     /* mw plot said a figure failed */
    char fig_note[512]; /* why mw plot could not run */
    /* messages, one line each without "\n" (NULL: dropped) */
    void (*say)(void *ctx, rp_say_kind kind, const char *text);
    void *say_ctx;
} rp_report;

/* ---- building it ------------------------------------------------------------------------- */

/* The analysis of every run (mw_analysis_read with no options, in order), the aggregate and
 * each run's derived figures; constant channels are said as mw analyze says them. -1 with
 * mw_analysis_read's reason for the first run that cannot be analysed. */
int rp_report_analyse(rp_report *rp, char *err, size_t errlen);
/* ---- the analysis as mw analyze --json states it ------------------------------------------ */

/* The page shows exactly the numbers of `mw analyze --json` for the same runs: each figure is
 * the double that JSON's text reads back as (collector/analyze_json.c's rounding): times in s
 * and energies in J to 6 decimals from the exact integers (half away from zero), a mean power
 * to 3 decimals of W from mw_energy_mean_power_mw (NaN for no window time), and a double
 * printed with `decimals` decimals (NaN stays NaN). */
double rp_an_seconds(__int128 ns);
double rp_an_joules(mw_energy_pj pj);
double rp_an_mean_w(mw_energy_pj pj, int64_t covered_ns);
double rp_an_round(double v, int decimals);

/* ---- the page ---------------------------------------------------------------------------- */

/* The JSON of mw fit, read leniently (report_model.c): a member or NULL; a number, or NaN for
 * null or missing; a string or NULL; 1 true, 0 false, -1 null or missing; an array's length
 * (0 for anything else) and its element i or NULL. */
json_object *rp_jget(json_object *o, const char *k);
double rp_jnum(json_object *o, const char *k);
const char *rp_jstr(json_object *o, const char *k);
int rp_jbool(json_object *o, const char *k);
size_t rp_jlen(json_object *a);
json_object *rp_jat(json_object *a, size_t i);

/* The page (report_page.c) of a report analysed (rp_report_analyse succeeded): inputs as
 * given, figures 0 when --no-figures, argv the command line for the footer. */
void rp_write_page(FILE *f, const rp_report *rp, char *const *inputs, int ninputs, int figures,
                   int argc, char **argv);
#endif
