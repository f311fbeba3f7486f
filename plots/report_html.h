/* report_html — what `mw report` needs to write HTML safely: text and attribute escaping
 * (every string that comes from a run store, a command line, a host or a file name goes
 * through mw_html_text), relative URLs of file names, and numbers with their units.
 *
 * Escaping replaces & < > " ' by character references, so escaped text can stand in element
 * content and in double- or single-quoted attribute values alike; control characters other
 * than tab and newline become U+FFFD; invalid UTF-8 bytes become U+FFFD too (a browser would
 * otherwise guess an encoding). */
#ifndef MW_REPORT_HTML_H
#define MW_REPORT_HTML_H
#include <stdio.h>

/* s escaped (NULL writes nothing). */
void mw_html_text(FILE *out, const char *s);
/* A file name as one relative URL path segment: bytes other than A-Z a-z 0-9 - . _ ~
 * percent-encoded (so "/" or "?" in it cannot change what the URL names), then escaped. */
void mw_html_url_segment(FILE *out, const char *name);

/* Numbers with units, into buf (returned). A non-finite value is "–" (no such figure). */
/* J with 3 decimals, kJ from 10 kJ, MJ from 10 MJ */
const char *mw_html_energy(char *buf, size_t len, double j);
/* v with `decimals` decimals and the unit after a space ("" for none) */
const char *mw_html_num(char *buf, size_t len, double v, int decimals, const char *unit);
/* seconds with 3 decimals, and from 60 s on also h:mm:ss ("75.250 s (0:01:15)") */
const char *mw_html_seconds(char *buf, size_t len, double s);
/* a CLOCK_REALTIME time in ns as UTC, "2025-03-14 10:22:33.123 UTC" */
const char *mw_html_utc(char *buf, size_t len, long long t_ns);
#endif
