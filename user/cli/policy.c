// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy.c - the policy verbs: check (the file alone, no kernel), load (a
 * new policy, or a new version for every tap bound to it at once), show,
 * list, unload; explain is explain.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/plane/decode.h"
#include "lib/plane/fdb.h"
#include "lib/plane/policies.h"
#include "lib/plane/ports.h"
#include "lib/plane/taps.h"
#include "lib/policy/parse.h"
#include "lib/policy/print.h"
#include "verbs.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- a spec as JSON --------------------------------------------------------- */

/* "53" or "1000-2000", as in the policy file. */
static const char *port_range(uint16_t lo, uint16_t hi, char *buf)
{
	if (lo == hi)
		snprintf(buf, 64, "%u", lo);
	else
		snprintf(buf, 64, "%u-%u", lo, hi);
	return buf;
}

static void json_names(const char *key, uint32_t set, const char *const *names, uint32_t n)
{
	jw_key(&json, key);
	jw_array_begin(&json);
	for (uint32_t i = 0; i < n; i++)
		if (set & (1u << i))
			jw_string(&json, names[i]);
	jw_array_end(&json);
}

/* A rule; of a two-way policy with its directions, states and whether the
 * parser added it. */
static void json_rule(const struct ta_rule_spec *r, bool two_way)
{
	char buf[64];

	jw_object_begin(&json);
	jw_kv_string(&json, "action", ta_action_name(r->action));
	if (r->action == TA_ACT_REDIRECT)
		jw_kv_string(&json, "dev", r->redirect_dev);
	if (r->pos.line)
		jw_kv_u64(&json, "line", r->pos.line);
	if (two_way) {
		json_names("directions", ta_rule_dirs(r), ta_dir_names, TA_DIR_MAX);
		json_names("states", r->states ? r->states : TA_STATES_ALL, ta_ct_state_names,
			   TA_CT_STATE_MAX);
		jw_kv_bool(&json, "implicit", r->implicit);
	}
	for (int f = 0; f < TA_F_MAX; f++) {
		if (!(r->fields & (1u << f)))
			continue;
		jw_key(&json, ta_field_name(f));
		switch (f) {
		case TA_F_VLAN: jw_u64(&json, r->vlan); break;
		case TA_F_SRC_MAC: jw_string(&json, ta_format_mac(r->src_mac, buf)); break;
		case TA_F_DST_MAC: jw_string(&json, ta_format_mac(r->dst_mac, buf)); break;
		case TA_F_ETHERTYPE: jw_u64(&json, r->ethertype); break;
		case TA_F_SRC_IP: jw_string(&json, ta_format_prefix(&r->src_ip, buf)); break;
		case TA_F_DST_IP: jw_string(&json, ta_format_prefix(&r->dst_ip, buf)); break;
		case TA_F_IP_PROTO: jw_u64(&json, r->ip_proto); break;
		case TA_F_SRC_PORT: jw_string(&json, port_range(r->sport_lo, r->sport_hi, buf)); break;
		case TA_F_DST_PORT: jw_string(&json, port_range(r->dport_lo, r->dport_hi, buf)); break;
		case TA_F_ICMP_TYPE: jw_u64(&json, r->icmp_type); break;
		}
	}
	jw_object_end(&json);
}

static void json_action(const char *key, uint32_t action, const char *dev)
{
	jw_key(&json, key);
	jw_object_begin(&json);
	jw_kv_string(&json, "action", ta_action_name(action));
	if (action == TA_ACT_REDIRECT)
		jw_kv_string(&json, "dev", dev);
	jw_object_end(&json);
}

