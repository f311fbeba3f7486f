/* usb — meter hotplug with libusb-1.0 (mw_usb.h). One libusb context with one hotplug
 * callback per meter VID:PID; events are counted in the callback and collected by
 * mw_usb_watch_poll, which lets libusb handle its events with a zero timeout, so it never
 * blocks the recorder's loop. */
#include "mw_usb.h"

#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>

#include "mw_port.h"

struct mw_usb_watch {
    libusb_context *ctx;
    libusb_hotplug_callback_handle handles[8];
    int nhandles;
    int arrived, left;
};

static const int vid_pid[][2] = {
    {0x2341, 0x0010}, {0x2341, 0x0042}, {0x1a86, 0x7523}, {0x0403, 0x6001}};

static int on_event(libusb_context *ctx, libusb_device *dev, libusb_hotplug_event ev, void *arg)
{
    (void)ctx;
    (void)dev;
    mw_usb_watch *w = arg;
    if (ev == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED)
        w->arrived++;
    else
        w->left++;
    return 0; /* stay registered */
}

mw_usb_watch *mw_usb_watch_start(char *why, size_t whylen)
{
    mw_usb_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    int r = libusb_init(&w->ctx);
    if (r != 0) {
        snprintf(why, whylen, "libusb unavailable: %s", libusb_strerror(r));
        free(w);
        return NULL;
    }
    if (!libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG)) {
        snprintf(why, whylen, "libusb has no hotplug support here");
        mw_usb_watch_stop(w);
        return NULL;
    }
    for (size_t i = 0; i < sizeof vid_pid / sizeof vid_pid[0]; i++) {
        r = libusb_hotplug_register_callback(
            w->ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, 0,
            vid_pid[i][0], vid_pid[i][1], LIBUSB_HOTPLUG_MATCH_ANY, on_event, w,
            &w->handles[w->nhandles]);
        if (r != LIBUSB_SUCCESS) {
            snprintf(why, whylen, "libusb hotplug registration failed: %s", libusb_strerror(r));
            mw_usb_watch_stop(w);
            return NULL;
        }
        w->nhandles++;
    }
    return w;
}

void mw_usb_watch_stop(mw_usb_watch *w)
{
    if (!w) return;
    for (int i = 0; i < w->nhandles; i++)
        libusb_hotplug_deregister_callback(w->ctx, w->handles[i]);
    libusb_exit(w->ctx);
    free(w);
}

int mw_usb_watch_poll(mw_usb_watch *w, int *left)
{
    struct timeval zero = {0, 0};
    libusb_handle_events_timeout_completed(w->ctx, &zero, NULL);
    int a = w->arrived;
    w->arrived = 0;
    if (left) *left += w->left;
    w->left = 0;
    return a;
}
