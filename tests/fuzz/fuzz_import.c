/* fuzz_import — the CSV importer (host/import.c): `mw import --format csv FILE`.
 *
 * The input is the file. It first goes to mw_import_check (mw_import.h: the parsing and
 * checking mw import does before writing anything). A refused file must come with a message
 * naming the file ("fuzz.csv:LINE..."). Invariants when the file is accepted: every
 * channel's windows have start < end, ends strictly increasing and no window starting
 * before the previous one ended. Then, for an accepted file only, the whole command runs
 * in-process (mw import --format csv FILE -o RUN --force, into a private temporary
 * directory): it must exit 0 (what the check accepted must import) and the run must hold
 * exactly the windows the check counted. */
#include <sqlite3.h>

#include "cli.h"
#include "fuzz.h"
#include "mw_import.h"
#include "mw_store.h"
#include "../../host/store_internal.h" /* the SQLite handle: tests check the rows themselves */

static char g_run[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    snprintf(g_run, sizeof g_run, "%s/run", fuzz_tmpdir());
    return 0;
}

typedef struct {
    int channel;
    int64_t t0_ns, t1_ns;
    long long windows;
} walk;

static void each(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns)
{
    walk *w = ctx;
    FUZZ_CHECK(channel >= 0 && channel >= w->channel);
    FUZZ_CHECK(t0_ns < t1_ns);
    if (w->windows && channel == w->channel) FUZZ_CHECK(t1_ns > w->t1_ns && t0_ns >= w->t1_ns);
    w->channel = channel;
    w->t0_ns = t0_ns;
    w->t1_ns = t1_ns;
    w->windows++;
}

static long long stored_windows(void)
{
    char err[8192];
    mw_store *s = mw_store_open(g_run, err, sizeof err);
    if (!s) dprintf(2, "fuzz_import: %s\n", err);
    FUZZ_CHECK(s != NULL);
    sqlite3_stmt *st;
    FUZZ_CHECK(sqlite3_prepare_v2(mw_store_sqlite(s), "SELECT count(*) FROM samples", -1, &st, NULL) ==
               SQLITE_OK);
    FUZZ_CHECK(sqlite3_step(st) == SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    mw_store_close(s);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    walk w = {0};
    static char err[64 * 1024];
    err[0] = 0;
    int rc = mw_import_check("fuzz.csv", (const char *)data, size, each, &w, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1 && !strncmp(err, "fuzz.csv:", 9));
        return 0;
    }
    FUZZ_CHECK(w.windows > 0);
    const char *file = fuzz_file(data, size);
    char *argv[] = {"mw", "import", "--format", "csv", (char *)file, "-o", g_run, "--force", NULL};
    rc = mw_cli_main(8, argv);
    FUZZ_CHECK(rc == MW_EXIT_OK);
    FUZZ_CHECK(stored_windows() == w.windows);
    return 0;
}
