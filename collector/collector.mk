# collector/ — the mw command. builtin.h declares every command, cli.c holds dispatch and the
# command table; each command lives in cmd_<name>.c: it parses options, calls the libraries
# and prints. All but main.c go into build/lib/libmwcli.a so tests can call commands
# in-process.
CLI_SRCS += $(filter-out collector/main.c,$(wildcard collector/*.c))
MW_SRCS  += collector/main.c
