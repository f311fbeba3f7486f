/* fuzz_merge — the reader of libmwprobe's spill files (host/merge.c, docs/probe.md):
 * what `mw merge` and `mw record` read from RUNDIR/probe/NAME.mwp.
 *
 * One run store is made once, in a private temporary directory; each input becomes its
 * RUNDIR/probe/p.mwp and is merged with mw_merge_run (which replaces the previous merge's
 * phases). Invariants: the merge succeeds (a bad file is skipped, never an error) and
 * counts the file once, merged or skipped; a merged file's events and clock samples are
 * exactly the phases (other than the recorder's "mw" ones) and clock_sync rows now in the
 * store, and no phase ends before it starts; a skipped one leaves none. */
#include <sqlite3.h>

#include "fuzz.h"
#include "mw_merge.h"
#include "mw_store.h"
#include "../../host/store_internal.h" /* the SQLite handle: tests check the rows themselves */

static mw_store *g_store;
static char g_run[4200], g_spill[4300];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    snprintf(g_run, sizeof g_run, "%s/run", fuzz_tmpdir());
    char err[8192];
    g_store = mw_store_create(g_run, 0, err, sizeof err);
    if (!g_store) dprintf(2, "fuzz_merge: %s\n", err);
    FUZZ_CHECK(g_store != NULL);
    snprintf(g_spill, sizeof g_spill, "%s/probe", g_run);
    FUZZ_CHECK(mkdir(g_spill, 0755) == 0);
    snprintf(g_spill, sizeof g_spill, "%s/probe/p.mwp", g_run);
    return 0;
}

static long long count(const char *sql)
{
    sqlite3_stmt *st;
    FUZZ_CHECK(sqlite3_prepare_v2(mw_store_sqlite(g_store), sql, -1, &st, NULL) == SQLITE_OK);
    FUZZ_CHECK(sqlite3_step(st) == SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(g_spill, "w");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
    mw_merge_stats st;
    char err[8192] = "";
    long long phases0 = count("SELECT count(*) FROM phases WHERE kind <> 'mw'") +
                        count("SELECT coalesce(sum(events), 0) FROM phase_blocks");
    long long syncs0 = count("SELECT count(*) FROM clock_sync");
    /* the file is kept (the next input overwrites it); a small input's events are rows, a
     * compact_min_events of 64 sends bigger ones to phase_blocks, where a thread's 250 ms
     * window of more than 25 events is aggregated */
    mw_merge_opts o = {.compact_min_events = 64, .keep_spill = 1, .aggregate_hz = 100};
    int rc = mw_merge_run_opts(g_store, g_run, &o, &st, NULL, NULL, err, sizeof err);
    if (rc) dprintf(2, "fuzz_merge: %s\n", err);
    FUZZ_CHECK(rc == 0);
    FUZZ_CHECK(st.files + st.skipped == 1);
    long long phases = count("SELECT count(*) FROM phases WHERE kind <> 'mw'") +
                       count("SELECT coalesce(sum(events), 0) FROM phase_blocks");
    long long syncs = count("SELECT count(*) FROM clock_sync");
    /* a skipped file leaves what the last merge stored */
    FUZZ_CHECK(st.files ? phases == st.events - st.aggregated
                        : phases == phases0 && syncs == syncs0);
    FUZZ_CHECK(!st.files || syncs == st.clock_samples);
    FUZZ_CHECK(count("SELECT count(*) FROM phases WHERE end_ns < start_ns") == 0);
    return 0;
}
