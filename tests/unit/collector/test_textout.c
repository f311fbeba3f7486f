/* Unit tests for collector/textout.c's terminal escaping (mw_out_text and its _dup, _width,
 * _pad): control bytes below 0x20 and 0x7f become \n, \r, \t or \xHH; every other byte
 * (backslash, UTF-8, C1 bytes inside UTF-8) is written unchanged, so plain names print as
 * they always did; the table (texttable.c) stores its cells escaped. And mw_out_json_string:
 * valid UTF-8 kept, quotes, backslashes and controls escaped, every byte that is not part of
 * a valid UTF-8 sequence (RFC 3629: overlong forms, surrogates, truncated) \ufffd. */
#include "../unit.h"

#include "texttable.h"
#include "textout.h"

/* what mw_out_text writes for s (kept until the next call) */
static char *written(const char *s)
{
    static char *buf;
    size_t len;
    free(buf);
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    mw_out_text(f, s);
    fclose(f);
    return buf;
}

static void plain_unchanged(void **state)
{
    const char *plain[] = {"node0", "ch1@host-2.lan", "a\\b", "Ω µ ±", "", "sleep 1 --x=\"y\""};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        assert_string_equal(written(plain[i]), plain[i]);
        char *d = mw_out_text_dup(plain[i]);
        assert_string_equal(d, plain[i]);
        free(d);
        assert_int_equal(mw_out_text_width(plain[i]), (int)strlen(plain[i]));
    }
}

static void controls_escaped(void **state)
{
    const char *in = "a\x1b[31mred\nx\ty\rz\x07\x01\x7f\x1f!";
    const char *want = "a\\x1b[31mred\\nx\\ty\\rz\\x07\\x01\\x7f\\x1f!";
    assert_string_equal(written(in), want);
    char *d = mw_out_text_dup(in);
    assert_string_equal(d, want);
    free(d);
    assert_int_equal(mw_out_text_width(in), (int)strlen(want));
    d = mw_out_text_dup(NULL);
    assert_string_equal(d, "");
    free(d);
}

static void json_strings(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"node0", "\"node0\""},
        {"\"a\\b\"\n\t\x01", "\"\\\"a\\\\b\\\"\\n\\t\\u0001\""},
        {"\xce\xa9 \xc2\xb5 \xf0\x9f\x98\x80", "\"\xce\xa9 \xc2\xb5 \xf0\x9f\x98\x80\""}, /* Ω µ 😀 */
        {"a\xff" "b", "\"a\\ufffd" "b\""},
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},           /* an overlong "/" */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""}, /* a surrogate */
        {"cut\xe2\x82", "\"cut\\ufffd\\ufffd\""},       /* truncated at the end */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        mw_out_json_string(f, cases[i].in);
        fclose(f);
        assert_string_equal(buf, cases[i].out);
        free(buf);
    }
}

static void pad(void **state)
{
    char buf[64];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    mw_out_text_pad(f, "a\x1b", 8);
    fputc('|', f);
    mw_out_text_pad(f, "longer than 3", 3);
    fputc('|', f);
    fclose(f);
    assert_string_equal(buf, "a\\x1b   |longer than 3|");
}

static void table_cells_escaped(void **state)
{
    mw_table t = {.ncols = 2, .align = "ll"};
    const char *row[] = {"n\x1b[2J", "ok"};
    mw_table_add(&t, row);
    const char *row2[] = {"plain", NULL};
    mw_table_add(&t, row2);
    char buf[128];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    mw_table_print(&t, f, "");
    fclose(f);
    mw_table_free(&t);
    assert_string_equal(buf, "n\\x1b[2J  ok\nplain     \n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_unchanged),
        cmocka_unit_test(controls_escaped),
        cmocka_unit_test(json_strings),
        cmocka_unit_test(pad),
        cmocka_unit_test(table_cells_escaped),
    };
    return cmocka_run_group_tests_name("textout", tests, NULL, NULL);
}
