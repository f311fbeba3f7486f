/* sweep (host/sweep.c, host/sweep_run.c, mw_sweep.h): the parameters ("NAME=V1,V2,...", each
 * refusal's exact message), the grid (cartesian order, labels, run names made of
 * [A-Za-z0-9_.=-], "_c<id>" where two would be the same, the limits), the rotated order,
 * the placeholders (checked, substituted, other braces kept), the guarded removal of run
 * directories, the recorder's argument vector; and the whole sweep against a fake
 * `mw record`: this test binary, started by mw_sweep_record as /proc/self/exe with
 * "record", makes the run (or not) and exits with the code its command names. A sweep of
 * a=0,3 twice records 4 runs in the rotated order, the a=3 runs failed; it resumes (failed
 * runs again, done ones not), a run left running is planned again, a stop flag stops it,
 * the rule hook ends a configuration early and writes the stop reasons, a sweep whose
 * recorder starts nothing leaves nothing behind, and a directory holding something else is
 * refused. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_store.h"
#include "mw_sweep.h"
#include "mw_sweepindex.h"

static char tmp[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* The fake recorder: mw record -o PATH ... -- CODE. CODE "nostart" exits 2 without a run. */
static int fake_record(int argc, char **argv)
{
    const char *path = NULL, *code = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) path = argv[i + 1];
        if (!strcmp(argv[i], "--") && i + 1 < argc) code = argv[i + 1];
    }
    if (!path || !code || !strcmp(code, "nostart")) return 2;
    char err[256];
    mw_store *s = mw_store_create(path, 0, err, sizeof err);
    if (!s) return 99;
    mw_store_close(s);
    return atoi(code);
}

static void add(mw_sweep_params *ps, const char *spec)
{
    char err[256];
    assert_int_equal(mw_sweep_params_add(ps, spec, err, sizeof err), 0);
}

static void refused(const char *spec, const char *want)
{
    mw_sweep_params ps = {0};
    char err[256];
    add(&ps, "a=1");
    assert_int_equal(mw_sweep_params_add(&ps, spec, err, sizeof err), -1);
    assert_string_equal(err, want);
    mw_sweep_params_free(&ps);
}

static void params(void **state)
{
    refused("=1", "--param '=1': not NAME=V1,V2,... (NAME: letters, digits, _)");
    refused("9x=1", "--param '9x=1': not NAME=V1,V2,... (NAME: letters, digits, _)");
    refused("b", "--param 'b': not NAME=V1,V2,... (NAME: letters, digits, _)");
    refused("a=2", "--param a: given twice");
    refused("b=1,,2", "--param 'b=1,,2': an empty value");
    refused("b=1,", "--param 'b=1,': an empty value");
    refused("b=x,y,x", "--param 'b=x,y,x': value 'x' given twice");
    mw_sweep_params ps = {0};
    char err[256], spec[16];
    for (int k = 0; k < MW_SWEEP_MAX_PARAMS; k++) {
        snprintf(spec, sizeof spec, "p%d=1", k);
        add(&ps, spec);
    }
    assert_int_equal(mw_sweep_params_add(&ps, "q=1", err, sizeof err), -1);
    assert_string_equal(err, "--param: more than 32 parameters");
    assert_string_equal(ps.p[31].name, "p31");
    mw_sweep_params_free(&ps);
    assert_int_equal(mw_sweep_is_name("_a9", 3), 1);
    assert_int_equal(mw_sweep_is_name("a-b", 3), 0);
}

