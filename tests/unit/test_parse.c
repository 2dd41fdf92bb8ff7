// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* test_parse.c - every construct of the policy language and every error. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/policy/guard_parse.h"
#include "lib/policy/names.h"
#include "lib/policy/parse.h"
#include "lib/policy/print.h"

static struct ta_error e;
/* A guard the input's fault refuses, whatever its errno. */
#define INPUT_ERROR 1
/* The message of the last failed parse. */
#define err e.text

static int parse(const char *text, struct ta_policy_spec *spec)
{
	return ta_policy_parse(text, strlen(text), "t.policy", spec, &e);
}

/* The text must fail with exactly `want`. */
static void expect_error(const char *text, const char *want)
{
	struct ta_policy_spec spec;
	int ret = parse(text, &spec);

	CHECK(ret == -EINVAL && e.input && e.located && !strcmp(err, want),
	      "input: %s\n  got:  %s\n  want: %s", text,
	      ret ? err : "(success)", want);
	CHECK(!spec.rules && !spec.nr_rules, "a failed parse leaves an empty spec");
}

static struct ta_rule_spec one_rule(const char *text)
{
	struct ta_policy_spec spec;
	struct ta_rule_spec r = { 0 };
	int ret = parse(text, &spec);

	CHECK(ret == 0 && spec.nr_rules == 1, "'%s': %s", text, err);
	if (!ret && spec.nr_rules)
		r = spec.rules[0];
	ta_policy_spec_free(&spec);
	return r;
}

static bool mac_is(const uint8_t *mac, const char *want)
{
	char buf[18];

	return !strcmp(ta_format_mac(mac, buf), want);
}

static bool prefix_is(const struct ta_prefix *p, const char *want)
{
	char buf[64];

	return !strcmp(ta_format_prefix(p, buf), want);
}

#define F(f) (1u << (f))

static void test_empty_and_comments(void)
{
	struct ta_policy_spec spec;

	CHECK(parse("", &spec) == 0 && spec.nr_rules == 0 && spec.default_action == TA_ACT_PASS,
	      "empty file");
	ta_policy_spec_free(&spec);
	CHECK(parse("# only a comment\n\n   \t\n# another\n", &spec) == 0 && spec.nr_rules == 0,
	      "comments and blank lines: %s", err);
	CHECK(spec.digest != 0, "digest of the text is set");
	ta_policy_spec_free(&spec);
	CHECK(parse("rule drop proto udp # trailing comment\r\n", &spec) == 0 && spec.nr_rules == 1,
	      "trailing comment and CRLF: %s", err);
	ta_policy_spec_free(&spec);
	CHECK(parse("rule drop proto udp", &spec) == 0 && spec.nr_rules == 1,
	      "no newline at the end: %s", err);
	ta_policy_spec_free(&spec);
}

static void test_actions(void)
{
	struct ta_policy_spec spec;

	CHECK(one_rule("rule pass").action == TA_ACT_PASS, "pass");
	CHECK(one_rule("rule drop").action == TA_ACT_DROP, "drop");
	CHECK(one_rule("rule tx").action == TA_ACT_TX, "tx");
	CHECK(one_rule("rule forward").action == TA_ACT_FORWARD, "forward");
	{
		struct ta_rule_spec r = one_rule("rule redirect tap2");

		CHECK(r.action == TA_ACT_REDIRECT && !strcmp(r.redirect_dev, "tap2"), "redirect");
		CHECK(r.fields == 0 && r.pos.line == 1 && r.pos.col == 1, "position of the rule");
	}
	CHECK(parse("default drop\n", &spec) == 0 && spec.default_action == TA_ACT_DROP, "default");
	ta_policy_spec_free(&spec);
	CHECK(parse("default redirect eth0\n", &spec) == 0 &&
	      spec.default_action == TA_ACT_REDIRECT && !strcmp(spec.default_dev, "eth0"),
	      "default redirect");
	ta_policy_spec_free(&spec);
	CHECK(!strcmp(ta_action_name(TA_ACT_FORWARD), "forward") &&
	      !strcmp(ta_action_name(99), "unknown"), "action names");
}

