# tests/ — unit (cmocka, one binary per module, also run under ASan/UBSan), sim (the real
# firmware ELF in simavr), integration and fuzz (later), bench (make bench).
UNIT_TESTS += $(wildcard tests/unit/test_*.c)
SIM_TESTS  += $(wildcard tests/sim/test_*.c)
BENCHES    += $(wildcard tests/bench/bench_*.c)
