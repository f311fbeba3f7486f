/* mw_sim — the simulated board: the real megawatt firmware ELF running cycle-exactly in
 * simavr as an ATmega2560 at 16 MHz, with its UART0 connected to the caller.
 *
 * Time: "true time" is the time of the world outside the board, in nanoseconds since the
 * board was created (t_ns). The board's crystal may be off by crystal_ppm (positive =
 * crystal fast = meter clock ahead of true time); the firmware always believes 16 MHz.
 */
#ifndef MW_SIM_H
#define MW_SIM_H
#include <stddef.h>
#include <stdint.h>

typedef struct mw_sim mw_sim;

/* Called with every byte the firmware transmits on UART0. */
typedef void (*mw_sim_uart_fn)(void *ctx, uint8_t byte);

/* Load the firmware ELF and reset the board. On error returns NULL and writes a message
 * naming the file into err. */
mw_sim *mw_sim_open(const char *elf_path, char *err, size_t errlen);
void mw_sim_close(mw_sim *sim);

void mw_sim_set_uart_sink(mw_sim *sim, mw_sim_uart_fn fn, void *ctx);
/* Queue bytes for the firmware's UART0 receiver; they are delivered at the line rate as
 * the firmware's receive FIFO accepts them. Returns 0, or -1 when the queue is full. */
int mw_sim_uart_send(mw_sim *sim, const void *buf, size_t len);

/* Crystal error in parts per million (positive = board clock fast). Default 0. */
void mw_sim_set_crystal_ppm(mw_sim *sim, double ppm);

/* Run the board until true time has advanced by dt_ns (as fast as the host allows).
 * Returns 0, or -1 if the firmware crashed or stopped. */
int mw_sim_run_ns(mw_sim *sim, uint64_t dt_ns);

/* ---- analog inputs ------------------------------------------------------------------
 * Every ADC pin A0..A15 is driven through the front-end of firmware/portable/afe.h (its
 * ratios): the voltage pin carries the mains voltage, each current pin the current of its
 * load, both around the board's bias; the board adds Gaussian noise and quantises like the
 * ATmega2560's ADC, against the reference the firmware selects with ADMUX's REFS bits (code
 * = floor(V * 1024 / Vref), below). Each sample is taken at the instant the real ADC
 * samples (1.5 ADC clocks after the conversion starts), in true time. The internal inputs
 * MUX5:0 = 011110 (1.1 V bandgap) and 011111 (0 V) read as such (a firmware may convert
 * one as a dummy after the voltage, to take the sample-and-hold kick as a DC offset). */

/* The board under the simulated meter (hardware/README.md): what its AREF pin carries
 * (aref_v; 0 = nothing: revision A, or revision B with JP3 open) and its bias (bias_v) on
 * every input. Revision B, the default: mw_sim_set_board(sim, 4.096, 2.048); revision A:
 * (0, 2.5). The ADC converts against REFS1:0 = 00 AREF (an open AREF reads as 0 V, every
 * input then converts to 1023), 01 AVCC (5.000 V), 10 internal 1.1 V, 11 internal 2.56 V. */
#define MW_SIM_AVCC_V 5.0
void mw_sim_set_board(mw_sim *sim, double aref_v, double bias_v);

/* The last completed conversion: its pin (0..15, -1 for a mode the meter does not wire)
 * and code; returns the number of conversions so far. And how many conversions selected
 * an internal reference or AVCC while AREF was driven (on a real board, the ADC would
 * short the AREF source to that reference: the datasheet forbids it). */
uint64_t mw_sim_adc_last(const mw_sim *sim, int *pin, uint16_t *code);
uint64_t mw_sim_adc_ref_conflicts(const mw_sim *sim);

typedef enum {
    MW_SIM_SINE = 0, /* sinusoidal current */
    MW_SIM_SMPS = 1, /* switched-mode supply: odd harmonics 3/5/7 at 75/50/25 % of the
                        fundamental, peaky; power factor below means displacement PF */
    MW_SIM_CAPIN = 2, /* capacitor-input rectifier without PFC (a switch's or a desktop's
                         supply): the textbook diode-bridge + reservoir-capacitor current at
                         omega R C = 8 (49 degrees of conduction per half cycle, crest 3.5 x
                         the fundamental's peak), odd harmonics to the 51st: 3rd 85 %, 5th 59
                         %, 7th 35 %, 11th 21 %, 13th 19 %, 25th 8.7 % of the fundamental */
    MW_SIM_PFC = 3,   /* active-PFC supply (a server node): near sine, odd harmonics to the
                         25th, 3rd 4 %, 5th 2.5 %, 11th 0.8 %, 25th 0.2 % (THD 5.3 %) */
} mw_sim_wave;

/* Mains voltage (V rms, Hz) on the given pin. Default 230 V, 50 Hz on A0. */
void mw_sim_set_mains(mw_sim *sim, int pin, double vrms, double hz);

/* A load on a current pin: real power p_w (W; negative = export) at power factor pf
 * (0 < pf <= 1, lagging; displacement PF for MW_SIM_SMPS). The current follows the mains
 * voltage set with mw_sim_set_mains. */
void mw_sim_set_load(mw_sim *sim, int pin, double p_w, double pf, mw_sim_wave wave);

/* A load given by its fundamental's peak current (A), lag angle from acos(pf). */
void mw_sim_set_current(mw_sim *sim, int pin, double i1_peak_a, double pf, mw_sim_wave wave);

