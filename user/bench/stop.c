// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * stop.c - Ctrl-C during a run (stop.h).
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "stop.h"

static volatile sig_atomic_t requested;
static void (*last_word)(void);

/* The namespace and taps of a run die with it: leaving at once on the
 * second signal loses only the report (and puts back what the host lent
 * the run, through the last word). */
static void on_signal(int sig)
{
	if (requested) {
		if (last_word)
			last_word();
		_exit(128 + sig);
	}
	requested = 1;
}

void stop_set_last_word(void (*fn)(void))
{
	last_word = fn;
}

void stop_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool stop_requested(void)
{
	return requested;
}

int stop_wait_child(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}