static void test_matches(void)
{
	struct ta_rule_spec r;

	r = one_rule("rule drop vlan 10");
	CHECK(r.fields == F(TA_F_VLAN) && r.vlan == 10, "vlan");
	r = one_rule("rule drop smac 52:54:00:AA:bb:01 dmac ff-ff-ff-ff-ff-ff");
	CHECK(r.fields == (F(TA_F_SRC_MAC) | F(TA_F_DST_MAC)) &&
	      mac_is(r.src_mac, "52:54:00:aa:bb:01") && mac_is(r.dst_mac, "ff:ff:ff:ff:ff:ff"),
	      "smac, dmac (with '-')");
	r = one_rule("rule drop ethertype arp");
	CHECK(r.fields == F(TA_F_ETHERTYPE) && r.ethertype == 0x0806, "ethertype arp");
	r = one_rule("rule drop ethertype 0x88cc");
	CHECK(r.ethertype == 0x88cc, "ethertype number");
	r = one_rule("rule drop src 10.0.0.0/8 dst 192.168.1.7");
	CHECK(r.fields == (F(TA_F_SRC_IP) | F(TA_F_DST_IP)) && r.src_ip.prefixlen == 104 &&
	      r.dst_ip.prefixlen == 128 && r.src_ip.addr[10] == 0xff && r.src_ip.addr[12] == 10,
	      "IPv4 src/dst are v4-mapped with 96 + n");
	CHECK(prefix_is(&r.src_ip, "10.0.0.0/8") && prefix_is(&r.dst_ip, "192.168.1.7"),
	      "IPv4 prefixes format back");
	r = one_rule("rule drop src fd00::/8 dst fe80::5054:ff:fe12:3456");
	CHECK(r.src_ip.prefixlen == 8 && r.src_ip.addr[0] == 0xfd && r.dst_ip.prefixlen == 128,
	      "IPv6 prefixes");
	CHECK(prefix_is(&r.src_ip, "fd00::/8"), "IPv6 formats back");
	r = one_rule("rule drop src 0.0.0.0/0");
	CHECK(r.src_ip.prefixlen == 96, "IPv4 /0 is 96 bits of ::ffff:0:0");
	CHECK(ta_prefix_is_ip4(&r.src_ip), "IPv4 /0 is IPv4");
	/* IPv6 prefixes holding ::ffff:0:0/96 stay IPv6: they match no IPv4 */
	r = one_rule("rule drop src ::/0 dst ::/80");
	CHECK(r.src_ip.prefixlen == 0 && r.dst_ip.prefixlen == 80 &&
	      !ta_prefix_is_ip4(&r.src_ip) && !ta_prefix_is_ip4(&r.dst_ip),
	      "::/0 and ::/80 are IPv6");
	CHECK(prefix_is(&r.src_ip, "::/0") && prefix_is(&r.dst_ip, "::/80"),
	      "::/0 formats back");
	r = one_rule("rule drop proto udp dport 1000-2000 sport 53");
	CHECK(r.ip_proto == 17 && r.dport_lo == 1000 && r.dport_hi == 2000 && r.sport_lo == 53 &&
	      r.sport_hi == 53, "proto, port range, single port");
	r = one_rule("rule drop proto 132 dport 0-65535");
	CHECK(r.ip_proto == 132 && r.dport_lo == 0 && r.dport_hi == 65535, "numeric proto, full range");
	r = one_rule("rule drop proto icmpv6 icmp-type 135");
	CHECK(r.ip_proto == 58 && r.icmp_type == 135 &&
	      r.fields == (F(TA_F_IP_PROTO) | F(TA_F_ICMP_TYPE)), "icmp-type");
	r = one_rule("rule tx\tvlan 4095   proto tcp");
	CHECK(r.vlan == 4095 && r.ip_proto == 6, "tabs and runs of blanks");
}

static void test_guard_rate_fdb(void)
{
	struct ta_policy_spec spec;
	int ret;

	ret = parse("guard mac 52:54:00:12:34:56 ip 10.0.0.2 ip fe80::5054:ff:fe12:3456\n"
		    "guard ip 10.0.0.3\n", &spec);
	CHECK(ret == 0, "guard: %s", err);
	CHECK(spec.guard.flags == (TA_GUARD_F_MAC | TA_GUARD_F_IP4 | TA_GUARD_F_IP6) &&
	      mac_is(spec.guard.mac, "52:54:00:12:34:56"), "guard flags and MAC");
	CHECK(spec.guard.nr_ip4 == 2 && spec.guard.ip4[0] == inet_addr("10.0.0.2") &&
	      spec.guard.ip4[1] == inet_addr("10.0.0.3"), "guard IPv4 addresses, network order");
	CHECK(spec.guard.nr_ip6 == 1 && spec.guard.ip6[0][0] == 0xfe, "guard IPv6 address");
	ta_policy_spec_free(&spec);

	ret = parse("guard mac 52:54:00:12:34:56\n", &spec);
	CHECK(ret == 0 && spec.guard.flags == TA_GUARD_F_MAC, "guard with only a MAC");
	ta_policy_spec_free(&spec);

	ret = parse("rate 1000pps 10mbit burst 100 burst 64kb\n", &spec);
	CHECK(ret == 0 && spec.rate.pps == 1000 && spec.rate.bps == 10000000 &&
	      spec.rate.burst_pkts == 100 && spec.rate.burst_bytes == 65536, "rate: %s", err);
	ta_policy_spec_free(&spec);
	ret = parse("rate 2kpps\n", &spec);
	CHECK(ret == 0 && spec.rate.pps == 2000 && spec.rate.bps == 0 && !spec.rate.burst_pkts,
	      "rate kpps, no burst");
	ta_policy_spec_free(&spec);
	ret = parse("rate 1gbit burst 1500b\n", &spec);
	CHECK(ret == 0 && spec.rate.bps == 1000000000 && spec.rate.burst_bytes == 1500 &&
	      !spec.rate.pps, "rate gbit, burst bytes");
	ta_policy_spec_free(&spec);

	ret = parse("fdb 52:54:00:aa:bb:cc dev tap1\nfdb 52:54:00:aa:bb:cd dev tap2\n", &spec);
	CHECK(ret == 0 && spec.nr_fdb == 2 && !strcmp(spec.fdb[1].dev, "tap2") &&
	      mac_is(spec.fdb[0].mac, "52:54:00:aa:bb:cc") && spec.fdb[1].pos.line == 2,
	      "fdb: %s", err);
	ta_policy_spec_free(&spec);
}

