/* stats_out — what "mw stats" (cmd_stats.c) holds of its groups of runs, and its two
 * layouts of the result: a text report (the groups' n, mean, sd and confidence interval,
 * every run's value, then the tests) and a JSON document (schema megawatt.stats/1,
 * json_schema.h). cmd_stats.c parses the arguments, reads each run's value and computes
 * the figures (models/include/stats_groups.h); these only print them. Names and paths are
 * escaped for the terminal in text (textout.h) and as JSON strings in JSON; a figure that
 * does not exist (the sd of one run) is "-" in text and null in JSON, never NaN. */
#ifndef MW_STATS_OUT_H
#define MW_STATS_OUT_H
#include <stddef.h>

#include "stats_groups.h"

/* the per-run figure compared; MW_STCMD_Q_NONE: not given */
typedef enum {
    MW_STCMD_Q_NONE,
    MW_STCMD_Q_POW_IDLE,
    MW_STCMD_Q_POW_WORK,
    MW_STCMD_Q_MEAN_POWER,
    MW_STCMD_Q_ENERGY
} mw_stcmd_quantity;

typedef struct {
    char *name;
    mw_stcmd_quantity q; /* MW_STCMD_Q_NONE: the --quantity */
    char **runs;         /* argv entries */
    size_t nruns;
    double *values;     /* one per run */
    mw_stats_group fig; /* n, mean, sd, CI (models/include/stats_groups.h) */
    char label[160];    /* in the tests' lines: the name, or NAME:Q when names repeat */
} mw_stcmd_group;

typedef struct {
    const char *channel;
    mw_stcmd_quantity q;
    int json, gmm;
    double confidence;
    mw_stcmd_group *groups;
    size_t ngroups;
} mw_stcmd_opts;

/* "pow_idle", "pow_work", "mean_power", "energy" ("" for MW_STCMD_Q_NONE) */
const char *mw_stcmd_quantity_name(mw_stcmd_quantity q);
/* "J" for energy, else "W" */
const char *mw_stcmd_quantity_unit(mw_stcmd_quantity q);

/* The comparison T of o's groups on standard output, as JSON or as text. */
void mw_stcmd_print_json(const mw_stcmd_opts *o, const mw_stats_comparison *T);
void mw_stcmd_print_text(const mw_stcmd_opts *o, const mw_stats_comparison *T);
#endif
