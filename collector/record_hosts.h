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
/* Every datagram ends with a MAC (libsodium's crypto_auth, HMAC-SHA-512-256) of all its
 * bytes before the tag, under the run's 256-bit key (MW_RUN_SECRET, 64 hex digits, made by
 * the launcher with getrandom and given to the agents through their environment, never
 * their command line; the key itself is never sent). A datagram whose tag does not verify
 * is ignored. Replays: each request carries a 64-bit seq that a sending process makes
 * strictly increasing (from CLOCK_MONOTONIC); the launcher heeds a request only when its
 * seq is above the last one it heeded from that host for that kind (a replayed or
 * reordered request is ignored), and a reply carries its request's seq under the MAC, so
 * the agent takes only the answer to the request it is waiting for. Fields are in the host
 * byte order, the layouts have no padding (checked below). */
#define MW_RUN_SECRET_LEN 32 /* crypto_auth_KEYBYTES */
#define MW_CLK_TAG_LEN 32    /* crypto_auth_BYTES */
typedef struct {
    uint32_t magic;
    uint32_t kind; /* MW_CLK_EXCHANGE (answered), or a notice (not answered):
                    * MW_CLK_READY the host's recorder is recording, MW_CLK_FAILED it ended
                    * with an error (its meter could not be used) */
    uint64_t seq;
    char host[MW_HOST_NAME_MAX + 1]; /* the agent's host name, NUL-padded */
    uint8_t tag[MW_CLK_TAG_LEN];
} mw_clk_request;
#define MW_CLK_EXCHANGE 0u
#define MW_CLK_READY 1u
#define MW_CLK_FAILED 2u
typedef struct {
    uint32_t magic;
    uint32_t stop;  /* 1: the command is over, the agent ends its recording */
    uint64_t seq;   /* the request's */
    int64_t t2_ns;  /* the launcher's CLOCK_REALTIME at the answer */
    uint32_t known; /* 0: the host is not one of the run's (the agent ends) */
    uint32_t zero;  /* 0 */
    uint8_t tag[MW_CLK_TAG_LEN];
} mw_clk_reply;
_Static_assert(sizeof(mw_clk_request) == 112, "mw_clk_request has no padding");
_Static_assert(sizeof(mw_clk_reply) == 64, "mw_clk_reply has no padding");

/* The run's key from MW_RUN_SECRET into key: 0, or -1 when absent or not 64 hex digits */
int mw_hosts_secret_get(uint8_t key[MW_RUN_SECRET_LEN]);
/* The tag of the first len bytes of msg (its last MW_CLK_TAG_LEN bytes) written, or
 * checked: 1 when it verifies (constant time). -1 from sign when libsodium cannot start. */
int mw_hosts_sign(void *msg, size_t len, const uint8_t key[MW_RUN_SECRET_LEN]);
int mw_hosts_verify(const void *msg, size_t len, const uint8_t key[MW_RUN_SECRET_LEN]);
/* a strictly increasing seq for this process's requests (CLOCK_MONOTONIC ns) */
uint64_t mw_hosts_next_seq(void);

/* A host name as the run accepts it: 1..63 of [A-Za-z0-9._-], not starting with '.' or '-'.
 * 1 when good. */
int mw_hosts_name_ok(const char *name);

/* "mw record -o RUNDIR --meter-hosts SPEC [--meter M] [--force] [-q] -- CMD": the exit code
 * (CMD's; 1 when CMD's is 0 but the run is partial; 2 bad usage, nothing made). */
int mw_rec_hosts_run(const char *rundir, const char *spec, const char *meter, int force,
                     int quiet, char **cmd, char **argv);
#endif
