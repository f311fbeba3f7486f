/* record_slurm — see record_slurm.h. The job is read from the environment Slurm gives every
 * process of an allocation: SLURM_JOB_ID, SLURM_STEP_ID (only inside a job step),
 * SLURM_JOB_NODELIST (compressed, "n[1-3],gpu7") and SLURM_CLUSTER_NAME. The node list is
 * expanded by Slurm itself, `scontrol show hostnames LIST` (argument vector, no shell),
 * rather than by a parser of ours: Slurm's host list syntax (ranges, zero padding, several
 * brackets) is Slurm's to define. Where scontrol cannot be run or refuses the list, the
 * compressed list is kept, slurm_nodes stays empty and one line says why; the recording
 * goes on (a run is never refused for its bookkeeping).
 *
 * Nodes to channels: a channel measures node N when its host (NAME@HOST, or the channels
 * file's host column) is N, or, without a host, when its name is N. slurm_node_channels is
 * "NODE=CHANNEL[+CHANNEL...]" per node, space-separated, "NODE=-" for a node that no channel
 * measures; those nodes are also listed in slurm_nodes_without_channel and said on stderr.
 * Values from the environment are checked: a job or step id that is not a whole number is
 * not stored (one line says so); the node list is stored only when it is at most 4000 bytes
 * of printable characters. The step's command given by the SPANK plugin
 * (MW_SLURM_STEP_COMMAND) is stored as slurm_step_command. The recorder of a meter host's
 * agent (MW_AGENT_HOST set, cmd_agent.c) says nothing of nodes without a channel: its store
 * holds one host's meter; the merged run's map is made by the merge (mw_merge_hosts.h). */
#include "record_slurm.h"

#include "mw_child.h"
#include "textout.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLURM_LIST_MAX 4000

static void set(rec_t *r, const char *key, const char *value)
{
    if (mw_store_meta_set(r->st, key, value) != 0) mw_rec_store_failed(r, mw_store_error(r->st));
}

/* a Slurm job or step id: a whole number */
static int id_ok(const char *s)
{
    if (!*s || strlen(s) > 20) return 0;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p)) return 0;
    return 1;
}

static int printable(const char *s, size_t max)
{
    if (strlen(s) > max) return 0;
    for (const char *p = s; *p; p++)
        if (!isgraph((unsigned char)*p)) return 0;
    return 1;
}

/* The step's compressed node list into out: SLURM_STEP_NODELIST (in a task of the step), else
 * Slurm's own answer, `squeue -h --steps=JOB.STEP -o %N`, asked only for a recorder the
 * SPANK plugin started (MW_SLURM_STEP_COMMAND set): srun's process has only the job's list.
 * 0, or -1. */
static int step_nodelist(const char *job, const char *step, char *out, size_t n)
{
    const char *env = getenv("SLURM_STEP_NODELIST");
    if (env) {
        snprintf(out, n, "%s", env);
        return printable(env, SLURM_LIST_MAX) && env[0] != '-' ? 0 : -1;
    }
    if (!getenv("MW_SLURM_STEP_COMMAND")) return -1; /* squeue only where the plugin said the
                                                       * step exists: a stale environment
                                                       * would make it wait for a controller */
    char steps[64], *so = NULL, *se = NULL;
    snprintf(steps, sizeof steps, "--steps=%s.%s", job, step);
    char *argv[] = {"squeue", "-h", steps, "-o", "%N", NULL};
    int status, rc = -1;
    if (mw_child_run("squeue", argv, NULL, &so, &se, &status) == 0 && status == 0) {
        so[strcspn(so, "\n")] = 0;
        snprintf(out, n, "%s", so);
        rc = so[0] && printable(so, SLURM_LIST_MAX) && so[0] != '-' ? 0 : -1;
    }
    free(so);
    free(se);
    return rc;
}

