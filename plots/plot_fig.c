/* plot_fig — one figure of `mw plot`: its data file, its gnuplot script, gnuplot itself
 * (mw_plot.h), run with an argument vector (mw_child.h); the only program libmwplot runs.
 *
 * NAME.gp is: a comment saying what wrote it and how to redraw it, the terminal and output
 * (pngcairo or svg, the kind's fixed size, no enhanced text so that names print as they
 * are), `datafile = 'NAME.tsv'`, the variables mw wrote for this figure, then the text of
 * plots/gnuplot/common.gp and plots/gnuplot/TEMPLATE.gp copied in (found by mw_plots_path), so the
 * script needs nothing but NAME.tsv beside it. gnuplot runs in the output directory with the
 * argument vector {"gnuplot", "NAME.gp"} ($MW_GNUPLOT names another program); its standard
 * output and error are read through pipes (poll, so neither can block the other); anything
 * on its standard error is copied to ours, each line prefixed "mw plot: gnuplot NAME.gp: ".
 * A non-zero exit or a missing or empty figure fails it; a figure's path is handed to the
 * caller (mw_plot_out.written) only once it exists.
 *
 * Planted links. NAME.tsv, NAME.gp and the figure are made in a private directory
 * DIR/.NAME.XXXXXX (mkdtemp, files O_CREAT|O_EXCL|O_NOFOLLOW) where gnuplot runs, then renamed
 * into DIR (mw_fs_commit): a link planted at DIR/NAME.gp is replaced, never written through;
 * any other file gnuplot wrote there follows them; the private directory is then removed
 * without following links (mw_fs_remove_dir).
 *
 * Quoting. Run directories, channel, host and phase names, sweep labels and titles are
 * user text, and a gnuplot script is code (a line starting with ! runs /bin/sh). User text
 * reaches NAME.gp only as a single-quoted literal written by mw_plot_gp_string (every
 * mw_plot_var_str/strs) or, in this file, inside the comment lines written by gp_comment;
 * both pass each byte through gp_put_text, which turns control characters (newline first)
 * into U+FFFD, so no user text can start a line. The templates use names as variables,
 * never paste them into code (plots/README.md). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mw_child.h"
#include "mw_alloc.h"
#include "mw_fs.h"
#include "mw_plot.h"
#include "plots_path.h"

struct mw_plot_fig {
    mw_plot_out *o;
    char name[256], tmpl[64];
    int w, h;
    FILE *tsv;
    char *vars;
    size_t vars_len;
    FILE *vf;
    char tmpdir[PATH_MAX]; /* o->dir/.NAME.XXXXXX: the figure's files until they are done */
    int blocks;            /* blocks begun */
    long block_start;      /* file position after the current block's heading */
};

/* ---- text helpers ------------------------------------------------------------------ */

/* The one filter between a string and a gnuplot script: every byte of user text that
 * reaches NAME.gp passes here. A control character (0x00-0x1f, 0x7f: newline and carriage
 * return end a line, and a line is a command) becomes U+FFFD, visibly not what was there;
 * every other byte is copied, so UTF-8 names print as they are. */
static void gp_put_text(FILE *f, const char *s, int quoted)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            fputs(MW_PLOT_GP_REPLACEMENT, f);
        else if (quoted && c == '\'')
            fputs("''", f);
        else
            fputc(c, f);
    }
}

void mw_plot_gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    gp_put_text(f, s, 1);
    fputc('\'', f);
}

/* A comment line "# TEXT" of a script, TEXT made with fmt: its user text (paths) through
 * the same filter, so no newline can end the comment, and never ending in a backslash
 * (gnuplot continues a line that ends with one, a comment too). */
static void gp_comment(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gp_comment(FILE *f, const char *fmt, ...)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        fputs("#\n", f);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vfprintf(m, fmt, ap);
    va_end(ap);
    fclose(m);
    fputs("# ", f);
    gp_put_text(f, text, 0);
    fputs(len && text[len - 1] == '\\' ? " \n" : "\n", f);
    free(text);
}

