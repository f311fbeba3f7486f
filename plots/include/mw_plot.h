/* mw_plot — libmwplot's figures: the job of `mw plot` as one call (plot_job.c:
 * mw_plot_run_job, used by `mw plot` and `mw report`), and what its modules share (plot_run.c,
 * plot_fig.c, plot_kinds_run.c, plot_kinds_multi.c, plot_kinds_model.c).
 *
 * plot_run.c reads a run into memory (channels and their windows as exact step-function
 * traces, phases, counters, gaps, the idle baseline) with the rules of `mw analyze`
 * (cmd_analyze.c, docs/analysis.md): the time origin is meta start_ns (else the first
 * sample), a channel with a host measures the ranks on that host and one without a host
 * every rank (models/include/energy.h), the idle baseline is the union of the recorder's phases
 * idle-before and idle-after and a channel's idle power the mean power over it.
 *
 * plot_fig.c writes one figure: NAME.tsv (the data, blocks separated by two blank lines:
 * gnuplot's `index`), NAME.gp (gnuplot variables written by mw, then plots/gnuplot/common.gp, then
 * the kind's template plots/gnuplot/KIND.gp: self-contained, `cd DIR && gnuplot NAME.gp` redraws
 * it), then runs gnuplot in DIR with an argument vector and hands DIR/NAME.png (or .svg) to
 * the caller (mw_plot_out.written). Whatever gnuplot writes on standard error is passed on
 * to ours, prefixed "mw plot: gnuplot NAME.gp: ", and so is why a figure failed (a file that
 * cannot be made, a template not found): the one thing libmwplot writes itself, on standard
 * error only. A gnuplot failure or an empty figure fails the figure. */
#ifndef MW_PLOT_H
#define MW_PLOT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "energy.h"

#define MW_PLOT_MAX_CHANNELS 64
#define MW_PLOT_NAME 128

/* Phase classes: the colours and fill patterns of the lanes (plots/gnuplot/common.gp, same
 * order). */
enum {
    MW_PLOT_CLS_COMPUTE, /* compute, user, omp: working (mw analyze's working kinds) */
                         /* (user phases named idle.../wait... are WAIT: phase_class.h) */
    MW_PLOT_CLS_COMM,    /* comm, mpi: MPI calls moving data */
    MW_PLOT_CLS_WAIT,    /* wait: MPI calls that only wait */
    MW_PLOT_CLS_GPU,     /* gpu, cuda */
    MW_PLOT_CLS_OTHER,   /* any other kind a program recorded */
    MW_PLOT_NCLS,
    /* not a kind: a rank's computation that no phase marked, inferred by the one rule
     * (mw_phase_class.h: its time outside MPI and waits); its block comes after the gaps */
    MW_PLOT_CLS_INFERRED = MW_PLOT_NCLS,
    MW_PLOT_NCLS_ALL,
    MW_PLOT_CLS_MW = -1 /* the recorder's own stages (kind mw) */
};
extern const char *const mw_plot_class_names[MW_PLOT_NCLS_ALL];
/* the class of a phase of this kind and name (name may be NULL) */
int mw_plot_class_of(const char *kind, const char *name);

typedef struct {
    int channel;
    char name[MW_PLOT_NAME], host[MW_PLOT_NAME];
    int has_host;
    int selected;    /* shown (--channel; by default every channel but unconnected ones) */
    int unconnected; /* no host and a mean power below MW_PLOT_UNCONNECTED_W: nothing there */
    mw_energy_window *w;
    size_t n, cap;
    mw_energy_trace t; /* over w, ordered by time */
    int have_base;     /* an idle baseline with windows in it */
    double base_w;     /* the mean power over it, W */
} mw_plot_channel;

#define MW_PLOT_UNCONNECTED_W 1.0

typedef struct {
    int rank, thread, cls;
    const char *host, *kind, *name; /* interned in the run */
    int64_t start_ns, end_ns;
} mw_plot_phase;

typedef struct {
    int rank;
    const char *host, *name;
    int64_t value;
} mw_plot_counter;

typedef struct mw_plot_strings mw_plot_strings;

