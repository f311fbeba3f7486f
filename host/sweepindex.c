/* sweepindex — see sweepindex.h; the format is documented in docs/sweep.md.
 *
 * Design. The reader loads the whole index at open (parameters, configurations with their
 * values, runs) into plain arrays and closes the database at once: indexes are small (one
 * row per run) and readers then never hold a lock that a running `mw sweep` would wait on.
 * The writer keeps one read-write connection in SQLite's rollback-journal mode with a busy
 * timeout (a reader's short snapshot at most delays a write), and holds an exclusive flock
 * on sweep.db so that two sweeps never drive the same directory. Every statement is
 * prepared with bound parameters. A database is recognised as an index by PRAGMA
 * user_version (MW_SWEEPIDX_VERSION) and its tables. sweep.db is a file a user may hand
 * over, so every connection is defensive and an existing index holding anything but our
 * tables (a trigger, a view, another table or index) is refused (store_internal.h,
 * mw_sqlite_check_schema). */
#include "mw_sweepindex.h"
#include "mw_err.h"
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MW_SWEEPIDX_VERSION 1
#define MW_SWEEPIDX_DB "sweep.db"
#define BUSY_MS 5000

static char *db_path(const char *dir)
{
    size_t n = strlen(dir) + sizeof MW_SWEEPIDX_DB + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, MW_SWEEPIDX_DB);
    return p;
}

static char *dup_text(const unsigned char *s)
{
    return strdup(s ? (const char *)s : "");
}

int mw_sweepidx_is_sweep(const char *dir)
{
    char *p = db_path(dir);
    struct stat st;
    int yes = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return yes;
}

/* ---- reader -------------------------------------------------------------------------- */

typedef struct {
    int id;
    char *label;
    char **values; /* one per parameter, NULL when the index has none */
} sx_config;

typedef struct {
    size_t config; /* index into configs */
    int rep;
    char *dir, *status;
} sx_run;

struct mw_sweepidx {
    size_t nparams, nconfigs, nruns;
    char **params;
    sx_config *configs;
    sx_run *runs;
};

void mw_sweepidx_close(mw_sweepidx *x)
{
    if (!x) return;
    for (size_t c = 0; c < x->nconfigs; c++) {
        for (size_t p = 0; p < x->nparams; p++)
            free(x->configs[c].values ? x->configs[c].values[p] : NULL);
        free(x->configs[c].values);
        free(x->configs[c].label);
    }
    for (size_t p = 0; p < x->nparams; p++)
        free(x->params[p]);
    for (size_t i = 0; i < x->nruns; i++) {
        free(x->runs[i].dir);
        free(x->runs[i].status);
    }
    free(x->params);
    free(x->configs);
    free(x->runs);
    free(x);
}

