/* hv.h — the final front and its hypervolume (Escobar et al. §5: Zitzler's hypervolume with
 * reference point (0, 0), maximum 1).
 *
 * Objectives are mapped to the maximised pair (1 − f1, f2) ∈ [0, 1]², so the hypervolume
 * is the area of the union of the rectangles [0, 1 − f1] × [0, f2] over the points: exact
 * for two objectives by one sweep in decreasing 1 − f1 (dominated and repeated points add
 * nothing). Points outside [0, 1]² are clipped to it. */
#ifndef EEG_HV_H
#define EEG_HV_H

/* Hypervolume of n points (f1 minimised, f2 maximised), in [0, 1]. */
double eeg_hv(const double *f1, const double *f2, int n);
/* The non-dominated points among n, one per distinct (f1, f2), by increasing f1: their
 * indices into idx (the first index of each distinct point). Returns the count. */
int eeg_front(const double *f1, const double *f2, int n, int *idx);

#endif
