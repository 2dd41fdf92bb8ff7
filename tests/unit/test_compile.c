// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_compile.c - the policy compiler (user/lib/policy/compile.c) without
 * a kernel: policies in the language, compiled in memory, and what the
 * program would read checked field by field (rule sets, keys, value
 * tables, the header), and the specs it refuses with their errors.
 */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/base/lex.h"
#include "lib/policy/compile.h"
#include "lib/policy/parse.h"
#include "compiled_sum.h"

static struct ta_error e;

/* Parse `text` into spec, giving redirect rules and the default the ports
 * 1, 2, ... as loading does; false (and a failed check) if it does not
 * parse. */
static bool parse(const char *text, struct ta_policy_spec *spec)
{
	int ret = ta_policy_parse(text, strlen(text), "t.policy", spec, &e);

	CHECK(ret == 0, "'%s' does not parse: %s", text, e.text);
	if (ret)
		return false;
	for (uint32_t i = 0; i < spec->nr_rules; i++)
		if (spec->rules[i].action == TA_ACT_REDIRECT)
			spec->rules[i].port = i + 1;
	if (spec->default_action == TA_ACT_REDIRECT)
		spec->default_port = spec->nr_rules + 1;
	return true;
}

/* Compile `text`: the compiled form with its spec (free both with
 * done()), or NULL (and a failed check). */
static struct ta_compiled *compile_text(const char *text)
{
	struct ta_policy_spec *spec = calloc(1, sizeof(*spec));
	struct ta_compiled *c = NULL;
	int ret;

	if (!spec || !parse(text, spec)) {
		free(spec);
		return NULL;
	}
	ret = ta_policy_compile(spec, &c);
	CHECK(ret == 0 && c, "'%s' does not compile: %d", text, ret);
	if (!c) {
		ta_policy_spec_free(spec);
		free(spec);
	}
	return c;
}

static void done(struct ta_compiled *c)
{
	struct ta_policy_spec *spec = (struct ta_policy_spec *)c->spec;

	ta_policy_spec_free(spec);
	free(spec);
	free(c);
}

/* The rules of bit-vector `index` as a mask (policies of up to 64 rules). */
static uint64_t rules_of(const struct ta_compiled *c, uint32_t index)
{
	if (index >= c->bvs.nr)
		return ~0ull; /* never a set the tests expect */
	return c->bvs.vecs[index].word[0];
}

static const struct ta_key_ip *ip_key(const struct ta_keyed *k, const char *addr, uint32_t len,
				      uint32_t *value)
{
	struct ta_policy_spec spec;
	char text[128];
	const struct ta_key_ip *found = NULL;

	snprintf(text, sizeof(text), "rule drop src %s/%u\n", addr, len);
	if (!parse(text, &spec))
		return NULL;
	for (uint32_t i = 0; i < k->nr && !found; i++) {
		const struct ta_key_ip *key = &k->keys[i].ip;
		const struct ta_prefix *p = &spec.rules[0].src_ip;

		if (key->prefixlen == 16u + p->prefixlen && !memcmp(key->addr, p->addr, p->prefixlen / 8)) {
			found = key;
			*value = k->values[i];
		}
	}
	ta_policy_spec_free(&spec);
	return found;
}

static void test_no_rules(void)
{
	struct ta_compiled *c = compile_text("default drop\n");

	if (!c)
		return;
	CHECK(c->head.nr_rules == 0, "%u rules", c->head.nr_rules);
	CHECK(c->head.default_action == TA_ACT_DROP, "default %u", c->head.default_action);
	CHECK(c->head.field_mask == 0, "field mask %#x", c->head.field_mask);
	CHECK(c->bvs.nr == 0, "%u bit-vectors for no rule", c->bvs.nr);
	for (int f = 0; f < TA_F_MAX; f++)
		CHECK(!ta_compiled_uses(c, f), "field %d used", f);
	done(c);
}

