# collector/ — the mw command. cli.c holds dispatch and the command table; each command
# lives in cmd_<name>.c. All but main.c go into build/lib/libmwcli.a so tests can call
# commands in-process.
CLI_SRCS += $(filter-out collector/main.c,$(wildcard collector/*.c))
MW_SRCS  += collector/main.c
$(BUILD)/obj/collector/report_css.o $(BUILD)/asan/obj/collector/report_css.o: plots/report.css
