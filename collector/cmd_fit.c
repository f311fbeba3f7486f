/* cmd_fit — "mw fit --model escobar RUNDIR... [--mode predict|fit] [--calibration RUNDIR]
 * [--switch NAME] [--confidence P] [--table FILE] [--json]": the runtime/energy model of seed
 * 000 (§5.2, eq. 3-9; models/escobar.h) against recorded eeg-mofs runs.
 *
 * Every run gives its structure (version, N, N_Spop, generations, periods, chunk, ranks,
 * threads, GPUs: the program's counters), its measured T_cluster (the span of its N_Gm
 * global epochs) and energy (every channel over that span), and its own parameters (W/F per
 * device, T_master, T_com, T_Lm from its phases; Pow/Pow^idle per channel by the paper's
 * kernel density). Modes:
 *   predict  the model with the parameters of each run itself, or with --calibration those
 *            of one calibration run (W/F by rank and device, the overheads, the channels'
 *            power levels by name): the run's structure only comes from the run;
 *   fit      per version, the time parameters shared by that version's runs (W_CPU/F_CPU,
 *            W_GPU/F_GPU, T_Lm, T_master + T_com) fitted by least squares to the measured
 *            T_cluster, with Student-t intervals; the energy then follows from eq. 9.
 * Reported: per run measured and predicted time and energy; per version NRMSE of both next
 * to the paper's; the parameters. --table FILE writes the per-run figures as whitespace-
 * separated columns with a '#' header, sorted by version and N_Spop, for gnuplot.
 *
 * Exit 0; 2 for bad usage, an unreadable run, a missing parameter (the message names it and
 * how to get it) or a fit with too few runs. No NaN or inf is printed: an undefined figure is
 * "-" in text and null in JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "escobar.h"
#include "mw_sweepindex.h"
#include "textout.h"

#define CMD "fit"

static const double paper_time[2] = {0.439, 0.787};   /* v2, v3: 000 §5.2, Fig. 5 */
static const double paper_energy[2] = {0.403, 0.744}; /* v2, v3: Fig. 9 */

typedef struct {
    const char *model, *mode, *calibration, *switch_name, *table;
    int json, fit;
    double confidence;
    char **runs;
    int nruns;
} fit_opts;

typedef struct {
    mw_escobar_run *run; /* as measured */
    mw_escobar_params p; /* as used for the prediction */
    mw_escobar_prediction pr;
} fit_row;

typedef struct {
    int version, nruns;
    double nrmse_t, nrmse_e;
    int fitted;
    mw_escobar_fit fit;
} fit_group;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw fit --model escobar RUNDIR|SWEEPDIR... [--mode predict|fit]\n"
            "              [--calibration RUNDIR] [--switch NAME] [--confidence P] [--table FILE]\n"
            "              [--json]\n\n"
            "The runtime and energy model of seed 000 (eq. 3-9) against eeg-mofs runs recorded\n"
            "by 'mw record -- mpirun ... eeg-mofs ...': per run the measured and predicted\n"
            "time (the N_Gm global epochs) and energy (every channel over them), NRMSE per\n"
            "version next to the paper's (time 0.439 v2, 0.787 v3; energy 0.403 v2, 0.744 v3),\n"
            "and the parameters.\n\n"
            "  --model escobar      the model (required; the only one so far)\n"
            "  --mode predict       parameters from each run itself, or from --calibration\n"
            "                       (default)\n"
            "  --mode fit           per version, W/F (CPU, GPU), T_Lm and T_master + T_com\n"
            "                       fitted by least squares to the runs' measured times, with\n"
            "                       confidence intervals (needs as many runs as parameters)\n"
            "  --calibration RUNDIR take the time parameters and the channels' power levels\n"
            "                       from this run (predict), or start the fit from them\n"
            "  --switch NAME        the switch's channel (default: a channel named *switch*)\n"
            "  --confidence P       of the intervals, in (0, 1) (default 0.95)\n"
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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **val = NULL;
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
            if (mw_cli_number(argv[++i], &o->confidence) || !(o->confidence > 0) ||
                !(o->confidence < 1))
                return mw_cli_usage_error(CMD, "--confidence '%s': a number in (0, 1)", argv[i]);
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--")) {
            for (i++; i < argc; i++)
                o->runs[o->nruns++] = argv[i];
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

/* ---- parameters ---------------------------------------------------------------------- */

static int missing(const char *run, int is_cal, const char *param, const char *why)
{
    fprintf(stderr, "mw fit: %s%s: missing parameter %s: %s; %s\n", is_cal ? "--calibration " : "",
            run, param, why,
            is_cal ? "calibrate with a run that has it"
                   : "record a run that has it, or give --calibration RUNDIR");
    return MW_EXIT_USAGE;
}