void mw_plot_var_str(FILE *f, const char *var, const char *value)
{
    fprintf(f, "%s = ", var);
    mw_plot_gp_string(f, value);
    fputc('\n', f);
}

static void gp_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("NaN", f);
}

void mw_plot_var_num(FILE *f, const char *var, double v)
{
    fprintf(f, "%s = ", var);
    gp_num(f, v);
    fputc('\n', f);
}

void mw_plot_var_int(FILE *f, const char *var, long long v)
{
    fprintf(f, "%s = %lld\n", var, v);
}

void mw_plot_var_strs(FILE *f, const char *var, const char *const *v, size_t n)
{
    /* gnuplot arrays have at least one element */
    fprintf(f, "array %s[%zu]", var, n ? n : 1);
    if (n) {
        fputs(" = [", f);
        for (size_t i = 0; i < n; i++) {
            if (i) fputs(", ", f);
            mw_plot_gp_string(f, v[i]);
        }
        fputc(']', f);
    }
    fputc('\n', f);
}

void mw_plot_var_tic_labels(FILE *f, const char *var, const char *const *v, size_t n)
{
    char **esc = mw_xcalloc(n + 1, sizeof *esc);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(v[i]), k = 0;
        esc[i] = mw_xcalloc(1, 2 * len + 1);
        for (const char *c = v[i]; *c; c++) {
            if (*c == '%') esc[i][k++] = '%';
            esc[i][k++] = *c;
        }
    }
    mw_plot_var_strs(f, var, (const char *const *)esc, n);
    for (size_t i = 0; i < n; i++)
        free(esc[i]);
    free(esc);
}

void mw_plot_var_nums(FILE *f, const char *var, const double *v, size_t n)
{
    fprintf(f, "array %s[%zu]", var, n ? n : 1);
    if (n) {
        fputs(" = [", f);
        for (size_t i = 0; i < n; i++) {
            if (i) fputs(", ", f);
            gp_num(f, v[i]);
        }
        fputc(']', f);
    }
    fputc('\n', f);
}

void mw_plot_var_range(FILE *f, const char *lo_var, const char *hi_var, double lo, double hi,
                       double min_pad)
{
    if (!isfinite(lo) || !isfinite(hi) || hi < lo) {
        lo = 0;
        hi = 1;
    }
    double pad = (hi - lo) * 0.05;
    if (pad < min_pad) pad = min_pad;
    mw_plot_var_num(f, lo_var, lo - pad);
    mw_plot_var_num(f, hi_var, hi + pad);
}

void mw_plot_tsv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputc('-', f);
}

void mw_plot_tsv_text(FILE *f, const char *s)
{
    if (!s || !*s) {
        fputc('-', f);
        return;
    }
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
}

