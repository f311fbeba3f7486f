/* sweepindex (host/include/mw_sweepindex.h): an index written with the writer API is read back
 * through the reader API exactly — parameters in --param order, runs by configuration then
 * repetition, each run's directory, status, label, repetition and parameter values — and
 * mw_sweepidx_expand replaces a sweep directory by its runs marked done, in index order,
 * keeping other arguments. A second writer is refused while one holds the index; a
 * definition with other values or another command is told apart from the same one; files
 * that are no index are refused with a message naming them. */
#include "../unit.h"

#include <ftw.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_sweepindex.h"

static char tmp[64], dir[128];
static const char *const a_vals[] = {"1", "2"};
static const char *const b_vals[] = {"x"};
static const mw_sweepidx_param params[] = {{"a", 2, a_vals}, {"b", 1, b_vals}};
static char *const cmd[] = {"prog", "--n", "{a}", "{b}"};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void set_run(mw_sweepidx_w *w, int config, int rep, const char *rel, const char *status)
{
    char err[512];
    mw_sweepidx_w_run r;
    assert_int_equal(mw_sweepidx_w_plan(w, config, rep, rel, &r, err, sizeof err), 0);
    assert_string_equal(r.status, "planned");
    assert_string_equal(r.dir, rel);
    snprintf(r.status, sizeof r.status, "%s", status);
    r.has_exit = 1;
    r.exit_code = strcmp(status, "failed") ? 0 : 3;
    r.started_ns = 1000 * config + rep;
    r.wall_s = 1.5;
    r.cmd_s = 0.5;
    r.energy_j = 100.0 * config;
    assert_int_equal(mw_sweepidx_w_update(w, &r, err, sizeof err), 0);
}

static int setup(void **state)
{
    snprintf(tmp, sizeof tmp, "/tmp/mw-sweepidx-XXXXXX");
    if (!mkdtemp(tmp)) return -1;
    snprintf(dir, sizeof dir, "%s/sweep", tmp);
    if (mkdir(dir, 0777)) return -1;
    char err[512];
    mw_sweepidx_w *w = mw_sweepidx_w_create(dir, params, 2, 4, cmd, err, sizeof err);
    if (!w) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    const char *v1[] = {"1", "x"}, *v2[] = {"2", "x"};
    assert_int_equal(mw_sweepidx_w_begin(w, err, sizeof err), 0);
    assert_int_equal(mw_sweepidx_w_config(w, 1, "a=1,b=x", v1, err, sizeof err), 0);
    assert_int_equal(mw_sweepidx_w_config(w, 2, "a=2,b=x", v2, err, sizeof err), 0);
    assert_int_equal(mw_sweepidx_w_meta_set(w, "mode", "reps", err, sizeof err), 0);
    assert_int_equal(mw_sweepidx_w_commit(w, err, sizeof err), 0);
    /* written out of order: the reader sorts by configuration, then repetition */
    set_run(w, 2, 2, "runs/a=2_b=x-r2", "running");
    set_run(w, 1, 1, "runs/a=1_b=x-r1", "done");
    set_run(w, 2, 1, "runs/a=2_b=x-r1", "done");
    set_run(w, 1, 2, "runs/a=1_b=x-r2", "failed");
    assert_int_equal(mw_sweepidx_w_config_stop(w, 0, "reps", 0.01, NAN, err, sizeof err), 0);
    mw_sweepidx_w_close(w);
    return 0;
}

