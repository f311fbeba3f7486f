/* config — see config.h. Floats are copied bytewise: both the AVR and x86-64 store IEEE
 * binary32 little-endian. */
#include "config.h"

#include <string.h>

#include "crc16.h"
#include "schedule.h"

void mw_config_defaults(mw_config *c)
{
    memset(c, 0, sizeof *c);
    c->rate_hz = 4;
    c->nchan_i = 5;
    for (uint8_t i = 0; i < MW_MAX_CHANNELS; i++) {
        c->pins[i] = i;
        c->cal[i].gain = (float)(i == 0 ? MW_AFE_V_PER_COUNT : MW_AFE_A_PER_COUNT);
        c->cal[i].phase_deg = 0;
    }
}

int mw_config_valid(const mw_config *c)
{
    if (!mw_rate_valid(c->rate_hz) || c->nchan_i < 1 || c->nchan_i > MW_MAX_I) return 0;
    uint16_t seen = 0;
    for (uint8_t i = 0; i <= c->nchan_i; i++) {
        if (c->pins[i] > 15 || (seen & (1u << c->pins[i]))) return 0;
        seen |= (uint16_t)(1u << c->pins[i]);
    }
    for (uint8_t i = 0; i < MW_MAX_CHANNELS; i++) {
        float g = c->cal[i].gain, p = c->cal[i].phase_deg;
        if (!(g > 0 && g < 1000.0f) || !(p > -90 && p < 90)) return 0;
    }
    return 1;
}

void mw_config_to_image(const mw_config *c, uint8_t img[MW_CONFIG_IMAGE_SIZE])
{
    img[0] = 'M';
    img[1] = 'W';
    img[2] = MW_CONFIG_VERSION;
    img[3] = c->rate_hz;
    img[4] = c->nchan_i;
    memcpy(img + 5, c->pins, MW_MAX_CHANNELS);
    for (uint8_t i = 0; i < MW_MAX_CHANNELS; i++) {
        memcpy(img + 21 + 8 * i, &c->cal[i].gain, 4);
        memcpy(img + 25 + 8 * i, &c->cal[i].phase_deg, 4);
    }
    uint16_t crc = mw_crc16(img, MW_CONFIG_IMAGE_SIZE - 2);
    img[MW_CONFIG_IMAGE_SIZE - 2] = (uint8_t)(crc & 0xFF);
    img[MW_CONFIG_IMAGE_SIZE - 1] = (uint8_t)(crc >> 8);
}

mw_config_status mw_config_from_image(mw_config *c, const uint8_t img[MW_CONFIG_IMAGE_SIZE])
{
    mw_config_defaults(c);
    uint8_t blank = 1;
    for (uint16_t i = 0; i < MW_CONFIG_IMAGE_SIZE; i++)
        if (img[i] != 0xFF) blank = 0;
    if (blank) return MW_CONFIG_BLANK;
    uint16_t crc = mw_crc16(img, MW_CONFIG_IMAGE_SIZE - 2);
    uint16_t stored =
        (uint16_t)(img[MW_CONFIG_IMAGE_SIZE - 2] | (img[MW_CONFIG_IMAGE_SIZE - 1] << 8));
    if (img[0] != 'M' || img[1] != 'W' || crc != stored) return MW_CONFIG_CORRUPT;
    if (img[2] != MW_CONFIG_VERSION) return MW_CONFIG_VERSION_UNKNOWN;
    mw_config t;
    t.rate_hz = img[3];
    t.nchan_i = img[4];
    memcpy(t.pins, img + 5, MW_MAX_CHANNELS);
    for (uint8_t i = 0; i < MW_MAX_CHANNELS; i++) {
        memcpy(&t.cal[i].gain, img + 21 + 8 * i, 4);
        memcpy(&t.cal[i].phase_deg, img + 25 + 8 * i, 4);
    }
    if (!mw_config_valid(&t)) return MW_CONFIG_INVALID;
    *c = t;
    return MW_CONFIG_OK;
}

uint16_t mw_config_image_crc(const uint8_t img[MW_CONFIG_IMAGE_SIZE])
{
    return (uint16_t)(img[MW_CONFIG_IMAGE_SIZE - 2] | (img[MW_CONFIG_IMAGE_SIZE - 1] << 8));
}

int mw_calrec_date_valid(uint32_t d)
{
    uint32_t y = d / 10000u, m = d / 100u % 100u, day = d % 100u;
    return y >= 2000u && y <= 2999u && m >= 1u && m <= 12u && day >= 1u && day <= 31u;
}

int mw_calrec_char_valid(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (c && strchr("._-+/:=@", c) != NULL);
}

void mw_calrec_to_image(const mw_calrec *r, uint16_t link, uint8_t img[MW_CALREC_SIZE])
{
    memset(img, 0xFF, MW_CALREC_SIZE);
    if (!r->date_yyyymmdd) return;
    img[0] = 'M';
    img[1] = 'C';
    img[2] = 1;
    img[3] = 0;
    memcpy(img + 4, &r->date_yyyymmdd, 4);
    memset(img + 8, 0, MW_CALREC_TEXT_MAX);
    for (uint8_t i = 0; i < MW_CALREC_TEXT_MAX && r->text[i]; i++)
        img[8 + i] = (uint8_t)r->text[i];
    img[24] = (uint8_t)(link & 0xFF);
    img[25] = (uint8_t)(link >> 8);
    uint16_t crc = mw_crc16(img, MW_CALREC_SIZE - 2);
    img[26] = (uint8_t)(crc & 0xFF);
    img[27] = (uint8_t)(crc >> 8);
}

uint8_t mw_calrec_from_image(mw_calrec *r, uint16_t link, const uint8_t img[MW_CALREC_SIZE])
{
    memset(r, 0, sizeof *r);
    uint16_t crc = mw_crc16(img, MW_CALREC_SIZE - 2);
    if (img[0] != 'M' || img[1] != 'C' || img[2] != 1 ||
        crc != (uint16_t)(img[26] | (img[27] << 8)) || link != (uint16_t)(img[24] | (img[25] << 8)))
        return 0;
    mw_calrec t;
    memset(&t, 0, sizeof t);
    memcpy(&t.date_yyyymmdd, img + 4, 4);
    if (!mw_calrec_date_valid(t.date_yyyymmdd)) return 0;
    for (uint8_t i = 0; i < MW_CALREC_TEXT_MAX && img[8 + i]; i++) {
        if (!mw_calrec_char_valid((char)img[8 + i])) return 0;
        t.text[i] = (char)img[8 + i];
    }
    *r = t;
    return 1;
}
