/* mw_plot_run_job (plots/plot_job.c), the job of `mw plot` as a library call, on runs made
 * here with the run store and a stand-in for gnuplot ($MW_GNUPLOT: a script writing NAME.png
 * from NAME.gp, or failing) over empty templates ($MW_PLOTS_DIR), so that no gnuplot is
 * needed and nothing but this test's folder is touched. No kind that runs mw itself (dvfs,
 * model, pareto) is drawn: /proc/self/exe is this test.
 *
 * Contract checked (plots/include/mw_plot.h): the kind names and mw_plot_kind_index; the
 * refusals (an input that does not exist or is no run, sweep or profile, no input, a
 * channel no run has: MW_PLOT_JOB_BAD_INPUT; an unreadable run store:
 * MW_PLOT_JOB_UNREADABLE) with a message naming it, no callback and no folder made; one
 * run's defaults (trace, timeline, a histogram per channel, energy; dvfs, model and pareto
 * not drawn, dvfs with its note) into the run's plots/ when no folder is given; every figure
 * handed to the figure callback as drawn, in the result's order, and existing; two runs
 * with the same folder name get RUN- and RUN.2- figure names, and the note that per-run
 * kinds need --kind; a run without samples is a note and counted unusable while the others
 * are drawn; figures that fail are counted and not listed; a per-run kind asked for with
 * only a profile is a note figure. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_plot.h"
#include "mw_store.h"

#define S_NS 1700000000000000000LL
#define MS 1000000LL

static char tmp[] = "/tmp/mw-plotjob-XXXXXX";

/* ---- what the callbacks saw ---------------------------------------------------------- */

typedef struct {
    char notes[16][1024];
    int nnotes;
    char figures[64][1024];
    int nfigures;
} seen;

static void on_note(void *ctx, const char *text)
{
    seen *s = ctx;
    assert_true(s->nnotes < 16);
    assert_null(strchr(text, '\n'));
    snprintf(s->notes[s->nnotes++], sizeof s->notes[0], "%s", text);
}

static void on_figure(void *ctx, const char *path)
{
    seen *s = ctx;
    assert_true(s->nfigures < 64);
    snprintf(s->figures[s->nfigures++], sizeof s->figures[0], "%s", path);
}

static mw_plot_request request(char **inputs, int n, const char *outdir, seen *s)
{
    memset(s, 0, sizeof *s);
    mw_plot_request q = {.inputs = inputs, .ninputs = n, .outdir = outdir};
    q.note = on_note;
    q.figure = on_figure;
    q.ctx = s;
    return q;
}

/* the callbacks saw exactly the result's figures, each a file */
static void same_figures(const seen *s, const mw_plot_result *res)
{
    assert_int_equal((size_t)s->nfigures, res->nfigures);
    for (size_t i = 0; i < res->nfigures; i++) {
        assert_string_equal(s->figures[i], res->figures[i]);
        struct stat st;
        assert_int_equal(stat(res->figures[i], &st), 0);
        assert_true(S_ISREG(st.st_mode) && st.st_size > 0);
    }
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- fixtures ------------------------------------------------------------------------ */

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

static void window(mw_store *s, int ch, uint32_t k, int32_t p_mw)
{
    int64_t t0 = S_NS + 250 * MS * k, t1 = t0 + 250 * MS;
    mw_store_sample x = {.channel = ch,
                         .seq = k,
                         .meter_t0_us = 1000000 + 250000 * (uint64_t)k,
                         .meter_t1_us = 1250000 + 250000 * (uint64_t)k,
                         .t0_ns = t0,
                         .t1_ns = t1,
                         .power_mw = p_mw,
                         .vrms_mv = 230000,
                         .irms_ua = 100000,
                         .pf_milli = 1000,
                         .energy_mj = (int64_t)p_mw * (k + 1) / 4};
    if (mw_store_sample_add(s, &x)) fail_msg("%s", mw_store_error(s));
}

/* A run in dir: channels node0 (host n0) and switch, 5 s of windows unless empty, the
 * recorder's idle-before and command phases and a compute phase without a rank. */
static void make_run(const char *dir, int empty)
{
    char e[512];
    mw_store *s = mw_store_create(dir, 0, e, sizeof e);
    if (!s) fail_msg("%s", e);
    assert_int_equal(mw_store_meta_set(s, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_meta_set(s, "status", "complete"), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "switch", NULL, "A2"), 0);
    for (uint32_t k = 0; !empty && k < 20; k++) {
        window(s, 1, k, k >= 4 && k < 16 ? 200000 : 80000);
        window(s, 2, k, 10000);
    }
    mw_store_phase ph[] = {
        {-1, "rec", 0, "mw", "idle-before", S_NS, S_NS + 1000 * MS, 0, 0, -1},
        {-1, "rec", 0, "mw", "command", S_NS + 1000 * MS, S_NS + 4000 * MS, 0, 0, -1},
        {-1, "n0", 0, "compute", "step", S_NS + 1000 * MS, S_NS + 4000 * MS, 0, 0, -1}};
    for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);
}

