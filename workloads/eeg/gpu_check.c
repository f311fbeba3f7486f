/* eeg-gpu-check — does the CUDA fitness (fitness_gpu.h) compute what the CPU's (fitness.h)
 * does? Builds a synthetic data set (data.h), evaluates the same random masks with
 * eeg_fit_eval and eeg_gpu_eval (twice: the second call is timed and must repeat the first
 * bit for bit), prints the largest differences of f1 and f2 and each side's speed.
 * Mask 0 is empty and mask 1 selects every feature (the edge cases); the others select each
 * feature with probability --density. Exit 0 when both differences are below 1e-4, 1 when
 * not (or on an error), 2 for bad usage, 77 (the test harnesses' "skipped") without a GPU.
 * Built only where nvcc is (workloads/eeg/eeg_cuda.mk). */
#define _POSIX_C_SOURCE 200809L
#include "data.h"
#include "fitness.h"
#include "fitness_gpu.h"
#include "opt.h"

#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOLERANCE 1e-4

static void usage(FILE *f)
{
    fprintf(f, "usage: eeg-gpu-check [options]\n"
               "Evaluate random feature masks with the CPU and the CUDA K-means fitness and\n"
               "compare. Exit 0: max |difference| of f1 and f2 below 1e-4; 1: not, or an\n"
               "error; 2: bad usage; 77: no CUDA device.\n"
               "  --patterns N    patterns in the synthetic data set          [178]\n"
               "  --features N    features per pattern                       [3600]\n"
               "  --clusters N    K-means clusters (also the data's classes)    [3]\n"
               "  --masks N       masks (individuals) to evaluate             [512]\n"
               "  --iters N       K-means iterations per individual            [20]\n"
               "  --density P     probability a mask selects a feature       [0.05]\n"
               "  --seed N        seed of the data, centroids and masks         [1]\n"
               "  -h, --help      this text\n");
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char name[64];
    snprintf(name, sizeof name, "--%s", opt);
    return eeg_opt_long("eeg-gpu-check", name, s, lo, hi, out);
}

