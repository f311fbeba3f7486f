/* dvfs_run — see dvfs_run.h. The reader streams two cursors: every window once (each
 * channel's power range), then the program's phases by rank. One rank's phases are kept
 * until the rank changes; they are then split by host, hosts in byte order, each host's
 * phases giving one mw_dvfs_rank: ranks come out by rank, then host. Out of memory aborts
 * (mw_alloc.h). */
#include "dvfs_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "mw_alloc.h"
#include "mw_lines.h"
#include "mw_num.h"
#include "mw_phase_class.h"
#include "mw_run.h"

unsigned mw_dvfs_phase_class(const char *kind, const char *name)
{
    unsigned c = 0;
    if (mw_phase_not_computing(kind, name)) c |= MW_DVFS_PHASE_COMM;
    if (!strcmp(name, "MPI_Init") || !strcmp(name, "MPI_Init_thread")) c |= MW_DVFS_PHASE_INIT;
    if (!strcmp(name, "MPI_Finalize")) c |= MW_DVFS_PHASE_FINALIZE;
    return c;
}

void mw_dvfs_rank_times(const mw_dvfs_phase *ph, size_t n, double *tcp_s, double *tcm_s)
{
    /* the one rule (mw_phase_class.h): T_cp is the rank's computation within its window
     * (MPI_Init's end to MPI_Finalize's start), T_cm the rest of the window */
    mw_phase_span *sp = mw_xcalloc(n ? n : 1, sizeof *sp);
    for (size_t i = 0; i < n; i++) {
        unsigned edge = ((ph[i].cls & MW_DVFS_PHASE_INIT) ? MW_PHASE_MPI_INIT : 0) |
                        ((ph[i].cls & MW_DVFS_PHASE_FINALIZE) ? MW_PHASE_MPI_FINALIZE : 0);
        sp[i] = (mw_phase_span){ph[i].start_ns, ph[i].end_ns,
                                (ph[i].cls & MW_DVFS_PHASE_COMM) ? MW_PHASE_COMM : MW_PHASE_OTHER,
                                edge};
    }
    mw_energy_span *out;
    mw_phase_computation c;
    mw_phase_computation_spans(sp, n, &out, &c);
    free(out);
    free(sp);
    *tcp_s = (double)c.window_work_ns / 1e9;
    *tcm_s = (double)c.window_not_ns / 1e9;
}

void mw_dvfs_run_free(mw_dvfs_run *run)
{
    for (size_t i = 0; i < run->nranks; i++)
        free(run->ranks[i].host);
    for (size_t i = 0; i < run->nchans; i++)
        free(run->chans[i].name), free(run->chans[i].host);
    free(run->ranks);
    free(run->chans);
    memset(run, 0, sizeof *run);
}

/* ---- the reader ------------------------------------------------------------------------- */

/* The channels, then each one's power range over every window. */
static int read_channels(mw_store *s, mw_dvfs_run *run)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return -1;
    mw_run_channel ch;
    int rc;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        run->chans = mw_xrealloc(run->chans, (run->nchans + 1) * sizeof *run->chans);
        run->chans[run->nchans++] = (mw_dvfs_channel){
            .channel = ch.channel,
            .name = mw_xstrdup(ch.name),
            .host = ch.host && *ch.host ? mw_xstrdup(ch.host) : NULL,
        };
    }
    mw_run_close(c);
    if (rc) return -1;
    if (!(c = mw_run_windows(s, -1, MW_RUN_BY_WINDOW))) return -1;
    mw_store_sample w;
    while ((rc = mw_run_window_next(c, &w)) == 1) {
        size_t k = 0;
        while (k < run->nchans && run->chans[k].channel != w.channel)
            k++;
        if (k == run->nchans) continue; /* a channel the channels table lacks */
        mw_dvfs_channel *dc = &run->chans[k];
        double p = (double)w.power_mw / 1000;
        if (!dc->samples++ || p < dc->min_w) dc->min_w = p;
        if (dc->samples == 1 || p > dc->max_w) dc->max_w = p;
    }
    mw_run_close(c);
    return rc ? -1 : 0;
}

/* One rank's phases, hosts interned in hosts[0..nhosts). */
typedef struct {
    int rank;
    mw_dvfs_phase *ph;
    size_t *host_of; /* per phase, an index into hosts */
    size_t n, cap;
    char **hosts;
    size_t nhosts;
} rank_phases;

