/* meter_spec — see meter_spec.h. The simulated board's thread only runs mw_simpty_run;
 * everything else talks to it through its pty, as to a real meter. */
#include "meter_spec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "firmware_path.h"
#include "mw_simboot.h"
#include "mw_simcluster.h"
#include "mw_simprofile.h"
#include "mw_simpty.h"

/* How long a meter has to identify itself: 5 s for a port (a real board answers in well
 * under 0.1 s; "no answer within 5.0 s" is what a dead or foreign device gets), 30 s for the
 * simulated board in this process, which runs against host time and on a loaded machine
 * can take seconds to boot (measured 0.08-0.11 s when quiet). */
#define IDENT_MS 5000
#define IDENT_SIM_MS 30000

struct mw_meter_spec {
    mw_meter *meter;
    char path[4096];
    /* the simulated board, when spec is sim */
    mw_sim *sim;
    mw_simpty *pty;
    mw_simprofile *profile;
    mw_simcluster *cluster;
    pthread_t thread;
    int running;
};

static void *board_thread(void *arg)
{
    mw_meter_spec *s = arg;
    mw_simpty_run(s->pty, 0);
    return NULL;
}

static int start_sim(const char *cmd, const char *profile, mw_meter_spec *s)
{
    char elf[4096], err[512];
    if (mw_firmware_path("elf", elf, sizeof elf) != 0) {
        fprintf(stderr, "mw %s: --meter sim: no firmware found (%s); build it with 'make'\n", cmd,
                elf);
        return MW_EXIT_FAIL;
    }
    if (profile && !strcmp(profile, "cluster=")) {
        fprintf(stderr, "mw %s: --meter sim:cluster=: no FILE after '='\n", cmd);
        return MW_EXIT_USAGE;
    }
    if (profile && (!strcmp(profile, "cluster") || !strncmp(profile, "cluster=", 8))) {
        s->cluster = mw_simcluster_load(profile[7] ? profile + 8 : NULL, err, sizeof err);
        if (!s->cluster) {
            fprintf(stderr, "mw %s: --meter sim:%s: %s\n", cmd, profile, err);
            return MW_EXIT_USAGE;
        }
    } else if (profile) {
        s->profile = mw_simprofile_load(profile, err, sizeof err);
        if (!s->profile) {
            fprintf(stderr, "mw %s: --meter sim:%s: %s\n", cmd, profile, err);
            return MW_EXIT_USAGE;
        }
    }
    s->sim = mw_simboot_open(elf, NULL, NULL, err, sizeof err);
    if (!s->sim) {
        fprintf(stderr, "mw %s: --meter sim: %s\n", cmd, err);
        return MW_EXIT_FAIL;
    }
    mw_sim_set_mains(s->sim, 0, 230, 50);
    if (s->cluster) {
        mw_simcluster_attach(s->cluster, s->sim);
        if (mw_simcluster_start(s->cluster) != 0) {
            fprintf(stderr, "mw %s: --meter sim:cluster: cannot start its sampler\n", cmd);
            return MW_EXIT_FAIL;
        }
    } else if (s->profile) {
        mw_simprofile_attach(s->profile, s->sim, 0.95, MW_SIM_SMPS);
    } else {
        mw_sim_set_load(s->sim, 1, 156.3, 0.95, MW_SIM_SMPS);
        mw_sim_set_load(s->sim, 2, 146.1, 0.95, MW_SIM_SMPS);
        mw_sim_set_load(s->sim, 3, 172.8, 0.95, MW_SIM_SMPS);
        mw_sim_set_load(s->sim, 4, 3.5, 1, MW_SIM_SINE);
    }
    s->pty = mw_simpty_open(s->sim, NULL, err, sizeof err);
    if (!s->pty) {
        fprintf(stderr, "mw %s: --meter sim: %s\n", cmd, err);
        return MW_EXIT_FAIL;
    }
    mw_simpty_set_reset_on_open(s->pty, 1);
    if (pthread_create(&s->thread, NULL, board_thread, s) != 0) {
        fprintf(stderr, "mw %s: --meter sim: cannot start the board's thread\n", cmd);
        return MW_EXIT_FAIL;
    }
    s->running = 1;
    snprintf(s->path, sizeof s->path, "%s", mw_simpty_path(s->pty));
    return 0;
}

