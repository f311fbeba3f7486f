/* The probe core (collector/probe/probe.c, libmwprobe.a): inert without MW_RUN_DIR (no file,
 * no thread, fast); with it, a spill file whose records, read back by a small independent
 * reader below (strict: every complete line must be a valid record of docs/probe.md), are
 * exactly the events the test made: nested phases, marks and counters from 4 threads at
 * once, each inside the thread's own clock_gettime brackets and in order; rank and clock
 * samples; names with tabs, NULL and reused buffers; unmatched ends and too deep nesting
 * counted in the D record; a 16-event ring overflowing, with every event either written or
 * counted as dropped; short-lived threads; and a forked child killed with SIGKILL after a
 * flush, whose file holds only valid complete lines.
 *
 * The probe reads its environment at its first call; each test sets the environment and
 * calls mw_probe_shutdown() (probe_test.h) so that the next call starts afresh. */
#include "../unit.h"

#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "probe/mwprobe.h"
#include "probe/probe_internal.h"
#include "probe/probe_test.h"

/* ---- a reader of spill files, independent of the library ----------------------------- */

typedef struct {
    int tid, kind, name;
    int64_t t0, t1, bytes;
    int peer;
} rec_event;

typedef struct {
    char host[256];
    long long pid;
    int ntid;
    long long os_tid[256]; /* by tid, -1 unseen */
    char **names;
    int nnames;
    rec_event *ev;
    size_t nev;
    int nrank;
    long long rank, size;
    int nclock;
    int64_t clock[16][3];
    int has_d;
    long long dropped, unmatched;
    int has_x;
    int64_t x_ns;
    int partial; /* an unterminated last line was ignored */
} spill;

static int num(const char *s, long long *v)
{
    char *end;
    if (!*s) return -1;
    *v = strtoll(s, &end, 10);
    return *end ? -1 : 0;
}

static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        if (n == max) return max + 1;
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t) return n;
        *t = 0;
        p = t + 1;
    }
}

static void spill_free(spill *s)
{
    for (int i = 0; i < s->nnames; i++)
        free(s->names[i]);
    free(s->names);
    free(s->ev);
    memset(s, 0, sizeof *s);
}

