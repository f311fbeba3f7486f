/* hv.c — exact two-objective hypervolume and the non-dominated front (design in hv.h). */
#include "hv.h"

#include <stdlib.h>

typedef struct {
    double a, b; /* maximised: a = 1 − f1, b = f2 */
    int i;
} pt;

static double clip01(double v)
{
    return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

/* decreasing a, then decreasing b, then index */
static int by_a_desc(const void *x, const void *y)
{
    const pt *p = x, *q = y;
    if (p->a != q->a) return p->a > q->a ? -1 : 1;
    if (p->b != q->b) return p->b > q->b ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

static pt *sorted(const double *f1, const double *f2, int n)
{
    pt *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return NULL;
    for (int i = 0; i < n; i++) {
        v[i].a = clip01(1.0 - f1[i]);
        v[i].b = clip01(f2[i]);
        v[i].i = i;
    }
    qsort(v, (size_t)n, sizeof *v, by_a_desc);
    return v;
}

double eeg_hv(const double *f1, const double *f2, int n)
{
    pt *v = sorted(f1, f2, n);
    if (!v) return 0.0;
    /* sweep in decreasing a: each point adds a × (its b − the best b so far) */
    double hv = 0.0, best_b = 0.0;
    for (int k = 0; k < n; k++)
        if (v[k].b > best_b) {
            hv += v[k].a * (v[k].b - best_b);
            best_b = v[k].b;
        }
    free(v);
    return hv;
}

/* increasing f1, then decreasing f2, then index (on f1 itself: 1 − f1 would merge f1
 * values an ulp apart) */
static int by_f1_asc(const void *x, const void *y)
{
    const pt *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b > q->b ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

int eeg_front(const double *f1, const double *f2, int n, int *idx)
{
    pt *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return 0;
    for (int i = 0; i < n; i++)
        v[i] = (pt){f1[i], f2[i], i}; /* here a = f1 itself */
    qsort(v, (size_t)n, sizeof *v, by_f1_asc);
    /* in increasing f1 a point is non-dominated iff its f2 beats every f2 before it: a
     * repeat of a point, or a point with the same f1 and a lower f2, does not */
    int count = 0;
    double best_b = 0.0;
    for (int k = 0; k < n; k++) {
        if (count == 0 || v[k].b > best_b) {
            idx[count++] = v[k].i;
            best_b = v[k].b;
        }
    }
    free(v);
    return count;
}
