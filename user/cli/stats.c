// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * stats.c - the counters of one or every tap-accel instance: per verdict,
 * per rule (the active policy and the one before it), per guard reason,
 * per parse class and per event. Totals, or per-second rates with
 * --interval.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/counters.h"
#include "lib/names.h"
#include "lib/policy_decode.h"
#include "lib/policy_parse.h"
#include "lib/util.h"
#include "verbs.h"

static const char stats_usage[] =
	"Usage: tap-accel stats [IFACE] [--interval S] [--count N]\n"
	"\n"
	"Packets and bytes per verdict, per rule, per guard reason, per parse\n"
	"class and per event, for IFACE or every attached interface.\n"
	"  --interval S  print rates per second every S seconds instead of totals\n"
	"  --count N     stop after N intervals (default: run until interrupted)\n";

/* Counters of one instance at one moment. */
struct snapshot {
	double time; /* seconds, monotonic */
	uint32_t slot;
	struct ta_policy pol[TA_SLOTS];
	struct ta_rule_action act[TA_SLOTS][TA_MAX_RULES];
	struct ta_counter verdict[TA_NR_VERDICTS];
	struct ta_counter rule[TA_SLOTS][TA_RULE_STAT_SLOT];
	struct ta_counter guard[TA_GUARD_MAX];
	struct ta_counter parse[TA_PARSE_MAX];
	struct ta_counter event[TA_EV_MAX];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_rules(const struct ta_maps *m, struct snapshot *s, uint32_t slot)
{
	uint32_t base = slot * TA_RULE_STAT_SLOT;
	int err;

