/* mw_proto — decoding the meter's wire protocol (docs/protocol.md) on the host.
 *
 * Every meter line is  BODY '*' XXXX CR LF  with XXXX the CRC-16/CCITT-FALSE of BODY in
 * upper-case hex. BODY starts with a type: W (window), I (identify), B (boot), C
 * (calibration), OK, E (error). mw_proto_reader splits a byte stream into CRC-checked
 * lines, throwing away garbage and over-long lines (counted), so it resynchronises at the
 * next line end whatever arrives. Units are in the field names. */
#ifndef MW_PROTO_H
#define MW_PROTO_H
#include <stddef.h>
#include <stdint.h>

#define MW_PROTO_MAX_LINE 1024
#define MW_PROTO_MAX_I 15

/* window flags MW_FLAG_*: one definition, shared with the firmware */
#include "frame.h"

typedef struct {
    uint32_t seq;
    uint64_t t0_us, t1_us; /* meter time (crystal), us since sampling started */
    uint32_t flags, nsets, missed, clip;
    int32_t freq_mhz, vrms_mv;
    int nchan; /* current channels */
    struct {
        int32_t p_mw;     /* real power, mW (negative = export) */
        int32_t irms_ua;  /* rms current, uA */
        int32_t pf_milli; /* power factor x 1000 */
        int64_t e_mj;     /* energy since boot or RESET, mJ */
    } ch[MW_PROTO_MAX_I];
} mw_proto_window;

typedef struct {
    char line[MW_PROTO_MAX_LINE + 1];
    size_t len;
    int overflow;
    uint64_t bad_crc, dropped_bytes, overlong;
} mw_proto_reader;

void mw_proto_reader_init(mw_proto_reader *r);
/* Push one byte. Returns 1 when r->line holds a complete line whose CRC matched (the body
 * only: no '*', CRC or CR LF); 0 otherwise. */
int mw_proto_reader_push(mw_proto_reader *r, uint8_t byte);

/* Check "BODY*XXXX" (without CR LF): returns the body length, or -1. */
int mw_proto_check_crc(const char *line, size_t len);

/* Parse a window body ("W,..."). Returns 0, or -1 if any field is malformed. */
int mw_proto_parse_window(const char *body, mw_proto_window *w);

/* The nominal period of a window (1e6 / rate, us): the one of the six rates nearest to its
 * length (a window is k x period rounded to whole sample sets). */
uint32_t mw_proto_period_us(const mw_proto_window *w);
/* The firmware's line hold for this window (MW_LINE_HOLD_US): its line's first byte left
 * the meter this long after t1_us, ns. */
int64_t mw_proto_hold_ns(const mw_proto_window *w);

/* The identification line ("I,megawatt,..."). */
typedef struct {
    char fw_version[32];
    char build_id[64];
    char mcu[32];
    int rate_hz;
    int window_ms;
    int n_current;
    int pin[MW_PROTO_MAX_I + 1]; /* ADC pin of channel k (0 = voltage): 0..15 for A0..A15 */
    char cal_source[16];         /* "EEPROM" or "DEFAULT" */
    /* The calibration record (CALDATE), from the field after cal_source: "-" (none),
     * "yyyymmdd" or "yyyymmdd:TEXT". Identification lines of firmware without records end at
     * cal_source: both forms are accepted, and give cal_date 0 and "" here. */
    int cal_date_yyyymmdd; /* 0 when none */
    char cal_ref[17];      /* the references used (up to 16 characters), "" when none */
} mw_proto_ident;
/* Returns 0, or -1 if the body is not a well-formed identification. */
int mw_proto_parse_ident(const char *body, mw_proto_ident *id);

/* The boot line ("B,<mcusr_hex>,<config_status>"). */
int mw_proto_parse_boot(const char *body, uint32_t *mcusr, int *config_status);

/* A calibration line ("C,<ch>,<gain>,<phase_deg>"). */
int mw_proto_parse_cal(const char *body, int *channel, double *gain, double *phase_deg);

#endif
