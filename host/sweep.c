/* sweep — see mw_sweep.h: the sweep's parameters, grid and placeholders, and its directory
 * (the runs themselves are sweep_run.c). Design:
 *
 * Parameters are kept as the index wants them (mw_sweepidx_param): each spec is copied once
 * and split in place, its values pointing into the copy. The grid numbers configurations
 * 1, 2, ... in cartesian order (the last parameter varying fastest); run directory names
 * come from the labels, made unique by sorting a second array of pointers by name. A
 * placeholder is {ident} naming a parameter; substitution is by substring, other braces
 * are left alone.
 *
 * The sweep directory is resumed only when its index holds exactly the same parameters and
 * command (mw_sweepidx_w_same), else refused; a new sweep needs a missing or empty
 * directory, and what it created is remembered so that a sweep that recorded nothing can
 * leave nothing behind. The index's meta is written in one transaction when the sweep
 * opens, its status when it ends. */
#include "mw_sweep.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_alloc.h"
#include "mw_fs.h"
#include "mw_sysinfo.h"
#include "sweep_internal.h"

/* ---- parameters -------------------------------------------------------------------------- */

int mw_sweep_is_name(const char *s, size_t n)
{
    if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

int mw_sweep_params_add(mw_sweep_params *ps, const char *spec, char *err, size_t errlen)
{
    const char *eq = strchr(spec, '=');
    if (!eq || !mw_sweep_is_name(spec, (size_t)(eq - spec))) {
        snprintf(err, errlen, "--param '%s': not NAME=V1,V2,... (NAME: letters, digits, _)", spec);
        return -1;
    }
    if (ps->n == MW_SWEEP_MAX_PARAMS) {
        snprintf(err, errlen, "--param: more than %d parameters", MW_SWEEP_MAX_PARAMS);
        return -1;
    }
    char *buf = ps->buf[ps->n] = mw_xstrdup(spec);
    size_t commas = 1;
    for (const char *c = eq + 1; *c; c++)
        commas += *c == ',';
    const char **values = mw_xcalloc(commas, sizeof *values);
    mw_sweepidx_param *p = &ps->p[ps->n++];
    *p = (mw_sweepidx_param){buf, 0, values};
    buf[eq - spec] = 0;
    for (size_t k = 0; k + 1 < ps->n; k++)
        if (!strcmp(ps->p[k].name, p->name)) {
            snprintf(err, errlen, "--param %s: given twice", p->name);
            return -1;
        }
    for (char *v = buf + (eq - spec) + 1;;) {
        char *comma = strchr(v, ',');
        if (comma) *comma = 0;
        if (!*v) {
            snprintf(err, errlen, "--param '%s': an empty value", spec);
            return -1;
        }
        for (size_t k = 0; k < p->nvalues; k++)
            if (!strcmp(values[k], v)) {
                snprintf(err, errlen, "--param '%s': value '%s' given twice", spec, v);
                return -1;
            }
        values[p->nvalues++] = v;
        if (!comma) break;
        v = comma + 1;
    }
    return 0;
}

void mw_sweep_params_free(mw_sweep_params *ps)
{
    for (size_t k = 0; k < ps->n; k++) {
        free(ps->buf[k]);
        free((void *)ps->p[k].values);
    }
    ps->n = 0;
}

/* ---- the grid ---------------------------------------------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
    const mw_sweep_config *x = *(mw_sweep_config *const *)a, *y = *(mw_sweep_config *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* configuration i (0-based): its values, label and run name */
static void make_config(const mw_sweep_params *ps, size_t i, mw_sweep_config *c)
{
    c->id = (int)i + 1;
    c->values = mw_xcalloc(ps->n, sizeof *c->values);
    size_t rest = i, len = 1;
    for (size_t p = ps->n; p-- > 0;) {
        c->values[p] = ps->p[p].values[rest % ps->p[p].nvalues];
        rest /= ps->p[p].nvalues;
    }
    for (size_t p = 0; p < ps->n; p++)
        len += strlen(ps->p[p].name) + strlen(c->values[p]) + 2;
    c->label = mw_xcalloc(len, 1);
    for (size_t p = 0; p < ps->n; p++)
        snprintf(c->label + strlen(c->label), len - strlen(c->label), "%s%s=%s", p ? "," : "",
                 ps->p[p].name, c->values[p]);
    size_t k = 0;
    for (const char *s = c->label; *s && k < MW_SWEEP_NAME_MAX; s++, k++)
        c->name[k] = strchr(MW_SWEEP_RUN_NAME_CHARS, *s) ? *s : '_';
    c->name[k] = 0;
}

/* "_c<id>" after every name that two configurations share */
static void unique_names(mw_sweep_config *c, size_t n)
{
    mw_sweep_config **order = mw_xcalloc(n, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = &c[i];
    qsort(order, n, sizeof *order, name_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !strcmp(order[i]->name, order[j]->name))
            j++;
        if (j - i > 1)
            for (size_t k = i; k < j; k++) {
                size_t l = strlen(order[k]->name);
                snprintf(order[k]->name + l, sizeof order[k]->name - l, "_c%d", order[k]->id);
            }
        i = j;
    }
    free(order);
}

int mw_sweep_grid(const mw_sweep_params *ps, int max_reps, mw_sweep_config **out, size_t *nout,
                  char *err, size_t errlen)
{
    size_t n = 1;
    *out = NULL;
    *nout = 0;
    for (size_t p = 0; p < ps->n; p++) {
        n *= ps->p[p].nvalues;
        if (n > MW_SWEEP_MAX_CONFIGS) {
            snprintf(err, errlen, "more than %d configurations", MW_SWEEP_MAX_CONFIGS);
            return -1;
        }
    }
    if (n * (size_t)max_reps > MW_SWEEP_MAX_RUNS) {
        snprintf(err, errlen, "%zu configurations x %d repetitions: more than %d runs", n, max_reps,
                 MW_SWEEP_MAX_RUNS);
        return -1;
    }
    mw_sweep_config *c = mw_xcalloc(n, sizeof *c);
    for (size_t i = 0; i < n; i++)
        make_config(ps, i, &c[i]);
    unique_names(c, n);
    *out = c;
    *nout = n;
    return 0;
}

void mw_sweep_grid_free(mw_sweep_config *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].label);
        free(c[i].values);
    }
    free(c);
}

