/* cmd_pareto — "mw pareto PROFILE [--time S | --energy J] [--static-power W] [--total]
 * [--n N] [--json]": the time / energy Pareto front of a workload of n units split over
 * devices (Khaleghzadeh et al.; models/include/lbopa.h, docs/models.md "Bi-objective workload
 * distribution").
 *
 * PROFILE is a text file (docs/models.md gives the format): "n N", "static_power W",
 * "device NAME [a=S_PER_UNIT] [b=J_PER_UNIT] [X:T[:E]]..." and "together X:E..." lines,
 * read by libmw (mw_profile.h). libmwmodels (pareto.h) makes the devices of it (devices
 * with measured points through the profile builder one by one: mean time per size; b fitted
 * from the energies unless b= is given), the additivity figure of the "together" lines, the
 * front and the split for a time or an energy. Prints the devices by rank, the front's
 * end-points with PARTITION's split at each, its segments; with a static power and --total,
 * LBOPA-TE's pieces; with --time or --energy, the split for that point (real and rounded to
 * integers summing to n when n is an integer).
 *
 * "mw pareto RUNDIR... --units COUNTER": the profile is built from runs (pareto_runs.h),
 * written as profile text in memory (and to --profile-out FILE) and read by the same reader,
 * so a profile from runs and one from a file go through one path. With --per-device the
 * devices are each working host's in-band devices (pareto_device.h): explicit, not chosen
 * automatically, since mw record keeps whatever in-band source is present and a run's
 * profile must not change meaning with the machine it was recorded on.
 *
 * Bad usage or a bad profile is one line on stderr naming the option or FILE:LINE, exit 2,
 * before anything is printed. No NaN or infinity is printed: every number comes from
 * checked finite input through functions that return -1 rather than NaN. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "mw_fs.h"
#include "mw_profile.h"
#include "pareto.h"
#include "pareto_out.h"
#include "pareto_runs.h"

#define ERR_MAX 16384 /* a profile's message quotes a keyword or a device name whole */

typedef struct {
    const char *file; /* the profile, or a description of the runs */
    double time_s, energy_J, ps, n;
    int has_time, has_energy, has_ps, has_n, total, json, per_device;
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
            "       mw pareto RUNDIR... --units COUNTER --n N [--per-device]\n"
            "                 [--profile-out FILE] [...]\n\n"
            "The Pareto front of execution time and dynamic energy for n units of work split\n"
            "over devices with time functions f_i (linear, or piecewise-linear through\n"
            "measured points) and dynamic energy b_i x (Khaleghzadeh et al. 2023: LBOPA,\n"
            "PARTITION, LBOPA-TE).\n"
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
            "                     (--time, --energy, --n: 1e-9 to 1e15; --static-power 0 to\n"
            "                     1e15, as in a profile)\n"
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
            "  --per-device       the devices are the in-band ones of each working host (RAPL\n"
            "                     packages, NVML GPUs; record with --inband): each one's\n"
            "                     dynamic energy from its own counter; those whose power rose\n"
            "                     worked (one: alone; several: together, each given the\n"
            "                     host's counter / their number); the wall's rest reported\n"
            "  --profile-out FILE write the profile built from the runs to FILE\n"
            "  --n N              units of work (overrides the profile's n)\n"
            "  --json             one JSON object instead of text (docs/models.md)\n"
            "  -h, --help         this text\n\n"
            "Exit status: 0 done, 1 the computation failed, 2 bad usage or profile, or a time\n"
            "or energy off the front.\n");
}

/* ---- options ------------------------------------------------------------------------- */

/* --time (s), --energy (J), --static-power (W) and --n (units): plain decimal numbers in
 * their ranges (mw_cli_double). -1, or the exit status. */