	if (bpf_map_lookup_elem(m->ta_policy, &slot, &s->pol[slot]))
		return -errno;
	if (s->pol[slot].nr_rules > TA_MAX_RULES)
		return -EINVAL;
	for (uint32_t i = 0; i < s->pol[slot].nr_rules; i++) {
		uint32_t key = slot * TA_MAX_RULES + i;

		if (bpf_map_lookup_elem(m->ta_rules, &key, &s->act[slot][i]))
			return -errno;
		err = ta_counter_read(m->ta_st_rule, base + i, &s->rule[slot][i]);
		if (err)
			return err;
	}
	return ta_counter_read(m->ta_st_rule, base + TA_MAX_RULES, &s->rule[slot][TA_MAX_RULES]);
}

static int take_snapshot(const struct ta_maps *m, struct snapshot *s)
{
	struct ta_policy active;
	int err;

	memset(s, 0, sizeof(*s));
	s->time = now_s();
	err = ta_policy_active(m, &s->slot, &active);
	for (uint32_t slot = 0; !err && slot < TA_SLOTS; slot++)
		err = read_rules(m, s, slot);
	if (!err)
		err = ta_counters_read(m->ta_st_verdict, 0, TA_NR_VERDICTS, s->verdict);
	if (!err)
		err = ta_counters_read(m->ta_st_guard, 0, TA_GUARD_MAX, s->guard);
	if (!err)
		err = ta_counters_read(m->ta_st_parse, 0, TA_PARSE_MAX, s->parse);
	if (!err)
		err = ta_counters_read(m->ta_st_event, 0, TA_EV_MAX, s->event);
	return err;
}

/* ---- output ------------------------------------------------------------ */

/* Totals, or rates per second when `base` (the previous snapshot) is given. */
struct view {
	const struct snapshot *now, *base;
	double seconds;
};

static void value(const struct view *v, const struct ta_counter *now,
		  const struct ta_counter *base, double *pkts, double *bytes)
{
	*pkts = (double)now->packets;
	*bytes = (double)now->bytes;
	if (v->base) {
		*pkts = (now->packets - base->packets) / v->seconds;
		*bytes = (now->bytes - base->bytes) / v->seconds;
	}
}

static void emit(const struct view *v, const char *label, const char *extra,
		 const struct ta_counter *now, const struct ta_counter *base, bool skip_zero)
{
	double pkts, bytes;

	value(v, now, base, &pkts, &bytes);
	if (cli.json) {
		if (v->base) {
			jw_key(&json, "packets_per_sec");
			jw_double(&json, pkts);
			jw_key(&json, "bytes_per_sec");
			jw_double(&json, bytes);
		} else {
			jw_kv_u64(&json, "packets", now->packets);
			jw_kv_u64(&json, "bytes", now->bytes);
		}
		return;
	}
	if (skip_zero && !now->packets)
		return;
	if (v->base)
		printf("  %-20s %12.1f pps %14.1f B/s", label, pkts, bytes);
	else
		printf("  %-20s %12.0f pkts %14.0f B", label, pkts, bytes);
	printf("%s%s\n", *extra ? "  " : "", extra);
}

/* A group of named counters: JSON object of objects, or text lines. */
static void emit_group(const struct view *v, const char *group, const char *const *names,
		       const struct ta_counter *now, const struct ta_counter *base, uint32_t n)
{
	char label[48], fallback[16];

	if (cli.json) {
		jw_key(&json, group);
		jw_object_begin(&json);
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *name = names[i];

		if (!name) {
			snprintf(fallback, sizeof(fallback), "%u", i);
			name = fallback;
		}
		if (cli.json) {
			jw_key(&json, name);
			jw_object_begin(&json);
		}
		snprintf(label, sizeof(label), "%s %s", group, name);
		/* Verdicts always show; the rest only when something happened. */
		emit(v, label, "", &now[i], base ? &base[i] : NULL, strcmp(group, "verdict"));
		if (cli.json)
			jw_object_end(&json);
	}
	if (cli.json)
		jw_object_end(&json);
}

static void emit_rule(const struct view *v, uint32_t slot, uint32_t i, bool skip_zero)
{
	const struct snapshot *s = v->now;
	const struct ta_counter *base = v->base ? &v->base->rule[slot][i] : NULL;
	bool is_default = i == TA_MAX_RULES;
	uint32_t action = is_default ? s->pol[slot].default_action : s->act[slot][i].action;
	uint32_t ifindex = is_default ? s->pol[slot].default_ifindex : s->act[slot][i].ifindex;
	char label[32], extra[40], dev[IF_NAMESIZE];

	snprintf(extra, sizeof(extra), "%s%s%s", ta_action_name(action),
		 action == TA_ACT_REDIRECT ? " " : "",
		 action == TA_ACT_REDIRECT ? ifname_of(ifindex, dev) : "");
	if (cli.json) {
		jw_object_begin(&json);
		if (is_default)
			jw_kv_string(&json, "rule", "default");
		else
			jw_kv_u64(&json, "rule", i);
		jw_kv_string(&json, "action", extra);
		emit(v, NULL, NULL, &s->rule[slot][i], base, false);
		jw_object_end(&json);
		return;
	}
	if (is_default)
		snprintf(label, sizeof(label), "default");
	else
		snprintf(label, sizeof(label), "rule %u", i);
	emit(v, label, extra, &s->rule[slot][i], base, skip_zero);
}

static void emit_rules(const struct view *v, const char *key, uint32_t slot, bool skip_zero)
{
	if (cli.json) {
		jw_key(&json, key);
		jw_array_begin(&json);
	}
	for (uint32_t i = 0; i < v->now->pol[slot].nr_rules; i++)
		emit_rule(v, slot, i, skip_zero);
	emit_rule(v, slot, TA_MAX_RULES, skip_zero);
	if (cli.json)
		jw_array_end(&json);
}

static bool slot_has_counts(const struct snapshot *s, uint32_t slot)
{
	for (uint32_t i = 0; i < TA_RULE_STAT_SLOT; i++)
		if (s->rule[slot][i].packets)
			return true;
	return false;
}

static void emit_instance(const char *ifname, const struct view *v)
{
	const struct snapshot *s = v->now, *b = v->base;
	uint32_t prev = (s->slot + 1) % TA_SLOTS;
	char hex[20];

	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "ifname", ifname);
		if (b) {
			jw_key(&json, "interval");
			jw_double(&json, v->seconds);
		}
		jw_kv_u64(&json, "slot", s->slot);
		jw_kv_string(&json, "digest", digest_hex(s->pol[s->slot].digest, hex));
	} else {
		printf("%s: policy %016llx, %u rules (slot %u)%s\n", ifname,
		       (unsigned long long)s->pol[s->slot].digest, s->pol[s->slot].nr_rules,
		       s->slot, b ? ", per second" : "");
	}
	emit_group(v, "verdict", ta_verdict_names, s->verdict, b ? b->verdict : NULL, TA_NR_VERDICTS);
	emit_rules(v, "rules", s->slot, false);
	/* Frames counted under the policy this one replaced. */
	if (cli.json) {
		emit_rules(v, "previous_rules", prev, false);
	} else if (slot_has_counts(s, prev)) {
		printf("  previous policy %016llx (slot %u):\n",
		       (unsigned long long)s->pol[prev].digest, prev);
		emit_rules(v, "previous_rules", prev, true);
	}
	emit_group(v, "guard", ta_guard_names, s->guard, b ? b->guard : NULL, TA_GUARD_MAX);
	emit_group(v, "parse", ta_parse_names, s->parse, b ? b->parse : NULL, TA_PARSE_MAX);
	emit_group(v, "event", ta_event_names, s->event, b ? b->event : NULL, TA_EV_MAX);
	if (cli.json)
		jw_object_end(&json);
}

