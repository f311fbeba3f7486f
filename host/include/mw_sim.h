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

/* True time since open, ns. */
uint64_t mw_sim_time_ns(const mw_sim *sim);
/* CPU cycles executed since open (crystal time = cycles / 16 MHz). */
uint64_t mw_sim_cycles(const mw_sim *sim);

#endif
