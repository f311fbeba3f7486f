# collector/ — the mw command (build/bin/mw). builtin.h declares every command, cli.c holds
# dispatch and the command table; each command lives in cmd_<name>.c: it parses options,
# calls the libraries and prints (analyze_*.c, pareto_out.c, calibrate_ui.c, texttable.c,
# textout.c: the printing some commands share; run_summary.c, export_tables.c, stats_out.c,
# vmeter_opts.c: the reading, writing or option parsing of one command kept out of its
# cmd_*.c so that it stays short). All but main.c go into
# build/lib/libmwcli.a so tests can call commands in-process. probe/ is libmwprobe
# (collector/probe/probe.mk).
CLI_SRCS += $(filter-out collector/main.c,$(wildcard collector/*.c))
MW_SRCS  += collector/main.c