static void test_order_and_digest(void)
{
	struct ta_policy_spec a, b;

	CHECK(parse("rule drop proto udp\nrule pass proto tcp\nrule tx\n", &a) == 0, "three rules");
	CHECK(a.nr_rules == 3 && a.rules[0].action == TA_ACT_DROP &&
	      a.rules[1].action == TA_ACT_PASS && a.rules[2].action == TA_ACT_TX &&
	      a.rules[2].pos.line == 3, "rules keep file order");
	CHECK(parse("# the same rules\nrule drop  proto 17 # udp\n\nrule pass proto tcp\n"
		    "rule tx \ndefault pass\n", &b) == 0, "again, with comments and blanks");
	CHECK(a.digest == b.digest, "comments, blanks and spellings do not change the digest");
	ta_policy_spec_free(&b);
	CHECK(parse("rule pass proto tcp\nrule drop proto udp\nrule tx\n", &b) == 0, "reordered");
	CHECK(a.digest != b.digest, "the order of the rules changes the digest");
	ta_policy_spec_free(&b);
	CHECK(parse("rule drop proto udp\nrule pass proto tcp\nrule tx\ndefault drop\n", &b) == 0,
	      "another default");
	CHECK(a.digest != b.digest, "the default action changes the digest");
	ta_policy_spec_free(&a);
	ta_policy_spec_free(&b);
}

/* Every guard's checks and words (guard_parse.c), as attach --guard, the
 * bindings and the adapters meet them. */
static void expect_guard(const char *arg, int want_ret, const char *want)
{
	struct ta_guard_spec g;
	char out[512];
	int ret = ta_guard_parse(arg, &g, NULL, &e);

	if (!ret)
		ta_guard_format(&g, out, sizeof(out));
	/* want_ret: 0, or INPUT_ERROR for any -errno that blames the input */
	CHECK((want_ret ? ret < 0 && e.input : ret == 0) && !strcmp(ret ? err : out, want),
	      "guard %s\n  got:  %d %s\n  want: %d %s",
	      arg, ret, ret ? err : out, want_ret, want);
}

static void test_guard_params(void)
{
	char many[64 * 16 + 32] = "mac=52:54:00:12:34:56";

	expect_guard("MAC=52:54:00:12:34:56", INPUT_ERROR,
		     "'MAC=52:54:00:12:34:56' is not mac=MAC (once) or ip=ADDRESS; e.g. "
		     "mac=52:54:00:12:34:56,ip=10.0.0.2,ip=fe80::5054:ff:fe12:3456, or none");
	expect_guard("mac=52-54-00-AB-CD-EF,ip=10.0.0.2,ip6=fe80::1,ip=2001:db8::1", 0,
		     "mac=52:54:00:ab:cd:ef,ip=10.0.0.2,ip=fe80::1,ip=2001:db8::1");
	expect_guard("none", 0, "none");
	expect_guard("", INPUT_ERROR, "an empty guard: give mac=MAC,ip=ADDRESS,... or none");
	expect_guard("mac=52:54:00:12:34:56,mac=52:54:00:12:34:57", INPUT_ERROR,
		     "'mac=52:54:00:12:34:57' is not mac=MAC (once) or ip=ADDRESS; e.g. "
		     "mac=52:54:00:12:34:56,ip=10.0.0.2,ip=fe80::5054:ff:fe12:3456, or none");
	expect_guard("ip=::ffff:10.0.0.1", INPUT_ERROR,
		     "guard address '::ffff:10.0.0.1' is IPv4-mapped (::ffff:0:0/96), which never "
		     "appears on the wire: give the IPv4 address, 10.0.0.1");
	expect_guard("ip=10.0.0.1,ip=10.0.0.1", INPUT_ERROR, "guard address '10.0.0.1' is given twice");
	expect_guard("ip=240.0.0.1,ip=100.64.0.1", 0, "ip=240.0.0.1,ip=100.64.0.1");
	for (int i = 1; i <= 65; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ",ip=10.0.0.%d", i);
	expect_guard(many, INPUT_ERROR,
		     "guard address '10.0.0.65': at most 64 guard addresses of each family");
}

