/* fuzz_command — the firmware's command parser (firmware/portable/command.c) and its EEPROM
 * image readers (firmware/portable/config.c), the portable C that runs on the ATmega2560,
 * compiled for the host.
 *
 * The input is what the host sends: it goes byte by byte through mw_cmd_reader, and each
 * line to mw_cmd_parse. Invariants of an accepted command: the reader's line fits
 * MW_CMD_MAX_LEN; RATE is one of 1 2 4 5 8 10; CH names 2..16 distinct pins 0..15; CAL's
 * channel is 0..15, its gain in (0, 1000) and phase in (-90, 90), and each equals what
 * strtod reads from the same token within 1e-4 relative (the firmware's own float reader
 * against the C library's); CALDATE's date is valid and its text of allowed characters;
 * STARVE's time at most 60000 us; no argument is left over.
 *
 * The input's first 179 bytes are also an EEPROM: a configuration image (151 bytes) and a
 * calibration record (28 bytes); when the first byte is odd the magic and CRCs are made
 * right first, so the value checks behind them are reached. An accepted image is valid and
 * is written back byte for byte by mw_config_to_image; an accepted record has a valid date
 * and text and survives mw_calrec_to_image / mw_calrec_from_image unchanged. */
#include <math.h>

#include "command.h"
#include "config.h"
#include "crc16.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_quiet();
    return 0;
}

/* The index-th space-separated token of line (0 = the command word), as a string. */
static void token_at(const char *line, int index, char *out, size_t outlen)
{
    const char *p = line;
    for (int k = 0;; k++) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, " \t");
        if (k == index) {
            snprintf(out, outlen, "%.*s", (int)n, p);
            return;
        }
        p += n;
    }
}

static void same_as_strtod(const char *line, int index, float v)
{
    char tok[MW_CMD_MAX_LEN + 1];
    token_at(line, index, tok, sizeof tok);
    double want = strtod(tok, NULL);
    FUZZ_CHECK(fabs((double)v - want) <= 1e-4 * fabs(want));
}

static void check_command(const char *line)
{
    FUZZ_CHECK(strlen(line) <= MW_CMD_MAX_LEN);
    mw_cmd c;
    if (mw_cmd_parse(line, &c) != MW_ERR_NONE) return;
    switch (c.kind) {
    case MW_CMD_RATE:
        FUZZ_CHECK(c.n == 1 || c.n == 2 || c.n == 4 || c.n == 5 || c.n == 8 || c.n == 10);
        break;
    case MW_CMD_CH: {
        FUZZ_CHECK(c.n >= 2 && c.n <= MW_MAX_CHANNELS);
        unsigned seen = 0;
        for (int i = 0; i < c.n; i++) {
            FUZZ_CHECK(c.pins[i] <= 15 && !(seen & (1u << c.pins[i])));
            seen |= 1u << c.pins[i];
        }
        break;
    }
    case MW_CMD_CAL_SET:
        FUZZ_CHECK(c.gain > 0 && c.gain < 1000.0f && c.phase_deg > -90 && c.phase_deg < 90);
        same_as_strtod(line, 2, c.gain);
        same_as_strtod(line, 3, c.phase_deg);
        /* fall through */
    case MW_CMD_CAL_GET:
        FUZZ_CHECK(c.n < MW_MAX_CHANNELS);
        break;
    case MW_CMD_CALDATE:
        FUZZ_CHECK(mw_calrec_date_valid(c.date_yyyymmdd));
        FUZZ_CHECK(memchr(c.text, 0, sizeof c.text) != NULL);
        for (const char *t = c.text; *t; t++)
            FUZZ_CHECK(mw_calrec_char_valid(*t));
        break;
    case MW_CMD_STARVE:
        FUZZ_CHECK(c.us <= 60000);
        break;
    default:
        FUZZ_CHECK(c.kind >= MW_CMD_ID && c.kind <= MW_CMD_CALDATE);
    }
}