const mw_sweep_config *mw_sweep_order(const mw_sweep_config *c, size_t n, int rep, size_t k)
{
    return &c[(k + (size_t)rep - 1) % n];
}

/* ---- placeholders ------------------------------------------------------------------------ */

/* The parameter whose {NAME} starts at s (s[0] == '{'), its length in *len; -1 when s does
 * not start a placeholder ({ident}), -2 when it names no parameter. */
static int placeholder(const mw_sweep_params *ps, const char *s, size_t *len)
{
    const char *close = strchr(s + 1, '}');
    if (!close || !mw_sweep_is_name(s + 1, (size_t)(close - s - 1))) return -1;
    *len = (size_t)(close - s) + 1;
    for (size_t p = 0; p < ps->n; p++)
        if (strlen(ps->p[p].name) == *len - 2 && !strncmp(ps->p[p].name, s + 1, *len - 2))
            return (int)p;
    return -2;
}

int mw_sweep_check_command(const mw_sweep_params *ps, int argc, char *const *argv, char *err,
                           size_t errlen)
{
    int used[MW_SWEEP_MAX_PARAMS] = {0};
    for (int a = 0; a < argc; a++)
        for (const char *s = argv[a]; (s = strchr(s, '{'));) {
            size_t len;
            int p = placeholder(ps, s, &len);
            if (p == -1) {
                s++;
                continue;
            }
            if (p == -2) {
                char names[512] = "";
                for (size_t k = 0; k < ps->n; k++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s{%s}",
                             k ? ", " : "", ps->p[k].name);
                snprintf(err, errlen, "'%s': unknown placeholder %.*s (the parameters: %s)",
                         argv[a], (int)len, s, names);
                return -1;
            }
            used[p] = 1;
            s += len;
        }
    for (size_t p = 0; p < ps->n; p++)
        if (!used[p]) {
            snprintf(err, errlen, "--param %s: {%s} appears nowhere in the command", ps->p[p].name,
                     ps->p[p].name);
            return -1;
        }
    return 0;
}

