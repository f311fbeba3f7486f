/* cmd_align — "mw align RUNDIR [--channel NAME] [--phases KIND|NAME] [--json]": the
 * alignment check (models/include/align.h, docs/analysis.md "Alignment check"): how many ms the
 * meter's windows are off the program's phases, with its uncertainty, and the drift
 * between the run's start and end.
 *
 * Inside one snapshot it picks the channel (--channel, else the first whose host ran busy
 * phases, else the only channel), takes the busy phases of that host (all hosts for a
 * channel without one): those of kind or name --phases, else of kind compute, else of kind
 * user; models/include/align_run.h reads them, each process's (rank, pid) merged into their union so
 * that nested or per-thread phases count once, and the channel's windows, in seconds since
 * the run's start, for mw_align_estimate(). Text by default, or one JSON
 * object. No pattern (no such phases, or none beginning or ending within the windows) is
 * unusable input: exit 2; a pattern the power does not follow, or not better than shifted
 * copies of it (models/include/align.h's significance test), prints "cannot tell" and
 * exits 1. Without compute or user phases the busy shape is each process's computation by
 * the one rule (mw_phase_class.h), inferred from its MPI phases. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align.h"
#include "align_inband.h"
#include "align_run.h"
#include "builtin.h"
#include "cli.h"
#include "textout.h"
#include "mw_run.h"
#include "mw_store.h"
#include "json_schema.h"

typedef struct {
    const char *rundir;
    const char *channel; /* NULL: pick */
    const char *phases;  /* NULL: compute, else user */
    int json, inband;    /* --inband: against the in-band power (align_inband.c) */
} align_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw align RUNDIR [--channel NAME] [--phases KIND|NAME] [--inband] [--json]\n\n"
            "Estimates how far the meter's windows are off the host's timeline, from a load\n"
            "pattern in the run's phases: the busy phases' shape (1 while a process is busy,\n"
            "0 idle), averaged over every window shifted by a trial offset, is correlated with\n"
            "the measured window powers within +-2 s; the best offset is refined to a fraction\n"
            "of a ms. The match is tested against 39 shifted copies of the pattern: unless it\n"
            "beats them all, and no other offset fits about as well, the answer is \"cannot\n"
            "tell\", never a number. With a significant pattern at both ends of the run the\n"
            "offset is estimated at each end too, giving the drift. The uncertainty is one\n"
            "standard error of the least-squares fit, widened when the residuals are\n"
            "correlated (docs/analysis.md, \"Alignment check\").\n\n"
            "  --channel NAME       the channel to check (default: the first whose host ran\n"
            "                       busy phases, or the only channel)\n"
            "  --phases KIND|NAME   the busy phases: those of this kind or name (default: kind\n"
            "                       compute, else kind user, else the computation inferred\n"
            "                       from the MPI phases: each process's time outside MPI)\n"
            "  --inband             instead, each node's wall channel against its in-band\n"
            "                       power (RAPL, GPUs: mw record --inband; docs/inband.md)\n"
            "  --json               one JSON object instead of text\n"
            "  -h, --help           this text\n\n"
            "Offsets are in ms, positive when the meter's timeline is late (a change of power\n"
            "is stamped after the phase that caused it); drift in ppm, positive when the\n"
            "offset grows during the run.\n\n"
            "Exit status: 0 estimated, 1 cannot tell (the power does not follow the pattern\n"
            "better than chance, or the pattern repeats), 2 bad usage, not a run, or no load\n"
            "pattern.\n");
}

