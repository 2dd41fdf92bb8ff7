// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * parse.c - the policy file language into struct ta_policy_spec.
 *
 * The language is line based: one statement per line, words separated by
 * blanks, '#' starts a comment. The grammar is in docs/policy.md. Every
 * error names FILE:LINE:COL of the word at fault and what was expected.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/lex.h"
#include "digest.h"
#include "guard_parse.h"
#include "names.h"
#include "parse.h"
#include "print.h"

/* A policy file larger than this is certainly a mistake. */
#define TA_POLICY_MAX_BYTES (16u << 20)

struct parser {
	struct ta_lex lx;
	struct ta_policy_spec *spec;
	uint32_t rules_cap, fdb_cap;
	int default_line, default_in_line, rate_line, guard_mac_line;
	/* where the first rule in, state match or default in is: a message
	 * about the two-way policy they make names it */
	int two_way_line;
};

/* ---- values ------------------------------------------------------------ */

/* Decimal, or hex with 0x. The whole word must be the number. */
static bool parse_u64_str(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ' || *s == '\t' || *s == '\r')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static bool parse_u64(const struct ta_word *t, uint64_t *v)
{
	char buf[32];

	if (t->len >= (int)sizeof(buf))
		return false;
	return parse_u64_str(ta_word_str(t, buf, sizeof(buf)), v);
}

static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static bool has_host_bits(const struct ta_prefix *pfx)
{
	for (int bit = pfx->prefixlen; bit < 128; bit++)
		if (pfx->addr[bit / 8] & (0x80 >> (bit % 8)))
			return true;
	return false;
}

/* ADDR or ADDR/LEN, IPv4 or IPv6, into the v4-mapped form of policy.h. */
static int parse_prefix(struct parser *p, const struct ta_word *t,
			struct ta_prefix *pfx)
{
	char buf[64], g[96], *slash;
	uint64_t len = 0;
	bool v4;

	if (t->len >= (int)sizeof(buf))
		goto bad;
	ta_word_str(t, buf, sizeof(buf));
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(pfx, 0, sizeof(*pfx));
	v4 = inet_pton(AF_INET, buf, pfx->addr + 12) == 1;
	if (v4)
		memcpy(pfx->addr, v4_mapped, 12);
	else if (inet_pton(AF_INET6, buf, pfx->addr) != 1)
		goto bad;
	if (slash) {
		if (!parse_u64_str(slash + 1, &len) || len > (v4 ? 32 : 128))
			return ta_lex_fail(&p->lx, t->col + (int)(slash - buf) + 1,
				           "expected a prefix length 0..%d after '/', got '%s'",
				           v4 ? 32 : 128, slash + 1);
	} else {
		len = v4 ? 32 : 128;
	}
	pfx->prefixlen = (uint8_t)(v4 ? 96 + len : len);
	if (has_host_bits(pfx)) {
		struct ta_prefix net = *pfx;
		char want[64];

		for (int bit = net.prefixlen; bit < 128; bit++)
			net.addr[bit / 8] &= ~(0x80 >> (bit % 8));
		return ta_lex_fail(&p->lx, t->col,
			           "expected a network address: '%s/%s' has bits set past the prefix length (did you mean %s?)",
			           buf, slash + 1, ta_format_prefix(&net, want));
	}
	/* Written as IPv6 but spelling IPv4: it would match IPv4 frames,
	 * while such addresses never appear in IPv6 frames (RFC 4291). */
	if (!v4 && ta_prefix_is_ip4(pfx)) {
		char want[64];

		return ta_lex_fail(&p->lx, t->col,
			           "expected IPv4, or IPv6 outside ::ffff:0:0/96: '%s' is IPv4-mapped, which never appears on the wire (did you mean %s?)",
			           ta_word_str(t, g, sizeof(g)), ta_format_prefix(pfx, want));
	}
	return 0;
bad:
	return ta_lex_fail(&p->lx, t->col,
		           "expected an IPv4 or IPv6 address or prefix like 10.0.0.0/8 or fd00::/64, %s",
		           ta_word_got(t, g, sizeof(g)));
}

/* PORT or LO-HI. */
static int parse_ports(struct parser *p, const struct ta_word *t,
		       uint16_t *lo, uint16_t *hi)
{
	char buf[32], g[96], *dash;
	uint64_t a, b;

	if (t->len >= (int)sizeof(buf))
		goto bad;
	ta_word_str(t, buf, sizeof(buf));
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (!parse_u64_str(buf, &a) || a > 65535)
		goto bad;
	b = a;
	if (dash && (!parse_u64_str(dash + 1, &b) || b > 65535))
		goto bad;
	if (a > b)
		return ta_lex_fail(&p->lx, t->col,
			           "expected a port range LOW-HIGH with LOW <= HIGH, got %s-%s",
			           buf, dash + 1);
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
bad:
	return ta_lex_fail(&p->lx, t->col,
		           "expected a port 0..65535 or a range like 1000-2000, %s",
		           ta_word_got(t, g, sizeof(g)));
}

static int parse_mac_word(struct parser *p, const struct ta_word *t, uint8_t mac[6])
{
	char buf[32], g[96];

	if (t->len < (int)sizeof(buf) && !ta_parse_mac(ta_word_str(t, buf, sizeof(buf)), mac))
		return 0;
	return ta_lex_fail(&p->lx, t->col, "expected a MAC address like 52:54:00:12:34:56, %s",
		           ta_word_got(t, g, sizeof(g)));
}

static int parse_ifname(struct parser *p, const struct ta_word *t, char name[IF_NAMESIZE])
{
	char g[96];

	if (t->len >= IF_NAMESIZE || memchr(t->s, '/', t->len) || memchr(t->s, ':', t->len))
		return ta_lex_fail(&p->lx, t->col,
			           "expected an interface name (at most %d characters, no '/' or ':'), %s",
			           IF_NAMESIZE - 1, ta_word_got(t, g, sizeof(g)));
	ta_word_str(t, name, IF_NAMESIZE);
	return 0;
}

/* A name from `names` or a number up to `max`. */
static bool parse_named(const struct ta_word *t, const struct ta_name_value *names,
			uint64_t max, uint64_t *v)
{
	for (; names->name; names++) {
		if (ta_word_is(t, names->name)) {
			*v = names->value;
			return true;
		}
	}
	return parse_u64(t, v) && *v <= max;
}

/* ---- actions ------------------------------------------------------------ */

static int parse_action(struct parser *p, const struct ta_word *keyword,
			uint32_t *action, char dev[IF_NAMESIZE])
{
	struct ta_word t, d;
	char g[96], kw[32];

	if (ta_lex_word(&p->lx, &t)) {
		for (uint32_t a = 0; a < TA_ACT_MAX; a++) {
			if (!ta_word_is(&t, ta_action_names[a]))
				continue;
			*action = a;
			if (a != TA_ACT_REDIRECT)
				return 0;
			if (ta_lex_expect(&p->lx, &d, "an interface name", &t))
				return -EINVAL;
			return parse_ifname(p, &d, dev);
		}
	}
	return ta_lex_fail(&p->lx, t.col,
		           "expected an action (pass, drop, reject, tx, redirect DEV or forward) after '%s', %s",
		           ta_word_str(keyword, kw, sizeof(kw)), ta_word_got(&t, g, sizeof(g)));
}

/* A comma list of words of `names` (n of them) into a bit set, each once. */
static int parse_word_set(struct parser *p, const struct ta_word *t,
			  const char *const *names, uint32_t n, const char *what,
			  uint8_t *set)
{
	const char *s = t->s, *end = t->s + t->len;
	char g[96];

	*set = 0;
	while (s <= end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		struct ta_word one = {.s = s, .len = (int)((comma ? comma : end) - s),
				      .col = t->col + (int)(s - t->s)};
		uint32_t i;

		for (i = 0; i < n; i++)
			if (ta_word_is(&one, names[i]))
				break;
		if (i == n)
			return ta_lex_fail(&p->lx, one.col, "expected %s, %s", what,
				           ta_word_got(&one, g, sizeof(g)));
		if (*set & (1u << i))
			return ta_lex_fail(&p->lx, one.col, "'%s' given twice in one list",
				           names[i]);
		*set |= (uint8_t)(1u << i);
		if (!comma)
			break;
		s = comma + 1;
	}
	return 0;
}

static bool is_dir_word(const struct ta_word *t)
{
	return ta_word_is(t, "in") || ta_word_is(t, "out") || ta_word_is(t, "in,out") ||
	       ta_word_is(t, "out,in");
}

#define DIR_WORDS "a direction (in, out or in,out)"
#define STATE_WORDS "a connection state (new, established, related, invalid or untracked)"


/* ---- rules ---------------------------------------------------------------- */

static int parse_field_value(struct parser *p, struct ta_rule_spec *r,
			     enum ta_field f, const struct ta_word *kw)
{
	struct ta_word t;
	uint64_t v;
	char g[96];

	if (ta_lex_expect(&p->lx, &t, "a value", kw))
		return -EINVAL;
	switch (f) {
	case TA_F_VLAN:
		if (!parse_u64(&t, &v) || v > 4095)
			return ta_lex_fail(&p->lx, t.col, "expected a VLAN id 0..4095, %s", ta_word_got(&t, g, sizeof(g)));
		r->vlan = (uint16_t)v;
		return 0;
	case TA_F_SRC_MAC:
		return parse_mac_word(p, &t, r->src_mac);
	case TA_F_DST_MAC:
		return parse_mac_word(p, &t, r->dst_mac);
	case TA_F_ETHERTYPE:
		if (!parse_named(&t, ta_ethertype_names, 0xffff, &v) || v < 0x0600)
			return ta_lex_fail(&p->lx, t.col,
				           "expected an ethertype (ipv4, ipv6, arp or a number 0x0600..0xffff), %s",
				           ta_word_got(&t, g, sizeof(g)));
		r->ethertype = (uint16_t)v;
		return 0;
	case TA_F_SRC_IP:
		return parse_prefix(p, &t, &r->src_ip);
	case TA_F_DST_IP:
		return parse_prefix(p, &t, &r->dst_ip);
	case TA_F_IP_PROTO:
		if (!parse_named(&t, ta_protocol_names, 255, &v))
			return ta_lex_fail(&p->lx, t.col,
				           "expected a protocol (tcp, udp, icmp, icmpv6, sctp, udplite, gre, esp, ah or 0..255), %s",
				           ta_word_got(&t, g, sizeof(g)));
		r->ip_proto = (uint8_t)v;
		return 0;
	case TA_F_SRC_PORT:
		return parse_ports(p, &t, &r->sport_lo, &r->sport_hi);
	case TA_F_DST_PORT:
		return parse_ports(p, &t, &r->dport_lo, &r->dport_hi);
	case TA_F_ICMP_TYPE:
		if (!parse_u64(&t, &v) || v > 255)
			return ta_lex_fail(&p->lx, t.col, "expected an ICMP type 0..255, %s", ta_word_got(&t, g, sizeof(g)));
		r->icmp_type = (uint8_t)v;
		return 0;
	default:
		return -EINVAL;
	}
}

static bool proto_has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 132 || proto == 136;
}