/* Exact keys, value tables and wildcards of three rules on four fields. */
static void test_fields(void)
{
	struct ta_compiled *c = compile_text("rule drop proto udp dport 53\n"
					     "rule redirect tap1 src 10.0.0.0/8\n"
					     "rule tx vlan 5\n"
					     "default pass\n");
	uint32_t value;

	if (!c)
		return;
	CHECK(c->head.nr_rules == 3, "%u rules", c->head.nr_rules);
	CHECK(c->head.field_mask == (1u << TA_F_IP_PROTO | 1u << TA_F_DST_PORT |
				     1u << TA_F_SRC_IP | 1u << TA_F_VLAN),
	      "field mask %#x", c->head.field_mask);
	CHECK(c->rules[0].action == TA_ACT_DROP && c->rules[1].action == TA_ACT_REDIRECT &&
	      c->rules[1].port == 2 && c->rules[2].action == TA_ACT_TX,
	      "actions %u %u(port %u) %u", c->rules[0].action, c->rules[1].action,
	      c->rules[1].port, c->rules[2].action);
	/* a rule that does not name a field accepts every value of it */
	CHECK(rules_of(c, c->head.wildcard[TA_F_VLAN]) == 0x3, "vlan wildcard %#llx",
	      (unsigned long long)rules_of(c, c->head.wildcard[TA_F_VLAN]));
	CHECK(rules_of(c, c->head.wildcard[TA_F_SRC_MAC]) == 0x7, "smac wildcard %#llx",
	      (unsigned long long)rules_of(c, c->head.wildcard[TA_F_SRC_MAC]));
	/* vlan: one key, 5, taken by rule 2 and the two that take any */
	CHECK(c->vlan.nr == 1 && c->vlan.keys[0].value == 5 && rules_of(c, c->vlan.values[0]) == 0x7,
	      "vlan: %u keys, first %u -> %#llx", c->vlan.nr, c->vlan.keys[0].value,
	      (unsigned long long)rules_of(c, c->vlan.values[0]));
	CHECK(ta_compiled_keyed(c, TA_F_VLAN) == &c->vlan, "ta_compiled_keyed(vlan)");
	CHECK(ta_compiled_keyed(c, TA_F_DST_PORT) == NULL, "ta_compiled_keyed(dport)");
	CHECK(c->src_mac.nr == 0 && c->ethertype.nr == 0, "unused keyed fields have keys");
	/* proto: udp is rule 0 and the wildcards, any other protocol only those */
	CHECK(rules_of(c, c->ip_proto[17]) == 0x7, "proto 17 -> %#llx",
	      (unsigned long long)rules_of(c, c->ip_proto[17]));
	CHECK(rules_of(c, c->ip_proto[6]) == 0x6, "proto 6 -> %#llx",
	      (unsigned long long)rules_of(c, c->ip_proto[6]));
	CHECK(rules_of(c, c->dst_port.flat[53]) == 0x7 && rules_of(c, c->dst_port.flat[54]) == 0x6 &&
	      rules_of(c, c->dst_port.flat[52]) == 0x6, "dport 52/53/54 -> %#llx %#llx %#llx",
	      (unsigned long long)rules_of(c, c->dst_port.flat[52]),
	      (unsigned long long)rules_of(c, c->dst_port.flat[53]),
	      (unsigned long long)rules_of(c, c->dst_port.flat[54]));
	/* the source prefix, as the LPM map keys it: 16 bits of family first */
	CHECK(c->src_ip.nr == 1 && ip_key(&c->src_ip, "10.0.0.0", 8, &value) &&
	      c->src_ip.keys[0].ip.family == TA_FAMILY_IP4 && rules_of(c, value) == 0x7,
	      "src: %u keys", c->src_ip.nr);
	done(c);
}

/* A longer prefix's key holds the rules of the shorter ones containing it
 * (the trie finds only the longest); an IPv6 ::/0 never covers IPv4. */
