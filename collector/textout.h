/* textout — number and string formatting shared by the commands that print reports:
 * exact fixed-point numbers from integers (no binary floating point between the stored
 * integer and the printed decimals), JSON strings, and user-controlled strings in text
 * output (channel, host and phase names, run paths, metadata values such as the recorded
 * command line): a run store is a file anyone can hand over, so its strings never reach a
 * terminal raw. Control bytes (below 0x20, and 0x7f) become visible escapes ("\x1b", "\n");
 * every other byte, backslashes and UTF-8 included, is written as it is, so normal names
 * print exactly as before. */
#ifndef MW_TEXTOUT_H
#define MW_TEXTOUT_H
#include <stddef.h>
#include <stdio.h>

/* v / step rounded half away from zero, written "int.frac" with `decimals` decimals (step
 * is one unit of the last decimal), then " unit" when unit is not empty. Returns buf. */
const char *mw_out_fixed(char *buf, size_t len, __int128 v, __int128 step, int decimals,
                         const char *unit);

/* v as a JSON number (%.10g), or null when it is NaN or infinite: no command writes NaN. */
void mw_out_json_number(FILE *out, double v);

/* s as a JSON string, quotes included: ", \ and control characters escaped, and a byte that
 * is not part of a valid UTF-8 sequence written as \ufffd (JSON is UTF-8). */
void mw_out_json_string(FILE *out, const char *s);

/* s for a terminal: \n, \r, \t for those, \xHH for the other bytes below 0x20 and 0x7f;
 * everything else unchanged. */
void mw_out_text(FILE *out, const char *s);
/* The same as a malloc'd string, NULL as "" (out of memory aborts, mw_alloc.h). */
char *mw_out_text_dup(const char *s);
/* The length mw_out_text writes for s. */
int mw_out_text_width(const char *s);
/* mw_out_text(out, s), then blanks up to width (as printf's "%-*s" of the escaped s). */
void mw_out_text_pad(FILE *out, const char *s, int width);
/* From this call on, standard error escapes control bytes as mw_out_text does (a line's end
 * and tabs kept): no message reaches the terminal raw, whatever path, name, metadata or
 * library text it carries (`mw` calls it first thing; docs/reliability.md). Unbuffered,
 * like stderr. */
void mw_out_guard_stderr(void);
/* seq, a progress line's own terminal control ("\r", "\033[K"), to the unguarded standard
 * error; returns "", so that it may stand for a message's leading %s (arguments are
 * evaluated before fprintf writes). */
const char *mw_out_tty(const char *seq);
#endif
