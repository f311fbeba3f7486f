/* escobar_run — the parameters of the Escobar model (escobar.h) from a recorded eeg-mofs run.
 *
 * Design. The run is read through the run store's cursors (mw_run.h; no SQL here), all in
 * one snapshot (mw_run_snapshot_begin), in the order the parameters depend on each other:
 *   1. rank 0's structural counters (eeg version, individuals, subpops, ...: the last of
 *      each name by time) give N, N_Spop, g, N_Lm, N_Gm; a missing one is an error naming
 *      the parameter and how to record it;
 *   2. each rank's "eeg cpu threads" and "eeg gpus" counters (and its host);
 *   3. the evaluate phases paired with the "eeg evaluated" counter inside them on the same
 *      (rank, thread), in (rank, thread, start, phase before counter) order: W/F per rank
 *      and device;
 *   4. the requesters (v2: one per worker rank; v3: one per device thread);
 *   5. T_master, T_Lm (means of the migration phases), T_com (the workers' distribute time
 *      per requester and global epoch) and the modelled span: from the last init's end to
 *      rank 0's last global migration's end;
 *   6. the channels: Pow and Pow^idle by levels.h, the energy over the span by energy.h,
 *      the switch by name.
 * Aggregates are computed as the SQL they replace computed them: means and sums of integer
 * nanoseconds are exact integers converted once (a double holds every partial sum below
 * 2^53 exactly, as SQLite's did), and the span's ends are doubles (SQLite's max() read as a
 * double), which the energy integral takes back as integers. */
#include "escobar.h"
#include "mw_err.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "energy_store.h"
#include "levels.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "mw_store.h"

#define HOWTO "record eeg-mofs under 'mw record' (its libmwprobe counters)"
#define NSTRUCT 8

static int icase_contains(const char *s, const char *sub)
{
    size_t n = strlen(sub);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == tolower((unsigned char)sub[i]))
            i++;
        if (i == n) return 1;
    }
    return n == 0;
}

static const char *const kinds_counter[] = {"counter", NULL};
static const char *const kinds_user[] = {"user", NULL};

/* ---- 1. the structure: rank 0's counters ------------------------------------------------- */

static const char *const struct_keys[NSTRUCT] = {
    "eeg version",      "eeg individuals", "eeg subpops", "eeg generations",
    "eeg global every", "eeg local every", "eeg chunk",   "eeg ranks"};
static const char *const struct_what[NSTRUCT] = {
    "the version",       "N (individuals)",  "N_Spop",          "the generations",
    "the global period", "the local period", "dN_Spop (chunk)", "the ranks"};

/* val[k]: rank 0's last (by time) counter struct_keys[k]; a missing one is an error */
static int read_struct_counters(mw_store *s, int *val, char *err, size_t errlen)
{
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = kinds_counter;
    f.rank = 0;
    mw_run_cursor *c = mw_run_phases(s, &f);
    if (!c) return mw_store_error_to(s, err, errlen);
    int have[NSTRUCT] = {0}, rc;
    mw_store_phase ph;
    while ((rc = mw_run_phase_next(c, &ph)) == 1)
        for (int k = 0; k < NSTRUCT; k++)
            if (!strcmp(ph.name, struct_keys[k])) {
                val[k] = (int)(double)ph.bytes;
                have[k] = 1;
            }
    mw_run_close(c);
    if (rc < 0) return mw_store_error_to(s, err, errlen);
    for (int k = 0; k < NSTRUCT; k++)
        if (!have[k])
            return mw_err(err, errlen,
                          "missing parameter %s: no counter '%s' on rank 0 (%s, a version that "
                          "writes its model counters)",
                          struct_what[k], struct_keys[k], HOWTO);
    return 0;
}

static int read_structure(mw_store *s, mw_escobar_run *r, char *err, size_t errlen)
{
    mw_escobar_params *p = &r->p;
    int val[NSTRUCT];
    if (read_struct_counters(s, val, err, errlen)) return -1;
    p->version = val[0];
    p->individuals = val[1];
    p->n_spop = val[2];
    r->generations = val[3];
    r->global_every = val[4];
    r->local_every = val[5];
    r->chunk = val[6];
    r->ranks = val[7];
    if (p->version != 2 && p->version != 3)
        return mw_err(err, errlen, "counter 'eeg version' is %d (2 or 3)", p->version);
    if (p->individuals < 1 || p->n_spop < 1 || r->generations < 1 || r->global_every < 1 ||
        r->chunk < 1 || r->ranks < 1 || r->ranks > 4096 || r->generations % r->global_every != 0)
        return mw_err(err, errlen,
                      "inconsistent eeg counters (individuals %d, subpops %d, "
                      "generations %d, global every %d, chunk %d, ranks %d)",
                      p->individuals, p->n_spop, r->generations, r->global_every, r->chunk,
                      r->ranks);
    p->n_gm = r->generations / r->global_every;
    if (p->version == 2) {
        if (r->local_every < 1 || r->global_every % r->local_every != 0)
            return mw_err(err, errlen,
                          "missing parameter N_Lm: counter 'eeg local every' is %d "
                          "for a v2 run (%s)",
                          r->local_every, HOWTO);
        p->g = r->local_every;
        p->n_lm = r->global_every / r->local_every;
    } else {
        p->g = r->global_every;
        p->n_lm = 1;
        p->t_lm_s = 0;
    }
    return 0;
}

