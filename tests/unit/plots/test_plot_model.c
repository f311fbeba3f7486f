/* The data of mw plot's dvfs and pareto kinds (plots/plot_kinds_model.c), drawn from
 * libmwmodels and libmw in-process, against figures worked by hand. gnuplot is a stub that
 * writes the figure's file, the templates are stubs: only NAME.tsv and the variables of
 * NAME.gp are checked.
 *
 *  - dvfs: a run written through the store's API, one rank (0, host h) computing 1 s then
 *    communicating 1 s, its channel n0@h at 10 W and 30 W: T_cp = T_cm = 1 s, P_d = 20 W (eq.
 *    3.15), P_s = 0.2 P_d = 4 W; gears --freqs "1,2" (sorted: 2, 1 GHz). At S = 2 (1 GHz):
 *    T = 2 + 1 = 3 s against 2 s, P_Norm = 2/3; E = 20/4 + 4 x 3 = 17 J against 20 + 4 x 2 =
 *    28 J, E_Norm = 17/28; distance 100 (2/3 - 17/28) %. Every method (MaxDist, EDP,
 *    Rauber-Rünger: s1 = cbrt(2 x 20/4) = 2.15, nearest 1 GHz; the oracle) chooses 1 GHz;
 *  - dvfs notes: a run without program phases, a bad --freqs token, with mw dvfs's words;
 *  - pareto: n = 100 units over fast (a = 0.01 s/unit, b = 0.5 J/unit) and cheap (0.02, 0.1),
 *    P_S = 10 W: the front runs from both working, t0 = 100 / (100 + 50) = 2/3 s, split
 *    66.67/33.33, E = 50 - 0.4 x 33.33 = 36.67 J, to cheap alone, t1 = 2 s, E = 10 J; on it
 *    Pf(t) = 50 - 20 t and the total 50 - 10 t, falling all the way, so LBOPA-TE keeps it
 *    whole: (2/3, 43.33) then one piece to (2, 30); without the static power: no total, no
 *    LBOPA-TE, a note; without n: mw pareto's message as a note. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_plot.h"
#include "mw_store.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))
#define S_NS 1000000000LL

static char tmp[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&buf, &cap, 0, f);
    fclose(f);
    assert_true(n >= 0);
    return buf;
}

/* Stub templates and a stub gnuplot (it writes NAME.png) in tmp. */
static int setup(void **state)
{
    snprintf(tmp, sizeof tmp, "/tmp/mw-plotmodel-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    char path[256];
    static const char *const tmpl[] = {"common", "dvfs", "pareto", "note"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s.gp", tmp, tmpl[i]);
        write_file(path, "# a stub\n");
    }
    snprintf(path, sizeof path, "%s/gnuplot", tmp);
    write_file(path, "#!/bin/sh\nprintf x > \"${1%.gp}.png\"\n");
    assert_int_equal(chmod(path, 0755), 0);
    setenv("MW_PLOTS_DIR", tmp, 1);
    setenv("MW_GNUPLOT", path, 1);
    return 0;
}

static int teardown(void **state)
{
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* The data rows of block b of a figure's TSV (malloc'd copies of the lines, NULL-ended). */
static char **block_rows(const char *tsv, int b, size_t *n)
{
    char **rows = calloc(1024, sizeof *rows);
    assert_non_null(rows);
    int at = 0, blank = 0;
    *n = 0;
    for (const char *p = tsv; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!len) {
            blank++;
        } else {
            if (blank >= 2) at++;
            blank = 0;
            if (at == b && p[0] != '#' && *n < 1023) rows[(*n)++] = strndup(p, len);
        }
        p += len + (e ? 1 : 0);
    }
    return rows;
}

static void free_rows(char **rows)
{
    for (size_t i = 0; rows[i]; i++)
        free(rows[i]);
    free(rows);
}