static bool has(const struct ta_rule_spec *r, enum ta_field f)
{
	return r->fields & (1u << f);
}

/* Directions and states: what a frame going that way in that state can be.
 * col[TA_F_MAX] is the direction's column, col[TA_F_MAX + 1] the state's. */
static int check_two_way(struct parser *p, const struct ta_rule_spec *r, const int col[])
{
	uint8_t related = 1u << TA_CT_RELATED;
	const char *name;
	char g[32];

	if ((ta_rule_dirs(r) & TA_DIRS_IN) && !ta_action_valid_in(r->action))
		return ta_lex_fail(&p->lx, col[TA_F_MAX],
			           "expected 'out' with action %s: what goes to a guest can only be passed, dropped or rejected (write a second rule with 'in' for that direction)",
			           ta_action_name(r->action));
	if (!r->states)
		return 0;
	if (has(r, TA_F_ETHERTYPE) && r->ethertype != 0x0800 && r->ethertype != 0x86dd &&
	    r->states != (1u << TA_CT_UNTRACKED)) {
		name = ta_name_of(ta_ethertype_names, r->ethertype);
		if (!name) {
			snprintf(g, sizeof(g), "0x%04x", r->ethertype);
			name = g;
		}
		return ta_lex_fail(&p->lx, col[TA_F_MAX + 1],
			           "expected 'state untracked' or no state with ethertype %s: only IPv4 and IPv6 frames have connections",
			           name);
	}
	if (r->states == related &&
	    ((has(r, TA_F_IP_PROTO) && r->ip_proto != 1 && r->ip_proto != 58) ||
	     has(r, TA_F_SRC_PORT) || has(r, TA_F_DST_PORT)))
		return ta_lex_fail(&p->lx, col[TA_F_MAX + 1],
			           "expected proto icmp or icmpv6 and no ports with 'state related': related frames are ICMP errors about a connection");
	return 0;
}