static void test_prefixes(void)
{
	struct ta_compiled *c = compile_text("rule drop src 10.0.0.0/8\n"
					     "rule pass src 10.1.0.0/16\n"
					     "rule tx src ::/0\n");
	uint32_t v8 = ~0u, v16 = ~0u, v0 = ~0u;

	if (!c)
		return;
	CHECK(c->src_ip.nr == 3, "%u source keys", c->src_ip.nr);
	CHECK(ip_key(&c->src_ip, "10.0.0.0", 8, &v8) && rules_of(c, v8) == 0x1, "10/8 -> %#llx",
	      (unsigned long long)rules_of(c, v8));
	CHECK(ip_key(&c->src_ip, "10.1.0.0", 16, &v16) && rules_of(c, v16) == 0x3, "10.1/16 -> %#llx",
	      (unsigned long long)rules_of(c, v16));
	CHECK(ip_key(&c->src_ip, "::", 0, &v0) && rules_of(c, v0) == 0x4, "::/0 -> %#llx",
	      (unsigned long long)rules_of(c, v0));
	CHECK(rules_of(c, c->head.wildcard[TA_F_SRC_IP]) == 0, "every rule names src");
	done(c);
}

/* Port blocks of 256 with one set are directory entries; the others pages. */
static void test_port_pages(void)
{
	struct ta_compiled *c = compile_text("rule drop proto tcp dport 1000-1999\n");

	if (!c)
		return;
	/* 1000 is inside block 3 (768-1023), 1999 inside block 7 (1792-2047) */
	CHECK(c->dst_port.size == TA_PORT_DIR + 2 * 256, "port table of %u entries",
	      c->dst_port.size);
	CHECK(c->dst_port.table[3] == (TA_PORT_PAGE | 0) && c->dst_port.table[7] == (TA_PORT_PAGE | 1),
	      "blocks 3 and 7: %#x %#x", c->dst_port.table[3], c->dst_port.table[7]);
	CHECK(rules_of(c, c->dst_port.table[4]) == 0x1 && rules_of(c, c->dst_port.table[0]) == 0,
	      "blocks 4 and 0: %#llx %#llx", (unsigned long long)rules_of(c, c->dst_port.table[4]),
	      (unsigned long long)rules_of(c, c->dst_port.table[0]));
	CHECK(rules_of(c, c->dst_port.table[TA_PORT_DIR + 1000 % 256]) == 0x1 &&
	      rules_of(c, c->dst_port.table[TA_PORT_DIR + 999 % 256]) == 0,
	      "page 0 around port 1000");
	/* no rule names sport: one set for every port, and install.c skips it */
	CHECK(!ta_compiled_uses(c, TA_F_SRC_PORT) && c->src_port.size == TA_PORT_DIR,
	      "sport: %u entries", c->src_port.size);
	done(c);
}

/* Equal sets are stored once: two rules give {}, {0}, {1} and {0,1}. */
static void test_shared_sets(void)
{
	struct ta_compiled *c = compile_text("rule drop proto udp\nrule drop proto tcp\n");

	if (!c)
		return;
	CHECK(c->bvs.nr == 4, "%u bit-vectors", c->bvs.nr);
	CHECK(c->head.wildcard[TA_F_VLAN] == c->head.wildcard[TA_F_DST_PORT],
	      "fields no rule names share their wildcard set");
	done(c);
}

/* What holds for any policy: each set once; a rule is in a field's
 * wildcard set exactly when it does not name the field. */
