/* export_tables — the CSV and JSON writers of mw export's tables (export_tables.h says
 * what each table holds and how numbers are written). A small row writer takes each row
 * as an array of fields (text, number or null) and lays it out as a CSV line or a JSON
 * object, so each table is only its cursor and its list of fields; meta is the exception
 * (JSON: one object of key/value pairs rather than an array). A JSON document is one object
 * that names its schema first: {"schema": "megawatt.export/1", "what": TABLE, "rows": [...]}
 * ("meta": {...} for meta). */
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "csvout.h"
#include "export_tables.h"
#include "mw_alloc.h"
#include "mw_run.h"
#include "mw_store.h"
#include "textout.h"

/* t - origin without signed overflow (wraps only for times 292 years apart) */
static int64_t since(int64_t t, int64_t origin)
{
    return (int64_t)((uint64_t)t - (uint64_t)origin);
}

/* v / step rounded half away from zero with `decimals` decimals, step being one unit of the
 * last decimal (textout.h): dec(n, 1500, 1, 3) = "1.500" (mW as W), dec(n, 2499500, 1000,
 * 6) = "0.002500" (ns as s). */
static const char *dec(char *buf, int64_t v, int64_t step, int decimals)
{
    return mw_out_fixed(buf, 32, v, step, decimals, "");
}

static const char *integer(char *buf, int64_t v)
{
    snprintf(buf, 32, "%" PRId64, v);
    return buf;
}

/* One output field: text (quoted/escaped), a number (written as is), or null. */
typedef struct {
    const char *s; /* NULL = null (empty in CSV) */
    int text;
} field;

#define MAX_FIELDS 12

typedef struct {
    FILE *out;
    int json;
    mw_csv_formulas *fx; /* formula-like text fields (csvout.h) */
    const char *what; /* the table's name (JSON: "what") */
    const char *const *names;
    int n;
    long rows;
} writer;

/* JSON: the document's head, schema first (docs/schemas/megawatt.export-1.schema.json). */
static void json_head(FILE *out, const char *what, const char *key)
{
    fprintf(out, "{\"schema\": \"%s\", \"what\": \"%s\", \"%s\": ", MW_EXPORT_JSON_SCHEMA,
            what, key);
}

static void writer_begin(writer *w)
{
    if (w->json) {
        json_head(w->out, w->what, "rows");
        fputc('[', w->out);
        return;
    }
    for (int i = 0; i < w->n; i++)
        fprintf(w->out, "%s%s", i ? "," : "", w->names[i]);
    fputc('\n', w->out);
}

static void writer_row(writer *w, const field *f)
{
    if (!w->json) {
        w->fx->row = w->rows + 1;
        for (int i = 0; i < w->n; i++) {
            if (i) fputc(',', w->out);
            if (!f[i].s) continue;
            w->fx->column = w->names[i];
            if (f[i].text)
                mw_csv_text(w->out, f[i].s, w->fx);
            else
                fputs(f[i].s, w->out);
        }
        fputc('\n', w->out);
    } else {
        fputs(w->rows ? ",\n{" : "\n{", w->out);
        for (int i = 0; i < w->n; i++) {
            fprintf(w->out, "%s\"%s\":", i ? "," : "", w->names[i]);
            if (!f[i].s)
                fputs("null", w->out);
            else if (f[i].text)
                mw_out_json_string(w->out, f[i].s);
            else
                fputs(f[i].s, w->out);
        }
        fputc('}', w->out);
    }
    w->rows++;
}

/* The end of a table; on a read error (rc < 0) the store's message. 0 or -1. */
static int writer_end(writer *w, mw_store *s, int rc)
{
    if (rc < 0) fprintf(stderr, "mw export: %s\n", mw_store_error(s));
    if (w->json) fputs("\n]}\n", w->out);
    return rc < 0 ? -1 : 0;
}

static int open_error(mw_store *s)
{
    fprintf(stderr, "mw export: %s\n", mw_store_error(s));
    return -1;
}

