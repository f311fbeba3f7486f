/* bench_inband — the in-band sampler's CPU cost (host/inband_sampler.c, docs/inband.md), printed
 * as a Markdown section for docs/performance.md. The budget: 4 RAPL domains x 2
 * sockets + 8 GPUs at 100 Hz within 0.5 % of one core.
 *
 * Sources: a powercap tree in a temporary directory (MW_POWERCAP_ROOT; on tmpfs, /dev/shm,
 * where there is one: memory, like sysfs) with 2 packages of package, core, uncore and dram,
 * their energy_uj rewritten in place every 10 ms by a thread here, and 8 GPUs of the stand-in NVML library
 * (tests/integration/nvml_fake.c, built here with cc -shared; left out when that fails) with
 * energy counters. For each rate (100 Hz, 10 Hz) the sampler runs RUN_S seconds REPS times;
 * the sampling and writing threads' CPU times (mw_inband_stop_split) are printed apart as
 * the least and the most of the repetitions, in % of one core over the wall time. */
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mw_inband.h"
#include "mw_store.h"

#define RUN_S 4
#define REPS 3

static char root[64], runs[64]; /* the tree (tmpfs, like sysfs), the run stores (/tmp) */
static volatile int writer_stop;
static int efd[8]; /* the domains' energy_uj, written in place */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void put(const char *dir, const char *file, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s/%s", root, dir, file);
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static const char *const dirs[] = {"intel-rapl:0",   "intel-rapl:0:0", "intel-rapl:0:1",
                                   "intel-rapl:0:2", "intel-rapl:1",   "intel-rapl:1:0",
                                   "intel-rapl:1:1", "intel-rapl:1:2"};
static const char *const names[] = {"package-0", "core", "dram", "uncore",
                                    "package-1", "core", "dram", "uncore"};

static void tree(void)
{
    struct stat sb;
    snprintf(root, sizeof root, "%s/mw-bench-inband-XXXXXX",
             stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) ? "/dev/shm" : "/tmp");
    snprintf(runs, sizeof runs, "/tmp/mw-bench-inband-runs-XXXXXX");
    if (!mkdtemp(root) || !mkdtemp(runs)) exit(1);
    for (int i = 0; i < 8; i++) {
        char p[256], b[32];
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        mkdir(p, 0755);
        snprintf(b, sizeof b, "%s\n", names[i]);
        put(dirs[i], "name", b);
        put(dirs[i], "energy_uj", "0\n");
        put(dirs[i], "max_energy_range_uj", "262143328850\n");
        snprintf(p, sizeof p, "%s/%s/energy_uj", root, dirs[i]);
        if ((efd[i] = open(p, O_WRONLY)) < 0) exit(1);
    }
}

/* every 10 ms each domain's energy_uj, rewritten in place at a fixed width (never empty,
 * as sysfs answers): 50 W */
static void *writer(void *arg)
{
    int64_t t0 = mono_ns();
    while (!writer_stop) {
        char b[32];
        int n = snprintf(b, sizeof b, "%020lld\n", (long long)((mono_ns() - t0) / 20000));
        for (int i = 0; i < 8; i++)
            if (pwrite(efd[i], b, (size_t)n, 0) != n) exit(1);
        usleep(10000);
    }
    return NULL;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* one run of the sampler: % of a core of its sampling and writing threads */
static int one(double hz, int run, double *sample_pct, double *write_pct, int *nsrc)
{
    char dir[128], err[512];
    snprintf(dir, sizeof dir, "%s/run-%g-%d", runs, hz, run);
    mw_store *st = mw_store_create(dir, 0, err, sizeof err);
    if (!st) return fprintf(stderr, "%s\n", err), -1;
    mw_store_close(st);
    mw_inband_notes notes = {.n = 0};
    mw_inband_sampler *S =
        mw_inband_start(dir, "h", MW_INBAND_RAPL | MW_INBAND_NVML, hz, &notes, err, sizeof err);
    if (!S) return fprintf(stderr, "%s\n", err), -1;
    *nsrc = mw_inband_sources(S);
    int64_t t0 = mono_ns(), a, b;
    sleep(RUN_S);
    if (mw_inband_stop_split(S, &notes, &a, &b)) return -1;
    double wall = (double)(mono_ns() - t0);
    *sample_pct = 100.0 * (double)a / wall;
    *write_pct = 100.0 * (double)b / wall;
    return 0;
}

int main(void)
{
    tree();
    char lib[160], cmd[400];
    snprintf(lib, sizeof lib, "%s/libnvidia-ml.so.1", root);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O2 -o %s tests/integration/nvml_fake.c 2>/dev/null",
             lib);
    int gpus = system(cmd) == 0;
    setenv("MW_POWERCAP_ROOT", root, 1);
    setenv("MW_NVML_LIBRARY", gpus ? lib : "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("FAKE_NVML_POWER_MW", "250000,250000,250000,250000,250000,250000,250000,250000", 1);
    setenv("FAKE_NVML_NO_ENERGY", "-1", 1);
    pthread_t th;
    pthread_create(&th, NULL, writer, NULL);
    printf("## In-band sampler (mw record --inband)\n\n");
    printf("`make bench` (tests/bench/bench_inband.c): the sampling and writing threads' CPU time "
           "(meta `inband_cpu_ns`, `docs/inband.md`) for 8 RAPL domains (a test powercap tree, "
           "2 packages x package, core, uncore, dram, on tmpfs, rewritten every 10 ms)%s, %d s x %d "
           "runs per rate, least..most, %% of one core:\n\n",
           gpus ? " and 8 GPUs of the stand-in NVML library (energy counters)" : "", RUN_S,
           REPS);
    printf("| rate | sources | sampling | storing | total |\n|---|---|---|---|---|\n");
    static const double rates[] = {100, 10};
    for (int r = 0; r < 2; r++) {
        double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {0, 0, 0};
        int n = 0;
        for (int k = 0; k < REPS; k++) {
            double v[3];
            if (one(rates[r], k, &v[0], &v[1], &n)) return 1;
            v[2] = v[0] + v[1];
            for (int j = 0; j < 3; j++) {
                lo[j] = v[j] < lo[j] ? v[j] : lo[j];
                hi[j] = v[j] > hi[j] ? v[j] : hi[j];
            }
        }
        printf("| %g Hz | %d | %.3f..%.3f %% | %.3f..%.3f %% | %.3f..%.3f %% |\n", rates[r], n,
               lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]);
    }
    writer_stop = 1;
    pthread_join(th, NULL);
    for (int i = 0; i < 8; i++)
        close(efd[i]);
    nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    nftw(runs, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