static char path_buf[8][1024];
static const char *at(int slot, const char *name)
{
    snprintf(path_buf[slot], sizeof path_buf[slot], "%s/%s", tmp, name);
    return path_buf[slot];
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(tmp)) return -1;
    char dir[1024], p[1200];
    snprintf(dir, sizeof dir, "%s/templates", tmp);
    mkdir(dir, 0755);
    static const char *const tmpl[] = {"common",  "note", "trace", "histogram", "energy",
                                       "boxplot", "dvfs", "model", "pareto"};
    for (size_t i = 0; i < sizeof tmpl / sizeof *tmpl; i++) {
        snprintf(p, sizeof p, "%s/%s.gp", dir, tmpl[i]);
        write_file(p, "# empty\n", 0644);
    }
    setenv("MW_PLOTS_DIR", dir, 1);
    /* gnuplot SCRIPT, run in the output folder: NAME.gp draws NAME.png */
    write_file(at(0, "gnuplot-ok"), "#!/bin/sh\nprintf png > \"${1%.gp}.png\"\n", 0755);
    write_file(at(0, "gnuplot-fail"), "#!/bin/sh\nexit 1\n", 0755);
    setenv("MW_GNUPLOT", at(0, "gnuplot-ok"), 1);
    setenv("MW_CPUFREQ_FILE", at(0, "no-cpufreq"), 1);
    make_run(at(0, "run"), 0);
    make_run(at(0, "a/r"), 0);
    make_run(at(0, "b/r"), 0);
    make_run(at(0, "empty"), 1);
    mkdir(at(0, "plain"), 0755);
    mkdir(at(0, "junk"), 0755);
    write_file(at(0, "junk/trace.db"), "not a database\n", 0644);
    write_file(at(0, "profile.txt"), "static_power 100\n", 0644);
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    (void)state;
    return nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- tests --------------------------------------------------------------------------- */

static void kind_names(void **state)
{
    (void)state;
    static const char *const want[] = {"trace", "timeline", "histogram", "energy", "inband",
                                       "dvfs",  "boxplot",  "model",     "pareto"};
    assert_int_equal(MW_PLOT_NKINDS, 9);
    for (int k = 0; k < MW_PLOT_NKINDS; k++) {
        assert_string_equal(mw_plot_kind_names[k], want[k]);
        assert_int_equal(mw_plot_kind_index(want[k]), k);
    }
    assert_int_equal(mw_plot_kind_index("Trace"), -1);
    assert_int_equal(mw_plot_kind_index(""), -1);
    assert_int_equal(MW_PLOT_KIND_DVFS, 5);
}

