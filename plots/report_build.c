/* report_build — the runs of a report (mw_report.h): the inputs become runs (a sweep stands
 * for its finished runs, mw_sweepidx_expand), each read from its run store (read-only, the
 * read API of host/include/mw_run.h: metadata, channels, the first RP_MAX_GAPS gaps and the
 * counts), the sweeps' tables tied to those runs (which index run is which rp_run), the
 * runs the Escobar model reads, and freeing all of it.
 *
 * Every input is checked before anything is read: a directory that is a run (trace.db) or a
 * sweep (sweep.db); then no run twice, and every listed run a run. The first failure is the
 * one message (the caller makes it a usage error). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "escobar.h"
#include "mw_alloc.h"
#include "mw_report.h"
#include "mw_run.h"
#include "mw_store.h"

char *rp_path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t len = n + 1 + strlen(name) + 1;
    char *s = mw_xcalloc(len, 1);
    snprintf(s, len, "%.*s/%s", (int)n, dir, name);
    return s;
}

/* ---- one run's store ---------------------------------------------------------------------- */

static int read_meta(mw_store *s, rp_run *r)
{
    int rc = 0;
    mw_run_cursor *c = mw_run_meta(s);
    const char *key, *val;
    size_t cap = 0;
    while (c && (rc = mw_run_meta_next(c, &key, &val)) == 1) {
        if (r->nmeta == cap) {
            cap = cap ? 2 * cap : 32;
            r->key = mw_xrealloc(r->key, cap * sizeof *r->key);
            r->val = mw_xrealloc(r->val, cap * sizeof *r->val);
        }
        r->key[r->nmeta] = mw_xstrdup(key);
        r->val[r->nmeta++] = mw_xstrdup(val);
    }
    mw_run_close(c);
    for (size_t i = 0; i < r->nmeta && !r->like; i++) /* like with like: the same command */
        if (!strcmp(r->key[i], "command")) r->like = mw_xstrdup(r->val[i]);
    return !c || rc ? -1 : 0;
}

static int read_channels(mw_store *s, rp_run *r)
{
    int rc = 0;
    mw_run_channel ch;
    size_t cap = 0;
    mw_run_cursor *c = mw_run_channels(s);
    while (c && (rc = mw_run_channel_next(c, &ch)) == 1) {
        if (r->nch == cap) {
            cap = cap ? 2 * cap : 16;
            r->ch = mw_xrealloc(r->ch, cap * sizeof *r->ch);
        }
        rp_channel *rch = &r->ch[r->nch++];
        rch->channel = ch.channel;
        rch->name = mw_xstrdup(ch.name);
        rch->host = ch.host ? mw_xstrdup(ch.host) : NULL;
        rch->pin = ch.pin ? mw_xstrdup(ch.pin) : NULL;
    }
    mw_run_close(c);
    return !c || rc ? -1 : 0;
}

/* the counts, and the first RP_MAX_GAPS gaps */
static int read_gaps(mw_store *s, rp_run *r)
{
    mw_run_counts n;
    if (mw_run_count(s, &n)) return -1;
    r->ngaps = n.gaps;
    r->nphases = n.phases;
    r->gap = mw_xcalloc(RP_MAX_GAPS, sizeof *r->gap);
    int rc = 0;
    mw_run_gap g;
    mw_run_cursor *c = mw_run_gaps(s);
    while (c && r->ngap_rows < RP_MAX_GAPS && (rc = mw_run_gap_next(c, &g)) == 1)
        r->gap[r->ngap_rows++] = (rp_gap){g.start_ns, g.end_ns, mw_xstrdup(g.reason)};
    mw_run_close(c);
    return !c || rc < 0 ? -1 : 0;
}

/* The run's metadata, channels and gaps; 0, or -1 with the store's message in err. */
static int read_run(rp_run *r, char *err, size_t errlen)
{
    mw_store *s = mw_store_open(r->dir, err, errlen);
    if (!s) return -1;
    if (read_meta(s, r) || read_channels(s, r) || read_gaps(s, r)) {
        snprintf(err, errlen, "%s", mw_store_error(s));
        mw_store_close(s);
        return -1;
    }
    mw_store_close(s);
    return 0;
}

/* ---- the inputs ------------------------------------------------------------------------- */

static int check_inputs(char *const *inputs, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        const char *in = inputs[i];
        struct stat sb;
        if (stat(in, &sb) != 0) {
            snprintf(err, errlen, "%s: %s", in, strerror(errno));
            return -1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            snprintf(err, errlen, "%s: not a directory", in);
            return -1;
        }
        if (!mw_sweepidx_is_sweep(in) && !mw_store_exists(in)) {
            snprintf(err, errlen, "%s: not a run (no trace.db) nor a sweep (no sweep.db)", in);
            return -1;
        }
    }
    return 0;
}

/* The runs of the inputs, in order, each once and each a run. */
static int list_runs(rp_report *rp, char *const *inputs, int n, char *err, size_t errlen)
{
    char **list = NULL;
    int nl = 0;
    if (mw_sweepidx_expand(n, inputs, &list, &nl, err, errlen) != 0) return -1;
    if (nl == 0) {
        mw_sweepidx_free_list(list, nl);
        snprintf(err, errlen, "no run to report on");
        return -1;
    }
    rp->run = mw_xcalloc((size_t)nl, sizeof *rp->run);
    for (int i = 0; i < nl; i++) {
        rp_run *r = &rp->run[rp->nrun++];
        r->dir = mw_xstrdup(list[i]);
        r->title = mw_xstrdup(list[i]);
        r->sweep = -1;
    }
    mw_sweepidx_free_list(list, nl);
    for (size_t i = 0; i < rp->nrun; i++) {
        const rp_run *r = &rp->run[i];
        for (size_t j = 0; j < i; j++)
            if (!strcmp(rp->run[j].dir, r->dir)) {
                snprintf(err, errlen, "%s: given twice", r->dir);
                return -1;
            }
        if (!mw_store_exists(r->dir)) {
            snprintf(err, errlen, "%s: not a run (no trace.db)", r->dir);
            return -1;
        }
    }
    return 0;
}

