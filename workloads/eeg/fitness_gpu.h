/* fitness_gpu.h — the K-means fitness of fitness.h evaluated on a CUDA GPU (Escobar et al.
 * Algorithm 4: one thread block per individual; the block's threads share the pattern
 * assignment and the centroid update). Same definition as fitness.h, step for step; the
 * results agree with eeg_fit_one within float rounding (not bitwise: the reductions run in
 * another order). Built from fitness_gpu.cu where nvcc is; elsewhere fitness_gpu_none.c
 * provides the same functions, which report that there is no GPU. Each call records its
 * copies and kernel as GPU phases (mwprobe_cuda.h) when run under `mw record`. */
#ifndef EEG_FITNESS_GPU_H
#define EEG_FITNESS_GPU_H
#include <stdint.h>

#include "fitness.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eeg_gpu eeg_gpu;

/* The number of CUDA devices usable here (0 without CUDA, a driver or a device). */
int eeg_gpu_count(void);
/* Copies the data and the initial centroids' pattern indices to device `device`; NULL
 * with a one-line reason in *why (static text) when that is impossible. */
eeg_gpu *eeg_gpu_new(const eeg_fit *fit, int device, const char **why);
/* n individuals (masks n × eeg_fit_words(fit)), f1 and f2 as eeg_fit_eval. Blocks until
 * done. Returns 0, or −1 on a CUDA error (f1, f2 then hold the worst values 1, 0). */
int eeg_gpu_eval(eeg_gpu *g, const uint64_t *masks, int n, double *f1, double *f2);
/* The device's name ("NVIDIA H100 80GB HBM3"). */
const char *eeg_gpu_name(const eeg_gpu *g);
void eeg_gpu_free(eeg_gpu *g);

#ifdef __cplusplus
}
#endif
#endif
