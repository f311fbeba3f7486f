/* main — the mw executable: everything happens in mw_cli_main (cli.c). */
#include "cli.h"

int main(int argc, char **argv) { return mw_cli_main(argc, argv); }