/* A live load: fn returns the real power in W at true time t_ns; it is called for every
 * sample of that pin, so it must be cheap. */
typedef double (*mw_sim_power_fn)(void *ctx, int pin, uint64_t t_ns);
void mw_sim_set_load_fn(mw_sim *sim, int pin, mw_sim_power_fn fn, void *ctx, double pf,
                        mw_sim_wave wave);

/* Any waveform on a pin: fn returns the instantaneous mains volts (is_voltage) or line
 * amps at true time t_s (seconds since open), through the same front-end, noise and
 * quantisation. For waveforms the built-in sources cannot make (voltage harmonics, pulse
 * currents); fn is called once per sample of that pin and must be cheap. Loads set with
 * mw_sim_set_load follow the Vrms of mw_sim_set_mains, not this waveform. */
typedef double (*mw_sim_wave_fn)(void *ctx, double t_s);
void mw_sim_set_wave_fn(mw_sim *sim, int pin, int is_voltage, mw_sim_wave_fn fn, void *ctx);

/* ---- front-end imperfections (each off by default, so a test can show it and its cure).
 * The component values are those of hardware/schematic.py for the two board revisions:
 *   revision A: passive shared current bias 5 kOhm || 10.1 uF, 10 nF filter capacitors;
 *   revision B: current bias from an op-amp follower (0.05 Ohm), 1 nF filters;
 *   both: current inputs 200 Ohm (CT burden) + 1 kOhm series resistor, voltage input
 *   8.25 kOhm || 1 kOhm + 330 Ohm. */
typedef enum { MW_SIM_FE_IDEAL = 0, MW_SIM_FE_REV_A = 1, MW_SIM_FE_REV_B = 2 } mw_sim_frontend;

/* Shared-bias crosstalk: every current pin's bias moves by c(f) = -Z_b / (R_src + 1 /
 * (j 2 pi f C_F)) times the pin signal of every other current pin (docs/analog-front-end.md;
 * revision A: -0.099 % at -176.4 degrees at 50 Hz, tending to -C_F / C_b = -0.099 % at the
 * harmonics; revision B: 1.6e-8). Applied per harmonic to the built-in waveforms, and with
 * the fundamental's c (gain and delay) to mw_sim_set_wave_fn currents. The voltage pin
 * neither gives nor takes it. MW_SIM_FE_IDEAL: off. */
void mw_sim_set_crosstalk(mw_sim *sim, mw_sim_frontend rev);

/* Sample-and-hold charge sharing: the ADC's 14 pF hold capacitor arrives at each pin
 * charged to the voltage it held for the previous conversion, and shares it with the pin's
 * filter capacitor through r_mux_ohm (the multiplexer, 1-100 kOhm per the datasheet) while
 * both recover through the pin's source resistance, for the 12 us (1.5 ADC clocks; 108 us
 * for the first conversion after enable) until the sample is taken: the exact solution of
 * that two-node RC network. What is left of the difference (revision A, 1 kOhm: 5.2e-4)
 * is added to the sample: the channel converted after the voltage channel sees ~0.05 % of
 * the mains voltage, ~+1.4 W of phantom power at 230 V. MW_SIM_FE_IDEAL: off. */
void mw_sim_set_sh_kick(mw_sim *sim, mw_sim_frontend rev, double r_mux_ohm);

/* ADC noise, rms in LSB (default 0.5), and the seed of its generator (default 1). */
void mw_sim_set_noise(mw_sim *sim, double lsb_rms, unsigned long seed);

/* Waveform of the unit-fundamental current (peak 1) at phase x (radians of the
 * fundamental, no lag): used by callers to find a waveform's peak. */
double mw_sim_wave_value(mw_sim_wave wave, double x);

/* True time (seconds since open) at which conversion number `index` samples its input,
 * counting conversions from the last time the ADC was enabled (index 0 = the first,
 * long conversion). The meter's own time of that conversion is index * 104 us. */
double mw_sim_adc_sample_time(const mw_sim *sim, uint64_t index);

/* Conversions the board has served since open, and how many were the first conversion
 * after the ADC was enabled. */
uint64_t mw_sim_adc_conversions(const mw_sim *sim);

/* Measure one interrupt vector's service time (cycles from the jump to the vector to
 * RETI, i.e. excluding the 5-cycle interrupt response): call watch once, then read. */
void mw_sim_isr_watch(mw_sim *sim, int vector);
void mw_sim_isr_stats(const mw_sim *sim, uint64_t *count, double *mean_cycles,
                      uint64_t *max_cycles);

/* Press the reset button: the CPU and peripherals restart, EEPROM keeps its contents,
 * true time goes on. */
void mw_sim_reset(mw_sim *sim);

/* Read or write the board's EEPROM (4096 bytes). Return 0, or -1 out of range. */
int mw_sim_eeprom_read(mw_sim *sim, uint16_t addr, void *buf, uint16_t len);
int mw_sim_eeprom_write(mw_sim *sim, uint16_t addr, const void *buf, uint16_t len);

/* True time since open, ns. */
uint64_t mw_sim_time_ns(const mw_sim *sim);
/* CPU cycles executed since open (crystal time = cycles / 16 MHz). */
uint64_t mw_sim_cycles(const mw_sim *sim);

#endif
