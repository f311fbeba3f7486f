/* report_css — plots/report.css compiled into mw (the assembler's .incbin, NUL-terminated),
 * so that `mw report` writes it inline into every page and needs no data file at run time.
 * The path is relative to the repository root, where make runs; plots/plots.mk makes the
 * object depend on the file. */
#include "report_css.h"

__asm__(".section .rodata\n"
        ".global mw_report_css\n"
        ".type mw_report_css, @object\n"
        "mw_report_css:\n"
        ".incbin \"plots/report.css\"\n"
        ".byte 0\n"
        ".size mw_report_css, . - mw_report_css\n"
        ".previous\n");