/* Reads path into s; fails the test, naming the line, at the first invalid record. */
static void read_spill(const char *path, spill *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 256; i++)
        s->os_tid[i] = -1;
    FILE *in = fopen(path, "r");
    if (!in) fail_msg("cannot open %s", path);
    char *line = NULL;
    size_t cap = 0, evcap = 0;
    ssize_t len;
    int lineno = 0;
    while ((len = getline(&line, &cap, in)) > 0) {
        lineno++;
        if (line[len - 1] != '\n') {
            s->partial = 1;
            break;
        }
        line[len - 1] = 0;
        if (s->has_x) fail_msg("%s:%d: a record after X", path, lineno);
        char *f[10];
        int n = split_tabs(line, f, 9);
        long long a[8] = {0};
        int ok = strlen(f[0]) == 1;
        if (lineno == 1) {
            ok = ok && f[0][0] == 'H' && n == 5 && !strcmp(f[1], "1") && !num(f[3], &s->pid) &&
                 !strcmp(f[4], "CLOCK_REALTIME") && strlen(f[2]) < sizeof s->host;
            if (ok) strcpy(s->host, f[2]);
        } else if (ok && f[0][0] == 'T') {
            ok = n == 3 && !num(f[1], &a[0]) && !num(f[2], &a[1]) && a[0] >= 0 && a[0] < 256 &&
                 s->os_tid[a[0]] == -1 && a[1] > 0;
            if (ok) {
                s->os_tid[a[0]] = a[1];
                s->ntid++;
            }
        } else if (ok && f[0][0] == 'N') {
            ok = n == 3 && !num(f[1], &a[0]) && a[0] >= 0 && a[0] < 100000 &&
                 (a[0] >= s->nnames || !s->names[a[0]]);
            if (ok) {
                if (a[0] >= s->nnames) {
                    s->names = realloc(s->names, (size_t)(a[0] + 1) * sizeof *s->names);
                    for (int i = s->nnames; i <= a[0]; i++)
                        s->names[i] = NULL;
                    s->nnames = (int)a[0] + 1;
                }
                s->names[a[0]] = strdup(f[2]);
            }
        } else if (ok && f[0][0] == 'E') {
            ok = n == 8;
            for (int i = 1; ok && i < 8; i++)
                ok = !num(f[i], &a[i - 1]);
            ok = ok && a[0] >= 0 && a[0] < 256 && s->os_tid[a[0]] != -1 && a[1] >= 0 && a[1] <= 7 &&
                 a[2] >= 0 && a[2] < s->nnames && s->names[a[2]] && a[4] >= a[3];
            if (ok) {
                if (s->nev == evcap) {
                    evcap = evcap ? 2 * evcap : 1024;
                    s->ev = realloc(s->ev, evcap * sizeof *s->ev);
                }
                s->ev[s->nev++] =
                    (rec_event){(int)a[0], (int)a[1], (int)a[2], a[3], a[4], a[5], (int)a[6]};
            }
        } else if (ok && f[0][0] == 'R') {
            ok = n == 3 && !num(f[1], &s->rank) && !num(f[2], &s->size);
            s->nrank++;
        } else if (ok && f[0][0] == 'C') {
            ok = n == 4 && s->nclock < 16 && !num(f[1], &a[0]) && !num(f[2], &a[1]) &&
                 !num(f[3], &a[2]) && a[2] >= 0;
            if (ok) {
                for (int i = 0; i < 3; i++)
                    s->clock[s->nclock][i] = a[i];
                s->nclock++;
            }
        } else if (ok && f[0][0] == 'D') {
            ok = n == 3 && !s->has_d && !num(f[1], &s->dropped) && !num(f[2], &s->unmatched) &&
                 (s->dropped || s->unmatched);
            s->has_d = 1;
        } else if (ok && f[0][0] == 'X') {
            ok = n == 2 && !num(f[1], &a[0]);
            s->has_x = 1;
            s->x_ns = a[0];
        } else {
            ok = 0;
        }
        if (!ok) fail_msg("%s:%d: invalid record", path, lineno);
    }
    free(line);
    fclose(in);
    if (lineno == 0) fail_msg("%s: empty", path);
}

static const char *ev_name(const spill *s, const rec_event *e)
{
    return s->names[e->name];
}

/* ---- helpers -------------------------------------------------------------------------- */

static char tmpdir[64];
static char rundir[128];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mw-probe-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    snprintf(rundir, sizeof rundir, "%s/run", tmpdir);
    return mkdir(rundir, 0755);
}