static void test_errors(void)
{
	expect_error("bogus\n",
		     "t.policy:1:1: expected a statement (rule, default, guard, rate or fdb), got 'bogus'");
	expect_error("\n  rule\n",
		     "t.policy:2:7: expected an action (pass, drop, reject, tx, redirect DEV or forward) after 'rule', got end of line");
	expect_error("rule accept\n",
		     "t.policy:1:6: expected an action (pass, drop, reject, tx, redirect DEV or forward) after 'rule', got 'accept'");
	expect_error("rule redirect\n",
		     "t.policy:1:14: expected an interface name after 'redirect', got end of line");
	expect_error("rule redirect averyveryverylongname\n",
		     "t.policy:1:15: expected an interface name (at most 15 characters, no '/' or ':'), got 'averyveryverylongname'");
	expect_error("rule drop port 80\n",
		     "t.policy:1:11: expected a match (in, out, state, vlan, smac, dmac, ethertype, src, dst, proto, sport, dport, icmp-type), got 'port'");
	expect_error("rule drop vlan\n", "t.policy:1:15: expected a value after 'vlan', got end of line");
	expect_error("rule drop vlan 4096\n", "t.policy:1:16: expected a VLAN id 0..4095, got '4096'");
	expect_error("rule drop vlan -1\n", "t.policy:1:16: expected a VLAN id 0..4095, got '-1'");
	expect_error("rule drop smac 52:54:00:12:34\n",
		     "t.policy:1:16: expected a MAC address like 52:54:00:12:34:56, got '52:54:00:12:34'");
	expect_error("rule drop dmac 52:54:00:12:34:5g\n",
		     "t.policy:1:16: expected a MAC address like 52:54:00:12:34:56, got '52:54:00:12:34:5g'");
	expect_error("rule drop smac 52:54:00:12:34:56:78\n",
		     "t.policy:1:16: expected a MAC address like 52:54:00:12:34:56, got '52:54:00:12:34:56:78'");
	expect_error("rule drop src 10.0.0/8\n",
		     "t.policy:1:15: expected an IPv4 or IPv6 address or prefix like 10.0.0.0/8 or fd00::/64, got '10.0.0/8'");
	expect_error("rule drop dst 10.0.0.0/33\n",
		     "t.policy:1:24: expected a prefix length 0..32 after '/', got '33'");
	expect_error("rule drop dst fd00::/129\n",
		     "t.policy:1:22: expected a prefix length 0..128 after '/', got '129'");
	expect_error("rule drop dst 10.0.0.0/\n",
		     "t.policy:1:24: expected a prefix length 0..32 after '/', got ''");
	expect_error("rule drop src 10.9.1.0/16\n",
		     "t.policy:1:15: expected a network address: '10.9.1.0/16' has bits set past the prefix length (did you mean 10.9.0.0/16?)");
	expect_error("rule drop src fd00::1/64\n",
		     "t.policy:1:15: expected a network address: 'fd00::1/64' has bits set past the prefix length (did you mean fd00::/64?)");
	expect_error("rule drop src ::ffff:10.0.0.0/104\n",
		     "t.policy:1:15: expected IPv4, or IPv6 outside ::ffff:0:0/96: '::ffff:10.0.0.0/104' is IPv4-mapped, which never appears on the wire (did you mean 10.0.0.0/8?)");
	expect_error("rule drop dst ::ffff:10.0.0.5\n",
		     "t.policy:1:15: expected IPv4, or IPv6 outside ::ffff:0:0/96: '::ffff:10.0.0.5' is IPv4-mapped, which never appears on the wire (did you mean 10.0.0.5?)");
	expect_error("rule drop src ::ffff:0:0/96\n",
		     "t.policy:1:15: expected IPv4, or IPv6 outside ::ffff:0:0/96: '::ffff:0:0/96' is IPv4-mapped, which never appears on the wire (did you mean 0.0.0.0/0?)");
	expect_error("rule drop src ::/0 dst 10.0.0.0/8\n",
		     "t.policy:1:20: expected dst of the same family as src (IPv6), no frame has both");
	expect_error("rule drop src 10.0.0.0/8 dst fd00::/8\n",
		     "t.policy:1:26: expected dst of the same family as src (IPv4), no frame has both");
	expect_error("rule drop ethertype ipv6 src 10.0.0.0/8\n",
		     "t.policy:1:11: expected ethertype ipv4 with an IPv4 address, no frame has both");
	expect_error("rule drop ethertype 0x05ff\n",
		     "t.policy:1:21: expected an ethertype (ipv4, ipv6, arp or a number 0x0600..0xffff), got '0x05ff'");
	expect_error("rule drop proto foo\n",
		     "t.policy:1:17: expected a protocol (tcp, udp, icmp, icmpv6, sctp, udplite, gre, esp, ah or 0..255), got 'foo'");
	expect_error("rule drop proto 256\n",
		     "t.policy:1:17: expected a protocol (tcp, udp, icmp, icmpv6, sctp, udplite, gre, esp, ah or 0..255), got '256'");
	expect_error("rule drop dport 65536\n",
		     "t.policy:1:17: expected a port 0..65535 or a range like 1000-2000, got '65536'");
	expect_error("rule drop dport 80-\n",
		     "t.policy:1:17: expected a port 0..65535 or a range like 1000-2000, got '80-'");
	expect_error("rule drop sport 2000-1000\n",
		     "t.policy:1:17: expected a port range LOW-HIGH with LOW <= HIGH, got 2000-1000");
	expect_error("rule drop dport http\n",
		     "t.policy:1:17: expected a port 0..65535 or a range like 1000-2000, got 'http'");
	expect_error("rule drop proto icmp dport 80\n",
		     "t.policy:1:22: expected proto tcp, udp, sctp or udplite with 'dport', protocol 1 has no ports");
	expect_error("rule drop proto tcp icmp-type 8\n",
		     "t.policy:1:21: expected proto icmp or icmpv6 with 'icmp-type', protocol 6 has no ICMP type");
	expect_error("rule drop icmp-type 300\n", "t.policy:1:21: expected an ICMP type 0..255, got '300'");
	expect_error("rule drop proto udp proto tcp\n",
		     "t.policy:1:21: 'proto' given twice in one rule (first at column 11)");
	expect_error("default drop\ndefault pass\n",
		     "t.policy:2:1: 'default' given twice (first at line 1)");
	expect_error("default drop extra\n", "t.policy:1:14: expected end of line, got 'extra'");
	expect_error("fdb 52:54:00:aa:bb:cc tap1\n",
		     "t.policy:1:23: expected 'dev' and an interface after the MAC, got 'tap1'");
	expect_error("fdb 52:54:00:aa:bb:cc dev\n",
		     "t.policy:1:26: expected an interface name after 'dev', got end of line");
	expect_error("fdb 52:54:00:aa:bb:cc dev a\nfdb 52:54:00:AA:BB:CC dev b\n",
		     "t.policy:2:1: fdb entry for this MAC given twice (first at line 1)");
	expect_error("fdb 01:00:5e:00:00:01 dev a\n",
		     "t.policy:1:5: expected a unicast MAC: forwarding takes unicast destinations only");
	expect_error("guard\n", "t.policy:1:6: expected 'mac MAC' or 'ip ADDRESS' after 'guard', got end of line");
	expect_error("guard mac 52:54:00:12:34:56 vlan 3\n",
		     "t.policy:1:29: expected 'mac MAC' or 'ip ADDRESS' in guard, got 'vlan'");
	expect_error("guard ip 10.0.0.0/24\n",
		     "t.policy:1:10: guard address '10.0.0.0/24' is not an IPv4 or IPv6 address");
	expect_error("guard ip ::ffff:10.0.0.2\n",
		     "t.policy:1:10: guard address '::ffff:10.0.0.2' is IPv4-mapped (::ffff:0:0/96), which never appears on the wire: give the IPv4 address, 10.0.0.2");
	expect_error("guard ip 10.0.0.1 ip 10.0.0.1\n",
		     "t.policy:1:22: guard address '10.0.0.1' is given twice");
	expect_error("guard mac ff:ff:ff:ff:ff:ff\n",
		     "t.policy:1:11: guard MAC 'ff:ff:ff:ff:ff:ff' is the broadcast address, never a guest's own");
	expect_error("guard ip 0.0.0.0\n",
		     "t.policy:1:10: guard address '0.0.0.0' is unspecified (0.0.0.0/8), never a guest's own");
	expect_error("guard mac 52:54:00:12:34:56\nguard mac 52:54:00:12:34:57\n",
		     "t.policy:2:7: guard mac given twice (first at line 1)");
	expect_error("rate\n",
		     "t.policy:1:5: expected a packet rate like 1000pps or a bit rate like 10mbit, got end of line");
	expect_error("rate 10mbps\n",
		     "t.policy:1:6: expected a packet rate like 1000pps, a bit rate like 10mbit or 'burst', got '10mbps'");
	expect_error("rate 0pps\n",
		     "t.policy:1:6: expected a packet rate like 1000pps, a bit rate like 10mbit or 'burst', got '0pps'");
	expect_error("rate 10pps burst\n",
		     "t.policy:1:17: expected a burst like 100 (packets) or 64kb (bytes) after 'burst', got end of line");
	expect_error("rate 10pps burst 5kbit\n",
		     "t.policy:1:18: expected a burst like 100 (packets) or 64kb (bytes), got '5kbit'");
	expect_error("rate burst 10\n",
		     "t.policy:1:14: expected a packet rate like 1000pps or a bit rate like 10mbit, got end of line");
	expect_error("rate 10pps\nrate 20pps\n", "t.policy:2:1: 'rate' given twice (first at line 1)");
	{
		static const char text[] = "rule drop\0\n";
		struct ta_policy_spec spec;
		int ret = ta_policy_parse(text, sizeof(text) - 1, "t.policy", &spec, &e);

		CHECK(ret == -EINVAL && e.input && !strcmp(err, "t.policy:1:10: expected text, got a NUL byte"),
		      "NUL byte: %s", err);
	}
}