static void grid_and_order(void **state)
{
    mw_sweep_params ps = {0};
    add(&ps, "a=1,2");
    add(&ps, "b=x/y,x_y,z");
    mw_sweep_config *c;
    size_t n;
    char err[256];
    assert_int_equal(mw_sweep_grid(&ps, 3, &c, &n, err, sizeof err), 0);
    assert_int_equal(n, 6);
    const char *labels[] = {"a=1,b=x/y", "a=1,b=x_y", "a=1,b=z",
                            "a=2,b=x/y", "a=2,b=x_y", "a=2,b=z"};
    const char *names[] = {"a=1_b=x_y_c1", "a=1_b=x_y_c2", "a=1_b=z",
                           "a=2_b=x_y_c4", "a=2_b=x_y_c5", "a=2_b=z"};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(c[i].id, (int)i + 1);
        assert_string_equal(c[i].label, labels[i]);
        assert_string_equal(c[i].name, names[i]);
    }
    assert_string_equal(c[4].values[0], "2");
    assert_string_equal(c[4].values[1], "x_y");
    /* round 1 from configuration 1, round 3 from configuration 3 */
    assert_ptr_equal(mw_sweep_order(c, n, 1, 0), &c[0]);
    assert_ptr_equal(mw_sweep_order(c, n, 3, 0), &c[2]);
    assert_ptr_equal(mw_sweep_order(c, n, 3, 5), &c[1]);
    mw_sweep_grid_free(c, n);
    assert_int_equal(mw_sweep_grid(&ps, 20000, &c, &n, err, sizeof err), -1);
    assert_string_equal(err, "6 configurations x 20000 repetitions: more than 100000 runs");
    mw_sweep_params_free(&ps);

    /* 101 x 100 values: too many configurations; a long label: the name is cut */
    char big[1024] = "a=0";
    for (int k = 1; k <= 100; k++)
        snprintf(big + strlen(big), sizeof big - strlen(big), ",%d", k);
    add(&ps, big);
    big[0] = 'b';
    add(&ps, big);
    assert_int_equal(mw_sweep_grid(&ps, 1, &c, &n, err, sizeof err), -1);
    assert_string_equal(err, "more than 10000 configurations");
    mw_sweep_params_free(&ps);
    char lng[300];
    memset(lng, 'v', 250);
    snprintf(lng, 5, "a=vv");
    lng[4] = 'v';
    lng[250] = 0;
    add(&ps, lng);
    assert_int_equal(mw_sweep_grid(&ps, 1, &c, &n, err, sizeof err), 0);
    assert_int_equal(strlen(c[0].name), MW_SWEEP_NAME_MAX);
    mw_sweep_grid_free(c, n);
    mw_sweep_params_free(&ps);
}

static void placeholders(void **state)
{
    mw_sweep_params ps = {0};
    add(&ps, "a=1");
    add(&ps, "bb=x");
    char err[512];
    char *ok[] = {"run", "{a}-{bb}{}", "{1}{a b}x{"};
    assert_int_equal(mw_sweep_check_command(&ps, 3, ok, err, sizeof err), 0);
    char *unknown[] = {"run", "{a}{bb}", "x{c}y"};
    assert_int_equal(mw_sweep_check_command(&ps, 3, unknown, err, sizeof err), -1);
    assert_string_equal(err, "'x{c}y': unknown placeholder {c} (the parameters: {a}, {bb})");
    char *unused[] = {"run", "{bb}"};
    assert_int_equal(mw_sweep_check_command(&ps, 2, unused, err, sizeof err), -1);
    assert_string_equal(err, "--param a: {a} appears nowhere in the command");
    mw_sweep_config *c;
    size_t n;
    assert_int_equal(mw_sweep_grid(&ps, 1, &c, &n, err, sizeof err), 0);
    char *w = mw_sweep_substitute(&ps, &c[0], "{a}-{bb}{}{a b}{a}");
    assert_string_equal(w, "1-x{}{a b}1");
    free(w);

    mw_sweep_setup s = {.argc = 3, .argv = ok, .idle_s = "0.5", .channels = "n0,n1"};
    char **argv = mw_sweep_record_argv(&s, &ps, &c[0], "SW/runs/a=1-r1");
    const char *want[] = {
        "mw",      "record", "-o",  "SW/runs/a=1-r1", "--idle",     "0.5", "--channels", "n0,n1",
        "--quiet", "--",     "run", "1-x{}",          "{1}{a b}x{", NULL};
    for (int k = 0; want[k]; k++)
        assert_string_equal(argv[k], want[k]);
    assert_null(argv[13]);
    mw_sweep_argv_free(argv);
    mw_sweep_grid_free(c, n);
    mw_sweep_params_free(&ps);
}

