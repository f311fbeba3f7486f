/* bench_record — the recorder's costs, printed as a Markdown section for
 * docs/performance.md:
 *  - frame decode throughput: 16-channel W lines (1 V + 15 I) made by the firmware's own
 *    encoder, through the line reader + window parser alone, and through the whole meter
 *    session (CRC, parse, gap/reset checks, clock model, event queue);
 *  - what "mw record" costs per meter while it records, 15 current channels at 4 Hz: the
 *    real firmware on the simulated board in its own process ("mw vmeter"), the recorder in
 *    another, so the board's cost is not counted. CPU (wait4's rusage, user + system), bytes
 *    written (/proc/PID/io, read between the recorder's end and its reaping: waitid WNOWAIT),
 *    system calls (strace -c -f, in separate runs: tracing slows the process), each for
 *    "-- sleep RECORD_S" less "-- sleep 0" (start-up and finish). Goals (issue 22): at most
 *    0.2 % of a core, 50 system calls/s, 100 bytes written per stored sample.
 * The mw binary is $MW_BUILD/bin/mw (default build/bin/mw); RECORD_S (env, default 60)
 * sets the recording length; BENCH_RECORD_NO_DECODE=1 skips the decode figures;
 * BENCH_RECORD_METERS=N (1..4, default 1) records N boards at once into one store (the
 * issue's setting is 4; each board is a simavr process, so mind the cores), and the costs
 * per meter are the totals divided by N. */
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

/* What one "mw record" run cost, read from /proc before it is reaped (waitid WNOWAIT). */
typedef struct {
    double wall_s, cpu_s;     /* wall time; user + system CPU (wait4's rusage) */
    long long wchar, wbytes;  /* bytes passed to write calls; bytes sent to storage */
    long long syscalls;       /* all system calls of it and its children (strace -c -f), -1 */
    long long samples;        /* rows stored */
    int channels;
} rec_cost;

static long long io_field(const char *io, const char *key)
{
    const char *p = strstr(io, key);
    return p ? atoll(p + strlen(key)) : -1;
}

/* The last "total" line of strace -c's table: its calls column. */
static long long strace_total(const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f) return -1;
    char line[512];
    long long calls = -1;
    while (fgets(line, sizeof line, f)) {
        double pct, secs;
        long long usecs, c;
        if (strstr(line, "total") && sscanf(line, "%lf %lf %lld %lld", &pct, &secs, &usecs, &c) == 4)
            calls = c;
        else if (strstr(line, "total") && sscanf(line, "%lf %lf %lld", &pct, &secs, &c) == 3)
            calls = c; /* no usecs/call column */
    }
    fclose(f);
    return calls;
}

static void count_samples(const char *run, rec_cost *c)
{
    char q[8400];
    snprintf(q, sizeof q,
             "sqlite3 -readonly %s/trace.db 'select count(distinct channel), count(*) from samples'",
             run);
    c->samples = -1;
    c->channels = 0;
    FILE *p = popen(q, "r");
    if (!p) return;
    if (fscanf(p, "%d|%lld", &c->channels, &c->samples) != 2) c->samples = -1;
    pclose(p);
}

/* Run "mw record -- sleep S" (under strace -c -f into trace_file unless it is NULL). */
#define METERS_MAX 4
static int record_once(const char *mw, const char *run, char *const links[], int nm,
                       const char *err, double s, const char *trace_file, rec_cost *c)
{
    char secs[32];
    snprintf(secs, sizeof secs, "%g", s);
    char *rec[10 + 2 * METERS_MAX + 4] = {"/usr/bin/strace", "-c", "-f", "-o", (char *)trace_file,
                                         (char *)mw, "record", "-q", "-o", (char *)run};
    int a = 10;
    for (int i = 0; i < nm; i++) {
        rec[a++] = "--meter";
        rec[a++] = links[i];
    }
    rec[a++] = "--";
    rec[a++] = "/bin/sleep";
    rec[a++] = secs;
    rec[a] = NULL;
    memset(c, 0, sizeof *c);
    double t0 = now_s();
    pid_t r = spawn(trace_file ? rec : rec + 5, err);
    if (r < 0) return -1;
    siginfo_t si;
    if (waitid(P_PID, (id_t)r, &si, WEXITED | WNOWAIT) != 0) return -1;
    c->wall_s = now_s() - t0;
    char path[64], io[1024] = "";
    snprintf(path, sizeof path, "/proc/%d/io", (int)r);
    FILE *f = fopen(path, "r");
    if (f) {
        io[fread(io, 1, sizeof io - 1, f)] = 0;
        fclose(f);
    }
    c->wchar = io_field(io, "wchar: ");
    c->wbytes = io_field(io, "write_bytes: ");
    struct rusage ru;
    if (wait4(r, NULL, 0, &ru) != r) return -1;
    c->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec * 1e-6;
    c->syscalls = trace_file ? strace_total(trace_file) : -1;
    count_samples(run, c);
    return 0;
}