/* ---- 2. and 3. the ranks: devices, evaluate times ---------------------------------------- */

typedef struct {
    double cpu_s, gpu_s;     /* evaluate time */
    double cpu_units, gpu_n; /* sum ceil(n / P_CPU); sum n */
    int threads, gpus;
    int have_threads, have_gpus;
    char host[MW_ESCOBAR_NAME];
} rank_info;

static int read_devices(mw_store *s, int ranks, rank_info *ri, char *err, size_t errlen)
{
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = kinds_counter;
    mw_run_cursor *c = mw_run_phases(s, &f);
    if (!c) return mw_store_error_to(s, err, errlen);
    mw_store_phase ph;
    int rc;
    while ((rc = mw_run_phase_next(c, &ph)) == 1) {
        int threads = !strcmp(ph.name, "eeg cpu threads");
        if ((!threads && strcmp(ph.name, "eeg gpus")) || ph.rank < 0 || ph.rank >= ranks) continue;
        rank_info *k = &ri[ph.rank];
        if (threads) {
            k->threads = (int)ph.bytes;
            k->have_threads = 1;
        } else {
            k->gpus = (int)ph.bytes;
            k->have_gpus = 1;
        }
        snprintf(k->host, sizeof k->host, "%s", ph.host);
    }
    mw_run_close(c);
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

/* an evaluate phase (counter 0) or an "eeg evaluated" counter (1) */
typedef struct {
    int rank, thread, counter, gpu;
    int64_t start_ns, end_ns, bytes;
    size_t seq; /* read order: (start_ns, id) */
} eval_row;

static int eval_cmp(const void *a, const void *b)
{
    const eval_row *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    if (x->counter != y->counter) return x->counter - y->counter;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* the evaluate phases and their counters, sorted by (rank, thread, start, phase first) */
static int read_eval_rows(mw_store *s, eval_row **out, size_t *n, char *err, size_t errlen)
{
    static const char *const kinds[] = {"user", "counter", NULL};
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = kinds;
    *out = NULL;
    *n = 0;
    mw_run_cursor *c = mw_run_phases(s, &f);
    if (!c) return mw_store_error_to(s, err, errlen);
    size_t cap = 0;
    mw_store_phase ph;
    int rc;
    while ((rc = mw_run_phase_next(c, &ph)) == 1) {
        int counter = !strcmp(ph.kind, "counter");
        int gpu = !counter && !strcmp(ph.name, "evaluate gpu");
        if (counter ? strcmp(ph.name, "eeg evaluated") : !gpu && strcmp(ph.name, "evaluate cpu"))
            continue;
        if (*n == cap) *out = mw_xrealloc(*out, (cap = cap ? 2 * cap : 256) * sizeof **out);
        (*out)[*n] =
            (eval_row){ph.rank, ph.thread, counter, gpu, ph.start_ns, ph.end_ns, ph.bytes, *n};
        (*n)++;
    }
    mw_run_close(c);
    if (rc < 0) {
        free(*out);
        *out = NULL;
        return mw_store_error_to(s, err, errlen);
    }
    if (*n) qsort(*out, *n, sizeof **out, eval_cmp);
    return 0;
}

/* W/F per rank: each evaluate phase closed by the first counter inside it, same thread */
static int read_evaluate(mw_store *s, int ranks, rank_info *ri, char *err, size_t errlen)
{
    eval_row *row;
    size_t n;
    if (read_eval_rows(s, &row, &n, err, errlen)) return -1;
    int orank = -1, othread = -1, ogpu = 0, open = 0;
    int64_t o0 = 0, o1 = 0;
    for (size_t i = 0; i < n; i++) {
        const eval_row *e = &row[i];
        int rk = e->rank;
        if (rk < 0 || rk >= ranks) continue;
        if (!e->counter) {
            orank = rk;
            othread = e->thread;
            ogpu = e->gpu;
            o0 = e->start_ns;
            o1 = e->end_ns;
            open = 1;
        } else if (open && rk == orank && e->thread == othread && e->start_ns >= o0 &&
                   e->start_ns <= o1) {
            double nind = (double)e->bytes;
            double dur = (double)(o1 - o0) * 1e-9;
            if (ogpu) {
                ri[rk].gpu_s += dur;
                ri[rk].gpu_n += nind;
            } else {
                int pc = ri[rk].threads > 0 ? ri[rk].threads : 1;
                ri[rk].cpu_s += dur;
                ri[rk].cpu_units += ceil(nind / pc);
            }
            open = 0;
        }
    }
    free(row);
    return 0;
}

/* ---- 4. the requesters ------------------------------------------------------------------- */

static void add_requesters(mw_escobar_run *r, const rank_info *k, int rank, double tc, double tg,
                           int nreq)
{
    mw_escobar_params *p = &r->p;
    int ndev = 1 + (k->gpus > 0 ? k->gpus : 0);
    for (int d = 0; d < nreq; d++) {
        mw_escobar_worker *w = &p->w[p->nworkers++];
        memset(w, 0, sizeof *w);
        w->rank = rank;
        snprintf(w->host, sizeof w->host, "%s", k->host);
        w->p_cpu = k->threads > 0 ? k->threads : 1;
        w->t_cpu_s = tc;
        w->t_gpu_s = tg;
        if (p->version == 2) {
            w->delta_spop = r->chunk * ndev;
            w->x = (double)(ndev - 1) / ndev;
            w->p_gpu = ndev - 1;
        } else {
            w->delta_spop = r->chunk;
            w->gpu = d > 0;
            w->x = d > 0 ? 1 : 0;
            w->p_gpu = d > 0 ? 1 : 0;
        }
    }
}

/* the worker ranks' requesters (rank 0 alone when it is the only rank) */
static int make_requesters(mw_escobar_run *r, const rank_info *ri, char *err, size_t errlen)
{
    mw_escobar_params *p = &r->p;
    int first = r->ranks > 1 ? 1 : 0;
    double cpu_s = 0, cpu_u = 0, gpu_s = 0, gpu_n = 0;
    for (int k = first; k < r->ranks; k++) {
        cpu_s += ri[k].cpu_s;
        cpu_u += ri[k].cpu_units;
        gpu_s += ri[k].gpu_s;
        gpu_n += ri[k].gpu_n;
    }
    r->have_t_cpu = cpu_u > 0;
    r->have_t_gpu = gpu_n > 0;
    p->nworkers = 0;
    for (int k = first; k < r->ranks; k++) {
        if (!ri[k].have_threads || !ri[k].have_gpus)
            return mw_err(err, errlen,
                          "missing parameter P_CPU/P_GPU of rank %d: no counters 'eeg cpu "
                          "threads' and 'eeg gpus' on it (%s)",
                          k, HOWTO);
        /* this rank's own W/F, else the mean over the workers */
        double tc =
            ri[k].cpu_units > 0 ? ri[k].cpu_s / ri[k].cpu_units : (cpu_u > 0 ? cpu_s / cpu_u : 0);
        double tg = ri[k].gpu_n > 0 ? ri[k].gpu_s / ri[k].gpu_n : (gpu_n > 0 ? gpu_s / gpu_n : 0);
        int ndev = 1 + (ri[k].gpus > 0 ? ri[k].gpus : 0);
        int nreq = p->version == 2 ? 1 : ndev;
        if (p->nworkers + nreq > MW_ESCOBAR_MAX_WORKERS) {
            add_requesters(r, &ri[k], k, tc, tg, MW_ESCOBAR_MAX_WORKERS - p->nworkers);
            return mw_err(err, errlen, "more than %d requesters", MW_ESCOBAR_MAX_WORKERS);
        }
        add_requesters(r, &ri[k], k, tc, tg, nreq);
    }
    return 0;
}

/* ---- 5. the times and the modelled span -------------------------------------------------- */

typedef struct {
    int64_t n, sum_ns, max_end_ns; /* count, sum of end - start, largest end */
} span_stats;

/* the user phases called name on rank `rank` (MW_RUN_ANY_RANK: any) with rank >= min_rank */
static int user_spans(mw_store *s, const char *name, int rank, int min_rank, span_stats *st,
                      char *err, size_t errlen)
{
    mw_run_phase_filter f = mw_run_phase_all();
    f.kinds = kinds_user;
    f.name = name;
    f.rank = rank;
    mw_run_cursor *c = mw_run_phases(s, &f);
    if (!c) return mw_store_error_to(s, err, errlen);
    memset(st, 0, sizeof *st);
    mw_store_phase ph;
    int rc;
    while ((rc = mw_run_phase_next(c, &ph)) == 1) {
        if (ph.rank < min_rank) continue;
        st->sum_ns += ph.end_ns - ph.start_ns;
        if (!st->n++ || ph.end_ns > st->max_end_ns) st->max_end_ns = ph.end_ns;
    }
    mw_run_close(c);
    return rc < 0 ? mw_store_error_to(s, err, errlen) : 0;
}

/* the mean duration, s (as SQL's avg(end_ns - start_ns) * 1e-9) */
static double mean_s(const span_stats *st)
{
    return (double)st->sum_ns / (double)st->n * 1e-9;
}

/* a meta value read as a number; 1 when absent */
static int meta_number(mw_store *s, const char *key, double *v)
{
    char buf[64];
    if (mw_store_meta_get(s, key, buf, sizeof buf)) return 1;
    *v = strtod(buf, NULL);
    return 0;
}

/* T_master, T_Lm, T_com; the span [*start_ns, *end_ns) that eq. 8 models; the wall time */
static int read_times(mw_store *s, mw_escobar_run *r, double *start_ns, double *end_ns, char *err,
                      size_t errlen)
{
    mw_escobar_params *p = &r->p;
    span_stats gm, st;
    if (user_spans(s, "global migration", 0, MW_RUN_ANY_RANK, &gm, err, errlen)) return -1;
    r->have_t_master = gm.n > 0;
    p->t_master_s = gm.n ? mean_s(&gm) : 0;
    if (p->version == 2) {
        if (user_spans(s, "local migration", MW_RUN_ANY_RANK, MW_RUN_ANY_RANK, &st, err, errlen))
            return -1;
        r->have_t_lm = st.n > 0;
        p->t_lm_s = st.n ? mean_s(&st) : 0;
    } else {
        r->have_t_lm = 1;
    }
    p->t_com_s = 0;
    if (r->ranks > 1) {
        if (user_spans(s, "distribute", MW_RUN_ANY_RANK, 1, &st, err, errlen)) return -1;
        p->t_com_s = (double)st.sum_ns * 1e-9 / ((double)p->nworkers * p->n_gm);
    }
    if (user_spans(s, "init", MW_RUN_ANY_RANK, MW_RUN_ANY_RANK, &st, err, errlen)) return -1;
    if (!st.n)
        return mw_err(err, errlen, "missing the modelled span: no 'init' phases (%s)", HOWTO);
    *start_ns = (double)st.max_end_ns;
    *end_ns = (double)gm.max_end_ns;
    if (!gm.n || *end_ns <= *start_ns)
        return mw_err(err, errlen,
                      "missing parameter T_master and the measured T_cluster: no 'global "
                      "migration' phases on rank 0 after init (%s)",
                      HOWTO);
    r->t_measured_s = (*end_ns - *start_ns) * 1e-9;
    double c0, c1;
    int n0 = meta_number(s, "cmd_start_ns", &c0), n1 = meta_number(s, "cmd_end_ns", &c1);
    r->wall_s = !n0 && !n1 && c1 > c0 ? (c1 - c0) * 1e-9 : r->t_measured_s;
    return 0;
}

/* ---- 6. the channels --------------------------------------------------------------------- */

/* nd's Pow and Pow^idle from its windows' power levels, its energy over [from, to) */
static int channel_power(mw_store *s, int channel, int64_t from_ns, int64_t to_ns,
                         mw_escobar_node *nd, double *energy_j, int *nsamples, char *err,
                         size_t errlen)
{
    mw_energy_window *w;
    size_t n;
    if (mw_energy_store_windows(s, channel, &w, &n, err, errlen)) return -1;
    *nsamples = (int)n;
    *energy_j = 0;
    if (n == 0) return 0;
    double *pw = mw_xcalloc(n, sizeof *pw);
    for (size_t i = 0; i < n; i++)
        pw[i] = w[i].power_mw / 1000.0;
    mw_levels lv;
    int rc = 0;
    if (n == 1) {
        nd->pow_w = nd->pow_idle_w = pw[0];
    } else if (mw_levels_kde(pw, n, &lv) == 0) {
        nd->pow_w = lv.work_w;
        nd->pow_idle_w = lv.idle_w;
    } else {
        rc = mw_err(err, errlen, "channel %s: no power levels (%s)", nd->name, lv.note);
    }
    free(pw);
    mw_energy_trace tr;
    char e2[256];
    if (!rc && mw_energy_trace_init(&tr, w, n, e2, sizeof e2)) {
        free(w);
        return mw_err(err, errlen, "channel %s: %s", nd->name, e2);
    }
    if (!rc) {
        *energy_j = mw_energy_j(mw_energy_span_pj(&tr, from_ns, to_ns));
        mw_energy_trace_free(&tr);
    }
    free(w);
    return rc;
}

/* one channel with samples: a node, or the switch */
static int add_channel(mw_escobar_params *p, const mw_escobar_node *nd, const char *swn, char *err,
                       size_t errlen)
{
    if (!p->has_switch && icase_contains(nd->name, swn)) {
        p->has_switch = 1;
        snprintf(p->switch_name, sizeof p->switch_name, "%s", nd->name);
        p->pow_sw_w = nd->pow_w;
        p->pow_sw_idle_w = nd->pow_idle_w;
    } else if (p->nnodes < MW_ESCOBAR_MAX_NODES) {
        p->node[p->nnodes++] = *nd;
    } else {
        /* its energy is measured but the model could not predict it */
        return mw_err(err, errlen, "the run has more than %d node channels (the model's limit)",
                      MW_ESCOBAR_MAX_NODES);
    }
    return 0;
}

static int read_channels(mw_store *s, mw_escobar_run *r, const char *master_host,
                         const char *switch_name, int64_t from_ns, int64_t to_ns, char *err,
                         size_t errlen)
{
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) return mw_store_error_to(s, err, errlen);
    const char *swn = switch_name ? switch_name : "switch";
    int total = 0, rc;
    mw_run_channel ch;
    r->e_measured_j = 0;
    while ((rc = mw_run_channel_next(c, &ch)) == 1) {
        mw_escobar_node nd;
        memset(&nd, 0, sizeof nd);
        snprintf(nd.name, sizeof nd.name, "%s", ch.name);
        snprintf(nd.host, sizeof nd.host, "%s", ch.host ? ch.host : "");
        nd.all = !ch.host || !*ch.host;
        nd.master = mw_energy_channel_measures(nd.host, master_host);
        double e = 0;
        int ns = 0;
        if (channel_power(s, ch.channel, from_ns, to_ns, &nd, &e, &ns, err, errlen)) break;
        if (ns == 0) continue; /* a channel that recorded nothing measures nothing */
        total += ns;
        r->e_measured_j += e;
        if (add_channel(&r->p, &nd, swn, err, errlen)) break;
    }
    mw_run_close(c);
    if (rc != 0) return rc < 0 ? mw_store_error_to(s, err, errlen) : -1;
    if (total == 0)
        return mw_err(err, errlen,
                      "missing parameters Pow_i and Pow_i^idle: the run has no power samples "
                      "(record it with a meter: mw record --meter PORT|sim)");
    return 0;
}

/* ---- the whole run ----------------------------------------------------------------------- */

static int from_store(mw_store *s, const char *switch_name, mw_escobar_run *r, char *err,
                      size_t errlen)
{
    if (read_structure(s, r, err, errlen)) return -1;
    rank_info *ri = mw_xcalloc((size_t)r->ranks, sizeof *ri);
    double start_ns = 0, end_ns = 0;
    int rc = -1;
    if (!read_devices(s, r->ranks, ri, err, errlen) &&
        !read_evaluate(s, r->ranks, ri, err, errlen) && !make_requesters(r, ri, err, errlen) &&
        !read_times(s, r, &start_ns, &end_ns, err, errlen))
        rc = read_channels(s, r, ri[0].host, switch_name, (int64_t)start_ns, (int64_t)end_ns, err,
                           errlen);
    free(ri);
    return rc;
}

int mw_escobar_from_run(const char *rundir, const char *switch_name, mw_escobar_run *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->dir, sizeof out->dir, "%s", rundir);
    if (!mw_store_exists(rundir))
        return mw_err(err, errlen, "%s: not a run (no %s there)", rundir, MW_STORE_DB_NAME);
    char e2[512];
    mw_store *s = mw_store_open(rundir, e2, sizeof e2);
    if (!s) return mw_err(err, errlen, "%s", e2);
    mw_run_snapshot_begin(s);
    int rc = from_store(s, switch_name, out, e2, sizeof e2);
    mw_run_snapshot_end(s);
    mw_store_close(s);
    if (rc) return mw_err(err, errlen, "%s: %s", rundir, e2);
    return 0;
}