/* The sweep's index run k is run j: titled "LABEL, repetition N". */
static void tie_run(rp_report *rp, rp_sweep *s, size_t k, size_t j)
{
    rp_run *r = &rp->run[j];
    const char *label = mw_sweepidx_run_label(s->x, k);
    int rep = mw_sweepidx_run_rep(s->x, k);
    size_t len = strlen(label) + 40;
    free(r->title);
    r->title = mw_xcalloc(len, 1);
    snprintf(r->title, len, "%s, repetition %d", label, rep);
    r->sweep = (int)rp->nsw;
    s->run_of[k] = (int)j;
    /* like with like: the runs of one configuration of this sweep */
    free(r->like);
    len = strlen(s->dir) + strlen(label) + 8;
    r->like = mw_xcalloc(len, 1);
    snprintf(r->like, len, "%s: %s", s->dir, label);
}

/* The sweeps' tables: which runs each holds. */
static int read_sweeps(rp_report *rp, char *const *inputs, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        if (!mw_sweepidx_is_sweep(inputs[i])) continue;
        mw_sweepidx *x = mw_sweepidx_open(inputs[i], err, errlen);
        if (!x) return -1;
        rp->sw = mw_xrealloc(rp->sw, (rp->nsw + 1) * sizeof *rp->sw);
        rp_sweep *s = &rp->sw[rp->nsw];
        s->dir = mw_xstrdup(inputs[i]);
        s->x = x;
        size_t nr = mw_sweepidx_nruns(x);
        s->run_of = mw_xcalloc(nr, sizeof *s->run_of);
        for (size_t k = 0; k < nr; k++) {
            s->run_of[k] = -1;
            const char *d = mw_sweepidx_run_dir(x, k);
            for (size_t j = 0; d && j < rp->nrun; j++)
                if (rp->run[j].sweep < 0 && !strcmp(rp->run[j].dir, d)) {
                    tie_run(rp, s, k, j);
                    break;
                }
        }
        rp->nsw++;
    }
    return 0;
}

int rp_report_collect(rp_report *rp, char *const *inputs, int n, char *err, size_t errlen)
{
    if (check_inputs(inputs, n, err, errlen) || list_runs(rp, inputs, n, err, errlen) ||
        read_sweeps(rp, inputs, n, err, errlen))
        return -1;
    for (size_t i = 0; i < rp->nrun; i++)
        if (read_run(&rp->run[i], err, errlen) != 0) return -1;
    return 0;
}

size_t rp_report_escobar(rp_report *rp)
{
    mw_escobar_run *er = mw_xcalloc(1, sizeof *er);
    rp->nescobar = 0;
    for (size_t i = 0; i < rp->nrun; i++) {
        rp_run *r = &rp->run[i];
        r->escobar =
            mw_escobar_from_run(r->dir, NULL, er, r->escobar_err, sizeof r->escobar_err) == 0;
        rp->nescobar += (size_t)r->escobar;
    }
    free(er);
    return rp->nescobar;
}

/* ---- freeing ------------------------------------------------------------------------------ */

static void run_free(rp_run *r)
{
    free(r->dir);
    free(r->title);
    free(r->like);
    mw_analysis_free(r->an);
    for (size_t i = 0; i < r->nmeta; i++) {
        free(r->key[i]);
        free(r->val[i]);
    }
    free(r->key);
    free(r->val);
    for (size_t i = 0; i < r->nch; i++) {
        free(r->ch[i].name);
        free(r->ch[i].host);
        free(r->ch[i].pin);
    }
    free(r->ch);
    for (size_t i = 0; i < r->ngap_rows; i++)
        free(r->gap[i].reason);
    free(r->gap);
}

void rp_report_free(rp_report *rp)
{
    for (size_t i = 0; i < rp->nrun; i++)
        run_free(&rp->run[i]);
    free(rp->run);
    for (size_t i = 0; i < rp->nsw; i++) {
        free(rp->sw[i].dir);
        free(rp->sw[i].run_of);
        mw_sweepidx_close(rp->sw[i].x);
    }
    free(rp->sw);
    mw_analysis_aggregate_free(&rp->agg);
    mw_escobar_study_free(rp->fit);
    mw_escobar_study_free(rp->fit_mode);
    for (size_t i = 0; i < rp->nfit_warnings; i++)
        free(rp->fit_warnings[i]);
    free(rp->fit_warnings);
    rp->fit_warnings = NULL;
    rp->nfit_warnings = 0;
    for (size_t i = 0; i < rp->nfig; i++) {
        free(rp->fig[i].sub);
        free(rp->fig[i].name);
    }
    free(rp->fig);
    rp->run = NULL;
    rp->sw = NULL;
    rp->fig = NULL;
    rp->fit = rp->fit_mode = NULL;
    rp->nrun = rp->nsw = rp->nfig = 0;
}
