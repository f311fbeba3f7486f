/* The analysis library (models/include/mw_analysis.h) fed by hand, its results read from
 * the structs, against answers known independently.
 *
 * "hand" (origin S, windows of 1 s): node0 @n0 100, 200, 200, 100 W (600 J); node1 @n1 50 W
 * throughout (200 J); a switch without host 10 W (40 J). Phases: the recorder's idle-before
 * [0, 1) (so idle powers 100, 50 and 10 W), rank 0 @n0 compute step [0.5, 2.5) (on node0
 * 50 + 200 + 100 = 350 J), rank 1 @n1 compute step [1, 2) (50 J on node1), rank 2 @nx (a
 * host without a channel) user solve [3, 4), and a rank-0 user phase named "Wait here" (a
 * program's own waiting: not work; the unmarked [2.5, 3) between them is rank 0's inferred
 * computation, mw_phase_class.h's rule). Hence: node0 measures rank 0, node1 rank 1, the switch
 * every rank; rank 2's energy is the switch's (10 J); the step group on the switch is the
 * union [0.5, 2.5) over both hosts (20 J).
 *
 * Levels: a channel at 100 W and 200 W in alternate blocks of 20 windows, ±1 W around each
 * (so each level's mean is exact), with the work phases exactly on the 200 W blocks: the
 * split gives 100 and 200 W and 100 windows each way; the kernel density and the mixture
 * find the two levels within 2 W.
 *
 * The streaming integration against models/include/energy.h on the whole trace: random windows
 * (holes, overlaps, uneven powers) and random phases on three hosts; every figure of every
 * channel, phase and rank equals the trace's; windows given out of time order are asked
 * again (the replay) and give the same figures.
 *
 * And from a run store (mw_analysis_read): the hand run's node0 written with its last two
 * windows in segment 0 and its first two in segment 1, so that recording order is not time
 * order: read again on its own, 600 J, and the meter's counter (100 J at the end of the
 * first window, 600 J at the end of the last) gives 600 J too. */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>

#include "mw_analysis.h"
#include "mw_store.h"

#define S_NS 1700000000000000000LL
#define SEC 1000000000LL

static char err[512];

static mw_analysis_run *hand_run(const mw_analysis_options *o)
{
    mw_analysis_run *r = mw_analysis_new("hand", S_NS, o);
    assert_int_equal(mw_analysis_add_channel(r, 1, "node0", "n0", err, sizeof err), 0);
    assert_int_equal(mw_analysis_add_channel(r, 2, "node1", "n1", err, sizeof err), 0);
    assert_int_equal(mw_analysis_add_channel(r, 3, "switch", NULL, err, sizeof err), 0);
    mw_analysis_add_phase(r, -1, "rec", "mw", "idle-before", S_NS, S_NS + SEC);
    mw_analysis_add_phase(r, 0, "n0", "compute", "step", S_NS + SEC / 2, S_NS + 5 * SEC / 2);
    mw_analysis_add_phase(r, 1, "n1", "compute", "step", S_NS + SEC, S_NS + 2 * SEC);
    mw_analysis_add_phase(r, 2, "nx", "user", "solve", S_NS + 3 * SEC, S_NS + 4 * SEC);
    mw_analysis_add_phase(r, 0, "n0", "user", "Wait here", S_NS + 3 * SEC, S_NS + 4 * SEC);
    mw_analysis_add_phase(r, 0, "n0", "mark", "checkpoint", S_NS + SEC, S_NS + SEC);
    const int32_t p0[4] = {100000, 200000, 200000, 100000};
    for (int k = 0; k < 4; k++) {
        int64_t a = S_NS + k * SEC, b = a + SEC;
        assert_int_equal(mw_analysis_add_window(r, 1, a, b, p0[k], err, sizeof err), 0);
        assert_int_equal(mw_analysis_add_window(r, 2, a, b, 50000, err, sizeof err), 0);
        assert_int_equal(mw_analysis_add_window(r, 3, a, b, 10000, err, sizeof err), 0);
    }
    for (size_t c = 0; c < r->nchannels; c++)
        assert_false(mw_analysis_replay_needed(r, c));
    return r;
}

static const mw_analysis_phase *group(const mw_analysis_run *r, const char *kind, const char *name)
{
    for (size_t g = 0; g < r->nphases; g++)
        if (!strcmp(r->phases[g].kind, kind) && !strcmp(r->phases[g].name, name))
            return &r->phases[g];
    fail_msg("no group %s %s", kind, name);
    return NULL;
}

