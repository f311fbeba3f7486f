/* cmd_pareto — "mw pareto PROFILE [--time S | --energy J] [--static-power W] [--total]
 * [--n N] [--json]": the time / energy Pareto front of a workload of n units split over
 * devices (seed 002; models/lbopa.h, docs/models.md "Bi-objective workload distribution").
 *
 * PROFILE is a text file (docs/models.md gives the format): "n N", "static_power W",
 * "device NAME [a=S_PER_UNIT] [b=J_PER_UNIT] [X:T[:E]]..." and "together X:E..." lines.
 * Devices with measured points go through the profile builder one by one (mean time per
 * size; b fitted from the energies unless b= is given); "together" lines with every device's
 * energies give the additivity figure. Prints the devices by rank, the front's end-points
 * with PARTITION's split at each, its segments; with a static power and --total, LBOPA-TE's
 * pieces; with --time or --energy, the split for that point (real and rounded to integers
 * summing to n when n is an integer).
 *
 * "mw pareto RUNDIR... --units COUNTER": the profile is built from runs (pareto_runs.h),
 * written as profile text in memory (and to --profile-out FILE) and read by the same parser,
 * so a profile from runs and one from a file go through one path.
 *
 * Bad usage or a bad profile is one line on stderr naming the option or FILE:LINE, exit 2,
 * before anything is printed. No NaN or infinity is printed: every number comes from
 * checked finite input through functions that return -1 rather than NaN. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "cli.h"
#include "lbopa.h"
#include "pareto_runs.h"
#include "textout.h"

typedef struct {
    char *name;
    int line;
    double a, b; /* 0: not given */
    mw_lbopa_meas *pts;
    size_t npts;
    int has_e, no_e;
    mw_lbopa_profile prof; /* point devices */
} pd_dev;

typedef struct {
    const char *file;
    double n, ps;
    int has_n, has_ps;
    pd_dev *dev;
    int k;
    mw_lbopa_meas *tog; /* device -1: together */
    size_t ntog;
    int tog_line;
} pd_profile;

typedef struct {
    const char *file; /* the profile, or a description of the runs */
    double time_s, energy_J, ps, n;
    int has_time, has_energy, has_ps, has_n, total, json;
    const char *units, *profile_out; /* runs mode */
    char **dirs;
    int ndirs;
    const mw_pareto_runs *runs; /* what they gave, once read */
} pd_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw pareto PROFILE [--time S | --energy J] [--static-power W] [--total]\n"
            "                 [--n N] [--json]\n"
            "       mw pareto RUNDIR... --units COUNTER --n N [--profile-out FILE] [...]\n\n"
            "The Pareto front of execution time and dynamic energy for n units of work split\n"
            "over devices with time functions f_i (linear, or piecewise-linear through\n"
            "measured points) and dynamic energy b_i x (seed 002: LBOPA, PARTITION, LBOPA-TE).\n"
            "Prints the front's end-points with the split at each, its segments, and the split\n"
            "for a time or an energy budget.\n\n"
            "  PROFILE            text file, one item a line ('#' comments):\n"
            "                       n N                   units of work (or --n)\n"
            "                       static_power W        P_S (or --static-power)\n"
            "                       device NAME [a=S_PER_UNIT] [b=J_PER_UNIT] [X:T[:E]]...\n"
            "                           linear time a*x, or measured points: X units took T s\n"
            "                           and E J of dynamic energy (b fitted when b= is absent)\n"
            "                       together X:E...       dynamic energy of all devices at once,\n"
            "                           each given X units (additivity check)\n"
            "  --time S           the split finishing in S seconds\n"
            "  --energy J         the fastest split within J joules of dynamic energy (with\n"
            "                     --total: of total energy)\n"
            "  --static-power W   P_S, W: total energy = dynamic + P_S * time\n"
            "  --total            also the part of the front optimal for time and total energy\n"
            "                     (LBOPA-TE); needs a static power\n"
            "  RUNDIR...          runs instead of a profile: each run's work is the sum of the\n"
            "                     counter COUNTER per host, its time the command's, its\n"
            "                     device the channel measuring that host, its dynamic\n"
            "                     energy that channel's energy less its idle baseline (record\n"
            "                     with --idle S) x time; work on several devices, the same on\n"
            "                     each, is a 'together' run (additivity check)\n"
            "  --units COUNTER    the counter giving a run's units of work (e.g. 'products')\n"
            "  --profile-out FILE write the profile built from the runs to FILE\n"
            "  --n N              units of work, > 0 (overrides the profile's n)\n"
            "  --json             one JSON object instead of text (docs/models.md)\n"
            "  -h, --help         this text\n\n"
            "Exit status: 0 done, 1 the computation failed, 2 bad usage or profile, or a time\n"
            "or energy off the front.\n");
}

