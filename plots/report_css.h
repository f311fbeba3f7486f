/* report_css — the report page's style sheet (plots/report.css), NUL-terminated text. */
#ifndef MW_REPORT_CSS_H
#define MW_REPORT_CSS_H
extern const char mw_report_css[];
#endif