/* Count rows of a query (no parameters). -1 on error. */
static long long count_rows(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    long long n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

/* the index of the first configuration whose id is >= id (configs are ordered by id) */
static size_t config_at(const mw_sweepidx *x, int id)
{
    size_t lo = 0, hi = x->nconfigs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x->configs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The objects of the index's schema (the writer's schema below). */
static const char *const sweepidx_objects[] = {
    "table meta",    "table params",        "table param_values", "table command",
    "table configs", "table config_values", "table runs",         NULL,
};

static int load(mw_sweepidx *x, sqlite3 *db, const char *dir, const char *path, char *err,
                size_t errlen)
{
    sqlite3_stmt *st = NULL;
    long long v = count_rows(db, "PRAGMA user_version");
    if (v != MW_SWEEPIDX_VERSION) {
        if (v < 0) goto db_error;
        mw_err(err, errlen, "%s: not a sweep index (schema version %lld, want %d)", path, v,
               MW_SWEEPIDX_VERSION);
        return -1;
    }
    if (mw_sqlite_check_schema(db, sweepidx_objects, path, "sweep index", err, errlen)) return -1;
    long long np = count_rows(db, "SELECT count(*) FROM params");
    long long nc = count_rows(db, "SELECT count(*) FROM configs");
    long long nr = count_rows(db, "SELECT count(*) FROM runs");
    if (np < 0 || nc < 0 || nr < 0) goto db_error;
    x->params = calloc((size_t)np + 1, sizeof *x->params);
    x->configs = calloc((size_t)nc + 1, sizeof *x->configs);
    x->runs = calloc((size_t)nr + 1, sizeof *x->runs);
    if (!x->params || !x->configs || !x->runs) goto oom;

    if (sqlite3_prepare_v2(db, "SELECT name FROM params ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
        goto db_error;
    while (x->nparams < (size_t)np && sqlite3_step(st) == SQLITE_ROW)
        if (!(x->params[x->nparams++] = dup_text(sqlite3_column_text(st, 0)))) goto oom;
    sqlite3_finalize(st);

    if (sqlite3_prepare_v2(db, "SELECT id, label FROM configs ORDER BY id", -1, &st, NULL) !=
        SQLITE_OK)
        goto db_error;
    while (x->nconfigs < (size_t)nc && sqlite3_step(st) == SQLITE_ROW) {
        sx_config *c = &x->configs[x->nconfigs++];
        c->id = sqlite3_column_int(st, 0);
        c->label = dup_text(sqlite3_column_text(st, 1));
        c->values = calloc(x->nparams + 1, sizeof *c->values);
        if (!c->label || !c->values) goto oom;
    }
    sqlite3_finalize(st);

    if (sqlite3_prepare_v2(db, "SELECT config, param, value FROM config_values", -1, &st, NULL) !=
        SQLITE_OK)
        goto db_error;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int id = sqlite3_column_int(st, 0);
        const char *param = (const char *)sqlite3_column_text(st, 1);
        size_t lo = config_at(x, id);
        if (lo == x->nconfigs || x->configs[lo].id != id || !param) continue;
        for (size_t p = 0; p < x->nparams; p++)
            if (!strcmp(x->params[p], param) && !x->configs[lo].values[p]) {
                if (!(x->configs[lo].values[p] = dup_text(sqlite3_column_text(st, 2)))) goto oom;
                break;
            }
    }
    sqlite3_finalize(st);

    if (sqlite3_prepare_v2(db, "SELECT config, rep, dir, status FROM runs ORDER BY config, rep", -1,
                           &st, NULL) != SQLITE_OK)
        goto db_error;
    while (x->nruns < (size_t)nr && sqlite3_step(st) == SQLITE_ROW) {
        int id = sqlite3_column_int(st, 0);
        size_t lo = config_at(x, id);
        if (lo == x->nconfigs || x->configs[lo].id != id) {
            mw_err(err, errlen, "%s: run of configuration %d, which the index does not have", path,
                   id);
            goto fail;
        }
        const char *rel = (const char *)sqlite3_column_text(st, 2);
        sx_run *r = &x->runs[x->nruns++];
        r->config = lo;
        r->rep = sqlite3_column_int(st, 1);
        r->status = dup_text(sqlite3_column_text(st, 3));
        size_t n = strlen(dir) + (rel ? strlen(rel) : 0) + 2;
        r->dir = malloc(n);
        if (!r->status || !r->dir) goto oom;
        snprintf(r->dir, n, "%s/%s", dir, rel ? rel : "");
    }
    sqlite3_finalize(st);
    return 0;
oom:
    mw_err(err, errlen, "%s: out of memory", path);
    goto fail;
db_error:
    mw_err(err, errlen, "%s: not a readable sweep index: %s", path, sqlite3_errmsg(db));
fail:
    sqlite3_finalize(st);
    return -1;
}

mw_sweepidx *mw_sweepidx_open(const char *dir, char *err, size_t errlen)
{
    char *path = db_path(dir);
    if (!path) {
        mw_err(err, errlen, "%s: out of memory", dir);
        return NULL;
    }
    struct stat sb;
    if (stat(path, &sb) != 0) {
        mw_err(err, errlen, "%s: not a sweep directory (%s: %s)", dir, path, strerror(errno));
        free(path);
        return NULL;
    }
    sqlite3 *db = NULL;
    mw_sweepidx *x = calloc(1, sizeof *x);
    int rc = -1;
    if (!x) {
        mw_err(err, errlen, "%s: out of memory", path);
    } else if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        mw_err(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "no memory");
    } else if (!mw_sqlite_defend(db, path, err, errlen)) {
        sqlite3_busy_timeout(db, BUSY_MS);
        if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
            mw_err(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        else
            rc = load(x, db, dir, path, err, errlen);
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    free(path);
    if (rc) {
        mw_sweepidx_close(x);
        return NULL;
    }
    return x;
}

size_t mw_sweepidx_nparams(const mw_sweepidx *x)
{
    return x->nparams;
}
const char *mw_sweepidx_param_name(const mw_sweepidx *x, size_t p)
{
    return p < x->nparams ? x->params[p] : NULL;
}
size_t mw_sweepidx_nruns(const mw_sweepidx *x)
{
    return x->nruns;
}
const char *mw_sweepidx_run_dir(const mw_sweepidx *x, size_t i)
{
    return i < x->nruns ? x->runs[i].dir : NULL;
}
const char *mw_sweepidx_run_status(const mw_sweepidx *x, size_t i)
{
    return i < x->nruns ? x->runs[i].status : NULL;
}
const char *mw_sweepidx_run_label(const mw_sweepidx *x, size_t i)
{
    return i < x->nruns ? x->configs[x->runs[i].config].label : NULL;
}
int mw_sweepidx_run_rep(const mw_sweepidx *x, size_t i)
{
    return i < x->nruns ? x->runs[i].rep : 0;
}
const char *mw_sweepidx_run_param(const mw_sweepidx *x, size_t i, const char *name)
{
    if (i >= x->nruns || !name) return NULL;
    for (size_t p = 0; p < x->nparams; p++)
        if (!strcmp(x->params[p], name)) return x->configs[x->runs[i].config].values[p];
    return NULL;
}

void mw_sweepidx_free_list(char **list, int n)
{
    if (!list) return;
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

static int list_push(char ***list, int *n, size_t *cap, const char *s)
{
    if ((size_t)*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        char **l = realloc(*list, c * sizeof *l);
        if (!l) return -1;
        *list = l;
        *cap = c;
    }
    char *d = strdup(s);
    if (!d) return -1;
    (*list)[(*n)++] = d;
    return 0;
}

int mw_sweepidx_expand(int argc, char *const *argv, char ***out, int *outc, char *err,
                       size_t errlen)
{
    char **list = NULL;
    int n = 0;
    size_t cap = 0;
    *out = NULL;
    *outc = 0;
    for (int a = 0; a < argc; a++) {
        if (!mw_sweepidx_is_sweep(argv[a])) {
            if (list_push(&list, &n, &cap, argv[a])) goto oom;
            continue;
        }
        mw_sweepidx *x = mw_sweepidx_open(argv[a], err, errlen);
        if (!x) goto fail;
        int done = 0;
        for (size_t i = 0; i < x->nruns; i++)
            if (!strcmp(x->runs[i].status, "done")) {
                if (list_push(&list, &n, &cap, x->runs[i].dir)) {
                    mw_sweepidx_close(x);
                    goto oom;
                }
                done++;
            }
        mw_sweepidx_close(x);
        if (!done) {
            mw_err(err, errlen, "%s: the sweep has no finished run yet", argv[a]);
            goto fail;
        }
    }
    if (!list && !(list = malloc(sizeof *list))) goto oom;
    *out = list;
    *outc = n;
    return 0;
oom:
    mw_err(err, errlen, "out of memory");
fail:
    mw_sweepidx_free_list(list, n);
    return -1;
}

/* ---- writer -------------------------------------------------------------------------- */

struct mw_sweepidx_w {
    sqlite3 *db;
    int lock_fd;
    char *path;
};

static const char schema[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE params(idx INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);"
    "CREATE TABLE param_values(param TEXT NOT NULL, idx INTEGER NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (param, idx));"
    "CREATE TABLE command(idx INTEGER PRIMARY KEY, arg TEXT NOT NULL);"
    "CREATE TABLE configs(id INTEGER PRIMARY KEY, label TEXT UNIQUE NOT NULL,"
    " stop_reason TEXT, time_rel REAL, energy_rel REAL);"
    "CREATE TABLE config_values(config INTEGER NOT NULL, param TEXT NOT NULL,"
    " value TEXT NOT NULL, PRIMARY KEY (config, param));"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, config INTEGER NOT NULL, rep INTEGER NOT NULL,"
    " dir TEXT UNIQUE NOT NULL, status TEXT NOT NULL, exit_code INTEGER, started_ns INTEGER,"
    " wall_s REAL, cmd_s REAL, energy_j REAL, UNIQUE (config, rep));";

static int w_fail(mw_sweepidx_w *w, char *err, size_t errlen, const char *what)
{
    mw_err(err, errlen, "%s: %s: %s", w->path, what, sqlite3_errmsg(w->db));
    return -1;
}

void mw_sweepidx_w_close(mw_sweepidx_w *w)
{
    if (!w) return;
    sqlite3_close(w->db);
    if (w->lock_fd >= 0) close(w->lock_fd); /* releases the flock */
    free(w->path);
    free(w);
}

/* Connect to path (create: a new file) and take the flock. */
static mw_sweepidx_w *w_connect(const char *dir, int create, char *err, size_t errlen)
{
    mw_sweepidx_w *w = calloc(1, sizeof *w);
    if (!w || !(w->path = db_path(dir))) {
        free(w);
        mw_err(err, errlen, "%s: out of memory", dir);
        return NULL;
    }
    w->lock_fd = open(w->path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0666);
    if (w->lock_fd < 0) {
        mw_err(err, errlen, "%s: %s", w->path, strerror(errno));
        mw_sweepidx_w_close(w);
        return NULL;
    }
    if (flock(w->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        mw_err(err, errlen, "%s: %s", w->path,
               errno == EWOULDBLOCK ? "another mw sweep is working on this sweep directory"
                                    : strerror(errno));
        mw_sweepidx_w_close(w);
        return NULL;
    }
    if (sqlite3_open_v2(w->path, &w->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        mw_err(err, errlen, "%s: cannot open: %s", w->path,
               w->db ? sqlite3_errmsg(w->db) : "no memory");
        mw_sweepidx_w_close(w);
        return NULL;
    }
    sqlite3_busy_timeout(w->db, BUSY_MS);
    sqlite3_extended_result_codes(w->db, 1);
    if (mw_sqlite_defend(w->db, w->path, err, errlen)) {
        mw_sweepidx_w_close(w);
        return NULL;
    }
    return w;
}

int mw_sweepidx_w_begin(mw_sweepidx_w *w, char *err, size_t errlen)
{
    if (sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return w_fail(w, err, errlen, "begin");
    return 0;
}

int mw_sweepidx_w_commit(mw_sweepidx_w *w, char *err, size_t errlen)
{
    if (sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return w_fail(w, err, errlen, "commit");
    return 0;
}

/* Prepare sql, bind texts/ints given by fmt ('t' text, 'i' int, 'l' int64, 'd' double with
 * NaN as NULL, 'n' NULL), step to the end. */
static int w_exec(mw_sweepidx_w *w, char *err, size_t errlen, const char *sql, const char *fmt, ...)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
        return w_fail(w, err, errlen, "preparing a statement");
    va_list ap;
    va_start(ap, fmt);
    for (int i = 0; fmt[i]; i++) {
        int k = i + 1;
        switch (fmt[i]) {
        case 't': {
            const char *s = va_arg(ap, const char *);
            if (s)
                sqlite3_bind_text(st, k, s, -1, SQLITE_TRANSIENT);
            else
                sqlite3_bind_null(st, k);
            break;
        }
        case 'i':
            sqlite3_bind_int(st, k, va_arg(ap, int));
            break;
        case 'l':
            sqlite3_bind_int64(st, k, va_arg(ap, int64_t));
            break;
        case 'd': {
            double d = va_arg(ap, double);
            if (isfinite(d))
                sqlite3_bind_double(st, k, d);
            else
                sqlite3_bind_null(st, k);
            break;
        }
        default:
            sqlite3_bind_null(st, k);
        }
    }
    va_end(ap);
    int rc = sqlite3_step(st);
    while (rc == SQLITE_ROW)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return w_fail(w, err, errlen, "writing");
    return 0;
}

mw_sweepidx_w *mw_sweepidx_w_create(const char *dir, const mw_sweepidx_param *p, size_t np,
                                    int argc, char *const *argv, char *err, size_t errlen)
{
    mw_sweepidx_w *w = w_connect(dir, 1, err, errlen);
    if (!w) return NULL;
    char version[64];
    snprintf(version, sizeof version, "PRAGMA user_version=%d", MW_SWEEPIDX_VERSION);
    int rc = mw_sweepidx_w_begin(w, err, errlen);
    if (!rc && (sqlite3_exec(w->db, schema, NULL, NULL, NULL) != SQLITE_OK ||
                sqlite3_exec(w->db, version, NULL, NULL, NULL) != SQLITE_OK))
        rc = w_fail(w, err, errlen, "creating the schema");
    for (size_t i = 0; !rc && i < np; i++) {
        rc = w_exec(w, err, errlen, "INSERT INTO params(idx, name) VALUES (?1, ?2)", "it", (int)i,
                    p[i].name);
        for (size_t v = 0; !rc && v < p[i].nvalues; v++)
            rc = w_exec(w, err, errlen,
                        "INSERT INTO param_values(param, idx, value) VALUES (?1, ?2, ?3)", "tit",
                        p[i].name, (int)v, p[i].values[v]);
    }
    for (int a = 0; !rc && a < argc; a++)
        rc = w_exec(w, err, errlen, "INSERT INTO command(idx, arg) VALUES (?1, ?2)", "it", a,
                    argv[a]);
    if (!rc) rc = mw_sweepidx_w_commit(w, err, errlen);
    if (rc) {
        mw_sweepidx_w_close(w);
        return NULL;
    }
    return w;
}

mw_sweepidx_w *mw_sweepidx_w_open(const char *dir, char *err, size_t errlen)
{
    mw_sweepidx_w *w = w_connect(dir, 0, err, errlen);
    if (!w) return NULL;
    long long v = count_rows(w->db, "PRAGMA user_version");
    if (v != MW_SWEEPIDX_VERSION) {
        if (v < 0)
            w_fail(w, err, errlen, "not a sweep index");
        else
            mw_err(err, errlen, "%s: not a sweep index (schema version %lld, want %d)", w->path, v,
                   MW_SWEEPIDX_VERSION);
        mw_sweepidx_w_close(w);
        return NULL;
    }
    if (mw_sqlite_check_schema(w->db, sweepidx_objects, w->path, "sweep index", err, errlen)) {
        mw_sweepidx_w_close(w);
        return NULL;
    }
    return w;
}

int mw_sweepidx_w_same(mw_sweepidx_w *w, const mw_sweepidx_param *p, size_t np, int argc,
                       char *const *argv, char *why, size_t whylen)
{
    sqlite3_stmt *st = NULL;
    int same = 1;
    size_t i = 0;
    if (sqlite3_prepare_v2(w->db, "SELECT name FROM params ORDER BY idx", -1, &st, NULL) !=
        SQLITE_OK)
        goto db_error;
    for (; same && sqlite3_step(st) == SQLITE_ROW; i++) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (i >= np || !name || strcmp(name, p[i].name)) {
            mw_err(why, whylen, "its parameter %zu is '%s', not '%s'", i + 1, name ? name : "",
                   i < np ? p[i].name : "(none)");
            same = 0;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (same && i != np) {
        mw_err(why, whylen, "it has %zu parameters, not %zu", i, np);
        same = 0;
    }
    for (size_t k = 0; same && k < np; k++) {
        if (sqlite3_prepare_v2(w->db,
                               "SELECT value FROM param_values WHERE param = ?1 ORDER BY idx", -1,
                               &st, NULL) != SQLITE_OK)
            goto db_error;
        sqlite3_bind_text(st, 1, p[k].name, -1, SQLITE_TRANSIENT);
        size_t v = 0;
        for (; same && sqlite3_step(st) == SQLITE_ROW; v++) {
            const char *val = (const char *)sqlite3_column_text(st, 0);
            if (v >= p[k].nvalues || !val || strcmp(val, p[k].values[v])) same = 0;
        }
        if (v != p[k].nvalues) same = 0;
        if (!same) mw_err(why, whylen, "the values of parameter '%s' differ", p[k].name);
        sqlite3_finalize(st);
        st = NULL;
    }
    if (same) {
        if (sqlite3_prepare_v2(w->db, "SELECT arg FROM command ORDER BY idx", -1, &st, NULL) !=
            SQLITE_OK)
            goto db_error;
        int a = 0;
        for (; same && sqlite3_step(st) == SQLITE_ROW; a++) {
            const char *arg = (const char *)sqlite3_column_text(st, 0);
            if (a >= argc || !arg || strcmp(arg, argv[a])) same = 0;
        }
        if (a != argc) same = 0;
        if (!same) mw_err(why, whylen, "its command differs");
        sqlite3_finalize(st);
    }
    return same;
db_error:
    mw_err(why, whylen, "%s: %s", w->path, sqlite3_errmsg(w->db));
    sqlite3_finalize(st);
    return -1;
}

int mw_sweepidx_w_meta_set(mw_sweepidx_w *w, const char *key, const char *value, char *err,
                           size_t errlen)
{
    return w_exec(w, err, errlen, "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)", "tt",
                  key, value);
}

int mw_sweepidx_w_config(mw_sweepidx_w *w, int id, const char *label, const char *const *values,
                         char *err, size_t errlen)
{
    int rc = w_exec(w, err, errlen, "INSERT OR IGNORE INTO configs(id, label) VALUES (?1, ?2)",
                    "it", id, label);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->db, "SELECT name FROM params ORDER BY idx", -1, &st, NULL) !=
        SQLITE_OK)
        return w_fail(w, err, errlen, "reading the parameters");
    for (size_t p = 0; !rc && sqlite3_step(st) == SQLITE_ROW; p++)
        rc = w_exec(w, err, errlen,
                    "INSERT OR IGNORE INTO config_values(config, param, value) VALUES (?1, ?2, ?3)",
                    "itt", id, (const char *)sqlite3_column_text(st, 0), values[p]);
    sqlite3_finalize(st);
    return rc;
}

int mw_sweepidx_w_config_stop(mw_sweepidx_w *w, int config, const char *reason, double time_rel,
                              double energy_rel, char *err, size_t errlen)
{
    return w_exec(w, err, errlen,
                  "UPDATE configs SET stop_reason = ?1, time_rel = ?2, energy_rel = ?3"
                  " WHERE ?4 = 0 OR id = ?4",
                  "tddi", reason, time_rel, energy_rel, config);
}

static const char run_cols[] =
    "SELECT config, rep, status, dir, exit_code, started_ns, wall_s, cmd_s, energy_j FROM runs";

static double col_double(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void read_run(sqlite3_stmt *st, mw_sweepidx_w_run *r)
{
    memset(r, 0, sizeof *r);
    r->config = sqlite3_column_int(st, 0);
    r->rep = sqlite3_column_int(st, 1);
    const char *s = (const char *)sqlite3_column_text(st, 2);
    snprintf(r->status, sizeof r->status, "%s", s ? s : "");
    s = (const char *)sqlite3_column_text(st, 3);
    snprintf(r->dir, sizeof r->dir, "%s", s ? s : "");
    r->has_exit = sqlite3_column_type(st, 4) != SQLITE_NULL;
    r->exit_code = sqlite3_column_int(st, 4);
    r->started_ns =
        sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : (int64_t)sqlite3_column_int64(st, 5);
    r->wall_s = col_double(st, 6);
    r->cmd_s = col_double(st, 7);
    r->energy_j = col_double(st, 8);
}

int mw_sweepidx_w_plan(mw_sweepidx_w *w, int config, int rep, const char *dir,
                       mw_sweepidx_w_run *out, char *err, size_t errlen)
{
    if (w_exec(
            w, err, errlen,
            "INSERT OR IGNORE INTO runs(config, rep, dir, status) VALUES (?1, ?2, ?3, 'planned')",
            "iit", config, rep, dir))
        return -1;
    if (!out) return 0;
    char sql[256];
    snprintf(sql, sizeof sql, "%s WHERE config = ?1 AND rep = ?2", run_cols);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
        return w_fail(w, err, errlen, "reading a run");
    sqlite3_bind_int(st, 1, config);
    sqlite3_bind_int(st, 2, rep);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) read_run(st, out);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE) { /* another run holds dir */
            mw_err(err, errlen, "%s: run directory %s belongs to another run", w->path, dir);
            return -1;
        }
        return w_fail(w, err, errlen, "reading a run");
    }
    return 0;
}

int mw_sweepidx_w_update(mw_sweepidx_w *w, const mw_sweepidx_w_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->db,
                           "UPDATE runs SET status = ?3, exit_code = ?4, started_ns = ?5,"
                           " wall_s = ?6, cmd_s = ?7, energy_j = ?8 WHERE config = ?1 AND rep = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return w_fail(w, err, errlen, "preparing a statement");
    sqlite3_bind_int(st, 1, r->config);
    sqlite3_bind_int(st, 2, r->rep);
    sqlite3_bind_text(st, 3, r->status, -1, SQLITE_TRANSIENT);
    if (r->has_exit)
        sqlite3_bind_int(st, 4, r->exit_code);
    else
        sqlite3_bind_null(st, 4);
    if (r->started_ns >= 0)
        sqlite3_bind_int64(st, 5, r->started_ns);
    else
        sqlite3_bind_null(st, 5);
    const double d[3] = {r->wall_s, r->cmd_s, r->energy_j};
    for (int i = 0; i < 3; i++)
        if (isfinite(d[i]))
            sqlite3_bind_double(st, 6 + i, d[i]);
        else
            sqlite3_bind_null(st, 6 + i);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return w_fail(w, err, errlen, "updating a run");
    return 0;
}

int mw_sweepidx_w_runs(mw_sweepidx_w *w, int config, mw_sweepidx_w_run **out, size_t *n, char *err,
                       size_t errlen)
{
    *out = NULL;
    *n = 0;
    char sql[256];
    snprintf(sql, sizeof sql, "%s WHERE ?1 = 0 OR config = ?1 ORDER BY config, rep", run_cols);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
        return w_fail(w, err, errlen, "reading the runs");
    sqlite3_bind_int(st, 1, config);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            mw_sweepidx_w_run *r = realloc(*out, cap * sizeof *r);
            if (!r) {
                sqlite3_finalize(st);
                free(*out);
                *out = NULL;
                *n = 0;
                mw_err(err, errlen, "%s: out of memory", w->path);
                return -1;
            }
            *out = r;
        }
        read_run(st, &(*out)[(*n)++]);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*out);
        *out = NULL;
        *n = 0;
        return w_fail(w, err, errlen, "reading the runs");
    }
    return 0;
}