#define PJ(j) ((mw_energy_pj)(j)*1000000000000)

static void hand_energies(void **state)
{
    mw_analysis_run *r = hand_run(NULL);
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    assert_int_equal(r->nchannels, 3);
    const mw_analysis_channel *n0 = &r->channels[0], *n1 = &r->channels[1], *sw = &r->channels[2];
    assert_int_equal(n0->windows, 4);
    assert_true(n0->energy_pj == PJ(600));
    assert_true(n1->energy_pj == PJ(200));
    assert_true(sw->energy_pj == PJ(40));
    assert_int_equal(n0->covered_ns, 4 * SEC);
    assert_int_equal(r->first_ns, S_NS);
    assert_int_equal(r->last_ns, S_NS + 4 * SEC);
    /* no counter was set (0 at both ends, a first window 0 us long): 0 J, no % */
    assert_true(n0->have_meter);
    assert_true(n0->meter_pj == 0);
    assert_true(isnan(mw_analysis_meter_difference_pct(n0)));
    /* idle power from idle-before: the first window of each */
    assert_int_equal(n0->idle_source, MW_ANALYSIS_IDLE_PHASES);
    assert_true(n0->idle_power_w == 100.0);
    assert_true(mw_analysis_dynamic_j(n0, n0->energy_pj, n0->covered_ns) == 200.0);
    assert_true(mw_analysis_dynamic_j(sw, sw->energy_pj, sw->covered_ns) == 0.0);
    assert_string_equal(mw_analysis_idle_source_name(n0->idle_source), "idle phases");
    /* the step group: node0 350 J over 2 s, node1 50 J over 1 s, the switch the union */
    const mw_analysis_phase *step = group(r, "compute", "step");
    assert_int_equal(step->intervals, 2);
    assert_int_equal(step->duration_ns, 2 * SEC);
    assert_true(step->channel_energy_pj[0] == PJ(350));
    assert_int_equal(step->channel_duration_ns[0], 2 * SEC);
    assert_int_equal(step->channel_covered_ns[0], 2 * SEC);
    assert_true(step->channel_energy_pj[1] == PJ(50));
    assert_int_equal(step->channel_duration_ns[1], SEC);
    assert_true(step->channel_energy_pj[2] == PJ(20));
    assert_int_equal(step->channel_duration_ns[2], 2 * SEC);
    /* the recorder's phase covers every channel; marks are no phase */
    const mw_analysis_phase *idle = group(r, "mw", "idle-before");
    assert_true(idle->channel_energy_pj[1] == PJ(50));
    for (size_t g = 0; g < r->nphases; g++)
        assert_string_not_equal(r->phases[g].kind, "mark");
    mw_analysis_free(r);
}

static void hand_ranks(void **state)
{
    mw_analysis_run *r = hand_run(NULL);
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    assert_int_equal(r->nranks, 3);
    /* rank 0 on n0: node0 only, over [0.5, 4): 50 + 200 + 100 = 350 J to 2.5 s, then
     * 100 + 100 J; its work is the step and, inferred, the unmarked [2.5, 3) between the
     * step and its waiting phase (its time outside MPI and waits: 0.5 s at 200 W, 100 J);
     * the waiting phase is not work */
    const mw_analysis_rank *k0 = &r->ranks[0];
    assert_int_equal(k0->rank, 0);
    assert_string_equal(k0->host, "n0");
    assert_int_equal(k0->nchannels, 1);
    assert_int_equal(k0->channels[0], 0);
    assert_int_equal(k0->start_ns, S_NS + SEC / 2);
    assert_int_equal(k0->end_ns, S_NS + 4 * SEC);
    assert_true(k0->energy_pj == PJ(550));
    assert_int_equal(k0->work_ns, 5 * SEC / 2);
    assert_int_equal(k0->inferred_ns, SEC / 2);
    assert_true(k0->work_energy_pj == PJ(450));
    /* rank 1: its step is all it did, marked */
    assert_int_equal(r->ranks[1].work_ns, SEC);
    assert_int_equal(r->ranks[1].inferred_ns, 0);
    /* rank 1 on n1: node1 only */
    assert_int_equal(r->ranks[1].nchannels, 1);
    assert_int_equal(r->ranks[1].channels[0], 1);
    assert_true(r->ranks[1].energy_pj == PJ(50));
    /* rank 2 on nx, a host without a channel: the host-less switch measures it */
    const mw_analysis_rank *k2 = &r->ranks[2];
    assert_string_equal(k2->host, "nx");
    assert_int_equal(k2->nchannels, 1);
    assert_int_equal(k2->channels[0], 2);
    assert_true(k2->energy_pj == PJ(10));
    assert_int_equal(k2->work_ns, SEC); /* user solve is work */
    /* who measures whom: the switch every rank, node0 rank 0, node1 rank 1 */
    assert_int_equal(r->channels[2].nranks, 3);
    assert_int_equal(r->channels[0].nranks, 1);
    assert_int_equal(r->ranks[r->channels[0].ranks[0]].rank, 0);
    assert_int_equal(r->channels[1].nranks, 1);
    assert_int_equal(r->ranks[r->channels[1].ranks[0]].rank, 1);
    /* the hosts: sorted, the recorder's included */
    assert_int_equal(r->nhosts, 4);
    assert_string_equal(r->hosts[0], "n0");
    assert_string_equal(r->hosts[3], "rec");
    mw_analysis_free(r);
}

