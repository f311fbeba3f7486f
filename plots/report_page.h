/* report_page — what the files that write the page of `mw report` share (libmwplot only, not
 * installed): table cells and tables (report_cells.c), the run's metadata, and the sections
 * written outside report_page.c (report_sweep.c, report_model.c, report_meta.c).
 *
 * Cells: every string from outside goes through mw_html_text (report_html.h); a missing
 * string or number is an en dash; numbers carry their units (mw_html_num, energy, seconds). */
#ifndef MW_REPORT_PAGE_H
#define MW_REPORT_PAGE_H
#include <stddef.h>
#include <stdio.h>

#include "mw_report.h"

#define RP_CONFIDENCE 0.95     /* of the Student-t intervals */
#define RP_DASH "\xE2\x80\x93" /* a figure that does not exist */
#define RP_PLUS_MINUS "\xC2\xB1"

/* ---- cells and tables (report_cells.c) ---- */
void rp_td_text(FILE *f, const char *s); /* text, a dash for NULL or "" */
void rp_td_code(FILE *f, const char *s); /* <code>text</code> */
void rp_td_n(FILE *f, const char *s);    /* a number cell of our own text */
void rp_td_num(FILE *f, double v, int decimals, const char *unit);
void rp_td_energy(FILE *f, double j);
void rp_td_seconds(FILE *f, double s);
/* mean ± sd (sd not finite: the mean alone); energy: both by mw_html_energy */
void rp_td_mean_sd(FILE *f, double mean, double sd, int decimals, const char *unit, int energy);
/* the RP_CONFIDENCE Student-t interval of the mean of x[0..n) (models/include/stats.h), a dash for
 * fewer than two values */
void rp_td_ci(FILE *f, const double *x, size_t n, int decimals, const char *unit, int energy);
/* a row "label: value" of a key-value table, none when value is NULL or "" */
void rp_kv_row(FILE *f, const char *label, const char *value, int code);
/* the header row; a column whose name starts with '>' is a number column */
void rp_thead(FILE *f, const char *const *cols);
/* A run's block: <details> (open up to three runs) for several runs, nothing for one. */
void rp_run_open(FILE *f, const rp_report *rp, size_t i);
void rp_run_close(FILE *f, const rp_report *rp);

/* ---- the run's metadata ---- */
const char *rp_meta(const rp_run *r, const char *key);          /* NULL when missing */
int rp_meta_ll(const rp_run *r, const char *key, long long *v); /* 0, or -1: missing, bad */

/* ---- sections ---- */
void rp_section_sweep(FILE *f, const rp_report *rp); /* nothing without a sweep */
void rp_section_model(FILE *f, const rp_report *rp); /* nothing without eeg-mofs runs */
void rp_section_meta(FILE *f, const rp_report *rp);
void rp_section_inband(FILE *f, const rp_report *rp); /* nothing without in-band sources */
int rp_has_inband(const rp_report *rp);
/* The papers the page names (Escobar et al. 2019, ...), in full. */
void rp_references(FILE *f);
void rp_section_findings(FILE *f, const rp_report *rp); /* report_findings.c: first */
/* 1 when the channel called name has no host and under 1 W in every run (report_findings.c):
 * "nothing connected", said once among the warnings */
int rp_unconnected(const rp_report *rp, const char *name);
#endif
