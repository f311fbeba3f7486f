# slurm/ — the SPANK plugin build/lib/mw_spank.so (srun --mw-record, docs/slurm.md). Built
# where Slurm's spank.h is (Debian: libslurm-dev, in scripts/packages.txt); it links nothing:
# the spank_* and slurm_* functions are srun's own, found when srun loads it. Its manual page
# slurm/mw_spank.8 and the plugin are installed by make install (PREFIX/lib/slurm/).
SPANK_H := $(wildcard /usr/include/slurm/spank.h)
ifneq ($(SPANK_H),)
SPANK_SO := $(BUILD)/lib/mw_spank.so
$(SPANK_SO): slurm/mw_spank.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=default -o $@ $<
endif
