// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * prom.c - the counters of bound taps in Prometheus' text exposition
 * format (0.0.4); see prom.h. Everything is read first, then written
 * family by family: the format wants the samples of a family together,
 * under one HELP and one TYPE line, and a failed read then writes nothing.
 */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../plane/conntrack.h"
#include "../plane/policies.h"
#include "../plane/taps.h"
#include "../policy/names.h"
#include "json.h"
#include "prom.h"

/* A tap as written: its binding, policy name and counters. */
struct prom_tap {
	struct ta_tap_state st;
	char policy[TA_POLICY_NAME_LEN];
	struct ta_counter stat[TA_TAP_STATS];
	struct ta_rule_counters rules_of; /* the version `rules` count */
	struct ta_counter *rules;	  /* nr_rules + 1, or NULL: none read */
	uint32_t tracked;		  /* its connections in the table */
};

struct prom {
	FILE *out;
	const struct ta_plane *pl;
	struct prom_tap *taps;
	uint32_t nr_taps;
	uint32_t bound[TA_LINK_MISSING + 1]; /* bindings in scope, by link */
	struct ta_policy_info *policies;
	uint32_t nr_policies;
	struct ta_counter *sums; /* TA_MAX_RULES + 1, to read rule counters */
	struct ta_conns_use ct;	 /* the connection table's size, use, limits */
};

/* The words of tapaccel_taps_bound's state, as `status` says them. */
static const char *const link_words[] = {
	[TA_LINK_LIVE] = "attached",
	[TA_LINK_GONE] = "gone",
	[TA_LINK_MISSING] = "unlinked",
};

/* A family of each tap's counters (tap_accel.h: ta_counters): a series
 * per name of `names`, told apart by `label`. */
struct counter_family {
	const char *name, *help, *label;
	uint32_t first, n;
	const char *const *names;
	bool bytes; /* count bytes, not frames */
};

static const struct counter_family counter_families[] = {
	{ "tapaccel_frames_total",
	  "Frames the XDP program judged on the tap, by verdict; each counted once.",
	  "verdict", TA_STAT_VERDICT, TA_NR_VERDICTS, ta_verdict_names, false },
	{ "tapaccel_bytes_total",
	  "Bytes of the frames the XDP program judged on the tap, by verdict.",
	  "verdict", TA_STAT_VERDICT, TA_NR_VERDICTS, ta_verdict_names, true },
	{ "tapaccel_guard_drops_total",
	  "Frames the tap's guard dropped, by reason: a source MAC or IP, ARP sender "
	  "or ND target that is not the guest's.",
	  "reason", TA_STAT_GUARD, TA_GUARD_MAX, ta_guard_names, false },
	{ "tapaccel_parse_total",
	  "Frames by parse class: malformed ones, which the program drops, and IPv4 "
	  "options and IP fragments, which it judges by what it could read.",
	  "class", TA_STAT_PARSE, TA_PARSE_MAX, ta_parse_names, false },
	{ "tapaccel_events_total",
	  "Frames the rate limit dropped, forwarding table hits and misses, and "
	  "redirects that failed.",
	  "event", TA_STAT_EVENT, TA_EV_MAX, ta_event_names, false },
	{ "tapaccel_conntrack_total",
	  "Two-way policies: frames to the guest passed, dropped, rejected or left to "
	  "the default in; rejects out; connections made, refused at the table's or the "
	  "tap's limit, cut by a policy change; frames out of state and related errors.",
	  "counter", TA_STAT_CT, TA_CT_C_MAX, ta_ct_counter_names, false },
};

/* ---- reading ------------------------------------------------------------- */

static bool same_tap(const struct ta_tap_key *a, const struct ta_tap_key *b)
{
	return a->netns_cookie == b->netns_cookie && a->ifindex == b->ifindex;
}

static bool in_scope(const struct ta_tap_state *st, const struct ta_prom_opts *o)
{
	return o->all || st->here;
}

/* Whether a binding's tap is one to write: a tap whose interface is gone
 * has no counters worth a series ('tap-accel clean' removes it). */
static bool wanted(const struct ta_tap_state *st, const struct ta_prom_opts *o)
{
	if (st->link == TA_LINK_GONE)
		return false;
	if (!o->taps)
		return in_scope(st, o);
	for (uint32_t i = 0; i < o->nr_taps; i++)
		if (same_tap(&st->key, &o->taps[i]))
			return true;
	return false;
}

/* The policy's name, or "#INDEX" for one that has none (made by bpftool). */
static void policy_label(const struct ta_plane *pl, uint32_t index, char *buf)
{
	const char *name = ta_policy_name(pl, index);

	if (name[0])
		snprintf(buf, TA_POLICY_NAME_LEN, "%s", name);
	else
		snprintf(buf, TA_POLICY_NAME_LEN, "#%u", index);
}