static void print_cost(double rec_s, int nm, const rec_cost *a, const rec_cost *a0,
                       const rec_cost *t, const rec_cost *t0)
{
    if (nm > 1)
        printf("### Recorder costs, %d meters\n\n%d boards recorded into one store "
               "(`--meter` %d times); the figures per meter are the totals divided by %d.\n\n",
               nm, nm, nm, nm);
    else
        printf("### Recorder costs\n\n");
    printf("`mw record -q --meter LINK -- sleep %g` against the real firmware on the simulated "
           "board (a separate `mw vmeter` process, not counted) set to 15 current channels (16 "
           "with the voltage), 4 Hz; a second run `-- sleep 0` gives what start-up and finish "
           "cost, and the difference is the recording's. CPU: user + system from "
           "wait4(); bytes: /proc/PID/io (`wchar`: passed to write calls, `write_bytes`: "
           "sent to storage), read before the recorder is reaped; system calls: a third and "
           "fourth run under `strace -c -f` (the recorder and its children; strace slows it, "
           "so its CPU is not used).\n\n",
           rec_s);
    printf("| run | wall (s) | samples stored | CPU (s) | wchar (bytes) | write_bytes | system "
           "calls |\n|---|---|---|---|---|---|---|\n");
    const rec_cost *rs[] = {a, a0, t, t0};
    const char *names[] = {"plain", "plain, sleep 0", "strace", "strace, sleep 0"};
    for (int i = 0; i < 4; i++) {
        char calls[32] = "–";
        if (rs[i]->syscalls >= 0) snprintf(calls, sizeof calls, "%lld", rs[i]->syscalls);
        printf("| %s | %.1f | %lld (%d channels) | %.3f | %lld | %lld | %s |\n", names[i],
               rs[i]->wall_s, rs[i]->samples, rs[i]->channels, rs[i]->cpu_s, rs[i]->wchar,
               rs[i]->wbytes, calls);
    }
    double dw = a->wall_s - a0->wall_s, ds = (double)(a->samples - a0->samples);
    double cpu_pct = (a->cpu_s - a0->cpu_s) / dw * 100 / nm;
    double calls_s = t->syscalls >= 0 && t0->syscalls >= 0
                         ? (double)(t->syscalls - t0->syscalls) / (t->wall_s - t0->wall_s) / nm
                         : -1;
    printf("\nRecording itself (the differences), per meter of 15 channels at 4 Hz:\n\n");
    printf("| cost | measured | goal |\n|---|---|---|\n");
    printf("| CPU | **%.3f %% of one core** (%.0f ms per minute) | ≤ 0.2 %% |\n", cpu_pct,
           cpu_pct * 600);
    if (calls_s >= 0) printf("| system calls | **%.1f /s** | ≤ 50 /s |\n", calls_s);
    else printf("| system calls | not measured (no strace) | ≤ 50 /s |\n");
    printf("| bytes passed to write calls per stored sample | **%.0f** (%.2f MB per minute) | ≤ 100 |\n",
           (double)(a->wchar - a0->wchar) / ds, (double)(a->wchar - a0->wchar) / dw * 60e-6 / nm);
    printf("| bytes sent to storage per stored sample | %.0f | |\n\n",
           (double)(a->wbytes - a0->wbytes) / ds);
    printf("Start-up and finish cost %.0f ms of CPU once: opening the meter and waiting for its "
           "identification, reading the calibration, noting the machine's details (`mpirun "
           "--version` is most of it), the clock's final fit. Measured on the shared 2-core "
           "development machine: CPU figures vary by ±30 %% between runs.\n",
           a0->cpu_s * 1e3);
}

static void record_cost(void)
{
    const char *b = getenv("MW_BUILD");
    char mw[4096], dir[] = "/tmp/mw-bench-XXXXXX", run[4200], err[4200], tr[4200];
    char lk[METERS_MAX][4200], *links[METERS_MAX];
    snprintf(mw, sizeof mw, "%s/bin/mw", b && *b ? b : "build");
    double rec_s = getenv("RECORD_S") ? atof(getenv("RECORD_S")) : 60;
    int nm = getenv("BENCH_RECORD_METERS") ? atoi(getenv("BENCH_RECORD_METERS")) : 1;
    if (nm < 1 || nm > METERS_MAX) nm = 1;
    if (!mkdtemp(dir)) return;
    snprintf(err, sizeof err, "%s/stderr", dir);
    pid_t board[METERS_MAX];
    int ok = 1;
    for (int i = 0; i < nm; i++) {
        snprintf(lk[i], sizeof lk[i], "%s/meter%d", dir, i);
        links[i] = lk[i];
        char *vm[] = {mw,       "vmeter", "--link", lk[i],    "--wave", "smps", "--load",
                      "A1=150", "--load", "A9=300", "--load", "A15=80", NULL};
        board[i] = spawn(vm, err);
        struct stat st;
        for (int j = 0; j < 600 && lstat(lk[i], &st) != 0; j++) /* 30 s: a loaded machine */
            usleep(50000);
        if (board[i] < 0 || board_15_channels(lk[i])) ok = 0;
    }
    if (!ok) {
        printf("### Recorder costs\n\nnot measured: the simulated board did not start\n");
        for (int i = 0; i < nm; i++)
            if (board[i] > 0) kill(board[i], SIGTERM);
        return;
    }
    rec_cost c[4];
    int have_strace = access("/usr/bin/strace", X_OK) == 0;
    for (int i = 0; i < 4; i++) {
        snprintf(run, sizeof run, "%s/run%d", dir, i);
        snprintf(tr, sizeof tr, "%s/strace%d", dir, i);
        if (i >= 2 && !have_strace) {
            memset(&c[i], 0, sizeof c[i]);
            c[i].syscalls = -1;
            continue;
        }
        record_once(mw, run, links, nm, err, i % 2 ? 0 : rec_s, i >= 2 ? tr : NULL, &c[i]);
    }
    for (int i = 0; i < nm; i++) {
        kill(board[i], SIGTERM);
        waitpid(board[i], NULL, 0);
    }
    print_cost(rec_s, nm, &c[0], &c[1], &c[2], &c[3]);
    char rm[4300];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0) return;
}

int main(void)
{
    printf("## Recorder (mw record)\n\n`make bench` (tests/bench/bench_record.c).\n\n");
    if (!getenv("BENCH_RECORD_NO_DECODE")) decode_throughput();
    record_cost();
    return 0;
}
