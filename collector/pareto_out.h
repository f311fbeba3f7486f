/* pareto_out — what "mw pareto" prints of a front computed by libmwmodels (pareto.h): the
 * text report (the runs the profile came from, the devices by rank, the additivity figure,
 * the front's points with the split at each, its segments, LBOPA-TE's pieces, the split for
 * the query) and the same as one JSON document (docs/models.md). */
#ifndef MW_PARETO_OUT_H
#define MW_PARETO_OUT_H
#include <stddef.h>
#include <stdio.h>

#include "mw_profile.h"
#include "pareto.h"
#include "pareto_runs.h"

typedef struct {
    const char *source;         /* the profile file, or "profile from N runs" */
    const mw_pareto_runs *runs; /* the runs, or NULL for a profile file */
    const char *units;          /* the runs' counter of units of work */
    const mw_profile *profile;  /* the devices' names */
    const mw_lbopa_device *dev; /* the devices, in the profile's order */
    const mw_pareto_solution *s;
    double ps_W; /* the static power, when has_ps */
    int has_ps, has_add;
    double add_rel; /* additivity: mean relative difference over add_n sizes */
    size_t add_n;
} mw_pareto_report;

void mw_pareto_print_text(FILE *out, const mw_pareto_report *r);
void mw_pareto_print_json(FILE *out, const mw_pareto_report *r);
#endif
