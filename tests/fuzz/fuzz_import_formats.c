/* fuzz_import_formats — the readers of other meters' formats (host/import_powersensor3.c,
 * import_kwollect.c, import_pmlib.c): `mw import --format powersensor3|kwollect|pmlib FILE`.
 *
 * The input's first byte picks the format (its value mod 3: powersensor3, kwollect, pmlib),
 * the rest is the file, given to mw_import_parse_as. A refused file must come with a message
 * naming it ("fuzz.txt:LINE..."). An accepted one: every channel's windows have start < end,
 * ends strictly increasing and no window starting before the previous one ended; the whole
 * command then runs in-process on it (mw import --format F FILE -o RUN --force, into a
 * private temporary directory) and must exit 0 with the windows the parse counted. */
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
    int64_t t1_ns;
    long long windows;
} walk;

static void each(void *ctx, int channel, int64_t t0_ns, int64_t t1_ns)
{
    walk *w = ctx;
    FUZZ_CHECK(channel >= 0 && channel >= w->channel);
    FUZZ_CHECK(t0_ns < t1_ns);
    if (w->windows && channel == w->channel) FUZZ_CHECK(t1_ns > w->t1_ns && t0_ns >= w->t1_ns);
    w->channel = channel;
    w->t1_ns = t1_ns;
    w->windows++;
}

static long long stored_windows(void)
{
    char err[8192];
    mw_store *s = mw_store_open(g_run, err, sizeof err);
    if (!s) dprintf(2, "fuzz_import_formats: %s\n", err);
    FUZZ_CHECK(s != NULL);
    sqlite3_stmt *st;
    FUZZ_CHECK(sqlite3_prepare_v2(mw_store_sqlite(s), "SELECT count(*) FROM samples", -1, &st,
                                  NULL) == SQLITE_OK);
    FUZZ_CHECK(sqlite3_step(st) == SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    mw_store_close(s);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mw_import_format fmts[] = {MW_IMPORT_POWERSENSOR3, MW_IMPORT_KWOLLECT,
                                            MW_IMPORT_PMLIB};
    static const char *const names[] = {"powersensor3", "kwollect", "pmlib"};
    if (size < 1) return 0;
    int k = data[0] % 3;
    data++;
    size--;
    static char err[64 * 1024];
    err[0] = 0;
    mw_import *im = mw_import_parse_as(fmts[k], "fuzz.txt", (const char *)data, size, err,
                                       sizeof err);
    if (!im) {
        FUZZ_CHECK(!strncmp(err, "fuzz.txt:", 9));
        return 0;
    }
    walk w = {0};
    mw_import_each_window(im, each, &w);
    mw_import_free(im);
    FUZZ_CHECK(w.windows > 0);
    const char *file = fuzz_file(data, size);
    char *argv[] = {"mw", "import", "--format", (char *)names[k], (char *)file, "-o", g_run,
                    "--force", NULL};
    FUZZ_CHECK(mw_cli_main(8, argv) == MW_EXIT_OK);
    FUZZ_CHECK(stored_windows() == w.windows);
    return 0;
}
