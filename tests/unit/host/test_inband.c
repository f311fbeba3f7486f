/* In-band readers (host/inband*.c, mw_inband.h), against numbers known by construction:
 * a counter's steps across a wrap at max_energy_range_uj, a step back that is not a wrap
 * (flagged, not summed); the real RAPL reader on a powercap tree in a temporary directory
 * (MW_POWERCAP_ROOT): domains found by their name files, parts named after their package,
 * additive only package and dram, a file replaced by rename read afresh, a vanished domain
 * failing its reads until it is back, an unreadable energy_uj said once for every domain
 * (as an unprivileged user: root reads anything); NVML absent (one note, no source); the
 * sampler end to end into a run store, with a counter written at known power by this test
 * that wraps and fails once: the stored energy equals what was written, the wrap is
 * flagged, the failure is a gap; a counter going back (not a wrap) under the sampler: one
 * window flagged, nothing summed, said once. */
#include "../unit.h"

#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mw_inband.h"
#include "mw_run.h"
#include "mw_store.h"

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void rm_tree(void)
{
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* write path atomically (a temporary file renamed over it), as a test writer does */
static void put(const char *dir, const char *file, const char *text)
{
    char p[512], t[520];
    snprintf(p, sizeof p, "%s/%s/%s", tmpdir, dir, file);
    snprintf(t, sizeof t, "%s.tmp", p);
    FILE *f = fopen(t, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(t, p), 0);
}

static void domain(const char *dir, const char *name, unsigned long long e, unsigned long long max)
{
    char p[256], b[64];
    snprintf(p, sizeof p, "%s/%s", tmpdir, dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(b, sizeof b, "%s\n", name);
    put(dir, "name", b);
    snprintf(b, sizeof b, "%llu\n", e);
    put(dir, "energy_uj", b);
    snprintf(b, sizeof b, "%llu\n", max);
    put(dir, "max_energy_range_uj", b);
}

static void tree(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-inband-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    chmod(tmpdir, 0755);
    setenv("MW_POWERCAP_ROOT", tmpdir, 1);
    domain("intel-rapl:0", "package-0", 1000, 262143328850ULL);
    domain("intel-rapl:0:0", "core", 500, 262143328850ULL);
    domain("intel-rapl:0:1", "dram", 70, 65712999613ULL);
    domain("intel-rapl:1", "package-1", 2000, 262143328850ULL);
    char p[256];
    snprintf(p, sizeof p, "%s/intel-rapl", tmpdir); /* the control type, not a domain */
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/intel-rapl:9", tmpdir); /* no name file: not a domain */
    assert_int_equal(mkdir(p, 0755), 0);
}

static void test_counter_wrap(void **state)
{
    mw_inband_counter c = {.range_uj = 1000000};
    int64_t d;
    assert_int_equal(mw_inband_counter_step(&c, 999000, &d), 0);
    assert_int_equal(d, 0); /* the first reading: the origin */
    assert_int_equal(mw_inband_counter_step(&c, 999500, &d), 0);
    assert_int_equal(d, 500);
    /* wraps at 1000000: 500 to the top, 1200 past it */
    assert_int_equal(mw_inband_counter_step(&c, 1200, &d), MW_INBAND_FLAG_WRAP);
    assert_int_equal(d, 1700);
    assert_int_equal(c.total_uj, 2200);
    assert_int_equal(mw_inband_counter_step(&c, 700000, &d), 0);
    assert_int_equal(d, 698800);
    /* 700000 -> 300000: a wrap would be 600000, past half the range: backwards */
    assert_int_equal(mw_inband_counter_step(&c, 300000, &d), MW_INBAND_FLAG_BACKWARDS);
    assert_int_equal(d, 0);
    assert_int_equal(mw_inband_counter_step(&c, 300010, &d), 0); /* counts from the new */
    assert_int_equal(d, 10);
    assert_int_equal(c.total_uj, 2200 + 698800 + 10);
    /* no range known: any step back is backwards */
    mw_inband_counter u = {0};
    mw_inband_counter_step(&u, 50, &d);
    assert_int_equal(mw_inband_counter_step(&u, 40, &d), MW_INBAND_FLAG_BACKWARDS);
}

static void test_parse(void **state)
{
    unsigned w = 99;
    assert_int_equal(mw_inband_parse("rapl,nvml", &w), 0);
    assert_int_equal(w, MW_INBAND_RAPL | MW_INBAND_NVML);
    assert_int_equal(mw_inband_parse("none", &w), 0);
    assert_int_equal(w, 0);
    assert_int_equal(mw_inband_parse("nvml", &w), 0);
    assert_int_equal(w, MW_INBAND_NVML);
    const char *bad[] = {"", "rapl,", ",rapl", "rapl,,nvml", "RAPL", "none,rapl", "gpu", NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(mw_inband_parse(bad[i], &w), -1);
}

static int by_src_name(const void *a, const void *b)
{
    return strcmp(mw_inband_src_info(*(mw_inband_src *const *)a)->name,
                  mw_inband_src_info(*(mw_inband_src *const *)b)->name);
}

static void test_rapl_tree(void **state)
{
    tree();
    mw_inband_src *src[MW_INBAND_MAX_SOURCES];
    mw_inband_notes notes = {.n = 0};
    int n = mw_inband_rapl_find(src, MW_INBAND_MAX_SOURCES, &notes);
    assert_int_equal(n, 4);
    assert_int_equal(notes.n, 0);
    qsort(src, (size_t)n, sizeof *src, by_src_name);
    const char *names[] = {"rapl:package-0", "rapl:package-0/core", "rapl:package-0/dram",
                           "rapl:package-1"};
    const int additive[] = {1, 0, 1, 1};
    const unsigned long long first[] = {1000, 500, 70, 2000};
    for (int i = 0; i < n; i++) {
        const mw_inband_info *in = mw_inband_src_info(src[i]);
        assert_string_equal(in->name, names[i]);
        assert_string_equal(in->kind, "rapl");
        assert_int_equal(in->additive, additive[i]);
        assert_int_equal(in->sampled, 0);
        uint64_t e;
        int64_t p;
        char why[256];
        assert_int_equal(mw_inband_src_read(src[i], &e, &p, why, sizeof why), 0);
        assert_int_equal(e, first[i]);
    }
    assert_int_equal(mw_inband_src_info(src[2])->range_uj, 65712999613ULL);
    assert_string_equal(mw_inband_src_info(src[2])->domain, "dram");
    assert_string_equal(mw_inband_src_info(src[0])->domain, "package");
    /* replaced by rename: the new value */
    put("intel-rapl:0", "energy_uj", "123456\n");
    uint64_t e;
    int64_t p;
    char why[256];
    assert_int_equal(mw_inband_src_read(src[0], &e, &p, why, sizeof why), 0);
    assert_int_equal(e, 123456);
    /* not a number: a failed read */
    put("intel-rapl:0", "energy_uj", "12x\n");
    assert_int_equal(mw_inband_src_read(src[0], &e, &p, why, sizeof why), -1);
    /* the domain vanishes: reads fail; it comes back: read again */
    char p1[256], p2[256];
    snprintf(p1, sizeof p1, "%s/intel-rapl:1", tmpdir);
    snprintf(p2, sizeof p2, "%s/gone", tmpdir);
    assert_int_equal(rename(p1, p2), 0);
    put("gone", "energy_uj", "2500\n"); /* replaced while away: the old file is unlinked */
    assert_int_equal(mw_inband_src_read(src[3], &e, &p, why, sizeof why), -1);
    assert_non_null(strstr(why, "intel-rapl:1/energy_uj"));
    assert_int_equal(mw_inband_src_read(src[3], &e, &p, why, sizeof why), -1);
    assert_int_equal(rename(p2, p1), 0);
    assert_int_equal(mw_inband_src_read(src[3], &e, &p, why, sizeof why), 0);
    assert_int_equal(e, 2500);
    for (int i = 0; i < n; i++)
        mw_inband_src_free(src[i]);
    rm_tree();
}

/* hostile trees: a FIFO as energy_uj (never blocks: left out), a directory as name, a
 * huge counter, a name with control characters (kept as data) */
static void test_rapl_hostile(void **state)
{
    tree();
    char p[256];
    snprintf(p, sizeof p, "%s/intel-rapl:0/energy_uj", tmpdir);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0644), 0);
    snprintf(p, sizeof p, "%s/intel-rapl:0:0/name", tmpdir);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkdir(p, 0755), 0);
    put("intel-rapl:0:1", "energy_uj", "99999999999999999999999\n"); /* past 2^64 */
    put("intel-rapl:1", "name", "package-1\033[2J\n");
    mw_inband_src *src[MW_INBAND_MAX_SOURCES];
    mw_inband_notes notes = {.n = 0};
    int n = mw_inband_rapl_find(src, MW_INBAND_MAX_SOURCES, &notes);
    /* package-0 left out (a FIFO), core is no domain (its name is a directory), dram's
     * first read fails (not a number): left out; package-1 kept, its name as data */
    assert_int_equal(n, 1);
    assert_string_equal(mw_inband_src_info(src[0])->name, "rapl:package-1\033[2J");
    assert_int_equal(notes.n, 2);
    assert_non_null(strstr(notes.line[0], "not a regular file"));
    assert_non_null(strstr(notes.line[0], "rapl:package-0: left out"));
    assert_non_null(strstr(notes.line[1], "rapl:package-0/dram: left out"));
    assert_non_null(strstr(notes.line[1], "not a number"));
    mw_inband_src_free(src[0]);
    rm_tree();
}

