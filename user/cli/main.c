// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - tap-accel: the verb table, the options before the verb, and
 * where the state is found (lib/sys/netns.h: under `ip netns exec`, the
 * caller's mount namespace).
 */
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bpf/tap_accel.h"
#include "lib/sys/netns.h"
#include "verbs.h"

#ifndef TA_VERSION
#error "TA_VERSION comes from the VERSION file, through user/Makefile"
#endif

static const struct command *const verbs[] = {
	&attach_cmd, &detach_cmd, &policy_cmd, &fdb_cmd,   &guard_cmd,    &conntrack_cmd,
	&status_cmd, &stats_cmd,  &clean_cmd,  &agent_cmd, &bench_cmd,    NULL,
};

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!cli.verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	bool version = false;
	int i, ret;

	libbpf_set_print(print_libbpf);
	/* Before anything opens a file: `ip netns exec` hides the bpffs. */
	ta_mntns_enter_callers(TA_BPFFS);
	i = parse_global_options(argc, argv, &version, &ret);
	if (i == GLOBAL_HELP) {
		commands_usage(verbs, "tap-accel", stdout);
		return EXIT_OK;
	}
	if (i < 0)
		return ret;
	if (version) {
		printf("tap-accel %s (map layout %d, libbpf %s)\n", TA_VERSION, TA_LAYOUT_VERSION,
		       libbpf_version_string());
		return EXIT_OK;
	}
	/* Not through the option parser: the benchmark's options are its own. */
	if (i < argc && !strcmp(argv[i], "bench")) {
		if (cli.json)
			argv[i] = cli.pretty ? "--pretty" : "--json";
		else
			i++;
		return bench_exec(argc - i, argv + i);
	}
	return command_dispatch(verbs, "tap-accel", argc - i, argv + i);
}
