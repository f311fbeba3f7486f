/* cmd_analyze — "mw analyze RUNDIR... [--json] [--from S --to S] [--idle-power W|NAME=W]": energy
 * per channel, phase, rank and node, Pow_idle/Pow_work three ways, and mean +- sd across
 * runs (docs/analysis.md describes every figure and JSON key).
 *
 * The command parses its options, has each run analysed by libmwmodels (mw_analysis_read,
 * models/include/mw_analysis.h: the run read through the run store's read API, its windows
 * streamed), checks that every --idle-power NAME names a channel, notes constant channels
 * on stderr, and prints the text report (collector/analyze_print.c) or the JSON document
 * (collector/analyze_json.c).
 * Unusable input (not a run, an unreadable or malformed database, no samples, an empty
 * range) is a one-line message and exit 2, before anything is printed. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_print.h"
#include "builtin.h"
#include "cli.h"
#include "mw_alloc.h"
#include "mw_num.h"
#include "textout.h"
#include "mw_analysis.h"
#include "mw_sweepindex.h"

#define AN_MAX_RUNS 4096
#define AN_MAX_IDLE_W 1e6 /* --idle-power: a megawatt per channel is past any meter */

typedef struct {
    char name[MW_ANALYSIS_NAME];
    int all; /* W for every channel */
    double w;
} idle_power;

typedef struct {
    int json;
    int have_from, have_to;
    double from_s, to_s;
    idle_power idle[MW_ANALYSIS_MAX_CHANNELS + 1];
    int nidle;
} an_opts;

/* ---- arguments --------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out, "usage: mw analyze RUNDIR... [--json] [--from S] [--to S]\n"
                 "                  [--idle-power W|NAME=W[,NAME=W...]]...\n\n"
                 "Energy and power levels of runs (docs/analysis.md):\n"
                 "  per channel   energy (windows' power x time, partial windows pro rata), the\n"
                 "                meter's counter over the same span and the difference, mean\n"
                 "                power, dynamic energy = energy - idle power x time;\n"
                 "                Pow_idle/Pow_work three ways: kde (the paper's method: kernel\n"
                 "                density, its two highest maxima), gmm (2-component Gaussian\n"
                 "                mixture, EM), split (mean power of windows labelled working /\n"
                 "                idle from the compute, user, omp, gpu, cuda phases of its\n"
                 "                ranks, not user phases named idle... or wait...);\n"
                 "  per phase     (kind, name): duration of the union of its intervals, and per\n"
                 "                channel the energy, mean power and dynamic energy during it;\n"
                 "  per rank      the channels measuring its host, its span and work time, and\n"
                 "                their energy;\n"
                 "and, for several runs, mean ± sd per channel name.\n\n"
                 "  --json          one JSON document instead of text (keys: docs/analysis.md)\n"
                 "  --from S        analyse from S seconds after the run's start (default: all;\n"
                 "                  -1e9 to 1e9)\n"
                 "  --to S          ... up to S seconds after it\n"
                 "  --idle-power W  idle power for the dynamic energy: W watts for every channel,\n"
                 "                  or NAME=W[,NAME=W...] per channel (repeatable; 0 to 1e6 W);\n"
                 "                  default: the mean power over the run's idle baseline\n"
                 "                  (mw record --idle)\n"
                 "  -h, --help      this text\n\n"
                 "A RUNDIR may be a SWEEPDIR (mw sweep, docs/sweep.md): its finished runs.\n"
                 "Unusable input (not a run, no samples, an empty range) exits 2.\n");
}

static int parse_idle(an_opts *o, const char *arg)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf)
        return mw_cli_usage_error("analyze", "--idle-power: too long");
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        double w;
        int bad = mw_num_double(eq ? eq + 1 : item, 0, AN_MAX_IDLE_W, &w);
        if (bad == -1)
            return mw_cli_usage_error("analyze", "--idle-power: '%s' is not W or NAME=W", item);
        if (bad)
            return mw_cli_usage_error("analyze", "--idle-power: '%s' is out of range (0 to %g W)",
                                      item, AN_MAX_IDLE_W);
        if (o->nidle == MW_ANALYSIS_MAX_CHANNELS + 1)
            return mw_cli_usage_error("analyze", "--idle-power: too many channels");
        idle_power *ip = &o->idle[o->nidle++];
        ip->all = !eq;
        ip->w = w;
        if (eq) {
            *eq = 0;
            if (!*item || strlen(item) >= sizeof ip->name)
                return mw_cli_usage_error("analyze", "--idle-power: bad channel name '%s'", item);
            snprintf(ip->name, sizeof ip->name, "%s", item);
        }
    }
    return -1;
}

static int parse_args(int argc, char **argv, an_opts *o)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},     {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'}, {"idle-power", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},     {NULL, 0, NULL, 0},
    };
    static const int repeatable[] = {'i', 0};
    mw_cli_seen seen = {0};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        double v;
        int rc = mw_cli_once_opt("analyze", &seen, opts, c, repeatable);
        if (rc) return rc;
        switch (c) {
        case 'j':
            o->json = 1;
            break;
        case 'f':
        case 't':
            if ((rc = mw_cli_double("analyze", c == 'f' ? "--from" : "--to", optarg, -1e9, 1e9, "s",
                                    &v)))
                return rc;
            if (c == 'f') {
                o->have_from = 1;
                o->from_s = v;
            } else {
                o->have_to = 1;
                o->to_s = v;
            }
            break;
        case 'i':
            if ((rc = parse_idle(o, optarg)) >= 0) return rc;
            break;
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("analyze", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("analyze", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return mw_cli_usage_error("analyze", "missing RUNDIR");
    if (argc - optind > AN_MAX_RUNS)
        return mw_cli_usage_error("analyze", "more than %d runs", AN_MAX_RUNS);
    if (o->have_from && o->have_to && o->from_s >= o->to_s)
        return mw_cli_usage_error("analyze", "--from %g is not before --to %g", o->from_s, o->to_s);
    return -1;
}

/* every --idle-power NAME=W must name a channel of the runs */
static int idle_names_known(const an_opts *o, mw_analysis_run *const *runs, int nruns)
{
    for (int k = 0; k < o->nidle; k++) {
        int found = o->idle[k].all;
        for (int i = 0; i < nruns && !found; i++)
            for (size_t c = 0; c < runs[i]->nchannels && !found; c++)
                found = !strcmp(runs[i]->channels[c].name, o->idle[k].name);
        if (!found)
            return mw_cli_usage_error("analyze", "--idle-power: no channel '%s' in the runs",
                                      o->idle[k].name);
    }
    return MW_EXIT_OK;
}