static void add_phase(rank_phases *b, const mw_store_phase *p)
{
    size_t h = 0;
    while (h < b->nhosts && strcmp(b->hosts[h], p->host))
        h++;
    if (h == b->nhosts) {
        b->hosts = mw_xrealloc(b->hosts, (b->nhosts + 1) * sizeof *b->hosts);
        b->hosts[b->nhosts++] = mw_xstrdup(p->host);
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        b->ph = mw_xrealloc(b->ph, b->cap * sizeof *b->ph);
        b->host_of = mw_xrealloc(b->host_of, b->cap * sizeof *b->host_of);
    }
    b->host_of[b->n] = h;
    b->ph[b->n++] = (mw_dvfs_phase){p->start_ns, p->end_ns, mw_dvfs_phase_class(p->kind, p->name)};
}

/* The buffered rank's (rank, host) pairs into run->ranks, hosts in byte order (an insertion
 * sort of their few indices); the ranks take the host strings. Empties b. */
static void flush_rank(rank_phases *b, mw_dvfs_run *run, mw_dvfs_phase *tmp)
{
    size_t *order = mw_xcalloc(b->nhosts, sizeof *order);
    for (size_t h = 0; h < b->nhosts; h++) {
        size_t j = h;
        for (; j && strcmp(b->hosts[order[j - 1]], b->hosts[h]) > 0; j--)
            order[j] = order[j - 1];
        order[j] = h;
    }
    run->ranks = mw_xrealloc(run->ranks, (run->nranks + b->nhosts) * sizeof *run->ranks);
    for (size_t k = 0; k < b->nhosts; k++) {
        size_t h = order[k], m = 0;
        for (size_t i = 0; i < b->n; i++)
            if (b->host_of[i] == h) tmp[m++] = b->ph[i];
        mw_dvfs_rank *r = &run->ranks[run->nranks++];
        *r = (mw_dvfs_rank){.rank = b->rank, .host = b->hosts[h]};
        mw_dvfs_rank_times(tmp, m, &r->tcp_s, &r->tcm_s);
    }
    free(order);
    b->n = b->nhosts = 0;
}

static int read_ranks(mw_store *s, mw_dvfs_run *run)
{
    static const char *const not_program[] = {"mw", "mark", "counter", NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.not_kinds = not_program;
    f.order = MW_RUN_BY_RANK;
    mw_run_cursor *c = mw_run_phases(s, &f);
    if (!c) return -1;
    rank_phases b = {0};
    mw_dvfs_phase *tmp = NULL;
    mw_store_phase p;
    int rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1) {
        if (b.n && p.rank != b.rank) {
            tmp = mw_xrealloc(tmp, b.n * sizeof *tmp);
            flush_rank(&b, run, tmp);
        }
        b.rank = p.rank;
        add_phase(&b, &p);
    }
    mw_run_close(c);
    if (!rc && b.n) {
        tmp = mw_xrealloc(tmp, b.n * sizeof *tmp);
        flush_rank(&b, run, tmp);
    }
    for (size_t h = 0; h < b.nhosts; h++) /* left only after an error */
        free(b.hosts[h]);
    free(b.hosts);
    free(b.ph);
    free(b.host_of);
    free(tmp);
    return rc ? -1 : 0;
}

int mw_dvfs_run_read(mw_store *s, mw_dvfs_run *run)
{
    memset(run, 0, sizeof *run);
    return read_channels(s, run) || read_ranks(s, run) ? -1 : 0;
}

/* ---- dynamic power ---------------------------------------------------------------------- */

size_t mw_dvfs_run_set_pd(mw_dvfs_run *run, const char *node, double pd_w)
{
    char *end;
    long rank = strtol(node, &end, 10);
    size_t hits = 0;
    for (size_t i = 0; i < run->nranks; i++) {
        mw_dvfs_rank *r = &run->ranks[i];
        if ((!*end && r->rank == rank) || !strcmp(r->host, node)) {
            r->pd_w = pd_w;
            r->pd_given = 1;
            hits++;
        }
    }
    return hits;
}

