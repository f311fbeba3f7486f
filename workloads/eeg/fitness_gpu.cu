/* fitness_gpu.cu — the K-means fitness of fitness.h on a CUDA GPU (interface in
 * fitness_gpu.h; Escobar et al. Algorithm 4: one thread block per individual).
 *
 * Design. eeg_gpu_new copies the data to the device twice, row-major x (patterns ×
 * features, as eeg_data) and column-major xt (features × patterns, the paper's DS^t), plus
 * the W seed pattern indices. eeg_gpu_eval checks the masks and finds the batch's largest
 * d on the host, copies the masks over, and launches one block of EEG_GPU_THREADS (256)
 * threads per individual, in chunks of as many blocks as their global scratch fits in
 * min(1 GiB, half the free memory). A block's scratch, sized for the largest d, holds the
 * selected feature indices (idx, d ints, built by thread 0 in ascending order), the
 * centroids (W×d floats: 43 KB at the paper's d = 3,600, W = 3, more than is safe to ask
 * of shared memory) and each pattern's cluster and squared distance. The steps of
 * fitness.h, each followed by __syncthreads():
 *   - initial centroids: threads over (cluster, selected feature) copy the seed patterns;
 *   - assignment: one thread per pattern loops over the clusters and selected features,
 *     reading xt (consecutive threads read consecutive patterns: coalesced) against the
 *     centroid (one address for the whole warp: a broadcast); ties to the lower index;
 *   - update: one thread per selected feature c; for each cluster it sums column c of x
 *     over the cluster's patterns in ascending order in double and counts them, then
 *     writes the mean into the centroid (an empty cluster keeps it). Each thread owns its
 *     column of every centroid: no atomics, no block reduction;
 *   - the last assignment; then thread 0 computes f1 and f2 serially (O(W·P + W²·d)).
 * Every floating-point operation is done in the CPU's order and precision: a distance is a
 * float sum over the features in ascending order with separately rounded −, ×, +
 * (__fsub_rn, __fmul_rn, __fadd_rn: no fused multiply-add, which the x86-64 CPU build at
 * -O2 does not use either), a centroid sum is a double sum over the patterns in ascending
 * order, the new centroid (float)(sum × (1.0 / count)), f1 and f2 the CPU's own double
 * loops. So the GPU should reproduce eeg_fit_one bit for bit; fitness_gpu.h promises only
 * agreement within float rounding, which also covers a CPU build that contracts to FMA.
 * Parallelism inside a block is min(patterns, 256) threads for the assignment and min(d,
 * 256) for the update (the paper's 178 patterns leave 78 threads idle in the assignment);
 * the rest comes from running many individuals (blocks) at once. Not thread-safe: one
 * eeg_gpu per host thread. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fitness.h and data.h are C headers without extern "C" of their own */
extern "C" {
#include "data.h"
#include "fitness.h"
}
#include "fitness_gpu.h"

#include "mwprobe_cuda.h"

#define EEG_GPU_THREADS 256
/* at most this much global scratch per launch (and at most half the free memory) */
#define EEG_GPU_SCRATCH_MAX ((size_t)1 << 30)

struct eeg_gpu {
    int device;
    int patterns, features, clusters, iters, words;
    cudaStream_t stream;
    float *x, *xt;   /* patterns × features, features × patterns */
    int *seeds;      /* clusters */
    uint64_t *masks; /* cap_n × words */
    double *f1, *f2; /* cap_n */
    int cap_n;
    char *scratch;
    size_t cap_scratch;
    char name[256];
};

/* ---- device code ------------------------------------------------------------------------ */

static size_t align256(size_t n) { return (n + 255) & ~(size_t)255; }

/* Layout of one block's scratch for at most dmax selected features; the offsets keep every
 * array aligned for its type. */
struct layout {
    size_t k, dist, idx, assign, stride;
};

static struct layout layout_for(int patterns, int clusters, int dmax)
{
    size_t p = (size_t)patterns, w = (size_t)clusters, d = (size_t)dmax;
    struct layout l;
    l.k = 0;
    l.dist = l.k + align256(w * d * sizeof(float));
    l.idx = l.dist + align256(p * sizeof(float));
    l.assign = l.idx + align256(d * sizeof(int));
    l.stride = l.assign + align256(p * sizeof(int));
    return l;
}

/* squared distance between pattern i (column-major xt, P rows) over the selected features
 * idx[0 … d−1] and centroid kj (d floats), in the CPU's order (fitness.c dist2) */