static int teardown(void **state)
{
    mw_probe_shutdown();
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* this thread's CPU time: what the calls cost, however little of a core a loaded machine
 * gives the test (wall time there counts the other processes' turns too) */
static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int count_tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Start recording into rundir (ring of ring_events, 0: default). */
static void start_active(int ring_events)
{
    mw_probe_shutdown();
    setenv("MW_RUN_DIR", rundir, 1);
    unsetenv("MW_PROBE_DIR");
    if (ring_events) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d", ring_events);
        setenv("MW_PROBE_RING_EVENTS", buf, 1);
    } else {
        unsetenv("MW_PROBE_RING_EVENTS");
    }
    assert_int_equal(mw_probe_active(), 1);
}

/* End the file (as at exit) and read it. */
static void finish_and_read(spill *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", mw_probe_spill_path());
    assert_true(path[0] != 0);
    mw_probe_shutdown();
    read_spill(path, s);
    assert_false(s->partial);
    assert_true(s->has_x);
}

/* ---- inert ---------------------------------------------------------------------------- */

static void test_inert(void **state)
{
    mw_probe_shutdown();
    unsetenv("MW_RUN_DIR");
    char pdir[256];
    snprintf(pdir, sizeof pdir, "%s/inert", tmpdir);
    assert_int_equal(mkdir(pdir, 0755), 0);
    setenv("MW_PROBE_DIR", pdir, 1); /* without MW_RUN_DIR it must not be used */
    int tasks = count_tasks();
    enum { N = 1000000 };
    double t0 = thread_cpu_s();
    for (int i = 0; i < N; i++) {
        mw_phase_begin("inert");
        mw_mark("inert-mark");
        mw_phase_end("inert");
    }
    mw_counter("inert-counter", 1);
    mw_probe_event(MW_PROBE_COMM, "MPI_Send", 1, 2, 3, 4);
    mw_probe_set_rank(0, 1);
    mw_probe_clock_sample(1, 2, 3);
    mw_probe_flush();
    double dt = thread_cpu_s() - t0;
    assert_int_equal(mw_probe_active(), 0);
    assert_string_equal(mw_probe_spill_path(), "");
    assert_int_equal(count_tasks(), tasks); /* no writer thread */
    assert_int_equal(count_files(pdir), 0);
    assert_int_equal(count_files(rundir), 0);
    /* 3 calls per iteration; 50 ns of CPU per call is far above what a load and a branch
     * cost, even under ASan (measured in CPU time: in wall time a 2-core machine busy with
     * other tests came near it) */
    assert_true(dt < 3.0 * N * 50e-9);
    unsetenv("MW_PROBE_DIR");
}

/* ---- 4 threads at once ---------------------------------------------------------------- */

enum { NTHREADS = 4, ITERS = 2000 };

typedef struct {
    int k;
    pthread_barrier_t *go;
    long long os_tid;
    int64_t lo_ns, hi_ns; /* the thread's own brackets around its events */
} worker_arg;

static void *worker(void *p)
{
    worker_arg *w = p;
    char inner[32];
    w->os_tid = syscall(SYS_gettid);
    pthread_barrier_wait(w->go);
    w->lo_ns = realtime_ns();
    for (int i = 0; i < ITERS; i++) {
        mw_phase_begin("outer");
        snprintf(inner, sizeof inner, "inner-%d-%d", w->k, i % 3); /* a reused buffer */
        mw_phase_begin(inner);
        mw_mark("tick");
        mw_counter("iter", (int64_t)i * 1000 + w->k);
        mw_phase_end(inner);
        mw_phase_end("outer");
    }
    w->hi_ns = realtime_ns();
    return NULL;
}

static void test_threads(void **state)
{
    int64_t lo = realtime_ns();
    start_active(0);
    mw_probe_set_rank(3, 8);
    mw_probe_clock_sample(lo, -123456789, 4321);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, NTHREADS + 1);
    pthread_t th[NTHREADS];
    worker_arg w[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        w[k] = (worker_arg){k, &go, 0, 0, 0};
        assert_int_equal(pthread_create(&th[k], NULL, worker, &w[k]), 0);
    }
    pthread_barrier_wait(&go);
    for (int k = 0; k < NTHREADS; k++)
        pthread_join(th[k], NULL);
    pthread_barrier_destroy(&go);
    spill s;
    finish_and_read(&s);
    int64_t hi = realtime_ns();

    char host[256];
    gethostname(host, sizeof host);
    assert_string_equal(s.host, host);
    assert_int_equal(s.pid, getpid());
    assert_int_equal(s.nrank, 1);
    assert_int_equal(s.rank, 3);
    assert_int_equal(s.size, 8);
    assert_int_equal(s.nclock, 1);
    assert_int_equal(s.clock[0][0], lo);
    assert_int_equal(s.clock[0][1], -123456789);
    assert_int_equal(s.clock[0][2], 4321);
    assert_false(s.has_d);
    assert_true(s.x_ns >= lo && s.x_ns <= hi);
    assert_int_equal(s.nev, (size_t)NTHREADS * ITERS * 4);
    /* tid 0 is this thread (it initialised the probe); the workers are 1..4 */
    assert_int_equal(s.ntid, 1 + NTHREADS);
    assert_int_equal(s.os_tid[0], syscall(SYS_gettid));

    for (int k = 0; k < NTHREADS; k++) {
        int tid = -1;
        for (int t = 1; t <= NTHREADS; t++)
            if (s.os_tid[t] == w[k].os_tid) tid = t;
        assert_true(tid > 0);
        int i = 0, step = 0;
        int64_t last_t1 = 0, in_t0 = 0, in_t1 = 0;
        char inner[32];
        for (size_t e = 0; e < s.nev; e++) {
            const rec_event *r = &s.ev[e];
            if (r->tid != tid) continue;
            assert_true(i < ITERS);
            assert_true(r->t0 >= w[k].lo_ns && r->t1 <= w[k].hi_ns);
            assert_true(r->t1 >= last_t1); /* recorded in the order they ended */
            last_t1 = r->t1;
            assert_int_equal(r->peer, -1);
            snprintf(inner, sizeof inner, "inner-%d-%d", k, i % 3);
            switch (step) {
            case 0: /* mark: an instant inside the inner phase (checked at its end) */
                assert_int_equal(r->kind, MW_PROBE_MARK);
                assert_string_equal(ev_name(&s, r), "tick");
                assert_int_equal(r->t0, r->t1);
                assert_int_equal(r->bytes, 0);
                in_t0 = r->t0;
                break;
            case 1:
                assert_int_equal(r->kind, MW_PROBE_COUNTER);
                assert_string_equal(ev_name(&s, r), "iter");
                assert_int_equal(r->t0, r->t1);
                assert_int_equal(r->bytes, (int64_t)i * 1000 + k);
                assert_true(r->t0 >= in_t0);
                in_t1 = r->t0;
                break;
            case 2:
                assert_int_equal(r->kind, MW_PROBE_USER);
                assert_string_equal(ev_name(&s, r), inner);
                assert_true(r->t0 <= in_t0 && r->t1 >= in_t1);
                in_t0 = r->t0;
                in_t1 = r->t1;
                break;
            case 3:
                assert_int_equal(r->kind, MW_PROBE_USER);
                assert_string_equal(ev_name(&s, r), "outer");
                assert_true(r->t0 <= in_t0 && r->t1 >= in_t1);
                break;
            }
            if (++step == 4) {
                step = 0;
                i++;
            }
        }
        assert_int_equal(i, ITERS);
        assert_int_equal(step, 0);
    }
    spill_free(&s);
}

