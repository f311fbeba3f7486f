/* data.h — the synthetic EEG-like data set eeg-mofs works on (Escobar et al. §5: 178 patterns ×
 * 3,600 features, 3 classes; the Essex BCI recordings are not public).
 *
 * Pattern p belongs to class p mod C (balanced classes). Every feature is Gaussian noise
 * (sd 1) plus, on a known random subset of "informative" features only, a class mean:
 * informative feature f of class c has mean separation·(c − (C−1)/2)·s_f, s_f = ±1 at
 * random, so on each informative feature neighbouring classes are `separation` noise sds
 * apart and on every other feature the classes are indistinguishable. A slow per-pattern
 * drift common to all features (a_p·sin(2πf/F·3)) gives the features the correlated
 * background of real EEG without carrying class information. Each feature is then min–max
 * scaled to [0, 1], so every Euclidean distance over d selected features is at most √d.
 * Everything comes from one seed (GSL's MT19937); the same arguments give the same bytes.
 *
 * The separation has to be large (eeg-mofs uses 4 sds) for the search to find the
 * informative features: the fitness is unsupervised, and K-means splits any single feature
 * into clusters — a Gaussian noise feature with a few outliers scores f2 ≈ 0.40 alone. With
 * 4 sds one informative feature scores better on both objectives (f1 0.061 vs 0.076, f2
 * 0.42 vs 0.40 on 90 × 2,400) and sets of them far better (a noise set's f2 falls as it
 * grows, an informative set's does not); at 1–2 sds the front fills with single noise
 * features. */
#ifndef EEG_DATA_H
#define EEG_DATA_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eeg_data {
    int patterns, features, classes;
    float *x;                   /* patterns × features, row-major, each feature in [0, 1] */
    int *label;                 /* class of each pattern, 0 … classes−1 */
    unsigned char *informative; /* per feature: 1 where it carries the class structure */
    int n_informative;
} eeg_data;

/* Fills d; returns 0, or −1 (d left empty) for impossible shapes (patterns < classes,
 * classes < 2, features < 1, informative outside 0 … features) or no memory. */
int eeg_data_synth(eeg_data *d, int patterns, int features, int classes, int informative,
                   double separation, uint64_t seed);
void eeg_data_free(eeg_data *d);

#ifdef __cplusplus
}
#endif
#endif
