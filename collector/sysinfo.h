/* sysinfo.h — moved to libmw as host/include/mw_sysinfo.h (mw sweep's index notes the
 * command line too); this forwarding header keeps cmd_record.c's #include "sysinfo.h"
 * working until it names mw_sysinfo.h, then it can go. */
#include "mw_sysinfo.h"
