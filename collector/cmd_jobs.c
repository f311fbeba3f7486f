/* cmd_jobs — "mw jobs DIR...": energy per Slurm job from the wall meters, per node and switch
 * channel, like `sacct -o ConsumedEnergy` but measured at the wall (docs/slurm.md).
 *
 * A DIR is a run or a directory of runs (what `srun --mw-record=DIR` fills: DIR/JOB.STEP);
 * the runs that carry slurm_job_id in their metadata (mw record inside an allocation,
 * collector/record_slurm.c) are grouped by (cluster, job id), the others are counted and
 * left out. Each run is read once (run_summary.c: the exact sum of power_mw x window length
 * per channel, in pJ); a job's energy per channel is the sum over its steps' runs, matched by
 * channel name, in J and Wh (1 Wh = 3600 J). A channel is "of the job" when what it measures
 * (its host, else its name: the rule of record_slurm.c; in a run merged from meter hosts,
 * mw record --meter-hosts, its host, else its meter's host) is one of the job's nodes; the totals
 * are given for the job's nodes and for every channel (switches, other nodes). A job's
 * duration is the sum of its steps' recorded spans (first window's start to last window's
 * end); steps whose spans overlap are flagged: their energies count the same time twice
 * (each recorder measured every channel). Text, or --json (docs/schemas/megawatt.jobs-1). */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "json_schema.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "run_summary.h"
#include "textout.h"

#define JOBS_MAX_CH 64

typedef struct {
    char run[4096], step[32], status[256];
    int64_t t0_ns, t1_ns; /* the windows' span */
} jobs_step;

typedef struct {
    char name[128], measures[128];
    int of_job;
    __int128 pj;
} jobs_channel;

typedef struct {
    char id[32], cluster[256];
    char *nodes; /* heap: a node list has no bound */
    jobs_step *steps;
    int nsteps, overlap, ch_cut; /* ch_cut: channels past JOBS_MAX_CH left out */
    int64_t span_ns;
    jobs_channel ch[JOBS_MAX_CH];
    int nch;
} jobs_job;

typedef struct {
    jobs_job *jobs;
    int njobs, skipped;
} jobs_all;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mw jobs DIR... [--json]\n\n"
            "Energy per Slurm job, per node and switch channel, from the wall meters (like\n"
            "sacct -o ConsumedEnergy, measured at the wall). DIR is a run or a directory of\n"
            "runs, e.g. the DIR of srun --mw-record=DIR (one run per job step, DIR/JOB.STEP)\n"
            "or runs made by mw record inside salloc/sbatch; runs without a Slurm job are left\n"
            "out. A job's energy per channel is the sum over its steps, in J and Wh; a channel\n"
            "is of the job when the host it measures (NAME@HOST, else its name; in a run of\n"
            "meters on several hosts, else its meter's host) is one of the job's nodes.\n"
            "Steps recorded at the same time are flagged (their energies overlap).\n"
            "docs/slurm.md.\n\n"
            "  --json       one JSON document (docs/schemas/megawatt.jobs-1.schema.json)\n"
            "  -h, --help   this text\n\n"
            "Exit status: 0; 1 when no run of a Slurm job was found or a run cannot be read;\n"
            "2 bad usage, a DIR that is neither a run nor a directory, or a damaged run.\n");
}

static jobs_job *job_for(jobs_all *a, const char *id, const char *cluster, const char *nodes)
{
    for (int i = 0; i < a->njobs; i++)
        if (!strcmp(a->jobs[i].id, id) && !strcmp(a->jobs[i].cluster, cluster)) return &a->jobs[i];
    a->jobs = mw_xrealloc(a->jobs, (size_t)(a->njobs + 1) * sizeof *a->jobs);
    jobs_job *j = &a->jobs[a->njobs++];
    memset(j, 0, sizeof *j);
    snprintf(j->id, sizeof j->id, "%s", id);
    snprintf(j->cluster, sizeof j->cluster, "%s", cluster);
    j->nodes = mw_xstrdup(nodes);
    return j;
}

static int is_node(const char *nodes, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = nodes; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && !strncmp(p, name, n)) return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

