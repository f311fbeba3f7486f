/* cmd_fit — "mw fit --model escobar RUNDIR... [--mode predict|fit] [--calibration RUNDIR]
 * [--switch NAME] [--confidence P] [--table FILE] [--json]": the runtime/energy model of
 * Escobar et al. (§5.2, eq. 3-9; models/include/escobar.h) against recorded eeg-mofs runs.
 *
 * The command parses its options, hands the runs to libmwmodels' study (escobar_study.h:
 * the runs read, a SWEEPDIR expanded into its finished runs, the calibration applied, the
 * fit per version, the predictions, the NRMSE per version next to the paper's) and prints
 * it. Modes:
 *   predict  the model with the parameters of each run itself, or with --calibration those
 *            of one calibration run: the run's structure only comes from the run;
 *   fit      per version, the time parameters shared by that version's runs (W_CPU/F_CPU,
 *            W_GPU/F_GPU, T_Lm, T_master + T_com) fitted by least squares to the measured
 *            T_cluster, with Student-t intervals; the energy then follows from eq. 9.
 * Reported: per run measured and predicted time and energy; per version NRMSE of both next
 * to the paper's; the parameters. --table FILE writes the per-run figures as whitespace-
 * separated columns with a '#' header, sorted by version and N_Spop, for gnuplot. The
 * study's notes are printed as "mw fit: note: ..." on stderr as they happen.
 *
 * Exit 0; 2 for bad usage, an unreadable run, a missing parameter (the message names it and
 * how to get it) or a fit with too few runs. No NaN or inf is printed: an undefined figure is
 * "-" in text and null in JSON. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "escobar_study.h"
#include "mw_fs.h"
#include "longopt.h"
#include "textout.h"
#include "json_schema.h"

#define CMD "fit"

typedef struct {
    const char *model, *mode, *calibration, *switch_name, *table;
    int json, fit;
    double confidence;
    char **runs;
    int nruns;
} fit_opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw fit --model escobar RUNDIR|SWEEPDIR... [--mode predict|fit]\n"
            "              [--calibration RUNDIR] [--switch NAME] [--confidence P] [--table FILE]\n"
            "              [--json]\n\n"
            "The runtime and energy model of Escobar et al. 2019 (eq. 3-9) against eeg-mofs\n"
            "runs recorded by 'mw record -- mpirun ... eeg-mofs ...': per run the measured\n"
            "and predicted time (the N_Gm global epochs) and energy (every channel over\n"
            "them), NRMSE per version next to the paper's (time 0.439 v2, 0.787 v3; energy\n"
            "0.403 v2, 0.744 v3), and the parameters.\n\n"
            "  --model escobar      the model (required; the only one so far)\n"
            "  --mode predict       parameters from each run itself, or from --calibration\n"
            "                       (default)\n"
            "  --mode fit           per version, W/F (CPU, GPU), T_Lm and T_master + T_com\n"
            "                       fitted by least squares to the runs' measured times, with\n"
            "                       confidence intervals (needs as many runs as parameters)\n"
            "  --calibration RUNDIR take the time parameters and the channels' power levels\n"
            "                       from this run (predict), or start the fit from them\n"
            "  --switch NAME        the switch's channel (default: a channel named *switch*)\n"
            "  --confidence P       of the intervals, 1e-6 to 0.999999 (default 0.95)\n"
            "  --table FILE         per-run columns for plotting (version n_spop t_measured_s\n"
            "                       t_predicted_s e_measured_j e_predicted_j run)\n"
            "  --json               one JSON object (docs/models.md)\n\n"
            "A RUNDIR may be a SWEEPDIR (mw sweep, docs/sweep.md): its finished runs.\n"
            "Exit 0; 2 for bad usage, an unreadable run or a missing parameter.\n");
}

static int parse_args(int argc, char **argv, fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = "predict";
    o->confidence = 0.95;
    o->runs = calloc((size_t)argc, sizeof *o->runs);
    if (!o->runs) return mw_cli_usage_error(CMD, "out of memory");
    static const char *const once[] = {
        "--model", "--mode", "--calibration", "--switch", "--table", "--confidence", NULL};
    mw_cli_seen seen = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **val = NULL;
        if (!strcmp(a, "--")) { /* operands only from here */
            for (i++; i < argc; i++)
                o->runs[o->nruns++] = argv[i];
            break;
        }
        int rc = mw_longopt_once(CMD, &seen, a, once);
        if (rc) return rc;
        if (!strcmp(a, "--model"))
            val = &o->model;
        else if (!strcmp(a, "--mode"))
            val = &o->mode;
        else if (!strcmp(a, "--calibration"))
            val = &o->calibration;
        else if (!strcmp(a, "--switch"))
            val = &o->switch_name;
        else if (!strcmp(a, "--table"))
            val = &o->table;
        if (val) {
            if (i + 1 >= argc) return mw_cli_usage_error(CMD, "%s needs a value", a);
            *val = argv[++i];
        } else if (!strcmp(a, "--confidence")) {
            if (i + 1 >= argc) return mw_cli_usage_error(CMD, "--confidence needs a value");
            if ((rc = mw_cli_double(CMD, "--confidence", argv[++i], 1e-6, 1 - 1e-6, "",
                                    &o->confidence)))
                return rc;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (a[0] == '-' && a[1]) {
            return mw_cli_usage_error(CMD, "unknown option '%s'", a);
        } else {
            o->runs[o->nruns++] = argv[i];
        }
    }
    if (!o->model) return mw_cli_usage_error(CMD, "missing --model (escobar)");
    if (strcmp(o->model, "escobar"))
        return mw_cli_usage_error(CMD, "--model '%s': unknown model (escobar)", o->model);
    if (!strcmp(o->mode, "fit"))
        o->fit = 1;
    else if (strcmp(o->mode, "predict"))
        return mw_cli_usage_error(CMD, "--mode '%s': predict or fit", o->mode);
    if (o->nruns == 0) return mw_cli_usage_error(CMD, "no run directories");
    return 0;
}