static void hand_range_and_options(void **state)
{
    /* [1, 3) s: node0's two 200 W windows; every channel's idle power given as 40 W but
     * node0's as 150 W */
    mw_analysis_idle_power idle[] = {{NULL, 40.0}, {"node0", 150.0}};
    mw_analysis_options o = {1, 1, 1.0, 3.0, idle, 2};
    mw_analysis_run *r = hand_run(&o);
    mw_energy_window first, last;
    assert_int_equal(mw_analysis_counter_windows(r, 0, &first, &last), 1);
    assert_int_equal(first.t0_ns, S_NS + SEC);
    assert_int_equal(last.t1_ns, S_NS + 3 * SEC);
    /* counter: 300 J at the end of window 1 (its own 200 J counted by its power x its meter
     * length of 1 s), 500 J at the end of window 2: 400 J */
    mw_analysis_set_counter(r, 0, 300000, 1000000, 500000);
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    const mw_analysis_channel *n0 = &r->channels[0];
    assert_int_equal(n0->windows, 2);
    assert_true(n0->energy_pj == PJ(400));
    assert_true(n0->meter_pj == PJ(400));
    assert_true(mw_analysis_meter_difference_pct(n0) == 0.0);
    assert_int_equal(n0->idle_source, MW_ANALYSIS_IDLE_OPTION);
    assert_true(n0->idle_power_w == 150.0);
    assert_true(mw_analysis_dynamic_j(n0, n0->energy_pj, n0->covered_ns) == 100.0);
    assert_true(r->channels[1].idle_power_w == 40.0);
    /* phases clipped: step on node0 is [1, 2.5): 300 J; rank 0 starts at 1 s */
    assert_true(group(r, "compute", "step")->channel_energy_pj[0] == PJ(300));
    assert_int_equal(r->ranks[0].start_ns, S_NS + SEC);
    assert_int_equal(r->ranks[0].end_ns, S_NS + 3 * SEC);
    mw_analysis_free(r);

    /* an empty range, no windows, channels after windows: -1 with the reason */
    mw_analysis_options late = {1, 0, 100.0, 0, NULL, 0};
    r = hand_run(&late);
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), -1);
    assert_string_equal(err, "hand: no samples between 100 s and the end");
    mw_analysis_free(r);
    r = mw_analysis_new("bare", S_NS, NULL);
    assert_int_equal(mw_analysis_add_channel(r, 1, "a", NULL, err, sizeof err), 0);
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), -1);
    assert_string_equal(err, "bare: no samples");
    mw_analysis_free(r);
    r = hand_run(NULL);
    assert_int_equal(mw_analysis_add_channel(r, 9, "late", NULL, err, sizeof err), -1);
    mw_analysis_free(r);
}

/* ---- levels on a two-level trace --------------------------------------------------------- */