/* the calibration's requester matching w: same rank and device kind, else NULL */
static const mw_escobar_worker *cal_worker(const mw_escobar_params *c, const mw_escobar_worker *w)
{
    for (int i = 0; i < c->nworkers; i++)
        if (c->w[i].rank == w->rank && c->w[i].gpu == w->gpu) return &c->w[i];
    return NULL;
}

static double mean_t(const mw_escobar_params *c, int gpu)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < c->nworkers; i++) {
        double t = gpu ? c->w[i].t_gpu_s : c->w[i].t_cpu_s;
        if (t > 0) {
            s += t;
            n++;
        }
    }
    return n ? s / n : 0;
}

/* the parameters of row from its own run, or from the calibration run cal */
static int set_params(fit_row *row, const mw_escobar_run *cal, int need_times)
{
    const mw_escobar_run *r = row->run;
    row->p = r->p;
    const mw_escobar_run *src = cal ? cal : r;
    int any_cpu = 0, any_gpu = 0;
    for (int i = 0; i < row->p.nworkers; i++) {
        any_cpu |= row->p.w[i].x < 1;
        any_gpu |= row->p.w[i].x > 0;
    }
    if (need_times) {
        if (any_cpu && !src->have_t_cpu)
            return missing(src->dir, cal != NULL, "W_CPU/F_CPU (t_cpu_s)",
                           "no 'evaluate cpu' phases with 'eeg evaluated' counters");
        if (any_gpu && !src->have_t_gpu)
            return missing(src->dir, cal != NULL, "W_GPU/F_GPU (t_gpu_s)",
                           "no 'evaluate gpu' phases with 'eeg evaluated' counters (a CUDA "
                           "build of eeg-mofs with --gpus)");
        if (!src->have_t_master)
            return missing(src->dir, cal != NULL, "T_master (t_master_s)",
                           "no 'global migration' phases on rank 0");
        if (row->p.version == 2 && (!src->have_t_lm || src->p.version != 2))
            return missing(src->dir, cal != NULL, "T_Lm (t_lm_s)",
                           "no 'local migration' phases (a v2 run with --local-every)");
    }
    if (!cal) return 0;
    const mw_escobar_params *c = &cal->p;
    double mc = mean_t(c, 0), mg = mean_t(c, 1);
    for (int i = 0; i < row->p.nworkers; i++) {
        mw_escobar_worker *w = &row->p.w[i];
        const mw_escobar_worker *cw = cal_worker(c, w);
        w->t_cpu_s = cw && cw->t_cpu_s > 0 ? cw->t_cpu_s : mc;
        w->t_gpu_s = cw && cw->t_gpu_s > 0 ? cw->t_gpu_s : mg;
    }
    row->p.t_master_s = c->t_master_s;
    row->p.t_com_s = c->t_com_s;
    if (row->p.version == 2) row->p.t_lm_s = c->version == 2 ? c->t_lm_s : 0;
    /* the channels' power levels by name */
    for (int k = 0; k < row->p.nnodes; k++)
        for (int j = 0; j < c->nnodes; j++)
            if (!strcmp(row->p.node[k].name, c->node[j].name)) {
                row->p.node[k].pow_w = c->node[j].pow_w;
                row->p.node[k].pow_idle_w = c->node[j].pow_idle_w;
            }
    if (row->p.has_switch && c->has_switch) {
        row->p.pow_sw_w = c->pow_sw_w;
        row->p.pow_sw_idle_w = c->pow_sw_idle_w;
    }
    return 0;
}

/* ---- output -------------------------------------------------------------------------- */

static const char *tnum(char *buf, size_t len, double v, const char *fmt)
{
    if (!isfinite(v)) return "-";
    snprintf(buf, len, fmt, v);
    return buf;
}

static double mean_worker_t(const mw_escobar_params *p, int gpu)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < p->nworkers; i++)
        if (gpu ? p->w[i].x > 0 : p->w[i].x < 1) {
            s += gpu ? p->w[i].t_gpu_s : p->w[i].t_cpu_s;
            n++;
        }
    return n ? s / n : NAN;
}

/* one run's entry of "runs": its structure, measured and predicted time and energy */
static void json_run(FILE *out, const fit_row *r)
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
    fputs(", \"predicted\": ", out);
    mw_out_json_number(out, r->pr.t_cluster_s);
    fputs("}, \"energy_j\": {\"measured\": ", out);
    mw_out_json_number(out, r->run->e_measured_j);
    fputs(", \"predicted\": ", out);
    mw_out_json_number(out, r->pr.energy_j);
    fputs("}, \"wall_s\": ", out);
    mw_out_json_number(out, r->run->wall_s);
}