static void add_channels(jobs_job *j, const mw_runsum_run *r)
{
    for (int i = 0; i < r->nch; i++) {
        const mw_runsum_channel *c = &r->ch[i];
        const char *measures = strcmp(c->host, "-") ? c->host : c->name;
        jobs_channel *t = NULL;
        for (int k = 0; k < j->nch && !t; k++)
            if (!strcmp(j->ch[k].name, c->name)) t = &j->ch[k];
        if (!t && j->nch == JOBS_MAX_CH) {
            j->ch_cut = 1;
            continue;
        }
        if (!t) {
            t = &j->ch[j->nch++];
            memset(t, 0, sizeof *t);
            snprintf(t->name, sizeof t->name, "%s", c->name);
            snprintf(t->measures, sizeof t->measures, "%s", measures);
            t->of_job = is_node(j->nodes, measures);
        }
        t->pj += c->t.window_pj;
    }
}

/* the run's Slurm keys: 0 with a job id, 1 without, 2 with one that is not a whole number
 * (a step id that is not is dropped); -1 on a read error. *nodes: a heap copy, the caller's
 * to free */
static int slurm_keys(mw_store *s, char *id, char *step, char *cluster, char **nodes)
{
    id[0] = step[0] = cluster[0] = 0;
    mw_run_cursor *c = mw_run_meta(s);
    if (!c) return -1;
    const char *k, *v;
    while (mw_run_meta_next(c, &k, &v) == 1) {
        if (!strcmp(k, "slurm_job_id")) snprintf(id, 32, "%s", v);
        if (!strcmp(k, "slurm_step_id")) snprintf(step, 32, "%s", v);
        if (!strcmp(k, "slurm_cluster")) snprintf(cluster, 256, "%s", v);
        if (!strcmp(k, "slurm_nodes")) {
            free(*nodes);
            *nodes = mw_xstrdup(v);
        }
    }
    mw_run_close(c);
    if (!id[0]) return 1;
    for (const char *p = id; *p; p++)
        if (*p < '0' || *p > '9') return 2;
    for (const char *p = step; *p; p++)
        if (*p < '0' || *p > '9') step[0] = 0; /* not a step id: none */
    return 0;
}

/* one run into a; the exit code */
/* a run merged from meter hosts (mw_merge_hosts.h): a channel without a host measures its
 * meter's host (the meters' hosts are the nodes there); 0, or -1 on a read error */
static int meter_hosts(mw_store *s, mw_runsum_run *r)
{
    char from[64];
    if (mw_store_meta_get(s, "channels_from", from, sizeof from) != 0 ||
        strcmp(from, "hosts (mw merge)") != 0)
        return 0;
    mw_run_cursor *c = mw_run_meters(s);
    if (!c) return -1;
    mw_run_meter m;
    int rc;
    while ((rc = mw_run_meter_next(c, &m)) == 1)
        for (int i = 0; m.host && i < r->nch; i++)
            if (r->ch[i].meter == m.meter && !strcmp(r->ch[i].host, "-"))
                snprintf(r->ch[i].host, sizeof r->ch[i].host, "%s", m.host);
    mw_run_close(c);
    return rc < 0 ? -1 : 0;
}

static int read_run(jobs_all *a, const char *dir)
{
    int code = MW_EXIT_OK;
    mw_store *s = mw_runsum_open("jobs", dir, &code);
    if (!s) return code;
    static mw_runsum_run r;
    char id[32], step[32], cluster[256], *nodes = NULL;
    mw_run_snapshot_begin(s);
    int k = slurm_keys(s, id, step, cluster, &nodes);
    if (k < 0) code = (mw_runsum_fail("jobs", s), MW_EXIT_FAIL);
    else if (k > 0) a->skipped++;
    if (k == 2) {
        fprintf(stderr, "mw jobs: ");
        mw_out_text(stderr, dir);
        fprintf(stderr, ": slurm_job_id is not a job id (left out)\n");
    } else if (k == 0 && mw_runsum_read("jobs", s, &r)) /* only a job's run is read; a damaged
                                                          * one is bad input, 2 (docs/cli.md) */
        code = mw_store_bad_input(s) ? MW_EXIT_USAGE : MW_EXIT_FAIL;
    else if (k == 0 && meter_hosts(s, &r) != 0)
        code = (mw_runsum_fail("jobs", s), MW_EXIT_FAIL);
    mw_run_snapshot_end(s);
    mw_store_close(s);
    if (k != 0 || code) {
        free(nodes);
        return code;
    }
    jobs_job *j = job_for(a, id, cluster, nodes ? nodes : "");
    free(nodes);
    j->steps = mw_xrealloc(j->steps, (size_t)(j->nsteps + 1) * sizeof *j->steps);
    jobs_step *st = &j->steps[j->nsteps++];
    snprintf(st->run, sizeof st->run, "%s", dir);
    snprintf(st->step, sizeof st->step, "%s", step);
    snprintf(st->status, sizeof st->status, "%s", r.status);
    st->t0_ns = r.samples ? r.first_t0_ns : 0;
    st->t1_ns = r.samples ? r.last_t1_ns : 0;
    add_channels(j, &r);
    return MW_EXIT_OK;
}