static void test_duplicates(void)
{
	expect_error("rule drop proto udp dport 53\nrule pass dport 53 proto udp\n",
		     "t.policy:2:1: duplicate rule: it matches exactly what the rule at line 1 matches, so it would never match");
	expect_error("rule drop\n# x\nrule tx\n",
		     "t.policy:3:1: duplicate rule: it matches exactly what the rule at line 1 matches, so it would never match");
	expect_error("rule drop src 10.0.0.0/8\nrule drop src 10.0.0.0/8\n",
		     "t.policy:2:1: duplicate rule: it matches exactly what the rule at line 1 matches, so it would never match");
	{
		struct ta_policy_spec spec;

		CHECK(parse("rule drop dport 53\nrule drop dport 53-54\nrule drop sport 53\n", &spec) == 0,
		      "overlapping but different rules are not duplicates: %s", err);
		ta_policy_spec_free(&spec);
	}
}

/* "rule drop dport N" for N in [0, n): all distinct. */
static char *many_rules(int n)
{
	char *text = malloc((size_t)n * 32 + 1), *p = text;

	for (int i = 0; i < n; i++)
		p += sprintf(p, "rule drop dport %d\n", i);
	return text;
}

static void test_limits(void)
{
	struct ta_policy_spec spec;
	char want[128];
	char *text;

	text = many_rules(TA_MAX_RULES);
	CHECK(parse(text, &spec) == 0 && spec.nr_rules == TA_MAX_RULES, "%d rules fit: %s",
	      TA_MAX_RULES, err);
	ta_policy_spec_free(&spec);
	free(text);
	text = many_rules(TA_MAX_RULES + 1);
	snprintf(want, sizeof(want), "t.policy:%d:1: too many rules: a policy holds at most %d",
		 TA_MAX_RULES + 1, TA_MAX_RULES);
	expect_error(text, want);
	free(text);
}