int mw_dvfs_run_measured_pd(mw_dvfs_run *run, size_t *unmeasured)
{
    const char **hosts = mw_xcalloc(run->nchans + 1, sizeof *hosts);
    for (size_t k = 0; k < run->nchans; k++)
        hosts[k] = run->chans[k].host;
#define MEASURES(k, r) mw_energy_rank_has_channel(hosts, run->nchans, (k), (r)->host)
    for (size_t k = 0; k < run->nchans; k++) {
        run->chans[k].nranks = 0;
        for (size_t i = 0; i < run->nranks; i++)
            run->chans[k].nranks += MEASURES(k, &run->ranks[i]);
    }
    int rc = 0;
    for (size_t i = 0; i < run->nranks && !rc; i++) {
        mw_dvfs_rank *r = &run->ranks[i];
        if (r->pd_given) continue;
        int have = 0;
        for (size_t k = 0; k < run->nchans; k++) {
            const mw_dvfs_channel *c = &run->chans[k];
            if (!c->samples || !MEASURES(k, r)) continue;
            r->pd_w += (c->max_w - c->min_w) / (double)c->nranks; /* eq. 3.15 */
            have = 1;
        }
        if (!have) {
            *unmeasured = i;
            rc = -1;
        }
    }
#undef MEASURES
    free(hosts);
    return rc;
}

/* a plain decimal number (mw_num.h, as the mw command reads numbers), |x| <= 1e6 (W, GHz) */
static int number(const char *s, double *out)
{
    return mw_num_double(s, -MW_DVFS_MAX_PD_W, MW_DVFS_MAX_PD_W, out) ? -1 : 0;
}

/* "NODE=W,...": the tokens in order; the first bad one stops. */
static mw_dvfs_pd_status pd_list(mw_dvfs_run *run, const char *spec, size_t *at, size_t *len)
{
    char *copy = mw_xstrdup(spec), *save = NULL;
    mw_dvfs_pd_status st = MW_DVFS_PD_OK;
    for (char *t = strtok_r(copy, ",", &save); t && !st; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        double w;
        *at = (size_t)(t - copy);
        *len = strlen(t);
        if (!eq || eq == t || number(eq + 1, &w) || w < 0) {
            st = MW_DVFS_PD_NOT_NODE_W;
        } else {
            *eq = 0;
            *len = (size_t)(eq - t);
            if (!mw_dvfs_run_set_pd(run, t, w)) st = MW_DVFS_PD_NO_NODE;
        }
    }
    free(copy);
    return st;
}

mw_dvfs_pd_status mw_dvfs_run_powers(mw_dvfs_run *run, const char *spec, size_t *at, size_t *len)
{
    double all;
    *at = 0;
    *len = spec ? strlen(spec) : 0;
    if (spec && !number(spec, &all)) {
        if (all < 0) return MW_DVFS_PD_NEGATIVE;
        for (size_t i = 0; i < run->nranks; i++)
            run->ranks[i].pd_w = all, run->ranks[i].pd_given = 1;
    } else if (spec) {
        mw_dvfs_pd_status st = pd_list(run, spec, at, len);
        if (st) return st;
    }
    return mw_dvfs_run_measured_pd(run, at) ? MW_DVFS_PD_UNMEASURED : MW_DVFS_PD_OK;
}

/* ---- the model's problem ---------------------------------------------------------------- */

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

size_t mw_dvfs_gears_sort(double *ghz, size_t n)
{
    qsort(ghz, n, sizeof *ghz, cmp_desc);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || ghz[i] < ghz[k - 1]) ghz[k++] = ghz[i];
    return k;
}

void mw_dvfs_run_problem(const mw_dvfs_run *run, const double *ghz, size_t ngears,
                         mw_dvfs_problem *p)
{
    size_t n = run->nranks;
    double *t = mw_xcalloc(4 * (n ? n : 1), sizeof *t); /* tcp, tcm, pd, ps */
    mw_dvfs_gears *gears = mw_xcalloc(n ? n : 1, sizeof *gears);
    for (size_t i = 0; i < n; i++) {
        const mw_dvfs_rank *r = &run->ranks[i];
        t[i] = r->tcp_s, t[n + i] = r->tcm_s, t[2 * n + i] = r->pd_w, t[3 * n + i] = r->ps_w;
        gears[i] = (mw_dvfs_gears){ghz, ngears};
    }
    *p = (mw_dvfs_problem){n, t, t + n, t + 2 * n, t + 3 * n, NULL, 0, gears};
}

void mw_dvfs_run_problem_free(mw_dvfs_problem *p)
{
    free((double *)p->tcp_s);
    free((mw_dvfs_gears *)p->gears);
    memset(p, 0, sizeof *p);
}