/* A guard as JSON: flags, MAC, addresses. Also status's. */
void json_guard(const struct ta_guard_spec *g)
{
	char buf[64];

	jw_key(&json, "guard");
	jw_object_begin(&json);
	jw_kv_u64(&json, "flags", g->flags);
	if (g->flags & TA_GUARD_F_MAC)
		jw_kv_string(&json, "mac", ta_format_mac(g->mac, buf));
	jw_key(&json, "ip");
	jw_array_begin(&json);
	for (uint32_t i = 0; i < g->nr_ip4; i++)
		jw_string(&json, inet_ntop(AF_INET, &g->ip4[i], buf, sizeof(buf)));
	for (uint32_t i = 0; i < g->nr_ip6; i++)
		jw_string(&json, inet_ntop(AF_INET6, g->ip6[i], buf, sizeof(buf)));
	jw_array_end(&json);
	jw_object_end(&json);
}

/* The members of a policy object: rules, default, guard, rate, fdb. */
static void json_spec(const struct ta_policy_spec *spec)
{
	char mac[18];

	jw_key(&json, "rules");
	jw_array_begin(&json);
	for (uint32_t i = 0; i < spec->nr_rules; i++)
		json_rule(&spec->rules[i], ta_policy_two_way(spec));
	jw_array_end(&json);
	json_action("default", spec->default_action, spec->default_dev);
	if (ta_policy_two_way(spec))
		json_action("default_in", spec->default_in_action, NULL);
	json_guard(&spec->guard);
	jw_key(&json, "rate");
	jw_object_begin(&json);
	jw_kv_u64(&json, "pps", spec->rate.pps);
	jw_kv_u64(&json, "bps", spec->rate.bps);
	jw_kv_u64(&json, "burst_pkts", spec->rate.burst_pkts);
	jw_kv_u64(&json, "burst_bytes", spec->rate.burst_bytes);
	jw_object_end(&json);
	jw_key(&json, "fdb");
	jw_array_begin(&json);
	for (uint32_t i = 0; i < spec->nr_fdb; i++) {
		jw_object_begin(&json);
		jw_kv_string(&json, "mac", ta_format_mac(spec->fdb[i].mac, mac));
		jw_kv_string(&json, "dev", spec->fdb[i].dev);
		jw_object_end(&json);
	}
	jw_array_end(&json);
}

/* ---- check ------------------------------------------------------------ */

static int run_check(const void *opts, int argc, char **argv)
{
	struct ta_policy_spec spec;
	struct ta_error e;
	char hex[20];

	(void)opts;
	(void)argc;
	if (ta_policy_parse_file(argv[0], &spec, &e))
		return report_error(&e);
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "file", argv[0]);
		jw_kv_bool(&json, "ok", true);
		jw_kv_string(&json, "digest", digest_hex(spec.digest, hex));
		json_spec(&spec);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		uint32_t implicit = ta_policy_implicit_rules(&spec);

		printf("%s: ok, %u rules", argv[0], spec.nr_rules - implicit);
		if (ta_policy_two_way(&spec))
			printf(" both ways (and %u of the security group), default in %s", implicit,
			       ta_action_name(spec.default_in_action));
		printf(", %u fdb entries, guard %s, rate %s, digest %s\n", spec.nr_fdb,
		       spec.guard.flags ? "on" : "off", spec.rate.pps || spec.rate.bps ? "on" : "off",
		       digest_hex(spec.digest, hex));
	}
	ta_policy_spec_free(&spec);
	return EXIT_OK;
}

static const struct command check_cmd = {
	.name = "check",
	.args = "FILE",
	.summary = "validate a policy file (syntax, limits, duplicates) without the kernel",
	.help = "Validate FILE: its syntax, limits and duplicates, as 'policy load' would,\n"
		"without the kernel. Errors name FILE:LINE:COL (docs/policy.md).\n",
	.min_args = 1,
	.max_args = 1,
	.run = run_check,
};

/* ---- load ------------------------------------------------------------- */

