/* fitness.h — the K-means fitness of a feature mask (Escobar et al. §3, eq. 1–2, Algorithm 3).
 *
 * An individual is a mask of the data's features (bit f of word f/64 set = feature f
 * selected). Its fitness is computed on the patterns restricted to its d selected features
 * (in ascending feature order), exactly as follows — the CUDA version (fitness_gpu.h) and
 * the tests follow the same definition:
 *   1. d = 0: f1 = 1, f2 = 0 (the worst values), nothing else.
 *   2. The W initial centroids are the patterns eeg_fit_seeds() names (chosen once per run
 *      from the data with the seed: W distinct patterns), restricted to the mask.
 *   3. `iters` times: assign every pattern to its nearest centroid (squared Euclidean
 *      distance, ties to the lower cluster index), then move every centroid to the mean of
 *      its patterns (an empty cluster keeps its centroid). A fixed count, no early stop, so
 *      every individual costs the same (the runtime model's t_CPU, t_GPU).
 *   4. A last assignment with the final centroids gives each pattern's cluster and distance.
 *   5. f1 (eq. 1, intra-cluster, minimised) = mean over the non-empty clusters j of the
 *      mean distance ‖P_i − K_j‖ of its patterns, divided by √d;
 *      f2 (eq. 2, inter-cluster, maximised) = mean over pairs i < j of ‖K_i − K_j‖, / √d.
 * The data lie in [0, 1]^d, so both lie in [0, 1] (the paper's "maximum value of the cost
 * functions is 1"); eq. 1 as printed is the maximised form 1 − f1, which the hypervolume
 * uses (hv.h). Distances are accumulated in float over a dense copy of the selected
 * columns (a vectorisable inner loop), centroid sums in double; f1, f2 in double. */
#ifndef EEG_FITNESS_H
#define EEG_FITNESS_H
#include <stdint.h>

#include "data.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eeg_fit eeg_fit;

/* clusters ≥ 1 and ≤ the number of patterns, iters ≥ 0; the seed picks the initial
 * centroids. NULL for bad arguments or no memory. The data must outlive the context. */
eeg_fit *eeg_fit_new(const eeg_data *d, int clusters, int iters, uint64_t seed);
void eeg_fit_free(eeg_fit *fit);

const eeg_data *eeg_fit_data(const eeg_fit *fit);
int eeg_fit_clusters(const eeg_fit *fit);
int eeg_fit_iters(const eeg_fit *fit);
const int *eeg_fit_seeds(const eeg_fit *fit); /* clusters pattern indices */
int eeg_fit_words(const eeg_fit *fit);        /* uint64 words per mask */

/* One individual on the calling thread. */
void eeg_fit_one(const eeg_fit *fit, const uint64_t *mask, double *f1, double *f2);
/* n individuals (masks n × words, contiguous), `threads` OpenMP threads (≤ 0: the
 * OpenMP default), one individual per thread at a time (Algorithm 3). */
void eeg_fit_eval(const eeg_fit *fit, const uint64_t *masks, int n, double *f1, double *f2,
                  int threads);
/* Floating-point operations one individual with d selected features costs (for the
 * benchmarks: 3 per pattern, cluster and feature and iteration for the distances). */
double eeg_fit_flops(const eeg_fit *fit, int d);

#ifdef __cplusplus
}
#endif
#endif
