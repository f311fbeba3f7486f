/* uart — see uart.h. Ring indices are 16-bit and only ever written by one side
 * (head by the producer, tail by the consumer); 16-bit reads are made atomic. */
#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#define TX_SIZE 1024u /* power of two */
#define RX_SIZE 128u

static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint16_t tx_head, tx_tail;
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint16_t rx_head, rx_tail, rx_dropped;

void uart_init(void)
{
    UCSR0A = _BV(U2X0);
    UBRR0 = 16; /* 16 MHz / (8 * 17) = 117647 baud, -2.1 % of 115200 as on every Mega */
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

ISR(USART0_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (tx_tail + 1u) & (TX_SIZE - 1u);
}

ISR(USART0_RX_vect)
{
    uint8_t c = UDR0;
    uint16_t next = (rx_head + 1u) & (RX_SIZE - 1u);
    if (next == rx_tail) {
        rx_dropped++;
        return;
    }
    rx_buf[rx_head] = c;
    rx_head = next;
}

void uart_putc(char c)
{
    uint16_t next = (tx_head + 1u) & (TX_SIZE - 1u);
    for (;;) {
        uint16_t tail;
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
        {
            tail = tx_tail;
        }
        if (next != tail) break;
    }
    tx_buf[tx_head] = (uint8_t)c;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        tx_head = next;
        UCSR0B |= _BV(UDRIE0);
    }
}

void uart_write(const char *s, uint16_t len)
{
    while (len--)
        uart_putc(*s++);
}

void uart_puts(const char *s)
{
    while (*s)
        uart_putc(*s++);
}

int16_t uart_getc(void)
{
    uint16_t head;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        head = rx_head;
    }
    if (head == rx_tail) return -1;
    uint8_t c = rx_buf[rx_tail];
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        rx_tail = (rx_tail + 1u) & (RX_SIZE - 1u);
    }
    return c;
}

uint16_t uart_rx_dropped(void)
{
    uint16_t d;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        d = rx_dropped;
    }
    return d;
}

void uart_flush(void)
{
    for (;;) {
        uint16_t tail;
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
        {
            tail = tx_tail;
        }
        if (tail == tx_head && (UCSR0A & _BV(UDRE0))) break;
    }
}
