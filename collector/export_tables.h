/* export_tables — the tables of "mw export --format csv|json" (cmd_export.c): a run's
 * samples, channels, phases, gaps or meta, each one cursor of the run store's read API (mw_run.h)
 * read inside the caller's snapshot, turned into rows of fields that are either text
 * (quoted per RFC 4180 in CSV, never altered, formula-like fields counted for a warning:
 * csvout.h; escaped in JSON) or numbers. Numbers are formatted from the stored integers
 * with integer arithmetic, so a value is written exactly (power_w from mW with 3 decimals)
 * or rounded once, half away from zero (time_s from ns to 6 decimals). Times are seconds
 * since the run's start (meta start_ns, else the first sample's t0_ns). CSV: a header line
 * then one line per row; JSON: one object {"schema": "megawatt.export/1", "what": TABLE,
 * "rows": an array of objects with the CSV's keys} (meta: "meta": one object of the keys).
 * channels: each channel's name, host, pin, and the meter (its name) and the meter's channel
 * that measure it.
 * A read error is printed as "mw export: ..." on standard error. */
#ifndef MW_EXPORT_TABLES_H
#define MW_EXPORT_TABLES_H
#include <stdio.h>

#include "csvout.h"
#include "mw_store.h"

/* The schema of the JSON documents (docs/schemas/megawatt.export-1.schema.json). */
#define MW_EXPORT_JSON_SCHEMA "megawatt.export/1"

typedef enum {
    MW_EXPORT_SAMPLES,
    MW_EXPORT_PHASES,
    MW_EXPORT_GAPS,
    MW_EXPORT_META,
    MW_EXPORT_CHANNELS
} mw_export_table;

/* Writes table `what` of s to out as JSON (json != 0) or CSV, counting formula-like text
 * fields in fx: 0, or -1 after a read error (printed). */
int mw_export_table_write(mw_store *s, FILE *out, mw_export_table what, int json,
                          mw_csv_formulas *fx);
#endif