/* Matches that no frame can satisfy are mistakes worth a message. */
static int check_consistent(struct parser *p, const struct ta_rule_spec *r,
			    const int col[])
{
	bool src4 = has(r, TA_F_SRC_IP) && ta_prefix_is_ip4(&r->src_ip);
	bool dst4 = has(r, TA_F_DST_IP) && ta_prefix_is_ip4(&r->dst_ip);

	if (has(r, TA_F_SRC_IP) && has(r, TA_F_DST_IP) && src4 != dst4)
		return ta_lex_fail(&p->lx, col[TA_F_DST_IP],
			           "expected dst of the same family as src (IPv%d), no frame has both",
			           src4 ? 4 : 6);
	if (has(r, TA_F_ETHERTYPE) && (has(r, TA_F_SRC_IP) || has(r, TA_F_DST_IP))) {
		bool v4 = has(r, TA_F_SRC_IP) ? src4 : dst4;

		if (r->ethertype != (v4 ? 0x0800 : 0x86dd))
			return ta_lex_fail(&p->lx, col[TA_F_ETHERTYPE],
				           "expected ethertype %s with an IPv%d address, no frame has both",
				           v4 ? "ipv4" : "ipv6", v4 ? 4 : 6);
	}
	for (enum ta_field f = TA_F_SRC_PORT; f <= TA_F_DST_PORT; f++)
		if (has(r, f) && has(r, TA_F_IP_PROTO) && !proto_has_ports(r->ip_proto))
			return ta_lex_fail(&p->lx, col[f],
				           "expected proto tcp, udp, sctp or udplite with '%s', protocol %u has no ports",
				           ta_field_words[f], r->ip_proto);
	if (has(r, TA_F_ICMP_TYPE) && has(r, TA_F_IP_PROTO) && r->ip_proto != 1 &&
	    r->ip_proto != 58)
		return ta_lex_fail(&p->lx, col[TA_F_ICMP_TYPE],
			           "expected proto icmp or icmpv6 with 'icmp-type', protocol %u has no ICMP type",
			           r->ip_proto);
	return check_two_way(p, r, col);
}

