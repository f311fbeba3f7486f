/* Command parser (firmware/portable/command.c): every command, every rejection. */
#include "../unit.h"

#include "command.h"

static mw_cmd_err parse(const char *s, mw_cmd *c)
{
    return mw_cmd_parse(s, c);
}

static void valid_commands(void **s)
{
    mw_cmd c;
    assert_int_equal(parse("ID", &c), MW_ERR_NONE);
    assert_int_equal(c.kind, MW_CMD_ID);
    assert_int_equal(parse("  RATE 10 ", &c), MW_ERR_NONE);
    assert_int_equal(c.kind, MW_CMD_RATE);
    assert_int_equal(c.n, 10);
    assert_int_equal(parse("CH 0 8 15", &c), MW_ERR_NONE);
    assert_int_equal(c.n, 3);
    assert_int_equal(c.pins[1], 8);
    assert_int_equal(parse("CAL 3 0.048828 -2.5", &c), MW_ERR_NONE);
    assert_int_equal(c.kind, MW_CMD_CAL_SET);
    assert_int_equal(c.n, 3);
    assert_true(fabsf(c.gain - 0.048828f) < 1e-7f && fabsf(c.phase_deg + 2.5f) < 1e-6f);
    assert_int_equal(parse("CAL 0 9.3587e-1 0", &c), MW_ERR_NONE);
    assert_true(fabsf(c.gain - 0.93587f) < 1e-6f);
    assert_int_equal(parse("CAL? 15", &c), MW_ERR_NONE);
    assert_int_equal(c.kind, MW_CMD_CAL_GET);
    const char *simple[] = {"SAVE", "LOAD", "DEFAULTS", "RESET", "START", "STOP", "HANG"};
    for (int i = 0; i < 7; i++)
        assert_int_equal(parse(simple[i], &c), MW_ERR_NONE);
    assert_int_equal(parse("STARVE 500", &c), MW_ERR_NONE);
    assert_int_equal(c.us, 500);
    assert_int_equal(parse("CALDATE 20250314 V230/1:1000W", &c), MW_ERR_NONE);
    assert_int_equal(c.kind, MW_CMD_CALDATE);
    assert_int_equal(c.date_yyyymmdd, 20250314);
    assert_string_equal(c.text, "V230/1:1000W");
    assert_int_equal(parse("CALDATE 29991231", &c), MW_ERR_NONE);
    assert_int_equal(c.date_yyyymmdd, 29991231);
    assert_string_equal(c.text, "");
    assert_int_equal(parse("CALDATE 20000101 abcdefghijklmnop", &c), MW_ERR_NONE);
    assert_string_equal(c.text, "abcdefghijklmnop");
}

static void rejected_commands(void **s)
{
    mw_cmd c;
    const char *unknown[] = {"", "id", "IDX", "RATES 4", "\x01\xff"};
    for (int i = 0; i < 5; i++)
        assert_int_equal(parse(unknown[i], &c), MW_ERR_UNKNOWN);
    const char *bad[] = {"RATE",
                         "RATE 3",
                         "RATE 0",
                         "RATE 4 4",
                         "RATE -4",
                         "RATE 4x",
                         "CH",
                         "CH 0",
                         "CH 0 0",
                         "CH 0 16",
                         "CH 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0",
                         "CAL 1",
                         "CAL 1 0 0",
                         "CAL 1 -1 0",
                         "CAL 1 1000 0",
                         "CAL 1 1 90",
                         "CAL 1 1 -90",
                         "CAL 16 1 0",
                         "CAL 1 1e 0",
                         "CAL 1 . 0",
                         "CAL 1 1 0 0",
                         "CAL? ",
                         "CAL? 1 2",
                         "SAVE now",
                         "STARVE 70000",
                         "CALDATE",
                         "CALDATE 2025031",
                         "CALDATE 020250314",
                         "CALDATE 20251301",
                         "CALDATE 20250132",
                         "CALDATE 19991231",
                         "CALDATE 2025O314",
                         "CALDATE 20250314 abcdefghijklmnopq",
                         "CALDATE 20250314 a,b",
                         "CALDATE 20250314 a*b",
                         "CALDATE 20250314 a;b",
                         "CALDATE 20250314 a b",
                         "ID 1"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (parse(bad[i], &c) != MW_ERR_ARG)
            fail_msg("'%s' was not rejected as a bad argument", bad[i]);
    char big[MW_CMD_MAX_LEN + 2];
    memset(big, 'A', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(parse(big, &c), MW_ERR_LONG);
}

static void reader_splits_and_rejects_overlong(void **s)
{
    mw_cmd_reader r;
    mw_cmd_reader_init(&r);
    const char *in = "ID\r\n\nRATE 4\n";
    int lines = 0;
    for (const char *p = in; *p; p++)
        if (mw_cmd_reader_push(&r, *p) == 1) {
            lines++;
            assert_string_equal(r.buf, lines == 1 ? "ID" : "RATE 4");
        }
    assert_int_equal(lines, 2);
    int8_t res = 0;
    for (int i = 0; i < 500; i++)
        assert_int_equal(mw_cmd_reader_push(&r, 'X'), 0);
    res = mw_cmd_reader_push(&r, '\n');
    assert_int_equal(res, -1);
    assert_int_equal(r.len, 0);
    for (const char *p = "ID\n"; *p; p++)
        res = mw_cmd_reader_push(&r, *p);
    assert_int_equal(res, 1);
    assert_string_equal(r.buf, "ID");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(valid_commands),
                                       cmocka_unit_test(rejected_commands),
                                       cmocka_unit_test(reader_splits_and_rejects_overlong)};
    return cmocka_run_group_tests_name("command", tests, NULL, NULL);
}