/* `scontrol show hostnames LIST` into out, comma-separated. 0, or -1 with why. */
static int expand_nodes(const char *list, char *out, size_t n, char *why, size_t whylen)
{
    char *argv[] = {"scontrol", "show", "hostnames", (char *)list, NULL};
    char *so = NULL, *se = NULL, last[300];
    int status, rc = -1;
    out[0] = 0;
    if (mw_child_run("scontrol", argv, NULL, &so, &se, &status) != 0) {
        snprintf(why, whylen, "scontrol not run: %s", se ? se : "?");
    } else if (status != 0) {
        snprintf(why, whylen, "scontrol show hostnames: %s",
                 mw_child_last_line(se, last, sizeof last)[0] ? last : "failed");
    } else {
        size_t len = 0;
        rc = 0;
        for (char *save = NULL, *h = strtok_r(so, "\n", &save); h; h = strtok_r(NULL, "\n", &save)) {
            int w = snprintf(out + len, n - len, "%s%s", len ? "," : "", h);
            if (w < 0 || (size_t)w >= n - len) {
                snprintf(why, whylen, "more than %zu bytes of node names", n);
                out[0] = 0;
                rc = -1;
                break;
            }
            len += (size_t)w;
        }
    }
    free(so);
    free(se);
    return rc;
}

/* The channels that measure node; "" when none. */
static void node_channels(const rec_t *r, const char *node, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int k = 1; k <= r->nchan; k++) {
        const char *h = r->names.host[k][0] ? r->names.host[k] : r->names.name[k];
        if (strcmp(h, node) != 0) continue;
        int w = snprintf(out + len, n - len, "%s%s", len ? "+" : "", r->names.name[k]);
        if (w < 0 || (size_t)w >= n - len) return;
        len += (size_t)w;
    }
}

static void append(char *buf, size_t n, size_t *len, const char *sep, const char *s)
{
    int w = snprintf(buf + *len, n - *len, "%s%s", *len ? sep : "", s);
    if (w > 0 && (size_t)w < n - *len) *len += (size_t)w;
}

/* slurm_node_channels and slurm_nodes_without_channel from the expanded list */
static void map_nodes(rec_t *r, const char *job, char *nodes)
{
    static char map[65536], missing[SLURM_LIST_MAX * 2];
    size_t lm = 0, lx = 0;
    map[0] = missing[0] = 0;
    for (char *save = NULL, *h = strtok_r(nodes, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        char ch[600], item[1000];
        node_channels(r, h, ch, sizeof ch);
        snprintf(item, sizeof item, "%s=%s", h, ch[0] ? ch : "-");
        append(map, sizeof map, &lm, " ", item);
        if (!ch[0]) append(missing, sizeof missing, &lx, ",", h);
    }
    set(r, "slurm_node_channels", map);
    set(r, "slurm_nodes_without_channel", missing);
    if (missing[0] && !getenv("MW_AGENT_HOST")) {
        fprintf(stderr, "mw record: Slurm job %s: no channel measures node%s ", job,
                strchr(missing, ',') ? "s" : "");
        mw_out_text(stderr, missing);
        fprintf(stderr, " (name channels NAME@NODE: docs/slurm.md)\n");
    }
}

void mw_rec_slurm_meta(rec_t *r)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (!job) return;
    if (!id_ok(job)) {
        fprintf(stderr, "mw record: SLURM_JOB_ID is not a job id: not stored\n");
        return;
    }
    set(r, "slurm_job_id", job);
    const char *step = getenv("SLURM_STEP_ID");
    if (step && !id_ok(step)) step = NULL;
    if (step) set(r, "slurm_step_id", step);
    const char *cluster = getenv("SLURM_CLUSTER_NAME");
    if (cluster && printable(cluster, 255)) set(r, "slurm_cluster", cluster);
    const char *cmd = getenv("MW_SLURM_STEP_COMMAND");
    if (cmd && strlen(cmd) < 4096) set(r, "slurm_step_command", cmd);
    const char *list = getenv("SLURM_JOB_NODELIST");
    if (!list) list = getenv("SLURM_NODELIST");
    if (!list || !printable(list, SLURM_LIST_MAX) || list[0] == '-') {
        fprintf(stderr, "mw record: Slurm job %s: no usable SLURM_JOB_NODELIST: nodes not mapped to channels\n", job);
        return;
    }
    set(r, "slurm_job_nodelist", list);
    static char nodes[65536];
    char why[400];
    if (expand_nodes(list, nodes, sizeof nodes, why, sizeof why) != 0) {
        fprintf(stderr, "mw record: Slurm job %s: node list not expanded (%s): nodes not mapped to channels\n", job, why);
        return;
    }
    set(r, "slurm_nodes", nodes);
    map_nodes(r, job, nodes);
    char slist[SLURM_LIST_MAX + 1];
    if (step && step_nodelist(job, step, slist, sizeof slist) == 0 &&
        expand_nodes(slist, nodes, sizeof nodes, why, sizeof why) == 0)
        set(r, "slurm_step_nodes", nodes);
}