/* ---- output -------------------------------------------------------------------------- */

static const char *tnum(char *buf, size_t len, double v, const char *fmt)
{
    if (!isfinite(v)) return "-";
    snprintf(buf, len, fmt, v);
    return buf;
}

/* key (with what precedes it), then v as a JSON number */
static void jnum(FILE *out, const char *key, double v)
{
    fputs(key, out);
    mw_out_json_number(out, v);
}

/* one run's entry of "runs": its structure, measured and predicted time and energy */
static void json_run(FILE *out, const mw_escobar_study_row *r)
{
    const mw_escobar_params *p = &r->p;
    fputs("\n  {\"run\": ", out);
    mw_out_json_string(out, r->run->dir);
    fprintf(out,
            ", \"version\": %d, \"individuals\": %d, \"n_spop\": %d, \"ranks\": %d, "
            "\"requesters\": %d, \"g\": %d, \"n_lm\": %d, \"n_gm\": %d, \"chunks\": %d, "
            "\"rounds\": %d,\n   \"time_s\": {\"measured\": ",
            p->version, p->individuals, p->n_spop, r->run->ranks, p->nworkers, p->g, p->n_lm,
            p->n_gm, r->pr.chunks, r->pr.rounds);
    mw_out_json_number(out, r->run->t_measured_s);
    jnum(out, ", \"predicted\": ", r->pr.t_cluster_s);
    jnum(out, "}, \"energy_j\": {\"measured\": ", r->run->e_measured_j);
    jnum(out, ", \"predicted\": ", r->pr.energy_j);
    jnum(out, "}, \"wall_s\": ", r->run->wall_s);
}

