/* record_hosts — "mw record --meter-hosts": meters on several hosts (docs/scaling.md).
 *
 * The launching side (record_hosts.c) starts one recording agent per meter host through the
 * job launcher (a Slurm job step inside an allocation, else Open MPI's mpirun), answers the
 * agents' clock exchanges, runs the command, stops the agents and merges their stores
 * (mw_merge_hosts.h). The agent is cmd_agent.c. The clock exchange (both sides) is the
 * small UDP protocol below. Private to the command. */
#ifndef MW_RECORD_HOSTS_H
#define MW_RECORD_HOSTS_H
#include <stdint.h>
#include <time.h>

#define MW_HOSTS_MAX 1024
#define MW_HOST_NAME_MAX 63

/* one clock exchange: the agent sends a request at its t1, the launcher answers with its own
 * CLOCK_REALTIME t2, the agent reads t3 at the answer. Offset of the agent's host (its clock
 * minus the launcher's) = (t1 + t3) / 2 - t2, within +-(t3 - t1) / 2 (Cristian's bound). */
#define MW_CLK_MAGIC 0x4d57434bu /* "MWCK" */
/* Every request and reply carries the run's 128-bit secret (MW_RUN_SECRET, 32 hex digits,
 * made by the launcher with getrandom and given to the agents through their environment,
 * never their command line); a datagram without it is ignored. The secret itself, compared
 * in constant time, not a MAC: against local users and network peers that can read the
 * port and names from ps but not the processes' environment, which is the threat here (no
 * crypto library is a dependency). */
#define MW_RUN_SECRET_LEN 16
typedef struct {
    uint32_t magic, seq;
    uint8_t key[MW_RUN_SECRET_LEN];
    char host[MW_HOST_NAME_MAX + 1]; /* the agent's host name, NUL-terminated */
    uint32_t kind; /* MW_CLK_EXCHANGE (answered), or a notice (not answered):
                    * MW_CLK_READY the host's recorder is recording, MW_CLK_FAILED it ended
                    * with an error (its meter could not be used) */
} mw_clk_request;
#define MW_CLK_EXCHANGE 0u
#define MW_CLK_READY 1u
#define MW_CLK_FAILED 2u
typedef struct {
    uint32_t magic, seq;
    uint8_t key[MW_RUN_SECRET_LEN];
    int64_t t2_ns;  /* the launcher's CLOCK_REALTIME at the answer */
    uint32_t stop;  /* 1: the command is over, the agent ends its recording */
    uint32_t known; /* 0: the host is not one of the run's (the agent ends) */
} mw_clk_reply;

/* The run's secret from MW_RUN_SECRET into key: 0, or -1 when absent or not 32 hex digits */
int mw_hosts_secret_get(uint8_t key[MW_RUN_SECRET_LEN]);
/* 1 when the two keys are equal (constant time) */
int mw_hosts_key_eq(const uint8_t *a, const uint8_t *b);

/* A host name as the run accepts it: 1..63 of [A-Za-z0-9._-], not starting with '.' or '-'.
 * 1 when good. */
int mw_hosts_name_ok(const char *name);

/* "mw record -o RUNDIR --meter-hosts SPEC [--meter M] [--force] [-q] -- CMD": the exit code
 * (CMD's; 1 when CMD's is 0 but the run is partial; 2 bad usage, nothing made). */
int mw_rec_hosts_run(const char *rundir, const char *spec, const char *meter, int force,
                     int quiet, char **cmd, char **argv);
#endif