static void test_rapl_absent(void **state)
{
    setenv("MW_POWERCAP_ROOT", "/nonexistent/powercap", 1);
    mw_inband_src *src[4];
    mw_inband_notes notes = {.n = 0};
    assert_int_equal(mw_inband_rapl_find(src, 4, &notes), 0);
    assert_int_equal(notes.n, 1);
    assert_non_null(strstr(notes.line[0], "no RAPL domain under /nonexistent/powercap"));
}

/* as an unprivileged user (root reads anything): energy_uj mode 000 on two domains */
static void test_rapl_denied(void **state)
{
    tree();
    char p[256];
    snprintf(p, sizeof p, "%s/intel-rapl:0/energy_uj", tmpdir);
    chmod(p, 0);
    snprintf(p, sizeof p, "%s/intel-rapl:0:0/energy_uj", tmpdir);
    chmod(p, 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) || setuid(65534))) _exit(3);
        mw_inband_src *src[MW_INBAND_MAX_SOURCES];
        mw_inband_notes notes = {.n = 0};
        int n = mw_inband_rapl_find(src, MW_INBAND_MAX_SOURCES, &notes);
        int ok = n == 2 && notes.n == 1 && strstr(notes.line[0], "2 domains") &&
                 strstr(notes.line[0], "permission denied") && strstr(notes.line[0], "chmod");
        if (!ok) fprintf(stderr, "n %d notes %d: %s\n", n, notes.n, notes.n ? notes.line[0] : "");
        _exit(ok ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    rm_tree();
}

