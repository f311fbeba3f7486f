/* command — parses one command line from the host (docs/protocol.md). Portable and
 * side-effect free: the firmware executes what this returns. A line is at most
 * MW_CMD_MAX_LEN characters before CR/LF; longer lines are rejected whole.
 *
 *   ID                     identify
 *   RATE hz                set reporting rate (1 2 4 5 8 10)
 *   CH vpin ipin...        channel map: voltage pin then 1..15 current pins (0..15)
 *   CAL? ch                read calibration of channel ch (0 = voltage)
 *   CAL ch gain phase      set it (0 < gain < 1000 in V or A per count, |phase| < 90 degrees)
 *   CALDATE yyyymmdd [text] the calibration record: date and references (<= 16 of A-Z a-z 0-9
 *                          . _ - + / : = @), saved by SAVE, reported in the I line
 *   SAVE | LOAD | DEFAULTS EEPROM save, reload, restore defaults (in RAM)
 *   RESET                  zero the energy counters
 *   START | STOP           streaming of window frames on/off
 *   STARVE us              test builds only: block interrupts for at least us microseconds
 *   HANG                   test builds only: stop feeding the watchdog */
#ifndef MW_COMMAND_H
#define MW_COMMAND_H
#include <stdint.h>

#include "afe.h"
#include "config.h"

#define MW_CMD_MAX_LEN 80

typedef enum {
    MW_CMD_ID = 1,
    MW_CMD_RATE,
    MW_CMD_CH,
    MW_CMD_CAL_GET,
    MW_CMD_CAL_SET,
    MW_CMD_SAVE,
    MW_CMD_LOAD,
    MW_CMD_DEFAULTS,
    MW_CMD_RESET,
    MW_CMD_START,
    MW_CMD_STOP,
    MW_CMD_STARVE,
    MW_CMD_HANG,
    MW_CMD_CALDATE,
} mw_cmd_kind;

typedef enum {
    MW_ERR_NONE = 0,
    MW_ERR_UNKNOWN = 1, /* no such command */
    MW_ERR_ARG = 2,     /* missing, extra or out-of-range argument */
    MW_ERR_LONG = 3,    /* line longer than MW_CMD_MAX_LEN */
    MW_ERR_EEPROM = 4,  /* EEPROM image missing or corrupt (LOAD) */
    MW_ERR_STATE = 5,   /* not possible now */
} mw_cmd_err;

typedef struct {
    mw_cmd_kind kind;
    uint8_t n;                     /* RATE: hz; CH: number of pins; CAL*: channel */
    uint8_t pins[MW_MAX_CHANNELS]; /* CH */
    float gain, phase_deg;         /* CAL */
    uint16_t us;                   /* STARVE */
    uint32_t date_yyyymmdd;        /* CALDATE */
    char text[MW_CALREC_TEXT_MAX + 1];
} mw_cmd;

/* Parse a NUL-terminated line without its CR/LF. Returns MW_ERR_NONE and fills *cmd, or
 * an error code. Never reads past the terminator. */
mw_cmd_err mw_cmd_parse(const char *line, mw_cmd *cmd);

/* Accumulates received bytes into lines. Returns 1 when a complete line is in buf (then
 * call again for further bytes), -1 when an overlong line ended (rejected whole), 0
 * otherwise. CR, LF or CRLF end a line; empty lines are ignored. */
typedef struct {
    char buf[MW_CMD_MAX_LEN + 1];
    uint8_t len;
    uint8_t overflow;
} mw_cmd_reader;

void mw_cmd_reader_init(mw_cmd_reader *r);
int8_t mw_cmd_reader_push(mw_cmd_reader *r, char c);

#endif
