/* The channels file with several meters (collector/channels.c, channels.h): meter 1 with 5
 * channels and meter 2 with 3, so meter 2's channel k is run-wide channel 5 + k. A line
 * "METER:CHANNEL" names that meter's channel, METER by name or by port as given (a port
 * holding ':' too: the last ':' splits); a line without METER: is meter 1's; a channel the
 * meter does not have is left alone as in the one-meter form; unnamed channels of meter 2
 * are m2.ch1...; a name may be used once in the whole run. A line naming a meter that is not
 * recorded is refused with the file, the line and the meters named, and so is a second line
 * naming a channel already named (by the meter's name, its port, or none for meter 1). A --channels list names
 * run-wide channels in order, 8 at most here. */
#include "../unit.h"

#include <stdlib.h>
#include <unistd.h>

#include "channels.h"

static char path[64];
static mw_channels ch; /* 16 KB: off the stack */
static const mw_channels_meter meters[] = {{"8503631383535160E1A1", "/dev/ttyACM0", 5},
                                           {"sim-2", "/tmp/a:b", 3}};

static int load_text(const char *text, char *err, size_t errlen)
{
    snprintf(path, sizeof path, "/tmp/mw-chm-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    setenv("MW_CHANNELS_FILE", path, 1);
    int rc = mw_channels_load_meters(&ch, meters, 2, NULL, err, errlen);
    unlink(path);
    return rc;
}

static void run_wide_numbers(void **s)
{
    char err[512] = "";
    int rc = load_text("1 node0 h0\n"
                       "sim-2:2 node6 h6   # meter 2's second: run-wide 7\n"
                       "/tmp/a:b:3 switch\n"
                       "8503631383535160E1A1:4 node3\n"
                       "sim-2:9 nothere\n",
                       err, sizeof err);
    if (rc) fail_msg("%s", err);
    assert_string_equal(ch.name[1], "node0");
    assert_string_equal(ch.host[1], "h0");
    assert_string_equal(ch.name[2], "ch2");
    assert_string_equal(ch.name[4], "node3");
    assert_string_equal(ch.name[5], "ch5");
    assert_string_equal(ch.name[6], "m2.ch1");
    assert_string_equal(ch.name[7], "node6");
    assert_string_equal(ch.host[7], "h6");
    assert_string_equal(ch.name[8], "switch");
    assert_string_equal(ch.name[9], ""); /* no run-wide channel 9 */
}

static void refused(const char *text, const char *want)
{
    char err[512] = "";
    assert_int_equal(load_text(text, err, sizeof err), -1);
    char full[700];
    snprintf(full, sizeof full, "%s:%s", path, want);
    if (!strstr(err, full)) fail_msg("got '%s', want '%s'", err, full);
}

static void missing_meter_and_names_taken(void **s)
{
    refused("1 a\nsim-3:1 b\n", "2: meter 'sim-3' is not recorded (the meters: "
                                "8503631383535160E1A1, sim-2)");
    refused(":1 b\n", "1: meter '' is not recorded");
    refused("sim-2: b\n", "1: expected 'CHANNEL NAME [HOST]'");
    refused("1 a\nsim-2:1 a\n", "2: 'a' is already channel 1");
    refused("sim-2:16 a\n", "1: expected 'CHANNEL NAME [HOST]'");
    /* a channel named twice: the second line would silently win and drop the first's host */
    refused("1 a h1\n2 b\n1 c\n", "3: channel 1 is already named at line 1");
    refused("sim-2:2 a\n/tmp/a:b:2 b\n", "2: channel /tmp/a:b:2 is already named at line 1");
    refused("1 a\n8503631383535160E1A1:1 b\n",
            "2: channel 8503631383535160E1A1:1 is already named at line 1");
}

static void list_across_meters(void **s)
{
    char err[512] = "";
    assert_int_equal(mw_channels_load_meters(&ch, meters, 2, "a,b,c,d,e,f@hf,g,h", err, sizeof err),
                     0);
    assert_string_equal(ch.name[6], "f");
    assert_string_equal(ch.host[6], "hf");
    assert_string_equal(ch.name[8], "h");
    assert_int_equal(
        mw_channels_load_meters(&ch, meters, 2, "a,b,c,d,e,f,g,h,i", err, sizeof err), -1);
    assert_non_null(strstr(err, "9 names for 8 current channels"));
    assert_int_equal(mw_channels_load_meters(&ch, meters, 0, NULL, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_wide_numbers),
        cmocka_unit_test(missing_meter_and_names_taken),
        cmocka_unit_test(list_across_meters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