static int teardown(void **state)
{
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static void test_read(void **state)
{
    char err[512], want[256];
    assert_true(mw_sweepidx_is_sweep(dir));
    assert_false(mw_sweepidx_is_sweep(tmp));
    mw_sweepidx *x = mw_sweepidx_open(dir, err, sizeof err);
    assert_non_null(x);
    assert_int_equal(mw_sweepidx_nparams(x), 2);
    assert_string_equal(mw_sweepidx_param_name(x, 0), "a");
    assert_string_equal(mw_sweepidx_param_name(x, 1), "b");
    assert_null(mw_sweepidx_param_name(x, 2));
    assert_int_equal(mw_sweepidx_nruns(x), 4);
    static const struct {
        const char *label, *rel, *status, *a;
        int rep;
    } want_runs[] = {
        {"a=1,b=x", "runs/a=1_b=x-r1", "done", "1", 1},
        {"a=1,b=x", "runs/a=1_b=x-r2", "failed", "1", 2},
        {"a=2,b=x", "runs/a=2_b=x-r1", "done", "2", 1},
        {"a=2,b=x", "runs/a=2_b=x-r2", "running", "2", 2},
    };
    for (size_t i = 0; i < 4; i++) {
        snprintf(want, sizeof want, "%s/%s", dir, want_runs[i].rel);
        assert_string_equal(mw_sweepidx_run_dir(x, i), want);
        assert_string_equal(mw_sweepidx_run_label(x, i), want_runs[i].label);
        assert_string_equal(mw_sweepidx_run_status(x, i), want_runs[i].status);
        assert_int_equal(mw_sweepidx_run_rep(x, i), want_runs[i].rep);
        assert_string_equal(mw_sweepidx_run_param(x, i, "a"), want_runs[i].a);
        assert_string_equal(mw_sweepidx_run_param(x, i, "b"), "x");
        assert_null(mw_sweepidx_run_param(x, i, "c"));
    }
    assert_null(mw_sweepidx_run_dir(x, 4));
    mw_sweepidx_close(x);
}

static void test_expand(void **state)
{
    char err[512], w1[256], w2[256];
    char *args[] = {"plain", dir, "other"};
    char **out;
    int n;
    assert_int_equal(mw_sweepidx_expand(3, args, &out, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    snprintf(w1, sizeof w1, "%s/runs/a=1_b=x-r1", dir);
    snprintf(w2, sizeof w2, "%s/runs/a=2_b=x-r1", dir);
    assert_string_equal(out[0], "plain");
    assert_string_equal(out[1], w1);
    assert_string_equal(out[2], w2);
    assert_string_equal(out[3], "other");
    mw_sweepidx_free_list(out, n);

    /* a sweep with no finished run: an error naming it */
    char empty[192];
    snprintf(empty, sizeof empty, "%s/empty", tmp);
    assert_int_equal(mkdir(empty, 0777), 0);
    mw_sweepidx_w *w = mw_sweepidx_w_create(empty, params, 2, 4, cmd, err, sizeof err);
    assert_non_null(w);
    mw_sweepidx_w_close(w);
    char *args2[] = {empty};
    assert_int_equal(mw_sweepidx_expand(1, args2, &out, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, empty));
    assert_non_null(strstr(err, "no finished run"));
}

static void test_writer(void **state)
{
    char err[512], why[512];
    mw_sweepidx_w *w = mw_sweepidx_w_open(dir, err, sizeof err);
    assert_non_null(w);
    /* a second writer is refused while the first holds the index */
    assert_null(mw_sweepidx_w_open(dir, err, sizeof err));
    assert_non_null(strstr(err, "another mw sweep"));
    assert_int_equal(mw_sweepidx_w_same(w, params, 2, 4, cmd, why, sizeof why), 1);
    static const char *const other_vals[] = {"1", "3"};
    const mw_sweepidx_param other[] = {{"a", 2, other_vals}, {"b", 1, b_vals}};
    assert_int_equal(mw_sweepidx_w_same(w, other, 2, 4, cmd, why, sizeof why), 0);
    assert_non_null(strstr(why, "'a'"));
    assert_int_equal(mw_sweepidx_w_same(w, params, 1, 4, cmd, why, sizeof why), 0);
    char *cmd2[] = {"prog", "--m", "{a}", "{b}"};
    assert_int_equal(mw_sweepidx_w_same(w, params, 2, 4, cmd2, why, sizeof why), 0);
    assert_string_equal(why, "its command differs");
    assert_int_equal(mw_sweepidx_w_same(w, params, 2, 3, cmd, why, sizeof why), 0);

    mw_sweepidx_w_run *r;
    size_t n;
    assert_int_equal(mw_sweepidx_w_runs(w, 2, &r, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].rep, 1);
    assert_string_equal(r[0].status, "done");
    assert_int_equal(r[0].started_ns, 2001);
    assert_true(r[0].energy_j == 200.0 && r[0].cmd_s == 0.5 && r[0].wall_s == 1.5);
    assert_string_equal(r[1].status, "running");
    free(r);
    /* planning a run that is there keeps it as it is */
    mw_sweepidx_w_run one;
    assert_int_equal(mw_sweepidx_w_plan(w, 1, 1, "runs/a=1_b=x-r1", &one, err, sizeof err), 0);
    assert_string_equal(one.status, "done");
    /* a directory that another run holds */
    assert_int_equal(mw_sweepidx_w_plan(w, 1, 3, "runs/a=1_b=x-r1", &one, err, sizeof err), -1);
    mw_sweepidx_w_close(w);

    /* the stop reasons and the extra columns are where docs/sweep.md says */
    sqlite3 *db;
    char path[256];
    snprintf(path, sizeof path, "%s/sweep.db", dir);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT count(*), sum(stop_reason = 'reps'),"
                                        " sum(energy_rel IS NULL) FROM configs",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 2);
    assert_int_equal(sqlite3_column_int(st, 1), 2);
    assert_int_equal(sqlite3_column_int(st, 2), 2);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_not_an_index(void **state)
{
    char err[512], path[256], d2[192];
    snprintf(d2, sizeof d2, "%s/junk", tmp);
    assert_int_equal(mkdir(d2, 0777), 0);
    assert_null(mw_sweepidx_open(d2, err, sizeof err));
    assert_non_null(strstr(err, "sweep.db"));
    snprintf(path, sizeof path, "%s/sweep.db", d2);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("this is not a database, just text long enough to be read as a header.....\n", f);
    fclose(f);
    assert_true(mw_sweepidx_is_sweep(d2));
    assert_null(mw_sweepidx_open(d2, err, sizeof err));
    assert_non_null(strstr(err, path));
    char **out;
    int n;
    char *args[] = {d2};
    assert_int_equal(mw_sweepidx_expand(1, args, &out, &n, err, sizeof err), -1);
    assert_null(mw_sweepidx_w_open(d2, err, sizeof err));
    /* an SQLite database of something else */
    unlink(path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_null(mw_sweepidx_open(d2, err, sizeof err));
    assert_non_null(strstr(err, "not a sweep index"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_writer),
        cmocka_unit_test(test_not_an_index),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