/* one run's "parameters": the time parameters, the channels' levels and energies */
static void json_run_params(FILE *out, const fit_row *r)
{
    const mw_escobar_params *p = &r->p;
    fputs(",\n   \"parameters\": {\"t_cpu_s\": ", out);
    mw_out_json_number(out, mean_worker_t(p, 0));
    fputs(", \"t_gpu_s\": ", out);
    mw_out_json_number(out, mean_worker_t(p, 1));
    fputs(", \"t_master_s\": ", out);
    mw_out_json_number(out, p->t_master_s);
    fputs(", \"t_com_s\": ", out);
    mw_out_json_number(out, p->t_com_s);
    fputs(", \"t_lm_s\": ", out);
    mw_out_json_number(out, p->t_lm_s);
    fputs(", \"t_max_i_s\": ", out);
    mw_out_json_number(out, r->pr.t_max_i_s);
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
        fputs(", \"pow_w\": ", out);
        mw_out_json_number(out, nd->pow_w);
        fputs(", \"pow_idle_w\": ", out);
        mw_out_json_number(out, nd->pow_idle_w);
        fputs(", \"busy_s\": ", out);
        mw_out_json_number(out, r->pr.busy_s[k]);
        fputs(", \"energy_j\": ", out);
        mw_out_json_number(out, r->pr.e_node_j[k]);
        fputs("}", out);
    }
    fputs("],\n    \"switch\": ", out);
    if (p->has_switch) {
        fputs("{\"channel\": ", out);
        mw_out_json_string(out, p->switch_name);
        fputs(", \"pow_w\": ", out);
        mw_out_json_number(out, p->pow_sw_w);
        fputs(", \"pow_idle_w\": ", out);
        mw_out_json_number(out, p->pow_sw_idle_w);
        fputs(", \"energy_j\": ", out);
        mw_out_json_number(out, r->pr.e_switch_j);
        fputs("}", out);
    } else {
        fputs("null", out);
    }
    fputs("}}", out);
}

/* one version's entry of "fit": the fitted parameters with their intervals */
static void json_fit(FILE *out, const fit_group *g, int first)
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
        fputs(", \"se\": ", out);
        mw_out_json_number(out, f->have_ci ? f->se[j] : NAN);
        fputs(", \"ci\": ", out);
        if (f->have_ci && isfinite(f->ci_lo[j]) && isfinite(f->ci_hi[j])) {
            fputc('[', out);
            mw_out_json_number(out, f->ci_lo[j]);
            fputs(", ", out);
            mw_out_json_number(out, f->ci_hi[j]);
            fputc(']', out);
        } else {
            fputs("null", out);
        }
        fputs("}", out);
    }
    fputs("]}", out);
}

static void json_out(FILE *out, const fit_opts *o, const fit_row *rows, int n, const fit_group *g,
                     int ng)
{
    fprintf(out, "{\"model\": \"escobar\", \"mode\": \"%s\", \"calibration\": ", o->mode);
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
        fputs(", \"energy\": ", out);
        mw_out_json_number(out, g[k].nrmse_e);
        fprintf(out, ", \"paper_time\": %.3f, \"paper_energy\": %.3f}",
                paper_time[g[k].version - 2], paper_energy[g[k].version - 2]);
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

static void text_out(FILE *out, const fit_opts *o, const fit_row *rows, int n, const fit_group *g,
                     int ng)
{
    char b[6][32];
    fprintf(out, "model escobar (seed 000 eq. 3-9), mode %s, parameters from %s\n\n", o->mode,
            o->fit ? "a least-squares fit per version"
                   : (o->calibration ? o->calibration : "each run itself"));
    fprintf(out, "%-7s %6s %5s %6s %12s %12s %12s %12s  %s\n", "version", "N_Spop", "N", "rounds",
            "T_meas_s", "T_model_s", "E_meas_J", "E_model_J", "run");
    for (int i = 0; i < n; i++) {
        const fit_row *r = &rows[i];
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
                tnum(b[0], 32, g[k].nrmse_t, "%.3f"), paper_time[g[k].version - 2],
                tnum(b[1], 32, g[k].nrmse_e, "%.3f"), paper_energy[g[k].version - 2]);
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
            const fit_row *r = &rows[i];
            fprintf(out, "v%-6d %6d %12s %12s %12s %12s %12s  %s\n", r->p.version, r->p.n_spop,
                    tnum(b[0], 32, mean_worker_t(&r->p, 0), "%.9f"),
                    tnum(b[1], 32, mean_worker_t(&r->p, 1), "%.9f"),
                    tnum(b[2], 32, r->p.t_master_s, "%.9f"), tnum(b[3], 32, r->p.t_com_s, "%.9f"),
                    tnum(b[4], 32, r->p.t_lm_s, "%.9f"), r->run->dir);
        }
    }
}

