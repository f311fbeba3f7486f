/* plot_job — the job of `mw plot` as one library call (mw_plot.h: mw_plot_run_job), used by
 * `mw plot` (collector/cmd_plot.c: options in, paths out) and `mw report` (its figures).
 *
 * Inputs. A regular file is a profile (kind pareto), a sweep directory becomes its finished
 * runs (mw_sweepidx_expand; their configuration labels group them in boxplot), a directory
 * holding trace.db is a run. Everything is checked before the first file is made: an input
 * that is none of these or a channel no run has is MW_PLOT_JOB_BAD_INPUT, a sweep or run
 * that cannot be read MW_PLOT_JOB_UNREADABLE, each with one message.
 *
 * Kinds. Asked for (any_kind), or the defaults: one run gets trace, timeline, histogram and
 * energy, dvfs when it has MPI ranks and a frequency table (freqs, or this machine's
 * cpufreq: $MW_CPUFREQ_FILE names another file); several runs boxplot; model when eeg-mofs
 * runs are among them; profiles pareto. A defaulted kind that does not apply is a note; a
 * kind asked for that does not apply a figure saying why. Per-run figures of several runs
 * sharing the folder are named RUN-KIND... after the run's folder (RUN.N- when two folders
 * share a name). Runs are read one at a time; one that cannot be read is a note and counted
 * (result.unusable), the others are drawn.
 *
 * Output. The library prints nothing on standard output: figure paths go to the request's
 * figure callback and into the result, notes to its note callback, the figure code's
 * messages (gnuplot's own output, why a figure failed) to its message callback (standard
 * error when the request has none: what `mw plot` wants). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_alloc.h"
#include "dvfs_run.h"
#include "mw_plot.h"
#include "mw_store.h"
#include "mw_sweepindex.h"


const char *const mw_plot_kind_names[MW_PLOT_NKINDS] = {
    "trace", "timeline", "histogram", "energy", "inband", "dvfs", "boxplot", "model", "pareto"};

int mw_plot_kind_index(const char *name)
{
    for (int k = 0; k < MW_PLOT_NKINDS; k++)
        if (!strcmp(name, mw_plot_kind_names[k])) return k;
    return -1;
}

/* One job: the request, its inputs as read, the result being filled. */
typedef struct {
    const mw_plot_request *req;
    mw_plot_result *res;
    char **runs; /* from mw_sweepidx_expand */
    int nruns;
    const char **labels; /* sweep configuration of each run, or NULL */
    mw_plot_peek *peek;
    char **profiles;
    int nprofiles;
    char **prefix; /* per-run figure name prefix */
} job_state;

static void job_free(job_state *j)
{
    for (int i = 0; j->labels && i < j->nruns; i++)
        free((char *)j->labels[i]);
    free(j->labels);
    for (int i = 0; j->prefix && i < j->nruns; i++)
        free(j->prefix[i]);
    free(j->prefix);
    free(j->peek);
    mw_sweepidx_free_list(j->runs, j->nruns);
    free(j->profiles);
}

static void note(const job_state *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const job_state *j, const char *fmt, ...)
{
    if (!j->req->note) return;
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    j->req->note(j->req->ctx, text);
}

static void skipped(const job_state *j, const char *what, const char *kind, const char *why)
{
    note(j, "%s%skind %s skipped: %s", what ? what : "", what ? ": " : "", kind, why);
}

/* ---- the inputs -------------------------------------------------------------------- */

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Labels of the runs of sweep `dir`, by their directory. */
static void sweep_labels(const char *dir, job_state *j)
{
    char err[512];
    mw_sweepidx *x = mw_sweepidx_open(dir, err, sizeof err);
    if (!x) return;
    for (size_t i = 0; i < mw_sweepidx_nruns(x); i++) {
        const char *d = mw_sweepidx_run_dir(x, i), *l = mw_sweepidx_run_label(x, i);
        for (int r = 0; r < j->nruns && d && l; r++)
            if (!j->labels[r] && !strcmp(j->runs[r], d)) j->labels[r] = mw_xstrdup(l);
    }
    mw_sweepidx_close(x);
}