char *mw_sweep_substitute(const mw_sweep_params *ps, const mw_sweep_config *c, const char *word)
{
    size_t cap = strlen(word) + 1;
    for (const char *s = word; (s = strchr(s, '{')); s++) {
        size_t len;
        int p = placeholder(ps, s, &len);
        if (p >= 0) cap += strlen(c->values[p]);
    }
    char *out = mw_xcalloc(cap, 1), *w = out;
    for (const char *s = word; *s;) {
        size_t len;
        int p = *s == '{' ? placeholder(ps, s, &len) : -1;
        if (p >= 0) {
            size_t n = strlen(c->values[p]);
            memcpy(w, c->values[p], n);
            w += n;
            s += len;
        } else {
            *w++ = *s++;
        }
    }
    *w = 0;
    return out;
}

/* ---- the sweep directory ----------------------------------------------------------------- */

static int is_empty_dir(const char *path)
{
    int empty = 1;
    DIR *d = opendir(path);
    if (!d) return 0;
    struct dirent *e;
    while (empty && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

/* the index of an existing sweep, when it is this sweep */
static int resume_dir(mw_sweep *sw, char *err, size_t errlen)
{
    if (!(sw->w = mw_sweepidx_w_open(sw->dir, err, errlen))) return MW_SWEEP_REFUSED;
    char why[1024];
    int same = mw_sweepidx_w_same(sw->w, sw->ps->p, sw->ps->n, sw->setup.argc, sw->setup.argv, why,
                                  sizeof why);
    if (same == 1) return 0;
    if (same == 0)
        snprintf(err, errlen,
                 "-o %s: a sweep of another command or other parameters (%s); choose a new -o "
                 "to start another sweep",
                 sw->dir, why);
    else
        snprintf(err, errlen, "%s", why);
    return MW_SWEEP_REFUSED;
}

/* a new sweep in a missing or empty directory */
static int create_dir(mw_sweep *sw, char *err, size_t errlen)
{
    struct stat st;
    if (stat(sw->dir, &st) == 0 && !is_empty_dir(sw->dir)) {
        snprintf(err, errlen,
                 "-o %s: exists and is not a sweep directory (no sweep.db); choose a new -o",
                 sw->dir);
        return MW_SWEEP_REFUSED;
    }
    if (mw_fs_mkdirs(sw->dir, &sw->created_dir, NULL, 0)) {
        snprintf(err, errlen, "-o %s: %s", sw->dir, strerror(errno));
        return MW_SWEEP_FAILED;
    }
    if (!(sw->w = mw_sweepidx_w_create(sw->dir, sw->ps->p, sw->ps->n, sw->setup.argc,
                                       sw->setup.argv, err, errlen)))
        return MW_SWEEP_FAILED;
    sw->created_db = 1;
    return 0;
}

/* the configurations and the meta, every stop reason cleared, in one transaction */
static int begin(mw_sweep *sw, char *err, size_t errlen)
{
    const mw_sweep_setup *s = &sw->setup;
    char cmdline[8192], reps[64] = "", rel[64] = "", conf[64] = "", minr[64] = "", maxr[64] = "";
    char **words = mw_xcalloc((size_t)s->argc + 1, sizeof *words);
    memcpy(words, s->argv, (size_t)s->argc * sizeof *words);
    mw_sysinfo_quote_argv(words, cmdline, sizeof cmdline);
    free(words);
    if (s->precision) {
        snprintf(rel, sizeof rel, "%.10g", s->rel);
        snprintf(conf, sizeof conf, "%.10g", s->confidence);
        snprintf(minr, sizeof minr, "%d", s->min_reps);
        snprintf(maxr, sizeof maxr, "%d", s->max_reps);
    } else {
        snprintf(reps, sizeof reps, "%d", s->reps);
    }
    const char *const meta[][2] = {
        {"command", cmdline},
        {"mode", s->precision ? "precision" : "reps"},
        {"reps", reps},
        {"precision_rel", rel},
        {"confidence", conf},
        {"min_reps", minr},
        {"max_reps", maxr},
        {"meter", s->meter ? s->meter : "auto"},
        {"idle_s", s->idle_s ? s->idle_s : "0"},
        {"channels", s->channels ? s->channels : ""},
        {"mw_version", MW_VERSION},
        {"status", "running"},
    };
    int bad = mw_sweepidx_w_begin(sw->w, err, errlen);
    for (size_t k = 0; !bad && k < sw->nc; k++)
        bad =
            mw_sweepidx_w_config(sw->w, sw->c[k].id, sw->c[k].label, sw->c[k].values, err, errlen);
    for (size_t k = 0; !bad && k < sizeof meta / sizeof *meta; k++)
        bad = mw_sweepidx_w_meta_set(sw->w, meta[k][0], meta[k][1], err, errlen);
    char num[64];
    snprintf(num, sizeof num, "%" PRId64, mw_sweep_now_ns(CLOCK_REALTIME));
    if (!bad && sw->created_db) bad = mw_sweepidx_w_meta_set(sw->w, "created_ns", num, err, errlen);
    if (!bad) bad = mw_sweepidx_w_config_stop(sw->w, 0, NULL, NAN, NAN, err, errlen);
    if (!bad) bad = mw_sweepidx_w_commit(sw->w, err, errlen);
    return bad ? -1 : 0;
}

int mw_sweep_open(mw_sweep *sw, char *err, size_t errlen)
{
    struct stat st;
    if (stat(sw->dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "-o %s: exists and is not a directory", sw->dir);
        return MW_SWEEP_REFUSED;
    }
    int rc =
        mw_sweepidx_is_sweep(sw->dir) ? resume_dir(sw, err, errlen) : create_dir(sw, err, errlen);
    if (rc) return rc;
    char runs[4096];
    snprintf(runs, sizeof runs, "%s/runs", sw->dir);
    if (mkdir(runs, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", runs, strerror(errno));
        return MW_SWEEP_FAILED;
    }
    sw->total = sw->nc * (size_t)sw->rounds;
    if (begin(sw, err, errlen) || mw_sweep_resume_runs(sw, err, errlen)) return MW_SWEEP_FAILED;
    mw_sweep_estimate(sw);
    return 0;
}

/* Removes the last n components of path, deepest first (each must be empty). */
static void rmdirs(const char *path, int n)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        while (l > 1 && buf[l - 1] == '/')
            buf[--l] = 0;
        if (rmdir(buf)) return;
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf) return;
        *slash = 0;
    }
}

int mw_sweep_end(mw_sweep *sw, int x)
{
    char err[1024];
    const char *status = x == 0                  ? "complete"
                         : x == 1                ? "failed"
                         : x == MW_SWEEP_STOPPED ? "interrupted"
                                                 : "stopped";
    if (mw_sweepidx_w_meta_set(sw->w, "status", status, err, sizeof err))
        mw_sweep_tell(sw, &(mw_sweep_event){.kind = MW_SWEEP_EV_ERROR, .msg = err});
    if (x != MW_SWEEP_NO_RECORDER || !sw->created_db || sw->finished) return 0;
    mw_sweep_close(sw);
    char path[4096];
    snprintf(path, sizeof path, "%s/sweep.db", sw->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/sweep.db-journal", sw->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/runs", sw->dir);
    rmdir(path);
    rmdirs(sw->dir, sw->created_dir);
    return 1;
}

void mw_sweep_close(mw_sweep *sw)
{
    mw_sweepidx_w_close(sw->w);
    sw->w = NULL;
}
