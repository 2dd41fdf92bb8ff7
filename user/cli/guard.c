// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * guard.c - guard check: a guard's parameters as `attach --guard` and the
 * agent's bindings read them, checked without the kernel. The adapters
 * (qemu-ifup, the libvirt hook) check theirs here, so that a guard is
 * refused in the same words wherever it is written.
 */
#include <stdio.h>

#include "lib/plane/guard.h"
#include "lib/policy/guard_parse.h"
#include "lib/policy/names.h"
#include "verbs.h"

static int run_check(const void *opts, int argc, char **argv)
{
	char params[TA_MAX_GUARD_ADDRS * 2 * 48 + 32], words[16];
	struct ta_guard_spec g;
	struct ta_error e;

	(void)opts;
	(void)argc;
	if (ta_guard_parse(argv[0], &g, NULL, &e))
		return user_error("guard check: %s", e.text);
	ta_guard_format(&g, params, sizeof(params));
	ta_guard_words(g.flags, words, sizeof(words));
	if (!cli.json) {
		printf("%s\n", params);
		return EXIT_OK;
	}
	jw_object_begin(&json);
	jw_kv_string(&json, "guard", params);
	jw_kv_string(&json, "checks", words);
	jw_kv_u64(&json, "ip4", g.nr_ip4);
	jw_kv_u64(&json, "ip6", g.nr_ip6);
	jw_object_end(&json);
	return EXIT_OK;
}

static const struct command check_cmd = {
	.name = "check",
	.args = "PARAMS",
	.summary = "check a guard's parameters (mac=MAC,ip=ADDRESS,...) without the kernel",
	.help = "Check PARAMS as 'attach --guard' and the agent's bindings read them, and\n"
		"print them as they would be applied. Refused, with the reason: what is not a\n"
		"MAC or an address; addresses a guest never sends from (unspecified, loopback,\n"
		"multicast, broadcast, IPv4-mapped) and group or all-zero MACs; an address\n"
		"given twice; more than 64 addresses of one family. qemu-ifup and the libvirt\n"
		"hook check their guards with it. Exit 0 valid, 1 refused.\n",
	.min_args = 1,
	.max_args = 1,
	.run = run_check,
};

static const struct command *const guard_cmds[] = { &check_cmd, NULL };

const struct command guard_cmd = {
	.name = "guard",
	.summary = "a guest guard's parameters: check",
	.sub = guard_cmds,
};