static void test_nvml_absent(void **state)
{
    setenv("MW_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    mw_inband_src *src[4];
    mw_inband_notes notes = {.n = 0};
    assert_int_equal(mw_inband_nvml_find(src, 4, &notes), 0);
    assert_int_equal(notes.n, 1);
    assert_non_null(strstr(notes.line[0], "nvml: no NVIDIA GPU recorded"));
    assert_non_null(strstr(notes.line[0], "/nonexistent/libnvidia-ml.so.1"));
    unsetenv("MW_NVML_LIBRARY");
}

/* ---- the sampler end to end ----------------------------------------------------------- */

#define W_RANGE 3000000ULL /* package-0 wraps every 3 J */
#define W_POWER_UW 3000000LL /* 3 W: 3 uJ/us, a wrap every second; half the range passes
                                unread only after 0.5 s without a good read */

typedef struct {
    volatile int stop;
    int64_t t0_ns;
    long long total_uj; /* what was written, package-0, last */
    int writes;
} writer_state;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* every 7 ms: package-0 = 3 W x time mod 3 J; at write 40 an unreadable value for 400 ms
 * (1.2 J: a wrap stays recognisable while less than half the range passes unread) */
static void *writer(void *arg)
{
    writer_state *w = arg;
    while (!w->stop) {
        long long e = (long long)((mono_ns() - w->t0_ns) * W_POWER_UW / 1000000000LL);
        char b[64];
        if (w->writes == 40) {
            put("intel-rapl:0", "energy_uj", "garbage\n");
            usleep(400000); /* failed reads however late the sampler runs; 1.2 J, less
                               than half the range, passes unread */
        }
        snprintf(b, sizeof b, "%llu\n", (unsigned long long)(e % (long long)W_RANGE));
        put("intel-rapl:0", "energy_uj", b);
        w->total_uj = e;
        w->writes++;
        usleep(7000);
    }
    return NULL;
}

/* until the run holds an in-band window: the sampler has read twice (at most 10 s) */
static void wait_first_window(const char *dir)
{
    for (int i = 0; i < 200; i++) {
        char err[512];
        mw_store *st = mw_store_open(dir, err, sizeof err);
        assert_non_null(st);
        mw_run_cursor *c = mw_run_inband_windows(st, -1);
        mw_inband_window w;
        int rc = mw_run_inband_window_next(c, &w);
        mw_run_close(c);
        mw_store_close(st);
        if (rc == 1) return;
        usleep(50000);
    }
    fail_msg("no in-band window in 10 s");
}

static void test_sampler(void **state)
{
    tree();
    put("intel-rapl:0", "max_energy_range_uj", "3000000\n");
    put("intel-rapl:0", "energy_uj", "0\n");
    char dir[128], err[512];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    mw_store *st = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(st);
    mw_store_close(st);
    mw_inband_notes notes = {.n = 0};
    writer_state w = {.stop = 0};
    mw_inband_sampler *S = mw_inband_start(dir, "hostA", MW_INBAND_RAPL, 100, &notes, err, sizeof err);
    assert_non_null(S);
    assert_int_equal(mw_inband_sources(S), 4);
    wait_first_window(dir); /* the sampler's origin is the 0 written above */
    w.t0_ns = mono_ns();
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, writer, &w), 0);
    usleep(2200000);
    w.stop = 1;
    pthread_join(th, NULL);
    long long written = w.total_uj;
    usleep(30000); /* the sampler sees the last value */
    int64_t cpu;
    assert_int_equal(mw_inband_stop(S, &notes, &cpu), 0);
    for (int i = 0; i < notes.n; i++)
        print_message("note: %s\n", notes.line[i]);
    assert_int_equal(notes.n, 1); /* the failed reads, once */
    assert_non_null(strstr(notes.line[0], "rapl:package-0: "));
    assert_non_null(strstr(notes.line[0], "not a number"));

    st = mw_store_open(dir, err, sizeof err);
    assert_non_null(st);
    mw_run_cursor *c = mw_run_inband_channels(st);
    mw_run_inband_channel ch;
    int pkg = -1, n = 0;
    while (mw_run_inband_channel_next(c, &ch) == 1) {
        assert_string_equal(ch.host, "hostA");
        if (!strcmp(ch.name, "rapl:package-0")) pkg = ch.source;
        n++;
    }
    mw_run_close(c);
    assert_int_equal(n, 4);
    assert_true(pkg >= 0);
    c = mw_run_inband_windows(st, pkg);
    mw_inband_window iw;
    int64_t last_e = 0, sum = 0, prev_t1 = 0;
    int windows = 0, wraps = 0, after_gap = 0;
    while (mw_run_inband_window_next(c, &iw) == 1) {
        if (windows) assert_int_equal(iw.t0_ns, prev_t1); /* contiguous */
        prev_t1 = iw.t1_ns;
        sum += iw.energy_uj - last_e;
        last_e = iw.energy_uj;
        wraps += (iw.flags & MW_INBAND_FLAG_WRAP) != 0;
        after_gap += (iw.flags & MW_INBAND_FLAG_AFTER_GAP) != 0;
        assert_false(iw.flags & MW_INBAND_FLAG_BACKWARDS);
        windows++;
    }
    mw_run_close(c);
    /* 2.2 s + the failure at 100 Hz; 3 W for ~2.4 s: ~7 J, 2 wraps */
    assert_true(windows > 60); /* ~175 at 100 Hz, fewer on a loaded machine */
    assert_int_equal(after_gap, 1);
    assert_int_equal(wraps, written / (long long)W_RANGE); /* each multiple of the range */
    /* energy exact: what was written since 0, across the wraps and the failure */
    assert_int_equal(last_e, written);
    int gaps = 0, source;
    mw_run_gap g;
    c = mw_run_inband_gaps(st);
    while (mw_run_inband_gap_next(c, &source, &g) == 1) {
        assert_int_equal(source, pkg);
        assert_true(g.end_ns - g.start_ns > 200000000); /* the 400 ms of garbage */
        assert_non_null(strstr(g.reason, "not a number"));
        gaps++;
    }
    mw_run_close(c);
    assert_int_equal(gaps, 1);
    char v[256];
    assert_int_equal(mw_store_meta_get(st, "inband_hz", v, sizeof v), 0);
    assert_string_equal(v, "100");
    mw_store_close(st);
    print_message("sampler: 4 domains at 100 Hz for %.2f s: %.3f ms CPU (%.3f %% of a core)\n",
                  (mono_ns() - w.t0_ns) * 1e-9, cpu * 1e-6, 100.0 * cpu / (mono_ns() - w.t0_ns));
    rm_tree();
}