static void report_load(const char *file, const char *name, const struct ta_policy_spec *spec,
			const struct ta_load_result *res, double ms)
{
	char hex[20];

	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "policy", name);
		jw_kv_string(&json, "file", file);
		jw_kv_u64(&json, "rules", spec->nr_rules);
		jw_kv_string(&json, "digest", digest_hex(spec->digest, hex));
		jw_kv_bool(&json, "created", res->created);
		jw_kv_bool(&json, "unchanged", res->unchanged);
		jw_kv_u64(&json, "taps", res->nr_taps);
		jw_key(&json, "load_ms");
		jw_double(&json, ms);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		printf("loaded %s as policy %s: %u rules, default %s, digest %016" PRIx64
		       ", %s%u taps (%.1f ms)\n", file, name, spec->nr_rules,
		       ta_action_name(spec->default_action), spec->digest,
		       res->created ? "new, " : res->unchanged ? "unchanged, " : "replaced for ",
		       res->nr_taps, ms);
	}
}

struct load_opts {
	bool is_default;
};

static const struct option_spec load_options[] = {
	{ "default", 0, OPT_FLAG, offsetof(struct load_opts, is_default), NULL,
	  "load FILE as policy default, the one every 'attach' without --policy\n"
	  "gives a new tap (then FILE is the only argument)", NULL, 0, 0 },
	OPTIONS_END,
};

/* NAME is a policy's name: not the tap-binding form of old, and not
 * "default" by accident. 0 or an exit code (told). */
static int load_target_check(const struct ta_plane *pl, const char *name, const char *file)
{
	uint32_t index;

	if (!strcmp(name, "default"))
		return user_error("policy load: policy default is what every 'attach' without "
				  "--policy binds a new tap to: replace it with 'tap-accel policy "
				  "load --default %s'", file);
	/* a loaded policy keeps its name, whatever interfaces are called */
	if (!ta_policy_find(pl, name, &index) || !if_nametoindex(name))
		return 0;
	return user_error("policy load: %s is an interface, not a loaded policy, and 'policy load' "
			  "binds no tap: bind it to the policy %s makes with 'tap-accel attach %s "
			  "--policy %s', or load the policy under another name", name, file, name,
			  file);
}

static int run_load(const void *opts, int argc, char **argv)
{
	const struct load_opts *o = opts;
	const char *target = argc == 2 ? argv[0] : "default", *file = argv[argc - 1];
	struct ta_policy_spec spec;
	struct ta_load_result res;
	struct ta_plane pl;
	struct ta_error e;
	double start;
	int ret;

	if (o->is_default && argc != 1)
		return user_error("policy load: --default loads FILE as policy default: give FILE "
				  "alone ('tap-accel policy load --default FILE')");
	if (!o->is_default && argc != 2)
		return user_error("policy load: expected NAME FILE (or --default FILE)");
	ret = require_admin("policy load");
	if (!ret)
		ret = open_plane(&pl, TA_PLANE_CREATE);
	if (ret)
		return ret;
	if (!o->is_default && (ret = load_target_check(&pl, target, file))) {
		ta_plane_close(&pl);
		return ret;
	}
	ret = ta_policy_read(file, &spec, &e);
	if (!ret) {
		start = now_ms();
		ret = ta_policy_load(&pl, target, &spec, false, &res, &e);
		if (!ret)
			report_load(file, target, &spec, &res, now_ms() - start);
		ta_policy_spec_free(&spec);
	}
	ta_plane_close(&pl);
	return ret ? report_error(&e) : EXIT_OK;
}

static const struct command load_cmd = {
	.name = "load",
	.args = "NAME FILE",
	.summary = "load FILE as policy NAME: new, or replaced for every tap bound to it at once",
	.help = "Load the policy file FILE as policy NAME. If NAME is loaded, its new version\n"
		"replaces it for every tap bound to it at once: each frame is judged by\n"
		"all of the old policy or all of the new, never some of each. Guard\n"
		"addresses are a tap's, not a policy's: give them with 'attach --guard'.\n"
		"It binds no tap: a NAME that is an interface and no loaded policy is\n"
		"refused ('attach IFACE --policy FILE' binds a tap to a file's policy).\n"
		"Policy default, which every 'attach' without --policy gives a new tap,\n"
		"is loaded only with --default: 'policy load --default FILE'.\n",
	.options = load_options,
	.opts_size = sizeof(struct load_opts),
	.min_args = 1,
	.max_args = 2,
	.run = run_load,
};

