/* flash_id — recognise the meter's identification line, as "mw flash" checks it after
 * writing the firmware: "I,megawatt,<version>,<build-id>,...*XXXX" where XXXX is the
 * CRC-16/CCITT-FALSE (crc16.h) of the bytes before '*' in upper-case hex. */
#ifndef MW_FLASH_ID_H
#define MW_FLASH_ID_H
#include <stddef.h>

typedef struct {
    char version[32];
    char build[64];
    char line[256]; /* the line from "I," up to the CRC, without CR LF */
} mw_flash_id;

/* Look for an identification line in one received line (CR LF already removed or not;
 * bytes before "I,megawatt," are ignored, as a reset can leave noise there).
 * Returns 1 and fills id when the line holds one with a valid CRC, 0 when it holds none,
 * -1 when it holds one whose CRC or layout is wrong. */
int mw_flash_parse_id(const char *line, size_t len, mw_flash_id *id);
#endif