/* a counter that goes back (not a wrap) under the sampler: the window is flagged, holds no
 * energy (the stored energy sums only the steps forward), counting goes on from the new
 * value, and the end says it once */
static void test_sampler_backwards(void **state)
{
    tree();
    char dir[128], err[512];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    mw_store *st = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(st);
    mw_store_close(st);
    mw_inband_notes notes = {.n = 0};
    mw_inband_sampler *S = mw_inband_start(dir, "h", MW_INBAND_RAPL, 100, &notes, err, sizeof err);
    assert_non_null(S);
    wait_first_window(dir); /* the origin: package-0 at 1000 */
    put("intel-rapl:0", "energy_uj", "5000000\n");
    usleep(150000);
    put("intel-rapl:0", "energy_uj", "1000000\n"); /* back 4 J of a 262 kJ range */
    usleep(150000);
    put("intel-rapl:0", "energy_uj", "1500000\n");
    usleep(150000);
    int64_t cpu;
    assert_int_equal(mw_inband_stop(S, &notes, &cpu), 0);
    assert_int_equal(notes.n, 1);
    assert_string_equal(notes.line[0], "rapl:package-0: the counter went backwards 1 "
                                       "time (not a wrap): flagged, not summed");
    st = mw_store_open(dir, err, sizeof err);
    assert_non_null(st);
    mw_run_cursor *c = mw_run_inband_windows(st, 1); /* package-0, the first source */
    mw_inband_window w;
    int64_t prev_e = 0, last_e = -1;
    int back = 0;
    while (mw_run_inband_window_next(c, &w) == 1) {
        if (w.flags & MW_INBAND_FLAG_BACKWARDS) {
            back++;
            assert_int_equal(w.energy_uj, prev_e); /* nothing summed */
            assert_int_equal(w.power_mw, 0);
            assert_int_equal(w.counter_uj, 1000000);
        }
        prev_e = last_e = w.energy_uj;
    }
    mw_run_close(c);
    mw_store_close(st);
    assert_int_equal(back, 1);
    assert_int_equal(last_e, (5000000 - 1000) + (1500000 - 1000000));
    rm_tree();
}