int mw_meter_spec_find_all(char (*paths)[4096], int max, char *err, size_t errlen)
{
    mw_port_info *v;
    int n = mw_port_list(&v);
    if (n < 0) {
        snprintf(err, errlen, "cannot list serial ports; give --meter PORT");
        return -1;
    }
    int found = 0;
    for (int i = 0; i < n && found < max; i++)
        if (v[i].kind) snprintf(paths[found++], sizeof paths[0], "%s", v[i].path);
    free(v);
    if (found) return found;
    char one[4096];
    mw_port_find_meter(one, sizeof one, err, errlen); /* none: its message lists what is seen */
    return -1;
}

int mw_meter_spec_open(const char *cmd, const char *spec, mw_meter_spec **out)
{
    *out = NULL;
    mw_meter_spec *s = calloc(1, sizeof *s);
    if (!s) return MW_EXIT_FAIL;
    char err[1024];
    int rc;
    if (!spec || !strcmp(spec, "auto")) {
        if (mw_port_find_meter(s->path, sizeof s->path, err, sizeof err) != 0) {
            fprintf(stderr, "mw %s: %s; give --meter PORT\n", cmd, err);
            free(s);
            return MW_EXIT_USAGE;
        }
    } else if (!strcmp(spec, "sim") || !strncmp(spec, "sim:", 4)) {
        if ((rc = start_sim(cmd, spec[3] ? spec + 4 : NULL, s)) != 0) {
            mw_meter_spec_close(s);
            return rc;
        }
    } else {
        snprintf(s->path, sizeof s->path, "%s", spec);
    }
    mw_port_err why;
    s->meter = mw_meter_open(s->path, s->sim ? IDENT_SIM_MS : IDENT_MS, &why, err, sizeof err);
    if (!s->meter) {
        fprintf(stderr, "mw %s: %s\n", cmd, err);
        mw_meter_spec_close(s);
        return MW_EXIT_USAGE;
    }
    *out = s;
    return 0;
}

void mw_meter_spec_close(mw_meter_spec *s)
{
    if (!s) return;
    mw_meter_close(s->meter);
    if (s->running) {
        mw_simpty_request_stop(s->pty);
        pthread_join(s->thread, NULL);
    }
    if (s->pty) mw_simpty_close(s->pty);
    if (s->sim) mw_sim_close(s->sim);
    mw_simcluster_free(s->cluster);
    mw_simprofile_free(s->profile);
    free(s);
}

mw_meter *mw_meter_spec_meter(mw_meter_spec *s)
{
    return s->meter;
}
const char *mw_meter_spec_path(const mw_meter_spec *s)
{
    return s->path;
}
mw_simcluster *mw_meter_spec_cluster(mw_meter_spec *s)
{
    return s->cluster;
}
int mw_meter_spec_is_sim(const mw_meter_spec *s)
{
    return s->sim != NULL;
}

int mw_meter_spec_calibration(mw_meter *m, char *out, size_t outlen)
{
    const mw_proto_ident *id = mw_meter_ident(m);
    out[0] = 0;
    if (!id) {
        snprintf(out, outlen, "meter not identified");
        return -1;
    }
    size_t len = 0;
    for (int k = 0; k <= id->n_current; k++) {
        char cmd[16], reply[256];
        snprintf(cmd, sizeof cmd, "CAL? %d", k);
        int ch;
        double gain, phase;
        if (mw_meter_command(m, cmd, "C,", reply, sizeof reply, 2000) != 0 ||
            mw_proto_parse_cal(reply, &ch, &gain, &phase) != 0 || ch != k) {
            snprintf(out, outlen, "%s: %s", cmd, reply);
            return -1;
        }
        len += (size_t)snprintf(out + len, len < outlen ? outlen - len : 0, "%s%d:%.6f,%.3f",
                                k ? ";" : "", k, gain, phase);
        if (len >= outlen) return -1;
    }
    return 0;
}
