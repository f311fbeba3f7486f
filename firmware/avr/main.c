/* main — boot, identify, blink. The foundation firmware: it proves the toolchain, the
 * UART path and the simulated board. Sampling and the wire protocol grow from here. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdio.h>
#include <string.h>
#include <util/delay.h>

#include "crc16.h"
#include "uart.h"

/* Send one protocol line: body, then '*', CRC-16 of the body in 4 hex digits, CR LF. */
static void send_line(const char *body)
{
    char tail[8];
    uint16_t crc = mw_crc16(body, strlen(body));
    snprintf(tail, sizeof tail, "*%04X\r\n", crc);
    uart_puts(body);
    uart_puts(tail);
}

int main(void)
{
    DDRB |= _BV(PB7); /* board LED "L" */
    uart_init();
    sei();
    send_line("I,megawatt," MW_VERSION "," MW_GIT_ID ",atmega2560");
    for (;;) {
        PORTB ^= _BV(PB7);
        _delay_ms(250);
    }
}