/* req refused with rc and a message containing want; nothing seen, outdir not made */
static void refused(mw_plot_request *q, int rc, const char *want)
{
    mw_plot_result res;
    char err[1024] = "";
    assert_int_equal(mw_plot_run_job(q, &res, err, sizeof err), rc);
    if (!strstr(err, want)) fail_msg("'%s' does not say '%s'", err, want);
    assert_int_equal(res.nfigures, 0);
    mw_plot_result_free(&res);
    const seen *s = q->ctx;
    assert_int_equal(s->nnotes, 0);
    assert_int_equal(s->nfigures, 0);
    assert_false(exists(q->outdir));
}

static void refusals(void **state)
{
    (void)state;
    seen s;
    char *in[] = {(char *)at(1, "run"), (char *)at(2, "missing"), NULL};
    mw_plot_request q = request(in, 2, at(3, "out-refused"), &s);
    refused(&q, MW_PLOT_JOB_BAD_INPUT, "missing: No such file or directory");
    in[1] = (char *)at(2, "plain");
    q = request(in, 2, at(3, "out-refused"), &s);
    refused(&q, MW_PLOT_JOB_BAD_INPUT, "plain: not a run (no trace.db), a sweep");
    q = request(in, 0, at(3, "out-refused"), &s);
    refused(&q, MW_PLOT_JOB_BAD_INPUT, "missing RUNDIR");
    in[1] = (char *)at(2, "junk");
    q = request(in, 2, at(3, "out-refused"), &s);
    refused(&q, MW_PLOT_JOB_UNREADABLE, "junk/trace.db");
    char *ch[] = {"node0", "nosuch", NULL};
    q = request(in, 1, at(3, "out-refused"), &s);
    q.channels = ch;
    q.nchannels = 2;
    refused(&q, MW_PLOT_JOB_BAD_INPUT, "--channel 'nosuch': no such channel in the runs");
}

static void one_run_defaults(void **state)
{
    (void)state;
    seen s;
    char *in[] = {(char *)at(1, "run"), NULL};
    mw_plot_request q = request(in, 1, NULL, &s); /* into RUN/plots */
    mw_plot_result res;
    char err[256];
    assert_int_equal(mw_plot_run_job(&q, &res, err, sizeof err), 0);
    assert_int_equal(res.failed, 0);
    assert_int_equal(res.unusable, 0);
    same_figures(&s, &res);
    static const char *const want[] = {"trace", "timeline", "histogram-node0", "histogram-switch",
                                       "energy"};
    assert_int_equal(res.nfigures, 5);
    for (size_t i = 0; i < 5; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/run/plots/%s.png", tmp, want[i]);
        assert_string_equal(res.figures[i], p);
    }
    /* dvfs says why; model and pareto, which need other inputs, say nothing */
    assert_int_equal(s.nnotes, 1);
    char n0[1200];
    snprintf(n0, sizeof n0, "%s: kind dvfs skipped: no MPI ranks in the run", at(1, "run"));
    assert_string_equal(s.notes[0], n0);
    mw_plot_result_free(&res);
    assert_null(res.figures);
}

static void runs_sharing_a_name(void **state)
{
    (void)state;
    seen s;
    char *in[] = {(char *)at(1, "a/r"), (char *)at(2, "b/r"), NULL};
    mw_plot_request q = request(in, 2, at(3, "out-two"), &s);
    mw_plot_result res;
    char err[256], p[1200];
    assert_int_equal(mw_plot_run_job(&q, &res, err, sizeof err), 0);
    same_figures(&s, &res);
    assert_int_equal(res.nfigures, 1); /* defaults for several runs: the boxplot */
    snprintf(p, sizeof p, "%s/out-two/boxplot.png", tmp);
    assert_string_equal(res.figures[0], p);
    assert_string_equal(s.notes[0], "2 runs: the per-run kinds (trace, timeline, histogram, "
                                    "energy, dvfs) only with --kind");
    mw_plot_result_free(&res);

    q = request(in, 2, at(3, "out-two"), &s);
    q.any_kind = q.kinds[MW_PLOT_KIND_ENERGY] = 1;
    assert_int_equal(mw_plot_run_job(&q, &res, err, sizeof err), 0);
    same_figures(&s, &res);
    assert_int_equal(res.nfigures, 2);
    snprintf(p, sizeof p, "%s/out-two/r-energy.png", tmp);
    assert_string_equal(res.figures[0], p);
    snprintf(p, sizeof p, "%s/out-two/r.2-energy.png", tmp);
    assert_string_equal(res.figures[1], p);
    assert_int_equal(s.nnotes, 0); /* nothing defaulted, nothing skipped */
    mw_plot_result_free(&res);
}