/* The rule counters of the version the tap runs; none (no series) when
 * it has none. 0 or -errno. */
static int rules_read(struct prom *p, struct prom_tap *t)
{
	size_t size;
	int err;

	err = ta_tap_rule_counters(p->pl, &t->st, 0, &t->rules_of, p->sums);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	size = (t->rules_of.nr_rules + 1) * sizeof(*t->rules);
	t->rules = malloc(size);
	if (!t->rules)
		return -ENOMEM;
	memcpy(t->rules, p->sums, size);
	return 0;
}

/* 0, -ENOENT when the tap was unbound since the bindings were read, or
 * -errno. */
static int tap_read(struct prom *p, const struct ta_tap_state *st, bool rules,
		    struct prom_tap *t)
{
	int err;

	t->st = *st;
	policy_label(p->pl, st->tap.policy, t->policy);
	err = ta_tap_stats_read(p->pl, st, t->stat);
	err = err ?: ta_conns_tracked(p->pl, st->tap.id, &t->tracked);
	if (err || !rules)
		return err;
	return rules_read(p, t);
}

static int taps_read(struct prom *p, const struct ta_prom_opts *o, struct ta_error *e)
{
	struct ta_tap_state *list;
	uint32_t nr;
	int err, ret = 0;

	err = ta_taps_read(p->pl, &list, &nr);
	if (err)
		return ta_error_errno(e, err, "cannot read the bindings");
	p->taps = calloc(nr ?: 1, sizeof(*p->taps));
	if (!p->taps) {
		free(list);
		return ta_error_errno(e, ENOMEM, "cannot read the bindings");
	}
	for (uint32_t i = 0; i < nr && !ret; i++) {
		if (in_scope(&list[i], o))
			p->bound[list[i].link]++;
		if (!wanted(&list[i], o))
			continue;
		err = tap_read(p, &list[i], o->rules, &p->taps[p->nr_taps]);
		if (!err)
			p->nr_taps++;
		else if (err != -ENOENT) /* ENOENT: unbound meanwhile, gone */
			ret = ta_error_errno(e, err, "cannot read the counters of %s",
					     list[i].ifname);
	}
	free(list);
	return ret;
}

static int collect(struct prom *p, const struct ta_prom_opts *o, struct ta_error *e)
{
	int err;

	if (o->rules) {
		p->sums = calloc(TA_MAX_RULES + 1, sizeof(*p->sums));
		if (!p->sums)
			return ta_error_errno(e, ENOMEM, "cannot read the rule counters");
	}
	err = ta_policies_read(p->pl, &p->policies, &p->nr_policies);
	if (err)
		return ta_error_errno(e, err, "cannot read the policies");
	err = ta_conns_use(p->pl, &p->ct);
	if (err)
		return ta_error_errno(e, err, "cannot read the connection table's use");
	return taps_read(p, o, e);
}

static void prom_free(struct prom *p)
{
	for (uint32_t i = 0; i < p->nr_taps; i++)
		free(p->taps[i].rules);
	free(p->taps);
	free(p->policies);
	free(p->sums);
}

/* ---- writing ------------------------------------------------------------- */

/* HELP and TYPE of a family. The help texts are ours and hold no
 * backslash or newline, which HELP would need escaped. */
static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, quoted, with backslash, double quote and newline escaped
 * as the format says: an interface name may hold the first two. */
static void label_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		if (*p >= 0x80) {
			/* The format is UTF-8: a byte that is not (of a tap
			 * renamed to Latin-1 since it was bound, say) would make
			 * Prometheus refuse the whole scrape. */
			p += ta_utf8_write(out, p, "\xef\xbf\xbd");
			continue;
		}
		if (*p == '\n') {
			fputs("\\n", out);
		} else {
			if (*p == '\\' || *p == '"')
				fputc('\\', out);
			fputc(*p, out);
		}
		p++;
	}
	fputc('"', out);
}

/* NAME{KEY="VALUE": a series and its first label. */
static void series(FILE *out, const char *name, const char *key, const char *value)
{
	fprintf(out, "%s{%s=", name, key);
	label_value(out, value);
}

/* ,KEY="VALUE": one more label. */
static void label(FILE *out, const char *key, const char *value)
{
	fprintf(out, ",%s=", key);
	label_value(out, value);
}

/* } VALUE: the end of a sample. */
static void value(FILE *out, uint64_t v)
{
	fprintf(out, "} %llu\n", (unsigned long long)v);
}