/* Profiles into j->profiles, run and sweep directories into dirs (*nd of them). */
static int classify_inputs(job_state *j, char **dirs, int *nd, char *err, size_t errlen)
{
    const mw_plot_request *q = j->req;
    j->profiles = mw_xcalloc((size_t)q->ninputs + 1, sizeof *j->profiles);
    if (q->ninputs < 1) {
        snprintf(err, errlen, "missing RUNDIR, SWEEPDIR or PROFILE");
        return MW_PLOT_JOB_BAD_INPUT;
    }
    for (int i = 0; i < q->ninputs; i++) {
        const char *a = q->inputs[i];
        struct stat st;
        if (is_file(a))
            j->profiles[j->nprofiles++] = (char *)a;
        else if (mw_sweepidx_is_sweep(a) || mw_store_exists(a))
            dirs[(*nd)++] = (char *)a;
        else if (stat(a, &st)) {
            snprintf(err, errlen, "%s: %s", a, strerror(errno));
            return MW_PLOT_JOB_BAD_INPUT;
        } else {
            snprintf(err, errlen, "%s: not a run (no trace.db), a sweep (no sweep.db) or a profile",
                     a);
            return MW_PLOT_JOB_BAD_INPUT;
        }
    }
    return 0;
}

/* Per-run figure names: "" for one run, RUN- when several share the folder, unique. */
static void run_prefixes(job_state *j)
{
    j->prefix = mw_xcalloc((size_t)j->nruns + 1, sizeof *j->prefix);
    for (int r = 0; r < j->nruns; r++) {
        char base[PATH_MAX], safe[256], p[300];
        snprintf(base, sizeof base, "%s", j->runs[r]);
        size_t len = strlen(base);
        while (len > 1 && base[len - 1] == '/')
            base[--len] = 0;
        mw_plot_safe_name(safe, sizeof safe, basename(base));
        if (j->nruns == 1)
            p[0] = 0;
        else
            snprintf(p, sizeof p, "%s-", safe);
        for (int q = 0; q < r; q++)
            if (!strcmp(j->prefix[q], p)) {
                snprintf(p, sizeof p, "%s.%d-", safe, r + 1);
                break;
            }
        j->prefix[r] = mw_xstrdup(p);
    }
}

/* The inputs classified, the runs listed and peeked at, every channel checked. */
static int read_inputs(job_state *j, char *err, size_t errlen)
{
    const mw_plot_request *q = j->req;
    char **dirs = mw_xcalloc((size_t)q->ninputs + 1, sizeof *dirs);
    int nd = 0, rc = classify_inputs(j, dirs, &nd, err, errlen);
    if (!rc && mw_sweepidx_expand(nd, dirs, &j->runs, &j->nruns, err, errlen))
        rc = MW_PLOT_JOB_UNREADABLE;
    if (rc) {
        free(dirs);
        return rc;
    }
    j->labels = mw_xcalloc((size_t)j->nruns + 1, sizeof *j->labels);
    j->peek = mw_xcalloc((size_t)j->nruns + 1, sizeof *j->peek);
    for (int i = 0; i < nd; i++)
        if (mw_sweepidx_is_sweep(dirs[i])) sweep_labels(dirs[i], j);
    free(dirs);
    for (int r = 0; r < j->nruns; r++)
        if (mw_plot_run_peek(j->runs[r], &j->peek[r], err, errlen)) return MW_PLOT_JOB_UNREADABLE;
    for (int k = 0; k < q->nchannels; k++) { /* every channel is one of some run */
        int found = 0;
        for (int r = 0; r < j->nruns && !found; r++)
            for (int c = 0; c < j->peek[r].nch && !found; c++)
                found = !strcmp(j->peek[r].names[c], q->channels[k]);
        if (!found) {
            snprintf(err, errlen, "--channel '%s': no such channel in the runs", q->channels[k]);
            return MW_PLOT_JOB_BAD_INPUT;
        }
    }
    run_prefixes(j);
    return 0;
}

/* ---- what to draw, where ------------------------------------------------------------ */

