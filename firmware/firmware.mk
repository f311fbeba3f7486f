# firmware/ — ATmega2560 firmware. Portable C (firmware/portable) also builds on the host
# into libmw so host tests exercise it directly; firmware/avr holds registers and ISRs.
FW_ELF := $(BUILD)/firmware/megawatt.elf
FW_HEX := $(BUILD)/firmware/megawatt.hex
FW_MAP := $(BUILD)/firmware/megawatt.map

FW_PORTABLE_SRCS += $(wildcard firmware/portable/*.c)
FW_AVR_SRCS      += $(wildcard firmware/avr/*.c)

AVR_CC      := avr-gcc
AVR_MCU     := atmega2560
AVR_CFLAGS  := -mmcu=$(AVR_MCU) -DF_CPU=16000000UL -Os -std=gnu11 -Wall -Wextra -Werror \
               -Wno-unused-parameter -ffunction-sections -fdata-sections -MMD -MP \
               -Ifirmware/portable -Ifirmware/avr -DMW_VERSION=\"$(VERSION)\" \
               -DMW_GIT_ID=\"$(GIT_ID)\"
AVR_LDFLAGS := -mmcu=$(AVR_MCU) -Wl,--gc-sections -Wl,-Map,$(FW_MAP)
FW_OBJS = $(patsubst %.c,$(BUILD)/avr/%.o,$(FW_AVR_SRCS) $(FW_PORTABLE_SRCS))

$(BUILD)/avr/%.o: %.c
	@mkdir -p $(@D)
	$(AVR_CC) $(AVR_CFLAGS) -c $< -o $@

$(FW_ELF): $(FW_OBJS)
	@mkdir -p $(@D)
	$(AVR_CC) $(AVR_LDFLAGS) -o $@ $^
	avr-size --mcu=$(AVR_MCU) -C $@ | grep -E 'Program|Data'

# A test build with hooks that deliberately misbehave (STARVE: block interrupts; HANG:
# stop feeding the watchdog). Only tests load it; it is never installed or flashed.
FW_TEST_ELF := $(BUILD)/firmware/megawatt-test.elf
FW_TEST_OBJS = $(patsubst %.c,$(BUILD)/avr-test/%.o,$(FW_AVR_SRCS) $(FW_PORTABLE_SRCS))

$(BUILD)/avr-test/%.o: %.c
	@mkdir -p $(@D)
	$(AVR_CC) $(AVR_CFLAGS) -DMW_TEST_HOOKS -c $< -o $@

$(FW_TEST_ELF): $(FW_TEST_OBJS)
	@mkdir -p $(@D)
	$(AVR_CC) -mmcu=$(AVR_MCU) -Wl,--gc-sections -o $@ $^

$(FW_HEX): $(FW_ELF)
	avr-objcopy -O ihex -R .eeprom $< $@

# Revision A boards (no reference chip: the ADC converts against AVCC, afe.h): the same
# firmware built with MW_BOARD_REV 'A'. `make flash MW_BOARD=A` flashes it; its
# identification line says atmega2560:A (docs/protocol.md).
FW_REVA_ELF := $(BUILD)/firmware/megawatt-revA.elf
FW_REVA_HEX := $(BUILD)/firmware/megawatt-revA.hex
FW_REVA_OBJS = $(patsubst %.c,$(BUILD)/avr-revA/%.o,$(FW_AVR_SRCS) $(FW_PORTABLE_SRCS))

$(BUILD)/avr-revA/%.o: %.c
	@mkdir -p $(@D)
	$(AVR_CC) $(AVR_CFLAGS) -DMW_BOARD_REV="'A'" -c $< -o $@

$(FW_REVA_ELF): $(FW_REVA_OBJS)
	@mkdir -p $(@D)
	$(AVR_CC) -mmcu=$(AVR_MCU) -Wl,--gc-sections -o $@ $^

$(FW_REVA_HEX): $(FW_REVA_ELF)
	avr-objcopy -O ihex -R .eeprom $< $@