static void check_invariants(const char *name, const struct ta_compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	int dup = 0, wrong = 0;

	for (uint32_t i = 0; i < c->bvs.nr; i++)
		for (uint32_t j = i + 1; j < c->bvs.nr; j++)
			dup += !memcmp(&c->bvs.vecs[i], &c->bvs.vecs[j], sizeof(c->bvs.vecs[i]));
	for (int f = 0; f < TA_F_MAX; f++) {
		const struct ta_bitvec *w = &c->bvs.vecs[c->head.wildcard[f]];

		for (uint32_t r = 0; spec->nr_rules && r < spec->nr_rules; r++) {
			bool in = w->word[r / 64] >> (r % 64) & 1;

			wrong += in == !!(spec->rules[r].fields & (1u << f));
		}
	}
	CHECK(dup == 0, "%s: %d bit-vectors stored twice", name, dup);
	CHECK(wrong == 0, "%s: %d rules wrong in a wildcard set", name, wrong);
	CHECK(c->head.nr_rules == spec->nr_rules, "%s: %u of %u rules", name, c->head.nr_rules,
	      spec->nr_rules);
}

static void test_examples(void)
{
	glob_t g;
	int n = 0;

	if (glob(TOP "/examples/*.policy", 0, NULL, &g)) {
		CHECK(0, "no examples/*.policy under %s", TOP);
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct ta_compiled *c;
		char *text;
		size_t len;

		if (ta_text_read(g.gl_pathv[i], "policy file", 1 << 20, &text, &len, &e)) {
			CHECK(0, "%s", e.text);
			continue;
		}
		c = compile_text(text);
		free(text);
		if (c) {
			check_invariants(g.gl_pathv[i], c);
			done(c);
			n++;
		}
	}
	CHECK(n >= 4, "%d example policies compiled", n);
	globfree(&g);
}

/* A spec built in code, as the parser never makes it: the compiler's own
 * checks. */
static int compile_rules(uint32_t nr, void (*set)(struct ta_policy_spec *))
{
	struct ta_policy_spec spec = {0};
	struct ta_compiled *c = NULL;
	int ret;

	spec.rules = calloc(nr ?: 1, sizeof(*spec.rules));
	spec.nr_rules = nr;
	for (uint32_t i = 0; i < nr; i++) {
		spec.rules[i].fields = 1u << TA_F_VLAN;
		spec.rules[i].vlan = i % 4096;
		spec.rules[i].action = TA_ACT_DROP;
	}
	if (set)
		set(&spec);
	ret = ta_policy_compile(&spec, &c);
	CHECK(ret == 0 || c == NULL, "a failed compile returned a result");
	free(c);
	free(spec.rules);
	return ret;
}

static void bad_action(struct ta_policy_spec *s) { s->rules[0].action = TA_ACT_MAX; }
static void redirect_no_port(struct ta_policy_spec *s) { s->rules[0].action = TA_ACT_REDIRECT; }
static void default_no_port(struct ta_policy_spec *s) { s->default_action = TA_ACT_REDIRECT; }
static void bad_vlan(struct ta_policy_spec *s) { s->rules[0].vlan = 4096; }
static void bad_field(struct ta_policy_spec *s) { s->rules[0].fields |= 1u << TA_F_MAX; }
static void bad_prefix(struct ta_policy_spec *s)
{
	s->rules[0].fields = 1u << TA_F_DST_IP;
	s->rules[0].dst_ip.prefixlen = 129;
}
static void bad_range(struct ta_policy_spec *s)
{
	s->rules[0].fields = 1u << TA_F_SRC_PORT;
	s->rules[0].sport_lo = 20;
	s->rules[0].sport_hi = 10;
}
static void huge_burst(struct ta_policy_spec *s) { s->rate.pps = UINT64_MAX / 1000; }

static void test_refused(void)
{
	CHECK(compile_rules(TA_MAX_RULES, NULL) == 0, "%u rules refused", TA_MAX_RULES);
	CHECK(compile_rules(TA_MAX_RULES + 1, NULL) == -E2BIG, "%u rules", TA_MAX_RULES + 1);
	CHECK(compile_rules(1, bad_action) == -EINVAL, "action out of range");
	CHECK(compile_rules(1, redirect_no_port) == -EINVAL, "redirect without a port");
	CHECK(compile_rules(1, default_no_port) == -EINVAL, "default redirect without a port");
	CHECK(compile_rules(1, bad_vlan) == -EINVAL, "vlan 4096");
	CHECK(compile_rules(1, bad_field) == -EINVAL, "a field past TA_F_MAX");
	CHECK(compile_rules(1, bad_prefix) == -EINVAL, "a /129");
	CHECK(compile_rules(1, bad_range) == -EINVAL, "ports 20-10");
	CHECK(compile_rules(1, huge_burst) == -ERANGE, "a burst past 64 bits in nano-units");
	CHECK(compile_rules(0, huge_burst) == -ERANGE, "the rate of a policy without rules");
}