static int print(const an_opts *o, mw_analysis_run *const *runs, int nruns)
{
    for (int i = 0; i < nruns; i++) /* notes, once the input is known to be usable */
        for (size_t c = 0; c < runs[i]->nchannels; c++) {
            const mw_analysis_channel *ch = &runs[i]->channels[c];
            if (!ch->kde.constant) continue;
            char *dir = mw_out_text_dup(runs[i]->dir), *name = mw_out_text_dup(ch->name);
            fprintf(stderr, /* names escaped for the terminal (textout.h) */
                    "mw analyze: %s: channel %s: constant power %.3f W in all %zu "
                    "windows: one level, not bimodal\n",
                    dir, name, ch->constant_power_w, ch->windows);
            free(dir);
            free(name);
        }
    const mw_analysis_run *const *all = (const mw_analysis_run *const *)runs;
    if (o->json)
        mw_analyze_print_json(stdout, all, (size_t)nruns);
    else
        mw_analyze_print_text(stdout, all, (size_t)nruns);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mw analyze: standard output: write error: %s\n", strerror(errno));
        return MW_EXIT_FAIL;
    }
    return MW_EXIT_OK;
}

int cmd_analyze(int argc, char **argv)
{
    an_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    char **dirs, err[1024]; /* a SWEEPDIR becomes its finished runs (sweepindex.h) */
    int nruns;
    if (mw_sweepidx_expand(argc - optind, argv + optind, &dirs, &nruns, err, sizeof err)) {
        fprintf(stderr, "mw analyze: %s\n", err);
        return MW_EXIT_USAGE;
    }
    if (nruns > AN_MAX_RUNS) {
        mw_sweepidx_free_list(dirs, nruns);
        return mw_cli_usage_error("analyze", "more than %d runs", AN_MAX_RUNS);
    }
    mw_analysis_idle_power idle[MW_ANALYSIS_MAX_CHANNELS + 1];
    for (int k = 0; k < o.nidle; k++)
        idle[k] = (mw_analysis_idle_power){o.idle[k].all ? NULL : o.idle[k].name, o.idle[k].w};
    mw_analysis_options ao = {o.have_from, o.have_to, o.from_s, o.to_s, idle, (size_t)o.nidle};
    mw_analysis_run **runs = mw_xcalloc((size_t)nruns, sizeof *runs);
    rc = MW_EXIT_OK;
    for (int i = 0; i < nruns && !rc; i++)
        if (mw_analysis_read(dirs[i], &ao, &runs[i], err, sizeof err)) {
            fprintf(stderr, "mw analyze: %s\n", err);
            rc = MW_EXIT_USAGE;
        }
    if (!rc) rc = idle_names_known(&o, runs, nruns);
    if (!rc) rc = print(&o, runs, nruns);
    for (int i = 0; i < nruns; i++)
        mw_analysis_free(runs[i]);
    free(runs);
    mw_sweepidx_free_list(dirs, nruns);
    return rc;
}