static bool same_prefix(const struct ta_prefix *a, const struct ta_prefix *b)
{
	return a->prefixlen == b->prefixlen && !memcmp(a->addr, b->addr, 16);
}

/* Two rules with the same match: the second could never match. */
static bool same_match(const struct ta_rule_spec *a, const struct ta_rule_spec *b)
{
	if (a->fields != b->fields || ta_rule_dirs(a) != ta_rule_dirs(b) ||
	    a->states != b->states)
		return false;
	return (!has(a, TA_F_VLAN) || a->vlan == b->vlan) &&
	       (!has(a, TA_F_SRC_MAC) || !memcmp(a->src_mac, b->src_mac, 6)) &&
	       (!has(a, TA_F_DST_MAC) || !memcmp(a->dst_mac, b->dst_mac, 6)) &&
	       (!has(a, TA_F_ETHERTYPE) || a->ethertype == b->ethertype) &&
	       (!has(a, TA_F_SRC_IP) || same_prefix(&a->src_ip, &b->src_ip)) &&
	       (!has(a, TA_F_DST_IP) || same_prefix(&a->dst_ip, &b->dst_ip)) &&
	       (!has(a, TA_F_IP_PROTO) || a->ip_proto == b->ip_proto) &&
	       (!has(a, TA_F_SRC_PORT) ||
		(a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi)) &&
	       (!has(a, TA_F_DST_PORT) ||
		(a->dport_lo == b->dport_lo && a->dport_hi == b->dport_hi)) &&
	       (!has(a, TA_F_ICMP_TYPE) || a->icmp_type == b->icmp_type);
}

static int grow(void **array, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap * 2 : 16;
	void *a;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	a = realloc(*array, n * elem);
	if (!a)
		return -ENOMEM;
	*array = a;
	*cap = n;
	return 0;
}

/* A rule's direction (in, out, in,out) or `state LIST`. */
static int parse_rule_ct(struct parser *p, struct ta_rule_spec *r, const struct ta_word *t,
			 int col[])
{
	struct ta_word v;
	uint8_t set;

	if (ta_word_is(t, "state")) {
		if (r->states)
			return ta_lex_fail(&p->lx, t->col, "'state' given twice in one rule (first at column %d)",
				           col[TA_F_MAX + 1]);
		col[TA_F_MAX + 1] = t->col;
		if (ta_lex_expect(&p->lx, &v, "a connection state like established,related", t) ||
		    parse_word_set(p, &v, ta_ct_state_names, TA_CT_STATE_MAX, STATE_WORDS, &set))
			return -EINVAL;
		r->states = set;
		return 0;
	}
	if (r->dirs)
		return ta_lex_fail(&p->lx, t->col, "direction given twice in one rule (first at column %d)",
			           col[TA_F_MAX]);
	col[TA_F_MAX] = t->col;
	if (parse_word_set(p, t, ta_dir_names, TA_DIR_MAX, DIR_WORDS, &set))
		return -EINVAL;
	r->dirs = set;
	return 0;
}

