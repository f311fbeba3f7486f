/* builtin — every command of mw, one function each (collector/cmd_NAME.c), and the table
 * that names them (cli.c). A command gets argv with argv[0] its own name and returns the
 * exit code: 0 success, 1 the operation failed, 2 bad usage (cli.h). */
#ifndef MW_BUILTIN_H
#define MW_BUILTIN_H

int cmd_version(int argc, char **argv);
int cmd_vmeter(int argc, char **argv);
int cmd_flash(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_align(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_pareto(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_dvfs(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* mw_merge_run's skipped-file callback as mw merge and mw record say it (cmd_merge.c) */
void mw_merge_say_skipped(void *ctx, const char *message);
#endif
