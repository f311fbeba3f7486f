/* command — see command.h. Numbers are parsed by hand (strtol/strtod are big on the AVR and
 * accept more syntax than we want): integers are plain decimal, gains and phases are
 * decimal with an optional sign, fraction and exponent. */
#include "command.h"

#include <string.h>

static const char *skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Next space-separated token; returns its length (0 at end of line). */
static uint8_t token(const char **p, const char **start)
{
    *p = skip_spaces(*p);
    *start = *p;
    uint8_t n = 0;
    while (**p && **p != ' ' && **p != '\t') {
        (*p)++;
        n++;
    }
    return n;
}

static int parse_uint(const char *s, uint8_t len, uint32_t max, uint32_t *out)
{
    if (!len || len > 9) return 0;
    uint32_t v = 0;
    for (uint8_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10u + (uint32_t)(s[i] - '0');
    }
    if (v > max) return 0;
    *out = v;
    return 1;
}

static int parse_float(const char *s, uint8_t len, float *out)
{
    uint8_t i = 0, digits = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    float v = 0, scale = 1;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        v = v * 10.0f + (float)(s[i++] - '0');
        digits++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            scale /= 10.0f;
            v += (float)(s[i++] - '0') * scale;
            digits++;
        }
    }
    if (!digits) return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        uint8_t ed = 0;
        uint16_t e = 0; /* stops growing past 30 (any more is refused): never wraps */
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (e <= 30) e = (uint16_t)(e * 10 + (s[i] - '0'));
            i++;
            ed++;
        }
        if (!ed || e > 30) return 0;
        while (e--)
            v = eneg ? v / 10.0f : v * 10.0f;
    }
    if (i != len) return 0;
    *out = neg ? -v : v;
    return 1;
}

static int word_is(const char *s, uint8_t len, const char *w)
{
    return strlen(w) == len && !memcmp(s, w, len);
}

mw_cmd_err mw_cmd_parse(const char *line, mw_cmd *cmd)
{
    memset(cmd, 0, sizeof *cmd);
    if (strlen(line) > MW_CMD_MAX_LEN) return MW_ERR_LONG;
    const char *p = line, *t;
    uint8_t n = token(&p, &t);
    uint32_t v;
    const char *a;
    uint8_t al;

    struct {
        const char *w;
        mw_cmd_kind k;
    } simple[] = {{"ID", MW_CMD_ID},       {"SAVE", MW_CMD_SAVE},
                  {"LOAD", MW_CMD_LOAD},   {"DEFAULTS", MW_CMD_DEFAULTS},
                  {"RESET", MW_CMD_RESET}, {"START", MW_CMD_START},
                  {"STOP", MW_CMD_STOP},   {"HANG", MW_CMD_HANG}};
    for (uint8_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (word_is(t, n, simple[i].w)) {
            cmd->kind = simple[i].k;
            return token(&p, &a) ? MW_ERR_ARG : MW_ERR_NONE;
        }
    }
    if (word_is(t, n, "RATE")) {
        cmd->kind = MW_CMD_RATE;
        al = token(&p, &a);
        if (!parse_uint(a, al, 255, &v)) return MW_ERR_ARG;
        static const uint8_t ok[] = {1, 2, 4, 5, 8, 10};
        if (!memchr(ok, (int)v, sizeof ok)) return MW_ERR_ARG;
        cmd->n = (uint8_t)v;
        return token(&p, &a) ? MW_ERR_ARG : MW_ERR_NONE;
    }
    if (word_is(t, n, "CH")) {
        cmd->kind = MW_CMD_CH;
        uint16_t seen = 0;
        while ((al = token(&p, &a)) != 0) {
            if (cmd->n >= MW_MAX_CHANNELS || !parse_uint(a, al, 15, &v) || (seen & (1u << v)))
                return MW_ERR_ARG;
            seen |= (uint16_t)(1u << v);
            cmd->pins[cmd->n++] = (uint8_t)v;
        }
        return cmd->n >= 2 ? MW_ERR_NONE : MW_ERR_ARG;
    }
    if (word_is(t, n, "CAL?") || word_is(t, n, "CAL")) {
        int set = n == 3;
        cmd->kind = set ? MW_CMD_CAL_SET : MW_CMD_CAL_GET;
        al = token(&p, &a);
        if (!parse_uint(a, al, MW_MAX_CHANNELS - 1, &v)) return MW_ERR_ARG;
        cmd->n = (uint8_t)v;
        if (set) {
            al = token(&p, &a);
            if (!parse_float(a, al, &cmd->gain) || !(cmd->gain > 0 && cmd->gain < 1000.0f))
                return MW_ERR_ARG;
            al = token(&p, &a);
            if (!parse_float(a, al, &cmd->phase_deg) ||
                !(cmd->phase_deg > -90 && cmd->phase_deg < 90))
                return MW_ERR_ARG;
        }
        return token(&p, &a) ? MW_ERR_ARG : MW_ERR_NONE;
    }
    if (word_is(t, n, "CALDATE")) {
        cmd->kind = MW_CMD_CALDATE;
        al = token(&p, &a);
        if (al != 8 || !parse_uint(a, al, 99999999ul, &v) || !mw_calrec_date_valid(v))
            return MW_ERR_ARG;
        cmd->date_yyyymmdd = v;
        al = token(&p, &a);
        if (al > MW_CALREC_TEXT_MAX) return MW_ERR_ARG;
        for (uint8_t i = 0; i < al; i++) {
            if (!mw_calrec_char_valid(a[i])) return MW_ERR_ARG;
            cmd->text[i] = a[i];
        }
        return token(&p, &a) ? MW_ERR_ARG : MW_ERR_NONE;
    }
    if (word_is(t, n, "STARVE")) {
        cmd->kind = MW_CMD_STARVE;
        al = token(&p, &a);
        if (!parse_uint(a, al, 60000, &v)) return MW_ERR_ARG;
        cmd->us = (uint16_t)v;
        return token(&p, &a) ? MW_ERR_ARG : MW_ERR_NONE;
    }
    return MW_ERR_UNKNOWN;
}

void mw_cmd_reader_init(mw_cmd_reader *r)
{
    r->len = 0;
    r->overflow = 0;
}

int8_t mw_cmd_reader_push(mw_cmd_reader *r, char c)
{
    if (c == '\r' || c == '\n') {
        int8_t res = 0;
        if (r->overflow)
            res = -1;
        else if (r->len)
            res = 1;
        r->buf[r->len] = 0;
        r->len = 0;
        r->overflow = 0;
        return res;
    }
    if (r->overflow) return 0;
    if (r->len >= MW_CMD_MAX_LEN) {
        r->overflow = 1;
        return 0;
    }
    r->buf[r->len++] = c;
    return 0;
}