static void two_levels(void **state)
{
    mw_analysis_run *r = mw_analysis_new("levels", S_NS, NULL);
    assert_int_equal(mw_analysis_add_channel(r, 1, "node0", "n0", err, sizeof err), 0);
    for (int b = 1; b < 10; b += 2) /* work in blocks 1, 3, 5, 7, 9 of 20 windows */
        mw_analysis_add_phase(r, 0, "n0", "compute", "work", S_NS + b * 20 * SEC,
                              S_NS + (b + 1) * 20 * SEC);
    for (int b = 2; b < 10; b += 2) /* and says it waits in between (else: inferred work) */
        mw_analysis_add_phase(r, 0, "n0", "user", "idle", S_NS + b * 20 * SEC,
                              S_NS + (b + 1) * 20 * SEC);
    for (int k = 0; k < 200; k++) {
        int32_t level = (k / 20) % 2 ? 200000 : 100000, noise = k % 2 ? 1000 : -1000;
        assert_int_equal(mw_analysis_add_window(r, 1, S_NS + k * SEC, S_NS + (k + 1) * SEC,
                                                level + noise, err, sizeof err),
                         0);
    }
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    const mw_analysis_channel *c = &r->channels[0];
    assert_int_equal(c->split.state, MW_ANALYSIS_OK);
    assert_int_equal(c->split.working_windows, 100);
    assert_int_equal(c->split.idle_windows, 100);
    assert_true(fabs(mw_analysis_idle_w(&c->split) - 100.0) < 1e-9);
    assert_true(fabs(mw_analysis_work_w(&c->split) - 200.0) < 1e-9);
    assert_int_equal(c->kde.state, MW_ANALYSIS_OK);
    assert_true(c->kde.levels.bimodal);
    assert_false(c->kde.constant);
    assert_true(fabs(mw_analysis_idle_w(&c->kde) - 100.0) < 2.0);
    assert_true(fabs(mw_analysis_work_w(&c->kde) - 200.0) < 2.0);
    assert_true(fabs(mw_analysis_idle_w(&c->gmm) - 100.0) < 2.0);
    assert_true(fabs(mw_analysis_work_w(&c->gmm) - 200.0) < 2.0);
    assert_true(fabs(mw_analysis_metric_value(c, MW_ANALYSIS_SPLIT_WORK) - 200.0) < 1e-9);
    /* 150 W on average: 100 x 100 s + 200 x 100 s over 200 s */
    assert_true(mw_analysis_metric_value(c, MW_ANALYSIS_MEAN_POWER) == 150.0);
    /* no idle phases, no option: no dynamic energy */
    assert_true(isnan(mw_analysis_metric_value(c, MW_ANALYSIS_DYNAMIC)));
    mw_analysis_free(r);
}

static void constant_and_across_runs(void **state)
{
    mw_analysis_run *a = hand_run(NULL), *b = hand_run(NULL);
    assert_int_equal(mw_analysis_finish(a, err, sizeof err), 0);
    assert_int_equal(mw_analysis_finish(b, err, sizeof err), 0);
    b->channels[0].energy_pj += PJ(100); /* run b: node0 700 J */
    const mw_analysis_channel *sw = &a->channels[2];
    assert_true(sw->kde.constant);
    assert_true(sw->constant_power_w == 10.0);
    /* the switch's work: rank 0's [0.5, 3) (step, then inferred), rank 1's [1, 2) and
     * rank 2's [3, 4): over half of windows 1, 2 and 3 */
    assert_int_equal(sw->split.working_windows, 3);
    assert_int_equal(sw->split.idle_windows, 1);
    const mw_analysis_run *runs[] = {a, b};
    mw_analysis_aggregate agg;
    mw_analysis_aggregate_runs(runs, 2, &agg);
    assert_int_equal(agg.nruns, 2);
    assert_int_equal(agg.nchannels, 3);
    assert_string_equal(agg.channels[0].name, "node0");
    assert_int_equal(agg.channels[0].runs, 2);
    const mw_analysis_summary *e = &agg.channels[0].metric[MW_ANALYSIS_ENERGY];
    assert_int_equal(e->n, 2);
    assert_true(e->mean == 650.0);
    assert_true(fabs(e->sd - sqrt(5000.0)) < 1e-9);
    assert_true(agg.channels[1].metric[MW_ANALYSIS_ENERGY].sd == 0.0);
    mw_analysis_aggregate_free(&agg);
    mw_analysis_aggregate_runs(runs, 1, &agg);
    assert_true(isnan(agg.channels[0].metric[MW_ANALYSIS_ENERGY].sd));
    mw_analysis_aggregate_free(&agg);
    mw_analysis_free(a);
    mw_analysis_free(b);
}