__device__ static float dist2_pattern(const float *xt, int P, int i, const int *idx,
                                      const float *kj, int d)
{
    float acc = 0.0f;
    for (int c = 0; c < d; c++) {
        float t = __fsub_rn(xt[(size_t)idx[c] * (size_t)P + (size_t)i], kj[c]);
        acc = __fadd_rn(acc, __fmul_rn(t, t));
    }
    return acc;
}

__device__ static float dist2_centroids(const float *a, const float *b, int d)
{
    float acc = 0.0f;
    for (int c = 0; c < d; c++) {
        float t = __fsub_rn(a[c], b[c]);
        acc = __fadd_rn(acc, __fmul_rn(t, t));
    }
    return acc;
}

/* nearest centroid of every pattern (ties to the lower index), squared distance into dist */
__device__ static void assign_all(const float *xt, int P, int W, const int *idx, int d,
                                  const float *k, int *assign, float *dist)
{
    for (int i = threadIdx.x; i < P; i += blockDim.x) {
        int best = 0;
        float bd = dist2_pattern(xt, P, i, idx, k, d);
        for (int j = 1; j < W; j++) {
            float dj = dist2_pattern(xt, P, i, idx, k + (size_t)j * (size_t)d, d);
            if (dj < bd) {
                bd = dj;
                best = j;
            }
        }
        assign[i] = best;
        dist[i] = bd;
    }
}

/* Individual first + blockIdx.x; its mask is masks + that × words. */
__global__ static void kmeans_kernel(const float *__restrict__ x, const float *__restrict__ xt,
                                     const int *__restrict__ seeds,
                                     const uint64_t *__restrict__ masks, int first, int words,
                                     int P, int F, int W, int iters, struct layout l,
                                     char *scratch, double *f1, double *f2)
{
    const int ind = first + (int)blockIdx.x;
    const uint64_t *mask = masks + (size_t)ind * (size_t)words;
    char *base = scratch + (size_t)blockIdx.x * l.stride;
    /* written and read by several threads of the block: plain pointers (no __restrict__,
     * no read-only cache), ordered by __syncthreads() */
    float *k = (float *)(base + l.k);
    float *dist = (float *)(base + l.dist);
    int *idx = (int *)(base + l.idx);
    int *assign = (int *)(base + l.assign);
    __shared__ int s_d;

    /* 1. the selected features, ascending */
    if (threadIdx.x == 0) {
        int d = 0;
        for (int wd = 0; wd < words; wd++) {
            uint64_t bits = mask[wd];
            while (bits) {
                int b = __ffsll((long long)bits) - 1;
                bits &= bits - 1;
                idx[d++] = wd * 64 + b;
            }
        }
        s_d = d;
    }
    __syncthreads();
    const int d = s_d;
    if (d == 0) { /* uniform across the block: every thread leaves here */
        if (threadIdx.x == 0) {
            f1[ind] = 1.0;
            f2[ind] = 0.0;
        }
        return;
    }
    const size_t wd_total = (size_t)W * (size_t)d;

    /* 2. initial centroids: the seed patterns restricted to the mask */
    for (size_t t = threadIdx.x; t < wd_total; t += blockDim.x) {
        size_t j = t / (size_t)d, c = t % (size_t)d;
        k[t] = x[(size_t)seeds[j] * (size_t)F + (size_t)idx[c]];
    }
    __syncthreads();

    /* 3. iters × (assignment, update) */
    for (int it = 0; it < iters; it++) {
        assign_all(xt, P, W, idx, d, k, assign, dist);
        __syncthreads();
        /* one thread per selected feature c: for every cluster, the double sum of column c
         * over its patterns in ascending order (fitness.c's order), then the mean */
        for (int c = threadIdx.x; c < d; c += blockDim.x) {
            const size_t col = (size_t)idx[c];
            for (int j = 0; j < W; j++) {
                double acc = 0.0;
                int n = 0;
                for (int i = 0; i < P; i++)
                    if (assign[i] == j) {
                        acc += (double)x[(size_t)i * (size_t)F + col];
                        n++;
                    }
                if (n == 0)
                    continue; /* an empty cluster keeps its centroid */
                double inv = 1.0 / n;
                k[(size_t)j * (size_t)d + (size_t)c] = (float)(acc * inv);
            }
        }
        __syncthreads();
    }

    /* 4. the last assignment */
    assign_all(xt, P, W, idx, d, k, assign, dist);
    __syncthreads();

    /* 5. f1, f2 exactly as fitness.c */
    if (threadIdx.x == 0) {
        double intra = 0.0;
        int nonempty = 0;
        for (int j = 0; j < W; j++) {
            double acc = 0.0;
            int n = 0;
            for (int i = 0; i < P; i++)
                if (assign[i] == j) {
                    acc += sqrt((double)dist[i]);
                    n++;
                }
            if (n > 0) {
                intra += acc / n;
                nonempty++;
            }
        }
        double sd = sqrt((double)d);
        f1[ind] = intra / nonempty / sd;
        double inter = 0.0;
        int pairs = 0;
        for (int i = 0; i < W; i++)
            for (int j = i + 1; j < W; j++) {
                inter += sqrt((double)dist2_centroids(k + (size_t)i * (size_t)d,
                                                      k + (size_t)j * (size_t)d, d));
                pairs++;
            }
        f2[ind] = pairs ? inter / pairs / sd : 0.0;
    }
}

