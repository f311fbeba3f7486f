/* nsga.h — NSGA-II on one subpopulation of feature masks (Escobar et al. §3, Table 4; Deb et
 * al. 2002): binary tournament on (rank, crowding), uniform crossover, bit-inversion
 * mutation, fast non-dominated sorting with crowding distance, elitist (μ + λ) survival.
 *
 * Objectives: f1 minimised, f2 maximised (fitness.h). a dominates b when a.f1 ≤ b.f1 and
 * a.f2 ≥ b.f2 with one strict. Non-dominated sorting uses the two-objective sweep (sort by
 * f1, then f2 descending; each point joins the first front none of whose members dominates
 * it, found by binary search): O(n log n), exactly Deb's fronts.
 *
 * Reading decisions (Table 4 gives only the kind and probability of each operator):
 * crossover happens for a pair with probability p_cross and then takes each bit from
 * either parent with probability 1/2 (the two children are complementary); mutation hits a
 * child with probability p_mut and then inverts one uniformly chosen bit — a per-bit rate
 * of 0.025 would add ~90 random features to every child of a 3,600-feature mask and
 * swamp the selection. Initial masks select each feature with probability `density`.
 *
 * Determinism: every random draw comes from the gsl_rng the caller passes; eeg_rng_seed
 * derives a stream from (seed, subpopulation, epoch), so a subpopulation evolves the same
 * wherever and whenever it is evolved. Ties in every sort are broken by index. */
#ifndef EEG_NSGA_H
#define EEG_NSGA_H
#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

typedef struct eeg_params {
    double p_cross; /* probability a pair is crossed (0.75) */
    double p_mut;   /* probability a child is mutated (0.025) */
    double density; /* probability an initial mask selects a feature */
} eeg_params;

/* A subpopulation: m members, each a mask of `features` bits in `words` uint64 words, with
 * its objectives and, after eeg_pop_rank, its front (0 = non-dominated) and crowding. */
typedef struct eeg_pop {
    int id, m, features, words;
    int evaluated;  /* 0 until eeg_pop_evaluate: f1, f2, rank, crowd mean nothing before */
    uint64_t *mask; /* m × words */
    double *f1, *f2, *crowd;
    int *rank;
} eeg_pop;

/* Evaluates n masks (n × words contiguous) into f1, f2. */
typedef void (*eeg_eval_fn)(void *ctx, const uint64_t *masks, int n, double *f1, double *f2);

int eeg_pop_alloc(eeg_pop *p, int id, int m, int features); /* 0 or −1 (no memory) */
void eeg_pop_free(eeg_pop *p);
void eeg_pop_copy(eeg_pop *dst, const eeg_pop *src);       /* same m and features */
void eeg_pop_init(eeg_pop *p, double density, gsl_rng *r); /* random masks, not evaluated */
/* Evaluates every member, then ranks. */
void eeg_pop_evaluate(eeg_pop *p, eeg_eval_fn eval, void *ctx);
/* Fronts and crowding of the current members. */
void eeg_pop_rank(eeg_pop *p);
/* One generation: m offspring by tournament, crossover and mutation, evaluated with eval,
 * then the best m of parents + offspring survive (ranked). */
void eeg_pop_generation(eeg_pop *p, const eeg_params *par, gsl_rng *r, eeg_eval_fn eval, void *ctx);
/* Emigrants: the members of front 0, by decreasing crowding (then index), at most max;
 * their indices in idx. Returns the count. */
int eeg_pop_emigrants(const eeg_pop *p, int max, int *idx);
/* Immigrants replace the n worst members (highest front, then lowest crowding, then
 * highest index); re-ranks. n ≤ m. */
void eeg_pop_immigrate(eeg_pop *p, const uint64_t *masks, const double *f1, const double *f2,
                       int n);

/* Fronts of n points: rank[i] = 0 for the non-dominated ones, 1 for those dominated only
 * by front 0, … Returns the number of fronts. */
int eeg_nds(const double *f1, const double *f2, int n, int *rank);
/* Crowding distance of the n points idx[0 … n−1] (one front) into crowd[idx[k]]: infinite
 * for the extremes of each objective, else the sum over objectives of the gap between
 * the neighbours divided by the front's range. */
void eeg_crowding(const double *f1, const double *f2, const int *idx, int n, double *crowd);

/* A stream for (seed, subpopulation, epoch): a 64-bit hash of the three, of which GSL's
 * MT19937 keeps the low 32 bits (so two of k streams coincide with probability ~k²/2³³). */
void eeg_rng_seed(gsl_rng *r, uint64_t seed, int subpop, int epoch);

/* A subpopulation as bytes (for MPI): header, masks, f1, f2. */
size_t eeg_pop_bytes(int m, int features);
void eeg_pop_pack(const eeg_pop *p, void *buf);
/* Into an allocated p of the same m and features; −1 when the header disagrees. */
int eeg_pop_unpack(eeg_pop *p, const void *buf, size_t len);

#endif