/* the cost of sampling: 8 domains (4 x 2 packages), files updated in place as sysfs does,
 * at 100 Hz for 2 s: the sampling and writing threads' CPU time */
static void test_sampler_cost(void **state)
{
    tree();
    domain("intel-rapl:1:0", "core", 1, 262143328850ULL);
    domain("intel-rapl:1:1", "dram", 1, 262143328850ULL);
    domain("intel-rapl:0:2", "uncore", 1, 262143328850ULL);
    domain("intel-rapl:1:2", "uncore", 1, 262143328850ULL);
    char dir[128], err[512];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    mw_store *st = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(st);
    mw_store_close(st);
    mw_inband_notes notes = {.n = 0};
    mw_inband_sampler *S = mw_inband_start(dir, "h", MW_INBAND_RAPL, 100, &notes, err, sizeof err);
    assert_non_null(S);
    assert_int_equal(mw_inband_sources(S), 8);
    int64_t t0 = mono_ns(), cpu;
    usleep(2000000);
    assert_int_equal(mw_inband_stop(S, &notes, &cpu), 0);
    double pct = 100.0 * (double)cpu / (double)(mono_ns() - t0);
    print_message("sampler: 8 domains at 100 Hz: %.3f ms CPU in 2 s = %.3f %% of a core\n",
                  cpu * 1e-6, pct);
    assert_true(pct < 2.0); /* generous: a loaded, instrumented (ASan) build */
    rm_tree();
}