/* Field k (0-based, tab-separated) of row as a number, NAN for "-". */
static double field(const char *row, int k)
{
    for (int i = 0; i < k; i++) {
        row = strchr(row, '\t');
        assert_non_null(row);
        row++;
    }
    return *row == '-' ? NAN : strtod(row, NULL);
}

/* The line "VAR = ..." of a script (its value, malloc'd), or NULL. */
static char *var(const char *gp, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = gp; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, name, len) && !strncmp(p + len, " = ", 3)) {
            const char *v = p + len + 3, *e = strchr(v, '\n');
            return strndup(v, e ? (size_t)(e - v) : strlen(v));
        }
    return NULL;
}

static void expect_var(const char *gp, const char *name, const char *want)
{
    char *v = var(gp, name);
    if (!v || strcmp(v, want)) fail_msg("%s = %s, want %s", name, v ? v : "(none)", want);
    free(v);
}

static double num_var(const char *gp, const char *name)
{
    char *v = var(gp, name);
    assert_non_null(v);
    double x = strtod(v, NULL);
    free(v);
    return x;
}

/* Figure NAME's .tsv and .gp in out's folder, malloc'd. */
static void figure(const char *dir, const char *name, char **tsv, char **gp)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.tsv", dir, name);
    *tsv = read_file(path);
    snprintf(path, sizeof path, "%s/%s.gp", dir, name);
    *gp = read_file(path);
}

/* ---- dvfs --------------------------------------------------------------------------- */

/* The run of the header in tmp/NAME (with its phases when phases is set). */
static void dvfs_run(const char *name, int phases, char *dir, size_t len)
{
    char err[256];
    snprintf(dir, len, "%s/%s", tmp, name);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_channel_add(s, 1, "n0", "h", NULL), 0);
    for (int i = 0; i < 2; i++) {
        mw_store_sample x = {.channel = 1,
                             .seq = (uint32_t)i,
                             .t0_ns = i * S_NS,
                             .t1_ns = (i + 1) * S_NS,
                             .power_mw = i ? 30000 : 10000};
        assert_int_equal(mw_store_sample_add(s, &x), 0);
    }
    const mw_store_phase ph[] = {
        {0, "h", 0, "user", "compute", 0, S_NS, 0, 1, -1},
        {0, "h", 0, "comm", "MPI_Send", S_NS, 2 * S_NS, 0, 1, -1},
    };
    for (size_t i = 0; phases && i < 2; i++)
        assert_int_equal(mw_store_phase_add(s, &ph[i]), 0);
    mw_store_close(s);
}

/* mw plot RUN --kind dvfs [--freqs freqs] into tmp/OUT; returns its status. */
static int plot_dvfs(const char *run, const char *freqs, const char *outname, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", tmp, outname);
    mw_plot_run *r;
    char err[256];
    assert_int_equal(mw_plot_run_load(run, &r, err, sizeof err), 0);
    mw_plot_out o = {.dir = out, .source = run};
    mw_plot_job j = {.out = &o, .prefix = "", .explicit_kind = 1, .freqs = freqs};
    int rc = mw_plot_dvfs(&j, r);
    mw_plot_run_free(r);
    assert_int_equal(o.figures, 1);
    assert_int_equal(o.failures, 0);
    return rc;
}

