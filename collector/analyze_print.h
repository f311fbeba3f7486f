/* analyze_print — mw analyze's output: the text report (collector/analyze_print.c) and the
 * JSON document (collector/analyze_json.c) of analysed runs, across them when there are
 * several (docs/analysis.md), and the formatting both share. */
#ifndef MW_ANALYZE_PRINT_H
#define MW_ANALYZE_PRINT_H
#include <stddef.h>
#include <stdio.h>

#include "mw_analysis.h"

void mw_analyze_print_text(FILE *out, const mw_analysis_run *const *runs, size_t nruns);
void mw_analyze_print_json(FILE *out, const mw_analysis_run *const *runs, size_t nruns);
/* a run's in-band section (collector/analyze_inband.c): text (nothing without in-band
 * sources) and the JSON key "inband" (null without) */
void mw_analyze_inband_text(FILE *out, const mw_analysis_run *r);
void mw_analyze_inband_json(FILE *out, const mw_analysis_run *r);

/* ---- shared by the two (the JSON form when text is 0) ---- */
/* a length of time: text "1.234 s", JSON "1.234000" */
const char *an_secs(char *buf, size_t len, __int128 ns, int text);
/* a double with its decimals and unit, or "-" (text) / null (JSON) when not a number */
const char *an_dbl(char *buf, size_t len, double v, int decimals, const char *unit, int json);
/* the mean power of pj over cov_ns, W with 3 decimals, or "-" / null */
const char *an_mean_w(char *buf, size_t len, mw_energy_pj pj, int64_t cov_ns, int text);
/* yes or no as the estimate is bimodal, NULL when it has no estimate */
const char *an_modality(const mw_analysis_estimate *e, const char *yes, const char *no);

/* the figures compared across runs, by mw_analysis_metric */
typedef struct {
    const char *key, *group; /* JSON key, and the object it is in (NULL: the channel's) */
    const char *label;       /* text column */
    const char *unit;
    int decimals;
} an_metric;
extern const an_metric an_metrics[MW_ANALYSIS_METRICS];
#endif