/* A series of a tap: NAME{device="..."[,netns="COOKIE"],policy="...". A
 * tap of another namespace may have the name of one of this namespace's:
 * its namespace tells them apart, never a changed device name. */
static void tap_series(FILE *out, const char *name, const struct prom_tap *t)
{
	char cookie[24];

	series(out, name, "device", t->st.ifname);
	if (!t->st.here) {
		snprintf(cookie, sizeof(cookie), "%llu",
			 (unsigned long long)t->st.key.netns_cookie);
		label(out, "netns", cookie);
	}
	label(out, "policy", t->policy);
}

static void write_bound(const struct prom *p)
{
	family(p->out, "tapaccel_taps_bound", "gauge",
	       "Bindings of taps to policies, by the state of the tap's XDP link: attached; "
	       "gone, the tap was deleted ('tap-accel clean' removes the binding); unlinked, "
	       "no link pin (bound with bpftool).");
	for (int s = TA_LINK_LIVE; s <= TA_LINK_MISSING; s++) {
		series(p->out, "tapaccel_taps_bound", "state", link_words[s]);
		value(p->out, p->bound[s]);
	}
}

static void write_policies(const struct prom *p)
{
	char hex[20];

	family(p->out, "tapaccel_policy_info", "gauge",
	       "A loaded policy and the digest of the version its taps run; always 1.");
	for (uint32_t i = 0; i < p->nr_policies; i++) {
		snprintf(hex, sizeof(hex), "%016llx",
			 (unsigned long long)p->policies[i].head.digest);
		series(p->out, "tapaccel_policy_info", "policy", p->policies[i].name);
		label(p->out, "digest", hex);
		value(p->out, 1);
	}
}

static const char *mode_word(uint32_t xdp_flags)
{
	return xdp_flags == XDP_FLAGS_SKB_MODE	 ? "generic"
	       : xdp_flags == XDP_FLAGS_DRV_MODE ? "native"
						 : "unknown";
}

static void write_tap_info(const struct prom *p)
{
	char guard[32];

	family(p->out, "tapaccel_tap_info", "gauge",
	       "A bound tap, with its policy, XDP mode (native, generic) and guard "
	       "(none, or the checks it makes: mac, ip4, ip6); always 1.");
	for (uint32_t i = 0; i < p->nr_taps; i++) {
		const struct prom_tap *t = &p->taps[i];

		ta_guard_words(t->st.tap.guard_flags, guard, sizeof(guard));
		tap_series(p->out, "tapaccel_tap_info", t);
		label(p->out, "mode", mode_word(t->st.info.xdp_flags));
		label(p->out, "guard", strcmp(guard, "-") ? guard : "none");
		value(p->out, 1);
	}
}

static void write_counters(const struct prom *p, const struct counter_family *f)
{
	family(p->out, f->name, "counter", f->help);
	for (uint32_t i = 0; i < p->nr_taps; i++) {
		const struct ta_counter *c = &p->taps[i].stat[f->first];

		for (uint32_t k = 0; k < f->n; k++) {
			tap_series(p->out, f->name, &p->taps[i]);
			label(p->out, f->label, f->names[k]);
			value(p->out, f->bytes ? c[k].bytes : c[k].packets);
		}
	}
}

/* A gauge of the host: one sample, no label. */
static void host_gauge(FILE *out, const char *name, const char *help, uint64_t v)
{
	family(out, name, "gauge", help);
	fprintf(out, "%s %llu\n", name, (unsigned long long)v);
}

/* The connection table: each tap's connections, the host's, its limits
 * and what it costs (refusals are tapaccel_conntrack_total's table_full
 * and tap_limit). */
static void write_conntrack(const struct prom *p)
{
	family(p->out, "tapaccel_conntrack_tracked", "gauge",
	       "Connections of two-way policies the tap has in the host's table now.");
	for (uint32_t i = 0; i < p->nr_taps; i++) {
		tap_series(p->out, "tapaccel_conntrack_tracked", &p->taps[i]);
		value(p->out, p->taps[i].tracked);
	}
	host_gauge(p->out, "tapaccel_conntrack_table_tracked",
		   "Connections in the host's table now, all taps together.", p->ct.tracked);
	host_gauge(p->out, "tapaccel_conntrack_table_max",
		   "New connections are refused once the host tracks this many (max).", p->ct.limit);
	host_gauge(p->out, "tapaccel_conntrack_tap_limit",
		   "New connections of a tap are refused once it tracks this many (tap-limit); "
		   "0: no limit per tap.", p->ct.tap_limit);
	host_gauge(p->out, "tapaccel_conntrack_table_entries",
		   "Entries of the host's connection table, preallocated when the plane was made.",
		   p->ct.entries);
	host_gauge(p->out, "tapaccel_conntrack_entry_bytes",
		   "Kernel memory of one entry of the connection table, in bytes, about.",
		   TA_CT_ENTRY_BYTES);
}