/* ---- streaming against the whole trace ---------------------------------------------------- */

static uint64_t rng_state = 88172645463325252u;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

#define NCH 3
#define NW 300
#define NPH 80

typedef struct {
    int rank;
    const char *host, *kind, *name;
    int64_t a, b;
} phase;

static const char *const ch_host[NCH] = {"h0", "h1", NULL};

static void random_input(mw_energy_window w[NCH][NW], phase *ph)
{
    for (int c = 0; c < NCH; c++) {
        int64_t t = S_NS + rnd(1000) * 1000000LL;
        for (int k = 0; k < NW; k++) {
            int64_t len = 200000000LL + rnd(100000000);
            int64_t t0 = rnd(40) == 0 ? t + rnd(2000000000) : rnd(6) == 0 ? t - rnd(3000) : t;
            w[c][k] = (mw_energy_window){t0, t0 + len, (int32_t)(1000 + rnd(300000))};
            t = t0 + len;
        }
    }
    static const char *const hosts[] = {"h0", "h1", "h2"}, *kinds[] = {"compute", "user", "wait"},
                             *names[] = {"a", "b", "idle x"};
    for (int i = 0; i < NPH; i++) {
        int h = (int)rnd(3);
        int64_t a = S_NS + (int64_t)rnd(90000) * 1000000LL - 5 * SEC;
        if (rnd(3) == 0) { /* on a window's edge, where instants meet windows */
            const mw_energy_window *e = &w[rnd(NCH)][rnd(NW)];
            a = rnd(2) ? e->t0_ns : e->t1_ns;
        }
        ph[i] = (phase){h + 3 * (int)rnd(2), hosts[h], kinds[rnd(3)],
                        names[rnd(3)],       a,        a + (int64_t)rnd(4000) * 1000000LL};
    }
    ph[0] = (phase){-1, "rec", "mw", "idle-before", S_NS, S_NS + 2 * SEC};
}

static mw_analysis_run *feed(mw_energy_window w[NCH][NW], const phase *ph,
                             const mw_analysis_options *o, int reverse_first)
{
    mw_analysis_run *r = mw_analysis_new("random", S_NS, o);
    for (int c = 0; c < NCH; c++)
        assert_int_equal(mw_analysis_add_channel(r, c + 1, ch_host[c] ? ch_host[c] : "sw",
                                                 ch_host[c], err, sizeof err),
                         0);
    for (int i = 0; i < NPH; i++)
        mw_analysis_add_phase(r, ph[i].rank, ph[i].host, ph[i].kind, ph[i].name, ph[i].a, ph[i].b);
    for (int k = 0; k < NW; k++)
        for (int c = 0; c < NCH; c++) {
            const mw_energy_window *x = &w[c][c == 0 && reverse_first ? NW - 1 - k : k];
            assert_int_equal(
                mw_analysis_add_window(r, c + 1, x->t0_ns, x->t1_ns, x->power_mw, err, sizeof err),
                0);
        }
    assert_int_equal(mw_analysis_replay_needed(r, 0), reverse_first);
    if (reverse_first) {
        mw_energy_window again[NW];
        for (int k = 0; k < NW; k++)
            again[k] = w[0][NW - 1 - k];
        assert_int_equal(mw_analysis_replay(r, 0, again, NW, err, sizeof err), 0);
    }
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    return r;
}

/* the union of the phases of group (kind, name) on a channel with host h (NULL: all),
 * clipped; n returned */
static size_t group_spans(const phase *ph, const char *kind, const char *name, const char *h,
                          int64_t from, int64_t to, mw_energy_span *s)
{
    size_t n = 0;
    for (int i = 0; i < NPH; i++)
        if (!strcmp(ph[i].kind, kind) && !strcmp(ph[i].name, name) &&
            (!h || !strcmp(kind, "mw") || !strcmp(ph[i].host, h)))
            s[n++] = (mw_energy_span){ph[i].a, ph[i].b};
    n = mw_energy_spans_union(s, n);
    return mw_energy_spans_clip(s, n, from, to);
}

