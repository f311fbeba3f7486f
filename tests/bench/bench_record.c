/* bench_record — the recorder's costs, printed as a Markdown section for
 * docs/performance.md:
 *  - frame decode throughput: 16-channel W lines (1 V + 15 I) made by the firmware's own
 *    encoder, through the line reader + window parser alone, and through the whole meter
 *    session (CRC, parse, gap/reset checks, clock model, event queue);
 *  - CPU time of "mw record" per minute of recording at 4 Hz x 16 channels: the real firmware
 *    on the simulated board in its own process ("mw vmeter", set to 15 current channels),
 *    the recorder in another, timed by wait4()'s rusage (user + system), so the board's
 *    cost is not counted. Goal: at most 0.2 % of one core.
 * The mw binary is $MW_BUILD/bin/mw (default build/bin/mw); RECORD_S (env, default 60)
 * sets the recording length. */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "mw_meter.h"
#include "mw_proto.h"

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* n lines of 15 channels, realistic values */
static char *make_stream(int n, size_t *len)
{
    char *s = malloc((size_t)n * 700);
    *len = 0;
    for (int i = 0; i < n; i++) {
        mw_frame f;
        memset(&f, 0, sizeof f);
        f.seq = (uint32_t)i;
        f.t0_us = (uint64_t)i * 250016;
        f.t1_us = f.t0_us + 250016;
        f.flags = i ? 0 : MW_FLAG_FIRST;
        f.nsets = 150;
        f.freq_mhz = 50003;
        f.vrms_mv = 230117;
        f.nchan = 15;
        for (int k = 0; k < 15; k++) {
            f.p_mw[k] = 156300 + 1000 * k + i % 97;
            f.irms_ua[k] = 712345;
            f.pf_milli[k] = 953;
            f.e_mj[k] = (int64_t)i * 39075 + k;
        }
        *len += mw_frame_encode(&f, s + *len, 700);
    }
    return s;
}

static void decode_throughput(void)
{
    enum { N = 200000 };
    size_t len;
    char *s = make_stream(N, &len);
    mw_proto_reader rd;
    mw_proto_reader_init(&rd);
    mw_proto_window w;
    int ok = 0;
    double t0 = now_s();
    for (size_t i = 0; i < len; i++)
        if (mw_proto_reader_push(&rd, (uint8_t)s[i]) && mw_proto_parse_window(rd.line, &w) == 0)
            ok++;
    double parse_s = now_s() - t0;

    mw_meter *m = mw_meter_new();
    mw_meter_event ev;
    int got = 0;
    t0 = now_s();
    size_t chunk = 4096;
    for (size_t off = 0; off < len; off += chunk) {
        size_t c = len - off < chunk ? len - off : chunk;
        mw_meter_feed(m, s + off, c, (int64_t)(off / 2600) * 250016000 + 5000000);
        while (mw_meter_next(m, &ev, 0) == 1)
            got++;
    }
    double sess_s = now_s() - t0;
    mw_meter_close(m);
    free(s);
    printf("### Frame decoding\n\n");
    printf("%d W lines of 16 channels (1 V + 15 I, %.0f bytes each), on one core of this "
           "machine:\n\n",
           N, (double)len / N);
    printf("| path | frames/s | µs per frame | MB/s |\n|---|---|---|---|\n");
    printf("| line reader + CRC + window parser (mw_proto) | %.0f | %.2f | %.1f |\n", ok / parse_s,
           parse_s / ok * 1e6, len / parse_s / 1e6);
    printf("| whole meter session (+ gap/reset checks, clock model, event queue: mw_meter) | "
           "%.0f | %.2f | %.1f |\n\n",
           got / sess_s, sess_s / got * 1e6, len / sess_s / 1e6);
    printf("A meter sends 4–10 frames/s.\n\n");
}

static pid_t spawn(char *const argv[], const char *errfile)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_t pid;
    int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return e ? -1 : pid;
}

/* Set the board to 15 current channels and save that in its EEPROM, through the same
 * meter session the recorder uses. Returns 0, or -1. */
