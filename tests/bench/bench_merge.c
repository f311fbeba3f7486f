/* bench_merge — the merge of a chatty program's spill files into the run store, printed as a
 * Markdown section for docs/performance.md: events merged per second of CPU (one core: the
 * merge is single-threaded), and the bytes each event adds to trace.db, for the compact
 * phase_blocks (the MPI calls of a process of >= 65,536 events, the default) and for rows of
 * phases (what every process got before schema 3, and what smaller processes still get);
 * and the time to read every phase back through mw_run_phases().
 *
 * The spill files are made here, NetPIPE-like (issue 21): 2 ranks, each a main thread of
 * alternating MPI_Send / MPI_Recv, 13.7 µs apart (73 k calls/s), lasting 1 to 12 µs, of 0 to
 * 8 MiB, to the other rank; a counter every 1000 calls. The store is on the temporary
 * directory (BENCH_DIR or /tmp), the files in the page cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mw_merge.h"
#include "mw_run.h"
#include "mw_store.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* RUN/probe/hRANK.PID.mwp with n events; returns the events written */
static long long spill(const char *run, int rank, long long n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/probe", run);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/probe/h%d.%d.mwp", run, rank, 1000 + rank);
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fprintf(f, "H\t1\th%d\t%d\tCLOCK_REALTIME\nR\t%d\t2\nT\t0\t%d\n", rank, 1000 + rank, rank,
            1000 + rank);
    fprintf(f, "N\t0\tMPI_Send\nN\t1\tMPI_Recv\nN\t2\tround\n");
    long long t = 1795000000000000000LL + rank * 3000, written = 0;
    unsigned x = 12345u + (unsigned)rank;
    for (long long i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        long long len = 1000 + (x >> 8) % 11000, bytes = (1LL << ((x >> 4) % 24)) - 1;
        fprintf(f, "E\t0\t2\t%lld\t%lld\t%lld\t%lld\t%d\n", i & 1, t, t + len, bytes, 1 - rank);
        written++;
        if (i % 1000 == 999) {
            fprintf(f, "E\t0\t7\t2\t%lld\t%lld\t%lld\t-1\n", t + len, t + len, i / 1000);
            written++;
        }
        t += 13700;
    }
    fprintf(f, "X\t%lld\n", t);
    fclose(f);
    return written;
}

typedef struct {
    double merge_cpu, merge_wall, read_cpu;
    long long events, bytes, read; /* read: phases read back */
} result;

static int run_one(const char *base, const char *name, long long per_rank, long long compact,
                   double aggregate_hz, result *r)
{
    char run[512], err[1024];
    snprintf(run, sizeof run, "%s/%s", base, name);
    mw_store *s = mw_store_create(run, 0, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    mw_store_close(s);
    char db[600];
    snprintf(db, sizeof db, "%s/trace.db", run);
    long long before = file_size(db);
    r->events = spill(run, 0, per_rank) + spill(run, 1, per_rank);
    s = mw_store_open_write(run, err, sizeof err);
    mw_merge_stats st;
    mw_merge_opts o = {.compact_min_events = compact, .aggregate_hz = aggregate_hz};
    double c0 = cpu_s(), w0 = wall_s();
    int rc = s ? mw_merge_run_opts(s, run, &o, &st, NULL, NULL, err, sizeof err) : -1;
    r->merge_cpu = cpu_s() - c0;
    r->merge_wall = wall_s() - w0;
    mw_store_close(s); /* checkpoints the WAL into trace.db */
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    r->bytes = file_size(db) - before;
    s = mw_store_open(run, err, sizeof err);
    c0 = cpu_s();
    mw_run_cursor *c = mw_run_phases(s, NULL);
    mw_store_phase p;
    long long n = 0;
    while (mw_run_phase_next(c, &p) == 1)
        n++;
    r->read_cpu = cpu_s() - c0;
    r->read = n;
    mw_run_close(c);
    mw_store_close(s);
    if (n != r->events - st.aggregated)
        fprintf(stderr, "bench_merge: read %lld of %lld\n", n, r->events - st.aggregated);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", run);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const char *tmp = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/tmp";
    char base[512];
    snprintf(base, sizeof base, "%s/mw-bench-merge-XXXXXX", tmp);
    if (!mkdtemp(base)) return 1;
    long long big = getenv("BENCH_MERGE_EVENTS") ? atoll(getenv("BENCH_MERGE_EVENTS")) : 2500000;
    result blocks, rows, agg;
    if (run_one(base, "blocks", big, 0, 0, &blocks) ||
        run_one(base, "rows", big / 5, 1LL << 62, 0, &rows) ||
        run_one(base, "agg", big, 0, 1000, &agg))
        return 1;
    rmdir(base);
    printf("## Merge of a chatty program (phase_blocks)\n\n");
    printf("`make bench` (tests/bench/bench_merge.c), on this machine (2 cores, shared with other "
           "jobs): NetPIPE-like spill files of 2 ranks (MPI_Send/MPI_Recv 13.7 µs apart, i.e. "
           "73 k calls/s, of 0 to 8 MiB, a counter every 1000 calls) merged by "
           "`mw_merge_run` on one core, the store closed (WAL checkpointed), then every phase "
           "read back with `mw_run_phases`.\n\n");
    printf("| stored as | events merged | merge CPU | **events/s (one core)** | merge wall | "
           "**bytes/event in trace.db** | read back (CPU) |\n|---|---|---|---|---|---|---|\n");
    const result *r[3] = {&blocks, &rows, &agg};
    const char *what[3] = {"`phase_blocks` (a process of ≥ 65,536 events, the default; its "
                           "counters stay rows)",
                           "rows of `phases` (smaller processes; every process before schema 3)",
                           "`phase_blocks` with `MW_MERGE_AGGREGATE_HZ=1000` (250 ms windows)"};
    for (int i = 0; i < 3; i++)
        printf("| %s | %lld | %.2f s | **%.2f M** | %.2f s | **%.1f** | %.2f s (%.1f M/s) |\n",
               what[i], r[i]->events, r[i]->merge_cpu, r[i]->events / r[i]->merge_cpu / 1e6,
               r[i]->merge_wall, (double)r[i]->bytes / (double)r[i]->events, r[i]->read_cpu,
               r[i]->read / r[i]->read_cpu / 1e6);
    printf("\nGoals (issue 21): ≥ 1 M events/s on one core, ≤ 24 bytes an event. Bytes/event "
           "is over the events merged (with aggregation, most of them are replaced).\n");
    return 0;
}