/* FNV-1a, 64 bits: a stable digest of a name (the same name, the same suffix, every run) */
static unsigned long long fnv1a64(const char *s)
{
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void mw_plot_safe_name(char *out, size_t len, const char *s)
{
    if (!len) return;
    if (!s) s = "";
    size_t n = strlen(s), i = 0;
    int changed = n + 1 > len;
    for (size_t k = 0; k < n && !changed; k++)
        changed = !strchr(MW_PLOT_SAFE_CHARS, s[k]);
    if (!changed) {
        memcpy(out, s, n + 1);
        return;
    }
    /* room for "~" and 16 hex digits; '~' is never kept from a name, so a changed name never
     * equals an unchanged one, and two changed names differ in their digest */
    size_t keep = len > 18 ? len - 18 : 0;
    for (; i < n && i < keep; i++)
        out[i] = strchr(MW_PLOT_SAFE_CHARS, s[i]) ? s[i] : '_';
    snprintf(out + i, len - i, "~%016llx", fnv1a64(s));
}

void mw_plot_say(const mw_plot_out *o, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (o && o->say)
        o->say(o->say_ctx, line);
    else
        fprintf(stderr, "%s\n", line);
}

/* ---- figures ----------------------------------------------------------------------- */

/* A new file NAME in the figure's private directory (O_EXCL|O_NOFOLLOW), as a stream. */
static FILE *create_private(const mw_plot_fig *f, const char *name)
{
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", f->tmpdir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) return NULL;
    FILE *s = fdopen(fd, "w");
    if (!s) close(fd);
    return s;
}

/* Makes the figure's private directory o->dir/.NAME.XXXXXX (mkdtemp: a new directory, never
 * a planted link) and NAME.tsv in it; the stream, or NULL with errno set. */
static FILE *open_private(mw_plot_fig *f)
{
    if ((size_t)snprintf(f->tmpdir, sizeof f->tmpdir, "%s/.%s.XXXXXX", f->o->dir, f->name) >=
        sizeof f->tmpdir) {
        f->tmpdir[0] = 0;
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (!mkdtemp(f->tmpdir)) {
        f->tmpdir[0] = 0;
        return NULL;
    }
    char tsv[300];
    snprintf(tsv, sizeof tsv, "%s.tsv", f->name);
    return create_private(f, tsv);
}

/* Renames NAME.EXT from the private directory to o->dir (replacing a link there, never
 * writing through it). 0, or -1 (said). */
static int commit_private(const mw_plot_fig *f, const char *ext)
{
    char name[300], tmp[PATH_MAX + 300], err[PATH_MAX + 400];
    snprintf(name, sizeof name, "%s.%s", f->name, ext);
    snprintf(tmp, sizeof tmp, "%s/%s", f->tmpdir, name);
    if (mw_fs_commit(tmp, f->o->dir, name, err, sizeof err) == 0) return 0;
    mw_plot_say(f->o, "mw plot: %s", err);
    return -1;
}

/* Any other plain file gnuplot left in the private directory (a template's `set print`)
 * goes to o->dir as it did when gnuplot ran there; links and the figure of a failed run
 * (skip: "NAME.EXT", or NULL) stay, to be removed with the directory. */
static void commit_others(const mw_plot_fig *f, const char *skip)
{
    DIR *d = opendir(f->tmpdir);
    if (!d) return;
    struct dirent *e;
    char err[PATH_MAX + 400], tmp[PATH_MAX + 300];
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.' || (skip && !strcmp(e->d_name, skip)) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
            continue;
        snprintf(tmp, sizeof tmp, "%s/%s", f->tmpdir, e->d_name);
        if (mw_fs_commit(tmp, f->o->dir, e->d_name, err, sizeof err))
            mw_plot_say(f->o, "mw plot: %s", err);
    }
    closedir(d);
}

mw_plot_fig *mw_plot_fig_begin(mw_plot_out *o, const char *name, const char *tmpl, int w, int h)
{
    if (mw_fs_mkdirs(o->dir, NULL, NULL, 0)) {
        mw_plot_say(o, "mw plot: %s: cannot make the directory: %s", o->dir, strerror(errno));
        o->failures++;
        return NULL;
    }
    mw_plot_fig *f = mw_xcalloc(1, sizeof *f);
    f->o = o;
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->tmpl, sizeof f->tmpl, "%s", tmpl);
    f->w = w;
    f->h = h;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.tsv", o->dir, name);
    f->tsv = open_private(f);
    f->vf = open_memstream(&f->vars, &f->vars_len);
    if (!f->tsv || !f->vf) {
        mw_plot_say(o, "mw plot: %s: %s", path, strerror(errno));
        if (f->tsv) fclose(f->tsv);
        if (f->vf) fclose(f->vf);
        if (f->tmpdir[0]) mw_fs_remove_dir(f->tmpdir, NULL, 0);
        free(f->vars);
        free(f);
        o->failures++;
        return NULL;
    }
    fprintf(f->tsv, "# %s.tsv: data of %s.%s (mw plot, plots/gnuplot/%s.gp; docs/plots.md)\n", name,
            name, o->svg ? "svg" : "png", tmpl);
    return f;
}

FILE *mw_plot_fig_tsv(mw_plot_fig *f)
{
    return f->tsv;
}
FILE *mw_plot_fig_vars(mw_plot_fig *f)
{
    return f->vf;
}
/* A block with no data line would not count as one for gnuplot's index (a comment-only
 * block is skipped): it gets one line of missing values. */
