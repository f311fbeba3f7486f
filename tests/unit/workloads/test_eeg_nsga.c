/* EEG workload: NSGA-II on a subpopulation (workloads/eeg/nsga.c) against answers known
 * independently of its code.
 *
 * - eeg_nds against brute-force front peeling (front k = the points no remaining point
 *   dominates, O(n²) per front) on random sets, most on small integer lattices so that ties
 *   in one objective and repeated points are common; the number of fronts too.
 * - eeg_crowding on a five-point front worked by hand (range 8 in both objectives, so the
 *   values are exact), given as a shuffled subset of a larger array (only crowd[idx[k]]
 *   may change).
 * - Operators, seen through the offspring handed to the eval function: no crossover and no
 *   mutation → every child is a copy of a parent; mutation probability 1 → every child is
 *   exactly one bit from a parent; crossover probability 1 on a population of all-zero and
 *   all-one masks → children of mixed pairs have Binomial(128, 1/2) bits and come with
 *   their complement; binary tournament on a chain of fronts picks the best member with
 *   probability 1 − (1 − 1/m)² ≈ 0.19 (0.2 without replacement; uniform choice would give
 *   0.1) and the worst (or, on one front, the least crowded) ≤ 1/m²; initial density.
 * - Evolution on a problem whose Pareto set is known: f1 = |mask|/F (minimised), f2 = the
 *   share of the first K features selected (maximised). A mask is Pareto-optimal iff it
 *   selects nothing outside the first K, and the optimal objective vectors are
 *   (c/F, c/K), c = 0 … K. m = 40, F = 70 (two words), K = 10, 150 generations, p_cross
 *   0.75, p_mut 0.25 (at 0.025 one mutation per generation rarely removes a feature that
 *   has spread to every member, by design of the one-bit mutation). Every generation: tail
 *   bits clear, stored objectives equal the evaluation of the stored masks, ranks equal
 *   brute-force peeling, the survivors are the best fronts of parents + offspring (Deb's
 *   elitist truncation, checked by peeling the union), min f1 never rises and max f2 never
 *   falls; at the end most members are Pareto-optimal and most optimal vectors are found.
 * - Determinism of eeg_rng_seed (same triple → same stream and evolution, other subpop /
 *   epoch / seed → different); emigrants and immigrants on a hand-ranked population;
 *   pack/unpack round trip and header mismatches. */
#include "../unit.h"

#include <gsl/gsl_rng.h>

#include "../../../workloads/eeg/nsga.h"

/* |got − want| ≤ tol, with both values in the message (NaN fails) */
#define assert_close(got, want, tol)                                                               \
    do {                                                                                           \
        double got_ = (got), want_ = (want);                                                       \
        if (!(fabs(got_ - want_) <= (tol)))                                                        \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #got, got_, want_,               \
                     (double)(tol));                                                               \
    } while (0)

static int dominates(double a1, double a2, double b1, double b2)
{
    return a1 <= b1 && a2 >= b2 && (a1 < b1 || a2 > b2);
}

/* front peeling: returns the number of fronts */
static int peel(const double *f1, const double *f2, int n, int *rank)
{
    for (int i = 0; i < n; i++)
        rank[i] = -1;
    int left = n, front = 0;
    while (left > 0) {
        int *now = malloc((size_t)n * sizeof *now), k = 0;
        assert_non_null(now);
        for (int i = 0; i < n; i++) {
            if (rank[i] >= 0) continue;
            int dom = 0;
            for (int j = 0; j < n && !dom; j++)
                if (rank[j] < 0 && dominates(f1[j], f2[j], f1[i], f2[i])) dom = 1;
            if (!dom) now[k++] = i;
        }
        for (int i = 0; i < k; i++)
            rank[now[i]] = front;
        left -= k;
        front++;
        free(now);
    }
    return front;
}