/* ---- directions and states ----------------------------------------------- */

/* What a policy of before there were directions has in these fields. */
static bool one_way_head(const struct ta_policy *h)
{
	static const struct ta_policy zero;
	size_t at = offsetof(struct ta_policy, ct_flags);

	return !memcmp((const char *)h + at, (const char *)&zero + at, sizeof(*h) - at);
}

/* `text` with `out` on every rule and `default out` for `default`. */
static char *with_out(const char *text)
{
	char *out = malloc(strlen(text) * 2 + 1), *o = out;
	const char *line = text;

	while (out && *line) {
		const char *end = strchr(line, '\n') ?: line + strlen(line);
		const char *hash = memchr(line, '#', (size_t)(end - line)) ?: end;

		if (!strncmp(line, "default ", 8)) {
			o += sprintf(o, "default out %.*s", (int)(end - line - 8), line + 8);
		} else if (!strncmp(line, "rule ", 5)) {
			o += sprintf(o, "%.*s out %.*s", (int)(hash - line), line,
				     (int)(end - hash), hash);
		} else {
			memcpy(o, line, (size_t)(end - line));
			o += end - line;
		}
		if (*end)
			*o++ = *end++;
		line = end;
	}
	if (out)
		*o = '\0';
	return out;
}

/* Every example compiles to exactly what it compiled to before policies
 * had directions (sums in examples-compiled.txt), written as it is and
 * with `out` everywhere. */
static void test_examples_unchanged(void)
{
	FILE *f = fopen(TOP "/tests/unit/examples-compiled.txt", "r");
	char line[256], name[128], path[512];
	unsigned long long want;
	int n = 0;

	CHECK(f != NULL, "no tests/unit/examples-compiled.txt under %s", TOP);
	while (f && fgets(line, sizeof(line), f)) {
		char *text, *spelled;
		size_t len;

		if (line[0] == '#' || sscanf(line, "%127s %llx", name, &want) != 2)
			continue;
		snprintf(path, sizeof(path), TOP "/examples/%s", name);
		if (ta_text_read(path, "policy file", 1 << 20, &text, &len, &e)) {
			CHECK(0, "%s", e.text);
			continue;
		}
		spelled = with_out(text);
		for (int pass = 0; pass < 2 && spelled; pass++) {
			struct ta_compiled *c = compile_text(pass ? spelled : text);
			uint64_t got;

			if (!c)
				continue;
			got = compiled_sum(c, offsetof(struct ta_policy, ct_flags));
			CHECK(got == want, "%s%s compiles to %016llx, before %016llx", name,
			      pass ? " with 'out' written" : "", (unsigned long long)got, want);
			CHECK(one_way_head(&c->head), "%s: a one-way policy has connection fields", name);
			CHECK(!ta_policy_implicit_rules(c->spec), "%s: implicit rules", name);
			done(c);
			n++;
		}
		free(spelled);
		free(text);
	}
	if (f)
		fclose(f);
	CHECK(n >= 12, "%d example compilations compared", n);
}