static int number_opt(int c, const char *arg, pd_opts *o)
{
    static const char *const name[] = {"--time", "--energy", "--static-power", "--n"};
    static const char *const unit[] = {"s", "J", "W", "units"};
    static const double lo[] = {MW_PROFILE_MIN, MW_PROFILE_MIN, 0, MW_PROFILE_MIN};
    double hi = MW_PROFILE_MAX; /* the profile's own range (mw_profile.h) */
    int i = c == 't' ? 0 : c == 'e' ? 1 : c == 'p' ? 2 : 3;
    double *value[] = {&o->time_s, &o->energy_J, &o->ps, &o->n};
    int *has[] = {&o->has_time, &o->has_energy, &o->has_ps, &o->has_n};
    double v;
    int rc = mw_cli_double("pareto", name[i], arg, lo[i], hi, unit[i], &v);
    if (rc) return rc;
    *value[i] = v;
    *has[i] = 1;
    return -1;
}

/* The options; -1 to go on (optind at the first operand), or the exit status. */
static int parse_opts(int argc, char **argv, pd_opts *o)
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
        {"per-device", no_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0;
    opterr = 0;
    int c, rc = -1;
    while (rc < 0 && (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("pareto", &seen, opts, c, NULL);
        if (once) return once;
        switch (c) {
        case 't':
        case 'e':
        case 'p':
        case 'n':
            rc = number_opt(c, optarg, o);
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
        case 'D':
            o->per_device = 1;
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
    return rc;
}

/* Options, then one PROFILE or run directories. -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, pd_opts *o)
{
    int rc = parse_opts(argc, argv, o);
    if (rc >= 0) return rc;
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
    if (o->units || o->profile_out || o->per_device)
        return mw_cli_usage_error("pareto", "%s is for run directories, not a PROFILE",
                                  o->units ? "--units"
                                  : o->per_device ? "--per-device"
                                                  : "--profile-out");
    o->file = argv[optind];
    return -1;
}

/* ---- the profile ----------------------------------------------------------------------- */

/* The runs read and written as profile text (with n and the static power of the options)
 * into *text. -1, or the exit status after a message. */
static int runs_text(const pd_opts *o, mw_pareto_runs *runs, char **text, size_t *len)
{
    char err[512] = "";
    if (mw_pareto_runs_read_mode(o->dirs, o->ndirs, o->units, o->per_device, runs, err,
                                 sizeof err)) {
        fprintf(stderr, "mw pareto: %s\n", err);
        return MW_EXIT_USAGE;
    }
    FILE *mem = open_memstream(text, len);
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
    int oom = fclose(mem) || !*text;
    if (oom || bad) {
        free(*text);
        *text = NULL;
        fprintf(stderr, "mw pareto: %s\n", oom ? "out of memory" : err);
        return oom ? MW_EXIT_FAIL : MW_EXIT_USAGE;
    }
    return -1;
}

/* The profile and its devices, from the file or from the runs (o->file then describes
 * them; their text goes to --profile-out once it has been read). -1, or the exit status
 * after a message. */
static int load(pd_opts *o, mw_pareto_runs *runs, mw_profile *p, mw_pareto_devices *d, char *desc,
                size_t desclen)
{
    char err[ERR_MAX], *text = NULL;
    size_t len = 0;
    FILE *in = NULL;
    int rc;
    if (o->dirs) {
        if ((rc = runs_text(o, runs, &text, &len)) >= 0) return rc;
        snprintf(desc, desclen, "profile from %d run%s", o->ndirs, o->ndirs == 1 ? "" : "s");
        o->file = desc;
        o->runs = runs;
        if (!(in = fmemopen(text, len, "r"))) {
            free(text);
            fprintf(stderr, "mw pareto: out of memory\n");
            return MW_EXIT_FAIL;
        }
    }
    /* a file is read within its bounds (mw_profile.h): not a FIFO that never ends */
    rc = (in ? mw_profile_read(in, o->file, p, err, sizeof err)
             : mw_profile_load(o->file, p, err, sizeof err)) ||
                 mw_pareto_devices_build(p, d, err, sizeof err)
             ? MW_EXIT_USAGE
             : -1;
    if (in) fclose(in);
    if (rc >= 0) fprintf(stderr, "mw pareto: %s\n", err);
    if (rc < 0 && o->profile_out) {
        char tmp[PATH_MAX + 16], ferr[PATH_MAX + 300];
        FILE *f = mw_fs_fopen_replace(o->profile_out, tmp, sizeof tmp, ferr, sizeof ferr);
        int werr = !f || fputs(text, f) == EOF;
        if (f && fclose(f)) werr = 1;
        if (f && werr) {
            snprintf(ferr, sizeof ferr, "%s: %s", o->profile_out, strerror(errno));
            unlink(tmp);
        }
        if (!werr && mw_fs_commit_replace(tmp, o->profile_out, ferr, sizeof ferr)) werr = 1;
        if (werr) { /* a link at the name is replaced, never written through (mw_fs.h) */
            fprintf(stderr, "mw pareto: --profile-out %s\n", ferr);
            rc = MW_EXIT_USAGE;
        }
    }
    free(text);
    return rc;
}

/* ---- the command ----------------------------------------------------------------------- */

/* The usage error for a time or energy off the front. */
static int off_front(const pd_opts *o, const mw_pareto_solution *s)
{
    const mw_pareto_front *f = &s->front;
    if (s->by == MW_PARETO_BY_TIME)
        return mw_cli_usage_error("pareto", "--time %.6g: off the front, [%.6g, %.6g] s", o->time_s,
                                  f->t_s[0], f->t_s[f->nseg]);
    if (s->by == MW_PARETO_BY_TOTAL_ENERGY)
        return mw_cli_usage_error("pareto", "--energy %.6g: below the least total energy, %.6g J",
                                  o->energy_J, mw_pareto_te_least_energy_J(&s->te));
    return mw_cli_usage_error("pareto", "--energy %.6g: below the least dynamic energy, %.6g J",
                              o->energy_J, f->e_J[f->nseg]);
}

/* The additivity figure, the front and the query into *s, printed as r. Returns the exit
 * status. */
static int solve(const pd_opts *o, const mw_profile *p, const mw_pareto_devices *d,
                 mw_pareto_solution *s, mw_pareto_report *r)
{
    char err[ERR_MAX] = "";
    if (p->ntogether) {
        if (mw_pareto_additivity(p, &r->add_rel, &r->add_n, err, sizeof err)) {
            fprintf(stderr, "mw pareto: %s\n", err);
            return MW_EXIT_USAGE;
        }
        r->has_add = 1;
    }
    mw_pareto_by by = o->has_time      ? MW_PARETO_BY_TIME
                      : !o->has_energy ? MW_PARETO_NO_QUERY
                      : o->total       ? MW_PARETO_BY_TOTAL_ENERGY
                                       : MW_PARETO_BY_ENERGY;
    int rc = mw_pareto_solve(d->dev, d->k, o->has_n ? o->n : p->n_units, r->ps_W, o->total, by,
                             o->has_time ? o->time_s : o->energy_J, s, err, sizeof err);
    if (rc == MW_PARETO_OFF_FRONT) return off_front(o, s);
    if (rc) {
        if (err[0]) fprintf(stderr, "mw pareto: %s\n", err);
        return MW_EXIT_FAIL;
    }
    if (o->json)
        mw_pareto_print_json(stdout, r);
    else
        mw_pareto_print_text(stdout, r);
    return fflush(stdout) ? MW_EXIT_FAIL : MW_EXIT_OK;
}

int cmd_pareto(int argc, char **argv)
{
    pd_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    mw_profile p = {0};
    mw_pareto_devices d = {0};
    mw_pareto_runs runs = {0};
    mw_pareto_solution s = {0};
    char desc[64];
    if ((rc = load(&o, &runs, &p, &d, desc, sizeof desc)) >= 0) goto out;
    mw_pareto_report r = {
        .source = o.file, .runs = o.runs, .units = o.units, .profile = &p, .dev = d.dev, .s = &s};
    r.ps_W = o.has_ps ? o.ps : p.static_power_W;
    r.has_ps = o.has_ps || p.has_static_power;
    if (!o.has_n && !p.has_n)
        rc = mw_cli_usage_error("pareto", "no workload: give --n N or an 'n' line in %s", o.file);
    else if (o.total && !r.has_ps)
        rc = mw_cli_usage_error("pareto", "--total needs --static-power or a static_power "
                                          "line in the profile");
    else
        rc = solve(&o, &p, &d, &s, &r);
out:
    mw_pareto_solution_free(&s);
    mw_pareto_devices_free(&d);
    mw_profile_free(&p);
    mw_pareto_runs_free(&runs);
    return rc;
}