static int have_freq_table(const mw_plot_request *q)
{
    if (q->freqs) return 1;
    const char *f = getenv("MW_CPUFREQ_FILE");
    return access(f && *f ? f : MW_DVFS_CPUFREQ_FILE, R_OK) == 0;
}

/* The kinds to draw: those asked for, else the defaults for the inputs (a defaulted dvfs
 * that cannot be drawn is a note: it says how to get it). */
static void choose_kinds(const job_state *j, int want[MW_PLOT_NKINDS])
{
    const mw_plot_request *q = j->req;
    if (q->any_kind) {
        memcpy(want, q->kinds, sizeof q->kinds);
        return;
    }
    int any_eeg = 0;
    for (int r = 0; r < j->nruns; r++)
        if (j->peek[r].eeg_version) any_eeg = 1;
    if (j->nruns == 1) {
        want[MW_PLOT_KIND_TRACE] = want[MW_PLOT_KIND_TIMELINE] = 1;
        want[MW_PLOT_KIND_HISTOGRAM] = want[MW_PLOT_KIND_ENERGY] = 1;
        want[MW_PLOT_KIND_INBAND] = j->peek[0].has_inband; /* silent without */
        if (!j->peek[0].has_ranks)
            skipped(j, j->runs[0], "dvfs", "no MPI ranks in the run");
        else if (!have_freq_table(q))
            skipped(j, j->runs[0], "dvfs", "no CPU frequency table here (give --freqs LIST)");
        else
            want[MW_PLOT_KIND_DVFS] = 1;
    } else if (j->nruns > 1) {
        want[MW_PLOT_KIND_BOXPLOT] = 1;
        note(j,
             "%d runs: the per-run kinds (trace, timeline, histogram, energy, dvfs) only with "
             "--kind",
             j->nruns);
    }
    /* model and pareto are drawn when their inputs are there; a run that is not an eeg-mofs
     * run, or no profile, is no news (asked for with --kind, they say why in a figure) */
    if (j->nruns && any_eeg) want[MW_PLOT_KIND_MODEL] = 1;
    if (j->nprofiles) want[MW_PLOT_KIND_PARETO] = 1;
}

/* outdir, else the first input's plots/ folder (a profile's: its folder's plots/) */
static void output_dir(const job_state *j, char *out, size_t len)
{
    const mw_plot_request *q = j->req;
    if (q->outdir) {
        snprintf(out, len, "%s", q->outdir);
    } else if (j->nruns) {
        snprintf(out, len, "%s/plots", q->inputs[0]);
    } else {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", j->profiles[0]);
        snprintf(out, len, "%s/plots", dirname(tmp));
    }
}

/* ---- drawing ------------------------------------------------------------------------ */

/* The per-run kinds of want, one run in memory at a time; without a run, a note figure
 * per kind asked for. */
static void plot_per_run(job_state *j, const int want[MW_PLOT_NKINDS], mw_plot_job *pj)
{
    const mw_plot_request *q = j->req;
    for (int r = 0; r < j->nruns; r++) {
        mw_plot_run *run;
        char err[1024];
        if (mw_plot_run_load(j->runs[r], &run, err, sizeof err)) {
            note(j, "%s", err);
            j->res->unusable++;
            continue;
        }
        for (int c = 0; c < run->nch && q->nchannels; c++) {
            run->ch[c].selected = 0;
            for (int k = 0; k < q->nchannels; k++)
                if (!strcmp(run->ch[c].name, q->channels[k])) run->ch[c].selected = 1;
        }
        pj->prefix = j->prefix[r];
        if (want[MW_PLOT_KIND_TRACE]) mw_plot_trace(pj, run);
        if (want[MW_PLOT_KIND_TIMELINE]) mw_plot_timeline(pj, run);
        if (want[MW_PLOT_KIND_HISTOGRAM]) mw_plot_histogram(pj, run);
        if (want[MW_PLOT_KIND_ENERGY]) mw_plot_energy(pj, run);
        if (want[MW_PLOT_KIND_INBAND]) mw_plot_inband(pj, run);
        if (want[MW_PLOT_KIND_DVFS]) mw_plot_dvfs(pj, run);
        mw_plot_run_free(run);
    }
    pj->prefix = "";
    for (int k = 0; !j->nruns && k <= MW_PLOT_KIND_DVFS; k++)
        if (want[k]) {
            char title[64];
            snprintf(title, sizeof title, "mw plot --kind %s", mw_plot_kind_names[k]);
            mw_plot_note_figure(pj->out, mw_plot_kind_names[k], title,
                                "this kind is drawn from a run: no RUNDIR given", 1200, 700);
        }
}