/* ---- names, the internal API, the scope macro ----------------------------------------- */

static int scoped(int x)
{
    MW_PHASE_SCOPE("scoped");
    if (x > 0) return x; /* the phase ends here too */
    mw_mark("not reached");
    return 0;
}

static void test_names_and_internal(void **state)
{
    start_active(0);
    int64_t lo = realtime_ns();
    char buf[64];
    snprintf(buf, sizeof buf, "with\ttab\nand newline");
    mw_mark(buf);
    mw_mark(NULL);
    const char *a = mw_probe_intern(buf);
    snprintf(buf, sizeof buf, "other");
    mw_mark(buf); /* same pointer, new text */
    char copy[64] = "with\ttab\nand newline";
    assert_ptr_equal(mw_probe_intern(copy), a);
    assert_string_equal(a, "with\ttab\nand newline");
    mw_probe_event(MW_PROBE_COMM, "MPI_Send", 1000, 2000, 4096, 5);
    mw_probe_event(MW_PROBE_WAIT, a, 3000, 2500, 0, -1); /* ends before it starts: clamped */
    assert_int_equal(scoped(7), 7);
    {
        MW_PHASE_SCOPE("block");
        mw_mark("in block");
    }
    int64_t hi = realtime_ns();
    spill s;
    finish_and_read(&s);
    assert_int_equal(s.nev, 8);
    const char *want[] = {"with tab and newline", "(null)", "other",    "MPI_Send",
                          "with tab and newline", "scoped", "in block", "block"};
    const int kinds[] = {MW_PROBE_MARK, MW_PROBE_MARK, MW_PROBE_MARK, MW_PROBE_COMM,
                         MW_PROBE_WAIT, MW_PROBE_USER, MW_PROBE_MARK, MW_PROBE_USER};
    for (int i = 0; i < 8; i++) {
        assert_string_equal(ev_name(&s, &s.ev[i]), want[i]);
        assert_int_equal(s.ev[i].kind, kinds[i]);
        assert_int_equal(s.ev[i].tid, 0);
        if (i != 3 && i != 4) assert_true(s.ev[i].t0 >= lo && s.ev[i].t1 <= hi);
    }
    assert_int_equal(s.ev[0].name, s.ev[4].name); /* one id per text */
    assert_int_equal(s.ev[3].t0, 1000);
    assert_int_equal(s.ev[3].t1, 2000);
    assert_int_equal(s.ev[3].bytes, 4096);
    assert_int_equal(s.ev[3].peer, 5);
    assert_int_equal(s.ev[4].t0, 3000);
    assert_int_equal(s.ev[4].t1, 3000);
    assert_true(s.ev[7].t0 <= s.ev[6].t0 && s.ev[7].t1 >= s.ev[6].t1);
    spill_free(&s);
}