/* another writer holds the run's write lock for 6 s, past the 5 s busy timeout: the
 * sampler's windows wait in its queue and are all stored once the lock is free (seq
 * 0..n-1 with no hole, contiguous in time); nothing is said */
static void test_sampler_busy(void **state)
{
    tree();
    char dir[128], err[512];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    mw_store *st = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(st);
    mw_store_close(st);
    mw_inband_notes notes = {.n = 0};
    mw_inband_sampler *S = mw_inband_start(dir, "h", MW_INBAND_RAPL, 50, &notes, err, sizeof err);
    assert_non_null(S);
    mw_store *other = mw_store_open_write(dir, err, sizeof err);
    assert_non_null(other);
    assert_int_equal(mw_store_meta_set(other, "held", "1"), 0); /* BEGIN IMMEDIATE: the lock */
    usleep(6000000);
    assert_int_equal(mw_store_commit(other), 0);
    mw_store_close(other);
    usleep(300000);
    assert_int_equal(mw_inband_stop(S, &notes, NULL), 0);
    assert_int_equal(notes.n, 0);
    st = mw_store_open(dir, err, sizeof err);
    assert_non_null(st);
    mw_run_cursor *c = mw_run_inband_windows(st, -1);
    mw_inband_window w;
    int64_t n[MW_INBAND_MAX_SOURCES] = {0}, last_t1[MW_INBAND_MAX_SOURCES] = {0};
    while (mw_run_inband_window_next(c, &w) == 1) {
        assert_true(w.source > 0 && w.source < MW_INBAND_MAX_SOURCES);
        assert_int_equal(w.seq, n[w.source]); /* no window lost */
        if (n[w.source]) assert_int_equal(w.t0_ns, last_t1[w.source]);
        last_t1[w.source] = w.t1_ns;
        n[w.source]++;
    }
    mw_run_close(c);
    mw_store_close(st);
    for (int i = 1; i <= 4; i++)
        assert_true(n[i] > 100); /* 6.3 s at 50 Hz: 315, fewer on a loaded machine */
    rm_tree();
}

