/* fitness.c — the K-means fitness (definition in fitness.h). Each call copies the selected
 * columns into a dense, per-thread scratch matrix (patterns × d floats) so that the
 * distance loop runs over contiguous memory and vectorises; the copy costs one pass over
 * the data against `iters + 1` passes × W clusters for the distances. */
#include "fitness.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

struct eeg_fit {
    const eeg_data *d;
    int clusters, iters, words;
    int *seeds;
};

eeg_fit *eeg_fit_new(const eeg_data *d, int clusters, int iters, uint64_t seed)
{
    if (!d || clusters < 1 || clusters > d->patterns || iters < 0) return NULL;
    eeg_fit *fit = calloc(1, sizeof *fit);
    int *all = malloc((size_t)d->patterns * sizeof *all);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (fit) fit->seeds = malloc((size_t)clusters * sizeof *fit->seeds);
    if (!fit || !all || !r || !fit->seeds) {
        if (fit) free(fit->seeds);
        free(fit);
        free(all);
        gsl_rng_free(r);
        return NULL;
    }
    fit->d = d;
    fit->clusters = clusters;
    fit->iters = iters;
    fit->words = (d->features + 63) / 64;
    for (int p = 0; p < d->patterns; p++)
        all[p] = p;
    gsl_rng_set(r, (unsigned long)(seed * 0x9E3779B97F4A7C15ull >> 1) + 7ul);
    gsl_ran_choose(r, fit->seeds, (size_t)clusters, all, (size_t)d->patterns, sizeof *all);
    free(all);
    gsl_rng_free(r);
    return fit;
}

void eeg_fit_free(eeg_fit *fit)
{
    if (!fit) return;
    free(fit->seeds);
    free(fit);
}

const eeg_data *eeg_fit_data(const eeg_fit *fit)
{
    return fit->d;
}
int eeg_fit_clusters(const eeg_fit *fit)
{
    return fit->clusters;
}
int eeg_fit_iters(const eeg_fit *fit)
{
    return fit->iters;
}
const int *eeg_fit_seeds(const eeg_fit *fit)
{
    return fit->seeds;
}
int eeg_fit_words(const eeg_fit *fit)
{
    return fit->words;
}

double eeg_fit_flops(const eeg_fit *fit, int d)
{
    return 3.0 * fit->d->patterns * fit->clusters * (double)d * (fit->iters + 1);
}

/* scratch for one thread: dense data, centroids, sums, assignment, distances */
typedef struct {
    size_t cap_d;
    float *x, *k;
    double *sum;
    int *assign, *count;
    float *dist;
} scratch;

static int scratch_fit(scratch *s, const eeg_fit *fit, size_t d)
{
    if (d <= s->cap_d && s->x && s->k && s->sum) return 0;
    size_t p = (size_t)fit->d->patterns, w = (size_t)fit->clusters;
    free(s->x);
    free(s->k);
    free(s->sum);
    s->x = malloc(p * d * sizeof *s->x);
    s->k = malloc(w * d * sizeof *s->k);
    s->sum = malloc(w * d * sizeof *s->sum);
    if (!s->assign) {
        s->assign = malloc(p * sizeof *s->assign);
        s->count = malloc(w * sizeof *s->count);
        s->dist = malloc(p * sizeof *s->dist);
    }
    s->cap_d = d;
    return s->x && s->k && s->sum && s->assign && s->count && s->dist ? 0 : -1;
}

static void scratch_free(scratch *s)
{
    free(s->x);
    free(s->k);
    free(s->sum);
    free(s->assign);
    free(s->count);
    free(s->dist);
    memset(s, 0, sizeof *s);
}

static float dist2(const float *restrict a, const float *restrict b, size_t d)
{
    float acc = 0.0f;
    for (size_t i = 0; i < d; i++) {
        float t = a[i] - b[i];
        acc += t * t;
    }
    return acc;
}

