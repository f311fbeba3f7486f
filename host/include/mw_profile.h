/* mw_profile — the workload profile file of "mw pareto PROFILE" (Khaleghzadeh et al.;
 * docs/models.md "Profile file"): one item a line, '#' starts a comment,
 *   n N                                          units of work, > 0
 *   static_power W                               P_S, >= 0
 *   device NAME [a=S_PER_UNIT] [b=J_PER_UNIT] [X:T[:E]]...
 *   together X:E...                              all devices at once, each given X units
 * The reader checks the format and each line's rules (a device has a= or time points, not
 * both, and b= or an energy at every point, not both; numbers plain decimal (mw_num.h);
 * n, sizes, times, a= and b= from MW_PROFILE_MIN to MW_PROFILE_MAX, energies and
 * static_power from 0 to MW_PROFILE_MAX, so that the models' products and sums of them stay
 * finite)
 * and keeps the numbers as they are written: the time and energy functions made of them
 * (means per size, b fitted) are libmwmodels' (pareto.h). It prints nothing: a bad profile
 * is -1 with one line naming FILE:LINE in the caller's buffer. */
#ifndef MW_PROFILE_H
#define MW_PROFILE_H
#include <stddef.h>
#include <stdio.h>

#define MW_PROFILE_MIN 1e-9 /* the least n, size, time, a=, b= */
#define MW_PROFILE_MAX 1e15 /* the largest of any number in a profile */

/* A point X:T:E of a device (energy_J 0 when the point gives none), or X:E of a together
 * line (time_s 0). */
typedef struct {
    double x_units, time_s, energy_J;
} mw_profile_point;

typedef struct {
    char *name;
    int line;                          /* its device line, for messages */
    double a_s_per_unit, b_J_per_unit; /* 0: not given */
    mw_profile_point *pt;              /* npt measured points, as written */
    size_t npt;
    int has_energy; /* its points give energies (then b= is not given) */
} mw_profile_device;

typedef struct {
    char *file; /* the name in messages */
    double n_units, static_power_W;
    int has_n, has_static_power;
    mw_profile_device *dev; /* ndev >= 1, in the file's order */
    int ndev;
    mw_profile_point *together; /* every together line's points */
    size_t ntogether;
    int together_line; /* the last together line */
} mw_profile;

/* The bounds of a profile file (docs/models.md "Profile file"): 64 MiB, lines of 1 MiB. */
#define MW_PROFILE_MAX_BYTES (64u << 20)
#define MW_PROFILE_MAX_LINE_BYTES (1u << 20)

/* Reads the profile at path (mw_lines.h: within the bounds above; a FIFO or pipe must end
 * within 10 s; a directory, a missing file, a link loop are errors). Returns 0 with *out
 * filled, or -1 with the first error in err ("FILE: reason", or "FILE:LINE: ..." for a line
 * breaking the format or a rule, too long, or holding a NUL byte; no device line) and *out
 * empty. */
int mw_profile_load(const char *path, mw_profile *out, char *err, size_t errlen);
/* The same from a stream the caller opened (read to its end, within the bounds); file names
 * it in messages. */
int mw_profile_read(FILE *in, const char *file, mw_profile *out, char *err, size_t errlen);
void mw_profile_free(mw_profile *p);
#endif
