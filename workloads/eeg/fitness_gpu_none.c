/* fitness_gpu_none.c — fitness_gpu.h for builds without nvcc: there is never a GPU, so
 * eeg-mofs evaluates on the CPU (fitness.c) and says why it cannot use a GPU. */
#include "fitness_gpu.h"

#include <stddef.h>

int eeg_gpu_count(void)
{
    return 0;
}

eeg_gpu *eeg_gpu_new(const eeg_fit *fit, int device, const char **why)
{
    (void)fit;
    (void)device;
    if (why) *why = "built without CUDA (no nvcc)";
    return NULL;
}

int eeg_gpu_eval(eeg_gpu *g, const uint64_t *masks, int n, double *f1, double *f2)
{
    (void)g;
    (void)masks;
    for (int i = 0; i < n; i++) {
        f1[i] = 1.0;
        f2[i] = 0.0;
    }
    return -1;
}

const char *eeg_gpu_name(const eeg_gpu *g)
{
    (void)g;
    return "none";
}

void eeg_gpu_free(eeg_gpu *g)
{
    (void)g;
}