/* ---- unmatched ends and too deep nesting ---------------------------------------------- */

static void test_unmatched_and_depth(void **state)
{
    start_active(0);
    mw_phase_end("never begun"); /* unmatched 1 */
    mw_phase_begin("a");
    mw_phase_end("b"); /* unmatched 2: dropped, "a" stays open */
    mw_phase_end("a");
    char name[16];
    for (int i = 0; i < 70; i++) { /* 64 open phases fit; 6 are dropped */
        snprintf(name, sizeof name, "d%d", i);
        mw_phase_begin(name);
    }
    for (int i = 69; i >= 0; i--) {
        snprintf(name, sizeof name, "d%d", i);
        mw_phase_end(name);
    }
    mw_phase_begin("left open"); /* never ends: not recorded */
    spill s;
    finish_and_read(&s);
    assert_true(s.has_d);
    assert_int_equal(s.unmatched, 2);
    assert_int_equal(s.dropped, 6);
    assert_int_equal(s.nev, 1 + 64);
    assert_string_equal(ev_name(&s, &s.ev[0]), "a");
    for (int i = 0; i < 64; i++) { /* innermost first; d64..d69 were the dropped ones */
        snprintf(name, sizeof name, "d%d", 63 - i);
        assert_string_equal(ev_name(&s, &s.ev[1 + i]), name);
    }
    spill_free(&s);
}

/* ---- a full ring ---------------------------------------------------------------------- */

static void test_ring_full(void **state)
{
    start_active(16);
    enum { N = 100000 };
    for (int i = 0; i < N; i++)
        mw_counter("fast", i);
    spill s;
    finish_and_read(&s);
    assert_true(s.has_d);
    assert_true(s.dropped > 0);
    assert_int_equal(s.unmatched, 0);
    assert_int_equal((long long)s.nev + s.dropped, N);
    int64_t last = -1;
    for (size_t i = 0; i < s.nev; i++) { /* the events kept are in order, none twice */
        assert_true(s.ev[i].bytes > last);
        last = s.ev[i].bytes;
    }
    spill_free(&s);
    unsetenv("MW_PROBE_RING_EVENTS");
}

/* The default keeps up with a thread that does nothing but make events (1 M of them, 30
 * times the old fixed ring of 32768): the queue grows while the writer lags, nothing drops. */
static void test_default_no_drops(void **state)
{
    start_active(0);
    enum { N = 1000000 };
    for (int i = 0; i < N; i++)
        mw_counter("flood", i);
    spill s;
    finish_and_read(&s);
    assert_false(s.has_d);
    assert_int_equal(s.nev, N);
    for (size_t i = 0; i < s.nev; i++) /* every event once, in order */
        assert_int_equal(s.ev[i].bytes, (int64_t)i);
    spill_free(&s);
}

/* MW_PROBE_EXCLUDE: the names it lists make no events (phases, marks, counters), others do;
 * a name that only contains a listed one, or is its prefix, is not excluded. */
