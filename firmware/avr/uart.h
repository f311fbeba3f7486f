/* uart — UART0 at 115200 baud (U2X, UBRR 16), interrupt driven both ways.
 * Transmit: the main loop appends to a ring buffer; the UDRE interrupt drains it. A writer
 * waits when the ring is full, which only ever stalls the main loop, never sampling.
 * Receive: the RX interrupt appends to a ring; bytes that do not fit are counted. */
#ifndef MW_UART_H
#define MW_UART_H
#include <stdint.h>

void uart_init(void);
void uart_putc(char c);
void uart_write(const char *s, uint16_t len);
void uart_puts(const char *s);
/* Next received byte, or -1 when none is waiting. */
int16_t uart_getc(void);
/* Received bytes lost because the RX ring was full (since boot). */
uint16_t uart_rx_dropped(void);
/* Block until everything queued has left the shift register. */
void uart_flush(void);
#endif