static void nds_random(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    enum { NMAX = 160 };
    double f1[NMAX], f2[NMAX];
    int got[NMAX], want[NMAX];
    assert_int_equal(eeg_nds(f1, f2, 0, got), 0);
    for (int t = 0; t < 400; t++) {
        int n = 1 + (int)gsl_rng_uniform_int(r, NMAX);
        unsigned long L = 1 + gsl_rng_uniform_int(r, 9);
        for (int i = 0; i < n; i++) {
            if (t % 5 == 4) {
                f1[i] = gsl_rng_uniform(r);
                f2[i] = gsl_rng_uniform(r);
            } else {
                f1[i] = (double)gsl_rng_uniform_int(r, L);
                f2[i] = (double)gsl_rng_uniform_int(r, L);
            }
        }
        int fw = peel(f1, f2, n, want), fg = eeg_nds(f1, f2, n, got);
        assert_int_equal(fg, fw);
        for (int i = 0; i < n; i++)
            if (got[i] != want[i])
                fail_msg("trial %d, point %d (%g, %g): front %d, expected %d", t, i, f1[i], f2[i],
                         got[i], want[i]);
    }
    /* a chain: each point dominated by the previous one */
    double c1[] = {0, 1, 2, 3}, c2[] = {3, 2, 1, 0};
    assert_int_equal(eeg_nds(c1, c2, 4, got), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(got[i], i);
    gsl_rng_free(r);
}

static void crowding_by_hand(void **state)
{
    (void)state;
    /* front A(0,0) B(1,2) C(3,3) D(4,7) E(8,8) (f1 and f2 grow together along a front); both
     * ranges 8. B: (3−0)/8 + (3−0)/8 = 0.75; C: (4−1)/8 + (7−2)/8 = 1; D: (8−3)/8 + (8−3)/8
     * = 1.25; A, E infinite. Stored at positions 6, 2, 0, 4, 5 among 8 points; 1, 3, 7 are
     * not in idx and keep their values. */
    double f1[8] = {3, 99, 1, 99, 4, 8, 0, 99}, f2[8] = {3, -5, 2, -5, 7, 8, 0, -5};
    double crowd[8];
    for (int i = 0; i < 8; i++)
        crowd[i] = -42.0;
    int idx[] = {4, 0, 6, 5, 2};
    eeg_crowding(f1, f2, idx, 5, crowd);
    assert_true(isinf(crowd[6]) && crowd[6] > 0);
    assert_true(isinf(crowd[5]) && crowd[5] > 0);
    assert_close(crowd[2], 0.75, 1e-15);
    assert_close(crowd[0], 1.0, 1e-15);
    assert_close(crowd[4], 1.25, 1e-15);
    assert_close(crowd[1], -42.0, 0);
    assert_close(crowd[3], -42.0, 0);
    assert_close(crowd[7], -42.0, 0);
    /* two points: both extremes */
    int two[] = {2, 4};
    eeg_crowding(f1, f2, two, 2, crowd);
    assert_true(isinf(crowd[2]) && isinf(crowd[4]));
}

/* ---- a problem with a known Pareto set ------------------------------------------------- */

typedef struct {
    int features, words, K;
    /* offspring seen (every mask handed to eval while capturing) */
    int capture, n_seen, cap_seen;
    uint64_t *seen;
    int calls;
} problem;

static int popcount_mask(const uint64_t *m, int words)
{
    int c = 0;
    for (int w = 0; w < words; w++)
        c += __builtin_popcountll(m[w]);
    return c;
}

static int first_k(const uint64_t *m, int K)
{
    int c = 0;
    for (int f = 0; f < K; f++)
        c += (int)(m[f / 64] >> (f % 64) & 1);
    return c;
}

static void problem_eval(void *ctx, const uint64_t *masks, int n, double *f1, double *f2)
{
    problem *pb = ctx;
    pb->calls++;
    for (int i = 0; i < n; i++) {
        const uint64_t *m = masks + (size_t)i * (size_t)pb->words;
        f1[i] = (double)popcount_mask(m, pb->words) / pb->features;
        f2[i] = (double)first_k(m, pb->K) / pb->K;
    }
    if (pb->capture) {
        if (pb->n_seen + n > pb->cap_seen) {
            pb->cap_seen = 2 * (pb->n_seen + n);
            pb->seen = realloc(pb->seen, (size_t)pb->cap_seen * (size_t)pb->words * 8);
            assert_non_null(pb->seen);
        }
        memcpy(pb->seen + (size_t)pb->n_seen * (size_t)pb->words, masks,
               (size_t)n * (size_t)pb->words * 8);
        pb->n_seen += n;
    }
}

static uint64_t tail_mask(int features)
{
    return features % 64 ? (UINT64_C(1) << (features % 64)) - 1 : ~UINT64_C(0);
}

static const uint64_t *member(const eeg_pop *p, int i)
{
    return p->mask + (size_t)i * (size_t)p->words;
}

/* stored masks valid, objectives = evaluation, ranks = peeling */
static void check_population(const eeg_pop *p, const problem *pb)
{
    uint64_t tail = tail_mask(p->features);
    int *want = malloc((size_t)p->m * sizeof *want);
    assert_non_null(want);
    for (int i = 0; i < p->m; i++) {
        const uint64_t *m = member(p, i);
        assert_true((m[p->words - 1] & ~tail) == 0);
        assert_close(p->f1[i], (double)popcount_mask(m, p->words) / pb->features, 0);
        assert_close(p->f2[i], (double)first_k(m, pb->K) / pb->K, 0);
    }
    peel(p->f1, p->f2, p->m, want);
    for (int i = 0; i < p->m; i++)
        assert_int_equal(p->rank[i], want[i]);
    free(want);
}

/* survivors = the best fronts of parents + offspring: every member of a front wholly
 * inside the first m is kept, nothing from a later front than the one that is cut */
static void check_survival(const eeg_pop *before, const eeg_pop *after, const problem *pb)
{
    int m = before->m, w = before->words, n = m + pb->n_seen;
    assert_int_equal(pb->n_seen, m);
    uint64_t *mask = malloc((size_t)n * (size_t)w * 8);
    double *f1 = malloc((size_t)n * sizeof *f1), *f2 = malloc((size_t)n * sizeof *f2);
    int *rank = malloc((size_t)n * sizeof *rank), *used = calloc((size_t)n, sizeof *used);
    assert_true(mask && f1 && f2 && rank && used);
    memcpy(mask, before->mask, (size_t)m * (size_t)w * 8);
    memcpy(mask + (size_t)m * (size_t)w, pb->seen, (size_t)m * (size_t)w * 8);
    for (int i = 0; i < n; i++) {
        const uint64_t *mk = mask + (size_t)i * (size_t)w;
        f1[i] = (double)popcount_mask(mk, w) / pb->features;
        f2[i] = (double)first_k(mk, pb->K) / pb->K;
    }
    int fronts = peel(f1, f2, n, rank);
    int last = 0, cum = 0;
    for (last = 0; last < fronts; last++) {
        int c = 0;
        for (int i = 0; i < n; i++)
            c += rank[i] == last;
        if (cum + c >= m) break;
        cum += c;
    }
    /* match every survivor to an unused member of the union with the same mask */
    int below = 0;
    for (int s = 0; s < m; s++) {
        int found = -1;
        for (int i = 0; i < n && found < 0; i++)
            if (!used[i] &&
                memcmp(mask + (size_t)i * (size_t)w, member(after, s), (size_t)w * 8) == 0)
                found = i;
        assert_true(found >= 0);
        used[found] = 1;
        assert_true(rank[found] <= last);
        below += rank[found] < last;
    }
    assert_int_equal(below, cum);
    free(mask);
    free(f1);
    free(f2);
    free(rank);
    free(used);
}

static void evolution_known_front(void **state)
{
    (void)state;
    enum { M = 40, F = 70, K = 10, GENS = 150 };
    problem pb = {.features = F, .words = (F + 63) / 64, .K = K};
    eeg_params par = {.p_cross = 0.75, .p_mut = 0.25, .density = 0.5};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_pop p, before;
    assert_int_equal(eeg_pop_alloc(&p, 3, M, F), 0);
    assert_int_equal(eeg_pop_alloc(&before, 3, M, F), 0);
    assert_int_equal(p.words, 2);
    eeg_rng_seed(r, 5, 3, 0);
    eeg_pop_init(&p, par.density, r);
    eeg_pop_evaluate(&p, problem_eval, &pb);
    check_population(&p, &pb);

    double min_f1 = 2, max_f2 = -1, waste0 = 0;
    for (int i = 0; i < M; i++) {
        min_f1 = fmin(min_f1, p.f1[i]);
        max_f2 = fmax(max_f2, p.f2[i]);
        waste0 += popcount_mask(member(&p, i), p.words) - first_k(member(&p, i), K);
    }
    pb.capture = 1;
    for (int g = 0; g < GENS; g++) {
        eeg_pop_copy(&before, &p);
        pb.n_seen = 0;
        eeg_pop_generation(&p, &par, r, problem_eval, &pb);
        check_population(&p, &pb);
        check_survival(&before, &p, &pb);
        double lo = 2, hi = -1;
        for (int i = 0; i < M; i++) {
            lo = fmin(lo, p.f1[i]);
            hi = fmax(hi, p.f2[i]);
        }
        assert_true(lo <= min_f1 && hi >= max_f2);
        min_f1 = lo;
        max_f2 = hi;
    }
    int optimal = 0, found[K + 1] = {0}, n_found = 0;
    double waste = 0;
    for (int i = 0; i < M; i++) {
        int c = popcount_mask(member(&p, i), p.words), k = first_k(member(&p, i), K);
        waste += c - k;
        if (c == k) {
            optimal++;
            n_found += !found[c];
            found[c] = 1;
        }
    }
    print_message("known front: mean bits outside the first K %.1f → %.2f; %d/%d members "
                  "Pareto-optimal, %d/%d optimal vectors found\n",
                  waste0 / M, waste / M, optimal, M, n_found, K + 1);
    assert_true(waste0 / M > 20);
    assert_true(waste / M < 0.5);
    assert_true(optimal >= 3 * M / 4);
    assert_true(n_found >= 9);
    assert_true(min_f1 == 0.0 && max_f2 == 1.0);
    free(pb.seen);
    eeg_pop_free(&p);
    eeg_pop_free(&before);
    gsl_rng_free(r);
}

/* an odd m and features a multiple of 64: still m offspring, valid masks */
static void odd_population(void **state)
{
    (void)state;
    problem pb = {.features = 128, .words = 2, .K = 5, .capture = 1};
    eeg_params par = {.p_cross = 0.9, .p_mut = 0.5, .density = 0.3};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_pop p, before;
    assert_int_equal(eeg_pop_alloc(&p, 0, 7, 128), 0);
    assert_int_equal(eeg_pop_alloc(&before, 0, 7, 128), 0);
    eeg_rng_seed(r, 1, 0, 0);
    eeg_pop_init(&p, par.density, r);
    eeg_pop_evaluate(&p, problem_eval, &pb);
    for (int g = 0; g < 20; g++) {
        eeg_pop_copy(&before, &p);
        pb.n_seen = 0;
        eeg_pop_generation(&p, &par, r, problem_eval, &pb);
        check_population(&p, &pb);
        check_survival(&before, &p, &pb);
    }
    free(pb.seen);
    eeg_pop_free(&p);
    eeg_pop_free(&before);
    gsl_rng_free(r);
}

static void init_density(void **state)
{
    (void)state;
    enum { M = 40, F = 70 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_pop p;
    assert_int_equal(eeg_pop_alloc(&p, 0, M, F), 0);
    eeg_rng_seed(r, 9, 0, 0);
    eeg_pop_init(&p, 0.0, r);
    for (int i = 0; i < M; i++)
        assert_int_equal(popcount_mask(member(&p, i), p.words), 0);
    eeg_pop_init(&p, 1.0, r);
    for (int i = 0; i < M; i++) {
        assert_int_equal(popcount_mask(member(&p, i), p.words), F);
        assert_true(member(&p, i)[1] == tail_mask(F));
    }
    /* 2,800 bits at 0.3: sd √(2800·0.21)/2800 = 0.87 %, tolerance 5 sd */
    eeg_pop_init(&p, 0.3, r);
    long bits = 0;
    for (int i = 0; i < M; i++) {
        bits += popcount_mask(member(&p, i), p.words);
        assert_true((member(&p, i)[1] & ~tail_mask(F)) == 0);
    }
    assert_close((double)bits / (M * F), 0.3, 5 * sqrt(0.21 / (M * F)));
    eeg_pop_free(&p);
    gsl_rng_free(r);
}

/* ---- operators ----------------------------------------------------------------------- */

/* objectives from a table indexed by the low byte of the first word */
typedef struct {
    double f1[256], f2[256];
    int words, n_seen;
    uint64_t seen[64 * 4];
} table;

static void table_eval(void *ctx, const uint64_t *masks, int n, double *f1, double *f2)
{
    table *t = ctx;
    for (int i = 0; i < n; i++) {
        const uint64_t *m = masks + (size_t)i * (size_t)t->words;
        f1[i] = t->f1[m[0] & 0xff];
        f2[i] = t->f2[m[0] & 0xff];
        if (t->n_seen < 64 && t->words <= 4)
            memcpy(t->seen + (size_t)t->n_seen++ * (size_t)t->words, m, (size_t)t->words * 8);
    }
}

/* how often each member (mask id = index) is copied into the offspring over `trials`
 * generations from the same population, with no crossover and no mutation */
static void copy_counts(const eeg_pop *tmpl, table *t, int trials, long *count)
{
    eeg_params par = {.p_cross = 0.0, .p_mut = 0.0, .density = 0.5};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_pop p;
    assert_int_equal(eeg_pop_alloc(&p, 0, tmpl->m, tmpl->features), 0);
    for (int i = 0; i < tmpl->m; i++)
        count[i] = 0;
    for (int k = 0; k < trials; k++) {
        eeg_pop_copy(&p, tmpl);
        eeg_rng_seed(r, 100, 0, k);
        t->n_seen = 0;
        eeg_pop_generation(&p, &par, r, table_eval, t);
        assert_int_equal(t->n_seen, tmpl->m);
        for (int j = 0; j < t->n_seen; j++) {
            uint64_t id = t->seen[j];
            assert_true(id < (uint64_t)tmpl->m); /* a copy of a parent */
            count[id]++;
        }
    }
    eeg_pop_free(&p);
    gsl_rng_free(r);
}

static void tournament_selection(void **state)
{
    (void)state;
    enum { M = 10, TRIALS = 1000 };
    table t = {.words = 1};
    eeg_pop p;
    long count[M];
    const double draws = (double)M * TRIALS;
    assert_int_equal(eeg_pop_alloc(&p, 0, M, 8), 0);
    /* a chain: member i has objectives (i, −i) and lies alone on front i; stored out of
     * order so that the best is not member 0 */
    const int chain[M] = {4, 7, 0, 9, 2, 5, 1, 8, 3, 6};
    for (int i = 0; i < M; i++) {
        p.mask[i] = (uint64_t)i;
        t.f1[i] = chain[i];
        t.f2[i] = -chain[i];
    }
    eeg_pop_evaluate(&p, table_eval, &t);
    for (int i = 0; i < M; i++)
        assert_int_equal(p.rank[i], chain[i]);
    copy_counts(&p, &t, TRIALS, count);
    /* best (member 2): 0.19 (with replacement) or 0.2; sd √(0.19·0.81/10⁴) = 0.004 */
    print_message("tournament on a chain: best member chosen %.3f, worst %.4f\n", count[2] / draws,
                  count[3] / draws);
    assert_true(count[2] / draws > 0.17 && count[2] / draws < 0.22);
    assert_true(count[3] / draws < 0.02); /* worst (front 9): ≤ 1/m² = 0.01 */

    /* one front: (0,0) (1,1) (2,2) (3,3) (4,4) (4.1,4.1) (4.2,4.2) (7,7) (8,8) (9,9); the
     * point at 4.1 has crowding 2·0.2/9 ≈ 0.044, every other ≥ 2·1.1/9: the least crowded */
    const double pos[M] = {0, 1, 2, 3, 4, 4.1, 4.2, 7, 8, 9};
    for (int i = 0; i < M; i++) {
        t.f1[i] = pos[chain[i]];
        t.f2[i] = pos[chain[i]];
    }
    eeg_pop_evaluate(&p, table_eval, &t);
    for (int i = 0; i < M; i++)
        assert_int_equal(p.rank[i], 0);
    copy_counts(&p, &t, TRIALS, count);
    int least = 0; /* the member at 4.1: chain value 5 */
    for (int i = 0; i < M; i++)
        if (chain[i] == 5) least = i;
    print_message("tournament on one front: least crowded chosen %.4f\n", count[least] / draws);
    assert_true(count[least] / draws < 0.02);
    eeg_pop_free(&p);
}

static int hamming(const uint64_t *a, const uint64_t *b, int words)
{
    int d = 0;
    for (int w = 0; w < words; w++)
        d += __builtin_popcountll(a[w] ^ b[w]);
    return d;
}

static void mutation_one_bit(void **state)
{
    (void)state;
    enum { M = 12, F = 100, TRIALS = 200 };
    problem pb = {.features = F, .words = 2, .K = 10, .capture = 1};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_pop tmpl, p;
    assert_int_equal(eeg_pop_alloc(&tmpl, 0, M, F), 0);
    assert_int_equal(eeg_pop_alloc(&p, 0, M, F), 0);
    /* member i selects features 8i … 8i+7: parents are 16 bits apart, so a child one bit
     * from a parent has exactly one parent within distance 1 */
    for (int i = 0; i < M; i++)
        for (int f = 8 * i; f < 8 * i + 8; f++)
            tmpl.mask[(size_t)i * 2 + (size_t)(f / 64)] |= UINT64_C(1) << (f % 64);
    eeg_pop_evaluate(&tmpl, problem_eval, &pb);
    long flips_high = 0, flips_word1 = 0, mutated = 0, children = 0;
    for (int pm = 0; pm < 2; pm++) {
        eeg_params par = {.p_cross = 0.0, .p_mut = pm ? 1.0 : 0.5, .density = 0.5};
        for (int k = 0; k < TRIALS; k++) {
            eeg_pop_copy(&p, &tmpl);
            eeg_rng_seed(r, 7, pm, k);
            pb.n_seen = 0;
            eeg_pop_generation(&p, &par, r, problem_eval, &pb);
            assert_int_equal(pb.n_seen, M);
            for (int j = 0; j < M; j++) {
                const uint64_t *c = pb.seen + (size_t)j * 2;
                assert_true((c[1] & ~tail_mask(F)) == 0);
                int best = F, near = -1;
                for (int i = 0; i < M; i++) {
                    int d = hamming(c, member(&tmpl, i), 2);
                    if (d < best) {
                        best = d;
                        near = i;
                    }
                }
                if (pm == 1) {
                    assert_int_equal(best, 1);
                    /* the flipped bit */
                    const uint64_t *par_m = member(&tmpl, near);
                    int bit = c[0] != par_m[0] ? __builtin_ctzll(c[0] ^ par_m[0])
                                               : 64 + __builtin_ctzll(c[1] ^ par_m[1]);
                    assert_true(bit < F);
                    flips_high += bit >= 96; /* features no parent selects */
                    flips_word1 += bit >= 64;
                } else {
                    assert_true(best <= 1);
                    mutated += best;
                    children++;
                }
            }
        }
    }
    /* p_mut 0.5: share of mutated children 0.5 ± 5·√(0.25/2400) */
    print_message("mutation: share of children mutated at p_mut 0.5: %.3f\n",
                  (double)mutated / children);
    assert_close((double)mutated / children, 0.5, 5 * sqrt(0.25 / children));
    /* 2,400 flips uniform over 100 features: 36 % in the second word (sd 1 %), 4 % on
     * features 96 … 99, which no parent selects */
    assert_close((double)flips_word1 / (M * TRIALS), 0.36, 0.05);
    assert_close((double)flips_high / (M * TRIALS), 0.04, 0.02);
    free(pb.seen);
    eeg_pop_free(&tmpl);
    eeg_pop_free(&p);
    gsl_rng_free(r);
}

static void crossover_uniform(void **state)
{
    (void)state;
    enum { M = 20, F = 128 };
    problem pb = {.features = F, .words = 2, .K = 64, .capture = 1};
    eeg_params par = {.p_cross = 1.0, .p_mut = 0.0, .density = 0.5};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_pop tmpl, p;
    assert_int_equal(eeg_pop_alloc(&tmpl, 0, M, F), 0);
    assert_int_equal(eeg_pop_alloc(&p, 0, M, F), 0);
    /* even members select nothing, odd members everything: (0, 0) and (1, 1), one front */
    for (int i = 1; i < M; i += 2)
        tmpl.mask[2 * i] = tmpl.mask[2 * i + 1] = ~UINT64_C(0);
    eeg_pop_evaluate(&tmpl, problem_eval, &pb);
    long mixed = 0, bits = 0;
    /* a mixed child has Binomial(128, 1/2) bits: 64 ± 5.66; allow 6 sd */
    const double sd = sqrt(F * 0.25);
    for (int k = 0; k < 100; k++) {
        eeg_pop_copy(&p, &tmpl);
        eeg_rng_seed(r, 3, 0, k);
        pb.n_seen = 0;
        eeg_pop_generation(&p, &par, r, problem_eval, &pb);
        for (int j = 0; j < M; j++) {
            const uint64_t *c = pb.seen + (size_t)j * 2;
            int n = popcount_mask(c, 2);
            if (n == 0 || n == F) continue;
            mixed++;
            bits += n;
            assert_true(fabs(n - F / 2.0) <= 6 * sd);
            /* its complement is among the offspring */
            int comp = 0;
            for (int i = 0; i < M && !comp; i++)
                comp = pb.seen[2 * i] == ~c[0] && pb.seen[2 * i + 1] == ~c[1];
            assert_true(comp);
        }
    }
    print_message("crossover: %ld mixed children, mean %.2f bits of %d\n", mixed,
                  (double)bits / mixed, F);
    assert_true(mixed > 200);
    assert_close((double)bits / mixed, F / 2.0, 5 * sd / sqrt((double)mixed));
    free(pb.seen);
    eeg_pop_free(&tmpl);
    eeg_pop_free(&p);
    gsl_rng_free(r);
}

/* ---- determinism ------------------------------------------------------------------------- */

static void rng_streams(void **state)
{
    (void)state;
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(gsl_rng_mt19937);
    const int triples[][3] = {{1, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}, {1, 1, 1}};
    unsigned long first[5][8];
    for (int t = 0; t < 5; t++) {
        eeg_rng_seed(a, (uint64_t)triples[t][0], triples[t][1], triples[t][2]);
        eeg_rng_seed(b, (uint64_t)triples[t][0], triples[t][1], triples[t][2]);
        for (int k = 0; k < 1000; k++) {
            unsigned long x = gsl_rng_get(a);
            assert_true(x == gsl_rng_get(b));
            if (k < 8) first[t][k] = x;
        }
    }
    for (int s = 0; s < 5; s++)
        for (int t = s + 1; t < 5; t++)
            assert_true(memcmp(first[s], first[t], sizeof first[s]) != 0);
    gsl_rng_free(a);
    gsl_rng_free(b);
}

static void evolve(eeg_pop *p, uint64_t seed, int subpop, problem *pb)
{
    eeg_params par = {.p_cross = 0.75, .p_mut = 0.025, .density = 0.2};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_rng_seed(r, seed, subpop, 0);
    eeg_pop_init(p, par.density, r);
    eeg_pop_evaluate(p, problem_eval, pb);
    for (int g = 0; g < 10; g++)
        eeg_pop_generation(p, &par, r, problem_eval, pb);
    gsl_rng_free(r);
}

static void evolution_deterministic(void **state)
{
    (void)state;
    enum { M = 24, F = 150 };
    problem pb = {.features = F, .words = 3, .K = 20};
    eeg_pop a, b, c;
    assert_int_equal(eeg_pop_alloc(&a, 1, M, F), 0);
    assert_int_equal(eeg_pop_alloc(&b, 1, M, F), 0);
    assert_int_equal(eeg_pop_alloc(&c, 2, M, F), 0);
    evolve(&a, 42, 1, &pb);
    evolve(&b, 42, 1, &pb);
    evolve(&c, 42, 2, &pb);
    size_t mb = (size_t)M * 3 * sizeof(uint64_t), db = (size_t)M * sizeof(double);
    assert_memory_equal(a.mask, b.mask, mb);
    assert_memory_equal(a.f1, b.f1, db);
    assert_memory_equal(a.f2, b.f2, db);
    assert_memory_equal(a.rank, b.rank, (size_t)M * sizeof(int));
    assert_true(memcmp(a.mask, c.mask, mb) != 0);
    eeg_pop_free(&a);
    eeg_pop_free(&b);
    eeg_pop_free(&c);
}

/* ---- migration ----------------------------------------------------------------------------- */

/* front 0: A(0,0) B(1,2) C(3,3) D(4,7) E(8,8), crowding ∞, 0.75, 1, 1.25, ∞ (see
 * crowding_by_hand); front 1: P(2,1) (dominated by B), Q(5,5), R(6,6) (by D), crowding ∞,
 * (6−2)/4 + (6−1)/5 = 2, ∞. Members: 0 C, 1 P, 2 E, 3 Q, 4 B, 5 R, 6 A, 7 D; mask = 100 +
 * member. */
static void hand_population(eeg_pop *p)
{
    const double f1[8] = {3, 2, 8, 5, 1, 6, 0, 4}, f2[8] = {3, 1, 8, 5, 2, 6, 0, 7};
    for (int i = 0; i < 8; i++) {
        p->mask[i] = 100 + (uint64_t)i;
        p->f1[i] = f1[i];
        p->f2[i] = f2[i];
    }
    eeg_pop_rank(p);
}

static void emigrants(void **state)
{
    (void)state;
    eeg_pop p;
    assert_int_equal(eeg_pop_alloc(&p, 0, 8, 10), 0);
    hand_population(&p);
    const int ranks[8] = {0, 1, 0, 1, 0, 1, 0, 0};
    for (int i = 0; i < 8; i++)
        assert_int_equal(p.rank[i], ranks[i]);
    assert_close(p.crowd[4], 0.75, 1e-15);
    assert_close(p.crowd[3], 2.0, 1e-15);
    /* by decreasing crowding, then index: E(2) ∞, A(6) ∞, D(7) 1.25, C(0) 1, B(4) 0.75 */
    const int want[5] = {2, 6, 7, 0, 4};
    int idx[8];
    assert_int_equal(eeg_pop_emigrants(&p, 8, idx), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(idx[i], want[i]);
    /* at most max: an array of exactly max entries suffices */
    int *few = malloc(3 * sizeof *few);
    assert_non_null(few);
    assert_int_equal(eeg_pop_emigrants(&p, 3, few), 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(few[i], want[i]);
    free(few);
    eeg_pop_free(&p);
}

static void immigrate(void **state)
{
    (void)state;
    eeg_pop p;
    assert_int_equal(eeg_pop_alloc(&p, 0, 8, 10), 0);
    /* worst first: Q(3) (front 1, crowding 2), then R(5), P(1) (∞, higher index first), then
     * B(4) (front 0, 0.75) */
    const int worst[4] = {3, 5, 1, 4};
    for (int n = 1; n <= 4; n++) {
        hand_population(&p);
        uint64_t in_mask[4] = {900, 901, 902, 903};
        /* immigrants all dominated by everything but distinct: (9+k, −1−k) */
        double in_f1[4] = {9, 10, 11, 12}, in_f2[4] = {-1, -2, -3, -4};
        eeg_pop_immigrate(&p, in_mask, in_f1, in_f2, n);
        /* as multisets: the old members minus the n worst, plus the immigrants */
        int old_seen[8] = {0}, new_seen[4] = {0};
        for (int i = 0; i < 8; i++) {
            uint64_t m = p.mask[i];
            if (m >= 900) {
                int k = (int)(m - 900);
                assert_true(k < n);
                assert_close(p.f1[i], in_f1[k], 0);
                assert_close(p.f2[i], in_f2[k], 0);
                new_seen[k]++;
            } else {
                int k = (int)(m - 100);
                assert_true(k >= 0 && k < 8);
                old_seen[k]++;
            }
        }
        for (int k = 0; k < n; k++)
            assert_int_equal(new_seen[k], 1);
        for (int k = 0; k < 8; k++) {
            int gone = 0;
            for (int j = 0; j < n; j++)
                gone |= worst[j] == k;
            assert_int_equal(old_seen[k], !gone);
        }
        /* re-ranked */
        int want[8];
        peel(p.f1, p.f2, 8, want);
        for (int i = 0; i < 8; i++)
            assert_int_equal(p.rank[i], want[i]);
    }
    eeg_pop_free(&p);
}

/* ---- bytes ---------------------------------------------------------------------------------- */

static void pack_unpack(void **state)
{
    (void)state;
    enum { M = 9, F = 130 };
    problem pb = {.features = F, .words = 3, .K = 7};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    eeg_pop a, b, wrong_m, wrong_f;
    assert_int_equal(eeg_pop_alloc(&a, 4, M, F), 0);
    assert_int_equal(eeg_pop_alloc(&b, 4, M, F), 0);
    assert_int_equal(eeg_pop_alloc(&wrong_m, 4, M + 1, F), 0);
    assert_int_equal(eeg_pop_alloc(&wrong_f, 4, M, F + 1), 0); /* same words, other features */
    eeg_rng_seed(r, 8, 4, 2);
    eeg_pop_init(&a, 0.4, r);
    eeg_pop_evaluate(&a, problem_eval, &pb);
    size_t len = eeg_pop_bytes(M, F);
    /* at least the masks and both objectives */
    assert_true(len >= (size_t)M * (3 * sizeof(uint64_t) + 2 * sizeof(double)));
    unsigned char *buf = malloc(len);
    assert_non_null(buf);
    eeg_pop_pack(&a, buf);
    assert_int_equal(eeg_pop_unpack(&b, buf, len), 0);
    assert_memory_equal(a.mask, b.mask, (size_t)M * 3 * sizeof(uint64_t));
    assert_memory_equal(a.f1, b.f1, (size_t)M * sizeof(double));
    assert_memory_equal(a.f2, b.f2, (size_t)M * sizeof(double));
    assert_int_equal(eeg_pop_unpack(&wrong_m, buf, len), -1);
    assert_int_equal(eeg_pop_unpack(&wrong_f, buf, len), -1);
    assert_int_equal(eeg_pop_unpack(&b, buf, len - 1), -1);
    assert_int_equal(eeg_pop_unpack(&b, buf, 0), -1);
    free(buf);
    eeg_pop_free(&a);
    eeg_pop_free(&b);
    eeg_pop_free(&wrong_m);
    eeg_pop_free(&wrong_f);
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nds_random),       cmocka_unit_test(crowding_by_hand),
        cmocka_unit_test(init_density),     cmocka_unit_test(evolution_known_front),
        cmocka_unit_test(odd_population),   cmocka_unit_test(tournament_selection),
        cmocka_unit_test(mutation_one_bit), cmocka_unit_test(crossover_uniform),
        cmocka_unit_test(rng_streams),      cmocka_unit_test(evolution_deterministic),
        cmocka_unit_test(emigrants),        cmocka_unit_test(immigrate),
        cmocka_unit_test(pack_unpack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