/* ---- host code -------------------------------------------------------------------------- */

int eeg_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

static void gpu_release(eeg_gpu *g)
{
    /* errors here change nothing: the memory is gone either way */
    cudaFree(g->x);
    cudaFree(g->xt);
    cudaFree(g->seeds);
    cudaFree(g->masks);
    cudaFree(g->f1);
    cudaFree(g->f2);
    cudaFree(g->scratch);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    (void)cudaGetLastError();
}

eeg_gpu *eeg_gpu_new(const eeg_fit *fit, int device, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    if (!fit) {
        *why = "no fitness context";
        return NULL;
    }
    int n = eeg_gpu_count();
    if (n == 0) {
        *why = "no CUDA device";
        return NULL;
    }
    if (device < 0 || device >= n) {
        *why = "no such CUDA device";
        return NULL;
    }
    const eeg_data *dt = eeg_fit_data(fit);
    size_t p = (size_t)dt->patterns, f = (size_t)dt->features;
    float *xt_host = (float *)malloc(p * f * sizeof(float));
    eeg_gpu *g = (eeg_gpu *)calloc(1, sizeof *g);
    if (!g || !xt_host) {
        free(g);
        free(xt_host);
        *why = "out of host memory";
        return NULL;
    }
    g->device = device;
    g->patterns = dt->patterns;
    g->features = dt->features;
    g->clusters = eeg_fit_clusters(fit);
    g->iters = eeg_fit_iters(fit);
    g->words = eeg_fit_words(fit);
    for (size_t i = 0; i < p; i++)
        for (size_t c = 0; c < f; c++)
            xt_host[c * p + i] = dt->x[i * f + c];

    cudaError_t e;
    cudaDeviceProp prop;
    size_t w = (size_t)g->clusters;
    if ((e = cudaSetDevice(device)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = cudaMalloc((void **)&g->x, p * f * sizeof(float))) != cudaSuccess ||
        (e = cudaMalloc((void **)&g->xt, p * f * sizeof(float))) != cudaSuccess ||
        (e = cudaMalloc((void **)&g->seeds, w * sizeof(int))) != cudaSuccess ||
        (e = cudaMemcpy(g->x, dt->x, p * f * sizeof(float), cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (e = cudaMemcpy(g->xt, xt_host, p * f * sizeof(float), cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (e = cudaMemcpy(g->seeds, eeg_fit_seeds(fit), w * sizeof(int),
                        cudaMemcpyHostToDevice)) != cudaSuccess) {
        *why = cudaGetErrorString(e); /* static text */
        free(xt_host);
        gpu_release(g);
        free(g);
        return NULL;
    }
    free(xt_host);
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    return g;
}

static void worst(int n, double *f1, double *f2)
{
    for (int i = 0; i < n; i++) {
        f1[i] = 1.0;
        f2[i] = 0.0;
    }
}

/* grow the per-call buffers to n individuals and `scratch` bytes */
static cudaError_t reserve(eeg_gpu *g, int n, size_t scratch)
{
    cudaError_t e;
    if (n > g->cap_n) {
        cudaFree(g->masks);
        cudaFree(g->f1);
        cudaFree(g->f2);
        g->masks = NULL;
        g->f1 = g->f2 = NULL;
        g->cap_n = 0;
        if ((e = cudaMalloc((void **)&g->masks,
                            (size_t)n * (size_t)g->words * sizeof(uint64_t))) != cudaSuccess ||
            (e = cudaMalloc((void **)&g->f1, (size_t)n * sizeof(double))) != cudaSuccess ||
            (e = cudaMalloc((void **)&g->f2, (size_t)n * sizeof(double))) != cudaSuccess)
            return e;
        g->cap_n = n;
    }
    if (scratch > g->cap_scratch) {
        cudaFree(g->scratch);
        g->scratch = NULL;
        g->cap_scratch = 0;
        if ((e = cudaMalloc((void **)&g->scratch, scratch)) != cudaSuccess)
            return e;
        g->cap_scratch = scratch;
    }
    return cudaSuccess;
}

int eeg_gpu_eval(eeg_gpu *g, const uint64_t *masks, int n, double *f1, double *f2)
{
    if (n <= 0)
        return n == 0 ? 0 : -1;
    if (!g || !masks) {
        worst(n, f1, f2);
        return -1;
    }
    /* the largest d of the batch sizes the scratch; a bit past the last feature would make
     * the kernel read outside the data (a sticky error that ends the CUDA context), so
     * such a mask fails the call here */
    const int tail = g->features % 64;
    const uint64_t past = tail ? ~(((uint64_t)1 << tail) - 1) : 0;
    int dmax = 0;
    for (int i = 0; i < n; i++) {
        const uint64_t *m = masks + (size_t)i * (size_t)g->words;
        if (m[g->words - 1] & past) {
            worst(n, f1, f2);
            return -1;
        }
        int d = 0;
        for (int wd = 0; wd < g->words; wd++)
            d += __builtin_popcountll(m[wd]);
        if (d > dmax)
            dmax = d;
    }
    struct layout l = layout_for(g->patterns, g->clusters, dmax > 0 ? dmax : 1);

    cudaError_t e;
    size_t free_b = 0, total_b = 0;
    if ((e = cudaSetDevice(g->device)) != cudaSuccess ||
        (e = cudaMemGetInfo(&free_b, &total_b)) != cudaSuccess)
        goto fail;
    {
        /* chunk: as many blocks as fit the budget (the scratch already held counts as free) */
        size_t budget = (free_b + g->cap_scratch) / 2;
        if (budget > EEG_GPU_SCRATCH_MAX)
            budget = EEG_GPU_SCRATCH_MAX;
        size_t chunk = budget / l.stride;
        if (chunk < 1)
            chunk = 1;
        if (chunk > (size_t)n)
            chunk = (size_t)n;
        if ((e = reserve(g, n, chunk * l.stride)) != cudaSuccess)
            goto fail;

        const size_t mask_bytes = (size_t)n * (size_t)g->words * sizeof(uint64_t);
        mw_cuda_begin("eval h2d", g->stream);
        e = cudaMemcpyAsync(g->masks, masks, mask_bytes, cudaMemcpyHostToDevice, g->stream);
        mw_cuda_end("eval h2d", g->stream, (int64_t)mask_bytes);
        if (e != cudaSuccess)
            goto fail;

        mw_cuda_begin("eval kernel", g->stream);
        for (size_t first = 0; first < (size_t)n && e == cudaSuccess; first += chunk) {
            size_t blocks = (size_t)n - first < chunk ? (size_t)n - first : chunk;
            kmeans_kernel<<<(unsigned)blocks, EEG_GPU_THREADS, 0, g->stream>>>(
                g->x, g->xt, g->seeds, g->masks, (int)first, g->words, g->patterns,
                g->features, g->clusters, g->iters, l, g->scratch, g->f1, g->f2);
            e = cudaGetLastError();
        }
        mw_cuda_end("eval kernel", g->stream, 0);
        if (e != cudaSuccess)
            goto fail;

        const size_t out_bytes = (size_t)n * sizeof(double);
        mw_cuda_begin("eval d2h", g->stream);
        if ((e = cudaMemcpyAsync(f1, g->f1, out_bytes, cudaMemcpyDeviceToHost, g->stream)) ==
            cudaSuccess)
            e = cudaMemcpyAsync(f2, g->f2, out_bytes, cudaMemcpyDeviceToHost, g->stream);
        mw_cuda_end("eval d2h", g->stream, (int64_t)(2 * out_bytes));
        if (e != cudaSuccess)
            goto fail;
        if ((e = cudaStreamSynchronize(g->stream)) != cudaSuccess)
            goto fail;
        mw_cuda_collect();
        return 0;
    }
fail:
    /* let copies still in flight finish before f1, f2 are overwritten, then clear a
     * non-sticky error so that the next call can try again */
    if (g->stream)
        cudaStreamSynchronize(g->stream);
    (void)cudaGetLastError();
    mw_cuda_collect();
    worst(n, f1, f2);
    return -1;
}

const char *eeg_gpu_name(const eeg_gpu *g) { return g ? g->name : "none"; }

void eeg_gpu_free(eeg_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->device);
    gpu_release(g);
    free(g);
}