static void test_file(void)
{
	struct ta_policy_spec spec;
	char path[] = "/tmp/ta-unit-XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fdopen(fd, "w");

	fputs("# file\nrule drop proto udp\nrule oops\n", f);
	fclose(f);
	ret = ta_policy_parse_file(path, &spec, &e);
	CHECK(ret == -EINVAL && e.input && strstr(err, ":3:6: expected an action") && !strncmp(err, path, strlen(path)),
	      "errors name the file: %s", err);
	unlink(path);
	ret = ta_policy_parse_file(path, &spec, &e);
	CHECK(ret == -ENOENT && e.input && strstr(err, "cannot read the policy file") &&
		      !strncmp(err, path, strlen(path)),
	      "missing file: %s", err);
	ret = ta_policy_parse_file("/tmp", &spec, &e);
	CHECK(ret == -EINVAL && e.input && strstr(err, "expected a regular policy file"),
	      "directory: %s", err);
}

/* Writing a spec and parsing the text gives the same spec. */
static void test_write_round_trip(void)
{
	static const char text[] =
		"guard mac 52:54:00:12:34:56 ip 10.0.0.2 ip fe80::1\n"
		"rate 1000pps 10mbit burst 100 burst 64kb\n"
		"fdb 52:54:00:aa:bb:cc dev tap1\n"
		"rule drop proto udp dst 10.9.0.0/16 dport 1000-2000\n"
		"rule redirect tap2 vlan 10 dmac 52:54:00:aa:bb:cc\n"
		"rule tx smac 52:54:00:00:00:01 ethertype 0x88cc\n"
		"rule pass src fd00::/8 proto sctp sport 7\n"
		"rule drop proto icmp icmp-type 8 ethertype ipv4\n"
		"default redirect eth0\n";
	struct ta_policy_spec a, b;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(parse(text, &a) == 0, "round trip source: %s", err);
	f = open_memstream(&out, &len);
	ta_policy_write(f, &a);
	fclose(f);
	CHECK(parse(out, &b) == 0, "written text parses: %s\n%s", err, out);
	CHECK(a.nr_rules == b.nr_rules && a.nr_fdb == b.nr_fdb, "same sizes");
	for (uint32_t i = 0; i < a.nr_rules && i < b.nr_rules; i++)
		CHECK(a.rules[i].fields == b.rules[i].fields && a.rules[i].action == b.rules[i].action &&
		      !strcmp(a.rules[i].redirect_dev, b.rules[i].redirect_dev) &&
		      !memcmp(&a.rules[i].src_ip, &b.rules[i].src_ip, sizeof(a.rules[i].src_ip)) &&
		      !memcmp(&a.rules[i].dst_ip, &b.rules[i].dst_ip, sizeof(a.rules[i].dst_ip)) &&
		      a.rules[i].dport_lo == b.rules[i].dport_lo && a.rules[i].dport_hi == b.rules[i].dport_hi &&
		      a.rules[i].sport_lo == b.rules[i].sport_lo && a.rules[i].vlan == b.rules[i].vlan &&
		      a.rules[i].ethertype == b.rules[i].ethertype && a.rules[i].ip_proto == b.rules[i].ip_proto &&
		      a.rules[i].icmp_type == b.rules[i].icmp_type &&
		      !memcmp(a.rules[i].src_mac, b.rules[i].src_mac, 6) &&
		      !memcmp(a.rules[i].dst_mac, b.rules[i].dst_mac, 6),
		      "rule %u survives the round trip:\n%s", i, out);
	CHECK(!memcmp(&a.guard, &b.guard, sizeof(a.guard)), "guard survives");
	CHECK(!memcmp(&a.rate, &b.rate, sizeof(a.rate)), "rate survives");
	CHECK(b.default_action == TA_ACT_REDIRECT && !strcmp(b.default_dev, "eth0"), "default survives");
	CHECK(b.nr_fdb == 1 && !strcmp(b.fdb[0].dev, "tap1") && !memcmp(a.fdb[0].mac, b.fdb[0].mac, 6),
	      "fdb survives");
	ta_policy_spec_free(&a);
	ta_policy_spec_free(&b);
	free(out);
}

static void test_mac_helpers(void)
{
	uint8_t mac[6];

	CHECK(ta_parse_mac("00:11:22:33:44:55", mac) == 0 && mac[5] == 0x55, "parse MAC");
	CHECK(ta_parse_mac("0:11:22:33:44:55", mac) == -EINVAL, "short octet");
	CHECK(ta_parse_mac("00:11:22:33:44:55 ", mac) == -EINVAL, "trailing text");
	CHECK(ta_parse_mac("", mac) == -EINVAL, "empty");
}


/* ---- two-way policies --------------------------------------------------- */

/* The canonical text of a parsed policy (what the digest is of). */
static char *written(const char *text)
{
	struct ta_policy_spec spec;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (parse(text, &spec)) {
		CHECK(0, "'%s' does not parse: %s", text, err);
		return NULL;
	}
	f = open_memstream(&out, &len);
	if (f) {
		ta_policy_write(f, &spec);
		fclose(f);
	}
	ta_policy_spec_free(&spec);
	return out;
}