static int has_run_name(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* DIR: a run, or each run directly under it (by name) */
static int read_dir(jobs_all *a, const char *dir)
{
    if (mw_store_exists(dir)) return read_run(a, dir);
    struct dirent **list;
    int n = scandir(dir, &list, has_run_name, alphasort);
    if (n < 0) {
        fprintf(stderr, "mw jobs: %s: neither a run nor a directory of runs\n", dir);
        return MW_EXIT_USAGE;
    }
    int code = MW_EXIT_OK;
    for (int i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
        if (mw_store_exists(path)) {
            int c = read_run(a, path);
            if (c > code) code = c;
        }
        free(list[i]);
    }
    free(list);
    return code;
}

static int step_cmp(const void *x, const void *y)
{
    const jobs_step *a = x, *b = y;
    return a->t0_ns < b->t0_ns ? -1 : a->t0_ns > b->t0_ns;
}

static void job_spans(jobs_job *j)
{
    qsort(j->steps, (size_t)j->nsteps, sizeof *j->steps, step_cmp);
    for (int i = 0; i < j->nsteps; i++) {
        j->span_ns += mw_runsum_ns_diff(j->steps[i].t1_ns, j->steps[i].t0_ns);
        if (i && j->steps[i].t0_ns < j->steps[i - 1].t1_ns) j->overlap = 1;
    }
}

static double joules(__int128 pj)
{
    return (double)pj * 1e-12;
}

static void totals(const jobs_job *j, __int128 *nodes_pj, __int128 *all_pj)
{
    *nodes_pj = *all_pj = 0;
    for (int k = 0; k < j->nch; k++) {
        *all_pj += j->ch[k].pj;
        if (j->ch[k].of_job) *nodes_pj += j->ch[k].pj;
    }
}

/* the job's nodes that no channel measures, comma-separated (heap; a part of the node list,
 * so as long at most) */
static char *unmeasured(const jobs_job *j)
{
    size_t len = 0, n = strlen(j->nodes) + 1;
    char *out = mw_xcalloc(n, 1), *nodes = mw_xstrdup(j->nodes);
    out[0] = 0;
    for (char *save = NULL, *h = strtok_r(nodes, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int k = 0; k < j->nch; k++)
            if (!strcmp(j->ch[k].measures, h)) found = 1;
        int w = found ? 0 : snprintf(out + len, n - len, "%s%s", len ? "," : "", h);
        if (w > 0 && (size_t)w < n - len) len += (size_t)w;
    }
    free(nodes);
    return out;
}

static void print_text(const jobs_all *a)
{
    for (int i = 0; i < a->njobs; i++) {
        const jobs_job *j = &a->jobs[i];
        char *none = unmeasured(j);
        printf("%sjob ", i ? "\n" : "");
        mw_out_text(stdout, j->id);
        printf(" (cluster ");
        mw_out_text(stdout, j->cluster[0] ? j->cluster : "-");
        printf("): %d step%s, %.3f s recorded, nodes ", j->nsteps, j->nsteps == 1 ? "" : "s",
               (double)j->span_ns * 1e-9);
        mw_out_text(stdout, j->nodes[0] ? j->nodes : "-");
        printf("\n");
        if (j->overlap) printf("  steps overlap in time: their energies count that time twice\n");
        if (none[0]) {
            printf("  nodes no channel measures: ");
            mw_out_text(stdout, none);
            printf("\n");
        }
        free(none);
        printf("  %-16s %-16s %-8s %14s %12s\n", "channel", "measures", "job node", "energy_J",
               "energy_Wh");
        for (int k = 0; k < j->nch; k++) {
            printf("  ");
            mw_out_text_pad(stdout, j->ch[k].name, 16);
            printf(" ");
            mw_out_text_pad(stdout, j->ch[k].measures, 16);
            printf(" %-8s %14.3f %12.6f\n", j->ch[k].of_job ? "yes" : "no", joules(j->ch[k].pj),
                   joules(j->ch[k].pj) / 3600.0);
        }
        __int128 np, ap;
        totals(j, &np, &ap);
        printf("  %-42s %14.3f %12.6f\n", "total, the job's nodes", joules(np), joules(np) / 3600);
        printf("  %-42s %14.3f %12.6f\n", "total, all channels", joules(ap), joules(ap) / 3600);
    }
    if (a->skipped) printf("(%d run%s without a Slurm job left out)\n", a->skipped, a->skipped == 1 ? "" : "s");
}

static void json_list(const char *csv)
{
    char *buf = mw_xstrdup(csv);
    printf("[");
    int first = 1;
    for (char *save = NULL, *h = strtok_r(buf, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        printf("%s", first ? "" : ", ");
        mw_out_json_string(stdout, h);
        first = 0;
    }
    printf("]");
    free(buf);
}

static void json_job(const jobs_job *j)
{
    char *none = unmeasured(j);
    printf("{\"job_id\": ");
    mw_out_json_string(stdout, j->id);
    printf(", \"cluster\": ");
    if (j->cluster[0]) mw_out_json_string(stdout, j->cluster);
    else printf("null");
    printf(", \"nodes\": ");
    json_list(j->nodes);
    printf(", \"nodes_without_channel\": ");
    json_list(none);
    free(none);
    printf(", \"duration_s\": %.9f, \"overlapping_steps\": %s,\n     \"steps\": [",
           (double)j->span_ns * 1e-9, j->overlap ? "true" : "false");
    for (int s = 0; s < j->nsteps; s++) {
        const jobs_step *st = &j->steps[s];
        printf("%s{\"run\": ", s ? ", " : "");
        mw_out_json_string(stdout, st->run);
        printf(", \"step_id\": ");
        if (st->step[0]) mw_out_json_string(stdout, st->step);
        else printf("null");
        printf(", \"status\": ");
        mw_out_json_string(stdout, st->status);
        printf(", \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 "}", st->t0_ns, st->t1_ns);
    }
    printf("],\n     \"channels\": [");
    for (int k = 0; k < j->nch; k++) {
        printf("%s{\"name\": ", k ? ", " : "");
        mw_out_json_string(stdout, j->ch[k].name);
        printf(", \"measures\": ");
        mw_out_json_string(stdout, j->ch[k].measures);
        printf(", \"job_node\": %s, \"energy_j\": %.6f, \"energy_wh\": %.9f}",
               j->ch[k].of_job ? "true" : "false", joules(j->ch[k].pj), joules(j->ch[k].pj) / 3600);
    }
    __int128 np, ap;
    totals(j, &np, &ap);
    printf("],\n     \"energy_j\": {\"job_nodes\": %.6f, \"all_channels\": %.6f}}", joules(np),
           joules(ap));
}

static void print_json(const jobs_all *a)
{
    printf("{\"schema\": \"" MW_SCHEMA_JOBS "\", \"runs_without_job\": %d,\n \"jobs\": [",
           a->skipped);
    for (int i = 0; i < a->njobs; i++) {
        printf("%s\n    ", i ? "," : "");
        json_job(&a->jobs[i]);
    }
    printf("\n ]}\n");
}

int cmd_jobs(int argc, char **argv)
{
    int json = 0, ndirs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return MW_EXIT_OK;
        }
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] == '-' && argv[i][1])
            return mw_cli_usage_error("jobs", "unknown option '%s'", argv[i]);
        else ndirs++;
    }
    if (!ndirs) return mw_cli_usage_error("jobs", "missing DIR");
    jobs_all a = {0};
    int code = MW_EXIT_OK;
    for (int i = 1; i < argc && code != MW_EXIT_USAGE; i++)
        if (strcmp(argv[i], "--json")) {
            int c = read_dir(&a, argv[i]);
            if (c > code) code = c;
        }
    if (code == MW_EXIT_OK && !a.njobs) {
        fprintf(stderr, "mw jobs: no run of a Slurm job there (%d run%s without slurm_job_id)\n",
                a.skipped, a.skipped == 1 ? "" : "s");
        code = MW_EXIT_FAIL;
    }
    if (code == MW_EXIT_OK) {
        for (int i = 0; i < a.njobs; i++) {
            job_spans(&a.jobs[i]);
            if (a.jobs[i].ch_cut) {
                fprintf(stderr, "mw jobs: job ");
                mw_out_text(stderr, a.jobs[i].id);
                fprintf(stderr, ": more than %d channels; the others are left out\n", JOBS_MAX_CH);
            }
        }
        if (json) print_json(&a);
        else print_text(&a);
    }
    for (int i = 0; i < a.njobs; i++) {
        free(a.jobs[i].steps);
        free(a.jobs[i].nodes);
    }
    free(a.jobs);
    if (code == MW_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "mw jobs: standard output: write error\n");
        return MW_EXIT_FAIL;
    }
    return code;
}
