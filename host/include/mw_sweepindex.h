/* sweepindex — the index of a sweep directory written by `mw sweep` (docs/sweep.md), read by
 * `mw analyze`, `mw fit`, `mw plot` and `mw report`.
 *
 * A sweep directory SWEEPDIR holds SWEEPDIR/sweep.db (SQLite) and one run directory per
 * repetition under SWEEPDIR/runs/. The schema:
 *
 *     meta(key TEXT PRIMARY KEY, value TEXT)          -- command, meter, reps, precision, ...
 *     params(idx INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)   -- in --param order
 *     configs(id INTEGER PRIMARY KEY, label TEXT UNIQUE NOT NULL)  -- "n_spop=4,version=v2"
 *     config_values(config INTEGER NOT NULL, param TEXT NOT NULL, value TEXT NOT NULL,
 *                   PRIMARY KEY (config, param))
 *     runs(id INTEGER PRIMARY KEY, config INTEGER NOT NULL, rep INTEGER NOT NULL,
 *          dir TEXT UNIQUE NOT NULL,            -- relative to SWEEPDIR, e.g. runs/...-r1
 *          status TEXT NOT NULL,                -- planned | running | done | failed
 *          exit_code INTEGER, started_ns INTEGER, wall_s REAL,
 *          UNIQUE (config, rep))
 *
 * Readers see only what the functions below give; only `mw sweep` writes the index. */
#ifndef MW_SWEEPINDEX_H
#define MW_SWEEPINDEX_H
#include <stddef.h>
#include <stdint.h>

typedef struct mw_sweepidx mw_sweepidx;

/* 1 when dir holds a sweep index (dir/sweep.db), else 0. */
int mw_sweepidx_is_sweep(const char *dir);

/* Opens dir's index read-only and loads every run. NULL with a message naming the file in
 * err when it is missing or not a sweep index. */
mw_sweepidx *mw_sweepidx_open(const char *dir, char *err, size_t errlen);
void mw_sweepidx_close(mw_sweepidx *x);

size_t mw_sweepidx_nparams(const mw_sweepidx *x);
const char *mw_sweepidx_param_name(const mw_sweepidx *x, size_t p);

/* Runs in index order (by config, then repetition). */
size_t mw_sweepidx_nruns(const mw_sweepidx *x);
/* The run's directory, SWEEPDIR joined with the stored relative path. */
const char *mw_sweepidx_run_dir(const mw_sweepidx *x, size_t i);
const char *mw_sweepidx_run_status(const mw_sweepidx *x, size_t i);
const char *mw_sweepidx_run_label(const mw_sweepidx *x, size_t i); /* its config's label */
int mw_sweepidx_run_rep(const mw_sweepidx *x, size_t i);           /* 1, 2, ... */
/* The value of parameter name for run i, or NULL when the sweep has no such parameter. */
const char *mw_sweepidx_run_param(const mw_sweepidx *x, size_t i, const char *name);

/* For commands taking RUNDIR|SWEEPDIR...: replaces each argument that is a sweep directory
 * by the directories of its runs whose status is done (others are kept as they are).
 * *out is a malloc'd array of malloc'd strings (free with mw_sweepidx_free_list). Returns 0,
 * or -1 with a message in err (an unreadable index, a sweep with no finished run). */
int mw_sweepidx_expand(int argc, char *const *argv, char ***out, int *outc, char *err,
                       size_t errlen);
void mw_sweepidx_free_list(char **list, int n);

