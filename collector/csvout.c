/* csvout — see csvout.h. */
#include "csvout.h"

#include <string.h>

int mw_csv_formula_like(const char *s)
{
    if (!s[0] || !strchr("=+-@\t\r", s[0])) return 0;
    if ((s[0] == '+' || s[0] == '-') && s[1] && strspn(s + 1, "0123456789.eE+-") == strlen(s + 1))
        return 0;
    return 1;
}

void mw_csv_text(FILE *out, const char *s, mw_csv_formulas *fx)
{
    if (fx && mw_csv_formula_like(s) && fx->n++ == 0)
        snprintf(fx->first, sizeof fx->first, "row %ld, column %.40s", fx->row,
                 fx->column ? fx->column : "?");
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void mw_csv_formulas_warn(const mw_csv_formulas *fx, const char *cmd)
{
    if (!fx->n) return;
    fprintf(stderr,
            "mw %s: warning: %ld text field%s begin%s with =, +, -, @, tab or CR (first: %s): "
            "written as recorded; a spreadsheet may take %s for a formula (docs/cli.md, \"CSV "
            "and spreadsheets\")\n",
            cmd, fx->n, fx->n == 1 ? "" : "s", fx->n == 1 ? "s" : "", fx->first,
            fx->n == 1 ? "it" : "them");
}