static int parse_real(const char *opt, const char *s, double lo, double hi, double *out)
{
    char name[64];
    snprintf(name, sizeof name, "--%s", opt);
    return eeg_opt_real("eeg-gpu-check", name, s, lo, hi, out);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long patterns = 178, features = 3600, clusters = 3, masks_n = 512, iters = 20, seed = 1;
    double density = 0.05;
    enum { O_PAT = 256, O_FEAT, O_CLU, O_MASKS, O_ITERS, O_DEN, O_SEED };
    static const struct option lo[] = {{"patterns", required_argument, 0, O_PAT},
                                       {"features", required_argument, 0, O_FEAT},
                                       {"clusters", required_argument, 0, O_CLU},
                                       {"masks", required_argument, 0, O_MASKS},
                                       {"iters", required_argument, 0, O_ITERS},
                                       {"density", required_argument, 0, O_DEN},
                                       {"seed", required_argument, 0, O_SEED},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        int r = 0;
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case O_PAT:
            r = parse_long("patterns", optarg, 2, 1000000, &patterns);
            break;
        case O_FEAT:
            r = parse_long("features", optarg, 1, 1000000, &features);
            break;
        case O_CLU:
            r = parse_long("clusters", optarg, 2, 64, &clusters);
            break;
        case O_MASKS:
            r = parse_long("masks", optarg, 1, 1000000, &masks_n);
            break;
        case O_ITERS:
            r = parse_long("iters", optarg, 0, 100000, &iters);
            break;
        case O_DEN:
            r = parse_real("density", optarg, 0.0, 1.0, &density);
            break;
        case O_SEED:
            r = parse_long("seed", optarg, 0, 0x7fffffffL, &seed);
            break;
        default:
            fprintf(stderr, "eeg-gpu-check: unknown option or missing value: '%s'\n",
                    argv[optind - 1]);
            return 2;
        }
        if (r) return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "eeg-gpu-check: unexpected argument: '%s'\n", argv[optind]);
        return 2;
    }
    if (patterns < clusters) {
        fprintf(stderr, "eeg-gpu-check: --patterns must be at least --clusters\n");
        return 2;
    }
    if ((double)patterns * (double)features > 5e8) {
        fprintf(stderr, "eeg-gpu-check: --patterns × --features is too large (max 5e8)\n");
        return 2;
    }

    if (eeg_gpu_count() == 0) {
        printf("eeg-gpu-check: no CUDA device: skipped\n");
        return 77;
    }

    eeg_data data;
    int informative = (int)(features / 20 > 0 ? features / 20 : 1);
    if (eeg_data_synth(&data, (int)patterns, (int)features, (int)clusters, informative, 1.0,
                       (uint64_t)seed) != 0) {
        fprintf(stderr, "eeg-gpu-check: cannot build the data set\n");
        return 1;
    }
    eeg_fit *fit = eeg_fit_new(&data, (int)clusters, (int)iters, (uint64_t)seed);
    const char *why = "no fitness context";
    eeg_gpu *g = fit ? eeg_gpu_new(fit, 0, &why) : NULL;
    if (!g) {
        fprintf(stderr, "eeg-gpu-check: no GPU context: %s\n", why);
        eeg_fit_free(fit);
        eeg_data_free(&data);
        return 1;
    }

    int n = (int)masks_n, words = eeg_fit_words(fit);
    uint64_t *masks = calloc((size_t)n * (size_t)words, sizeof *masks);
    double *cf1 = malloc((size_t)n * sizeof *cf1), *cf2 = malloc((size_t)n * sizeof *cf2);
    double *gf1 = malloc((size_t)n * sizeof *gf1), *gf2 = malloc((size_t)n * sizeof *gf2);
    double *hf1 = malloc((size_t)n * sizeof *hf1), *hf2 = malloc((size_t)n * sizeof *hf2);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int status = 1;
    if (!masks || !cf1 || !cf2 || !gf1 || !gf2 || !hf1 || !hf2 || !r) {
        fprintf(stderr, "eeg-gpu-check: out of memory\n");
        goto done;
    }
    gsl_rng_set(r, (unsigned long)seed + 12345ul);
    long total_d = 0;
    for (int i = 0; i < n; i++) {
        uint64_t *m = masks + (size_t)i * (size_t)words;
        for (long f = 0; f < features; f++)
            if (i == 1 || (i > 1 && gsl_rng_uniform(r) < density)) {
                m[f / 64] |= (uint64_t)1 << (f % 64);
                total_d++;
            }
    }

    printf("eeg-gpu-check: device %s\n", eeg_gpu_name(g));
    printf("shape: %ld patterns × %ld features, %ld clusters, %ld iterations, %d masks "
           "(mean d %.1f)\n",
           patterns, features, clusters, iters, n, (double)total_d / n);

    double t0 = now();
    eeg_fit_eval(fit, masks, n, cf1, cf2, 0);
    double t_cpu = now() - t0;

    t0 = now();
    int e1 = eeg_gpu_eval(g, masks, n, hf1, hf2);
    double t_first = now() - t0;
    t0 = now();
    int e2 = eeg_gpu_eval(g, masks, n, gf1, gf2);
    double t_gpu = now() - t0;
    if (e1 != 0 || e2 != 0) {
        fprintf(stderr, "eeg-gpu-check: eeg_gpu_eval failed (a CUDA error)\n");
        goto done;
    }

    double d1 = 0.0, d2 = 0.0;
    int worst1 = 0, worst2 = 0, equal = 0, repeat = 0;
    for (int i = 0; i < n; i++) {
        double a = fabs(cf1[i] - gf1[i]), b = fabs(cf2[i] - gf2[i]);
        if (!(a <= d1)) { /* NaN counts as the largest difference */
            d1 = a;
            worst1 = i;
        }
        if (!(b <= d2)) {
            d2 = b;
            worst2 = i;
        }
        equal += cf1[i] == gf1[i] && cf2[i] == gf2[i];
        repeat += memcmp(&hf1[i], &gf1[i], sizeof *gf1) == 0 &&
                  memcmp(&hf2[i], &gf2[i], sizeof *gf2) == 0;
    }
    printf("cpu: %.1f individuals/s (%.3f s, %d threads)\n", n / t_cpu, t_cpu,
           omp_get_max_threads());
    printf("gpu: %.1f individuals/s (%.3f s; first call %.3f s)\n", n / t_gpu, t_gpu, t_first);
    printf("max |f1 cpu - gpu| = %.3g (mask %d: %.17g vs %.17g)\n", d1, worst1, cf1[worst1],
           gf1[worst1]);
    printf("max |f2 cpu - gpu| = %.3g (mask %d: %.17g vs %.17g)\n", d2, worst2, cf2[worst2],
           gf2[worst2]);
    printf("bitwise equal to the cpu: %d of %d; gpu repeats itself: %d of %d\n", equal, n, repeat,
           n);
    status = d1 < TOLERANCE && d2 < TOLERANCE && repeat == n ? 0 : 1;
    printf("eeg-gpu-check: %s\n", status == 0 ? "ok" : "MISMATCH");

done:
    gsl_rng_free(r);
    free(masks);
    free(cf1);
    free(cf2);
    free(gf1);
    free(gf2);
    free(hf1);
    free(hf2);
    eeg_gpu_free(g);
    eeg_fit_free(fit);
    eeg_data_free(&data);
    return status;
}