static uint64_t digest_of(const char *text)
{
	struct ta_policy_spec spec;
	uint64_t d = 0;

	if (parse(text, &spec) == 0)
		d = spec.digest;
	CHECK(d, "'%s' does not parse: %s", text, err);
	ta_policy_spec_free(&spec);
	return d;
}

static const char SG[] = "rule pass out\n"
			 "rule pass in proto tcp dport 22\n"
			 "rule drop in src 10.9.0.0/16\n"
			 "default in drop\n"
			 "default out pass\n";

static void test_two_way_spellings(void)
{
	struct ta_policy_spec spec;
	uint32_t n;

	CHECK(parse(SG, &spec) == 0, "the security group: %s", err);
	n = ta_policy_implicit_rules(&spec);
	CHECK(ta_policy_two_way(&spec), "a policy with in rules is two-way");
	CHECK(n == 9 && spec.nr_rules == 12, "%u rules, %u implicit", spec.nr_rules, n);
	CHECK(spec.default_in_set && spec.default_in_action == TA_ACT_DROP &&
	      spec.default_action == TA_ACT_PASS, "defaults in %u out %u",
	      spec.default_in_action, spec.default_action);
	if (spec.nr_rules == 12) {
		const struct ta_rule_spec *r = spec.rules;

		/* the security group's own, first: invalid, replies both ways */
		CHECK(r[0].implicit && r[0].action == TA_ACT_DROP && r[0].dirs == TA_DIRS_BOTH &&
		      r[0].states == 1u << TA_CT_INVALID, "rule 0: drop invalid");
		CHECK(r[1].action == TA_ACT_PASS && r[1].dirs == TA_DIRS_IN &&
		      r[1].states == (1u << TA_CT_ESTABLISHED | 1u << TA_CT_RELATED),
		      "rule 1: replies in");
		CHECK(r[2].action == TA_ACT_PASS && r[2].dirs == TA_DIRS_OUT, "rule 2: replies out");
		CHECK(r[3].fields == 1u << TA_F_ETHERTYPE && r[3].ethertype == 0x0806 &&
		      r[3].dirs == TA_DIRS_BOTH && !r[3].states, "rule 3: ARP both ways");
		CHECK(r[4].ip_proto == 58 && r[4].states == 1u << TA_CT_UNTRACKED,
		      "rule 4: untracked ICMPv6 (neighbours)");
		CHECK(r[5].dirs == TA_DIRS_IN && r[5].sport_lo == 67 && r[5].dport_lo == 68 &&
		      r[6].dirs == TA_DIRS_OUT && r[6].sport_lo == 68 && r[6].dport_lo == 67,
		      "rules 5, 6: DHCP");
		CHECK(!r[9].implicit && r[9].dirs == TA_DIRS_OUT && !r[9].fields && !r[9].states,
		      "rule pass out");
		CHECK(r[10].dirs == TA_DIRS_IN && r[10].ip_proto == 6 && r[10].dport_lo == 22 &&
		      r[10].pos.line == 2, "rule pass in proto tcp dport 22");
		CHECK(r[11].dirs == TA_DIRS_IN && r[11].action == TA_ACT_DROP &&
		      r[11].src_ip.prefixlen == 96 + 16, "rule drop in src 10.9.0.0/16");
	}
	ta_policy_spec_free(&spec);

	/* states, comma lists, reject, in,out */
	CHECK(parse("rule reject in proto udp state new,invalid\n"
		    "rule pass in,out state established\n", &spec) == 0, "states: %s", err);
	n = ta_policy_implicit_rules(&spec);
	CHECK(n == 6, "a policy writing states gets only the neighbours: %u implicit", n);
	if (spec.nr_rules == n + 2) {
		const struct ta_rule_spec *r = spec.rules + n;

		CHECK(r[0].action == TA_ACT_REJECT && r[0].dirs == TA_DIRS_IN &&
		      r[0].states == (1u << TA_CT_NEW | 1u << TA_CT_INVALID), "reject new,invalid");
		CHECK(r[1].dirs == TA_DIRS_BOTH && r[1].states == 1u << TA_CT_ESTABLISHED,
		      "in,out established");
	}
	CHECK(!spec.default_in_set && spec.default_in_action == TA_ACT_PASS,
	      "no default in: pass");
	ta_policy_spec_free(&spec);

	/* `default X` is out; `out` on a rule is the default */
	CHECK(parse("rule drop out proto udp\ndefault out drop\n", &spec) == 0, "%s", err);
	CHECK(!ta_policy_two_way(&spec) && spec.nr_rules == 1 && spec.default_action == TA_ACT_DROP &&
	      !ta_policy_implicit_rules(&spec), "out only is one-way, no implicit rule");
	ta_policy_spec_free(&spec);
	CHECK(parse("default in reject\n", &spec) == 0, "%s", err);
	CHECK(ta_policy_two_way(&spec) && spec.default_in_action == TA_ACT_REJECT,
	      "default in alone makes it two-way");
	ta_policy_spec_free(&spec);
	CHECK(parse("rule reject proto tcp dport 25\n", &spec) == 0 && !ta_policy_two_way(&spec) &&
	      spec.rules[0].action == TA_ACT_REJECT, "reject out stays one-way");
	ta_policy_spec_free(&spec);
}