static void check_eeprom(const uint8_t *data, size_t size)
{
    uint8_t img[MW_CONFIG_IMAGE_SIZE + MW_CALREC_SIZE];
    memset(img, 0xFF, sizeof img);
    memcpy(img, data, size < sizeof img ? size : sizeof img);
    uint8_t *cfg = img, *rec = img + MW_CONFIG_IMAGE_SIZE;
    if (size && (data[0] & 1)) {
        cfg[0] = 'M';
        cfg[1] = 'W';
        cfg[2] = MW_CONFIG_VERSION;
        uint16_t crc = mw_crc16(cfg, MW_CONFIG_IMAGE_SIZE - 2);
        cfg[MW_CONFIG_IMAGE_SIZE - 2] = (uint8_t)(crc & 0xFF);
        cfg[MW_CONFIG_IMAGE_SIZE - 1] = (uint8_t)(crc >> 8);
        rec[0] = 'M';
        rec[1] = 'C';
        rec[2] = 1;
        rec[24] = cfg[MW_CONFIG_IMAGE_SIZE - 2];
        rec[25] = cfg[MW_CONFIG_IMAGE_SIZE - 1];
        crc = mw_crc16(rec, MW_CALREC_SIZE - 2);
        rec[26] = (uint8_t)(crc & 0xFF);
        rec[27] = (uint8_t)(crc >> 8);
    }
    mw_config c;
    if (mw_config_from_image(&c, cfg) == MW_CONFIG_OK) {
        FUZZ_CHECK(mw_config_valid(&c));
        uint8_t back[MW_CONFIG_IMAGE_SIZE];
        mw_config_to_image(&c, back);
        FUZZ_CHECK(memcmp(back, cfg, sizeof back) == 0);
    } else {
        mw_config d;
        mw_config_defaults(&d);
        FUZZ_CHECK(memcmp(&c, &d, sizeof c) == 0); /* anything but OK leaves the defaults */
    }
    mw_calrec r;
    uint16_t link = mw_config_image_crc(cfg);
    if (mw_calrec_from_image(&r, link, rec)) {
        FUZZ_CHECK(mw_calrec_date_valid(r.date_yyyymmdd));
        FUZZ_CHECK(memchr(r.text, 0, sizeof r.text) != NULL);
        for (const char *t = r.text; *t; t++)
            FUZZ_CHECK(mw_calrec_char_valid(*t));
        uint8_t back[MW_CALREC_SIZE];
        mw_calrec_to_image(&r, link, back);
        mw_calrec r2;
        FUZZ_CHECK(mw_calrec_from_image(&r2, link, back) == 1);
        FUZZ_CHECK(r2.date_yyyymmdd == r.date_yyyymmdd && !strcmp(r2.text, r.text));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mw_cmd_reader r;
    mw_cmd_reader_init(&r);
    for (size_t i = 0; i < size; i++) {
        int8_t got = mw_cmd_reader_push(&r, (char)data[i]);
        FUZZ_CHECK(r.len <= MW_CMD_MAX_LEN);
        FUZZ_CHECK(got >= -1 && got <= 1);
        if (got == 1) {
            FUZZ_CHECK(memchr(r.buf, 0, sizeof r.buf) != NULL);
            check_command(r.buf);
        }
    }
    /* the whole input as one line too (what a line of the reader can never be: longer, or
     * holding CR/LF), so the parser's own length check is reached */
    char *s = fuzz_cstr(data, size);
    mw_cmd c;
    mw_cmd_err e = mw_cmd_parse(s, &c);
    FUZZ_CHECK(strlen(s) <= MW_CMD_MAX_LEN || e == MW_ERR_LONG);
    if (strlen(s) <= MW_CMD_MAX_LEN && !strpbrk(s, "\r\n")) check_command(s);
    free(s);
    check_eeprom(data, size);
    return 0;
}
