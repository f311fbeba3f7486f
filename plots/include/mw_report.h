/* mw_report — `mw report` as a library (libmwplot; docs/report.md): what one report is made
 * of and the HTML page written from it. Names: rp_ (report).
 *
 * A report is built in steps, each a call here, and then written:
 *   rp_report_collect   the inputs (runs and sweeps) become the runs, each with its metadata,
 *                       channels and gaps (the run store, read-only) and the sweeps' tables
 *                       (report_build.c);
 *   rp_report_analyse   every run's analysis, the analysis of `mw analyze` (libmwmodels:
 *                       mw_analysis_read, no options), the mean +- sd across runs
 *                       (mw_analysis_aggregate_runs) and the figures derived per run
 *                       (report_analysis.c);
 *   rp_report_escobar   which runs the Escobar model reads (eeg-mofs runs, models/include/escobar.h);
 *   rp_report_model     the model tables: libmwmodels' study of those runs (escobar_study.h,
 *                       `mw fit --model escobar`'s computation), predict mode, then fit mode
 *                       (report_model.c);
 *   rp_report_figures   the figures of `mw plot`, drawn in-process (mw_plot_run_job) into
 *                       DIR/fig and, for 2 to RP_MAX_RUN_FIGURES runs, DIR/fig/runN
 *                       (report_figures.c);
 *   rp_write_page       the page (report_page.c and the section files report_*.c).
 * Nothing here prints, exits or runs mw: messages go to rp_report.say (progress, warnings, the
 * lines of mw plot and mw analyze as those commands say them), failures come back as -1 with
 * one line in err; the only program run is gnuplot (the figures). */
#ifndef MW_REPORT_H
#define MW_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "escobar_study.h"
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
    char *like;          /* what it is like, for statistics across runs: "SWEEPDIR: LABEL"
                            for a sweep's run, else its recorded command (NULL: none) */
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
    mw_analysis_aggregate agg;  /* mean +- sd per channel name over the runs */
    mw_escobar_study *fit;      /* the model's study in predict mode, or NULL (fit_note) */
    mw_escobar_study *fit_mode; /* in fit mode, or NULL (fit_mode_note) */
    char fit_note[512];         /* why no predict table, as mw fit said it */
    char fit_mode_note[512];    /* why no fit, as mw fit said it */
    char **fit_warnings;        /* mw fit's own warnings on the way ("v3: fitted t_lm_s ..."),
                                   each carried to the page */
    size_t nfit_warnings;
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

/* The runs of inputs[0..n) (each a RUNDIR or a SWEEPDIR, whose finished runs it stands for,
 * mw_sweepidx_expand) with their metadata, channels and gaps, and the sweeps' tables. -1 on
 * input that is not usable (not a directory, neither run nor sweep, a run given twice, an
 * unreadable store), with the reason in err. */
int rp_report_collect(rp_report *rp, char *const *inputs, int n, char *err, size_t errlen);
/* The analysis of every run (mw_analysis_read with no options, in order), the aggregate and
 * each run's derived figures; constant channels are said as mw analyze says them. -1 with
 * mw_analysis_read's reason for the first run that cannot be analysed. */
int rp_report_analyse(rp_report *rp, char *err, size_t errlen);
/* Marks the runs the Escobar model reads (mw_escobar_from_run; else escobar_err says why);
 * returns how many (rp->nescobar). */
size_t rp_report_escobar(rp_report *rp);
/* The model tables of the runs rp_report_escobar marked (call it first): the study of
 * `mw fit --model escobar --mode predict` over their directories (mw_escobar_study_run), then,
 * when that succeeded, fit mode over the same runs as read (mw_escobar_study_of_runs). 0 when
 * the prediction succeeded (fit_mode may still be NULL, with fit_mode_note), -1 when it did
 * not (fit_note). A note reads as when mw fit was a child process and the page took the last
 * line of its standard error: the last line of "mw fit: " and the study's message, without
 * trailing blanks, at most 399 bytes (a run's name with a newline leaves only its end). The
 * fit's notes (a fit at its iteration limit, a fitted value < 0) are not shown or said, as
 * they were not then. */
int rp_report_model(rp_report *rp);

typedef struct {
    char *const *inputs; /* as given to the report */
    int ninputs;
    const char *profile; /* a mw pareto profile for the pareto figure, or NULL */
    const char *freqs;   /* CPU frequencies for the dvfs figure (mw plot --freqs), or NULL */
    const char *out_dir; /* the report's directory: figures in OUT_DIR/fig[/runN] */
} rp_figure_request;

/* The figures (docs/report.md): mw plot's over every input and the profile into fig/ (one
 * run: its per-run figures; several: those across runs), and each run's own in fig/runN for
 * up to RP_MAX_RUN_FIGURES runs (beyond: the runs given by themselves and the first run of
 * each sweep, up to that many). A failed figure leaves the others (fig_failed); a job refused,
 * or with an unusable run, leaves fig_note instead of its figures. */
void rp_report_figures(rp_report *rp, const rp_figure_request *req);
/* Everything the steps made; the report is then empty (a zeroed rp_report frees nothing). */
void rp_report_free(rp_report *rp);
/* DIR/NAME (malloc'd), DIR's trailing slashes dropped */
char *rp_path_join(const char *dir, const char *name);

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

/* ---- the model as mw fit --json stated it ------------------------------------------------- */

/* The page shows the model's numbers as it did when it read `mw fit --json` (the studies'
 * doubles as that JSON's text read back with json-c; collector/cmd_fit.c): rp_fit_number is
 * v printed "%.10g" (mw_out_json_number), rp_fit_paper v printed "%.3f" (the paper's NRMSE),
 * then read as json-c reads a number: strtod, or, for text without '.' or exponent, as an
 * integer (so "-0" is +0); NaN for a v that is not finite (the JSON's null). */
double rp_fit_number(double v);
double rp_fit_paper(double v);

/* ---- the page ---------------------------------------------------------------------------- */

/* The page (report_page.c) of a report analysed (rp_report_analyse succeeded): inputs as
 * given, figures 0 when --no-figures, argv the command line for the footer. */
void rp_write_page(FILE *f, const rp_report *rp, char *const *inputs, int ninputs, int figures,
                   int argc, char **argv);
#endif
