/* cmd_merge — "mw merge RUNDIR": put the instrumentation's events into the run store by hand
 * (mw record does it when its command ends); in a run of meters on several hosts (RUNDIR/hosts,
 * "mw record --meter-hosts") first make RUNDIR/trace.db from the hosts' stores
 * (mw_merge_hosts.h; over an earlier merge, keeping what only that one held: the launcher's
 * metadata, the probe's phases). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "mw_merge.h"
#include "mw_merge_hosts.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: mw merge RUNDIR\n\n"
                 "Reads the events the instrumented program's processes wrote\n"
                 "(RUNDIR/probe/NAME.mwp, libmwprobe: docs/probe.md), maps them onto the\n"
                 "recorder host's clock with each process's clock samples, and writes them\n"
                 "into RUNDIR/trace.db as phases (replacing those of an earlier merge).\n"
                 "mw record does this when its command ends.\n"
                 "In a run of meters on several hosts (mw record --meter-hosts), it first\n"
                 "makes RUNDIR/trace.db from the hosts' stores RUNDIR/hosts/HOST/trace.db: every\n"
                 "window on the launching host's clock, channels numbered run-wide; a host\n"
                 "whose recording did not end makes the run partial (docs/scaling.md); the\n"
                 "command's metadata and phases of an earlier merge are kept.\n\n"
                 "  -h, --help  this text\n\n"
                 "Exit status: 0 merged, 1 the store could not be written, 2 bad usage or\n"
                 "not a run.\n");
}

/* a probe's file that cannot be merged is skipped: said, not an error */
void mw_merge_say_skipped(void *ctx, const char *message)
{
    fprintf(stderr, "mw merge: %s (file skipped)\n", message);
}

static void say_host(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "mw merge: %s\n", line);
}

int cmd_merge(int argc, char **argv)
{
    if (mw_cli_wants_help(argc, argv)) {
        usage(stdout);
        return MW_EXIT_OK;
    }
    if (argc != 2 || argv[1][0] == '-')
        return mw_cli_usage_error("merge", argc < 2 ? "missing RUNDIR" : "expected one RUNDIR");
    char err[9000];
    int hosts_merged = mw_merge_hosts_present(argv[1]);
    if (hosts_merged) {
        mw_merge_hosts_stats hs;
        if (mw_merge_hosts_again(argv[1], &hs, say_host, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "mw merge: %s\n", err);
            return MW_EXIT_FAIL;
        }
        char al[200];
        mw_merge_hosts_align_text(&hs, al, sizeof al);
        printf("mw merge: %s: %d host%s, %d channels, %lld windows, %lld gaps: %s; %s\n", argv[1],
               hs.hosts, hs.hosts == 1 ? "" : "s", hs.channels, hs.samples, hs.gaps, hs.status,
               al);
    }
    if (!mw_store_exists(argv[1])) {
        fprintf(stderr, "mw merge: %s: not a run (no trace.db)\n", argv[1]);
        return MW_EXIT_USAGE;
    }
    mw_store *s = mw_store_open_write(argv[1], err, sizeof err);
    if (!s) {
        int code = errno == EINVAL ? MW_EXIT_USAGE : MW_EXIT_FAIL; /* not a run store: 2 */
        fprintf(stderr, "mw merge: %s\n", err);
        return code;
    }
    mw_merge_stats st;
    int rc = mw_merge_run(s, argv[1], &st, mw_merge_say_skipped, NULL, err, sizeof err);
    mw_store_close(s);
    if (rc) {
        fprintf(stderr, "mw merge: %s\n", err);
        return MW_EXIT_FAIL;
    }
    if (!st.files && !st.skipped && hosts_merged) {
        /* nothing more to say: the instrumented program left no events */
    } else if (!st.files && !st.skipped)
        printf("mw merge: %s: no spill files (a merge removes those it merged): phases kept\n",
               argv[1]);
    else
        printf("mw merge: %s: %lld events from %d processes (%d files skipped), %lld clock "
               "samples, %lld events dropped by the probes\n",
               argv[1], st.events, st.files, st.skipped, st.clock_samples, st.dropped);
    if (st.dropped)
        fprintf(stderr,
                "mw merge: warning: the probes dropped %lld events: raise "
                "MW_PROBE_RING_EVENTS (docs/probe.md)\n",
                st.dropped);
    return MW_EXIT_OK;
}
