/* energy_store — see energy_store.h. One prepared query, rows appended to a doubling
 * array. */
#include "energy_store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

int mw_energy_store_windows(sqlite3 *db, int channel, mw_energy_window **w, size_t *n, char *err,
                            size_t errlen)
{
    *w = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT t0_ns, t1_ns, power_mw FROM samples WHERE channel = ?1 "
                           "ORDER BY t1_ns, t0_ns",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int(st, 1, channel);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            mw_energy_window *nw = realloc(*w, cap * sizeof *nw);
            if (!nw) {
                snprintf(err, errlen, "out of memory");
                rc = SQLITE_NOMEM;
                break;
            }
            *w = nw;
        }
        (*w)[(*n)++] = (mw_energy_window){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                          sqlite3_column_int(st, 2)};
    }
    if (rc != SQLITE_DONE && rc != SQLITE_NOMEM) snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*w);
        *w = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}