static int parse_rule(struct parser *p, const struct ta_word *kw)
{
	struct ta_policy_spec *s = p->spec;
	int col[TA_F_MAX + 2] = { 0 }; /* and the direction's, the state's */
	struct ta_rule_spec r;
	struct ta_word t;
	char g[96];
	int err;

	if (s->nr_rules >= TA_MAX_RULES)
		return ta_lex_fail(&p->lx, kw->col, "too many rules: a policy holds at most %d",
			           TA_MAX_RULES);
	memset(&r, 0, sizeof(r));
	r.pos.line = p->lx.line;
	r.pos.col = kw->col;
	if (parse_action(p, kw, &r.action, r.redirect_dev))
		return -EINVAL;
	while (ta_lex_word(&p->lx, &t)) {
		enum ta_field f;

		if (is_dir_word(&t) || ta_word_is(&t, "state")) {
			err = parse_rule_ct(p, &r, &t, col);
			if (err)
				return err;
			continue;
		}
		for (f = 0; f < TA_F_MAX; f++)
			if (ta_word_is(&t, ta_field_words[f]))
				break;
		if (f == TA_F_MAX)
			return ta_lex_fail(&p->lx, t.col,
				           "expected a match (in, out, state, vlan, smac, dmac, ethertype, src, dst, proto, sport, dport, icmp-type), %s",
				           ta_word_got(&t, g, sizeof(g)));
		if (has(&r, f))
			return ta_lex_fail(&p->lx, t.col, "'%s' given twice in one rule (first at column %d)",
				           ta_field_words[f], col[f]);
		col[f] = t.col;
		r.fields |= 1u << f;
		err = parse_field_value(p, &r, f, &t);
		if (err)
			return err;
	}
	if (!r.dirs)
		r.dirs = TA_DIRS_OUT;
	if (!col[TA_F_MAX])
		col[TA_F_MAX] = kw->col;
	err = check_consistent(p, &r, col);
	if (err)
		return err;
	if (!p->two_way_line && ((r.dirs & TA_DIRS_IN) || r.states))
		p->two_way_line = p->lx.line;
	for (uint32_t i = 0; i < s->nr_rules; i++)
		if (same_match(&s->rules[i], &r))
			return ta_lex_fail(&p->lx, kw->col,
				           "duplicate rule: it matches exactly what the rule at line %d matches, so it would never match",
				           s->rules[i].pos.line);
	if (grow((void **)&s->rules, &p->rules_cap, s->nr_rules + 1, sizeof(r)))
		return ta_lex_fail(&p->lx, kw->col, "out of memory");
	s->rules[s->nr_rules++] = r;
	return 0;
}

/* ---- other statements ---------------------------------------------------- */

/* default [out] ACTION | default in (pass|drop|reject) */
static int parse_default(struct parser *p, const struct ta_word *kw)
{
	struct ta_policy_spec *s = p->spec;
	struct ta_lex at = p->lx;
	char dev[IF_NAMESIZE];
	struct ta_word t;

	if (!ta_lex_word(&p->lx, &t) || !(ta_word_is(&t, "in") || ta_word_is(&t, "out"))) {
		p->lx = at; /* `default ACTION`: out */
		t = *kw;
	}
	if (ta_word_is(&t, "in")) {
		if (p->default_in_line)
			return ta_lex_fail(&p->lx, kw->col, "'default in' given twice (first at line %d)",
				           p->default_in_line);
		p->default_in_line = p->lx.line;
		if (!p->two_way_line)
			p->two_way_line = p->lx.line;
		if (parse_action(p, &t, &s->default_in_action, dev))
			return -EINVAL;
		if (!ta_action_valid_in(s->default_in_action))
			return ta_lex_fail(&p->lx, t.col + t.len + 1,
				           "expected pass, drop or reject after 'default in': what goes to a guest can only be passed, dropped or rejected, not %s",
				           ta_action_name(s->default_in_action));
		s->default_in_set = true;
		return 0;
	}
	if (p->default_line)
		return ta_lex_fail(&p->lx, kw->col, "'default' given twice (first at line %d)",
			           p->default_line);
	p->default_line = p->lx.line;
	return parse_action(p, &t, &s->default_action, s->default_dev);
}

static int parse_fdb(struct parser *p, const struct ta_word *kw)
{
	struct ta_policy_spec *s = p->spec;
	struct ta_fdb_spec e = { 0 };
	struct ta_word t, dev;
	char g[96];

	e.pos.line = p->lx.line;
	e.pos.col = kw->col;
	if (ta_lex_expect(&p->lx, &t, "a MAC address", kw) || parse_mac_word(p, &t, e.mac))
		return -EINVAL;
	if (e.mac[0] & 1)
		return ta_lex_fail(&p->lx, t.col, "expected a unicast MAC: forwarding takes unicast destinations only");
	if (!ta_lex_word(&p->lx, &t) || !ta_word_is(&t, "dev"))
		return ta_lex_fail(&p->lx, t.col, "expected 'dev' and an interface after the MAC, %s",
			           ta_word_got(&t, g, sizeof(g)));
	if (ta_lex_expect(&p->lx, &dev, "an interface name", &t) || parse_ifname(p, &dev, e.dev))
		return -EINVAL;
	for (uint32_t i = 0; i < s->nr_fdb; i++)
		if (!memcmp(s->fdb[i].mac, e.mac, 6))
			return ta_lex_fail(&p->lx, kw->col, "fdb entry for this MAC given twice (first at line %d)",
				           s->fdb[i].pos.line);
	if (s->nr_fdb >= TA_MAX_FDB)
		return ta_lex_fail(&p->lx, kw->col, "too many fdb entries: at most %d", TA_MAX_FDB);
	if (grow((void **)&s->fdb, &p->fdb_cap, s->nr_fdb + 1, sizeof(e)))
		return ta_lex_fail(&p->lx, kw->col, "out of memory");
	s->fdb[s->nr_fdb++] = e;
	return 0;
}