/* Returns -1 when parsing went fine, else the exit code. */
static int parse_args(int argc, char **argv, align_opts *o)
{
    static const struct option opts[] = {
        {"channel", required_argument, NULL, 'c'},
        {"phases", required_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},
        {"inband", no_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    mw_cli_seen seen = {0}; /* options that take one value: once each (cli.h) */
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int once = mw_cli_once_opt("align", &seen, opts, c, NULL);
        if (once) return once;
        switch (c) {
        case 'c':
            if (!*optarg) return mw_cli_usage_error("align", "--channel: needs a name");
            o->channel = optarg;
            break;
        case 'p':
            if (!*optarg) return mw_cli_usage_error("align", "--phases: needs a kind or name");
            o->phases = optarg;
            break;
        case 'j':
            o->json = 1;
            break;
        case 'i':
            o->inband = 1;
            break;
        case 'h':
            usage(stdout);
            return MW_EXIT_OK;
        case ':':
            return mw_cli_usage_error("align", "option '%s' needs a value", argv[optind - 1]);
        default:
            return mw_cli_usage_error("align", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return mw_cli_usage_error("align", "missing RUNDIR");
    if (argc - optind > 1)
        return mw_cli_usage_error("align", "unexpected argument '%s' (one RUNDIR only)",
                                  argv[optind + 1]);
    o->rundir = argv[optind];
    return -1;
}

/* ---- reading the run (models/include/align_run.h) ------------------------------------------------- */

typedef struct {
    mw_store *s;
    const char *rundir;
    int64_t origin_ns;
    mw_align_channel ch;
    char select[256]; /* what the phases were selected by, for the report */
    size_t phases, processes;
    mw_align_window *w;
    size_t nw;
    mw_align_span *sp;
    size_t nsp;
} align_run;

static int run_error(const align_run *r)
{
    fprintf(stderr, "mw align: %s\n", mw_store_error(r->s));
    return MW_EXIT_FAIL;
}

/* The selector for r->ch's host (any host when it has none): --phases, else compute, else
 * user. sel->what = NULL: none found. */
static int pick_phases(align_run *r, const align_opts *o, mw_align_selector *sel, int64_t *count)
{
    static const char *const kinds[] = {"compute", "user"};
    *sel = (mw_align_selector){*r->ch.host ? r->ch.host : NULL, o->phases, 1, 0};
    *count = 0;
    if (o->phases) {
        if (mw_align_run_count(r->s, sel, count)) return run_error(r);
        if (!*count) sel->what = NULL;
        return 0;
    }
    sel->by_name = 0;
    for (int i = 0; i < 2; i++) {
        sel->what = kinds[i];
        if (mw_align_run_count(r->s, sel, count)) return run_error(r);
        if (*count) return 0;
    }
    /* none marked: the computation by the one rule, inferred from the MPI phases */
    sel->what = "computation";
    sel->computation = 1;
    if (mw_align_run_count(r->s, sel, count)) return run_error(r);
    if (*count) return 0;
    sel->computation = 0;
    sel->what = NULL;
    return 0;
}

static const char *what_phases(const align_opts *o)
{
    return o->phases ? o->phases : "compute or user (nor MPI phases to infer the computation from)";
}

/* The channel named --channel, or the first whose host ran busy phases (any channel when
 * it is the only one). -1 when done, else the exit code after a message. */
static int pick_channel(align_run *r, const align_opts *o, const mw_align_channel *list, int n,
                        mw_align_selector *sel, int64_t *count)
{
    char names[512] = "";
    for (int i = 0; i < n; i++) {
        size_t len = strlen(names);
        if (len < sizeof names - 1)
            snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", list[i].name);
    }
    int i = 0;
    if (o->channel) {
        while (i < n && strcmp(list[i].name, o->channel))
            i++;
        if (i == n) {
            fprintf(stderr, "mw align: %s: no channel '%s' (channels: %s)\n", r->rundir, o->channel,
                    names);
            return MW_EXIT_USAGE;
        }
        r->ch = list[i];
        return pick_phases(r, o, sel, count) ? MW_EXIT_FAIL : -1;
    }
    for (; i < n && !sel->what; i++) {
        if (!*list[i].host && n > 1) continue;
        r->ch = list[i];
        if (pick_phases(r, o, sel, count)) return MW_EXIT_FAIL;
    }
    if (!sel->what && n > 1) {
        fprintf(stderr,
                "mw align: %s: no load pattern: no channel's host ran phases of kind %s "
                "(choose one with --channel, the phases with --phases KIND|NAME)\n",
                r->rundir, what_phases(o));
        return MW_EXIT_USAGE;
    }
    return -1;
}

/* Pick the channel and the phases. Returns -1 when done, else the exit code. */
static int pick(align_run *r, const align_opts *o, mw_align_selector *sel)
{
    mw_align_channel list[MW_ALIGN_MAX_CHANNELS];
    int n;
    if (mw_align_run_channels(r->s, list, &n)) return run_error(r);
    if (!n) {
        fprintf(stderr, "mw align: %s: the run has no channels\n", r->rundir);
        return MW_EXIT_USAGE;
    }
    int64_t count = 0;
    sel->what = NULL;
    int rc = pick_channel(r, o, list, n, sel, &count);
    if (rc >= 0) return rc;
    if (!sel->what) {
        fprintf(stderr,
                "mw align: %s: no load pattern: no phases %s %s%s%s (choose them with --phases "
                "KIND|NAME)\n",
                r->rundir, o->phases ? "of kind or name" : "of kind", what_phases(o),
                *r->ch.host ? " on host " : "", r->ch.host);
        return MW_EXIT_USAGE;
    }
    r->phases = (size_t)count;
    if (sel->computation)
        snprintf(r->select, sizeof r->select,
                 "the computation (time outside MPI and waits, inferred)%s%.120s",
                 *r->ch.host ? " on " : " on any host", r->ch.host);
    else
        snprintf(r->select, sizeof r->select, "%s '%.80s'%s%.120s",
                 sel->by_name ? "kind or name" : "kind", sel->what,
                 *r->ch.host ? " on " : " on any host", r->ch.host);
    return -1;
}

/* The channel's windows and the selected processes' busy spans. -1, or the exit code. */
static int load(align_run *r, const mw_align_selector *sel)
{
    if (mw_align_run_windows(r->s, r->ch.channel, r->origin_ns, &r->w, &r->nw) ||
        mw_align_run_spans(r->s, sel, r->origin_ns, &r->sp, &r->nsp, &r->processes))
        return run_error(r);
    return -1;
}

/* ---- output ----------------------------------------------------------------------------- */

static void json_fit(FILE *out, const char *key, const mw_align_fit *f, int have)
{
    fprintf(out, ",\n  \"%s\": ", key);
    if (!have) {
        fputs("null", out);
        return;
    }
    fprintf(out,
            "{\"time_s\": %.3f, \"offset_ms\": %.3f, \"uncertainty_ms\": %.3f, "
            "\"correlation\": %.4f, \"p_value\": %.3f, \"windows\": %zu, \"edges\": %zu}",
            f->time_s, f->offset_s * 1e3, f->sigma_s * 1e3, f->correlation, f->p_value, f->windows,
            f->edges);
}

/* a number, or null when told is 0 */
static void json_num(FILE *out, const char *key, int told, const char *fmt, double v)
{
    fprintf(out, ",\n  \"%s\": ", key);
    if (told)
        fprintf(out, fmt, v);
    else
        fputs("null", out);
}

static void print_json(const align_run *r, const mw_align_result *a, int told)
{
    FILE *out = stdout;
    fputs("{\n  \"schema\": \"" MW_SCHEMA_ALIGN "\",\n  \"run\": ", out);
    mw_out_json_string(out, r->rundir);
    fputs(",\n  \"channel\": ", out);
    mw_out_json_string(out, r->ch.name);
    fputs(",\n  \"host\": ", out);
    if (*r->ch.host)
        mw_out_json_string(out, r->ch.host);
    else
        fputs("null", out);
    fputs(",\n  \"phases\": ", out);
    mw_out_json_string(out, r->select);
    const mw_align_fit *f = &a->all;
    fprintf(out,
            ",\n  \"phase_count\": %zu,\n  \"processes\": %zu,\n  \"windows\": %zu,\n"
            "  \"edges\": %zu,\n  \"significant\": %s",
            r->phases, r->processes, f->windows, f->edges, told ? "true" : "false");
    json_num(out, "offset_ms", told, "%.3f", f->offset_s * 1e3);
    json_num(out, "uncertainty_ms", told, "%.3f", f->sigma_s * 1e3);
    fprintf(out, ",\n  \"correlation\": %.4f,\n  \"shifted_patterns\": %zu", f->correlation,
            f->shifts);
    /* the test's figures only where the test ran, the fit's only where it told */
    json_num(out, "shifted_best_correlation", f->shifts > 0, "%.4f", f->null_r);
    json_num(out, "p_value", f->shifts > 0, "%.3f", f->p_value);
    json_num(out, "peak_width_ms", told, "%.1f", f->peak_width_s * 1e3);
    json_num(out, "residual_correlation_windows", told, "%.2f", f->tau);
    json_num(out, "base_w", told, "%.3f", f->base_w);
    json_num(out, "gain_w", told, "%.3f", f->gain_w);
    json_num(out, "noise_w", told, "%.3f", f->noise_w);
    json_fit(out, "start", &a->head, a->have_drift);
    json_fit(out, "end", &a->tail, a->have_drift);
    if (a->have_drift)
        fprintf(out, ",\n  \"drift_ppm\": %.1f,\n  \"drift_uncertainty_ppm\": %.1f", a->drift_ppm,
                a->drift_sigma_ppm);
    else
        fputs(",\n  \"drift_ppm\": null,\n  \"drift_uncertainty_ppm\": null", out);
    fputs(",\n  \"note\": ", out);
    if (a->note[0])
        mw_out_json_string(out, a->note);
    else
        fputs("null", out);
    fputs("\n}\n", out);
}

static void print_text(const align_run *r, const mw_align_result *a, int told)
{
    const mw_align_fit *f = &a->all;
    printf("run          ");
    mw_out_text(stdout, r->rundir);
    printf("\nchannel      ");
    mw_out_text(stdout, r->ch.name);
    if (*r->ch.host) {
        printf(" (host ");
        mw_out_text(stdout, r->ch.host);
        printf(")");
    }
    printf("\npattern      %zu phases of ", r->phases);
    mw_out_text(stdout, r->select);
    printf(", %zu process%s; %zu edges in %zu windows\n", r->processes,
           r->processes == 1 ? "" : "es", f->edges, f->windows);
    if (!told) {
        printf("offset       cannot tell\n");
        printf("why          ");
        mw_out_text(stdout, a->note);
        printf("\n");
        if (f->shifts)
            printf("test         r = %.4f at the best offset; %zu shifted copies of the pattern "
                   "reach %.4f (p = %.3f)\n",
                   f->correlation, f->shifts, f->null_r, f->p_value);
        printf("drift        cannot tell\n");
        return;
    }
    printf("offset       %+.3f ms +- %.3f ms (1 standard error; positive: the meter is late)\n",
           f->offset_s * 1e3, f->sigma_s * 1e3);
    printf("test         beats %zu shifted copies of the pattern (best of them r = %.4f; "
           "p <= %.3f); correlation peak %.0f ms wide\n",
           f->shifts, f->null_r, f->p_value, f->peak_width_s * 1e3);
    printf("fit          r = %.4f; power = %.3f W + %.3f W x busy processes, residual %.3f W",
           f->correlation, f->base_w, f->gain_w, f->noise_w);
    if (f->tau > 1.5)
        printf(" (correlated over %.1f windows: the error is widened by %.1fx)", f->tau,
               sqrt(f->tau));
    printf("\n");
    if (a->have_drift) {
        printf("start        %+.3f ms +- %.3f ms at %.3f s (%zu edges)\n", a->head.offset_s * 1e3,
               a->head.sigma_s * 1e3, a->head.time_s, a->head.edges);
        printf("end          %+.3f ms +- %.3f ms at %.3f s (%zu edges)\n", a->tail.offset_s * 1e3,
               a->tail.sigma_s * 1e3, a->tail.time_s, a->tail.edges);
        printf("drift        %+.1f ppm +- %.1f ppm (positive: the offset grows)\n", a->drift_ppm,
               a->drift_sigma_ppm);
    } else {
        printf("drift        cannot tell (");
        mw_out_text(stdout, a->note);
        printf(")\n");
    }
}

int cmd_align(int argc, char **argv)
{
    align_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if (!mw_store_exists(o.rundir)) {
        fprintf(stderr, "mw align: %s: not a run (no %s there)\n", o.rundir, MW_STORE_DB_NAME);
        return MW_EXIT_USAGE;
    }
    if (o.inband) return mw_align_inband_cmd(o.rundir, o.json);
    char err[1024];
    align_run r = {.rundir = o.rundir};
    if (!(r.s = mw_store_open(o.rundir, err, sizeof err))) {
        int code = errno == EINVAL ? MW_EXIT_USAGE : MW_EXIT_FAIL; /* not a run store: 2 */
        fprintf(stderr, "mw align: %s\n", err);
        return code;
    }
    mw_run_snapshot_begin(r.s);
    if (mw_store_start_ns(r.s, &r.origin_ns)) r.origin_ns = 0;
    mw_align_selector sel;
    rc = pick(&r, &o, &sel);
    if (rc < 0) rc = load(&r, &sel);
    mw_run_snapshot_end(r.s);
    if (rc < 0 && !r.nw) {
        fprintf(stderr, "mw align: %s: channel '%s' has no samples\n", o.rundir, r.ch.name);
        rc = MW_EXIT_USAGE;
    }
    if (rc < 0) {
        mw_align_result a;
        int e = mw_align_estimate(r.w, r.nw, r.sp, r.nsp, 0, &a);
        if (e == MW_ALIGN_NO_PATTERN) {
            fprintf(stderr, "mw align: %s: no load pattern in channel '%s': %s\n", o.rundir,
                    r.ch.name, a.note);
            rc = MW_EXIT_USAGE;
        } else if (e && e != MW_ALIGN_NOT_SIGNIFICANT) {
            fprintf(stderr, "mw align: %s: channel '%s': %s\n", o.rundir, r.ch.name, a.note);
            rc = MW_EXIT_FAIL;
        } else {
            if (o.json)
                print_json(&r, &a, !e);
            else
                print_text(&r, &a, !e);
            rc = e ? MW_EXIT_FAIL : MW_EXIT_OK;
        }
    }
    free(r.w);
    free(r.sp);
    mw_store_close(r.s);
    return rc;
}
