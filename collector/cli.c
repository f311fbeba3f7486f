/* cli — see cli.h. Global options are --help and --version; everything else is
 * "mw COMMAND [ARGS]" looked up in mw_cli_commands, whose order is the order of a user's work
 * (record, look, report, model, exchange, the meter itself) and of the README's command list. */
#include "cli.h"

#include "builtin.h"
#include "dvfs_run.h"
#include "mw_num.h"
#include "mw_profile.h"

#include <float.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const mw_cli_command mw_cli_commands[] = {
    {"record", "record the meter while a command runs, into a run directory", cmd_record},
    {"sweep", "record a command over a grid of parameters, repeated; resumable", cmd_sweep},
    {"ls", "list runs: status, start, duration, channels, samples, energy", cmd_ls},
    {"show", "a run's metadata, and power and energy per channel", cmd_show},
    {"jobs", "energy per Slurm job, per node and switch, from the wall meters", cmd_jobs},
    {"analyze", "energy per channel, phase, rank; Pow_idle/Pow_work; mean +- sd across runs",
     cmd_analyze},
    {"report", "one self-contained HTML page: figures, energy tables, statistics, metadata",
     cmd_report},
    {"plot", "gnuplot figures of runs, sweeps and profiles (docs/plots.md)", cmd_plot},
    {"stats", "compare groups of runs: mean, sd, CI; KS, Mann-Whitney, Kruskal-Wallis", cmd_stats},
    {"align", "check the meter's timeline against the program's phases (offset, drift)", cmd_align},
    {"fit", "fit and validate the runtime/energy model (Escobar et al. 2019, eq. 3-9)", cmd_fit},
    {"dvfs", "choose CPU frequencies that save energy (Fanfakh 2016)", cmd_dvfs},
    {"pareto", "time-energy Pareto front of a workload split (Khaleghzadeh et al. 2023)",
     cmd_pareto},
    {"import", "make a run from another meter's trace (CSV, PowerSensor3, Kwollect, pmlib)",
     cmd_import},
    {"export", "a run's tables as CSV or JSON, or the run as a trace (OTF2, Perfetto)",
     cmd_export},
    {"merge", "put the instrumented program's events into a run (mw record does it)", cmd_merge},
    {"agent", "record one host's meter for mw record --meter-hosts (started by srun/mpirun)",
     cmd_agent},
    {"monitor", "show the meter's readings live, without recording", cmd_monitor},
    {"info", "show the meter's identity, channel map and calibration", cmd_info},
    {"calibrate", "calibrate the meter against reference instruments, save to EEPROM",
     cmd_calibrate},
    {"flash", "write the firmware into a meter with avrdude and check it", cmd_flash},
    {"vmeter", "run the firmware on the simulated board", cmd_vmeter},
    {"version", "print the version of mw and of the firmware it carries", cmd_version},
    {NULL, NULL, NULL},
};

static void print_help(FILE *out)
{
    fprintf(out, "usage: mw [--help | --version] COMMAND [ARGS...]\n\n"
                 "megawatt: power meter toolkit for parallel programs.\n\ncommands:\n");
    for (const mw_cli_command *c = mw_cli_commands; c->name; c++)
        fprintf(out, "  %-12s %s\n", c->name, c->summary);
    fprintf(out, "\n'mw COMMAND --help' describes one command. The papers whose methods mw\n"
                 "implements are cited in the README, \"References\".\n");
}

int mw_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mw%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try 'mw%s%s --help')\n", cmd ? " " : "", cmd ? cmd : "");
    return MW_EXIT_USAGE;
}

int mw_cli_double(const char *cmd, const char *opt, const char *arg, double min, double max,
                  const char *unit, double *out)
{
    int rc = mw_num_double(arg, min, max, out);
    if (rc == 0) return 0;
    if (rc == -1) return mw_cli_usage_error(cmd, "%s: '%s' is not a number", opt, arg);
    return mw_cli_usage_error(cmd, "%s: '%s' is out of range (%g to %g%s%s)", opt, arg, min, max,
                              unit && *unit ? " " : "", unit ? unit : "");
}

int mw_cli_number(const char *arg, double *out)
{
    return mw_num_double(arg, -DBL_MAX, DBL_MAX, out) ? -1 : 0;
}

int mw_cli_int(const char *cmd, const char *opt, const char *arg, int64_t min, int64_t max,
               int64_t *out)
{
    int rc = mw_num_int64(arg, min, max, out);
    if (rc == 0) return 0;
    if (rc == -1) return mw_cli_usage_error(cmd, "%s: '%s' is not a whole number", opt, arg);
    return mw_cli_usage_error(cmd, "%s: '%s' is out of range (%" PRId64 " to %" PRId64 ")", opt,
                              arg, min, max);
}

int mw_cli_check_freqs(const char *cmd, const char *list)
{
    double ghz[MW_DVFS_MAX_GEARS];
    size_t n = 0;
    char source[64], err[512];
    if (mw_dvfs_gears_load(list, ghz, &n, source, sizeof source, err, sizeof err))
        return mw_cli_usage_error(cmd, "%s", err);
    return 0;
}

int mw_cli_check_profile(const char *cmd, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "mw %s: %s: cannot read the profile\n", cmd, path);
        return MW_EXIT_USAGE;
    }
    mw_profile p;
    char err[1024];
    int rc = mw_profile_read(in, path, &p, err, sizeof err);
    fclose(in);
    if (rc) {
        fprintf(stderr, "mw %s: %s\n", cmd, err);
        return MW_EXIT_USAGE;
    }
    mw_profile_free(&p);
    return 0;
}

int mw_cli_once(const char *cmd, mw_cli_seen *seen, const char *name)
{
    for (int i = 0; i < seen->n; i++)
        if (!strcmp(seen->name[i], name)) return mw_cli_usage_error(cmd, "%s given twice", name);
    if (seen->n < (int)(sizeof seen->name / sizeof seen->name[0]))
        snprintf(seen->name[seen->n++], sizeof seen->name[0], "%s", name);
    return 0;
}

int mw_cli_once_opt(const char *cmd, mw_cli_seen *seen, const struct option *opts, int c,
                    const int *repeatable)
{
    for (const int *r = repeatable; r && *r; r++)
        if (*r == c) return 0;
    for (const struct option *o = opts; o->name; o++) {
        if (o->val != c || o->flag) continue;
        if (o->has_arg == no_argument) return 0;
        char name[48];
        snprintf(name, sizeof name, "--%s", o->name);
        return mw_cli_once(cmd, seen, name);
    }
    return 0; /* a short option with no long name takes no value in any command */
}

int mw_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) return 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    }
    return 0;
}

int mw_cli_main(int argc, char **argv)
{
    if (argc < 2) return mw_cli_usage_error(NULL, "missing command");
    const char *a = argv[1];
    if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "help")) {
        print_help(stdout);
        return MW_EXIT_OK;
    }
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) return cmd_version(1, argv + 1);
    if (a[0] == '-') return mw_cli_usage_error(NULL, "unknown option '%s'", a);
    for (const mw_cli_command *c = mw_cli_commands; c->name; c++)
        if (!strcmp(c->name, a)) return c->run(argc - 1, argv + 1);
    return mw_cli_usage_error(NULL, "unknown command '%s'", a);
}
