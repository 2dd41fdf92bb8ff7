// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bench.c - `tap-accel bench`: the benchmark is a tool of its own,
 * tap-accel-bench (user/bench/), so that the CLI links neither liburing nor
 * pthreads. This verb only runs the one beside tap-accel, with the
 * arguments given, or says where it should be.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "verbs.h"

int bench_exec(int argc, char **argv)
{
	char self[PATH_MAX], tool[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *args[argc + 2];

	if (n <= 0)
		return system_error("bench: /proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	snprintf(tool, sizeof(tool), "%s/tap-accel-bench", dirname(self));
	args[0] = tool;
	memcpy(args + 1, argv, argc * sizeof(*argv));
	args[argc + 1] = NULL;
	fflush(stdout);
	execv(tool, args);
	return user_error("bench: the benchmark is its own tool, tap-accel-bench, and %s: %s "
			  "(make builds it; make install and the package install it beside "
			  "tap-accel)", tool, strerror(errno));
}

static int run_bench(const void *opts, int argc, char **argv)
{
	(void)opts;
	return bench_exec(argc, argv);
}

const struct command bench_cmd = {
	.name = "bench",
	.args = "[TAP-ACCEL-BENCH OPTIONS]",
	.summary = "runs tap-accel-bench, the benchmark (man tap-accel-bench)",
	.help = "The benchmark is a tool of its own, tap-accel-bench; this verb runs\n"
		"the one beside tap-accel with the options given.\n",
	.max_args = -1,
	.run = run_bench,
};
