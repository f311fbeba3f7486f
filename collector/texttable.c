/* texttable — see texttable.h. Out of memory aborts (mw_alloc.h). Cells are stored escaped
 * for the terminal (textout.h, mw_out_text): a table prints names from run stores. */
#include "texttable.h"

#include <stdlib.h>
#include <string.h>

#include "mw_alloc.h"
#include "textout.h"

void mw_table_add(mw_table *t, const char *const *row)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = mw_xrealloc(t->cells, (size_t)t->cap * (size_t)t->ncols * sizeof *t->cells);
    }
    for (int i = 0; i < t->ncols; i++)
        t->cells[t->nrows * t->ncols + i] = mw_out_text_dup(row[i]);
    t->nrows++;
}

void mw_table_print(const mw_table *t, FILE *out, const char *indent)
{
    int w[MW_TABLE_MAX_COLS] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            int n = (int)strlen(t->cells[r * t->ncols + c]);
            if (n > w[c]) w[c] = n;
        }
    for (int r = 0; r < t->nrows; r++) {
        fputs(indent, out);
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            int last = c == t->ncols - 1;
            if (c) fputs("  ", out);
            if (t->align[c] == 'r')
                fprintf(out, "%*s", w[c], s);
            else
                fprintf(out, "%-*s", last ? 0 : w[c], s);
        }
        fputc('\n', out);
    }
}

void mw_table_free(mw_table *t)
{
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
}