/* The guard's words and checks are guard_parse.c's, whichever way a guard
 * comes in; here only where. */
static int guard_value(struct parser *p, const struct ta_word *t, bool mac)
{
	struct ta_guard_spec *g = &p->spec->guard;
	struct ta_error e;
	char buf[96];

	if (t->len >= (int)sizeof(buf))
		return ta_lex_fail(&p->lx, t->col, "expected %s, got a word of %d characters",
			           mac ? "a MAC address" : "an IPv4 or IPv6 address", t->len);
	ta_word_str(t, buf, sizeof(buf));
	if (mac ? ta_guard_set_mac(g, buf, &e) : ta_guard_add_ip(g, buf, &e))
		return ta_lex_fail(&p->lx, t->col, "%s", e.text);
	return 0;
}

/* guard [mac MAC] [ip ADDR]...; several guard lines add up. */
static int parse_guard(struct parser *p, const struct ta_word *kw)
{
	struct ta_word t, v;
	bool any = false;
	char buf[96];

	while (ta_lex_word(&p->lx, &t)) {
		any = true;
		if (ta_word_is(&t, "mac")) {
			if (p->guard_mac_line)
				return ta_lex_fail(&p->lx, t.col, "guard mac given twice (first at line %d)",
					           p->guard_mac_line);
			if (ta_lex_expect(&p->lx, &v, "a MAC address", &t) ||
			    guard_value(p, &v, true))
				return -EINVAL;
			p->guard_mac_line = p->lx.line;
		} else if (ta_word_is(&t, "ip")) {
			if (ta_lex_expect(&p->lx, &v, "an IPv4 or IPv6 address", &t) ||
			    guard_value(p, &v, false))
				return -EINVAL;
		} else {
			return ta_lex_fail(&p->lx, t.col, "expected 'mac MAC' or 'ip ADDRESS' in guard, %s",
				           ta_word_got(&t, buf, sizeof(buf)));
		}
	}
	if (!any)
		return ta_lex_fail(&p->lx, t.col, "expected 'mac MAC' or 'ip ADDRESS' after 'guard', %s",
			           ta_word_got(&t, buf, sizeof(buf)));
	return 0;
}

struct unit {
	const char *suffix;
	uint64_t scale;
};

/* NUMBER immediately followed by one of `units`; false if none fits. */
static bool parse_with_unit(const struct ta_word *t, const struct unit *units,
			    uint64_t *v, int *which)
{
	char buf[32], *end;
	uint64_t n;

	if (t->len >= (int)sizeof(buf) || t->len == 0 || t->s[0] < '0' || t->s[0] > '9')
		return false;
	ta_word_str(t, buf, sizeof(buf));
	errno = 0;
	n = strtoull(buf, &end, 10);
	if (errno)
		return false;
	for (int i = 0; units[i].suffix; i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (n && n > UINT64_MAX / units[i].scale)
			return false;
		*v = n * units[i].scale;
		*which = i;
		return true;
	}
	return false;
}

static const struct unit packet_rates[] = {
	{ "pps", 1 }, { "kpps", 1000 }, { "mpps", 1000000 }, { NULL, 0 },
};

static const struct unit bit_rates[] = {
	{ "bit", 1 }, { "kbit", 1000 }, { "mbit", 1000000 }, { "gbit", 1000000000 },
	{ NULL, 0 },
};

/* Packets without a unit or with pkt; bytes with b, kb, mb (1024). */
static const struct unit bursts[] = {
	{ "", 1 }, { "pkt", 1 }, { "pkts", 1 },
	{ "b", 1 }, { "kb", 1024 }, { "mb", 1024 * 1024 }, { NULL, 0 },
};
#define BURST_FIRST_BYTES 3