static void test_exclude(void **state)
{
    setenv("MW_PROBE_EXCLUDE", "MPI_Test,skip", 1);
    start_active(0);
    mw_phase_begin("outer");
    mw_phase_begin("skip");
    mw_mark("MPI_Test");
    mw_counter("skip", 3);
    mw_mark("MPI_Tes");
    mw_mark("MPI_Testall");
    mw_phase_end("skip");
    mw_phase_end("outer");
    spill s;
    finish_and_read(&s);
    unsetenv("MW_PROBE_EXCLUDE");
    assert_false(s.has_d); /* nothing dropped, nothing unmatched */
    assert_int_equal(s.nev, 3);
    const char *want[] = {"MPI_Tes", "MPI_Testall", "outer"};
    for (int i = 0; i < 3; i++)
        assert_string_equal(s.names[s.ev[i].name], want[i]);
    spill_free(&s);
}

/* ---- short-lived threads -------------------------------------------------------------- */

static void *one_event(void *p)
{
    mw_mark((const char *)p);
    return NULL;
}

static void test_short_threads(void **state)
{
    start_active(0);
    static const char *names[] = {"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"};
    for (int k = 0; k < 8; k++) {
        pthread_t th;
        pthread_create(&th, NULL, one_event, (void *)names[k]);
        pthread_join(th, NULL);
        if (k % 3 == 0) mw_probe_flush(); /* some drained one by one, some together */
    }
    mw_mark("main");
    spill s;
    finish_and_read(&s);
    assert_int_equal(s.nev, 9);
    assert_int_equal(s.ntid, 9);
    for (int k = 0; k < 8; k++) { /* tids in order of first event */
        int found = 0;
        for (size_t i = 0; i < s.nev; i++)
            if (!strcmp(ev_name(&s, &s.ev[i]), names[k])) {
                assert_int_equal(s.ev[i].tid, k + 1);
                found++;
            }
        assert_int_equal(found, 1);
    }
    spill_free(&s);
}

/* ---- a child killed with SIGKILL ------------------------------------------------------ */

static void test_fork_kill(void **state)
{
    start_active(0);
    mw_mark("parent before fork");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        for (int i = 0; i < 1000; i++)
            mw_counter("child", i);
        mw_probe_flush();
        if (write(fds[1], "f", 1) != 1) _exit(1);
        struct timespec ms = {0, 1000000};
        for (int i = 1000;; i++) { /* the writer appends every 200 ms until the kill */
            mw_counter("child", i);
            if (i % 100 == 0) nanosleep(&ms, NULL);
        }
    }
    close(fds[1]);
    char c;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    char host[256], path[4096];
    gethostname(host, sizeof host);
    snprintf(path, sizeof path, "%s/probe/%s.%d.mwp", rundir, host, (int)pid);
    /* kill it once its background writer has appended to what the flush wrote */
    struct stat st0, st1;
    assert_int_equal(stat(path, &st0), 0);
    struct timespec wait = {0, 20000000};
    for (int i = 0; i < 500 && stat(path, &st1) == 0 && st1.st_size == st0.st_size; i++)
        nanosleep(&wait, NULL);
    mw_mark("parent after fork");
    kill(pid, SIGKILL);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    spill s;
    read_spill(path, &s); /* every complete line valid */
    assert_int_equal(s.pid, pid);
    assert_false(s.has_x);
    assert_true(s.nev > 1000); /* the flushed 1000 and what the writer wrote later */
    for (size_t i = 0; i < s.nev; i++) {
        assert_string_equal(ev_name(&s, &s.ev[i]), "child");
        assert_int_equal(s.ev[i].bytes, (int64_t)i);
        assert_int_equal(s.ev[i].tid, 0); /* the child's only thread initialised its probe */
    }
    spill_free(&s);

    finish_and_read(&s); /* the parent's own file: its two marks only */
    assert_int_equal(s.pid, getpid());
    assert_int_equal(s.nev, 2);
    assert_string_equal(ev_name(&s, &s.ev[0]), "parent before fork");
    assert_string_equal(ev_name(&s, &s.ev[1]), "parent after fork");
    spill_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inert),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_names_and_internal),
        cmocka_unit_test(test_unmatched_and_depth),
        cmocka_unit_test(test_ring_full),
        cmocka_unit_test(test_default_no_drops),
        cmocka_unit_test(test_exclude),
        cmocka_unit_test(test_short_threads),
        cmocka_unit_test(test_fork_kill),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
