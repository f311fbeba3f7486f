/* mw_plot_gp_string (plots/plot_fig.c), the one way user text reaches a gnuplot script, on
 * hostile input: names made of gnuplot and shell syntax must come out as one inert
 * single-quoted literal on one line.
 *
 * Contract checked (plots/include/mw_plot.h): the literal is ' + s + ', each ' doubled, each
 * control character (0x00-0x1f, 0x7f) replaced by U+FFFD (MW_PLOT_GP_REPLACEMENT), every
 * other byte copied (backslash, !, `, $(, @, #, UTF-8), nothing cut. Cases: fixed strings
 * with their exact literal (newline, CR, tab, escape, DEL, quote, backslash, !, backquote,
 * $(...), @macro, #); a string of 200,000 bytes; 2,000 random strings of hostile bytes, each
 * decoded back by a strict parser of gnuplot's single-quoted literal and compared with the
 * input, control characters replaced; mw_plot_var_str and mw_plot_var_strs write one line
 * each; mw_plot_var_tic_labels doubles % (gnuplot formats explicit tic labels).
 *
 * End to end (skipped when gnuplot is not installed): a figure written with the library
 * (mw_plot_fig_begin ... mw_plot_fig_end, gnuplot run as mw runs it) into a folder whose name
 * holds "\n!touch pwned\n#", the same text as the scripts' source (their first comment line,
 * here ending in a backslash, which would continue the comment) and hostile variables,
 * also as tic labels ("p=5%" failed gnuplot before mw_plot_var_tic_labels): the figure is
 * drawn, no line of the script starts with '!', gnuplot prints each variable back as
 * mw_plot_gp_string's contract says (set print), and no file pwned appears (on the old code
 * the source's newline ended the comment and gnuplot ran `touch pwned` through /bin/sh). */
#include "../unit.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mw_child.h"
#include "mw_plot.h"

#define R MW_PLOT_GP_REPLACEMENT

