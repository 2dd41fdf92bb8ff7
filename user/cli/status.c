// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status.c - every interface tap-accel has pins for: whether its program
 * is attached, in which mode, and which policy it runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/policy_decode.h"
#include "lib/policy_parse.h"
#include "lib/xdp.h"
#include "verbs.h"

static const char status_usage[] =
	"Usage: tap-accel status\n"
	"\n"
	"Every interface with tap-accel pins: IFACE, MODE, PROG (id), RULES,\n"
	"DEFAULT, DIGEST of the policy file, and STATE: attached, detached (pins\n"
	"but no program: 'tap-accel attach' or 'detach' it) or gone (the interface\n"
	"no longer exists here: 'tap-accel clean').\n";

struct iface_status {
	const char *ifname;
	const char *state;
	const char *mode;
	uint32_t prog_id;
	bool have_policy;
	struct ta_policy pol;
};

/* What one pin directory says; never fails, an unknown field stays empty. */
static void inspect(const char *ifname, struct iface_status *st)
{
	unsigned int ifindex = if_nametoindex(ifname);
	struct ta_xdp_state now = { .mode = "none" };
	struct ta_error e;
	struct ta_pins p;
	uint32_t slot;

	memset(st, 0, sizeof(*st));
	st->ifname = ifname;
	st->mode = "-";
	st->state = "gone";
	if (ifindex)
		ta_xdp_query(ifindex, &now);
	/* Problems are told on stderr; status goes on. */
	if (ta_pins_open(ifname, &p, &e)) {
		warning(&e);
		return;
	}
	st->have_policy = !ta_policy_active(&p.maps, &slot, &st->pol);
	if (ifindex && p.prog_id && now.prog_id == p.prog_id) {
		st->state = "attached";
		st->mode = now.mode;
		st->prog_id = p.prog_id;
	} else if (ifindex) {
		st->state = "detached";
	}
	ta_pins_close(&p);
}

static void print_status(const struct iface_status *st)
{
	char digest[20] = "-";

	if (st->have_policy)
		digest_hex(st->pol.digest, digest);
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "ifname", st->ifname);
		jw_kv_string(&json, "state", st->state);
		jw_kv_string(&json, "mode", st->mode);
		jw_kv_u64(&json, "prog_id", st->prog_id);
		if (st->have_policy) {
			jw_kv_u64(&json, "rules", st->pol.nr_rules);
			jw_kv_string(&json, "default", ta_action_name(st->pol.default_action));
			jw_kv_string(&json, "digest", digest);
		}
		jw_object_end(&json);
		return;
	}
	printf("%-15s %-8s %-6u %-6u %-9s %-16s %s\n", st->ifname, st->mode, st->prog_id,
	       st->have_policy ? st->pol.nr_rules : 0,
	       st->have_policy ? ta_action_name(st->pol.default_action) : "-", digest,
	       st->state);
}

static int show(const struct ta_pins_entry *en, void *arg)
{
	struct iface_status st;

	(void)arg;
	if (!ta_pins_used_here(en))
		return 0;
	inspect(en->ifname, &st);
	print_status(&st);
	return 0;
}

int cmd_status(int argc, char **argv)
{
	struct ta_error e;
	int n, ret;

	n = parse_verb_options(argc, argv, status_usage, NULL, &ret);
	if (n < 0)
		return ret;
	if (n)
		return user_error("status: takes no arguments; see tap-accel status --help");
	/* Nothing printed before the bpffs is known to be there. */
	ret = ta_bpffs_check(&e);
	if (ret)
		return report_error(&e);
	if (cli.json)
		jw_array_begin(&json);
	else
		printf("%-15s %-8s %-6s %-6s %-9s %-16s %s\n", "IFACE", "MODE", "PROG", "RULES",
		       "DEFAULT", "DIGEST", "STATE");
	ret = ta_pins_each(false, show, NULL, &e);
	if (ret)
		return report_error(&e);
	if (cli.json) {
		jw_array_end(&json);
		jw_end_document(&json);
	}
	return EXIT_OK;
}
