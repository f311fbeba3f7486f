/* afe — the analog front-end that the default calibration assumes, and the ADC timing.
 * One header shared by the firmware (default calibration, timing) and the simulated board
 * (which drives the pins through exactly this front-end), so that "a waveform on a pin maps
 * to a known physical value". docs/analog-front-end.md explains the numbers.
 *
 * Pin voltage = MW_AFE_BIAS_V + (mains volts) / MW_AFE_V_RATIO      for the voltage input
 * Pin voltage = MW_AFE_BIAS_V + (line amps)   / MW_AFE_I_RATIO      for a current input
 * ADC code    = floor(pin volts * 1024 / MW_AFE_VREF_V), 0..1023     (ATmega2560 datasheet)
 *
 * Board revision, chosen when the firmware is built (MW_BOARD_REV, `make MW_BOARD=A`):
 * 'B' (default, hardware/README.md) has a 4.096 V reference (REF3440) on AREF and both biases
 * at VREF/2; the ADC converts against AREF (REFS1:0 = 00). 'A' (the first boards, no reference
 * chip) converts against AVCC (REFS1:0 = 01) with the bias at 2.5 V. The ratios are the same
 * on both. The identification line names the revision (docs/protocol.md), so the host knows
 * which default gains a meter starts from. The revision-B values come first: hardware/calc.py
 * and schematic.py read the first definition of each name.
 */
#ifndef MW_AFE_H
#define MW_AFE_H

#ifndef MW_BOARD_REV
#define MW_BOARD_REV 'B'
#endif

#if MW_BOARD_REV == 'B'
#define MW_AFE_VREF_V 4.096           /* external reference on AREF, volts */
#define MW_AFE_BIAS_V 2.048           /* VREF / 2, buffered, on every input, volts */
#define MW_AFE_FULL_SCALE_PEAK_A 20.0 /* current whose peak reaches +-2.0 V at the pin */
#define MW_BOARD_NAME "B"
#elif MW_BOARD_REV == 'A'
#define MW_AFE_VREF_V 5.0             /* AVCC reference, volts */
#define MW_AFE_BIAS_V 2.5             /* mid-supply bias on every input, volts */
#define MW_AFE_FULL_SCALE_PEAK_A 24.0 /* current whose peak reaches +-2.4 V at the pin */
#define MW_BOARD_NAME "A"
#else
#error "MW_BOARD_REV must be 'A' or 'B'"
#endif
#define MW_AFE_V_RATIO 191.667        /* mains volts per pin volt: 230 V rms -> 1.2 V rms */
#define MW_AFE_I_RATIO 10.0           /* line amps per pin volt: 10 A : 1 V CT (0.1 V/A) */

/* Volts (mains) and amps (line) per ADC count at default calibration. */
#define MW_AFE_V_PER_COUNT (MW_AFE_VREF_V / 1024.0 * MW_AFE_V_RATIO)
#define MW_AFE_A_PER_COUNT (MW_AFE_VREF_V / 1024.0 * MW_AFE_I_RATIO)

/* ADC timing: 16 MHz / 128 = 125 kHz ADC clock, 13 ADC clocks per free-running
 * conversion = 1664 CPU cycles = 104 us exactly; the first conversion takes 25 clocks. */
#define MW_F_CPU_HZ 16000000UL
#define MW_ADC_PRESCALER 128u
#define MW_CONV_CYCLES 1664u
#define MW_CONV_US 104u
#define MW_ADC_SAMPLE_DELAY_CYCLES (3u * MW_ADC_PRESCALER / 2u) /* S&H after start: 1.5 clk */
#define MW_ADC_FIRST_SAMPLE_DELAY_CYCLES (27u * MW_ADC_PRESCALER / 2u) /* first: 13.5 clk */

#define MW_MAX_CHANNELS 16 /* 1 voltage + up to 15 current inputs */
#define MW_MAX_I (MW_MAX_CHANNELS - 1)

#endif