static int board_15_channels(const char *link)
{
    char err[512], reply[128];
    mw_meter *m = mw_meter_open(link, 5000, NULL, err, sizeof err);
    if (!m) {
        fprintf(stderr, "bench_record: %s\n", err);
        return -1;
    }
    int rc = mw_meter_command(m, "CH 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", "OK,CH", reply,
                              sizeof reply, 2000) ||
             mw_meter_command(m, "SAVE", "OK,SAVE", reply, sizeof reply, 2000);
    if (rc) fprintf(stderr, "bench_record: %s\n", reply);
    mw_meter_close(m);
    return rc ? -1 : 0;
}

/* Run "mw record -- sleep S"; returns its CPU time (user + sys), s, and its wall time. */
static double record_once(const char *mw, const char *run, const char *link, const char *err,
                          double s, double *wall)
{
    char secs[32];
    snprintf(secs, sizeof secs, "%g", s);
    char *rec[] = {(char *)mw,   "record", "-q",         "-o", (char *)run, "--meter",
                   (char *)link, "--",     "/bin/sleep", secs, NULL};
    double t0 = now_s();
    pid_t r = spawn(rec, err);
    int status;
    struct rusage ru;
    if (r < 0 || wait4(r, &status, 0, &ru) != r) return -1;
    *wall = now_s() - t0;
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static void record_cpu(void)
{
    const char *b = getenv("MW_BUILD");
    char mw[4096], dir[] = "/tmp/mw-bench-XXXXXX", link[4200], run[4200], err[4200];
    snprintf(mw, sizeof mw, "%s/bin/mw", b && *b ? b : "build");
    double rec_s = getenv("RECORD_S") ? atof(getenv("RECORD_S")) : 60;
    if (!mkdtemp(dir)) return;
    snprintf(link, sizeof link, "%s/meter", dir);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    char *vm[] = {mw,       "vmeter", "--link", link,     "--wave", "smps", "--load",
                  "A1=150", "--load", "A9=300", "--load", "A15=80", NULL};
    pid_t board = spawn(vm, err);
    struct stat st;
    for (int i = 0; i < 100 && lstat(link, &st) != 0; i++)
        usleep(50000);
    if (board < 0 || board_15_channels(link)) {
        printf("### Recorder CPU\n\nnot measured: the simulated board did not start\n");
        return;
    }
    double wall, cpu = record_once(mw, run, link, err, rec_s, &wall);
    char run0[4300];
    snprintf(run0, sizeof run0, "%s0", run);
    double wall0, cpu0 = record_once(mw, run0, link, err, 0, &wall0);
    kill(board, SIGTERM);
    waitpid(board, NULL, 0);
    /* count what was stored */
    char q[8400];
    snprintf(q, sizeof q,
             "sqlite3 -readonly %s/trace.db 'select count(distinct channel) || \" channels, \" || "
             "count(*) || \" samples\" "
             "from samples'",
             run);
    char counts[128] = "?";
    FILE *p = popen(q, "r");
    if (p) {
        if (!fgets(counts, sizeof counts, p)) snprintf(counts, sizeof counts, "?");
        counts[strcspn(counts, "\n")] = 0;
        pclose(p);
    }
    printf("### Recorder CPU\n\n");
    printf("`mw record -- sleep %g` on the simulated board set to 15 current channels (16 with "
           "the voltage), 4 Hz; the board runs in its own process, not counted.\n\n",
           rec_s);
    double steady = (cpu - cpu0) / (wall - wall0);
    printf("| run | wall | channels, samples stored | recorder CPU (user + sys) |\n"
           "|---|---|---|---|\n");
    printf("| `-- sleep %g` | %.1f s | %s | %.3f s |\n", rec_s, wall, counts, cpu);
    printf("| `-- sleep 0` (start-up and finish only) | %.1f s | | %.3f s |\n\n", wall0, cpu0);
    printf("Recording itself (the difference): **%.0f ms of CPU per minute of recording, "
           "%.3f %% of one core** (goal ≤ 0.2 %%). Start-up and finish cost %.0f ms once: "
           "opening the meter and waiting for its identification, reading the calibration, "
           "noting the machine's details (`mpirun --version` is most of it), the final "
           "restamping.\n",
           steady * 60e3, steady * 100, cpu0 * 1e3);
    char rm[4300];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0) return;
}

int main(void)
{
    printf("## Recorder (mw record)\n\n`make bench` (tests/bench/bench_record.c).\n\n");
    decode_throughput();
    record_cpu();
    return 0;
}
