/* mw_usb — USB hotplug notification for meters, with libusb-1.0.
 *
 * The recorder reconnects to a meter that was unplugged. Where libusb works and the
 * platform supports hotplug, mw_usb_watch tells it at once when a device with a meter's
 * VID:PID (mw_port_meter_kind) arrives, so it retries the port immediately instead of at
 * its next periodic attempt. Where it does not (no libusb, no USB at all as in a container,
 * no hotplug support) mw_usb_watch_start returns NULL with the reason and the caller simply
 * retries periodically: nothing depends on it. */
#ifndef MW_USB_H
#define MW_USB_H
#include <stddef.h>

typedef struct mw_usb_watch mw_usb_watch;

mw_usb_watch *mw_usb_watch_start(char *why, size_t whylen);
void mw_usb_watch_stop(mw_usb_watch *w);
/* Handle pending USB events without waiting. Returns how many meters arrived since the last
 * call (0 when none), and adds departures to *left when left is not NULL. */
int mw_usb_watch_poll(mw_usb_watch *w, int *left);
#endif
