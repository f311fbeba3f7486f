/* store_inband — the run store's in-band tables (schema version 4, docs/run-store.md):
 * their SQL and their names for store.c's schema check. They are made with a run's first
 * in-band source (store_inband.c), so that a run without one is the size it always was;
 * the cursors (run.c) read none where they are absent. */
#ifndef MW_STORE_INBAND_H
#define MW_STORE_INBAND_H

/* inband_channels: one row per source and host; inband_samples: its windows, like samples
 * (energy_uj since the recording began, exact; counter_uj the device's reading); inband_gaps:
 * spans a source could not be read. */
#define MW_STORE_INBAND_SCHEMA                                                                     \
    "CREATE TABLE IF NOT EXISTS inband_channels (\n"                                                             \
    "    source INTEGER PRIMARY KEY,\n"                                                            \
    "    name TEXT NOT NULL,\n"                                                                    \
    "    host TEXT NOT NULL,\n"                                                                    \
    "    kind TEXT NOT NULL,\n"                                                                    \
    "    domain TEXT NOT NULL,\n"                                                                  \
    "    device TEXT NOT NULL,\n"                                                                  \
    "    range_uj INTEGER NOT NULL,\n"                                                             \
    "    additive INTEGER NOT NULL,\n"                                                             \
    "    sampled INTEGER NOT NULL,\n"                                                              \
    "    UNIQUE (host, name)\n"                                                                    \
    ");\n"                                                                                         \
    "CREATE TABLE IF NOT EXISTS inband_samples (\n"                                                              \
    "    source INTEGER NOT NULL,\n"                                                               \
    "    seq INTEGER NOT NULL,\n"                                                                  \
    "    t0_ns INTEGER NOT NULL,\n"                                                                \
    "    t1_ns INTEGER NOT NULL,\n"                                                                \
    "    power_mw INTEGER NOT NULL,\n"                                                             \
    "    energy_uj INTEGER NOT NULL,\n"                                                            \
    "    counter_uj INTEGER NOT NULL,\n"                                                           \
    "    flags INTEGER NOT NULL,\n"                                                                \
    "    PRIMARY KEY (source, seq)\n"                                                              \
    ") WITHOUT ROWID;\n"                                                                           \
    "CREATE TABLE IF NOT EXISTS inband_gaps (\n"                                                                 \
    "    id INTEGER PRIMARY KEY,\n"                                                                \
    "    source INTEGER NOT NULL,\n"                                                               \
    "    start_ns INTEGER NOT NULL,\n"                                                             \
    "    end_ns INTEGER NOT NULL,\n"                                                               \
    "    reason TEXT NOT NULL\n"                                                                   \
    ");\n"

/* (inband_samples_time, an index on t1_ns, is no longer made: nothing read it, and it cost a
 * third of each window's insert; runs recorded with it keep it) */
#define MW_STORE_INBAND_OBJECTS                                                                    \
    "table inband_channels", "table inband_samples", "index inband_samples_time",                 \
        "table inband_gaps"

/* the first schema version with these tables */
#define MW_STORE_INBAND_SINCE 4
/* the test for them (a table of that name exists) */
#define MW_STORE_INBAND_EXISTS                                                                    \
    "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'inband_samples'"
#endif
