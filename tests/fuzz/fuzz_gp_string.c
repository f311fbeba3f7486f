/* fuzz_gp_string — the one way a user string reaches a gnuplot script, mw_plot_gp_string
 * (plots/include/mw_plot.h): run names, channel names, titles and notes from the run.
 *
 * The input is the string (up to its first NUL, as a C string is). The oracle reads the
 * output as gnuplot reads a single-quoted literal, written here from gnuplot's rule and not
 * from the quoting code: after the opening quote, '' is one quote and a lone ' ends the
 * literal. Invariants: the output is one literal that ends exactly at its last byte (nothing
 * of the input escapes it), holds no control byte (0x00-0x1f, 0x7f: no newline, so a `!`
 * or `#` in the input can never start a line of the script), and reads back as the input
 * with each control byte replaced by U+FFFD and every other byte kept; the same through
 * mw_plot_var_str as "VAR = '...'" on one line. */
#include "fuzz.h"
#include "mw_plot.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* What gnuplot makes of the literal at out[0..n): the text into *text (malloc'd), or NULL
 * when out is not exactly one single-quoted literal. */
static char *read_literal(const char *out, size_t n)
{
    if (n < 2 || out[0] != '\'') return NULL;
    char *text = malloc(n);
    FUZZ_CHECK(text != NULL);
    size_t k = 0, i = 1;
    for (;;) {
        if (i >= n) break; /* no closing quote */
        if (out[i] == '\'') {
            if (i + 1 < n && out[i + 1] == '\'') {
                text[k++] = '\'';
                i += 2;
                continue;
            }
            if (i + 1 != n) break; /* something after the closing quote */
            text[k] = 0;
            return text;
        }
        text[k++] = out[i++];
    }
    free(text);
    return NULL;
}

/* The input as the literal must carry it: control bytes as U+FFFD. */
static char *expected(const char *s)
{
    size_t n = strlen(s);
    char *w = malloc(3 * n + 1), *p = w;
    FUZZ_CHECK(w != NULL);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f) {
            memcpy(p, "\xef\xbf\xbd", 3);
            p += 3;
        } else
            *p++ = (char)c;
    }
    *p = 0;
    return w;
}

static void check_literal(const char *out, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)out[i];
        FUZZ_CHECK(c >= 0x20 && c != 0x7f);
    }
    char *text = read_literal(out, n);
    FUZZ_CHECK(text != NULL);
    char *want = expected(s);
    FUZZ_CHECK(strcmp(text, want) == 0);
    free(text);
    free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    FUZZ_CHECK(f != NULL);
    mw_plot_gp_string(f, s);
    FUZZ_CHECK(fclose(f) == 0);
    check_literal(out, n, s);
    free(out);
    /* as a variable of a script: one line "name = 'literal'" */
    f = open_memstream(&out, &n);
    FUZZ_CHECK(f != NULL);
    mw_plot_var_str(f, "title", s);
    FUZZ_CHECK(fclose(f) == 0);
    FUZZ_CHECK(n > 9 && memcmp(out, "title = ", 8) == 0 && out[n - 1] == '\n');
    check_literal(out + 8, n - 9, s);
    free(out);
    free(s);
    return 0;
}