/* rate [N(pps|kpps|mpps)] [N(bit|kbit|mbit|gbit)] [burst N[pkt] | burst N(b|kb|mb)]... */
static int parse_rate(struct parser *p, const struct ta_word *kw)
{
	struct ta_rate_spec *r = &p->spec->rate;
	struct ta_word t, v;
	bool any_rate = false;
	char g[96];
	uint64_t n;
	int which;

	if (p->rate_line)
		return ta_lex_fail(&p->lx, kw->col, "'rate' given twice (first at line %d)", p->rate_line);
	p->rate_line = p->lx.line;
	while (ta_lex_word(&p->lx, &t)) {
		if (ta_word_is(&t, "burst")) {
			if (ta_lex_expect(&p->lx, &v, "a burst like 100 (packets) or 64kb (bytes)", &t))
				return -EINVAL;
			if (!parse_with_unit(&v, bursts, &n, &which) || !n)
				return ta_lex_fail(&p->lx, v.col,
					           "expected a burst like 100 (packets) or 64kb (bytes), %s",
					           ta_word_got(&v, g, sizeof(g)));
			if (which >= BURST_FIRST_BYTES)
				r->burst_bytes = n;
			else
				r->burst_pkts = n;
		} else if (parse_with_unit(&t, packet_rates, &n, &which) && n && !r->pps) {
			r->pps = n;
			any_rate = true;
		} else if (parse_with_unit(&t, bit_rates, &n, &which) && n && !r->bps) {
			r->bps = n;
			any_rate = true;
		} else {
			return ta_lex_fail(&p->lx, t.col,
				           "expected a packet rate like 1000pps, a bit rate like 10mbit or 'burst', %s",
				           ta_word_got(&t, g, sizeof(g)));
		}
	}
	if (!any_rate)
		return ta_lex_fail(&p->lx, t.col,
			           "expected a packet rate like 1000pps or a bit rate like 10mbit, %s",
			           ta_word_got(&t, g, sizeof(g)));
	return 0;
}

/* ---- file -------------------------------------------------------------- */

static int parse_statement(struct parser *p)
{
	struct ta_word t;
	char g[96];

	if (!ta_lex_word(&p->lx, &t))
		return 0; /* blank or comment */
	if (ta_word_is(&t, "rule"))
		return parse_rule(p, &t);
	if (ta_word_is(&t, "default"))
		return parse_default(p, &t);
	if (ta_word_is(&t, "fdb"))
		return parse_fdb(p, &t);
	if (ta_word_is(&t, "guard"))
		return parse_guard(p, &t);
	if (ta_word_is(&t, "rate"))
		return parse_rate(p, &t);
	return ta_lex_fail(&p->lx, t.col,
		           "expected a statement (rule, default, guard, rate or fdb), %s",
		           ta_word_got(&t, g, sizeof(g)));
}

/* ---- the rules a two-way policy has without writing them ---------------- */

static struct ta_rule_spec implicit_rule(uint32_t action, uint8_t dirs, uint8_t states)
{
	struct ta_rule_spec r;

	memset(&r, 0, sizeof(r)); /* padding too: specs are compared whole */
	r.action = action;
	r.dirs = dirs;
	r.states = states;
	r.implicit = true;
	return r;
}

static struct ta_rule_spec implicit_udp(uint8_t dirs, uint16_t sport, uint16_t dport)
{
	struct ta_rule_spec r = implicit_rule(TA_ACT_PASS, dirs, 0);

	r.fields = 1u << TA_F_IP_PROTO | 1u << TA_F_SRC_PORT | 1u << TA_F_DST_PORT;
	r.ip_proto = 17;
	r.sport_lo = r.sport_hi = sport;
	r.dport_lo = r.dport_hi = dport;
	return r;
}

/*
 * What a security group does before its rules, as rules of their own
 * (docs/policy.md, "Two-way policies"), first in a two-way policy:
 * unless the policy writes a state match itself, invalid frames are
 * dropped and replies and related errors pass both ways (out with the
 * default's action when it lets frames go, so that a forwarding policy
 * keeps forwarding them); always, ARP, the ICMPv6 the table does not
 * track (neighbour discovery, router adverts, MLD) and DHCP to and from
 * the guest pass, as the guard already checks what the guest sends of
 * them. `default in drop` must not cut a guest off its network.
 */
#define MAX_IMPLICIT 16

/* The rules a two-way policy starts with, into add[]: how many. */
static uint32_t implicit_rules(const struct ta_policy_spec *s, bool user_states,
			       struct ta_rule_spec add[MAX_IMPLICIT])
{
	uint32_t n = 0;

