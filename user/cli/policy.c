// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy.c - policy check (the file alone, no kernel), policy load (into an
 * attached instance, atomically for the rules) and policy show.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/policy_decode.h"
#include "lib/policy_parse.h"
#include "verbs.h"

static const char policy_usage[] =
	"Usage: tap-accel policy check FILE\n"
	"       tap-accel policy load IFACE FILE\n"
	"       tap-accel policy show IFACE\n"
	"       tap-accel policy explain FILE --frame HEX\n"
	"\n"
	"check  validate a policy file (syntax, limits, duplicates) without the kernel\n"
	"load   make IFACE's rules, default, guard, rate and fdb those of FILE; the\n"
	"       rules change atomically: every frame sees all of the old or all of\n"
	"       the new policy\n"
	"show   what IFACE runs now\n"
	"explain  what FILE does with one frame, and why (no kernel needed)\n"
	"\n"
	"The language is described in docs/policy.md.\n";

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int parse_file(const char *file, struct ta_policy_spec *spec)
{
	char err[512];
	int ret = ta_policy_parse_file(file, spec, err, sizeof(err));

	if (!ret)
		return 0;
	/* FILE:LINE:COL first, as compilers do, so editors can jump there. */
	return plain_error(ret == -EINVAL || ret == -ENOENT || ret == -EISDIR ? EXIT_USER : EXIT_SYSTEM,
			   "%s", err);
}

static int resolve(const char *file, const struct ta_srcpos *pos, const char *dev,
		   uint32_t *ifindex)
{
	*ifindex = if_nametoindex(dev);
	if (*ifindex)
		return 0;
	if (pos->line)
		return plain_error(EXIT_USER, "%s:%d:%d: interface %s not found", file, pos->line,
				   pos->col, dev);
	return plain_error(EXIT_USER, "%s: interface %s not found", file, dev);
}

int policy_read(const char *file, struct ta_policy_spec *spec)
{
	struct ta_srcpos nowhere = { 0 };
	int ret = parse_file(file, spec);

	for (uint32_t i = 0; !ret && i < spec->nr_rules; i++) {
		struct ta_rule_spec *r = &spec->rules[i];

		if (r->action == TA_ACT_REDIRECT)
			ret = resolve(file, &r->pos, r->redirect_dev, &r->ifindex);
	}
	for (uint32_t i = 0; !ret && i < spec->nr_fdb; i++)
		ret = resolve(file, &spec->fdb[i].pos, spec->fdb[i].dev, &spec->fdb[i].ifindex);
	if (!ret && spec->default_action == TA_ACT_REDIRECT)
		ret = resolve(file, &nowhere, spec->default_dev, &spec->default_ifindex);
	if (ret)
		ta_policy_spec_free(spec);
	return ret;
}

static bool fdb_in_spec(const struct ta_policy_spec *spec, const uint8_t mac[6])
{
	for (uint32_t i = 0; i < spec->nr_fdb; i++)
		if (!memcmp(spec->fdb[i].mac, mac, 6))
			return true;
	return false;
}

/* Make the fdb equal to the file's: add its entries, then drop the rest. */
static int sync_fdb(const struct ta_maps *maps, const struct ta_policy_spec *spec)
{
	static struct ta_mac stale[TA_MAX_FDB];
	struct ta_mac key, next;
	uint32_t nr_stale = 0;
	void *prev = NULL;
	int err;

	for (uint32_t i = 0; i < spec->nr_fdb; i++) {
		err = ta_fdb_add(maps, spec->fdb[i].mac, spec->fdb[i].ifindex);
		if (err)
			return err;
	}
	while (nr_stale < TA_MAX_FDB && !bpf_map_get_next_key(maps->ta_fdb, prev, &next)) {
		if (!fdb_in_spec(spec, next.addr))
			stale[nr_stale++] = next;
		key = next;
		prev = &key;
	}
	for (uint32_t i = 0; i < nr_stale; i++) {
		err = ta_fdb_del(maps, stale[i].addr);
		if (err && err != -ENOENT)
			return err;
	}
	return 0;
}

int policy_apply(const char *ifname, const struct ta_maps *maps,
		 const struct ta_policy_spec *spec)
{
	int err;

	err = sync_fdb(maps, spec);
	if (err)
		return errno_error(err, "cannot write the fdb of %s", ifname);
	err = ta_policy_install(maps, spec);
	if (err == -E2BIG || err == -ENOSPC)
		return user_error("the rules do not fit the program's maps (%s); split or simplify them",
				  strerror(-err));
	if (err)
		return errno_error(err, "cannot install the rules on %s", ifname);
	err = ta_guard_install(maps, &spec->guard);
	if (err)
		return errno_error(err, "cannot install the guard on %s", ifname);
	err = ta_rate_install(maps, &spec->rate);
	if (err)
		return errno_error(err, "cannot install the rate limit on %s", ifname);
	return EXIT_OK;
}

