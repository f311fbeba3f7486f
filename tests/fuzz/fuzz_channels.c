/* fuzz_channels — the channel names (collector/channels.c): the config file
 * ($MW_CHANNELS_FILE) and the --channels list.
 *
 * The input's first byte picks the meter's number of current channels (1..15, and 0 and
 * 16..20 to try the clamp) and, by its top bit, whether the rest is a --channels list or
 * the config file's text. Invariants when mw_channels_load accepts: every channel 1..n has
 * a name of 1..31 characters of [A-Za-z0-9_.-], no two channels share one, hosts are
 * terminated, and the source is named; when it refuses: a message in err. */
#include "channels.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int n = data[0] % 21;
    int list = data[0] & 0x80;
    static mw_channels ch; /* 8 KB: off the stack */
    char err[8192] = "";
    int rc;
    if (list) {
        char *s = fuzz_cstr(data + 1, size - 1);
        rc = mw_channels_load(&ch, n, s, err, sizeof err);
        free(s);
    } else {
        setenv("MW_CHANNELS_FILE", fuzz_file(data + 1, size - 1), 1);
        rc = mw_channels_load(&ch, n, NULL, err, sizeof err);
    }
    if (rc != 0) {
        FUZZ_CHECK(rc == -1 && err[0]);
        return 0;
    }
    FUZZ_CHECK(ch.source[0] && memchr(ch.source, 0, sizeof ch.source));
    int m = n > MW_CHANNELS_MAX ? MW_CHANNELS_MAX : n;
    for (int k = 1; k <= m; k++) {
        size_t len = strnlen(ch.name[k], sizeof ch.name[k]);
        FUZZ_CHECK(len >= 1 && len <= 31);
        FUZZ_CHECK(strspn(ch.name[k], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_.-") == len);
        FUZZ_CHECK(memchr(ch.host[k], 0, sizeof ch.host[k]) != NULL);
        for (int j = 1; j < k; j++)
            FUZZ_CHECK(strcmp(ch.name[j], ch.name[k]) != 0);
    }
    return 0;
}