/* Rule i of a version is only that version's: the digest is a label, so
 * that a reloaded policy starts new series rather than continuing those of
 * rules that may now be others. */
static void write_rules(const struct prom *p)
{
	char hex[20], rule[16];

	family(p->out, "tapaccel_rule_frames_total", "counter",
	       "Frames each rule of the policy version the tap runs decided, by rule "
	       "index from 0; \"default\": no rule matched.");
	for (uint32_t i = 0; i < p->nr_taps; i++) {
		const struct prom_tap *t = &p->taps[i];

		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)t->rules_of.digest);
		for (uint32_t r = 0; t->rules && r <= t->rules_of.nr_rules; r++) {
			if (r == t->rules_of.nr_rules)
				snprintf(rule, sizeof(rule), "default");
			else
				snprintf(rule, sizeof(rule), "%u", r);
			tap_series(p->out, "tapaccel_rule_frames_total", t);
			label(p->out, "digest", hex);
			label(p->out, "rule", rule);
			value(p->out, t->rules[r].packets);
		}
	}
}

static void write_all(const struct prom *p, bool rules)
{
	write_bound(p);
	write_policies(p);
	write_tap_info(p);
	for (size_t f = 0; f < sizeof(counter_families) / sizeof(counter_families[0]); f++)
		write_counters(p, &counter_families[f]);
	write_conntrack(p);
	if (rules)
		write_rules(p);
}

int ta_prom_write(FILE *out, const struct ta_plane *pl, const struct ta_prom_opts *o,
		  struct ta_error *e)
{
	static const struct ta_prom_opts every = { .all = true };
	struct prom p = { .out = out, .pl = pl };
	int ret;

	o = o ?: &every;
	ret = collect(&p, o, e);
	if (!ret)
		write_all(&p, o->rules);
	prom_free(&p);
	if (ret)
		return ret;
	if (fflush(out))
		return ta_error_errno(e, errno, "cannot write the metrics");
	if (ferror(out))
		return ta_error_errno(e, EIO, "cannot write the metrics");
	return 0;
}

/* ---- node_exporter's textfile ----------------------------------------------- */

/* Make the rename of a file in `dir` last through a crash. The file is
 * complete whether or not this works: a failure is not the write's. */
static void dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Write the exposition into the temporary file `fd` and close it. */
static int temp_write(int fd, const char *tmp, const struct ta_plane *pl, const char *extra,
		      struct ta_error *e)
{
	FILE *out;
	int ret;

	/* mkostemp() made it 0600; node_exporter runs as a user of its own */
	if (fchmod(fd, 0644)) {
		ret = ta_error_errno(e, errno, "cannot make %s readable", tmp);
		close(fd);
		return ret;
	}
	out = fdopen(fd, "w");
	if (!out) {
		ret = ta_error_errno(e, errno, "cannot write %s", tmp);
		close(fd);
		return ret;
	}
	ret = ta_prom_write(out, pl, NULL, e);
	if (!ret && extra && (fputs(extra, out) < 0 || fflush(out)))
		ret = ta_error_errno(e, errno, "cannot write %s", tmp);
	if (!ret && fsync(fd))
		ret = ta_error_errno(e, errno, "cannot write %s", tmp);
	if (fclose(out) && !ret)
		ret = ta_error_errno(e, errno, "cannot write %s", tmp);
	return ret;
}

int ta_prom_write_file(const char *dir, const struct ta_plane *pl, struct ta_error *e)
{
	return ta_prom_write_file_extra(dir, pl, NULL, e);
}

int ta_prom_write_file_extra(const char *dir, const struct ta_plane *pl, const char *extra,
			     struct ta_error *e)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd, ret;

	if (snprintf(path, sizeof(path), "%s/%s", dir, TA_PROM_FILE) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, TA_PROM_FILE) >= (int)sizeof(tmp))
		return ta_error_input(e, ENAMETOOLONG, "metrics folder name too long: %s", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return ta_error_errno(e, errno, "cannot write a file in %s", dir);
	ret = temp_write(fd, tmp, pl, extra, e);
	if (!ret && rename(tmp, path))
		ret = ta_error_errno(e, errno, "cannot rename %s to %s", tmp, path);
	if (ret) {
		unlink(tmp);
		return ret;
	}
	dir_sync(dir);
	return 0;
}
