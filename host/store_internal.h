/* store_internal — what host/'s own readers (run.c, the sweep index, import, merge) share
 * with store.c and nothing outside host/ may see: the SQLite connection of a store and the
 * way store.c words a database error. */
#ifndef MW_STORE_INTERNAL_H
#define MW_STORE_INTERNAL_H
#include <sqlite3.h>

#include "mw_store.h"

sqlite3 *mw_store_sqlite(mw_store *s);
/* Sets mw_store_error(s) to "PATH: what: SQLite's message"; returns -1. */
int mw_store_db_error(mw_store *s, const char *what);
/* The run's schema version (1 has no phases.pid, phases.peer, clock_sync). */
int mw_store_schema(const mw_store *s);
#endif
