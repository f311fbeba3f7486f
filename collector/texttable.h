/* texttable — text tables for the commands' reports (mw ls, mw show): every cell is
 * formatted first, then each column is as wide as its widest cell, columns two spaces
 * apart, left or right aligned, no trailing blanks. */
#ifndef MW_TEXTTABLE_H
#define MW_TEXTTABLE_H
#include <stdio.h>

#define MW_TABLE_MAX_COLS 32

typedef struct {
    int ncols;         /* <= MW_TABLE_MAX_COLS */
    const char *align; /* per column 'l' or 'r' */
    int nrows, cap;
    char **cells; /* nrows x ncols, malloc'd strings */
} mw_table;

/* Append a row of ncols cells (copied; NULL is ""). */
void mw_table_add(mw_table *t, const char *const *row);
/* Every row, each line starting with indent. */
void mw_table_print(const mw_table *t, FILE *out, const char *indent);
void mw_table_free(mw_table *t);
#endif
