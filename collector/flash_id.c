/* flash_id — see flash_id.h. A strict reading: four upper-case hex digits after the last
 * '*', at least the four fields up to the build id, nothing after the CRC but CR/LF. */
#include "flash_id.h"

#include <stdint.h>
#include <string.h>

#include "crc16.h"

#define ID_PREFIX "I,megawatt,"

static int hexdigit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Copy field number idx (0-based, comma separated) of s[0..n) into out. */
static int field(const char *s, size_t n, int idx, char *out, size_t outlen)
{
    size_t start = 0;
    for (int f = 0; f < idx; f++) {
        const char *c = memchr(s + start, ',', n - start);
        if (!c) return -1;
        start = (size_t)(c - s) + 1;
    }
    const char *c = memchr(s + start, ',', n - start);
    size_t end = c ? (size_t)(c - s) : n;
    if (end - start == 0 || end - start >= outlen) return -1;
    memcpy(out, s + start, end - start);
    out[end - start] = 0;
    return 0;
}

int mw_flash_parse_id(const char *line, size_t len, mw_flash_id *id)
{
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    const char *p = NULL;
    size_t plen = strlen(ID_PREFIX);
    for (size_t i = 0; i + plen <= len; i++)
        if (!memcmp(line + i, ID_PREFIX, plen)) {
            p = line + i;
            break;
        }
    if (!p) return 0;
    size_t n = len - (size_t)(p - line);
    if (n < 5 || p[n - 5] != '*') return -1;
    unsigned crc = 0;
    for (int i = 0; i < 4; i++) {
        int d = hexdigit(p[n - 4 + i]);
        if (d < 0) return -1;
        crc = crc << 4 | (unsigned)d;
    }
    size_t body = n - 5;
    if (crc != mw_crc16(p, body) || body >= sizeof id->line) return -1;
    if (field(p, body, 2, id->version, sizeof id->version) != 0 ||
        field(p, body, 3, id->build, sizeof id->build) != 0)
        return -1;
    memcpy(id->line, p, body);
    id->line[body] = 0;
    return 1;
}