/* one run's "parameters": the time parameters, the channels' levels and energies */
static void json_run_params(FILE *out, const mw_escobar_study_row *r)
{
    const mw_escobar_params *p = &r->p;
    jnum(out, ",\n   \"parameters\": {\"t_cpu_s\": ", r->t_cpu_s);
    jnum(out, ", \"t_gpu_s\": ", r->t_gpu_s);
    jnum(out, ", \"t_master_s\": ", p->t_master_s);
    jnum(out, ", \"t_com_s\": ", p->t_com_s);
    jnum(out, ", \"t_lm_s\": ", p->t_lm_s);
    jnum(out, ", \"t_max_i_s\": ", r->pr.t_max_i_s);
    fputs(",\n    \"nodes\": [", out);
    for (int k = 0; k < p->nnodes; k++) {
        const mw_escobar_node *nd = &p->node[k];
        fprintf(out, "%s{\"channel\": ", k ? ", " : "");
        mw_out_json_string(out, nd->name);
        fputs(", \"host\": ", out);
        if (nd->all)
            fputs("null", out);
        else
            mw_out_json_string(out, nd->host);
        jnum(out, ", \"pow_w\": ", nd->pow_w);
        jnum(out, ", \"pow_idle_w\": ", nd->pow_idle_w);
        jnum(out, ", \"busy_s\": ", r->pr.busy_s[k]);
        jnum(out, ", \"energy_j\": ", r->pr.e_node_j[k]);
        fputs("}", out);
    }
    fputs("],\n    \"switch\": ", out);
    if (p->has_switch) {
        fputs("{\"channel\": ", out);
        mw_out_json_string(out, p->switch_name);
        jnum(out, ", \"pow_w\": ", p->pow_sw_w);
        jnum(out, ", \"pow_idle_w\": ", p->pow_sw_idle_w);
        jnum(out, ", \"energy_j\": ", r->pr.e_switch_j);
        fputs("}", out);
    } else {
        fputs("null", out);
    }
    fputs("}}", out);
}

/* one version's entry of "fit": the fitted parameters with their intervals */
static void json_fit(FILE *out, const mw_escobar_study_group *g, int first)
{
    const mw_escobar_fit *f = &g->fit;
    fprintf(out,
            "%s\n  {\"version\": %d, \"runs\": %d, \"dof\": %d, \"rss_s2\": ", first ? "" : ",",
            g->version, g->nruns, f->dof);
    mw_out_json_number(out, f->rss);
    fprintf(out, ", \"iterations\": %d, \"converged\": %s, \"parameters\": [", f->iterations,
            f->converged ? "true" : "false");
    int c = 0;
    for (int j = 0; j < MW_ESCOBAR_NFIT; j++) {
        if (!f->used[j]) continue;
        fprintf(out, "%s{\"name\": \"%s\", \"value\": ", c++ ? ", " : "", mw_escobar_fit_names[j]);
        mw_out_json_number(out, f->value[j]);
        jnum(out, ", \"se\": ", f->have_ci ? f->se[j] : NAN);
        fputs(", \"ci\": ", out);
        if (f->have_ci && isfinite(f->ci_lo[j]) && isfinite(f->ci_hi[j])) {
            fputc('[', out);
            mw_out_json_number(out, f->ci_lo[j]);
            jnum(out, ", ", f->ci_hi[j]);
            fputc(']', out);
        } else {
            fputs("null", out);
        }
        fputs("}", out);
    }
    fputs("]}", out);
}

static void json_out(FILE *out, const fit_opts *o, const mw_escobar_study_row *rows, int n,
                     const mw_escobar_study_group *g, int ng)
{
    fprintf(out, "{\"schema\": \"" MW_SCHEMA_FIT "\", \"model\": \"escobar\", \"mode\": \"%s\", "
                 "\"calibration\": ",
            o->mode);
    if (o->calibration)
        mw_out_json_string(out, o->calibration);
    else
        fputs("null", out);
    fprintf(out, ", \"confidence\": %g,\n \"runs\": [", o->confidence);
    for (int i = 0; i < n; i++) {
        if (i) fputs(",", out);
        json_run(out, &rows[i]);
        json_run_params(out, &rows[i]);
    }
    fputs("\n ],\n \"nrmse\": [", out);
    for (int k = 0; k < ng; k++) {
        fprintf(out, "%s\n  {\"version\": %d, \"runs\": %d, \"time\": ", k ? "," : "", g[k].version,
                g[k].nruns);
        mw_out_json_number(out, g[k].nrmse_t);
        jnum(out, ", \"energy\": ", g[k].nrmse_e);
        fprintf(out, ", \"paper_time\": %.3f, \"paper_energy\": %.3f}", g[k].paper_nrmse_t,
                g[k].paper_nrmse_e);
    }
    fputs("\n ],\n \"fit\": [", out);
    int first = 1;
    for (int k = 0; k < ng; k++) {
        if (!g[k].fitted) continue;
        json_fit(out, &g[k], first);
        first = 0;
    }
    fputs("\n ]\n}\n", out);
}