/* nearest centroid of every pattern; squared distance into dist */
static void assign_all(const scratch *s, size_t p, size_t w, size_t d)
{
    for (size_t i = 0; i < p; i++) {
        const float *xi = s->x + i * d;
        int best = 0;
        float bd = dist2(xi, s->k, d);
        for (size_t j = 1; j < w; j++) {
            float dj = dist2(xi, s->k + j * d, d);
            if (dj < bd) {
                bd = dj;
                best = (int)j;
            }
        }
        s->assign[i] = best;
        s->dist[i] = bd;
    }
}

static void fit_one(const eeg_fit *fit, const uint64_t *mask, double *f1, double *f2, scratch *s)
{
    const eeg_data *dt = fit->d;
    size_t d = 0;
    for (int wd = 0; wd < fit->words; wd++)
        d += (size_t)__builtin_popcountll(mask[wd]);
    if (d == 0) {
        *f1 = 1.0;
        *f2 = 0.0;
        return;
    }
    if (scratch_fit(s, fit, d) != 0) {
        *f1 = 1.0; /* no memory: the worst fitness, never a wrong good one */
        *f2 = 0.0;
        return;
    }
    size_t p = (size_t)dt->patterns, w = (size_t)fit->clusters, F = (size_t)dt->features;
    /* dense copy of the selected columns */
    for (size_t i = 0; i < p; i++) {
        const float *row = dt->x + i * F;
        float *out = s->x + i * d;
        size_t c = 0;
        for (int wd = 0; wd < fit->words; wd++) {
            uint64_t bits = mask[wd];
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                out[c++] = row[(size_t)wd * 64 + (size_t)b];
            }
        }
    }
    for (size_t j = 0; j < w; j++)
        memcpy(s->k + j * d, s->x + (size_t)fit->seeds[j] * d, d * sizeof *s->k);

    for (int it = 0; it < fit->iters; it++) {
        assign_all(s, p, w, d);
        memset(s->sum, 0, w * d * sizeof *s->sum);
        memset(s->count, 0, w * sizeof *s->count);
        for (size_t i = 0; i < p; i++) {
            double *sum = s->sum + (size_t)s->assign[i] * d;
            const float *xi = s->x + i * d;
            for (size_t c = 0; c < d; c++)
                sum[c] += xi[c];
            s->count[s->assign[i]]++;
        }
        for (size_t j = 0; j < w; j++) {
            if (s->count[j] == 0) continue;
            double inv = 1.0 / s->count[j];
            for (size_t c = 0; c < d; c++)
                s->k[j * d + c] = (float)(s->sum[j * d + c] * inv);
        }
    }
    assign_all(s, p, w, d);

    /* f1: mean over non-empty clusters of the mean distance to the centroid */
    double intra = 0.0;
    int nonempty = 0;
    for (size_t j = 0; j < w; j++) {
        double acc = 0.0;
        int n = 0;
        for (size_t i = 0; i < p; i++)
            if ((size_t)s->assign[i] == j) {
                acc += sqrt((double)s->dist[i]);
                n++;
            }
        if (n > 0) {
            intra += acc / n;
            nonempty++;
        }
    }
    double sd = sqrt((double)d);
    *f1 = intra / nonempty / sd;
    /* f2: mean distance between centroids */
    double inter = 0.0;
    int pairs = 0;
    for (size_t i = 0; i < w; i++)
        for (size_t j = i + 1; j < w; j++) {
            inter += sqrt((double)dist2(s->k + i * d, s->k + j * d, d));
            pairs++;
        }
    *f2 = pairs ? inter / pairs / sd : 0.0;
}

void eeg_fit_one(const eeg_fit *fit, const uint64_t *mask, double *f1, double *f2)
{
    scratch s = {0};
    fit_one(fit, mask, f1, f2, &s);
    scratch_free(&s);
}

void eeg_fit_eval(const eeg_fit *fit, const uint64_t *masks, int n, double *f1, double *f2,
                  int threads)
{
    if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel num_threads(threads)
    {
        scratch s = {0};
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < n; i++)
            fit_one(fit, masks + (size_t)i * (size_t)fit->words, &f1[i], &f2[i], &s);
        scratch_free(&s);
    }
}