/* mw_plot_gp_string(s) as a malloc'd string */
static char *quoted(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    mw_plot_gp_string(f, s);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* s with control characters replaced, as the contract says (malloc'd) */
static char *sanitised(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            fputs(R, f);
        else
            fputc(c, f);
    }
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* The value of a gnuplot single-quoted literal that must be all of lit (malloc'd), or NULL
 * when lit is not exactly one such literal. */
static char *unquote(const char *lit)
{
    size_t n = strlen(lit);
    if (n < 2 || lit[0] != '\'' || lit[n - 1] != '\'') return NULL;
    char *v = calloc(1, n);
    assert_non_null(v);
    size_t k = 0;
    for (size_t i = 1; i < n - 1; i++) {
        if (lit[i] == '\'') {
            if (lit[i + 1] != '\'' || i + 1 == n - 1) { /* a lone quote ends the literal early */
                free(v);
                return NULL;
            }
            i++;
        }
        v[k++] = lit[i];
    }
    return v;
}

static void expect_literal(const char *in, const char *want)
{
    char *got = quoted(in);
    assert_string_equal(got, want);
    free(got);
}

static void fixed_strings(void **state)
{
    (void)state;
    expect_literal(NULL, "''");
    expect_literal("", "''");
    expect_literal("node0", "'node0'");
    expect_literal("Power trace — /tmp/run (stopped)", "'Power trace — /tmp/run (stopped)'");
    expect_literal("it's", "'it''s'");
    expect_literal("'", "''''");
    expect_literal("''", "''''''");
    expect_literal("a\n!id > PWNED\n#", "'a" R "!id > PWNED" R "#'");
    expect_literal("a\r\nb", "'a" R R "b'");
    expect_literal("\n", "'" R "'");
    expect_literal("tab\there", "'tab" R "here'");
    expect_literal("\x01\x1b[31m\x7f", "'" R R "[31m" R "'");
    expect_literal("back\\slash\\", "'back\\slash\\'");
    expect_literal("\\'", "'\\'''");
    expect_literal("!touch x", "'!touch x'");
    expect_literal("`touch x`", "'`touch x`'");
    expect_literal("$(touch x)", "'$(touch x)'");
    expect_literal("@title_text", "'@title_text'");
    expect_literal("a # b", "'a # b'");
    expect_literal("\"q\"; system(\"id\")", "'\"q\"; system(\"id\")'");
    expect_literal("q'; system(\"touch x\") #", "'q''; system(\"touch x\") #'");
    expect_literal("\xc3\xa9t\xc3\xa9 \xe2\x80\x94 \xc2\x85",
                   "'\xc3\xa9t\xc3\xa9 \xe2\x80\x94 \xc2\x85'");
}

static void long_string(void **state)
{
    (void)state;
    const size_t n = 200000;
    char *s = malloc(n + 1);
    assert_non_null(s);
    static const char pattern[] = "ab'\n!`$(@#\\\r";
    for (size_t i = 0; i < n; i++)
        s[i] = pattern[i % (sizeof pattern - 1)];
    s[n] = 0;
    char *got = quoted(s), *want = sanitised(s), *back = unquote(got);
    assert_non_null(back);
    assert_string_equal(back, want);
    assert_null(strchr(got, '\n'));
    assert_null(strchr(got, '\r'));
    /* nothing cut: every quote doubled, every control character 3 bytes */
    size_t quotes = 0, controls = 0;
    for (size_t i = 0; i < n; i++) {
        quotes += s[i] == '\'';
        controls += s[i] == '\n' || s[i] == '\r';
    }
    assert_int_equal(strlen(got), n + 2 + quotes + 2 * controls);
    free(s);
    free(got);
    free(want);
    free(back);
}

static void random_strings(void **state)
{
    (void)state;
    static const char hostile[] = "'\"\\\n\r\t!`$()@#; \x01\x7f\xc3\xa9\xff";
    unsigned seed = 12345;
    for (int t = 0; t < 2000; t++) {
        char s[64];
        size_t len = (size_t)(rand_r(&seed) % 63);
        for (size_t i = 0; i < len; i++) {
            int r = rand_r(&seed);
            s[i] = r % 2 ? hostile[(r / 2) % (int)(sizeof hostile - 1)] : (char)(1 + (r / 2) % 255);
        }
        s[len] = 0;
        char *got = quoted(s), *want = sanitised(s), *back = unquote(got);
        for (const char *c = got; *c; c++)
            assert_false((unsigned char)*c < 0x20 || *c == 0x7f);
        assert_non_null(back);
        assert_string_equal(back, want);
        free(got);
        free(want);
        free(back);
    }
}

static void variables(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    mw_plot_var_str(f, "title_text", "run\n!touch pwned\n#'");
    const char *v[] = {"a'b", "c\nd", ""};
    mw_plot_var_strs(f, "ch_name", v, 3);
    mw_plot_var_strs(f, "none", v, 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, "title_text = 'run" R "!touch pwned" R "#'''\n"
                             "array ch_name[3] = ['a''b', 'c" R "d', '']\n"
                             "array none[1]\n");
    free(buf);
}

static void tic_labels(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char *v[] = {"p=5%", "cpu%s", "100%%", "it's\n%d", "plain"};
    mw_plot_var_tic_labels(f, "group_name", v, 5);
    mw_plot_var_tic_labels(f, "lane_name", v, 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, "array group_name[5] = ['p=5%%', 'cpu%%s', '100%%%%', 'it''s" R
                             "%%d', 'plain']\n"
                             "array lane_name[1]\n");
    free(buf);
}

/* ---- end to end with gnuplot ------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* mw_plot_safe_name: safe names as they are; others sanitized plus '~' and the 64-bit FNV-1a
 * digest of the name (the digests computed independently, in Python, whose FNV-1a gives the
 * published vectors: "a" af63dc4c8601ec8c, "foobar" 85944171f73967e8) */
static void safe_names(void **state)
{
    (void)state;
    char out[128], x200[201];
    static const char *const cases[][2] = {
        {"node0", "node0"},
        {"a_b", "a_b"},
        {"a b", "a_b~e63f991904833892"},
        {"a/b", "a_b~e620c3190468cf61"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mw_plot_safe_name(out, sizeof out, cases[i][0]);
        assert_string_equal(out, cases[i][1]);
    }
    /* too long for the buffer: cut, and the digest of the whole name added */
    memset(x200, 'x', 200);
    x200[200] = 0;
    mw_plot_safe_name(out, sizeof out, x200);
    assert_int_equal(strlen(out), 127);
    assert_int_equal(strspn(out, "x"), 110);
    assert_string_equal(out + 110, "~6ee14c8caecd5c45");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int have_gnuplot(void)
{
    char *argv[] = {"gnuplot", "--version", NULL}, *out = NULL, *err = NULL;
    int status = -1;
    int ok = mw_child_run("gnuplot", argv, NULL, &out, &err, &status) == 0 && status == 0;
    free(out);
    free(err);
    return ok;
}

static void figure_in_hostile_folder(void **state)
{
    (void)state;
    if (!have_gnuplot()) skip();
    char tmp[] = "/tmp/mw-quote-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char tmpl[256], dir[512], source[600], path[1024];
    snprintf(tmpl, sizeof tmpl, "%s/templates", tmp);
    assert_int_equal(mkdir(tmpl, 0755), 0);
    snprintf(path, sizeof path, "%s/common.gp", tmpl);
    write_file(path, "# common.gp of the test\n");
    snprintf(path, sizeof path, "%s/quote.gp", tmpl);
    write_file(path, "set print 'values.txt'\n"
                     "print title_text\n"
                     "do for [i = 1:n_names] {\n"
                     "    print names[i]\n"
                     "}\n"
                     "unset print\n"
                     "set xtics ()\n"
                     "do for [i = 1:n_names] {\n"
                     "    set xtics add (tics[i] i / 10.0)\n"
                     "}\n"
                     "plot [0:1] [0:1] x title title_text\n");
    setenv("MW_PLOTS_DIR", tmpl, 1);
    unsetenv("MW_GNUPLOT");
    snprintf(dir, sizeof dir, "%s/run\n!touch pwned\n#", tmp);
    snprintf(source, sizeof source, "%s\n!touch pwned\n#\\", dir);

    const char *names[] = {"q'; system(\"touch pwned\") #",
                           "`touch pwned`",
                           "$(touch pwned)",
                           "@title_text",
                           "a\\",
                           "\r!touch pwned\r",
                           "x\x7f\x01y",
                           "p=5%",
                           "n%d"};
    const size_t nn = sizeof names / sizeof *names;
    char title[1200];
    snprintf(title, sizeof title, "Power trace \xe2\x80\x94 %s (stopped)", dir);
    mw_plot_out o = {.dir = dir, .svg = 0, .source = source};
    mw_plot_fig *fig = mw_plot_fig_begin(&o, "quote", "quote", 200, 120);
    assert_non_null(fig);
    mw_plot_fig_block(fig, "values");
    fputs("0\t0\n", mw_plot_fig_tsv(fig));
    FILE *v = mw_plot_fig_vars(fig);
    mw_plot_var_str(v, "title_text", title);
    mw_plot_var_int(v, "n_names", (long long)nn);
    mw_plot_var_strs(v, "names", names, nn);
    mw_plot_var_tic_labels(v, "tics", names, nn);
    assert_int_equal(mw_plot_fig_end(fig), 0);
    assert_int_equal(o.figures, 1);
    assert_int_equal(o.failures, 0);

    /* the script: no line of shell, the source's comment on one line ending in "\ " */
    snprintf(path, sizeof path, "%s/quote.gp", dir);
    FILE *g = fopen(path, "r");
    assert_non_null(g);
    char line[4096];
    int first = 1;
    while (fgets(line, sizeof line, g)) {
        assert_true(line[0] != '!');
        if (first) {
            char want[2048];
            snprintf(want, sizeof want,
                     "# quote.gp: written by mw plot (quote) from %s/run" R "!touch pwned" R "#" R
                     "!touch pwned" R "#\\ \n",
                     tmp);
            assert_string_equal(line, want);
            first = 0;
        }
    }
    fclose(g);

    /* gnuplot's values: the contract's */
    snprintf(path, sizeof path, "%s/values.txt", dir);
    FILE *pv = fopen(path, "r");
    assert_non_null(pv);
    char *want = sanitised(title);
    assert_non_null(fgets(line, sizeof line, pv));
    line[strcspn(line, "\n")] = 0;
    assert_string_equal(line, want);
    free(want);
    for (size_t i = 0; i < nn; i++) {
        want = sanitised(names[i]);
        assert_non_null(fgets(line, sizeof line, pv));
        line[strcspn(line, "\n")] = 0;
        assert_string_equal(line, want);
        free(want);
    }
    assert_null(fgets(line, sizeof line, pv));
    fclose(pv);

    struct stat st;
    snprintf(path, sizeof path, "%s/pwned", dir);
    assert_int_not_equal(stat(path, &st), 0);
    assert_int_not_equal(stat("pwned", &st), 0);
    snprintf(path, sizeof path, "%s/quote.png", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 0);
    assert_int_equal(nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_strings),  cmocka_unit_test(long_string),
        cmocka_unit_test(safe_names),
        cmocka_unit_test(random_strings), cmocka_unit_test(variables),
        cmocka_unit_test(tic_labels),     cmocka_unit_test(figure_in_hostile_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