static void close_block(mw_plot_fig *f)
{
    if (f->blocks && ftell(f->tsv) == f->block_start) fputs("-\n", f->tsv);
}

void mw_plot_fig_block(mw_plot_fig *f, const char *fmt, ...)
{
    close_block(f);
    if (f->blocks) fputs("\n\n", f->tsv);
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (char *c = text; *c; c++) /* a name's newline must not end the comment */
        if ((unsigned char)*c < 0x20 && *c != '\t') *c = ' ';
    fprintf(f->tsv, "# %s\n", text);
    f->blocks++;
    f->block_start = ftell(f->tsv);
}

static int copy_template(const mw_plot_out *o, FILE *out, const char *name)
{
    char path[PATH_MAX];
    if (mw_plots_path(name, path, sizeof path)) {
        mw_plot_say(o,
                    "mw plot: gnuplot template %s not found (tried %s; set MW_PLOTS_DIR to the "
                    "plots/ folder)",
                    name, path);
        return -1;
    }
    FILE *in = fopen(path, "r");
    if (!in) {
        mw_plot_say(o, "mw plot: %s: %s", path, strerror(errno));
        return -1;
    }
    fputc('\n', out);
    gp_comment(out, "---- %s (%s)", name, path);
    char b[8192];
    size_t n;
    while ((n = fread(b, 1, sizeof b, in)) > 0)
        fwrite(b, 1, n, out);
    int bad = ferror(in);
    fclose(in);
    return bad ? -1 : 0;
}

/* Lines of gnuplot's output as messages, prefixed. */
static void pass_on(const mw_plot_out *o, const char *script, const char *text)
{
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        if (len) mw_plot_say(o, "mw plot: gnuplot %s: %.*s", script, (int)len, text);
        text += len + (nl ? 1 : 0);
    }
}

/* NAME.gp in the private directory (gp: its final path, for messages): the comments, terminal and
 * output, datafile, the figure's variables, common.gp and the template. 0, or -1 (said through
 * mw_plot_say). */