/* a version 4 run without in-band sources has no inband_ table and its cursors give
 * nothing; the first source makes the tables, (host, name) is unique; a version 3 run
 * opens read-only, its in-band cursors give nothing; an unknown table is refused */
static void test_old_store(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-inband-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char dir[128], path[160], err[512];
    snprintf(dir, sizeof dir, "%s/run", tmpdir);
    mw_store *st = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(st);
    mw_store_close(st);
    /* version 4 without an in-band source: no inband_ table (the run is no bigger), no rows */
    snprintf(path, sizeof path, "%s/trace.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'inband%'", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    st = mw_store_open(dir, err, sizeof err);
    assert_non_null(st);
    mw_run_cursor *c = mw_run_inband_channels(st);
    mw_run_inband_channel ch;
    assert_int_equal(mw_run_inband_channel_next(c, &ch), 0);
    mw_run_close(c);
    mw_store_close(st);
    /* the first source makes them; a second one (another host) finds them */
    st = mw_store_open_write(dir, err, sizeof err);
    assert_non_null(st);
    mw_inband_info in = {.name = "rapl:package-0", .kind = "rapl", .domain = "package"};
    int a, b;
    assert_int_equal(mw_store_inband_channel_add(st, "h1", &in, &a), 0);
    assert_int_equal(mw_store_inband_channel_add(st, "h2", &in, &b), 0);
    assert_int_equal(mw_store_inband_channel_add(st, "h2", &in, &b), -1); /* (host, name) */
    assert_int_equal(mw_store_commit(st), 0);
    mw_store_close(st);
    st = mw_store_open(dir, err, sizeof err);
    assert_non_null(st);
    c = mw_run_inband_channels(st);
    int n = 0;
    while (mw_run_inband_channel_next(c, &ch) == 1)
        n++;
    mw_run_close(c);
    assert_int_equal(n, 2);
    mw_store_close(st);
    /* version 3 (phase blocks, before in-band sources): no inband_ tables */
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "DROP TABLE inband_channels; DROP TABLE inband_samples; "
                                  "DROP TABLE inband_gaps; PRAGMA user_version = 3",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    st = mw_store_open(dir, err, sizeof err);
    assert_non_null(st);
    c = mw_run_inband_channels(st);
    assert_int_equal(mw_run_inband_channel_next(c, &ch), 0);
    mw_run_close(c);
    c = mw_run_inband_windows(st, 3);
    mw_inband_window w;
    assert_int_equal(mw_run_inband_window_next(c, &w), 0);
    mw_run_close(c);
    c = mw_run_inband_gaps(st);
    int src;
    mw_run_gap g;
    assert_int_equal(mw_run_inband_gap_next(c, &src, &g), 0);
    mw_run_close(c);
    mw_store_close(st);
    assert_null(mw_store_open_write(dir, err, sizeof err)); /* a writer needs version 4 */
    assert_non_null(strstr(err, "schema version 3 is older"));
    /* an object that is no version's */
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE inband_extra (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_null(mw_store_open(dir, err, sizeof err));
    assert_non_null(strstr(err, "not a megawatt run store: it holds table inband_extra"));
    rm_tree();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_wrap), cmocka_unit_test(test_parse),
        cmocka_unit_test(test_rapl_tree),    cmocka_unit_test(test_rapl_hostile),
        cmocka_unit_test(test_rapl_absent),
        cmocka_unit_test(test_rapl_denied),  cmocka_unit_test(test_nvml_absent),
        cmocka_unit_test(test_sampler),      cmocka_unit_test(test_sampler_cost),
        cmocka_unit_test(test_sampler_busy), cmocka_unit_test(test_old_store),
        cmocka_unit_test(test_sampler_backwards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
