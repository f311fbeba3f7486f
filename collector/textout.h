/* textout — number and string formatting shared by the commands that print reports:
 * exact fixed-point numbers from integers (no binary floating point between the stored
 * integer and the printed decimals) and JSON strings. */
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

/* s as a JSON string, quotes included: ", \ and control characters escaped. */
void mw_out_json_string(FILE *out, const char *s);
#endif