static const char *const sample_names[] = {
    "time_s",   "channel", "power_w", "vrms_v",  "irms_a", "pf",
    "energy_j", "start_s", "seq",     "segment", "flags",  "uncertainty_ms",
};

static int export_samples(mw_store *s, writer *w, int64_t origin)
{
    mw_run_cursor *c = mw_run_named_windows(s);
    if (!c) return open_error(s);
    writer_begin(w);
    mw_store_sample x;
    const char *name;
    char n[MAX_FIELDS][32];
    int rc;
    while ((rc = mw_run_named_window_next(c, &x, &name)) == 1) {
        const field f[] = {
            {dec(n[0], since(x.t1_ns, origin), 1000, 6), 0},
            {name, 1},
            {dec(n[2], x.power_mw, 1, 3), 0},
            {dec(n[3], x.vrms_mv, 1, 3), 0},
            {dec(n[4], x.irms_ua, 1, 6), 0},
            {dec(n[5], x.pf_milli, 1, 3), 0},
            {dec(n[6], x.energy_mj, 1, 3), 0},
            {dec(n[7], since(x.t0_ns, origin), 1000, 6), 0},
            {integer(n[8], x.seq), 0},
            {integer(n[9], x.segment), 0},
            {integer(n[10], x.flags), 0},
            {dec(n[11], x.uncertainty_ns, 1, 6), 0},
        };
        writer_row(w, f);
    }
    mw_run_close(c);
    return writer_end(w, s, rc);
}

static const char *const phase_names[] = {"rank", "host",    "thread", "kind",
                                          "name", "start_s", "end_s",  "bytes"};

static int export_phases(mw_store *s, writer *w, int64_t origin)
{
    mw_run_cursor *c = mw_run_phases_by_start_rank(s);
    if (!c) return open_error(s);
    writer_begin(w);
    mw_store_phase p;
    char n[MAX_FIELDS][32];
    int rc;
    while ((rc = mw_run_phase_next(c, &p)) == 1) {
        const field f[] = {
            {integer(n[0], p.rank), 0},
            {p.host, 1},
            {integer(n[2], p.thread), 0},
            {p.kind, 1},
            {p.name, 1},
            {dec(n[5], since(p.start_ns, origin), 1000, 6), 0},
            {dec(n[6], since(p.end_ns, origin), 1000, 6), 0},
            {integer(n[7], p.bytes), 0},
        };
        writer_row(w, f);
    }
    mw_run_close(c);
    return writer_end(w, s, rc);
}

static const char *const gap_names[] = {"start_s", "end_s", "reason"};

static int export_gaps(mw_store *s, writer *w, int64_t origin)
{
    mw_run_cursor *c = mw_run_gaps(s);
    if (!c) return open_error(s);
    writer_begin(w);
    mw_run_gap g;
    char n[2][32];
    int rc;
    while ((rc = mw_run_gap_next(c, &g)) == 1) {
        const field f[] = {
            {dec(n[0], since(g.start_ns, origin), 1000, 6), 0},
            {dec(n[1], since(g.end_ns, origin), 1000, 6), 0},
            {g.reason, 1},
        };
        writer_row(w, f);
    }
    mw_run_close(c);
    return writer_end(w, s, rc);
}

/* The name of each meter by number (meters table; "meter N" where it has no row). */
typedef struct {
    char **name;
    int n;
} meter_names;

static int meter_names_load(mw_store *s, meter_names *m)
{
    mw_run_cursor *c = mw_run_meters(s);
    if (!c) return -1;
    mw_run_meter x;
    int rc;
    while ((rc = mw_run_meter_next(c, &x)) == 1) {
        if (x.meter < 1 || x.meter > 1000000) continue; /* a forged number: no name */
        if (x.meter > m->n) {
            m->name = mw_xrealloc(m->name, (size_t)x.meter * sizeof *m->name);
            for (int i = m->n; i < x.meter; i++)
                m->name[i] = NULL;
            m->n = x.meter;
        }
        free(m->name[x.meter - 1]);
        m->name[x.meter - 1] = mw_xstrdup(x.name ? x.name : "");
    }
    mw_run_close(c);
    return rc;
}