	if (!user_states) {
		uint32_t out = s->default_action;
		uint8_t replies = 1u << TA_CT_ESTABLISHED | 1u << TA_CT_RELATED;

		add[n++] = implicit_rule(TA_ACT_DROP, TA_DIRS_BOTH, 1u << TA_CT_INVALID);
		add[n++] = implicit_rule(TA_ACT_PASS, TA_DIRS_IN, replies);
		if (out != TA_ACT_REDIRECT && out != TA_ACT_FORWARD)
			out = TA_ACT_PASS;
		add[n] = implicit_rule(out, TA_DIRS_OUT, replies);
		if (out == TA_ACT_REDIRECT)
			memcpy(add[n].redirect_dev, s->default_dev, IF_NAMESIZE);
		n++;
	}
	add[n] = implicit_rule(TA_ACT_PASS, TA_DIRS_BOTH, 0);
	add[n].fields = 1u << TA_F_ETHERTYPE;
	add[n++].ethertype = 0x0806;
	add[n] = implicit_rule(TA_ACT_PASS, TA_DIRS_BOTH, 1u << TA_CT_UNTRACKED);
	add[n].fields = 1u << TA_F_IP_PROTO;
	add[n++].ip_proto = 58;
	add[n++] = implicit_udp(TA_DIRS_IN, 67, 68);	/* DHCP server to client */
	add[n++] = implicit_udp(TA_DIRS_OUT, 68, 67);
	add[n++] = implicit_udp(TA_DIRS_IN, 547, 546); /* DHCPv6 */
	add[n++] = implicit_udp(TA_DIRS_OUT, 546, 547);
	return n;
}

static bool user_states(const struct ta_rule_spec *rules, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (rules[i].states)
			return true;
	return false;
}

static int add_implicit_rules(struct parser *p)
{
	struct ta_policy_spec *s = p->spec;
	struct ta_rule_spec add[MAX_IMPLICIT];
	uint32_t n = implicit_rules(s, user_states(s->rules, s->nr_rules), add);

	if (s->nr_rules + n > TA_MAX_RULES)
		return ta_error_input_at(p->lx.e, EINVAL,
				         "%s:%d:1: too many rules: a two-way policy (line %d) holds at most %u of its own, %u being the security group's",
				         p->lx.file, p->two_way_line, p->two_way_line,
				         TA_MAX_RULES - n, n);
	if (grow((void **)&s->rules, &p->rules_cap, s->nr_rules + n, sizeof(add[0])))
		return ta_error_system(p->lx.e, ENOMEM, "out of memory");
	memmove(s->rules + n, s->rules, s->nr_rules * sizeof(add[0]));
	memcpy(s->rules, add, n * sizeof(add[0]));
	s->nr_rules += n;
	return 0;
}

void ta_policy_mark_implicit(struct ta_policy_spec *spec)
{
	struct ta_rule_spec add[MAX_IMPLICIT];

	for (int with_states = 0; with_states < 2; with_states++) {
		uint32_t n = implicit_rules(spec, with_states, add), i;

		if (n > spec->nr_rules ||
		    user_states(spec->rules + n, spec->nr_rules - n) != with_states)
			continue;
		for (i = 0; i < n; i++) {
			const struct ta_rule_spec *r = &spec->rules[i];

			if (!same_match(r, &add[i]) || r->action != add[i].action ||
			    (r->action == TA_ACT_REDIRECT &&
			     strncmp(r->redirect_dev, add[i].redirect_dev, IF_NAMESIZE)))
				break;
		}
		if (i < n)
			continue;
		for (i = 0; i < n; i++)
			spec->rules[i].implicit = true;
		return;
	}
}

/* Number of the rules ta_policy_parse() adds to a two-way policy. */
uint32_t ta_policy_implicit_rules(const struct ta_policy_spec *spec)
{
	uint32_t n = 0;

	while (n < spec->nr_rules && spec->rules[n].implicit)
		n++;
	return n;
}

void ta_policy_spec_free(struct ta_policy_spec *spec)
{
	free(spec->rules);
	free(spec->fdb);
	memset(spec, 0, sizeof(*spec));
}

int ta_policy_parse(const char *text, size_t len, const char *filename,
		    struct ta_policy_spec *spec, struct ta_error *e)
{
	struct parser p = {.spec = spec};
	int more, ret;

	memset(spec, 0, sizeof(*spec));
	ta_lex_init(&p.lx, text, len, filename, e);
	while ((more = ta_lex_line(&p.lx)) > 0) {
		ret = parse_statement(&p) ?: ta_lex_line_end(&p.lx);
		if (ret)
			goto error;
	}
	ret = more;
	if (ret < 0)
		goto error;
	if (p.two_way_line) {
		ret = add_implicit_rules(&p);
		if (ret)
			goto error;
	}
	if (!ta_policy_digest(spec))
		return 0;
	ta_policy_spec_free(spec);
	return ta_error_system(e, ENOMEM, "out of memory");
error:
	ta_policy_spec_free(spec);
	return ret;
}

int ta_policy_parse_file(const char *path, struct ta_policy_spec *spec, struct ta_error *e)
{
	size_t len;
	char *text;
	int ret;

	memset(spec, 0, sizeof(*spec));
	ret = ta_text_read(path, "policy file", TA_POLICY_MAX_BYTES, &text, &len, e);
	if (!ret)
		ret = ta_policy_parse(text, len, path, spec, e);
	free(text);
	return ret;
}