typedef struct {
    char *dir;
    char status[64];
    int64_t origin_ns;
    int64_t first_ns, last_ns; /* the windows' extent; first > last when there are none */
    int nch;
    mw_plot_channel ch[MW_PLOT_MAX_CHANNELS];
    mw_plot_phase *ph; /* spans (not marks nor counters, end > start), by start */
    size_t nph;
    size_t nprogram;     /* phases of the program (kinds other than mw) */
    mw_plot_counter *ct; /* counters (kind counter) */
    size_t nct;
    mw_energy_span *gaps; /* the run's gaps table */
    size_t ngaps;
    mw_energy_span *idle; /* the idle baseline: union of mw idle-before, idle-after */
    size_t nidle;
    mw_plot_strings *strs;
} mw_plot_run;

/* Reads RUNDIR. Returns 0, or -1 (unusable: not a run, unreadable, no samples) with a
 * message naming it in err. */
int mw_plot_run_load(const char *dir, mw_plot_run **out, char *err, size_t errlen);
void mw_plot_run_free(mw_plot_run *r);
/* What the defaults need to know of a run before reading it whole: its channels' names,
 * its eeg-mofs version (the counter "eeg version", 0 when none) and whether it has MPI
 * ranks (phases with rank >= 0). 0, or -1 with a message in err (not a run, unreadable). */
typedef struct {
    int nch;
    char names[MW_PLOT_MAX_CHANNELS][MW_PLOT_NAME];
    long long eeg_version;
    int has_ranks;
    int has_inband; /* in-band sources (mw record --inband) */
} mw_plot_peek;
int mw_plot_run_peek(const char *dir, mw_plot_peek *out, char *err, size_t errlen);
/* The counter NAME of rank (-2: any rank, the first recorded); 0 when found, else -1. */
int mw_plot_run_counter(const mw_plot_run *r, int rank, const char *name, int64_t *value);
/* s since the run's origin */
double mw_plot_run_s(const mw_plot_run *r, int64_t t_ns);
/* The union of the intervals of phases matching (kind, name) (NULL: any) on the ranks
 * channel c measures (the recorder's own phases cover every channel; c < 0: every rank):
 * malloc'd sorted disjoint spans in *out, count returned. */
size_t mw_plot_run_group_spans(const mw_plot_run *r, int c, const char *kind, const char *name,
                               mw_energy_span **out);
/* Distinct (kind, name) groups of the run's spans, sorted by kind then name: *kinds and
 * *names point into the run (arrays malloc'd). */
size_t mw_plot_run_groups(const mw_plot_run *r, const char ***kinds, const char ***names);
/* Window powers of channel c in W (malloc'd, n = the channel's windows, time order). */
double *mw_plot_run_powers(const mw_plot_run *r, int c);
/* The phase split's labels (mw analyze): working[i] = 1 when the union of the working
 * phases (class compute or gpu) of the ranks channel c measures covers more than half of
 * window i. Returns the count of working windows, or (size_t)-1 when there is no working
 * phase at all (the split is then skipped). *labels is malloc'd (n bytes) or NULL. */
size_t mw_plot_run_work_labels(const mw_plot_run *r, int c, unsigned char **labels);

/* ---- figures ----------------------------------------------------------------------- */

typedef struct {
    const char *dir; /* output directory (made before the first figure) */
    int svg;
    const char *source; /* what the figures are of, for the scripts' first comment */
    int figures;        /* written so far */
    int failures;
    /* called with each figure's path (DIR/NAME.png or .svg) once it is drawn; NULL: none.
     * The library never writes on standard output: the caller prints the paths if it wants. */
    void (*written)(void *ctx, const char *path);
    void *written_ctx;
    /* called with each message of the figure code (one line, no newline: "mw plot: ...":
     * gnuplot's own output, why a figure failed); NULL: the line goes to standard error */
    void (*say)(void *ctx, const char *line);
    void *say_ctx;
} mw_plot_out;