static void check_against_traces(const mw_analysis_run *r, mw_energy_window w[NCH][NW],
                                 const phase *ph)
{
    mw_energy_trace t[NCH];
    mw_energy_window copy[NCH][NW];
    memcpy(copy, w, sizeof copy);
    for (int c = 0; c < NCH; c++) {
        assert_int_equal(mw_energy_trace_init(&t[c], copy[c], NW, err, sizeof err), 0);
        const mw_analysis_channel *ch = &r->channels[c];
        assert_true(ch->energy_pj == mw_energy_span_pj(&t[c], r->from_ns, r->to_ns));
        assert_int_equal(ch->covered_ns, mw_energy_span_covered_ns(&t[c], r->from_ns, r->to_ns));
        size_t i0, i1;
        mw_energy_window_range(&t[c], r->from_ns, r->to_ns, &i0, &i1);
        assert_int_equal(ch->windows, i1 - i0);
        for (size_t g = 0; g < r->nphases; g++) {
            const mw_analysis_phase *p = &r->phases[g];
            mw_energy_span s[NPH];
            size_t n = group_spans(ph, p->kind, p->name, ch_host[c], r->from_ns, r->to_ns, s);
            mw_energy_pj pj;
            int64_t cov;
            mw_energy_spans_sum(&t[c], s, n, &pj, &cov);
            assert_true(p->channel_energy_pj[c] == pj);
            assert_int_equal(p->channel_covered_ns[c], cov);
            assert_int_equal(p->channel_duration_ns[c], mw_energy_spans_length_ns(s, n));
        }
    }
    for (size_t k = 0; k < r->nranks; k++) { /* h0, h1 have their channel; h2 the switch's */
        const mw_analysis_rank *rk = &r->ranks[k];
        int c = !strcmp(rk->host, "h0") ? 0 : !strcmp(rk->host, "h1") ? 1 : 2;
        assert_int_equal(rk->nchannels, 1);
        assert_int_equal(rk->channels[0], c);
        assert_true(rk->energy_pj == mw_energy_span_pj(&t[c], rk->start_ns, rk->end_ns));
    }
    for (int c = 0; c < NCH; c++)
        mw_energy_trace_free(&t[c]);
}

static void same_figures(const mw_analysis_run *a, const mw_analysis_run *b)
{
    for (size_t c = 0; c < a->nchannels; c++) {
        const mw_analysis_channel *x = &a->channels[c], *y = &b->channels[c];
        assert_true(x->energy_pj == y->energy_pj && x->meter_pj == y->meter_pj);
        assert_int_equal(x->windows, y->windows);
        assert_true(x->idle_power_w == y->idle_power_w);
        assert_true(x->kde.levels.idle_w == y->kde.levels.idle_w);
        assert_true(x->gmm.levels.work_w == y->gmm.levels.work_w);
        assert_int_equal(x->split.working_windows, y->split.working_windows);
        for (size_t g = 0; g < a->nphases; g++)
            assert_true(a->phases[g].channel_energy_pj[c] == b->phases[g].channel_energy_pj[c]);
    }
    for (size_t k = 0; k < a->nranks; k++)
        assert_true(a->ranks[k].work_energy_pj == b->ranks[k].work_energy_pj);
}

static void streaming_equals_trace(void **state)
{
    static mw_energy_window w[NCH][NW];
    phase ph[NPH];
    for (int trial = 0; trial < 30; trial++) {
        random_input(w, ph);
        mw_analysis_options o = {0};
        if (trial % 3) {
            o = (mw_analysis_options){1, 1, rnd(30000) / 1000.0, 0, NULL, 0};
            o.to_s = o.from_s + 0.001 + rnd(60000) / 1000.0;
        }
        mw_analysis_run *a = feed(w, ph, &o, 0), *b = feed(w, ph, &o, 1);
        check_against_traces(a, w, ph);
        same_figures(a, b);
        mw_analysis_free(a);
        mw_analysis_free(b);
    }
}

