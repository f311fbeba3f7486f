/* mw_report — what the files of `mw report` share: the runs, sweeps and figures of one report
 * (filled by cmd_report.c: inputs, child processes, metadata) and the page writer
 * (plots/report_page.c and its sections: the HTML of docs/report.md). Names: rp_ (report). */
#ifndef MW_REPORT_INTERNAL_H
#define MW_REPORT_INTERNAL_H
#include <json.h>
#include <stddef.h>
#include <stdio.h>

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
    char *title;     /* how the page names it: the directory, or "LABEL, repetition N" */
    int sweep;       /* index of its sweep, -1 for a run given directly */
    json_object *an; /* its object in analyze's "runs" (borrowed) */
    char **key, **val;
    size_t nmeta;
    rp_channel *ch;
    size_t nch;
    long long ngaps, nphases;
    rp_gap *gap; /* the first RP_MAX_GAPS */
    size_t ngap_rows;
    /* from the analysis */
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

typedef struct {
    rp_run *run;
    size_t nrun;
    rp_sweep *sw;
    size_t nsw;
    json_object *analysis;
    json_object *fit, *fit_mode; /* mw fit --json (predict / fit mode), or NULL */
    char fit_note[512];          /* why no predict table, or why no fit mode */
    char fit_mode_note[512];
    size_t nescobar;
    rp_fig *fig;
    size_t nfig;
    int fig_failed;     /* mw plot said a figure failed */
    char fig_note[512]; /* why mw plot could not run */
} rp_report;

/* The JSON of mw analyze and mw fit, read leniently (report_model.c): a member or NULL; a
 * number, or NaN for null or missing; a string or NULL; 1 true, 0 false, -1 null or
 * missing; an array's length (0 for anything else) and its element i or NULL. */
json_object *rp_jget(json_object *o, const char *k);
double rp_jnum(json_object *o, const char *k);
const char *rp_jstr(json_object *o, const char *k);
int rp_jbool(json_object *o, const char *k);
size_t rp_jlen(json_object *a);
json_object *rp_jat(json_object *a, size_t i);

/* The page (report_page.c): inputs as given, figures 0 when --no-figures, argv the command
 * line for the footer. */
void rp_write_page(FILE *f, const rp_report *rp, char *const *inputs, int ninputs, int figures,
                   int argc, char **argv);
#endif