/* ---- show ------------------------------------------------------------- */

struct show_opts {
	bool previous;
};

/* The tap's own part of what it runs: its guard and its fdb. */
static int tap_part(struct ta_plane *pl, const struct ta_tap_state *st,
		    struct ta_policy_spec *spec)
{
	static struct ta_mac macs[TA_MAX_FDB];
	static uint32_t ports[TA_MAX_FDB];
	uint32_t nr, ifindex;
	char name[64];
	int err = ta_tap_guard_read(pl, st, &spec->guard);

	err = err ?: ta_fdb_read(pl, st->tap.id, macs, ports, TA_MAX_FDB, &nr);
	if (err)
		return err;
	free(spec->fdb);
	spec->fdb = calloc(nr ?: 1, sizeof(*spec->fdb));
	if (!spec->fdb)
		return -ENOMEM;
	for (spec->nr_fdb = 0; spec->nr_fdb < nr; spec->nr_fdb++) {
		struct ta_fdb_spec *f = &spec->fdb[spec->nr_fdb];

		memcpy(f->mac, macs[spec->nr_fdb].addr, 6);
		ta_port_name(pl, ports[spec->nr_fdb], name, &ifindex);
		snprintf(f->dev, sizeof(f->dev), "%.*s", IF_NAMESIZE - 1, name);
	}
	return 0;
}

static int run_show(const void *opts, int argc, char **argv)
{
	const struct show_opts *o = opts;
	struct ta_policy_info info;
	struct ta_policy_spec spec;
	struct ta_tap_state st;
	struct ta_tap_key key;
	struct ta_plane pl;
	char hex[20];
	bool tap;
	int ret, err;

	(void)argc;
	ret = open_plane(&pl, TA_PLANE_READ);
	if (ret)
		return ret;
	err = ta_policy_find(&pl, argv[0], &info.index);
	tap = err && !ta_tap_key_of(&pl, argv[0], &key);
	if (tap && (ret = find_tap(&pl, argv[0], &st)))
		goto out;
	if (!tap && err) {
		ret = user_error("no policy or bound tap is named %s; 'tap-accel policy list' and "
				 "'tap-accel status' list them", argv[0]);
		goto out;
	}
	err = ta_policy_get(&pl, tap ? st.tap.policy : info.index, &info);
	err = err ?: ta_policy_decode(&pl, info.index, info.slot ^ o->previous, &spec);
	if (!err && tap)
		err = tap_part(&pl, &st, &spec);
	if (err) {
		ret = errno_error(err, "cannot read policy %s", info.name);
		goto out;
	}
	if (cli.json) {
		jw_object_begin(&json);
		if (tap)
			jw_kv_string(&json, "ifname", argv[0]);
		jw_kv_string(&json, "policy", info.name);
		jw_kv_string(&json, "digest", digest_hex(spec.digest, hex));
		jw_kv_u64(&json, "taps", info.nr_taps);
		json_spec(&spec);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		if (tap)
			printf("# %s: policy %s, %u rules, digest %s\n", argv[0], info.name,
			       spec.nr_rules, digest_hex(spec.digest, hex));
		else
			printf("# policy %s%s: %u rules, digest %s, %u taps\n", info.name,
			       o->previous ? " (the version before)" : "", spec.nr_rules,
			       digest_hex(spec.digest, hex), info.nr_taps);
		ta_policy_write(stdout, &spec);
	}
	ta_policy_spec_free(&spec);
out:
	ta_plane_close(&pl);
	return ret;
}

static const struct option_spec show_options[] = {
	{ "previous", 0, OPT_FLAG, offsetof(struct show_opts, previous), NULL,
	  "the version the last load replaced", NULL, 0, 0 },
	OPTIONS_END,
};

