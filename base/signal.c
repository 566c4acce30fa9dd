/* The one stop signal (signal.h), for the runner and the kernel gate alike. */
#include "base/signal.h"

volatile sig_atomic_t base_signal_received;

static void on_signal(int sig)
{
	base_signal_received = sig;
}

void base_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