void mw_dvfs_choose(const mw_dvfs_problem *p, mw_dvfs_model m, unsigned which,
                    unsigned long long max_combos, mw_dvfs_eval *base, mw_dvfs_choice out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = (mw_dvfs_choice){.gear = mw_xcalloc(p->n ? p->n : 1, sizeof(size_t))};
    mw_dvfs_evaluate_gears(p, m, out[3].gear, base); /* all 0: F_max */
    if (which & MW_DVFS_BY_MAXDIST)
        out[0].ok = !mw_dvfs_select_maxdist(p, m, out[0].gear, &out[0].e);
    if (which & MW_DVFS_BY_EDP) out[1].ok = !mw_dvfs_select_edp(p, m, out[1].gear, &out[1].e);
    if (which & MW_DVFS_BY_RR) out[2].ok = !mw_dvfs_select_rr(p, m, out[2].gear, &out[2].e);
    if (which & MW_DVFS_BY_ORACLE) {
        int e = mw_dvfs_oracle(p, m, MW_DVFS_MAXDIST, max_combos, out[3].gear, &out[3].e);
        out[3].ok = !e;
        out[3].too_many = e == -2;
    }
}

/* ---- the gear table (moved from collector/cmd_dvfs.c for mw plot --kind dvfs) ------------ */

/* --freqs: GHz, comma-separated, into ghz[*n..]. 0, or -1 naming the bad token in err (the
 * message is made before the copy it quotes is freed). */
static int gears_of_list(const char *list, double *ghz, size_t *n, char *err, size_t errlen)
{
    char *copy = mw_xstrdup(list), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        double f;
        if (number(t, &f) || f <= 0 || f > 100 || *n == MW_DVFS_MAX_GEARS) {
            snprintf(err, errlen,
                     "--freqs: '%s' is not a frequency in GHz (0 < f <= 100, at most %d)", t,
                     MW_DVFS_MAX_GEARS);
            rc = -1;
        } else {
            ghz[(*n)++] = f;
        }
    }
    free(copy);
    return rc;
}

/* The cpufreq table (kHz) as GHz into ghz[*n..]. 0, or -1 with the reason in err. */
static int gears_of_cpufreq(double *ghz, size_t *n, char *source, size_t srclen, char *err,
                            size_t errlen)
{
    const char *path = getenv("MW_CPUFREQ_FILE");
    if (!path || !*path) path = MW_DVFS_CPUFREQ_FILE;
    /* read within bounds (mw_lines.h: 1 MiB, 10 s for a FIFO), not scanned from a stream
     * that may never end (/dev/zero is an endless number) */
    char *text = NULL, rerr[512];
    size_t len;
    int opened = mw_lines_read_file(path, &mw_lines_config, &text, &len, rerr, sizeof rerr) == 0;
    if (!opened && errno != ENOENT) {
        snprintf(err, errlen, "%s", rerr);
        return -1;
    }
    char *save = NULL;
    for (char *t = opened ? strtok_r(text, " \t\r\n", &save) : NULL; t && *n < MW_DVFS_MAX_GEARS;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        double khz;
        if (mw_num_double(t, 1, 1e12, &khz)) {
            snprintf(err, errlen, "%s: '%.40s' is not a frequency in kHz (1..1e12)", path, t);
            free(text);
            return -1;
        }
        ghz[(*n)++] = khz / 1e6;
    }
    free(text);
    if (!*n) {
        snprintf(err, errlen,
                 "no frequency table: give the available frequencies with --freqs GHz,GHz,... "
                 "(%s is %s)",
                 path, opened ? "empty" : "not there");
        return -1;
    }
    snprintf(source, srclen, "%s", path);
    return 0;
}

int mw_dvfs_gears_load(const char *list, double *ghz, size_t *n, char *source, size_t srclen,
                       char *err, size_t errlen)
{
    *n = 0;
    if (list && !*list) {
        snprintf(err, errlen, "--freqs needs a list of GHz (2.5,2.2,1.8)");
        return -1;
    }
    if (list) {
        if (gears_of_list(list, ghz, n, err, errlen)) return -1;
        snprintf(source, srclen, "--freqs");
    } else if (gears_of_cpufreq(ghz, n, source, srclen, err, errlen)) {
        return -1;
    }
    *n = mw_dvfs_gears_sort(ghz, *n);
    return 0;
}
