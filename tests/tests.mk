# tests/ — unit (cmocka, one binary per module, also run under ASan/UBSan), sim (the real
# firmware ELF in simavr), integration (bash, the mw command end to end), fuzz (later),
# bench (make bench).
UNIT_TESTS += $(wildcard tests/unit/*/test_*.c)
SIM_TESTS  += $(wildcard tests/sim/test_*.c)
BENCHES    += $(wildcard tests/bench/bench_*.c)
# integration: bash scripts driving build/bin/mw against simulated boards
INTEG_TESTS += $(wildcard tests/integration/test_*.sh)
include tests/faultproxy/faultproxy.mk
include tests/fuzz/fuzz.mk
