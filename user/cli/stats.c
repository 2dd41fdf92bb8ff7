// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * stats.c - the counters of bound taps: per verdict, per rule (of the
 * version of its policy the tap runs, and of the one before), per guard
 * reason, per parse class and per event. Totals, or per-second rates with
 * --interval, or the totals for Prometheus with --prometheus (lib/output/prom.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/output/prom.h"
#include "lib/plane/conntrack.h"
#include "lib/plane/counters.h"
#include "lib/plane/decode.h"
#include "lib/plane/policies.h"
#include "lib/plane/ports.h"
#include "lib/plane/taps.h"
#include "lib/policy/names.h"
#include "verbs.h"

struct stats_opts {
	double interval;
	long count;
	bool all;
	bool prometheus;
	bool rules;
};

/* A group of a tap's counters (tap_accel.h: ta_counters). */
struct group {
	const char *name;
	uint32_t first, n;
	const char *const *names;
};

static const struct group groups[] = {
	{ "verdict", TA_STAT_VERDICT, TA_NR_VERDICTS, ta_verdict_names },
	{ "guard", TA_STAT_GUARD, TA_GUARD_MAX, ta_guard_names },
	{ "parse", TA_STAT_PARSE, TA_PARSE_MAX, ta_parse_names },
	{ "event", TA_STAT_EVENT, TA_EV_MAX, ta_event_names },
	{ "conntrack", TA_STAT_CT, TA_CT_C_MAX, ta_ct_counter_names },
};

/* The rules of one version, as counted on one tap. */
struct rules {
	bool have;
	struct ta_rule_counters info;
	const struct ta_policy_spec *spec; /* their actions, for labels */
	struct ta_counter *count;	   /* nr_rules + 1 */
};

/* The actions of each version, read once for all its taps. */
struct labels {
	uint32_t version;
	uint64_t digest;
	struct ta_policy_spec spec;
};

/* each allocated on its own: rules point at their spec while more come */
static struct labels **labels;
static uint32_t nr_labels;

/* Counters of one tap at one moment. */
struct snapshot {
	double time; /* seconds, monotonic */
	struct ta_counter stat[TA_TAP_STATS];
	struct rules rules[2]; /* the version run now, the one before */
	uint32_t tracked;      /* its connections in the table now: a gauge */
};

struct tap {
	struct ta_tap_state st;
	char policy[TA_POLICY_NAME_LEN];
	struct snapshot snap[2]; /* alternately previous and current */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void rules_free(struct rules *r)
{
	free(r->count);
	memset(r, 0, sizeof(*r));
}

/* The actions of the version the counters count. If it was replaced since
 * (the counters outlive it), they are labelled by position only. */
static const struct ta_policy_spec *labels_of(const struct ta_plane *pl,
					      const struct ta_rule_counters *info)
{
	struct labels *l, **more;

	for (uint32_t i = 0; i < nr_labels; i++)
		if (labels[i]->version == info->version && labels[i]->digest == info->digest)
			return &labels[i]->spec;
	more = realloc(labels, (nr_labels + 1) * sizeof(*labels));
	if (!more)
		return NULL;
	labels = more;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	labels[nr_labels] = l;
	l->version = info->version;
	l->digest = info->digest;
	if (ta_policy_decode_actions(pl, info->version / TA_SLOTS, info->version % TA_SLOTS,
				     &l->spec) ||
	    l->spec.digest != info->digest || l->spec.nr_rules != info->nr_rules) {
		memset(&l->spec, 0, sizeof(l->spec));
		l->spec.nr_rules = info->nr_rules;
		l->spec.rules = calloc(info->nr_rules ?: 1, sizeof(*l->spec.rules));
		if (!l->spec.rules) {
			free(l);
			return NULL;
		}
	}
	nr_labels++;
	return &l->spec;
}

static void labels_free(void)
{
	for (uint32_t i = 0; i < nr_labels; i++) {
		ta_policy_spec_free(&labels[i]->spec);
		free(labels[i]);
	}
	free(labels);
}

static int read_rules(const struct ta_plane *pl, const struct ta_tap_state *st, int which,
		      struct rules *r)
{
	static struct ta_counter sums[TA_MAX_RULES + 1];
	int err;

	rules_free(r);
	err = ta_tap_rule_counters(pl, st, which, &r->info, sums);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	r->spec = labels_of(pl, &r->info);
	r->count = malloc((r->info.nr_rules + 1) * sizeof(*r->count));
	if (!r->count || !r->spec)
		return -ENOMEM;
	memcpy(r->count, sums, (r->info.nr_rules + 1) * sizeof(*r->count));
	r->have = true;
	return 0;
}

static int take_snapshot(const struct ta_plane *pl, struct tap *t, struct snapshot *s)
{
	int err;

	s->time = now_s();
	err = ta_tap_stats_read(pl, &t->st, s->stat);
	err = err ?: ta_conns_tracked(pl, t->st.tap.id, &s->tracked);
	err = err ?: read_rules(pl, &t->st, 0, &s->rules[0]);
	err = err ?: read_rules(pl, &t->st, 1, &s->rules[1]);
	return err;
}

/* ---- output ------------------------------------------------------------ */

/*
 * Totals, or rates per second when `base` (the previous snapshot) is
 * given. Each object has a plain printer and a JSON one, as bpftool's do;
 * report() picks the set once.
 */
struct view {
	const struct ta_plane *pl;
	const struct snapshot *now, *base;
	double seconds;
};

/* One counter as the view shows it: its total, or its rate since `base`. */
static void counter_value(const struct view *v, const struct ta_counter *now,
			  const struct ta_counter *base, double *pkts, double *bytes)
{
	*pkts = (double)now->packets;
	*bytes = (double)now->bytes;
	if (base) {
		*pkts = (now->packets - base->packets) / v->seconds;
		*bytes = (now->bytes - base->bytes) / v->seconds;
	}
}

/* "redirect DEV", or the action's name. */
static void rule_action(const struct rules *r, uint32_t i, char *buf, size_t size)
{
	bool is_default = i == r->info.nr_rules;
	uint32_t action = is_default ? r->spec->default_action : r->spec->rules[i].action;
	const char *dev = is_default ? r->spec->default_dev : r->spec->rules[i].redirect_dev;

	snprintf(buf, size, "%s%s%s", ta_action_name(action),
		 action == TA_ACT_REDIRECT ? " " : "", action == TA_ACT_REDIRECT ? dev : "");
}

/* The counter of rule i in the version before, when it is the same version. */
static const struct ta_counter *rule_base(const struct rules *b, const struct rules *r,
					  uint32_t i)
{
	return b && b->have && b->info.version == r->info.version ? &b->count[i] : NULL;
}

static const struct rules *base_rules(const struct view *v, int which)
{
	return v->base ? &v->base->rules[which] : NULL;
}

/* ---- plain text ---- */

static void plain_counter(const struct view *v, const char *label, const char *extra,
			  const struct ta_counter *now, const struct ta_counter *base,
			  bool skip_zero)
{
	double pkts, bytes;

	if (skip_zero && !now->packets)
		return;
	counter_value(v, now, base, &pkts, &bytes);
	if (v->base)
		printf("  %-20s %12.1f pps %14.1f B/s", label, pkts, bytes);
	else
		printf("  %-20s %12.0f pkts %14.0f B", label, pkts, bytes);
	printf("%s%s\n", *extra ? "  " : "", extra);
}

/* Verdicts always show; the rest only when something happened. */
static void plain_group(const struct view *v, const struct group *g)
{
	char label[48];

	for (uint32_t i = 0; i < g->n; i++) {
		snprintf(label, sizeof(label), "%s %s", g->name, g->names[i]);
		plain_counter(v, label, "", &v->now->stat[g->first + i],
			      v->base ? &v->base->stat[g->first + i] : NULL,
			      g->first != TA_STAT_VERDICT);
	}
}

static void plain_rules(const struct view *v, int which, bool skip_zero)
{
	const struct rules *r = &v->now->rules[which];
	char label[32], action[48];

	for (uint32_t i = 0; r->have && i <= r->info.nr_rules; i++) {
		if (i == r->info.nr_rules)
			snprintf(label, sizeof(label), "default");
		else
			snprintf(label, sizeof(label), "rule %u", i);
		rule_action(r, i, action, sizeof(action));
		plain_counter(v, label, action, &r->count[i], rule_base(base_rules(v, which), r, i),
			      skip_zero);
	}
}

static bool rules_counted(const struct rules *r)
{
	for (uint32_t i = 0; r->have && i <= r->info.nr_rules; i++)
		if (r->count[i].packets)
			return true;
	return false;
}

static void plain_tap(const struct tap *t, const struct view *v)
{
	const struct rules *now = &v->now->rules[0], *prev = &v->now->rules[1];
	char hex[20];

	digest_hex(now->info.digest, hex);
	printf("%s: policy %s (%s), %u rules%s\n", t->st.ifname, t->policy, hex,
	       now->info.nr_rules, v->base ? ", per second" : "");
	plain_group(v, &groups[0]);
	plain_rules(v, 0, false);
	/* Frames counted under the version this one replaced, while there are any. */
	if (rules_counted(prev)) {
		printf("  previous version %016llx:\n", (unsigned long long)prev->info.digest);
		plain_rules(v, 1, true);
	}
	for (size_t g = 1; g < sizeof(groups) / sizeof(groups[0]); g++)
		plain_group(v, &groups[g]);
	if (v->now->tracked)
		printf("  %-20s %12u now\n", "conntrack tracked", v->now->tracked);
}

/* ---- JSON ---- */

static void json_counter(const struct view *v, const struct ta_counter *now,
			 const struct ta_counter *base)
{
	double pkts, bytes;

	if (!v->base) {
		jw_kv_u64(&json, "packets", now->packets);
		jw_kv_u64(&json, "bytes", now->bytes);
		return;
	}
	counter_value(v, now, base, &pkts, &bytes);
	jw_key(&json, "packets_per_sec");
	jw_double(&json, pkts);
	jw_key(&json, "bytes_per_sec");
	jw_double(&json, bytes);
}

/* An object of objects, one per counter of the group, each always there. */
static void json_group(const struct view *v, const struct group *g)
{
	jw_key(&json, g->name);
	jw_object_begin(&json);
	for (uint32_t i = 0; i < g->n; i++) {
		jw_key(&json, g->names[i]);
		jw_object_begin(&json);
		json_counter(v, &v->now->stat[g->first + i],
			     v->base ? &v->base->stat[g->first + i] : NULL);
		jw_object_end(&json);
	}
	jw_object_end(&json);
}

static void json_rules(const struct view *v, const char *key, int which)
{
	const struct rules *r = &v->now->rules[which];
	char action[48];

	jw_key(&json, key);
	jw_array_begin(&json);
	for (uint32_t i = 0; r->have && i <= r->info.nr_rules; i++) {
		jw_object_begin(&json);
		if (i == r->info.nr_rules)
			jw_kv_string(&json, "rule", "default");
		else
			jw_kv_u64(&json, "rule", i);
		rule_action(r, i, action, sizeof(action));
		jw_kv_string(&json, "action", action);
		json_counter(v, &r->count[i], rule_base(base_rules(v, which), r, i));
		jw_object_end(&json);
	}
	jw_array_end(&json);
}

static void json_tap(const struct tap *t, const struct view *v)
{
	const struct rules *now = &v->now->rules[0];
	char hex[20];

	digest_hex(now->info.digest, hex);
	jw_object_begin(&json);
	jw_kv_string(&json, "ifname", t->st.ifname);
	if (!t->st.here)
		jw_kv_u64(&json, "netns_cookie", t->st.key.netns_cookie);
	if (v->base) {
		jw_key(&json, "interval");
		jw_double(&json, v->seconds);
	}
	jw_kv_string(&json, "policy", t->policy);
	jw_kv_u64(&json, "slot", now->info.version % TA_SLOTS);
	jw_kv_string(&json, "digest", hex);
	json_group(v, &groups[0]);
	json_rules(v, "rules", 0);
	/* Frames counted under the version this one replaced: always there, maybe []. */
	json_rules(v, "previous_rules", 1);
	for (size_t g = 1; g < sizeof(groups) / sizeof(groups[0]); g++)
		json_group(v, &groups[g]);
	jw_kv_u64(&json, "conntrack_tracked", v->now->tracked);
	jw_object_end(&json);
}

/* The connection table after the taps, when it is in use or the taps shown
 * had connections refused: its use, limits and size, and their refusals. */
static void print_table(const struct ta_plane *pl, const struct tap *taps, uint32_t n, int cur)
{
	uint64_t full = 0, tap_limit = 0;
	struct ta_conns_use use;

	for (uint32_t i = 0; i < n; i++) {
		full += taps[i].snap[cur].stat[TA_STAT_CT + TA_CT_C_TABLE_FULL].packets;
		tap_limit += taps[i].snap[cur].stat[TA_STAT_CT + TA_CT_C_TAP_LIMIT].packets;
	}
	if (ta_conns_use(pl, &use) || (!use.tracked && !full && !tap_limit))
		return;
	printf("conntrack table: %u tracked of max %u (%.1f%%), tap-limit ", use.tracked, use.limit,
	       100.0 * use.tracked / (use.limit ?: 1));
	if (use.tap_limit)
		printf("%u", use.tap_limit);
	else
		printf("none");
	printf("; %u entries x %u bytes = %.1f MiB; refused (these taps, in all): table_full "
	       "%llu, tap_limit %llu\n", use.entries, TA_CT_ENTRY_BYTES,
	       use.entries * (double)TA_CT_ENTRY_BYTES / (1 << 20), (unsigned long long)full,
	       (unsigned long long)tap_limit);
}

/* One report over every tap; an array in JSON unless one IFACE was named. */
static void report(const struct ta_plane *pl, struct tap *taps, uint32_t n, int cur, bool rates,
		   bool single)
{
	void (*print_tap)(const struct tap *, const struct view *) =
		cli.json ? json_tap : plain_tap;

	if (cli.json && !single)
		jw_array_begin(&json);
	for (uint32_t i = 0; i < n; i++) {
		struct view v = { .pl = pl, .now = &taps[i].snap[cur] };

		if (rates) {
			v.base = &taps[i].snap[!cur];
			v.seconds = v.now->time - v.base->time;
		}
		print_tap(&taps[i], &v);
	}
	if (cli.json) {
		if (!single)
			jw_array_end(&json);
		jw_end_document(&json);
	} else {
		print_table(pl, taps, n, cur);
	}
	fflush(stdout);
}

/* ---- which taps --------------------------------------------------------- */

static int select_taps(const struct ta_plane *pl, const struct stats_opts *o, int argc,
		       char **argv, struct tap **taps, uint32_t *n)
{
	struct ta_tap_state *list;
	uint32_t nr;
	int err, ret;

	*n = 0;
	if (argc) {
		*taps = calloc(argc, sizeof(**taps));
		if (!*taps)
			return system_error("out of memory");
		for (int i = 0; i < argc; i++) {
			ret = find_tap(pl, argv[i], &(*taps)[i].st);
			if (ret)
				return ret;
			*n = i + 1;
		}
		return 0;
	}
	err = ta_taps_read(pl, &list, &nr);
	if (err)
		return errno_error(err, "cannot read the bindings");
	*taps = calloc(nr ?: 1, sizeof(**taps));
	if (!*taps) {
		free(list);
		return system_error("out of memory");
	}
	/* taps gone have no counters worth a report: 'tap-accel clean' */
	for (uint32_t i = 0; i < nr; i++)
		if ((o->all || list[i].here) && list[i].link != TA_LINK_GONE)
			(*taps)[(*n)++].st = list[i];
	free(list);
	return 0;
}

static int sample(const struct ta_plane *pl, struct tap *t, int which)
{
	int err = take_snapshot(pl, t, &t->snap[which]);

	if (err)
		return errno_error(err, "cannot read the counters of %s", t->st.ifname);
	return 0;
}

/* --prometheus: the exposition of lib/output/prom.h, of each IFACE or every tap. */
static int run_prometheus(const struct stats_opts *o, int argc, char **argv)
{
	struct ta_prom_opts po = { .all = o->all, .rules = o->rules };
	struct ta_tap_key *keys = NULL;
	struct ta_tap_state st;
	struct ta_plane pl;
	struct ta_error e;
	int ret;

	ret = open_plane(&pl, TA_PLANE_READ);
	if (ret)
		return ret;
	if (argc && !(keys = calloc(argc, sizeof(*keys))))
		ret = system_error("out of memory");
	for (int i = 0; !ret && i < argc; i++) {
		ret = find_tap(&pl, argv[i], &st);
		if (!ret)
			keys[i] = st.key;
	}
	po.taps = keys;
	po.nr_taps = argc;
	if (!ret && ta_prom_write(stdout, &pl, &po, &e))
		ret = report_error(&e);
	free(keys);
	ta_plane_close(&pl);
	return ret;
}

/* Options that do not go together; 0 or EXIT_USER. */
static int check_options(const struct stats_opts *o)
{
	if (o->count && !o->interval)
		return user_error("stats: --count needs --interval");
	if (o->rules && !o->prometheus)
		return user_error("stats: --rules goes with --prometheus; the text and --json "
				  "show rule counters always");
	if (o->prometheus && cli.json)
		return user_error("stats: --prometheus and --json exclude each other: "
				  "pick one format");
	if (o->prometheus && o->interval)
		return user_error("stats: --prometheus writes totals and takes no --interval: "
				  "Prometheus computes rates from totals");
	return 0;
}

static int run_stats(const void *opts, int argc, char **argv)
{
	const struct stats_opts *o = opts;
	struct tap *taps = NULL;
	struct ta_plane pl;
	uint32_t n = 0;
	int ret;

	ret = check_options(o);
	if (ret)
		return ret;
	if (o->prometheus)
		return run_prometheus(o, argc, argv);
	ret = open_plane(&pl, TA_PLANE_READ);
	if (ret)
		return ret;
	ret = select_taps(&pl, o, argc, argv, &taps, &n);
	for (uint32_t i = 0; i < n; i++)
		policy_name_of(&pl, taps[i].st.tap.policy, taps[i].policy);
	for (uint32_t i = 0; !ret && i < n; i++)
		ret = sample(&pl, &taps[i], 0);
	if (!ret && !o->interval)
		report(&pl, taps, n, 0, false, argc == 1);
	for (long round = 1; !ret && o->interval && (!o->count || round <= o->count); round++) {
		usleep((useconds_t)(o->interval * 1e6));
		for (uint32_t i = 0; !ret && i < n; i++)
			ret = sample(&pl, &taps[i], round % 2);
		if (!ret)
			report(&pl, taps, n, round % 2, true, argc == 1);
	}
	for (uint32_t i = 0; taps && i < n; i++)
		for (int s = 0; s < 2; s++)
			for (int w = 0; w < 2; w++)
				rules_free(&taps[i].snap[s].rules[w]);
	free(taps);
	labels_free();
	ta_plane_close(&pl);
	return ret;
}

static const struct option_spec stats_options[] = {
	{ "interval", 'i', OPT_NUMBER, offsetof(struct stats_opts, interval), "S",
	  "print rates per second every S seconds instead of totals", NULL, 0.01, 86400 },
	{ "count", 'c', OPT_COUNT, offsetof(struct stats_opts, count), "N",
	  "stop after N intervals (default: run until interrupted)", NULL, 1, 1e9 },
	{ "all", 'a', OPT_FLAG, offsetof(struct stats_opts, all), NULL,
	  "the taps of every network namespace", NULL, 0, 0 },
	{ "prometheus", 0, OPT_FLAG, offsetof(struct stats_opts, prometheus), NULL,
	  "the totals in Prometheus' text format, for node_exporter or a scrape",
	  NULL, 0, 0 },
	{ "rules", 0, OPT_FLAG, offsetof(struct stats_opts, rules), NULL,
	  "with --prometheus: rule counters too, a series per rule of each tap",
	  NULL, 0, 0 },
	OPTIONS_END,
};

const struct command stats_cmd = {
	.name = "stats",
	.args = "[IFACE...]",
	.summary = "counters of bound taps: verdicts, rules, guard, parse, events, conntrack",
	.help = "Packets and bytes per verdict, per rule, per guard reason, per parse\n"
		"class and per event, for each IFACE or every bound tap. Rule counters are\n"
		"the tap's own, for the version of its policy it runs (and the one that\n"
		"version replaced, while it has counts).\n"
		"\n"
		"--prometheus writes the totals in Prometheus' text exposition format\n"
		"(0.0.4), the metrics tapaccel_*; a tap of another namespace (--all) has\n"
		"a netns label, its namespace's cookie. docs/cli.md, \"Metrics\", lists\n"
		"them. Rule counters (--rules) are left out unless asked: a series per\n"
		"rule of each tap can outnumber all the others.\n",
	.options = stats_options,
	.opts_size = sizeof(struct stats_opts),
	.max_args = -1,
	.run = run_stats,
};