/* windows that are not one time series: the replay says why */
static void replay_refuses(void **state)
{
    mw_analysis_run *r = mw_analysis_new("nested", S_NS, NULL);
    assert_int_equal(mw_analysis_add_window(r, 1, S_NS, S_NS + SEC, 1000, err, sizeof err), 0);
    assert_int_equal(
        mw_analysis_add_window(r, 1, S_NS + SEC / 4, S_NS + SEC / 2, 1000, err, sizeof err), 0);
    assert_true(mw_analysis_replay_needed(r, 0));
    assert_string_equal(r->channels[0].name, "1"); /* not added: named by its number */
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), -1);
    mw_energy_window w[] = {{S_NS, S_NS + SEC, 1000}, {S_NS + SEC / 4, S_NS + SEC / 2, 1000}};
    assert_int_equal(mw_analysis_replay(r, 0, w, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "nested: channel 1: window"));
    assert_non_null(strstr(err, "lies inside"));
    mw_analysis_free(r);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void read_from_store(void **state)
{
    char tmp[] = "/tmp/mw-analysis-XXXXXX", dir[64];
    assert_non_null(mkdtemp(tmp));
    snprintf(dir, sizeof dir, "%s/run", tmp);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_meta_set(s, "start_ns", "1700000000000000000"), 0);
    assert_int_equal(mw_store_channel_add(s, 1, "node0", "n0", "A1"), 0);
    assert_int_equal(mw_store_channel_add(s, 2, "node1", "n1", "A2"), 0);
    mw_store_phase ph = {0, "n0", 0, "compute", "step", S_NS + SEC, S_NS + 3 * SEC, 0, 0, -1};
    assert_int_equal(mw_store_phase_add(s, &ph), 0);
    const int32_t p0[4] = {100000, 200000, 200000, 100000};
    int64_t e0[4] = {100000, 300000, 500000, 600000};
    for (int k = 0; k < 4; k++) {
        mw_store_sample x = {.channel = 1,
                             .segment = k < 2 ? 1 : 0,
                             .seq = (uint32_t)k,
                             .meter_t0_us = 1000000u * k,
                             .meter_t1_us = 1000000u * (k + 1),
                             .t0_ns = S_NS + k * SEC,
                             .t1_ns = S_NS + (k + 1) * SEC,
                             .power_mw = p0[k],
                             .energy_mj = e0[k]};
        assert_int_equal(mw_store_sample_add(s, &x), 0);
        x.channel = 2;
        x.segment = 0;
        x.power_mw = 50000;
        x.energy_mj = 50000 * (k + 1);
        assert_int_equal(mw_store_sample_add(s, &x), 0);
    }
    mw_store_close(s);
    mw_analysis_run *r;
    assert_int_equal(mw_analysis_read(dir, NULL, &r, err, sizeof err), 0);
    assert_string_equal(r->status, "unknown");
    assert_int_equal(r->samples, 8);
    assert_true(r->channels[0].energy_pj == PJ(600));
    assert_true(r->channels[0].meter_pj == PJ(600));
    assert_true(r->channels[1].meter_pj == PJ(200));
    assert_int_equal(r->channels[0].windows, 4);
    assert_true(group(r, "compute", "step")->channel_energy_pj[0] == PJ(400));
    assert_true(r->ranks[0].work_energy_pj == PJ(400));
    assert_string_equal(r->channels[0].meter_host, ""); /* its one meter has no host */
    assert_int_equal(r->meter_hosts, 0);
    mw_analysis_free(r);
    assert_int_equal(nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
    assert_int_equal(mw_analysis_read(tmp, NULL, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a run"));
}

/* A run merged from two meter hosts (docs/scaling.md): each channel gets the host of its own
 * meter (channel 3 of meter 2 on hB, whatever the channel numbers), the run counts 2 hosts;
 * a third meter on hA again adds no host. */
static void read_meter_hosts(void **state)
{
    char tmp[] = "/tmp/mw-analysis-XXXXXX", dir[64];
    assert_non_null(mkdtemp(tmp));
    snprintf(dir, sizeof dir, "%s/run", tmp);
    mw_store *s = mw_store_create(dir, 0, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(mw_store_meter_add(s, 1, "sim-1", "hA", "/dev/a", 0, 0), 0);
    assert_int_equal(mw_store_meter_add(s, 2, "sim-2", "hB", "/dev/b", 10, 5), 0);
    assert_int_equal(mw_store_meter_add(s, 3, "sim-3", "hA", "/dev/c", 0, 0), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 1, "hA:ch1", NULL, "A1", 1, 1), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 2, "hB:ch1", "n7", "A1", 2, 1), 0);
    assert_int_equal(mw_store_channel_add_meter(s, 3, "x", NULL, "A1", 3, 1), 0);
    for (int c = 1; c <= 3; c++) {
        mw_store_sample x = {.channel = c, .meter_t0_us = 0, .meter_t1_us = 1000000u,
                             .t0_ns = S_NS, .t1_ns = S_NS + SEC, .power_mw = 1000 * c,
                             .energy_mj = 1000 * c};
        assert_int_equal(mw_store_sample_add(s, &x), 0);
    }
    mw_store_close(s);
    mw_analysis_run *r;
    assert_int_equal(mw_analysis_read(dir, NULL, &r, err, sizeof err), 0);
    assert_int_equal(r->nchannels, 3);
    assert_string_equal(r->channels[0].meter_host, "hA");
    assert_string_equal(r->channels[1].meter_host, "hB");
    assert_string_equal(r->channels[1].host, "n7"); /* the node it measures stays apart */
    assert_string_equal(r->channels[2].meter_host, "hA");
    assert_int_equal(r->meter_hosts, 2);
    mw_analysis_free(r);
    assert_int_equal(nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* The recorder's phases: idle-before [0, 1 s), command [1, 11 s); windows of 250 ms on two
 * channels up to `upto_s`, channel 2 missing the windows of [2, 2.5 s). */
static mw_analysis_run *coverage_run(double upto_s)
{
    mw_analysis_run *r = mw_analysis_new("cov", S_NS, NULL);
    assert_int_equal(mw_analysis_add_channel(r, 1, "a", NULL, err, sizeof err), 0);
    assert_int_equal(mw_analysis_add_channel(r, 2, "b", NULL, err, sizeof err), 0);
    mw_analysis_add_phase(r, -1, "rec", "mw", "idle-before", S_NS, S_NS + SEC);
    mw_analysis_add_phase(r, -1, "rec", "mw", "command", S_NS + SEC, S_NS + 11 * SEC);
    mw_analysis_add_phase(r, 0, "rec", "compute", "x", S_NS + 2 * SEC, S_NS + 3 * SEC);
    for (int64_t a = 0; a + SEC / 4 <= (int64_t)(upto_s * 1e9); a += SEC / 4) {
        assert_int_equal(
            mw_analysis_add_window(r, 1, S_NS + a, S_NS + a + SEC / 4, 1000, err, sizeof err), 0);
        if (a < 2 * SEC || a >= 5 * SEC / 2)
            assert_int_equal(
                mw_analysis_add_window(r, 2, S_NS + a, S_NS + a + SEC / 4, 1000, err, sizeof err),
                0);
    }
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    return r;
}

static void coverage(void **state)
{
    /* the meter lost at 3 s: channel 2 (the less covered) has 3 - 0.5 s of the 11 s */
    mw_analysis_run *r = coverage_run(3);
    int64_t span, cov;
    char note[160];
    assert_int_equal(mw_analysis_coverage(r, &span, &cov, note, sizeof note), 1);
    assert_int_equal(span, 11 * SEC);
    assert_int_equal(cov, 5 * SEC / 2);
    assert_string_equal(note, "the meter covers 2.5 s of the 11.0 s run");
    mw_analysis_free(r);
    /* to the end but for channel 2's 0.5 s hole: no more than 0.5 s missing, no warning */
    r = coverage_run(11);
    assert_int_equal(mw_analysis_coverage(r, &span, &cov, note, sizeof note), 0);
    assert_int_equal(cov, 21 * SEC / 2);
    assert_string_equal(note, "");
    mw_analysis_free(r);
    /* no recorder's phases (an imported run): nothing to say */
    r = mw_analysis_new("imp", S_NS, NULL);
    assert_int_equal(mw_analysis_add_channel(r, 1, "a", NULL, err, sizeof err), 0);
    assert_int_equal(mw_analysis_add_window(r, 1, S_NS, S_NS + SEC, 1000, err, sizeof err), 0);
    assert_int_equal(mw_analysis_finish(r, err, sizeof err), 0);
    assert_int_equal(mw_analysis_coverage(r, &span, &cov, note, sizeof note), 0);
    assert_int_equal(span, 0);
    mw_analysis_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_energies),
        cmocka_unit_test(hand_ranks),
        cmocka_unit_test(hand_range_and_options),
        cmocka_unit_test(two_levels),
        cmocka_unit_test(constant_and_across_runs),
        cmocka_unit_test(streaming_equals_trace),
        cmocka_unit_test(replay_refuses),
        cmocka_unit_test(read_from_store),
        cmocka_unit_test(read_meter_hosts),
        cmocka_unit_test(coverage),
    };
    return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
