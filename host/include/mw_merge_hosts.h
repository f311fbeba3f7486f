/* mw_merge_hosts — one trace from the stores of several recording agents (docs/scaling.md).
 *
 * A run recorded with meters on several hosts ("mw record --meter-hosts") holds one agent
 * store per host, RUNDIR/hosts/HOST/trace.db, each a complete run of its host's meter on its
 * host's clock, with the agent's clock exchanges against the launching host in its
 * clock_sync table (rank -1). mw_merge_hosts writes RUNDIR/trace.db (replacing an earlier
 * merge's): every window put on the launching host's clock, its uncertainty the clock
 * model's plus the offset's; channels numbered run-wide 1..N, hosts in name order, each
 * host's channels in their order, named "HOST:NAME" where two hosts use one name; the gaps
 * of each host (reason prefixed "HOST: "); each host's metadata under "host.HOST:KEY" (":"
 * is in no host name: two hosts never share a key); meta hosts, hosts_lost, clock_offset.HOST_ns, clock_uncertainty.HOST_ns, clock_steps.
 *
 * Clock: the offset of a host is a line over its own clock, fitted to its exchanges (the
 * exchange of least round trip in each burst): least squares for the drift when 5 or more
 * exchanges span 10 s or more (else none), the median of the residuals for the offset at
 * the exchanges' median time; every window is moved by the offset at its own time. Its
 * uncertainty is the median exchange's bound plus the residuals' median absolute deviation
 * (meta clock_offset.HOST_ns, clock_uncertainty.HOST_ns, clock_drift.HOST_ppm; the meters
 * table holds the offset and uncertainty). A jump between consecutive exchanges by more than
 * 50 ms and 20 times their bounds is a clock step: the longer side (more exchanges) is
 * fitted, the step's size is added to the uncertainty of the host and of every window of
 * it, and the step is said and counted (meta clock_steps, clock_step.HOST = "+2.000 s at
 * 12.3 s"). A host with no exchange keeps offset 0 with uncertainty unknown (meta
 * clock_uncertainty.HOST_ns = -1) and is said.
 *
 * A host whose store is missing, cannot be opened, or never ended its recording (status
 * "recording": the agent or its host died) is lost: its windows, when there are any, are
 * kept up to where it stopped, and the run's status becomes "complete, partial: host H lost"
 * (several: "hosts H1, H2 lost"). */
#ifndef MW_MERGE_HOSTS_H
#define MW_MERGE_HOSTS_H
#include <stddef.h>
#include <stdint.h>

#define MW_MERGE_STEP_MIN_NS 50000000LL

typedef struct {
    int hosts, lost, steps, channels;
    long long samples, gaps;
    char lost_names[1024]; /* "h2" or "h2, h3" */
    char status[1200];     /* the merged run's status */
    /* the largest of the hosts' alignment error p99 (meta clock_align_p99.HOST_ns: at each
     * clock exchange |residual from the fitted offset| + the exchange's bound, its 99th
     * percentile over the host's exchanges, plus a clock step's size), and that host;
     * -1: a host (not lost) without exchanges, whose alignment is unknown */
    long long align_p99_max_ns;
    char align_worst[64];
} mw_merge_hosts_stats;

/* Merge RUNDIR/hosts/ * /trace.db into RUNDIR/trace.db. say(ctx, line) gets each thing
 * worth saying (a lost host, a clock step, a host without clock exchanges). Returns 0, or
 * -1 with err (no host store at all, the output cannot be written). */
int mw_merge_hosts(const char *rundir, const char *status, mw_merge_hosts_stats *st,
                   void (*say)(void *ctx, const char *line), void *ctx, char *err,
                   size_t errlen);

/* mw_merge_hosts again over a run already merged ("mw merge RUNDIR", e.g. after the hosts'
 * stores were copied in): RUNDIR/trace.db is set aside as trace.db.premerge, the hosts merged
 * anew (with the earlier status: complete, interrupted), then what only the earlier one held
 * is copied in (the launcher's metadata: the command, its span, exit status; the probe's
 * phases and clock samples) and it is removed; on any failure it is put back whole. A
 * trace.db that is not a store is simply replaced. 0, or -1 with the message in err. */
int mw_merge_hosts_again(const char *rundir, mw_merge_hosts_stats *st,
                         void (*say)(void *ctx, const char *line), void *ctx, char *err,
                         size_t errlen);
/* 1 when RUNDIR/hosts is a directory (a run of meters on several hosts) */
int mw_merge_hosts_present(const char *rundir);
/* "cross-host alignment p99 <= 12.3 us (host n2)", or "... unknown (host n2: no clock
 * exchanges)", from st into out */
void mw_merge_hosts_align_text(const mw_merge_hosts_stats *st, char *out, size_t n);
#endif
