/* csvout (collector/csvout.c): RFC 4180 fields written exactly (quoted only when they hold
 * ',', '"', CR or LF; '"' doubled), and the formula-like fields counted: a first character of
 * = + - @, tab or CR, but not a signed plain number. */
#include "../unit.h"

#include "csvout.h"

static void field(const char *in, const char *want, mw_csv_formulas *fx)
{
    char buf[256] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    mw_csv_text(f, in, fx);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, want);
}

static void fields_exact(void **s)
{
    (void)s;
    field("node0", "node0", NULL);
    field("a,b", "\"a,b\"", NULL);
    field("say \"hi\"", "\"say \"\"hi\"\"\"", NULL);
    field("two\nlines", "\"two\nlines\"", NULL);
    field("=HYPERLINK(\"http://x\",\"y\")", "\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"", NULL);
    field("=1+2", "=1+2", NULL); /* kept as recorded */
}

static void formulas_counted(void **s)
{
    (void)s;
    static const char *const yes[] = {"=1+2", "+A1", "-A1", "@SUM(A1)", "\tx", "\rx", "-", "+"};
    static const char *const no[] = {"", "a=b", "-12", "+3.5", "-1e-3", "node-1", " =x"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!mw_csv_formula_like(yes[i])) fail_msg("'%s' not counted", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (mw_csv_formula_like(no[i])) fail_msg("'%s' counted", no[i]);
    mw_csv_formulas fx = {.row = 3, .column = "channel"};
    field("ok", "ok", &fx);
    field("=x", "=x", &fx);
    fx.row = 4;
    field("@y", "@y", &fx);
    assert_int_equal(fx.n, 2);
    assert_string_equal(fx.first, "row 3, column channel");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fields_exact),
        cmocka_unit_test(formulas_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
