/* pareto — the computation of "mw pareto" (Khaleghzadeh et al., lbopa.h) from a workload profile
 * (mw_profile.h), apart from its options and its printing:
 *   - the devices: a= lines are linear time functions with their b; devices with measured
 *     points go through the profile builder one by one (mw_lbopa_profile_build: the mean
 *     time per size; b fitted from the energies, or b= when given);
 *   - the additivity figure of the "together" points against the devices' own energies;
 *   - the front (LBOPA) with PARTITION's split at each of its end-points, LBOPA-TE's pieces
 *     for a static power, and the split for a time or an energy budget: real, and rounded to
 *     integers summing to n when n is an integer.
 * Messages about the profile name FILE:LINE as the reader does. Every number comes from
 * checked finite input through functions that return -1 rather than NaN. */
#ifndef MW_PARETO_H
#define MW_PARETO_H
#include <stddef.h>

#include "lbopa.h"
#include "mw_profile.h"

typedef struct {
    int k;
    mw_lbopa_device *dev;     /* k devices in the profile's order */
    mw_lbopa_profile *points; /* k: the point devices' functions (dev[i] borrows from them) */
} mw_pareto_devices;

/* The profile's devices. Returns 0, or -1 with "FILE:LINE: device 'NAME': reason" in err
 * (the builder refusing a device's points: times not increasing with size, ...). */
int mw_pareto_devices_build(const mw_profile *p, mw_pareto_devices *out, char *err, size_t errlen);
void mw_pareto_devices_free(mw_pareto_devices *d);

/* The additivity figure of the profile's together points (p->ntogether > 0): the mean
 * relative difference between the devices' dynamic energies alone and together over the
 * sizes measured both ways (mw_lbopa_additivity). Returns 0, or -1 with "FILE:LINE: ..." in
 * err (a device without measured energies, no together size measured on every device). */
int mw_pareto_additivity(const mw_profile *p, double *mean_rel, size_t *nsizes, char *err,
                         size_t errlen);

typedef enum {
    MW_PARETO_NO_QUERY,
    MW_PARETO_BY_TIME,        /* the split finishing in the asked time, s */
    MW_PARETO_BY_ENERGY,      /* the fastest within the asked dynamic energy, J */
    MW_PARETO_BY_TOTAL_ENERGY /* ... within the asked total energy (needs LBOPA-TE), J */
} mw_pareto_by;

typedef struct {
    mw_pareto_front front;
    double *split_units; /* (front.nseg + 1) x k: row r the split at the front's point r */
    int has_te;
    mw_pareto_te te; /* LBOPA-TE, when asked for */
    /* the query */
    mw_pareto_by by;
    double asked; /* s or J */
    double t_s, e_J;
    double *x_units; /* k: the split */
    int has_int;     /* x rounded (n an integer): */
    long long *xi;   /* k, summing to n */
    double int_t_s, int_e_J;
} mw_pareto_solution;

#define MW_PARETO_OFF_FRONT 1 /* the asked time or energy is off the front */

/* The front of the k devices for n_units; with total, LBOPA-TE at ps_W; with a query (by,
 * asked), its split. Returns 0; MW_PARETO_OFF_FRONT (the front, and LBOPA-TE for a total
 * energy, are in *out for the message); or -1 with the reason in err, empty when there is
 * nothing to add to the failure. Free *out with mw_pareto_solution_free in every case. */
int mw_pareto_solve(const mw_lbopa_device *dev, int k, double n_units, double ps_W, int total,
                    mw_pareto_by by, double asked, mw_pareto_solution *out, char *err,
                    size_t errlen);
void mw_pareto_solution_free(mw_pareto_solution *s);
#endif