static void dvfs_known_answers(void **state)
{
    char run[128], out[128], *tsv, *gp;
    dvfs_run("r", 1, run, sizeof run);
    assert_int_equal(plot_dvfs(run, "1,2", "dv", out, sizeof out), 0);
    figure(out, "dvfs", &tsv, &gp);
    const double p_norm = 2.0 / 3, e_norm = 17.0 / 28, dist = 100 * (p_norm - e_norm);
    size_t n;
    char **g = block_rows(tsv, 0, &n); /* freq S P_Norm E_Norm distance saving degradation */
    assert_int_equal(n, 2);
    const double want[2][7] = {{2, 1, 1, 1, 0, 0, 0},
                               {1, 2, p_norm, e_norm, dist, 100 * (1 - e_norm), 100.0 / 3}};
    for (size_t r = 0; r < 2; r++)
        for (int k = 0; k < 7; k++)
            NEAR(field(g[r], k), want[r][k], 1e-8);
    free_rows(g);
    static const char *const names[4] = {"maxdist", "edp", "rr", "oracle"};
    char **m = block_rows(tsv, 1, &n); /* every method at 1 GHz */
    assert_int_equal(n, 4);
    for (size_t r = 0; r < 4; r++) {
        assert_int_equal(strncmp(m[r], names[r], strlen(names[r])), 0);
        NEAR(field(m[r], 1), 2, 1e-12);
        NEAR(field(m[r], 2), p_norm, 1e-8);
        NEAR(field(m[r], 3), e_norm, 1e-8);
        NEAR(field(m[r], 4), dist, 1e-7);
        assert_string_equal(strrchr(m[r], '\t'), "\t1");
    }
    free_rows(m);
    m = block_rows(tsv, 2, &n);
    assert_true(n == 1 && !strncmp(m[0], "maxdist\t", 8));
    free_rows(m);
    m = block_rows(tsv, 3, &n);
    assert_int_equal(n, 3);
    free_rows(m);
    expect_var(gp, "have_maxdist", "1");
    expect_var(gp, "maxdist_freqs", "'1'");
    expect_var(gp, "n_other", "3");
    expect_var(gp, "n_ranks", "1");
    expect_var(gp, "n_methods", "4");
    expect_var(gp, "s_max", "2");
    expect_var(gp, "best_uniform_s", "2");
    NEAR(num_var(gp, "best_uniform_distance"), dist, 1e-7);
    NEAR(num_var(gp, "y2max"), dist + 1, 1e-7); /* pad: at least 1 */
    free(tsv);
    free(gp);
}

/* The note of a dvfs figure that could not be drawn (malloc'd). */
static char *dvfs_note(const char *run, const char *freqs, const char *outname)
{
    char out[128], *tsv, *gp;
    assert_int_equal(plot_dvfs(run, freqs, outname, out, sizeof out), 0);
    figure(out, "dvfs", &tsv, &gp);
    char *note = var(gp, "note_text");
    assert_non_null(note);
    free(tsv);
    free(gp);
    return note;
}

static void dvfs_notes(void **state)
{
    char run[128], want[512];
    dvfs_run("bare", 0, run, sizeof run);
    char *note = dvfs_note(run, "2,1", "n1");
    snprintf(want, sizeof want,
             "'mw dvfs: %s: no phases of the program (record it under mw record with "
             "libmwprobe, or mw merge its events)'",
             run);
    assert_string_equal(note, want);
    free(note);
    note = dvfs_note(run, "2,abc", "n2");
    assert_string_equal(note, "'mw dvfs: --freqs: ''abc'' is not a frequency in GHz (0 < f <= "
                              "100, at most 256) (try ''mw dvfs --help'')'");
    free(note);
}

/* ---- pareto ------------------------------------------------------------------------- */

/* mw plot PROFILE --kind pareto (the profile's text) into tmp/OUT. */
static void plot_pareto(const char *text, const char *outname, char **tsv, char **gp)
{
    char prof[128], out[128];
    snprintf(prof, sizeof prof, "%s/%s.prof", tmp, outname);
    write_file(prof, text);
    snprintf(out, sizeof out, "%s/%s", tmp, outname);
    mw_plot_out o = {.dir = out, .source = prof};
    mw_plot_job j = {.out = &o, .prefix = "", .explicit_kind = 1};
    assert_int_equal(mw_plot_pareto(&j, prof, "pareto"), 0);
    assert_int_equal(o.figures, 1);
    assert_int_equal(o.failures, 0);
    figure(out, "pareto", tsv, gp);
}

#define DEVICES "n 100\ndevice fast a=0.01 b=0.5\ndevice cheap a=0.02 b=0.1\n"