static void text_out(FILE *out, const fit_opts *o, const mw_escobar_study_row *rows, int n,
                     const mw_escobar_study_group *g, int ng)
{
    char b[6][32];
    fprintf(out, "model escobar (Escobar et al. 2019, eq. 3-9), mode %s, parameters from %s\n\n",
            o->mode,
            o->fit ? "a least-squares fit per version"
                   : (o->calibration ? o->calibration : "each run itself"));
    fprintf(out, "%-7s %6s %5s %6s %12s %12s %12s %12s  %s\n", "version", "N_Spop", "N", "rounds",
            "T_meas_s", "T_model_s", "E_meas_J", "E_model_J", "run");
    for (int i = 0; i < n; i++) {
        const mw_escobar_study_row *r = &rows[i];
        fprintf(out, "v%-6d %6d %5d %6d %12s %12s %12s %12s  %s\n", r->p.version, r->p.n_spop,
                r->p.individuals, r->pr.rounds, tnum(b[0], 32, r->run->t_measured_s, "%.6f"),
                tnum(b[1], 32, r->pr.t_cluster_s, "%.6f"),
                tnum(b[2], 32, r->run->e_measured_j, "%.4f"),
                tnum(b[3], 32, r->pr.energy_j, "%.4f"), r->run->dir);
    }
    fprintf(out, "\nNRMSE = 1 - ||y - y_model|| / ||y - mean y|| (1 perfect, 0 no better than the "
                 "mean)\n");
    fprintf(out, "%-7s %5s %8s %8s %8s %8s\n", "version", "runs", "time", "paper", "energy",
            "paper");
    for (int k = 0; k < ng; k++)
        fprintf(out, "v%-6d %5d %8s %8.3f %8s %8.3f\n", g[k].version, g[k].nruns,
                tnum(b[0], 32, g[k].nrmse_t, "%.3f"), g[k].paper_nrmse_t,
                tnum(b[1], 32, g[k].nrmse_e, "%.3f"), g[k].paper_nrmse_e);
    if (o->fit) {
        for (int k = 0; k < ng; k++) {
            const mw_escobar_fit *f = &g[k].fit;
            fprintf(out, "\nfitted parameters, v%d (%d runs, %d dof, %g %% intervals):\n",
                    g[k].version, g[k].nruns, f->dof, 100 * o->confidence);
            for (int j = 0; j < MW_ESCOBAR_NFIT; j++) {
                if (!f->used[j]) continue;
                if (f->have_ci)
                    fprintf(out, "  %-10s %14.9f  [%.9f, %.9f]\n", mw_escobar_fit_names[j],
                            f->value[j], f->ci_lo[j], f->ci_hi[j]);
                else
                    fprintf(out, "  %-10s %14.9f  [-] (no interval: %d dof)\n",
                            mw_escobar_fit_names[j], f->value[j], f->dof);
            }
        }
    } else {
        fprintf(out, "\nparameters per run (s): W_CPU/F_CPU, W_GPU/F_GPU per individual; "
                     "T_master, T_com per global epoch; T_Lm per local migration\n");
        fprintf(out, "%-7s %6s %12s %12s %12s %12s %12s  %s\n", "version", "N_Spop", "t_cpu_s",
                "t_gpu_s", "t_master_s", "t_com_s", "t_lm_s", "run");
        for (int i = 0; i < n; i++) {
            const mw_escobar_study_row *r = &rows[i];
            fprintf(out, "v%-6d %6d %12s %12s %12s %12s %12s  %s\n", r->p.version, r->p.n_spop,
                    tnum(b[0], 32, r->t_cpu_s, "%.9f"), tnum(b[1], 32, r->t_gpu_s, "%.9f"),
                    tnum(b[2], 32, r->p.t_master_s, "%.9f"), tnum(b[3], 32, r->p.t_com_s, "%.9f"),
                    tnum(b[4], 32, r->p.t_lm_s, "%.9f"), r->run->dir);
        }
    }
}

