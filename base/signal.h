/* The one stop signal: SIGINT, SIGTERM and SIGHUP set a flag that long work polls. */
#ifndef BASE_SIGNAL_H
#define BASE_SIGNAL_H

#include <signal.h>

/*
 * The number of the last SIGINT, SIGTERM or SIGHUP once base_install_signals() ran; 0
 * before. The runner's monitor turns it into a stop, a kernel-gate boot into QEMU's end.
 */
extern volatile sig_atomic_t base_signal_received;

/*
 * Makes the three signals only set base_signal_received; without SA_RESTART, so a blocking
 * wait returns EINTR and its loop looks at the flag. Callers clean up, then exit 128 + sig.
 */
void base_install_signals(void);

#endif