static int row_order(const void *a, const void *b)
{
    const fit_row *x = *(const fit_row *const *)a, *y = *(const fit_row *const *)b;
    if (x->p.version != y->p.version) return x->p.version - y->p.version;
    return x->p.n_spop - y->p.n_spop;
}

static int write_table(const char *path, const fit_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "mw fit: --table %s: cannot write it\n", path);
        return MW_EXIT_USAGE;
    }
    const fit_row **s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    if (!s) {
        fclose(f);
        fprintf(stderr, "mw fit: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        s[i] = &rows[i];
    qsort(s, (size_t)n, sizeof *s, row_order);
    fprintf(f, "# mw fit --model escobar: seed 000 eq. 3-9, measured vs model; NaN-free, '-' "
               "for none\n");
    fprintf(f, "# version n_spop t_measured_s t_predicted_s e_measured_j e_predicted_j run\n");
    char b[4][32];
    for (int i = 0; i < n; i++)
        fprintf(f, "%d %d %s %s %s %s %s\n", s[i]->p.version, s[i]->p.n_spop,
                tnum(b[0], 32, s[i]->run->t_measured_s, "%.9g"),
                tnum(b[1], 32, s[i]->pr.t_cluster_s, "%.9g"),
                tnum(b[2], 32, s[i]->run->e_measured_j, "%.9g"),
                tnum(b[3], 32, s[i]->pr.energy_j, "%.9g"), s[i]->run->dir);
    free(s);
    if (fclose(f)) {
        fprintf(stderr, "mw fit: --table %s: write failed\n", path);
        return MW_EXIT_USAGE;
    }
    return 0;
}

/* ---- the command --------------------------------------------------------------------- */

/* Every run read and its row's parameters set, from the run itself or the calibration run
 * cal. 0, or the exit status after a message. */
static int read_runs(const fit_opts *o, mw_escobar_run *runs, fit_row *rows,
                     const mw_escobar_run *cal)
{
    char err[1024];
    for (int i = 0; i < o->nruns; i++) {
        if (mw_escobar_from_run(o->runs[i], o->switch_name, &runs[i], err, sizeof err)) {
            fprintf(stderr, "mw fit: %s\n", err);
            return MW_EXIT_USAGE;
        }
        rows[i].run = &runs[i];
        if (set_params(&rows[i], cal, !o->fit)) return MW_EXIT_USAGE;
    }
    return 0;
}

/* Fit mode, version v (cnt runs): the time parameters fitted to the runs' measured times,
 * notes for a fit that did not converge or a negative value, the rows' parameters set to
 * the fit. 0, or the exit status after a message. */
static int fit_version(const fit_opts *o, fit_row *rows, int v, int cnt, fit_group *G)
{
    char err[1024];
    mw_escobar_params *ps = malloc((size_t)cnt * sizeof *ps);
    double *ts = malloc((size_t)cnt * sizeof *ts);
    if (!ps || !ts) {
        free(ps);
        free(ts);
        fprintf(stderr, "mw fit: out of memory\n");
        return MW_EXIT_USAGE;
    }
    int k = 0;
    for (int i = 0; i < o->nruns; i++)
        if (rows[i].p.version == v) {
            ps[k] = rows[i].p;
            ts[k++] = rows[i].run->t_measured_s;
        }
    int frc = mw_escobar_fit_time(ps, ts, (size_t)cnt, o->confidence, &G->fit, err, sizeof err);
    free(ps);
    free(ts);
    if (frc) {
        fprintf(stderr, "mw fit: v%d: %s (give more runs of v%d, or --mode predict)\n", v, err, v);
        return MW_EXIT_USAGE;
    }
    G->fitted = 1;
    if (!G->fit.converged)
        fprintf(stderr,
                "mw fit: note: v%d: the fit stopped at its iteration limit (%d) "
                "before converging\n",
                v, G->fit.iterations);
    for (int j = 0; j < MW_ESCOBAR_NFIT; j++)
        if (G->fit.used[j] && G->fit.value[j] < 0)
            fprintf(stderr,
                    "mw fit: note: v%d: fitted %s = %g < 0: these runs do not determine "
                    "it (add runs whose N_Spop changes the rounds or chunk sizes)\n",
                    v, mw_escobar_fit_names[j], G->fit.value[j]);
    for (int i = 0; i < o->nruns; i++)
        if (rows[i].p.version == v) mw_escobar_apply(&rows[i].p, G->fit.value, G->fit.used);
    return 0;
}

/* The groups by version (g: 2), in fit mode fitted, then every row's prediction. 0, or the
 * exit status after a message. */
static int predict(const fit_opts *o, fit_row *rows, fit_group *g, int *ng)
{
    *ng = 0;
    for (int v = 2; v <= 3; v++) {
        int cnt = 0;
        for (int i = 0; i < o->nruns; i++)
            cnt += rows[i].p.version == v;
        if (!cnt) continue;
        fit_group *G = &g[(*ng)++];
        memset(G, 0, sizeof *G);
        G->version = v;
        G->nruns = cnt;
        if (o->fit && fit_version(o, rows, v, cnt, G)) return MW_EXIT_USAGE;
    }
    char err[1024];
    for (int i = 0; i < o->nruns; i++) {
        if (o->fit) { /* checked by the fit; a fitted time may be < 0 */
            mw_escobar_predict_raw(&rows[i].p, &rows[i].pr);
            continue;
        }
        if (mw_escobar_predict(&rows[i].p, &rows[i].pr, err, sizeof err)) {
            fprintf(stderr, "mw fit: %s: the model's parameters: %s\n", rows[i].run->dir, err);
            return MW_EXIT_USAGE;
        }
    }
    return 0;
}

/* NRMSE of time and energy per group. 0, or the exit status after a message. */
static int nrmse_groups(const fit_opts *o, const fit_row *rows, fit_group *g, int ng)
{
    for (int k = 0; k < ng; k++) {
        double *y = malloc((size_t)o->nruns * 4 * sizeof *y);
        if (!y) {
            fprintf(stderr, "mw fit: out of memory\n");
            return MW_EXIT_USAGE;
        }
        double *yh = y + o->nruns, *e = yh + o->nruns, *eh = e + o->nruns;
        size_t m = 0;
        for (int i = 0; i < o->nruns; i++)
            if (rows[i].p.version == g[k].version) {
                y[m] = rows[i].run->t_measured_s;
                yh[m] = rows[i].pr.t_cluster_s;
                e[m] = rows[i].run->e_measured_j;
                eh[m++] = rows[i].pr.energy_j;
            }
        g[k].nrmse_t = mw_escobar_nrmse(y, yh, m);
        g[k].nrmse_e = mw_escobar_nrmse(e, eh, m);
        free(y);
    }
    return 0;
}

int cmd_fit(int argc, char **argv)
{
    if (mw_cli_wants_help(argc, argv)) {
        usage(stdout);
        return MW_EXIT_OK;
    }
    fit_opts o;
    int rc = parse_args(argc, argv, &o);
    mw_escobar_run *runs = NULL, *cal = NULL;
    fit_row *rows = NULL;
    char err[1024], **xruns = NULL;
    int nx = 0;
    if (rc) goto out;
    rc = MW_EXIT_USAGE;
    /* a SWEEPDIR becomes its finished runs (sweepindex.h) */
    if (mw_sweepidx_expand(o.nruns, o.runs, &xruns, &nx, err, sizeof err)) {
        fprintf(stderr, "mw fit: %s\n", err);
        goto out;
    }
    o.nruns = nx;
    free(o.runs);
    o.runs = xruns;
    xruns = NULL;
    runs = calloc((size_t)o.nruns, sizeof *runs);
    rows = calloc((size_t)o.nruns, sizeof *rows);
    if (!runs || !rows) {
        fprintf(stderr, "mw fit: out of memory\n");
        goto out;
    }
    if (o.calibration) {
        cal = calloc(1, sizeof *cal);
        if (!cal || mw_escobar_from_run(o.calibration, o.switch_name, cal, err, sizeof err)) {
            fprintf(stderr, "mw fit: --calibration %s\n", cal ? err : "out of memory");
            goto out;
        }
    }
    fit_group g[2];
    int ng = 0;
    if (read_runs(&o, runs, rows, cal) || predict(&o, rows, g, &ng) ||
        nrmse_groups(&o, rows, g, ng))
        goto out;
    if (o.table && write_table(o.table, rows, o.nruns)) goto out;
    if (o.json)
        json_out(stdout, &o, rows, o.nruns, g, ng);
    else
        text_out(stdout, &o, rows, o.nruns, g, ng);
    rc = MW_EXIT_OK;
out:
    if (nx)
        mw_sweepidx_free_list(o.runs, nx);
    else
        free(o.runs);
    free(runs);
    free(rows);
    free(cal);
    return rc;
}