/* ---- check ------------------------------------------------------------ */

/* "53" or "1000-2000", as in the policy file. */
static const char *port_range(uint16_t lo, uint16_t hi, char *buf)
{
	if (lo == hi)
		snprintf(buf, 64, "%u", lo);
	else
		snprintf(buf, 64, "%u-%u", lo, hi);
	return buf;
}

static void json_rule(const struct ta_rule_spec *r)
{
	char buf[64];

	jw_object_begin(&json);
	jw_kv_string(&json, "action", ta_action_name(r->action));
	if (r->action == TA_ACT_REDIRECT)
		jw_kv_string(&json, "dev", r->redirect_dev);
	if (r->pos.line)
		jw_kv_u64(&json, "line", r->pos.line);
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

static void json_guard(const struct ta_guard_spec *g)
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
		json_rule(&spec->rules[i]);
	jw_array_end(&json);
	json_action("default", spec->default_action, spec->default_dev);
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

static int policy_check(const char *file)
{
	struct ta_policy_spec spec;
	char hex[20];
	int ret = parse_file(file, &spec);

	if (ret)
		return ret;
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "file", file);
		jw_kv_bool(&json, "ok", true);
		jw_kv_string(&json, "digest", digest_hex(spec.digest, hex));
		json_spec(&spec);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		printf("%s: ok, %u rules, %u fdb entries, guard %s, rate %s, digest %s\n", file,
		       spec.nr_rules, spec.nr_fdb, spec.guard.flags ? "on" : "off",
		       spec.rate.pps || spec.rate.bps ? "on" : "off", digest_hex(spec.digest, hex));
	}
	ta_policy_spec_free(&spec);
	return EXIT_OK;
}

/* ---- load ------------------------------------------------------------- */

static int policy_load(const char *ifname, const char *file)
{
	struct ta_policy_spec spec;
	unsigned int ifindex;
	char hex[20];
	struct ta_pins p;
	double start;
	int ret;

	ret = require_interface(ifname, &ifindex);
	if (!ret)
		ret = policy_read(file, &spec);
	if (ret)
		return ret;
	ret = require_admin("policy load");
	if (!ret)
		ret = open_pinned(ifname, &p);
	if (ret) {
		ta_policy_spec_free(&spec);
		return ret;
	}
	start = now_ms();
	ret = policy_apply(ifname, &p.maps, &spec);
	if (!ret && cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "ifname", ifname);
		jw_kv_string(&json, "file", file);
		jw_kv_u64(&json, "rules", spec.nr_rules);
		jw_kv_string(&json, "digest", digest_hex(spec.digest, hex));
		jw_key(&json, "load_ms");
		jw_double(&json, now_ms() - start);
		jw_object_end(&json);
		jw_end_document(&json);
	} else if (!ret) {
		printf("loaded %s into %s: %u rules, default %s, digest %016" PRIx64 " (%.1f ms)\n",
		       file, ifname, spec.nr_rules, ta_action_name(spec.default_action), spec.digest,
		       now_ms() - start);
	}
	ta_pins_close(&p);
	ta_policy_spec_free(&spec);
	return ret;
}

/* ---- show -------------------------------------------------------------- */

static int policy_show(const char *ifname)
{
	struct ta_policy_spec spec;
	struct ta_pins p;
	char hex[20];
	int ret, err;

	ret = open_pinned(ifname, &p);
	if (ret)
		return ret;
	err = ta_policy_decode(&p.maps, &spec);
	ta_pins_close(&p);
	if (err)
		return errno_error(err, "cannot read the policy of %s", ifname);
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "ifname", ifname);
		jw_kv_string(&json, "digest", digest_hex(spec.digest, hex));
		json_spec(&spec);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		printf("# %s: %u rules, digest %s\n", ifname, spec.nr_rules,
		       digest_hex(spec.digest, hex));
		ta_policy_write(stdout, &spec);
	}
	ta_policy_spec_free(&spec);
	return EXIT_OK;
}

int cmd_policy(int argc, char **argv)
{
	int n, ret;

	/* explain has options of its own. */
	if (argc >= 2 && !strcmp(argv[1], "explain"))
		return cmd_policy_explain(argc - 1, argv + 1);
	n = parse_verb_options(argc, argv, policy_usage, NULL, &ret);
	if (n < 0)
		return ret;
	if (n == 2 && !strcmp(argv[1], "check"))
		return policy_check(argv[2]);
	if (n == 3 && !strcmp(argv[1], "load"))
		return policy_load(argv[2], argv[3]);
	if (n == 2 && !strcmp(argv[1], "show"))
		return policy_show(argv[2]);
	user_error("policy: expected check FILE, load IFACE FILE, show IFACE or explain FILE --frame HEX");
	fputs(policy_usage, stderr);
	return EXIT_USER;
}