static void test_two_way(void)
{
	struct ta_compiled *c = compile_text("rule pass out\n"
					     "rule pass in proto tcp dport 22\n"
					     "rule drop in src 10.9.0.0/16\n"
					     "rule reject in proto udp\n"
					     "default in drop\n"
					     "default out pass\n");
	uint64_t in, out, all;
	uint32_t n;

	if (!c)
		return;
	n = ta_policy_implicit_rules(c->spec);
	CHECK(n == 9 && c->head.nr_rules == 13, "%u rules, %u implicit", c->head.nr_rules, n);
	if (n != 9)
		goto out;
	all = (1ull << 13) - 1;
	CHECK(c->head.ct_flags == TA_POL_F_CT, "ct_flags %#x", c->head.ct_flags);
	CHECK(c->head.default_in_action == TA_ACT_DROP && c->head.default_action == TA_ACT_PASS,
	      "defaults in %u out %u", c->head.default_in_action, c->head.default_action);
	CHECK(c->head.generation == 0, "the generation is the installer's: %u", c->head.generation);
	/* implicit: 0 drop in,out invalid; 1 pass in est,rel; 2 pass out est,rel;
	 * 3 ARP in,out; 4 ICMPv6 in,out untracked; 5-8 DHCP in, out, in, out;
	 * then 9 pass out, 10 pass in tcp 22, 11 drop in src, 12 reject in udp */
	in = rules_of(c, c->head.dir_bitvec[TA_DIR_IN]);
	out = rules_of(c, c->head.dir_bitvec[TA_DIR_OUT]);
	CHECK(in == (1u << 0 | 1u << 1 | 1u << 3 | 1u << 4 | 1u << 5 | 1u << 7 | 1u << 10 |
		     1u << 11 | 1u << 12), "rules in %#llx", (unsigned long long)in);
	CHECK(out == (1u << 0 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 6 | 1u << 8 | 1u << 9),
	      "rules out %#llx", (unsigned long long)out);
	/* a rule without a state match is in every state's set */
	CHECK(rules_of(c, c->head.state_bitvec[TA_CT_NEW]) == (all & ~0x17ull),
	      "new %#llx", (unsigned long long)rules_of(c, c->head.state_bitvec[TA_CT_NEW]));
	CHECK(rules_of(c, c->head.state_bitvec[TA_CT_ESTABLISHED]) == (all & ~0x11ull),
	      "established %#llx",
	      (unsigned long long)rules_of(c, c->head.state_bitvec[TA_CT_ESTABLISHED]));
	CHECK(rules_of(c, c->head.state_bitvec[TA_CT_RELATED]) ==
		      rules_of(c, c->head.state_bitvec[TA_CT_ESTABLISHED]),
	      "related shares established's set");
	CHECK(rules_of(c, c->head.state_bitvec[TA_CT_INVALID]) == (all & ~0x16ull),
	      "invalid %#llx", (unsigned long long)rules_of(c, c->head.state_bitvec[TA_CT_INVALID]));
	CHECK(rules_of(c, c->head.state_bitvec[TA_CT_UNTRACKED]) == (all & ~0x07ull),
	      "untracked %#llx",
	      (unsigned long long)rules_of(c, c->head.state_bitvec[TA_CT_UNTRACKED]));
	for (int st = TA_CT_STATE_MAX; st < TA_CT_STATE_SLOTS; st++)
		CHECK(c->head.state_bitvec[st] == 0, "unused state slot %d: %u", st,
		      c->head.state_bitvec[st]);
	CHECK(c->rules[12].action == TA_ACT_REJECT && c->rules[0].action == TA_ACT_DROP,
	      "actions reject %u, drop %u", c->rules[12].action, c->rules[0].action);
	/* the rules the state alone decides (1 + rule): replies and invalid
	 * frames; a new or untracked frame meets ARP's rule (a field) first */
	CHECK(c->head.state_rule[TA_DIR_IN][TA_CT_ESTABLISHED] == 2 &&
		      c->head.state_rule[TA_DIR_IN][TA_CT_RELATED] == 2 &&
		      c->head.state_rule[TA_DIR_OUT][TA_CT_ESTABLISHED] == 3 &&
		      c->head.state_rule[TA_DIR_OUT][TA_CT_RELATED] == 3 &&
		      c->head.state_rule[TA_DIR_IN][TA_CT_INVALID] == 1 &&
		      c->head.state_rule[TA_DIR_OUT][TA_CT_INVALID] == 1,
	      "state rules in est %u rel %u, out est %u rel %u, invalid %u %u",
	      c->head.state_rule[TA_DIR_IN][TA_CT_ESTABLISHED],
	      c->head.state_rule[TA_DIR_IN][TA_CT_RELATED],
	      c->head.state_rule[TA_DIR_OUT][TA_CT_ESTABLISHED],
	      c->head.state_rule[TA_DIR_OUT][TA_CT_RELATED],
	      c->head.state_rule[TA_DIR_IN][TA_CT_INVALID],
	      c->head.state_rule[TA_DIR_OUT][TA_CT_INVALID]);
	for (int d = 0; d < TA_DIR_MAX; d++)
		CHECK(!c->head.state_rule[d][TA_CT_NEW] && !c->head.state_rule[d][TA_CT_UNTRACKED],
		      "dir %d: new %u, untracked %u classify", d, c->head.state_rule[d][TA_CT_NEW],
		      c->head.state_rule[d][TA_CT_UNTRACKED]);
	check_invariants("two-way", c);
out:
	done(c);

	/* state matches of its own: ARP's rule, first, has a field */
	c = compile_text("rule pass in state established\ndefault in drop\n");
	if (c) {
		uint32_t any = 0;

		for (int d = 0; d < TA_DIR_MAX; d++)
			for (int st = 0; st < TA_CT_STATE_SLOTS; st++)
				any |= c->head.state_rule[d][st];
		CHECK(!any, "a user's state match: no state rule");
		done(c);
	}

	/* replies out take the default's action when it lets frames go */
	c = compile_text("default out forward\ndefault in drop\n");
	if (c) {
		CHECK(c->head.nr_rules == 9 && c->rules[2].action == TA_ACT_FORWARD,
		      "replies out: action %u", c->rules[2].action);
		done(c);
	}
	c = compile_text("default out drop\ndefault in drop\n");
	if (c) {
		CHECK(c->rules[2].action == TA_ACT_PASS, "replies out under default drop: %u",
		      c->rules[2].action);
		done(c);
	}
}