static void unusable_run(void **state)
{
    (void)state;
    seen s;
    char *in[] = {(char *)at(1, "empty"), (char *)at(2, "run"), NULL};
    mw_plot_request q = request(in, 2, at(3, "out-unusable"), &s);
    q.any_kind = q.kinds[MW_PLOT_KIND_ENERGY] = 1;
    mw_plot_result res;
    char err[256], p[1200];
    assert_int_equal(mw_plot_run_job(&q, &res, err, sizeof err), 0);
    assert_int_equal(res.unusable, 1);
    assert_int_equal(res.failed, 0);
    same_figures(&s, &res);
    assert_int_equal(res.nfigures, 1);
    snprintf(p, sizeof p, "%s/out-unusable/run-energy.png", tmp);
    assert_string_equal(res.figures[0], p);
    assert_int_equal(s.nnotes, 1);
    snprintf(p, sizeof p, "%s: no samples", at(1, "empty"));
    assert_string_equal(s.notes[0], p);
    mw_plot_result_free(&res);
}

static void failing_figures(void **state)
{
    (void)state;
    seen s;
    char *in[] = {(char *)at(1, "run"), NULL};
    mw_plot_request q = request(in, 1, at(3, "out-fail"), &s);
    q.any_kind = q.kinds[MW_PLOT_KIND_TRACE] = q.kinds[MW_PLOT_KIND_ENERGY] = 1;
    setenv("MW_GNUPLOT", at(4, "gnuplot-fail"), 1);
    mw_plot_result res;
    char err[256];
    int rc = mw_plot_run_job(&q, &res, err, sizeof err);
    setenv("MW_GNUPLOT", at(4, "gnuplot-ok"), 1);
    assert_int_equal(rc, 0);
    assert_int_equal(res.failed, 2);
    assert_int_equal(res.nfigures, 0);
    assert_int_equal(s.nfigures, 0);
    assert_true(exists(at(5, "out-fail/trace.gp"))); /* its script stays, to see why */
    assert_false(exists(at(5, "out-fail/trace.png")));
    mw_plot_result_free(&res);
}

static void profile_only(void **state)
{
    (void)state;
    seen s;
    char *in[] = {(char *)at(1, "profile.txt"), NULL};
    mw_plot_request q = request(in, 1, at(3, "out-profile"), &s);
    q.any_kind = q.kinds[MW_PLOT_KIND_TRACE] = 1;
    mw_plot_result res;
    char err[256], p[1200];
    assert_int_equal(mw_plot_run_job(&q, &res, err, sizeof err), 0);
    same_figures(&s, &res);
    assert_int_equal(res.nfigures, 1);
    snprintf(p, sizeof p, "%s/out-profile/trace.png", tmp);
    assert_string_equal(res.figures[0], p);
    FILE *f = fopen(at(5, "out-profile/trace.gp"), "r");
    assert_non_null(f);
    char line[1024];
    int said = 0;
    while (fgets(line, sizeof line, f))
        said |= strstr(line, "this kind is drawn from a run: no RUNDIR given") != NULL;
    fclose(f);
    assert_true(said);
    mw_plot_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kind_names),       cmocka_unit_test(refusals),
        cmocka_unit_test(one_run_defaults), cmocka_unit_test(runs_sharing_a_name),
        cmocka_unit_test(unusable_run),     cmocka_unit_test(failing_figures),
        cmocka_unit_test(profile_only),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