/* pareto: a figure per profile (pareto, or pareto-NAME when there are several) */
static void plot_profiles(const job_state *j, const mw_plot_job *pj)
{
    if (!j->nprofiles)
        mw_plot_note_figure(pj->out, "pareto", "Time/energy Pareto front",
                            "the pareto kind is drawn from a PROFILE (mw pareto --help); "
                            "reading runs is not done yet",
                            1000, 700);
    for (int p = 0; p < j->nprofiles; p++) {
        char name[300], tmp[PATH_MAX], safe[256];
        snprintf(tmp, sizeof tmp, "%s", j->profiles[p]);
        mw_plot_safe_name(safe, sizeof safe, basename(tmp));
        if (j->nprofiles > 1)
            snprintf(name, sizeof name, "pareto-%s", safe);
        else
            snprintf(name, sizeof name, "pareto");
        mw_plot_pareto(pj, j->profiles[p], name);
    }
}

/* mw_plot_out.written: the figure into the result, then to the caller */
static void figure_written(void *ctx, const char *path)
{
    job_state *j = ctx;
    mw_plot_result *res = j->res;
    res->figures = mw_xrealloc(res->figures, (res->nfigures + 1) * sizeof *res->figures);
    res->figures[res->nfigures++] = mw_xstrdup(path);
    if (j->req->figure) j->req->figure(j->req->ctx, path);
}

static void draw(job_state *j, const int want[MW_PLOT_NKINDS])
{
    const mw_plot_request *q = j->req;
    char outdir[PATH_MAX], source[1024];
    output_dir(j, outdir, sizeof outdir);
    snprintf(source, sizeof source, "%s%s", q->inputs[0], q->ninputs > 1 ? " ..." : "");
    mw_plot_out out = {.dir = outdir, .svg = q->svg, .source = source};
    out.written = figure_written;
    out.written_ctx = j;
    out.say = q->message;
    out.say_ctx = q->ctx;
    mw_plot_job pj = {&out, "", q->nchannels ? q->channels : NULL, q->any_kind, q->freqs};
    for (int k = 0; k <= MW_PLOT_KIND_DVFS; k++)
        if (want[k]) {
            plot_per_run(j, want, &pj);
            break;
        }
    if (want[MW_PLOT_KIND_BOXPLOT]) {
        if (j->nruns < 2)
            mw_plot_note_figure(&out, "boxplot", "Power levels across runs",
                                "a boxplot needs several runs (a sweep, or RUNDIRs)", 1200, 700);
        else
            mw_plot_boxplot(&pj, j->runs, j->labels, (size_t)j->nruns);
    }
    if (want[MW_PLOT_KIND_MODEL]) mw_plot_model(&pj, j->runs, (size_t)j->nruns);
    if (want[MW_PLOT_KIND_PARETO]) plot_profiles(j, &pj);
    j->res->failed = out.failures;
}

int mw_plot_run_job(const mw_plot_request *req, mw_plot_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    job_state j;
    memset(&j, 0, sizeof j);
    j.req = req;
    j.res = out;
    int rc = read_inputs(&j, err, errlen);
    if (!rc) {
        int want[MW_PLOT_NKINDS] = {0};
        choose_kinds(&j, want);
        draw(&j, want);
    }
    job_free(&j);
    return rc;
}

void mw_plot_result_free(mw_plot_result *r)
{
    for (size_t i = 0; i < r->nfigures; i++)
        free(r->figures[i]);
    free(r->figures);
    memset(r, 0, sizeof *r);
}