static void in_redirect(struct ta_policy_spec *s)
{
	s->rules[0].dirs = TA_DIRS_IN;
	s->rules[0].action = TA_ACT_TX;
}
static void default_in_forward(struct ta_policy_spec *s)
{
	s->default_in_set = true;
	s->default_in_action = TA_ACT_FORWARD;
}
static void bad_state(struct ta_policy_spec *s) { s->rules[0].states = 1u << TA_CT_STATE_MAX; }
static void bad_dir(struct ta_policy_spec *s) { s->rules[0].dirs = 1u << TA_DIR_MAX; }
static void in_reject(struct ta_policy_spec *s)
{
	s->rules[0].dirs = TA_DIRS_IN;
	s->rules[0].action = TA_ACT_REJECT;
}

static void test_two_way_refused(void)
{
	CHECK(compile_rules(1, in_redirect) == -EINVAL, "tx in");
	CHECK(compile_rules(1, default_in_forward) == -EINVAL, "default in forward");
	CHECK(compile_rules(1, bad_state) == -EINVAL, "a state past TA_CT_STATE_MAX");
	CHECK(compile_rules(1, bad_dir) == -EINVAL, "a direction past TA_DIR_MAX");
	CHECK(compile_rules(1, in_reject) == 0, "reject in");
	CHECK(compile_rules(0, default_in_forward) == -EINVAL, "default in forward, no rules");
}

int main(void)
{
	test_no_rules();
	test_fields();
	test_prefixes();
	test_port_pages();
	test_shared_sets();
	test_examples();
	test_refused();
	test_examples_unchanged();
	test_two_way();
	test_two_way_refused();
	return check_report();
}