static void test_two_way_canonical(void)
{
	char *a, *b;

	/* one-way: written as before there were directions */
	a = written("rule pass out proto tcp\ndefault out drop\n");
	CHECK(a && !strcmp(a, "rule pass proto tcp\ndefault drop\n"), "one-way: '%s'", a);
	free(a);
	CHECK(digest_of("rule pass out proto tcp\ndefault out drop\n") ==
	      digest_of("rule pass proto tcp\ndefault drop\n"), "out written or not: one digest");

	a = written(SG);
	CHECK(a && !strcmp(a, "rule pass out\n"
			      "rule pass in proto tcp dport 22\n"
			      "rule drop in src 10.9.0.0/16\n"
			      "default out pass\n"
			      "default in drop\n"),
	      "two-way: '%s'", a);
	free(a);
	/* the same rules, written otherwise */
	b = written("default in drop   # the rest in\n"
		    "rule pass\n"
		    "rule pass proto 6 in dport 22\n"
		    "rule drop src 10.9.0.0/16 in\n");
	a = written(SG);
	CHECK(a && b && !strcmp(a, b), "'%s' and '%s'", a, b);
	free(a);
	free(b);
	CHECK(digest_of(SG) == digest_of("rule pass\nrule pass in dport 22 proto tcp\n"
					 "rule drop in src 10.9.0.0/16\ndefault in drop\n"),
	      "two-way: one digest for two spellings");
	CHECK(digest_of(SG) != digest_of("rule pass out\nrule pass in proto tcp dport 22\n"
					 "rule drop in src 10.9.0.0/16\ndefault in reject\n"),
	      "the default in changes the digest");
	CHECK(digest_of("rule pass in state related,new proto icmp\n") ==
	      digest_of("rule pass in proto icmp state new,related\ndefault in pass\n"),
	      "state lists in any order, default in pass written or not");
	a = written("rule pass in proto icmp state related,new\n");
	CHECK(a && !strcmp(a, "rule pass in proto icmp state new,related\ndefault out pass\n"
			      "default in pass\n"), "'%s'", a);
	free(a);
	CHECK(digest_of("rule drop in proto udp\n") != digest_of("rule drop proto udp\n"),
	      "the direction changes the digest");
	/* implicit rules are not written: parsing the text again gives them once */
	a = written(SG);
	b = a ? written(a) : NULL;
	CHECK(a && b && !strcmp(a, b), "round trip: '%s' then '%s'", a, b);
	free(a);
	free(b);
}

static void test_two_way_errors(void)
{
	expect_error("rule redirect tap1 in\n",
		     "t.policy:1:20: expected 'out' with action redirect: what goes to a guest can only be passed, dropped or rejected (write a second rule with 'in' for that direction)");
	expect_error("rule tx in,out proto udp\n",
		     "t.policy:1:9: expected 'out' with action tx: what goes to a guest can only be passed, dropped or rejected (write a second rule with 'in' for that direction)");
	expect_error("default in forward\n",
		     "t.policy:1:12: expected pass, drop or reject after 'default in': what goes to a guest can only be passed, dropped or rejected, not forward");
	expect_error("default in\n",
		     "t.policy:1:11: expected an action (pass, drop, reject, tx, redirect DEV or forward) after 'in', got end of line");
	expect_error("default in drop\ndefault in pass\n",
		     "t.policy:2:1: 'default in' given twice (first at line 1)");
	expect_error("default drop\ndefault out pass\n",
		     "t.policy:2:1: 'default' given twice (first at line 1)");
	expect_error("rule pass in out\n",
		     "t.policy:1:14: direction given twice in one rule (first at column 11)");
	expect_error("rule pass inward\n",
		     "t.policy:1:11: expected a match (in, out, state, vlan, smac, dmac, ethertype, src, dst, proto, sport, dport, icmp-type), got 'inward'");
	expect_error("rule pass in state\n",
		     "t.policy:1:19: expected a connection state like established,related after 'state', got end of line");
	expect_error("rule pass in state new,estab\n",
		     "t.policy:1:24: expected a connection state (new, established, related, invalid or untracked), got 'estab'");
	expect_error("rule pass in state new,new\n",
		     "t.policy:1:24: 'new' given twice in one list");
	expect_error("rule pass in state new state invalid\n",
		     "t.policy:1:24: 'state' given twice in one rule (first at column 14)");
	expect_error("rule pass in ethertype arp state established\n",
		     "t.policy:1:28: expected 'state untracked' or no state with ethertype arp: only IPv4 and IPv6 frames have connections");
	expect_error("rule pass in proto tcp state related\n",
		     "t.policy:1:24: expected proto icmp or icmpv6 and no ports with 'state related': related frames are ICMP errors about a connection");
	expect_error("rule pass in dport 53 state related\n",
		     "t.policy:1:23: expected proto icmp or icmpv6 and no ports with 'state related': related frames are ICMP errors about a connection");
	expect_error("rule drop in proto udp\nrule pass proto udp in\n",
		     "t.policy:2:1: duplicate rule: it matches exactly what the rule at line 1 matches, so it would never match");
}

int main(void)
{
	test_empty_and_comments();
	test_actions();
	test_matches();
	test_guard_rate_fdb();
	test_order_and_digest();
	test_guard_params();
	test_errors();
	test_duplicates();
	test_limits();
	test_file();
	test_write_round_trip();
	test_mac_helpers();
	test_two_way_spellings();
	test_two_way_canonical();
	test_two_way_errors();
	return check_report();
}
