// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - tap-accel: the verb table, the options before the verb, and
 * where the state is found (lib/netns.h: under `ip netns exec`, the
 * caller's mount namespace).
 */
#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bpf/tap_accel.h"
#include "lib/netns.h"
#include "verbs.h"

#ifndef TA_VERSION
#error "TA_VERSION comes from the VERSION file, through user/Makefile"
#endif

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "attach", cmd_attach, "attach IFACE [--policy FILE] [--mode native|generic] [--force]" },
	{ "detach", cmd_detach, "detach IFACE" },
	{ "policy", cmd_policy,
	  "policy { check FILE | load IFACE FILE | show IFACE | explain FILE --frame HEX }" },
	{ "fdb", cmd_fdb, "fdb { add IFACE MAC DEV | del IFACE MAC | list IFACE }" },
	{ "status", cmd_status, "status" },
	{ "stats", cmd_stats, "stats [IFACE] [--interval S] [--count N]" },
	{ "clean", cmd_clean, "clean [IFACE...]" },
	{ "bench", cmd_bench, "bench [OPTIONS] (see tap-accel bench --help)" },
};

static char usage_text[2048];

static const char *usage(void)
{
	size_t n;

	n = snprintf(usage_text, sizeof(usage_text),
		     "Usage: tap-accel [--json] [--pretty] [--verbose] [--netns NAME] VERB [ARGS]\n"
		     "       tap-accel --help | --version\n\nVerbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		n += snprintf(usage_text + n, sizeof(usage_text) - n, "  %s\n", verbs[i].summary);
	snprintf(usage_text + n, sizeof(usage_text) - n,
		 "\nEvery verb takes --help. Read verbs take --json.\n"
		 "--netns NAME runs the verb in network namespace NAME (ip netns).\n"
		 "Exit status: 0 ok, 1 wrong command or policy, 2 system error.\n");
	return usage_text;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!cli.verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct verb_option opts[] = { { "version", false, NULL, 'V' }, { NULL, false, NULL, 0 } };
	int i, ret;

	libbpf_set_print(print_libbpf);
	/* Before anything opens a file: `ip netns exec` hides the bpffs. */
	ta_mntns_enter_callers(TA_BPFFS);
	i = parse_global_options(argc, argv, usage(), opts, &ret);
	if (i < 0)
		return ret;
	if (opts[0].value) {
		printf("tap-accel %s (map layout %d, libbpf %s)\n", TA_VERSION, TA_LAYOUT_VERSION,
		       libbpf_version_string());
		return EXIT_OK;
	}
	if (i == argc) {
		fputs(usage(), stderr);
		return EXIT_USER;
	}
	for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++)
		if (!strcmp(argv[i], verbs[v].name))
			return verbs[v].run(argc - i, argv + i);
	return user_error("unknown verb '%s'; see tap-accel --help", argv[i]);
}
