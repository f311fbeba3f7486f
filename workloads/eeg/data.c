/* data.c — the synthetic EEG-like data set (design in data.h). Random numbers come from
 * GSL (gsl_rng_mt19937, gsl_ran_gaussian_ziggurat, gsl_ran_shuffle), seeded once. */
#include "data.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void eeg_data_free(eeg_data *d)
{
    free(d->x);
    free(d->label);
    free(d->informative);
    memset(d, 0, sizeof *d);
}

int eeg_data_synth(eeg_data *d, int patterns, int features, int classes, int informative,
                   double separation, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    if (classes < 2 || patterns < classes || features < 1 || informative < 0 ||
        informative > features)
        return -1;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    size_t n = (size_t)patterns * (size_t)features;
    d->x = malloc(n * sizeof *d->x);
    d->label = malloc((size_t)patterns * sizeof *d->label);
    d->informative = calloc((size_t)features, 1);
    int *order = malloc((size_t)features * sizeof *order);
    double *sign = malloc((size_t)features * sizeof *sign);
    if (!r || !d->x || !d->label || !d->informative || !order || !sign) {
        gsl_rng_free(r);
        free(order);
        free(sign);
        eeg_data_free(d);
        return -1;
    }
    gsl_rng_set(r, (unsigned long)(seed ^ (seed >> 32)) + 1ul);
    d->patterns = patterns;
    d->features = features;
    d->classes = classes;
    d->n_informative = informative;

    for (int f = 0; f < features; f++)
        order[f] = f;
    gsl_ran_shuffle(r, order, (size_t)features, sizeof *order);
    for (int i = 0; i < informative; i++)
        d->informative[order[i]] = 1;
    for (int f = 0; f < features; f++)
        sign[f] = gsl_rng_uniform(r) < 0.5 ? -1.0 : 1.0;

    const double mid = (classes - 1) / 2.0;
    for (int p = 0; p < patterns; p++) {
        int c = p % classes;
        d->label[p] = c;
        double drift = gsl_ran_gaussian_ziggurat(r, 0.5);
        float *row = d->x + (size_t)p * (size_t)features;
        for (int f = 0; f < features; f++) {
            double v = gsl_ran_gaussian_ziggurat(r, 1.0) +
                       drift * sin(2.0 * M_PI * 3.0 * f / (double)features);
            if (d->informative[f]) v += separation * (c - mid) * sign[f];
            row[f] = (float)v;
        }
    }
    /* min–max scaling per feature */
    for (int f = 0; f < features; f++) {
        float lo = d->x[f], hi = d->x[f];
        for (int p = 1; p < patterns; p++) {
            float v = d->x[(size_t)p * (size_t)features + (size_t)f];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        float span = hi > lo ? hi - lo : 1.0f;
        for (int p = 0; p < patterns; p++) {
            float *v = &d->x[(size_t)p * (size_t)features + (size_t)f];
            *v = (*v - lo) / span;
        }
    }
    free(order);
    free(sign);
    gsl_rng_free(r);
    return 0;
}