static int write_script(const mw_plot_fig *f, const char *gp, const char *script, const char *ext)
{
    const mw_plot_out *o = f->o;
    FILE *g = create_private(f, script);
    if (!g) {
        mw_plot_say(o, "mw plot: %s: %s", gp, strerror(errno));
        return -1;
    }
    int rc = 0;
    gp_comment(g, "%s: written by mw plot (%s) from %s", script, f->tmpl,
               o->source ? o->source : "-");
    gp_comment(g, "redraw: cd to this folder, then gnuplot %s (data: %s.tsv; docs/plots.md)",
               script, f->name);
    if (o->svg)
        fprintf(g,
                "set terminal svg size %d,%d noenhanced font 'sans,11' background "
                "rgb 'white'\n",
                f->w, f->h);
    else
        fprintf(g, "set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n", f->w, f->h);
    fprintf(g, "set output ");
    char out_name[300], tsv_name[300], tmpl[80];
    snprintf(out_name, sizeof out_name, "%s.%s", f->name, ext);
    mw_plot_gp_string(g, out_name);
    fprintf(g, "\n");
    snprintf(tsv_name, sizeof tsv_name, "%s.tsv", f->name);
    mw_plot_var_str(g, "datafile", tsv_name);
    fwrite(f->vars, 1, f->vars_len, g);
    snprintf(tmpl, sizeof tmpl, "%s.gp", f->tmpl);
    if (copy_template(o, g, "common.gp") || copy_template(o, g, tmpl)) rc = -1;
    fputs("\nunset output\n", g);
    if (fclose(g)) {
        mw_plot_say(o, "mw plot: %s: %s", gp, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* gnuplot SCRIPT in dir (its output passed on); the figure fig must then exist, not empty
 * (dir is the figure's private directory, new, so no stale figure can pass for one).
 * 0, or -1 (said through mw_plot_say). */
static int run_gnuplot(const mw_plot_out *o, const char *dir, const char *script, const char *gp,
                       const char *fig)
{
    const char *prog = getenv("MW_GNUPLOT");
    if (!prog || !*prog) prog = "gnuplot";
    char *argv[] = {(char *)prog, (char *)script, NULL};
    char *out = NULL, *err = NULL;
    int status, rc = 0;
    if (mw_child_run(prog, argv, dir, &out, &err, &status)) {
        mw_plot_say(o, "mw plot: %s (install gnuplot: Debian package gnuplot-nox)", err);
        rc = -1;
    } else {
        pass_on(o, script, out);
        pass_on(o, script, err);
        struct stat st;
        if (status) {
            mw_plot_say(o, "mw plot: %s: gnuplot exited with status %d", gp, status);
            rc = -1;
        } else if (stat(fig, &st) || st.st_size == 0) {
            mw_plot_say(o, "mw plot: %s: gnuplot wrote no figure", gp);
            rc = -1;
        }
    }
    free(out);
    free(err);
    return rc;
}

int mw_plot_fig_end(mw_plot_fig *f)
{
    mw_plot_out *o = f->o;
    const char *ext = o->svg ? "svg" : "png";
    char gp[PATH_MAX], fig[PATH_MAX], script[300];
    snprintf(gp, sizeof gp, "%s/%s.gp", o->dir, f->name);
    snprintf(fig, sizeof fig, "%s/%s.%s", o->dir, f->name, ext);
    snprintf(script, sizeof script, "%s.gp", f->name);
    int rc = 0;
    close_block(f);
    if (fclose(f->tsv)) {
        mw_plot_say(o, "mw plot: %s/%s.tsv: %s", o->dir, f->name, strerror(errno));
        rc = -1;
    }
    fclose(f->vf);
    int script_rc = rc ? -1 : write_script(f, gp, script, ext);
    rc |= script_rc;
    free(f->vars);
    char tmpfig[PATH_MAX + 300];
    snprintf(tmpfig, sizeof tmpfig, "%s/%s.%s", f->tmpdir, f->name, ext);
    if (!rc) rc = run_gnuplot(o, f->tmpdir, script, gp, tmpfig);
    /* the data and script go in place whatever gnuplot did; the figure only when drawn */
    if (commit_private(f, "tsv") || (!script_rc && commit_private(f, "gp"))) rc = -1;
    if (!rc && commit_private(f, ext)) rc = -1;
    char fig_name[300];
    snprintf(fig_name, sizeof fig_name, "%s.%s", f->name, ext);
    commit_others(f, rc ? fig_name : NULL);
    if (rc)
        remove(fig); /* no stale or partial figure is left to pass for one (a link
                        there is removed, not followed) */
    mw_fs_remove_dir(f->tmpdir, NULL, 0);
    if (!rc) {
        if (o->written) o->written(o->written_ctx, fig);
        o->figures++;
    } else {
        o->failures++;
    }
    free(f);
    return rc;
}

int mw_plot_note_figure(mw_plot_out *o, const char *name, const char *title, const char *note,
                        int w, int h)
{
    mw_plot_fig *f = mw_plot_fig_begin(o, name, "note", w, h);
    if (!f) return -1;
    mw_plot_fig_block(f, "nothing to draw: %s", note);
    /* the note in lines of at most about one character per 11 pixels, cut at spaces */
    size_t width = (size_t)(w / 11), len = strlen(note), nl = 0;
    char **lines = mw_xcalloc(len / 8 + 2, sizeof *lines);
    for (const char *p = note; *p;) {
        size_t take = strlen(p);
        if (take > width) {
            take = width;
            while (take > width / 2 && p[take] != ' ')
                take--;
            if (p[take] != ' ') take = width;
        }
        lines[nl] = mw_xstrndup(p, take);
        nl++;
        p += take;
        while (*p == ' ')
            p++;
    }
    FILE *v = mw_plot_fig_vars(f);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_str(v, "note_text", note);
    mw_plot_var_int(v, "n_lines", (long long)nl);
    mw_plot_var_strs(v, "note_lines", (const char *const *)lines, nl);
    for (size_t i = 0; i < nl; i++)
        free(lines[i]);
    free(lines);
    return mw_plot_fig_end(f);
}