/* ---- instances ---------------------------------------------------------- */

#define MAX_INSTANCES 256

struct instance {
	char ifname[IF_NAMESIZE];
	struct ta_pins pins;
	struct snapshot snap[2]; /* alternately previous and current */
};

struct instances {
	struct instance *list;
	int count;
};

/* Only interfaces of this network namespace that still exist. */
static int add_instance(const struct ta_pins_entry *en, void *arg)
{
	struct instances *all = arg;
	struct instance *in = &all->list[all->count];
	struct ta_error e;

	if (all->count == MAX_INSTANCES || ta_ifname_valid(en->ifname) ||
	    !if_nametoindex(en->ifname) || !ta_pins_used_here(en))
		return 0;
	memcpy(in->ifname, en->ifname, strlen(en->ifname) + 1);
	if (!ta_pins_open(in->ifname, &in->pins, &e))
		all->count++;
	else
		warning(&e);
	return 0;
}

static int open_instances(const char *ifname, struct instance **list, int *count)
{
	struct instances all;
	struct ta_error e;
	int ret;

	*list = calloc(ifname ? 1 : MAX_INSTANCES, sizeof(**list));
	if (!*list)
		return system_error("out of memory");
	*count = 0;
	if (ifname) {
		snprintf((*list)[0].ifname, IF_NAMESIZE, "%s", ifname);
		ret = open_pinned(ifname, &(*list)[0].pins);
		*count = !ret;
		return ret;
	}
	all.list = *list;
	all.count = 0;
	ret = ta_pins_each(false, add_instance, &all, &e);
	*count = all.count;
	return ret ? report_error(&e) : EXIT_OK;
}

static int sample(struct instance *in, int which)
{
	int err = take_snapshot(&in->pins.maps, &in->snap[which]);

	if (err)
		return errno_error(err, "cannot read the counters of %s", in->ifname);
	return 0;
}

/* One report over every instance; an array in JSON unless IFACE was given. */
static void report(struct instance *list, int count, int cur, bool rates, bool single)
{
	if (cli.json && !single)
		jw_array_begin(&json);
	for (int i = 0; i < count; i++) {
		struct view v = { .now = &list[i].snap[cur] };

		if (rates) {
			v.base = &list[i].snap[!cur];
			v.seconds = v.now->time - v.base->time;
		}
		emit_instance(list[i].ifname, &v);
	}
	if (cli.json) {
		if (!single)
			jw_array_end(&json);
		jw_end_document(&json);
	}
	fflush(stdout);
}

static int parse_positive(const char *opt, const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (*end || !(*v > 0) || *v > 86400)
		return user_error("stats: --%s expects a positive number, not '%s'", opt, s);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	struct verb_option opts[] = {
		{ "interval", true, NULL, 0 }, { "count", true, NULL, 0 }, { NULL, false, NULL, 0 },
	};
	struct instance *list = NULL;
	double interval = 0, count = 0;
	const char *ifname;
	int n, ret, nr = 0;

	n = parse_verb_options(argc, argv, stats_usage, opts, &ret);
	if (n < 0)
		return ret;
	if (n > 1)
		return user_error("stats: expected at most one interface; see tap-accel stats --help");
	ifname = n ? argv[1] : NULL;
	if (opts[0].value && (ret = parse_positive("interval", opts[0].value, &interval)))
		return ret;
	if (opts[1].value && (ret = parse_positive("count", opts[1].value, &count)))
		return ret;
	if (opts[1].value && !opts[0].value)
		return user_error("stats: --count needs --interval");
	ret = open_instances(ifname, &list, &nr);
	for (int i = 0; !ret && i < nr; i++)
		ret = sample(&list[i], 0);
	if (!ret && !interval)
		report(list, nr, 0, false, ifname);
	for (int round = 1; !ret && interval && (!count || round <= (int)count); round++) {
		usleep((useconds_t)(interval * 1e6));
		for (int i = 0; !ret && i < nr; i++)
			ret = sample(&list[i], round % 2);
		if (!ret)
			report(list, nr, round % 2, true, ifname);
	}
	for (int i = 0; list && i < nr; i++)
		ta_pins_close(&list[i].pins);
	free(list);
	return ret;
}