static int row_order(const void *a, const void *b)
{
    const mw_escobar_study_row *x = *(const mw_escobar_study_row *const *)a,
                               *y = *(const mw_escobar_study_row *const *)b;
    if (x->p.version != y->p.version) return x->p.version - y->p.version;
    return x->p.n_spop - y->p.n_spop;
}

static int write_table(const char *path, const mw_escobar_study_row *rows, int n)
{
    char tmp[PATH_MAX + 16], err[PATH_MAX + 300];
    FILE *f = mw_fs_fopen_replace(path, tmp, sizeof tmp, err, sizeof err); /* never via a link */
    if (!f) {
        fprintf(stderr, "mw fit: --table %s: cannot write it\n", err);
        return MW_EXIT_USAGE;
    }
    const mw_escobar_study_row **s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    if (!s) {
        fclose(f);
        unlink(tmp);
        fprintf(stderr, "mw fit: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        s[i] = &rows[i];
    qsort(s, (size_t)n, sizeof *s, row_order);
    fprintf(f, "# mw fit --model escobar: Escobar et al. 2019, eq. 3-9, measured vs model; "
               "NaN-free, '-' for none\n");
    fprintf(f, "# version n_spop t_measured_s t_predicted_s e_measured_j e_predicted_j run\n");
    char b[4][32];
    for (int i = 0; i < n; i++)
        fprintf(f, "%d %d %s %s %s %s %s\n", s[i]->p.version, s[i]->p.n_spop,
                tnum(b[0], 32, s[i]->run->t_measured_s, "%.9g"),
                tnum(b[1], 32, s[i]->pr.t_cluster_s, "%.9g"),
                tnum(b[2], 32, s[i]->run->e_measured_j, "%.9g"),
                tnum(b[3], 32, s[i]->pr.energy_j, "%.9g"), s[i]->run->dir);
    free(s);
    if (ferror(f) | fclose(f)) { /* both: an earlier failed flush is not fclose's error */
        unlink(tmp);
        fprintf(stderr, "mw fit: --table %s: write failed\n", path);
        return MW_EXIT_USAGE;
    }
    if (mw_fs_commit_replace(tmp, path, err, sizeof err)) {
        fprintf(stderr, "mw fit: --table %s\n", err);
        return MW_EXIT_USAGE;
    }
    return 0;
}

/* ---- the command --------------------------------------------------------------------- */

static void print_note(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "mw fit: note: %s\n", text);
}

int cmd_fit(int argc, char **argv)
{
    if (mw_cli_wants_help(argc, argv)) {
        usage(stdout);
        return MW_EXIT_OK;
    }
    fit_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) {
        free(o.runs);
        return rc;
    }
    mw_escobar_study_opts so = {.fit = o.fit,
                                .confidence = o.confidence,
                                .switch_name = o.switch_name,
                                .calibration = o.calibration,
                                .note = print_note};
    mw_escobar_study *st;
    char err[1024];
    mw_escobar_study_status ss = mw_escobar_study_run(&so, o.runs, o.nruns, &st, err, sizeof err);
    free(o.runs);
    if (ss) {
        fprintf(stderr, "mw fit: %s\n", err);
        return ss == MW_ESCOBAR_STUDY_BAD_INPUT ? MW_EXIT_USAGE : MW_EXIT_FAIL;
    }
    rc = o.table ? write_table(o.table, st->rows, st->nrows) : 0;
    if (!rc && o.json)
        json_out(stdout, &o, st->rows, st->nrows, st->group, st->ngroups);
    else if (!rc)
        text_out(stdout, &o, st->rows, st->nrows, st->group, st->ngroups);
    mw_escobar_study_free(st);
    return rc;
}