static void pareto_known_answers(void **state)
{
    char *tsv, *gp;
    plot_pareto(DEVICES "static_power 10\n", "pa", &tsv, &gp);
    const double t0 = 2.0 / 3;
    size_t n;
    char **f = block_rows(tsv, 0, &n); /* t, Pf(t) = 50 - 20 t, total 50 - 10 t */
    assert_int_equal(n, 400);
    for (size_t q = 0; q < n; q++) {
        double t = field(f[q], 0);
        NEAR(t, t0 + (2 - t0) * (double)q / 399, 1e-9);
        NEAR(field(f[q], 1), 50 - 20 * t, 1e-7);
        NEAR(field(f[q], 2), 50 - 10 * t, 1e-7);
    }
    free_rows(f);
    char **e = block_rows(tsv, 1, &n); /* the end-points with their splits */
    assert_int_equal(n, 2);
    NEAR(field(e[0], 0), t0, 1e-9);
    NEAR(field(e[0], 1), 110.0 / 3, 1e-7);
    NEAR(field(e[0], 2), 130.0 / 3, 1e-7);
    assert_string_equal(strrchr(e[0], '\t'), "\t66.6667,33.3333");
    NEAR(field(e[1], 0), 2, 1e-12);
    NEAR(field(e[1], 1), 10, 1e-9);
    NEAR(field(e[1], 2), 30, 1e-9);
    assert_string_equal(strrchr(e[1], '\t'), "\t0,100");
    free_rows(e);
    char **te = block_rows(tsv, 2, &n); /* (tmin, emax), then one piece as two rows */
    assert_int_equal(n, 3);
    NEAR(field(te[0], 0), t0, 1e-9);
    NEAR(field(te[0], 1), 130.0 / 3, 1e-7);
    NEAR(field(te[1], 0), t0, 1e-9);
    NEAR(field(te[2], 0), 2, 1e-9);
    NEAR(field(te[2], 1), 30, 1e-7);
    free_rows(te);
    expect_var(gp, "subtitle", "'100 units over 2 devices (fast, cheap)'");
    expect_var(gp, "have_total", "1");
    expect_var(gp, "static_power", "10");
    expect_var(gp, "have_te", "1");
    expect_var(gp, "n_te_pieces", "1");
    expect_var(gp, "n_notes", "0");
    NEAR(num_var(gp, "xmax"), 2 + 0.05 * (2 - t0), 1e-8);
    free(tsv);
    free(gp);
}

static void pareto_without_static_power(void **state)
{
    char *tsv, *gp;
    plot_pareto(DEVICES, "ns", &tsv, &gp);
    size_t n;
    char **f = block_rows(tsv, 0, &n);
    assert_int_equal(n, 400);
    assert_true(isnan(field(f[0], 2)) && isnan(field(f[399], 2)));
    NEAR(field(f[399], 1), 10, 1e-9);
    free_rows(f);
    char **te = block_rows(tsv, 2, &n); /* no LBOPA-TE: the block holds "-" */
    assert_true(n == 1 && !strcmp(te[0], "-"));
    free_rows(te);
    expect_var(gp, "have_total", "0");
    expect_var(gp, "have_te", "0");
    expect_var(gp, "n_te_pieces", "0");
    expect_var(gp, "n_notes", "1");
    free(tsv);
    free(gp);
    plot_pareto("device fast a=0.01 b=0.5\n", "nn", &tsv, &gp); /* no n */
    char *note = var(gp, "note_text"), want[512];
    snprintf(want, sizeof want,
             "'mw pareto: no workload: give --n N or an ''n'' line in %s/nn.prof (try ''mw "
             "pareto --help'')'",
             tmp);
    assert_non_null(note);
    assert_string_equal(note, want);
    free(note);
    free(tsv);
    free(gp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dvfs_known_answers),
        cmocka_unit_test(dvfs_notes),
        cmocka_unit_test(pareto_known_answers),
        cmocka_unit_test(pareto_without_static_power),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