/* ---- options ------------------------------------------------------------------------- */

static int parse_args(int argc, char **argv, pd_opts *o)
{
    static const struct option opts[] = {
        {"time", required_argument, NULL, 't'},
        {"energy", required_argument, NULL, 'e'},
        {"static-power", required_argument, NULL, 'p'},
        {"total", no_argument, NULL, 'T'},
        {"n", required_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'},
        {"units", required_argument, NULL, 'u'},
        {"profile-out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 0;
    opterr = 0;
    int c;
    double v;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (mw_cli_number(optarg, &v) || !(v > 0))
                return mw_cli_usage_error("pareto", "--time: '%s' is not a time > 0 s", optarg);
            o->time_s = v;
            o->has_time = 1;
            break;
        case 'e':
            if (mw_cli_number(optarg, &v) || !(v > 0))
                return mw_cli_usage_error("pareto", "--energy: '%s' is not an energy > 0 J",
                                          optarg);
            o->energy_J = v;
            o->has_energy = 1;
            break;
        case 'p':
            if (mw_cli_number(optarg, &v) || !(v >= 0))
                return mw_cli_usage_error("pareto", "--static-power: '%s' is not a power >= 0 W",
                                          optarg);
            o->ps = v;
            o->has_ps = 1;
            break;
        case 'n':
            if (mw_cli_number(optarg, &v) || !(v > 0))
                return mw_cli_usage_error("pareto", "--n: '%s' is not a workload > 0", optarg);
            o->n = v;
            o->has_n = 1;
            break;
        case 'T':
            o->total = 1;
            break;
        case 'j':
            o->json = 1;
            break;
        case 'u':
            if (!*optarg) return mw_cli_usage_error("pareto", "--units: empty counter name");
            o->units = optarg;
            break;
        case 'o':
            o->profile_out = optarg;
            break;
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("pareto", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("pareto", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (o->has_time && o->has_energy)
        return mw_cli_usage_error("pareto", "--time and --energy: give one");
    if (optind >= argc) return mw_cli_usage_error("pareto", "missing PROFILE or RUNDIR...");
    struct stat sb;
    if (stat(argv[optind], &sb) == 0 && S_ISDIR(sb.st_mode)) {
        for (int i = optind; i < argc; i++)
            if (stat(argv[i], &sb) != 0 || !S_ISDIR(sb.st_mode))
                return mw_cli_usage_error("pareto",
                                          "'%s' is not a run directory (give one "
                                          "PROFILE or run directories)",
                                          argv[i]);
        if (!o->units)
            return mw_cli_usage_error("pareto", "runs need --units COUNTER: the counter giving "
                                                "each run's units of work (mwb-dgemm: "
                                                "'products')");
        if (!o->has_n)
            return mw_cli_usage_error("pareto", "no workload: give --n N, the units of work "
                                                "to split");
        o->dirs = argv + optind;
        o->ndirs = argc - optind;
        return -1;
    }
    if (argc - optind > 1)
        return mw_cli_usage_error("pareto", "unexpected argument '%s' (one PROFILE only)",
                                  argv[optind + 1]);
    if (o->units || o->profile_out)
        return mw_cli_usage_error("pareto", "%s is for run directories, not a PROFILE",
                                  o->units ? "--units" : "--profile-out");
    o->file = argv[optind];
    return -1;
}

/* ---- the profile file ---------------------------------------------------------------- */

static void profile_free(pd_profile *p)
{
    for (int i = 0; i < p->k; i++) {
        free(p->dev[i].name);
        free(p->dev[i].pts);
        mw_lbopa_profile_free(&p->dev[i].prof);
    }
    free(p->dev);
    free(p->tog);
    memset(p, 0, sizeof *p);
}

static int file_error(const pd_profile *p, int line, const char *fmt, const char *arg)
{
    fprintf(stderr, "mw pareto: %s:%d: ", p->file, line);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return MW_EXIT_USAGE;
}

static int num(const char *s, double *v)
{
    return mw_cli_number(s, v);
}

/* "X:T[:E]" or, for together lines, "X:E". Returns the number of fields read, 0 if bad. */
static int parse_point(char *tok, double *f, int maxf)
{
    int nf = 0;
    char *save = NULL;
    for (char *s = strtok_r(tok, ":", &save); s; s = strtok_r(NULL, ":", &save)) {
        if (nf == maxf || num(s, &f[nf])) return 0;
        nf++;
    }
    return nf;
}

static int add_meas(mw_lbopa_meas **a, size_t *n, mw_lbopa_meas m)
{
    mw_lbopa_meas *na = realloc(*a, (*n + 1) * sizeof *na);
    if (!na) return -1;
    na[(*n)++] = m;
    *a = na;
    return 0;
}

static int parse_device(pd_profile *p, int line, char *save)
{
    char *name = strtok_r(NULL, " \t\r\n", &save);
    if (!name) return file_error(p, line, "device needs a NAME%s", "");
    for (int i = 0; i < p->k; i++)
        if (!strcmp(p->dev[i].name, name))
            return file_error(p, line, "device '%s' given twice", name);
    pd_dev *nd = realloc(p->dev, (size_t)(p->k + 1) * sizeof *nd);
    if (!nd) return file_error(p, line, "out of memory%s", "");
    p->dev = nd;
    pd_dev *d = &p->dev[p->k];
    memset(d, 0, sizeof *d);
    d->line = line;
    if (!(d->name = strdup(name))) return file_error(p, line, "out of memory%s", "");
    p->k++;
    for (char *tok = strtok_r(NULL, " \t\r\n", &save); tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        double v;
        if (!strncmp(tok, "a=", 2) || !strncmp(tok, "b=", 2)) {
            if (num(tok + 2, &v) || !(v > 0))
                return file_error(p, line, "'%s': needs a number > 0", tok);
            if (tok[0] == 'a')
                d->a = v;
            else
                d->b = v;
            continue;
        }
        double f[3];
        char copy[128];
        snprintf(copy, sizeof copy, "%s", tok);
        int nf = parse_point(tok, f, 3);
        if (nf < 2) return file_error(p, line, "'%s' is not a=, b= or a point X:T[:E]", copy);
        if (!(f[0] > 0) || !(f[1] > 0))
            return file_error(p, line, "point '%s': size and time must be > 0", copy);
        if (nf == 3 && !(f[2] >= 0))
            return file_error(p, line, "point '%s': energy must be >= 0", copy);
        if (nf == 3)
            d->has_e = 1;
        else
            d->no_e = 1;
        if (add_meas(&d->pts, &d->npts, (mw_lbopa_meas){0, f[0], f[1], nf == 3 ? f[2] : 0}))
            return file_error(p, line, "out of memory%s", "");
    }
    if (d->a > 0 && d->npts)
        return file_error(p, line, "device '%s': a= or points, not both", name);
    if (!(d->a > 0) && !d->npts)
        return file_error(p, line, "device '%s': needs a= or time points X:T", name);
    if (d->b > 0 && d->has_e)
        return file_error(p, line, "device '%s': b= or energies X:T:E, not both", name);
    if (!(d->b > 0) && (!d->has_e || d->no_e))
        return file_error(p, line, "device '%s': needs b= or an energy at every point", name);
    return -1;
}

/* the profile from in, called `file` in messages */
static int read_profile(FILE *in, const char *file, pd_profile *p)
{
    memset(p, 0, sizeof *p);
    p->file = file;
    char *buf = NULL;
    size_t bufcap = 0;
    int line = 0, rc = -1;
    while (rc < 0 && getline(&buf, &bufcap, in) != -1) {
        line++;
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        char *save = NULL, *key = strtok_r(buf, " \t\r\n", &save);
        if (!key) continue;
        if (!strcmp(key, "n") || !strcmp(key, "static_power")) {
            char *v = strtok_r(NULL, " \t\r\n", &save);
            double x;
            int is_n = key[0] == 'n';
            if (!v || num(v, &x) || (is_n ? !(x > 0) : !(x >= 0)))
                rc = file_error(p, line, "%s needs a number (n > 0, static_power >= 0)", key);
            else if (strtok_r(NULL, " \t\r\n", &save))
                rc = file_error(p, line, "%s takes one value", key);
            else if (is_n) {
                p->n = x;
                p->has_n = 1;
            } else {
                p->ps = x;
                p->has_ps = 1;
            }
        } else if (!strcmp(key, "device")) {
            rc = parse_device(p, line, save);
        } else if (!strcmp(key, "together")) {
            p->tog_line = line;
            for (char *tok = strtok_r(NULL, " \t\r\n", &save); tok && rc < 0;
                 tok = strtok_r(NULL, " \t\r\n", &save)) {
                double f[2];
                char copy[128];
                snprintf(copy, sizeof copy, "%s", tok);
                if (parse_point(tok, f, 2) != 2 || !(f[0] > 0) || !(f[1] > 0))
                    rc = file_error(p, line, "'%s' is not a point X:E (both > 0)", copy);
                else if (add_meas(&p->tog, &p->ntog, (mw_lbopa_meas){-1, f[0], 1, f[1]}))
                    rc = file_error(p, line, "out of memory%s", "");
            }
        } else {
            rc = file_error(p, line, "'%s' is not n, static_power, device or together", key);
        }
    }
    if (rc < 0 && ferror(in)) {
        fprintf(stderr, "mw pareto: %s: read error\n", file);
        rc = MW_EXIT_USAGE;
    }
    free(buf);
    if (rc < 0 && p->k == 0) rc = file_error(p, line, "no device lines%s", "");
    /* the builder: mean time per size, b from the energies */
    for (int i = 0; rc < 0 && i < p->k; i++) {
        pd_dev *d = &p->dev[i];
        if (!d->npts) continue;
        char err[200];
        if (d->b > 0) /* b given: energies on its line, so the builder's fit returns it */
            for (size_t j = 0; j < d->npts; j++)
                d->pts[j].energy_J = d->b * d->pts[j].x_units;
        if (mw_lbopa_profile_build(d->pts, d->npts, 1, 0, &d->prof, err, sizeof err)) {
            const char *msg = strncmp(err, "device 0: ", 10) ? err : err + 10;
            fprintf(stderr, "mw pareto: %s:%d: device '%s': %s\n", file, d->line, d->name, msg);
            rc = MW_EXIT_USAGE;
        } else if (d->b > 0) {
            d->prof.dev[0].b_J_per_unit = d->b;
        }
    }
    if (rc >= 0) profile_free(p);
    return rc;
}

/* Runs -> profile text in memory -> the file parser (one path for both inputs); the text
 * goes to --profile-out once it has parsed. -1 with *p filled, or an exit status (message
 * printed). */
static int profile_from_runs(const pd_opts *o, mw_pareto_runs *runs, pd_profile *p, char *desc,
                             size_t desclen)
{
    char err[512] = "";
    if (mw_pareto_runs_read(o->dirs, o->ndirs, o->units, runs, err, sizeof err)) {
        fprintf(stderr, "mw pareto: %s\n", err);
        return MW_EXIT_USAGE;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        fprintf(stderr, "mw pareto: out of memory\n");
        return MW_EXIT_FAIL;
    }
    char *runs_text;
    int bad = mw_pareto_runs_profile_text(runs, o->units, &runs_text, err, sizeof err);
    if (!bad) fputs(runs_text, mem);
    free(runs_text);
    if (!bad) fprintf(mem, "n %.17g # units of work (--n)\n", o->n);
    if (!bad && o->has_ps) fprintf(mem, "static_power %.17g # W (--static-power)\n", o->ps);
    if (fclose(mem) || !text) {
        free(text);
        fprintf(stderr, "mw pareto: out of memory\n");
        return MW_EXIT_FAIL;
    }
    if (bad) {
        free(text);
        fprintf(stderr, "mw pareto: %s\n", err);
        return MW_EXIT_USAGE;
    }
    snprintf(desc, desclen, "profile from %d run%s", o->ndirs, o->ndirs == 1 ? "" : "s");
    FILE *in = fmemopen(text, len, "r");
    int rc = MW_EXIT_FAIL;
    if (in) {
        rc = read_profile(in, desc, p);
        fclose(in);
    } else {
        fprintf(stderr, "mw pareto: out of memory\n");
    }
    if (rc < 0 && o->profile_out) {
        FILE *f = fopen(o->profile_out, "w");
        int werr = !f || fputs(text, f) == EOF;
        if (f && fclose(f)) werr = 1;
        if (werr) {
            fprintf(stderr, "mw pareto: --profile-out %s: %s\n", o->profile_out, strerror(errno));
            profile_free(p);
            rc = MW_EXIT_USAGE;
        }
    }
    free(text);
    return rc;
}

/* ---- output ---------------------------------------------------------------------------- */

static const char *name_of(const pd_profile *p, int i)
{
    return p->dev[i].name;
}

static void json_split(FILE *out, const double *x, int k)
{
    fputc('[', out);
    for (int i = 0; i < k; i++) {
        if (i) fputc(',', out);
        mw_out_json_number(out, x[i]);
    }
    fputc(']', out);
}

static void json_isplit(FILE *out, const long long *x, int k)
{
    fputc('[', out);
    for (int i = 0; i < k; i++)
        fprintf(out, "%s%lld", i ? "," : "", x[i]);
    fputc(']', out);
}

typedef struct {
    int has;
    const char *by; /* "time" or "energy" / "total_energy" */
    double asked, t_s, e_J;
    double *x;
    int has_int;
    long long *xi;
    double int_t_s, int_e_J;
} pd_query;

/* The least time on LBOPA-TE's front with total energy <= e: -1 below it. */
static int te_time_for(const mw_pareto_te *te, double e, double *t)
{
    if (e >= te->emax_J) {
        *t = te->tmin_s;
        return 0;
    }
    for (int i = 0; i < te->npieces; i++) {
        const mw_pareto_piece *pc = &te->piece[i];
        if (pc->e1_J > e) continue;
        if (pc->e0_J <= e)
            *t = pc->t0_s;
        else
            *t = pc->t0_s + (pc->t1_s - pc->t0_s) * (pc->e0_J - e) / (pc->e0_J - pc->e1_J);
        return 0;
    }
    return -1;
}

static void print_text(const pd_profile *p, const pd_opts *o, const mw_pareto_front *f,
                       const mw_pareto_te *te, double ps, int has_ps, const pd_query *q,
                       double **split, const mw_lbopa_device *dev, int has_add, double add_rel,
                       size_t add_n)
{
    int k = f->k;
    printf("mw pareto: %s, %d device%s, n = %.10g units\n", o->file, k, k == 1 ? "" : "s",
           f->n_units);
    if (o->runs) {
        printf("runs (units: counter '%s'; E_dyn = energy - idle power x time):\n", o->units);
        printf("  %-16s %-14s %-11s %-12s %-10s %s\n", "device", "x (units)", "t (s)", "E_dyn (J)",
               "idle (W)", "run");
        for (int i = 0; i < o->runs->n; i++) {
            const mw_pareto_run *r = &o->runs->run[i];
            printf("  %-16s %-14.10g %-11.6g %-12.6g %-10.6g %s%s\n", r->device, r->x_units,
                   r->time_s, r->energy_dyn_J, r->idle_W, r->run,
                   r->ndevices > 1 ? " (together)" : "");
        }
    }
    printf("devices by dynamic energy per unit, most expensive first:\n");
    for (int r = 0; r < k; r++) {
        int i = f->rank[r];
        printf("  %-3d %-16s b %-10.6g J/unit  ", r, name_of(p, i), dev[i].b_J_per_unit);
        if (dev[i].kind == MW_LBOPA_F_LINEAR)
            printf("time linear, %.6g s/unit\n", dev[i].a_s_per_unit);
        else
            printf("time through %zu points, %.6g..%.6g units\n", dev[i].npoints, dev[i].x_units[0],
                   dev[i].x_units[dev[i].npoints - 1]);
    }
    if (has_add)
        printf("additivity: devices alone vs together differ by %.3g %% on average over %zu "
               "size%s (seed 002 accepts <= 2.5 %%)\n",
               100 * add_rel, add_n, add_n == 1 ? "" : "s");
    printf("Pareto front, time vs dynamic energy: %d segment%s\n", f->nseg,
           f->nseg == 1 ? "" : "s");
    printf("  point  t (s)        E_dyn (J)    split (");
    for (int i = 0; i < k; i++)
        printf("%s%s", i ? " " : "", name_of(p, i));
    printf(")\n");
    for (int r = 0; r <= f->nseg; r++) {
        printf("  %-5d  %-11.6g  %-11.6g ", r, f->t_s[r], f->e_J[r]);
        for (int i = 0; i < k; i++)
            printf(" %.6g", split[r][i]);
        printf("\n");
    }
    for (int s = 0; s < f->nseg; s++) {
        printf("  segment %d: t %.6g..%.6g s, E_dyn %.6g..%.6g J; %s takes the rest", s, f->t_s[s],
               f->t_s[s + 1], f->e_J[s], f->e_J[s + 1], name_of(p, f->rank[s]));
        if (s + 1 < k) {
            printf(", working all the time:");
            for (int r = s + 1; r < k; r++)
                printf(" %s", name_of(p, f->rank[r]));
        }
        printf("\n");
    }
    if (te) {
        printf("total energy (P_S = %.6g W), LBOPA-TE: fastest point t %.6g s, E_total %.6g J", ps,
               te->tmin_s, te->emax_J);
        printf("; %d piece%s after it\n", te->npieces, te->npieces == 1 ? "" : "s");
        for (int i = 0; i < te->npieces; i++)
            printf("  t %.6g..%.6g s, E_total %.6g..%.6g J\n", te->piece[i].t0_s, te->piece[i].t1_s,
                   te->piece[i].e0_J, te->piece[i].e1_J);
    }
    if (q->has) {
        printf("for %s %.6g %s: t %.6g s, E_dyn %.6g J", q->by, q->asked,
               strcmp(q->by, "time") ? "J" : "s", q->t_s, q->e_J);
        if (has_ps) printf(", E_total %.6g J", q->e_J + ps * q->t_s);
        printf("\n  split:");
        for (int i = 0; i < k; i++)
            printf(" %s %.6g", name_of(p, i), q->x[i]);
        printf("\n");
        if (q->has_int) {
            printf("  integer split:");
            for (int i = 0; i < k; i++)
                printf(" %s %lld", name_of(p, i), q->xi[i]);
            printf(" (t %.6g s, E_dyn %.6g J", q->int_t_s, q->int_e_J);
            if (has_ps) printf(", E_total %.6g J", q->int_e_J + ps * q->int_t_s);
            printf(")\n");
        }
    }
}

static void print_json(const pd_profile *p, const pd_opts *o, const mw_pareto_front *f,
                       const mw_pareto_te *te, double ps, int has_ps, const pd_query *q,
                       double **split, const mw_lbopa_device *dev, int has_add, double add_rel,
                       size_t add_n)
{
    int k = f->k;
    printf("{\"n_units\":");
    mw_out_json_number(stdout, f->n_units);
    printf(",\"runs\":");
    if (o->runs) {
        printf("{\"units\":");
        mw_out_json_string(stdout, o->units);
        printf(",\"runs\":[");
        for (int i = 0; i < o->runs->n; i++) {
            const mw_pareto_run *r = &o->runs->run[i];
            printf("%s{\"run\":", i ? "," : "");
            mw_out_json_string(stdout, r->run);
            printf(",\"device\":");
            mw_out_json_string(stdout, r->device);
            printf(",\"together\":%s,\"x_units\":", r->ndevices > 1 ? "true" : "false");
            mw_out_json_number(stdout, r->x_units);
            printf(",\"t_s\":");
            mw_out_json_number(stdout, r->time_s);
            printf(",\"e_dyn_J\":");
            mw_out_json_number(stdout, r->energy_dyn_J);
            printf(",\"idle_W\":");
            mw_out_json_number(stdout, r->idle_W);
            printf("}");
        }
        printf("]}");
    } else {
        printf("null");
    }
    printf(",\"static_power_W\":");
    if (has_ps)
        mw_out_json_number(stdout, ps);
    else
        printf("null");
    printf(",\"devices\":[");
    for (int i = 0; i < k; i++) {
        printf("%s{\"name\":", i ? "," : "");
        mw_out_json_string(stdout, name_of(p, i));
        int r = 0;
        while (f->rank[r] != i)
            r++;
        printf(",\"rank\":%d,\"b_J_per_unit\":", r);
        mw_out_json_number(stdout, dev[i].b_J_per_unit);
        if (dev[i].kind == MW_LBOPA_F_LINEAR) {
            printf(",\"time\":\"linear\",\"a_s_per_unit\":");
            mw_out_json_number(stdout, dev[i].a_s_per_unit);
        } else {
            printf(",\"time\":\"points\",\"points\":[");
            for (size_t j = 0; j < dev[i].npoints; j++) {
                printf("%s{\"x_units\":", j ? "," : "");
                mw_out_json_number(stdout, dev[i].x_units[j]);
                printf(",\"t_s\":");
                mw_out_json_number(stdout, dev[i].t_s[j]);
                printf("}");
            }
            printf("]");
        }
        printf("}");
    }
    printf("],\"additivity\":");
    if (has_add) {
        printf("{\"mean_rel_diff\":");
        mw_out_json_number(stdout, add_rel);
        printf(",\"sizes\":%zu}", add_n);
    } else {
        printf("null");
    }
    printf(",\"front\":{\"points\":[");
    for (int r = 0; r <= f->nseg; r++) {
        printf("%s{\"t_s\":", r ? "," : "");
        mw_out_json_number(stdout, f->t_s[r]);
        printf(",\"e_J\":");
        mw_out_json_number(stdout, f->e_J[r]);
        printf(",\"split\":");
        json_split(stdout, split[r], k);
        printf("}");
    }
    printf("],\"segments\":[");
    for (int s = 0; s < f->nseg; s++) {
        printf("%s{\"t0_s\":", s ? "," : "");
        mw_out_json_number(stdout, f->t_s[s]);
        printf(",\"t1_s\":");
        mw_out_json_number(stdout, f->t_s[s + 1]);
        printf(",\"e0_J\":");
        mw_out_json_number(stdout, f->e_J[s]);
        printf(",\"e1_J\":");
        mw_out_json_number(stdout, f->e_J[s + 1]);
        printf(",\"rest\":");
        mw_out_json_string(stdout, name_of(p, f->rank[s]));
        printf("}");
    }
    printf("]},\"total\":");
    if (te) {
        printf("{\"tmin_s\":");
        mw_out_json_number(stdout, te->tmin_s);
        printf(",\"emax_J\":");
        mw_out_json_number(stdout, te->emax_J);
        printf(",\"pieces\":[");
        for (int i = 0; i < te->npieces; i++) {
            printf("%s{\"t0_s\":", i ? "," : "");
            mw_out_json_number(stdout, te->piece[i].t0_s);
            printf(",\"e0_J\":");
            mw_out_json_number(stdout, te->piece[i].e0_J);
            printf(",\"t1_s\":");
            mw_out_json_number(stdout, te->piece[i].t1_s);
            printf(",\"e1_J\":");
            mw_out_json_number(stdout, te->piece[i].e1_J);
            printf("}");
        }
        printf("]}");
    } else {
        printf("null");
    }
    printf(",\"query\":");
    if (q->has) {
        printf("{\"by\":\"%s\",\"asked\":", q->by);
        mw_out_json_number(stdout, q->asked);
        printf(",\"t_s\":");
        mw_out_json_number(stdout, q->t_s);
        printf(",\"e_J\":");
        mw_out_json_number(stdout, q->e_J);
        printf(",\"total_J\":");
        if (has_ps)
            mw_out_json_number(stdout, q->e_J + ps * q->t_s);
        else
            printf("null");
        printf(",\"split\":");
        json_split(stdout, q->x, k);
        printf(",\"integer\":");
        if (q->has_int) {
            printf("{\"split\":");
            json_isplit(stdout, q->xi, k);
            printf(",\"t_s\":");
            mw_out_json_number(stdout, q->int_t_s);
            printf(",\"e_J\":");
            mw_out_json_number(stdout, q->int_e_J);
            printf("}");
        } else {
            printf("null");
        }
        printf("}");
    } else {
        printf("null");
    }
    printf("}\n");
}

/* ---- the command ----------------------------------------------------------------------- */

int cmd_pareto(int argc, char **argv)
{
    pd_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    pd_profile p;
    mw_pareto_runs runs = {0};
    char desc[64];
    if (o.dirs) {
        if ((rc = profile_from_runs(&o, &runs, &p, desc, sizeof desc)) >= 0) {
            mw_pareto_runs_free(&runs);
            return rc;
        }
        o.file = desc;
        o.runs = &runs;
    } else {
        FILE *in = fopen(o.file, "r");
        if (!in) {
            fprintf(stderr, "mw pareto: %s: %s\n", o.file, strerror(errno));
            return MW_EXIT_USAGE;
        }
        rc = read_profile(in, o.file, &p);
        fclose(in);
        if (rc >= 0) return rc;
    }
    double n = o.has_n ? o.n : p.n, ps = o.has_ps ? o.ps : p.ps;
    int has_ps = o.has_ps || p.has_ps, k = p.k;
    if (!o.has_n && !p.has_n) {
        profile_free(&p);
        mw_pareto_runs_free(&runs);
        return mw_cli_usage_error("pareto", "no workload: give --n N or an 'n' line in %s", o.file);
    }
    if (o.total && !has_ps) {
        profile_free(&p);
        mw_pareto_runs_free(&runs);
        return mw_cli_usage_error("pareto", "--total needs --static-power or a static_power "
                                            "line in the profile");
    }
    mw_lbopa_device *dev = calloc((size_t)k, sizeof *dev);
    double **split = calloc((size_t)k, sizeof *split);
    double *xs = calloc((size_t)k * (size_t)(k + 1), sizeof *xs);
    long long *xi = calloc((size_t)k, sizeof *xi);
    mw_pareto_front f = {0};
    mw_pareto_te te = {0};
    int has_te = 0;
    pd_query q = {0};
    rc = MW_EXIT_FAIL;
    if (!dev || !split || !xs || !xi) goto out;
    for (int i = 0; i < k; i++) {
        if (p.dev[i].npts) {
            dev[i] = p.dev[i].prof.dev[0];
        } else {
            dev[i].kind = MW_LBOPA_F_LINEAR;
            dev[i].a_s_per_unit = p.dev[i].a;
            dev[i].b_J_per_unit = p.dev[i].b;
        }
    }
    /* additivity: only when every device has measured energies */
    int has_add = 0;
    double add_rel = 0;
    size_t add_n = 0;
    if (p.ntog) {
        mw_lbopa_meas *all = NULL;
        size_t nall = 0;
        int every = 1;
        for (int i = 0; i < k; i++)
            every &= p.dev[i].has_e;
        for (int i = 0; every && i < k; i++)
            for (size_t j = 0; j < p.dev[i].npts; j++) {
                mw_lbopa_meas m = p.dev[i].pts[j];
                m.device = i;
                if (add_meas(&all, &nall, m)) {
                    free(all);
                    goto out;
                }
            }
        for (size_t j = 0; every && j < p.ntog; j++)
            if (add_meas(&all, &nall, p.tog[j])) {
                free(all);
                goto out;
            }
        if (!every) {
            free(all);
            fprintf(stderr, "mw pareto: %s:%d: together needs energies X:T:E for every device\n",
                    o.file, p.tog_line);
            rc = MW_EXIT_USAGE;
            goto out;
        }
        if (mw_lbopa_additivity(all, nall, k, 0, &add_rel, &add_n)) {
            free(all);
            fprintf(stderr,
                    "mw pareto: %s:%d: no size of 'together' was measured on every device\n",
                    o.file, p.tog_line);
            rc = MW_EXIT_USAGE;
            goto out;
        }
        free(all);
        has_add = 1;
    }
    if (mw_lbopa_front(dev, k, n, &f)) {
        fprintf(stderr, "mw pareto: the front could not be computed\n");
        goto out;
    }
    for (int r = 0; r <= f.nseg; r++) {
        split[r] = xs + (size_t)r * (size_t)k;
        if (mw_lbopa_partition(&f, f.t_s[r], split[r])) {
            fprintf(stderr, "mw pareto: PARTITION failed at the front's point %d\n", r);
            goto out;
        }
    }
    if (o.total) {
        if (mw_lbopa_te(&f, ps, &te)) goto out;
        has_te = 1;
    }
    if (o.has_time || o.has_energy) {
        q.has = 1;
        q.x = xs + (size_t)k * (size_t)k;
        q.xi = xi;
        if (o.has_time) {
            q.by = "time";
            q.asked = q.t_s = o.time_s;
            if (mw_pareto_segment(&f, o.time_s) < 0) {
                rc = mw_cli_usage_error("pareto", "--time %.6g: off the front, [%.6g, %.6g] s",
                                        o.time_s, f.t_s[0], f.t_s[f.nseg]);
                goto out;
            }
        } else if (o.total) {
            q.by = "total_energy";
            q.asked = o.energy_J;
            if (te_time_for(&te, o.energy_J, &q.t_s)) {
                double least = te.npieces ? te.piece[te.npieces - 1].e1_J : te.emax_J;
                rc = mw_cli_usage_error("pareto",
                                        "--energy %.6g: below the least total energy, "
                                        "%.6g J",
                                        o.energy_J, least);
                goto out;
            }
        } else {
            q.by = "energy";
            q.asked = o.energy_J;
            if (mw_pareto_time_for_energy_s(&f, o.energy_J, &q.t_s)) {
                rc = mw_cli_usage_error("pareto",
                                        "--energy %.6g: below the least dynamic energy, %.6g J",
                                        o.energy_J, f.e_J[f.nseg]);
                goto out;
            }
        }
        if (mw_lbopa_partition(&f, q.t_s, q.x) || mw_pareto_energy_J(&f, q.t_s, &q.e_J)) {
            fprintf(stderr, "mw pareto: PARTITION failed at t = %.6g s\n", q.t_s);
            goto out;
        }
        if (n == floor(n) && n <= 9007199254740992.0 &&
            mw_lbopa_round(dev, k, q.x, (long long)n, xi) == 0) {
            double *xd = calloc((size_t)k, sizeof *xd);
            if (!xd) goto out;
            for (int i = 0; i < k; i++)
                xd[i] = (double)xi[i];
            q.int_t_s = mw_lbopa_T_s(dev, k, xd);
            q.int_e_J = mw_lbopa_E_J(dev, k, xd);
            free(xd);
            q.has_int = 1;
        }
    }
    if (o.json)
        print_json(&p, &o, &f, has_te ? &te : NULL, ps, has_ps, &q, split, dev, has_add, add_rel,
                   add_n);
    else
        print_text(&p, &o, &f, has_te ? &te : NULL, ps, has_ps, &q, split, dev, has_add, add_rel,
                   add_n);
    rc = fflush(stdout) ? MW_EXIT_FAIL : MW_EXIT_OK;
out:
    mw_pareto_te_free(&te);
    mw_pareto_front_free(&f);
    free(dev);
    free(split);
    free(xs);
    free(xi);
    profile_free(&p);
    mw_pareto_runs_free(&runs);
    return rc;
}