/* A message of the figure code to o->say (or standard error, see mw_plot_out). */
void mw_plot_say(const mw_plot_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct mw_plot_fig mw_plot_fig;

/* A figure NAME (file-name safe) drawn by the template plots/TEMPLATE.gp at w x h pixels.
 * NULL (with a message on stderr, o->failures incremented) when NAME.tsv cannot be made. */
mw_plot_fig *mw_plot_fig_begin(mw_plot_out *o, const char *name, const char *tmpl, int w, int h);
/* The data file NAME.tsv and the gnuplot variables written before the templates. */
FILE *mw_plot_fig_tsv(mw_plot_fig *f);
FILE *mw_plot_fig_vars(mw_plot_fig *f);
/* Begins a block of NAME.tsv with the heading "# TEXT" (blocks are separated by two blank
 * lines: gnuplot's index 0, 1, ...). A block left without data gets one line "-" (missing
 * values), so that the blocks after it keep their index. */
void mw_plot_fig_block(mw_plot_fig *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes NAME.gp, runs gnuplot, hands the figure's path to o->written. 0, or -1 (said on
 * stderr). */
int mw_plot_fig_end(mw_plot_fig *f);
/* A figure saying only why there is nothing to draw (plots/gnuplot/note.gp). */
int mw_plot_note_figure(mw_plot_out *o, const char *name, const char *title, const char *note,
                        int w, int h);

/* The replacement of a control character in a script: U+FFFD, in UTF-8. */
#define MW_PLOT_GP_REPLACEMENT "\xef\xbf\xbd"
/* THE way a string reaches a gnuplot script (every mw_plot_var_str/strs goes through it; no
 * other code writes user text into NAME.gp). Writes s (NULL: empty) as one gnuplot
 * single-quoted string literal: the quote, each ' doubled (gnuplot's '' is a literal quote),
 * each control character (bytes 0x00-0x1f and 0x7f: newline, carriage return, tab...)
 * replaced by MW_PLOT_GP_REPLACEMENT, every other byte as it is (UTF-8 prints as such), the
 * closing quote. Nothing is cut, however long s is. The literal is inert: it stays on one
 * line, and gnuplot does no backquote (`cmd`), macro (@var), escape (\) or shell (!)
 * processing inside single quotes; a # inside it starts no comment. */
void mw_plot_gp_string(FILE *f, const char *s);
/* gnuplot variables: VAR = 'value' / array VAR[n] = [...], strings by mw_plot_gp_string */
void mw_plot_var_str(FILE *f, const char *var, const char *value);
void mw_plot_var_num(FILE *f, const char *var, double v); /* NaN for a non-finite v */
void mw_plot_var_int(FILE *f, const char *var, long long v);
void mw_plot_var_strs(FILE *f, const char *var, const char *const *v, size_t n);
void mw_plot_var_nums(FILE *f, const char *var, const double *v, size_t n);
/* An array of tic labels, for `set xtics add (VAR[i] i)`: gnuplot reads such a label as a
 * format (gprintf), so a sweep label "p=5%" failed the figure ("Bad format character") and
 * "cpu%s" printed the tic's value; each % is doubled (then mw_plot_var_strs). */
void mw_plot_var_tic_labels(FILE *f, const char *var, const char *const *v, size_t n);
/* An axis range lo_var = lo - pad, hi_var = hi + pad, pad = 5 % of hi - lo and at least
 * min_pad: gnuplot never sees an empty range (it warns on one). Non-finite bounds: 0, 1. */
void mw_plot_var_range(FILE *f, const char *lo_var, const char *hi_var, double lo, double hi,
                       double min_pad);
/* a TSV number: %.10g, or "-" (gnuplot's missing value here) when not finite */
void mw_plot_tsv_num(FILE *f, double v);
/* a TSV text field: tabs and newlines as spaces, "-" when empty */
void mw_plot_tsv_text(FILE *f, const char *s);
/* s as a file-name part, unique and stable: s itself when it is made of [A-Za-z0-9._-] only
 * and fits; else s with every other character as '_', cut to fit, then '~' and 16 hex
 * digits of a 64-bit FNV-1a digest of s ("a b" -> "a_b~...", "a/b" -> "a_b~..." with other
 * digits, "a_b" -> "a_b"): two names give the same part only when their digests collide. */
#define MW_PLOT_SAFE_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
void mw_plot_safe_name(char *out, size_t len, const char *s);

/* ---- the kinds (plot_kinds_*.c) ---------------------------------------------------- */

typedef struct {
    mw_plot_out *out;
    const char *prefix; /* per-run figure names start with it ("" or "RUN-") */
    char **channels;    /* --channel NAME..., NULL-terminated or NULL */
    int explicit_kind;  /* the kind was asked for (else defaulted) */
    const char *freqs;  /* --freqs for dvfs, or NULL */
} mw_plot_job;

/* Each returns 0 when its figures were written (a note figure counts), -1 on a failure. */
int mw_plot_trace(const mw_plot_job *j, const mw_plot_run *r);
int mw_plot_timeline(const mw_plot_job *j, const mw_plot_run *r);
int mw_plot_histogram(const mw_plot_job *j, const mw_plot_run *r);
int mw_plot_energy(const mw_plot_job *j, const mw_plot_run *r);
int mw_plot_dvfs(const mw_plot_job *j, const mw_plot_run *r);
/* per node with in-band sources (plot_kinds_inband.c, docs/inband.md) */
int mw_plot_inband(const mw_plot_job *j, const mw_plot_run *r);
/* several runs (read one at a time); labels[i]: the run's sweep configuration (or NULL) */
int mw_plot_boxplot(const mw_plot_job *j, char *const *dirs, const char *const *labels, size_t n);
int mw_plot_model(const mw_plot_job *j, char *const *dirs, size_t n);
int mw_plot_pareto(const mw_plot_job *j, const char *profile, const char *name);
/* ---- the job of `mw plot` (plot_job.c) ------------------------------------------- */

/* The kinds, in the order they are drawn. */
enum {
    MW_PLOT_KIND_TRACE,
    MW_PLOT_KIND_TIMELINE,
    MW_PLOT_KIND_HISTOGRAM,
    MW_PLOT_KIND_ENERGY,
    MW_PLOT_KIND_INBAND,
    MW_PLOT_KIND_DVFS, /* the last per-run kind */
    MW_PLOT_KIND_BOXPLOT,
    MW_PLOT_KIND_MODEL,
    MW_PLOT_KIND_PARETO,
    MW_PLOT_NKINDS
};
extern const char *const mw_plot_kind_names[MW_PLOT_NKINDS];
/* the kind called name, or -1 */
int mw_plot_kind_index(const char *name);

typedef struct {
    char *const *inputs; /* RUNDIR, SWEEPDIR (its finished runs) or PROFILE (a regular file) */
    int ninputs;
    int kinds[MW_PLOT_NKINDS]; /* the kinds asked for (when any_kind) */
    int any_kind;              /* 0: the defaults for the inputs (docs/plots.md) */
    const char *outdir;        /* NULL: the first input's plots/ (a profile's folder's plots/) */
    int svg;                   /* else png */
    char **channels;           /* only these channels: NULL-terminated, or NULL for all */
    int nchannels;
    const char *freqs; /* CPU frequencies in GHz for dvfs (mw dvfs --freqs), or NULL */
    /* Notes, without a prefix and without "\n": a defaulted kind skipped and why, a run that
     * could not be read (then counted in unusable). NULL: dropped. */
    void (*note)(void *ctx, const char *text);
    /* each figure's path as soon as it is drawn (also listed in the result); NULL: none */
    void (*figure)(void *ctx, const char *path);
    /* each message of the figure code ("mw plot: ...", one line, no newline): gnuplot's own
     * output, why a figure failed; NULL: the lines go to standard error */
    void (*message)(void *ctx, const char *line);
    void *ctx;
} mw_plot_request;

typedef struct {
    char **figures; /* the figures drawn, in order (malloc'd) */
    size_t nfigures;
    int failed;   /* figures that failed (gnuplot, a file; said on stderr) */
    int unusable; /* runs that could not be read (a note each); the others were drawn */
} mw_plot_result;

/* mw_plot_run_job's refusals, nothing made then: */
#define MW_PLOT_JOB_BAD_INPUT (-1)  /* an input, a channel or a kind the request got wrong */
#define MW_PLOT_JOB_UNREADABLE (-2) /* a sweep or run that could not be read */

/* Draws the figures of req into req->outdir, as `mw plot` (docs/plots.md): the inputs are
 * classified and read (run peeks, sweep labels) and every --channel checked before the
 * first file is made. Returns 0 when the job ran (*out says what came of it: free it with
 * mw_plot_result_free, also after a refusal), or a refusal above with a message in err. */
int mw_plot_run_job(const mw_plot_request *req, mw_plot_result *out, char *err, size_t errlen);
void mw_plot_result_free(mw_plot_result *r);

#endif