static const struct command show_cmd = {
	.name = "show",
	.args = "NAME|IFACE",
	.summary = "what a policy holds, or what a tap runs, in the policy language",
	.help = "Print policy NAME as it is loaded, read back from its maps, in the policy\n"
		"language: loading the output gives the same policy. For a tap IFACE, its\n"
		"policy with its own guard and forwarding entries.\n",
	.options = show_options,
	.opts_size = sizeof(struct show_opts),
	.min_args = 1,
	.max_args = 1,
	.run = run_show,
};

/* ---- list, unload ------------------------------------------------------- */

static int run_list(const void *opts, int argc, char **argv)
{
	struct ta_policy_info *list;
	struct ta_plane pl;
	uint32_t n;
	char hex[20];
	int ret, err;

	(void)opts;
	(void)argc;
	(void)argv;
	ret = open_plane(&pl, TA_PLANE_READ);
	if (ret)
		return ret;
	err = ta_policies_read(&pl, &list, &n);
	ta_plane_close(&pl);
	if (err)
		return errno_error(err, "cannot read the policies");
	if (cli.json)
		jw_array_begin(&json);
	else
		printf("%-24s %6s %-9s %-16s %6s\n", "POLICY", "RULES", "DEFAULT", "DIGEST", "TAPS");
	for (uint32_t i = 0; i < n; i++) {
		const struct ta_policy_info *p = &list[i];

		digest_hex(p->head.digest, hex);
		if (!cli.json) {
			printf("%-24s %6u %-9s %-16s %6u%s\n", p->name, p->head.nr_rules,
			       ta_action_name(p->head.default_action), hex, p->nr_taps,
			       p->unbound ? "  (unbound taps)" : "");
			continue;
		}
		jw_object_begin(&json);
		jw_kv_string(&json, "policy", p->name);
		jw_kv_u64(&json, "rules", p->head.nr_rules);
		jw_kv_string(&json, "default", ta_action_name(p->head.default_action));
		jw_kv_string(&json, "digest", hex);
		jw_kv_u64(&json, "taps", p->nr_taps);
		jw_kv_bool(&json, "unbound", p->unbound);
		jw_object_end(&json);
	}
	if (cli.json) {
		jw_array_end(&json);
		jw_end_document(&json);
	}
	free(list);
	return EXIT_OK;
}

static const struct command list_cmd = {
	.name = "list",
	.summary = "the loaded policies and how many taps each serves",
	.help = "Every loaded policy: its NAME, RULES, DEFAULT action, the DIGEST of\n"
		"the version its taps run, and how many TAPS are bound to it (in every\n"
		"network namespace). The policy unbound taps get says '(unbound taps)'.\n",
	.max_args = 0,
	.run = run_list,
};

static int run_unload(const void *opts, int argc, char **argv)
{
	struct ta_plane pl;
	struct ta_error e;
	int ret;

	(void)opts;
	(void)argc;
	ret = require_admin("policy unload");
	if (!ret)
		ret = open_plane(&pl, TA_PLANE_WRITE);
	if (ret)
		return ret;
	ret = ta_policy_unload(&pl, argv[0], &e);
	ta_plane_close(&pl);
	if (ret)
		return report_error(&e);
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "policy", argv[0]);
		jw_kv_bool(&json, "unloaded", true);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		printf("unloaded policy %s\n", argv[0]);
	}
	return EXIT_OK;
}

static const struct command unload_cmd = {
	.name = "unload",
	.args = "NAME",
	.summary = "remove a policy no tap is bound to",
	.help = "Remove policy NAME and free what its versions held. Refused while a tap\n"
		"is bound to it: bind those taps to another policy, or detach them, first.\n",
	.min_args = 1,
	.max_args = 1,
	.run = run_unload,
};

static const struct command *const policy_cmds[] = {
	&check_cmd, &load_cmd, &show_cmd, &list_cmd, &unload_cmd, &explain_cmd, &import_cmd, NULL,
};

const struct command policy_cmd = {
	.name = "policy",
	.summary = "named policies: check, load, show, list, unload, explain, import",
	.sub = policy_cmds,
};