static void meter_names_free(meter_names *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->name[i]);
    free(m->name);
}

static const char *const channel_names[] = {"channel", "name",  "host",
                                            "pin",     "meter", "meter_channel"};

/* channels: each channel's name, host, pin and the meter (by name) and the meter's channel
 * that measure it (store v5; an older run: meter 1). */
static int export_channels(mw_store *s, writer *w)
{
    meter_names m = {0};
    if (meter_names_load(s, &m) < 0) {
        meter_names_free(&m);
        return open_error(s);
    }
    mw_run_cursor *c = mw_run_channels(s);
    if (!c) {
        meter_names_free(&m);
        return open_error(s);
    }
    writer_begin(w);
    mw_run_channel x;
    char n[3][32];
    int rc;
    while ((rc = mw_run_channel_next(c, &x)) == 1) {
        const char *meter = x.meter >= 1 && x.meter <= m.n ? m.name[x.meter - 1] : NULL;
        if (!meter) snprintf(n[1], sizeof n[1], "meter %d", x.meter);
        const field f[] = {
            {integer(n[0], x.channel), 0},
            {x.name, 1},
            {x.host, 1},
            {x.pin, 1},
            {meter ? meter : n[1], 1},
            {x.meter_channel > 0 ? integer(n[2], x.meter_channel) : NULL, 0},
        };
        writer_row(w, f);
    }
    mw_run_close(c);
    meter_names_free(&m);
    return writer_end(w, s, rc);
}

/* meta: CSV key,value rows; JSON one object {"key": "value", ...}. */
static int export_meta(mw_store *s, FILE *out, int json, mw_csv_formulas *fx)
{
    mw_run_cursor *c = mw_run_meta(s);
    if (!c) return open_error(s);
    if (json) json_head(out, "meta", "meta");
    fputs(!json ? "key,value\n" : "{", out);
    int rc, rows = 0;
    const char *k, *v; /* v NULL: a NULL value */
    while ((rc = mw_run_meta_next_nullable(c, &k, &v)) == 1) {
        if (!json) {
            fx->row = rows + 1;
            fx->column = "key";
            mw_csv_text(out, k, fx);
            fputc(',', out);
            fx->column = "value";
            if (v) mw_csv_text(out, v, fx);
            fputc('\n', out);
        } else {
            fputs(rows ? ",\n" : "\n", out);
            mw_out_json_string(out, k);
            fputc(':', out);
            if (v)
                mw_out_json_string(out, v);
            else
                fputs("null", out);
        }
        rows++;
    }
    mw_run_close(c);
    if (json) fputs("\n}}\n", out);
    if (rc < 0) fprintf(stderr, "mw export: %s\n", mw_store_error(s));
    return rc < 0 ? -1 : 0;
}

int mw_export_table_write(mw_store *s, FILE *out, mw_export_table what, int json,
                          mw_csv_formulas *fx)
{
    if (what == MW_EXPORT_META) return export_meta(s, out, json, fx);
    int64_t origin = 0;
    mw_store_start_ns(s, &origin); /* a run with neither start_ns nor samples: origin 0 */
    writer w = {.out = out, .json = json, .fx = fx};
    switch (what) {
    case MW_EXPORT_CHANNELS:
        w.what = "channels";
        w.names = channel_names;
        w.n = 6;
        return export_channels(s, &w);
    case MW_EXPORT_SAMPLES:
        w.what = "samples";
        w.names = sample_names;
        w.n = 12;
        return export_samples(s, &w, origin);
    case MW_EXPORT_PHASES:
        w.what = "phases";
        w.names = phase_names;
        w.n = 8;
        return export_phases(s, &w, origin);
    default:
        w.what = "gaps";
        w.names = gap_names;
        w.n = 3;
        return export_gaps(s, &w, origin);
    }
}