static void remove_run(void **state)
{
    char err[512], d[128], f[320];
    assert_non_null(mkdtemp(strcpy(tmp, "/tmp/mw-sweep-XXXXXX")));
    snprintf(d, sizeof d, "%s/runs/a=1-r1/probe", tmp);
    snprintf(f, sizeof f, "mkdir -p '%s' && touch '%s/x'", d, d);
    assert_int_equal(system(f), 0);
    const char *bad[] = {"../x", "runs/..", "runs/.", "runs/", "runs/a/b", "other/a"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char want[256];
        snprintf(want, sizeof want, "%s: run directory '%s' is not under runs/: left alone", tmp,
                 bad[k]);
        assert_int_equal(mw_sweep_remove_run(tmp, bad[k], err, sizeof err), -1);
        assert_string_equal(err, want);
    }
    assert_int_equal(mw_sweep_remove_run(tmp, "runs/a=1-r1", err, sizeof err), 0);
    snprintf(d, sizeof d, "%s/runs/a=1-r1", tmp);
    assert_int_equal(access(d, F_OK), -1);
    assert_int_equal(mw_sweep_remove_run(tmp, "runs/a=1-r1", err, sizeof err), 0); /* gone */
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the whole sweep, against the fake recorder ---------------------------------------- */

typedef struct {
    char seq[512]; /* the events: S(tarted) E(nded) N(ot started) F(no figures) X(error) */
    int met_after; /* the rule: configuration 1 is done after this many runs (0: never) */
} trace;

static void on_event(void *ctx, const mw_sweep_event *e)
{
    trace *t = ctx;
    const char k[] = {'X', 'S', 'N', 'F', 'E', '.'};
    size_t l = strlen(t->seq);
    if (e->c)
        snprintf(t->seq + l, sizeof t->seq - l, "%c%dr%d ", k[e->kind], e->c->id, e->rep);
    else
        snprintf(t->seq + l, sizeof t->seq - l, "%c ", k[e->kind]);
}

static int figures(const char *rundir, double *cmd_s, double *energy_j, char *err, size_t len)
{
    *cmd_s = 1.5;
    *energy_j = 42;
    return 0;
}

static mw_sweep *rule_sw; /* the sweep the rule reads (its index) */
static int rule(void *ctx, int config, mw_sweep_rule *out)
{
    trace *t = ctx;
    mw_sweepidx_w_run *r;
    size_t n, done = 0;
    char err[256];
    assert_int_equal(mw_sweepidx_w_runs(rule_sw->w, config, &r, &n, err, sizeof err), 0);
    for (size_t i = 0; i < n; i++)
        done += !strcmp(r[i].status, "done");
    free(r);
    out->met = config == 1 && t->met_after && done >= (size_t)t->met_after;
    out->runs_needed = out->met ? done : 3;
    out->stop = out->met ? "precision" : "max-reps";
    return 0;
}

static char *const cmd[] = {"{a}"};

/* a sweep of a=VALUES, reps rounds, into tmp/sw; returns mw_sweep_run's result */
static int sweep(mw_sweep_params *ps, mw_sweep_config **c, size_t *nc, mw_sweep *sw, trace *t,
                 int precision, int rounds, volatile sig_atomic_t *stop)
{
    char err[512], dir[128];
    snprintf(dir, sizeof dir, "%s/sw", tmp);
    assert_int_equal(mw_sweep_grid(ps, rounds, c, nc, err, sizeof err), 0);
    *sw = (mw_sweep){.dir = strdup(dir), .ps = ps, .c = *c, .nc = *nc, .rounds = rounds};
    sw->setup = (mw_sweep_setup){1, cmd, precision, rounds, 0.1, 0.95, 3, rounds, NULL, NULL, NULL};
    sw->hooks = (mw_sweep_hooks){t, precision ? rule : NULL, figures, on_event, NULL, stop};
    rule_sw = sw;
    int rc = mw_sweep_open(sw, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    return mw_sweep_run(sw);
}

static void done_sweep(mw_sweep *sw, mw_sweep_config *c, size_t nc)
{
    mw_sweep_close(sw);
    free((char *)sw->dir);
    mw_sweep_grid_free(c, nc);
}

static const char *statuses(mw_sweep *sw)
{
    static char s[256];
    mw_sweepidx_w_run *r;
    size_t n;
    char err[256];
    s[0] = 0;
    assert_int_equal(mw_sweepidx_w_runs(sw->w, 0, &r, &n, err, sizeof err), 0);
    for (size_t i = 0; i < n; i++)
        snprintf(s + strlen(s), sizeof s - strlen(s), "%dr%d:%s ", r[i].config, r[i].rep,
                 r[i].status);
    free(r);
    return s;
}

static void whole_sweep(void **state)
{
    assert_non_null(mkdtemp(strcpy(tmp, "/tmp/mw-sweep-XXXXXX")));
    mw_sweep_params ps = {0};
    add(&ps, "a=0,3");
    mw_sweep_config *c;
    size_t nc;
    mw_sweep sw;
    trace t = {"", 0};
    assert_int_equal(sweep(&ps, &c, &nc, &sw, &t, 0, 2, NULL), 1);
    assert_string_equal(t.seq, "S1r1 E1r1 S2r1 E2r1 S2r2 E2r2 S1r2 E1r2 . ");
    assert_string_equal(statuses(&sw), "1r1:done 1r2:done 2r1:failed 2r2:failed ");
    assert_int_equal(sw.ran, 4);
    assert_int_equal(sw.failed, 2);
    assert_int_equal(mw_sweep_end(&sw, 1), 0);
    done_sweep(&sw, c, nc);

    /* resumed: the failed runs again; one left running is planned again and redone */
    char err[256], dir[128];
    snprintf(dir, sizeof dir, "%s/sw", tmp);
    mw_sweepidx_w *w = mw_sweepidx_w_open(dir, err, sizeof err);
    mw_sweepidx_w_run r;
    assert_int_equal(mw_sweepidx_w_plan(w, 1, 2, "runs/a=0-r2", &r, err, sizeof err), 0);
    snprintf(r.status, sizeof r.status, "running");
    assert_int_equal(mw_sweepidx_w_update(w, &r, err, sizeof err), 0);
    mw_sweepidx_w_close(w);
    t.seq[0] = 0;
    assert_int_equal(sweep(&ps, &c, &nc, &sw, &t, 0, 2, NULL), 1);
    assert_int_equal(sw.finished, 4); /* 1r1 done before; 1r2 (was running), 2r1, 2r2 now */
    assert_string_equal(t.seq, "S2r1 E2r1 S2r2 E2r2 S1r2 E1r2 . ");
    done_sweep(&sw, c, nc);

    /* stopped before the first run */
    volatile sig_atomic_t stop = SIGINT;
    t.seq[0] = 0;
    assert_int_equal(sweep(&ps, &c, &nc, &sw, &t, 0, 3, &stop), MW_SWEEP_STOPPED);
    assert_string_equal(t.seq, ". ");
    assert_int_equal(mw_sweep_end(&sw, MW_SWEEP_STOPPED), 0);
    done_sweep(&sw, c, nc);
    mw_sweep_params_free(&ps);
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void rule_and_refusals(void **state)
{
    assert_non_null(mkdtemp(strcpy(tmp, "/tmp/mw-sweep-XXXXXX")));
    mw_sweep_params ps = {0};
    add(&ps, "a=0,4");
    mw_sweep_config *c;
    size_t nc;
    mw_sweep sw;
    trace t = {"", 1}; /* configuration 1 (a=0) is done after one run */
    assert_int_equal(sweep(&ps, &c, &nc, &sw, &t, 1, 3, NULL), 1);
    assert_string_equal(t.seq, "S1r1 E1r1 S2r1 E2r1 S2r2 E2r2 S2r3 E2r3 . ");
    assert_int_equal(sw.total, 1 + 3);
    done_sweep(&sw, c, nc);

    /* the same directory with other values, a file, a directory with other files */
    char err[512], dir[128], want[256];
    mw_sweep_params other = {0};
    add(&other, "a=0,5");
    mw_sweep o = {.dir = dir, .ps = &other, .setup = {.argc = 1, .argv = cmd}};
    snprintf(dir, sizeof dir, "%s/sw", tmp);
    assert_int_equal(mw_sweep_open(&o, err, sizeof err), MW_SWEEP_REFUSED);
    assert_non_null(strstr(err, "a sweep of another command or other parameters"));
    mw_sweep_close(&o);
    snprintf(dir, sizeof dir, "%s/sw/sweep.db", tmp);
    assert_int_equal(mw_sweep_open(&o, err, sizeof err), MW_SWEEP_REFUSED);
    snprintf(want, sizeof want, "-o %s: exists and is not a directory", dir);
    assert_string_equal(err, want);
    snprintf(dir, sizeof dir, "%s/sw/runs", tmp);
    assert_int_equal(mw_sweep_open(&o, err, sizeof err), MW_SWEEP_REFUSED);
    snprintf(want, sizeof want,
             "-o %s: exists and is not a sweep directory (no sweep.db); choose a new -o", dir);
    assert_string_equal(err, want);
    mw_sweep_params_free(&other);

    /* a recorder that starts nothing: the new sweep leaves nothing behind */
    mw_sweep_params ns = {0};
    add(&ns, "a=nostart");
    snprintf(tmp + strlen(tmp), sizeof tmp - strlen(tmp), "/new");
    t.seq[0] = 0;
    assert_int_equal(sweep(&ns, &c, &nc, &sw, &t, 0, 1, NULL), MW_SWEEP_NO_RECORDER);
    assert_string_equal(t.seq, "S1r1 N1r1 . ");
    assert_int_equal(sw.recorder_exit, 2);
    assert_int_equal(mw_sweep_end(&sw, MW_SWEEP_NO_RECORDER), 1);
    assert_int_equal(access(tmp, F_OK), -1);
    done_sweep(&sw, c, nc);
    mw_sweep_params_free(&ns);
    tmp[strlen(tmp) - 4] = 0;
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    mw_sweep_params_free(&ps);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "record")) return fake_record(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(params),       cmocka_unit_test(grid_and_order),
        cmocka_unit_test(placeholders), cmocka_unit_test(remove_run),
        cmocka_unit_test(whole_sweep),  cmocka_unit_test(rule_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