/* ---- writer: used by `mw sweep` (collector/cmd_sweep.c) only ------------------------------
 *
 * Besides the tables above the index holds (docs/sweep.md):
 *
 *     param_values(param TEXT NOT NULL, idx INTEGER NOT NULL, value TEXT NOT NULL,
 *                  PRIMARY KEY (param, idx))      -- each --param's values, in the order given
 *     command(idx INTEGER PRIMARY KEY, arg TEXT NOT NULL)   -- the command template, word by word
 *     configs.stop_reason TEXT                    -- reps | precision | max-reps; NULL while open
 *     configs.time_rel REAL, configs.energy_rel REAL  -- precision reached (h / |mean|), or NULL
 *     runs.cmd_s REAL                             -- the command's wall time (run meta
 *                                                    cmd_end_ns - cmd_start_ns), s
 *     runs.energy_j REAL                          -- every channel's energy over the command, J
 *
 * wall_s is the wall time of the whole `mw record` child (meter start, idle baselines), s;
 * started_ns is CLOCK_REALTIME when it was started. The index uses SQLite's rollback journal
 * and a 5 s busy timeout, so readers may open it while a sweep writes it. A writer holds an
 * exclusive flock on sweep.db: a second `mw sweep` on the same directory is refused.
 * Functions returning int give 0, or -1 with a message naming the file in err. */
typedef struct mw_sweepidx_w mw_sweepidx_w;

typedef struct {
    const char *name;
    size_t nvalues;
    const char *const *values;
} mw_sweepidx_param;

/* Creates dir/sweep.db (dir must exist, sweep.db must not) holding the schema, the parameters
 * and the command template argv[0..argc), and locks it. */
mw_sweepidx_w *mw_sweepidx_w_create(const char *dir, const mw_sweepidx_param *p, size_t np,
                                    int argc, char *const *argv, char *err, size_t errlen);
/* Opens dir's existing index for writing and locks it (refused while another writer holds
 * it). */
mw_sweepidx_w *mw_sweepidx_w_open(const char *dir, char *err, size_t errlen);
void mw_sweepidx_w_close(mw_sweepidx_w *w);
/* 1 when the index holds exactly these parameters (names, values, order) and command
 * template, 0 when not (what differs in why), -1 on error (in why). */
int mw_sweepidx_w_same(mw_sweepidx_w *w, const mw_sweepidx_param *p, size_t np, int argc,
                       char *const *argv, char *why, size_t whylen);
/* Groups writes into one transaction. */
int mw_sweepidx_w_begin(mw_sweepidx_w *w, char *err, size_t errlen);
int mw_sweepidx_w_commit(mw_sweepidx_w *w, char *err, size_t errlen);
int mw_sweepidx_w_meta_set(mw_sweepidx_w *w, const char *key, const char *value, char *err,
                           size_t errlen);
/* Adds configuration id (1, 2, ...) with its label and values[p] for parameter p (in
 * parameter order), unless the index has it already. */
int mw_sweepidx_w_config(mw_sweepidx_w *w, int id, const char *label, const char *const *values,
                         char *err, size_t errlen);
/* Sets a configuration's stop reason (NULL: open) and the precisions reached (NAN: NULL);
 * config 0 sets every configuration's. */
int mw_sweepidx_w_config_stop(mw_sweepidx_w *w, int config, const char *reason, double time_rel,
                              double energy_rel, char *err, size_t errlen);

/* One run as the writer sees it. Numbers missing in the index are -1 (started_ns) or NAN. */
typedef struct {
    int config, rep;
    char status[16]; /* planned | running | done | failed */
    char dir[512];   /* relative to SWEEPDIR */
    int has_exit;
    int exit_code;
    int64_t started_ns;
    double wall_s, cmd_s, energy_j;
} mw_sweepidx_w_run;

/* Adds run (config, rep) as planned in dir (relative to SWEEPDIR) unless it is there; *out
 * (may be NULL) receives the run as the index then holds it. */
int mw_sweepidx_w_plan(mw_sweepidx_w *w, int config, int rep, const char *dir,
                       mw_sweepidx_w_run *out, char *err, size_t errlen);
/* Writes r's status, exit code, started_ns, wall_s, cmd_s and energy_j to run (r->config,
 * r->rep). */
int mw_sweepidx_w_update(mw_sweepidx_w *w, const mw_sweepidx_w_run *r, char *err, size_t errlen);
/* The runs of one configuration (config 0: all), by configuration then repetition; *out is
 * malloc'd (free it), *n its length. */
int mw_sweepidx_w_runs(mw_sweepidx_w *w, int config, mw_sweepidx_w_run **out, size_t *n, char *err,
                       size_t errlen);
#endif
