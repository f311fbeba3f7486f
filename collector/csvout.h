/* csvout — a text field of a CSV file written by mw (mw export --format csv), RFC 4180:
 * quoted when it holds ',', '"', CR or LF, '"' doubled, otherwise as it is. Never altered:
 * the CSV is data for programs and for mw import, and a changed name would no longer match
 * the run. A field a spreadsheet could take for a formula (OWASP "CSV injection": a first
 * character of = + - @, tab or CR; a signed plain number such as "-12.5" is not one) is
 * counted, with where the first was, so the command can warn once (docs/cli.md, "CSV and
 * spreadsheets"). */
#ifndef MW_CSVOUT_H
#define MW_CSVOUT_H
#include <stdio.h>

typedef struct {
    long n;             /* formula-like fields written */
    long row;           /* the data row being written (the caller's: 1 = the first) */
    const char *column; /* the column being written (the caller's) */
    char first[80];     /* "row R, column NAME" of the first formula-like field */
} mw_csv_formulas;

/* 1 when a spreadsheet could take s for a formula */
int mw_csv_formula_like(const char *s);
/* s as one CSV field; fx (may be NULL) counts it when it is formula-like */
void mw_csv_text(FILE *out, const char *s, mw_csv_formulas *fx);
/* One warning line "mw CMD: warning: ..." on stderr when fx counted any field. */
void mw_csv_formulas_warn(const mw_csv_formulas *fx, const char *cmd);
#endif
