// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_nwfilter.c - the libvirt nwfilter importer: what each construct
 * translates into, the guard recognized from the anti-spoofing chains, and
 * every refusal's exact words. The filters are written here, in a
 * temporary folder, from libvirt's formatnwfilter documentation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lib/import/nwfilter.h"

static char dir[64];
static char warnings[8192];

static void collect(void *ctx, const char *msg)
{
	(void)ctx;
	strncat(warnings, msg, sizeof(warnings) - strlen(warnings) - 2);
	strcat(warnings, "\n");
}

static const char *path_of(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s.xml", dir, name);
	return buf;
}

static void put(const char *name, const char *xml)
{
	char p[256];
	FILE *f = fopen(path_of(name, p, sizeof(p)), "w");

	if (!f) {
		perror(p);
		exit(2);
	}
	fputs(xml, f);
	fclose(f);
}

/* The policy's statements (comments and their "# where" left out), or the
 * error, for filter NAME with parameters PARAMS ("A=1,B=2" or NULL). */
static char *translate(const char *name, const char *params, int *ret)
{
	struct ta_nwf_param p[32];
	char file[256], pbuf[512] = "", *out;
	const char *files[1] = { path_of(name, file, sizeof(file)) };
	struct ta_nwf_input in = { .files = files, .nr_files = 1, .dir = dir, .params = p };
	struct ta_import im = { .warn = collect };
	struct ta_error e;
	size_t n = 0;

	*warnings = 0;
	if (params) {
		snprintf(pbuf, sizeof(pbuf), "%s", params);
		in.nr_params = ta_nwf_parse_params(pbuf, p, 32, &e);
	}
	*ret = ta_import_open(&im, &e) ?: ta_import_nwfilter(&in, &im, &e) ?:
					     ta_import_close(&im, file, &e);
	if (*ret) {
		ta_import_free(&im);
		/* the folder is the test's: leave it out of the message */
		out = strdup(e.text);
		for (char *s; (s = strstr(out, dir));) {
			size_t cut = strlen(dir) + (s[strlen(dir)] == '/');

			memmove(s, s + cut, strlen(s + cut) + 1);
		}
		return out;
	}
	out = calloc(1, im.len + 1);
	for (char *line = strtok(im.text, "\n"); line; line = strtok(NULL, "\n")) {
		char *hash = strstr(line, "  #");

		if (*line == '#')
			continue;
		if (hash)
			*hash = 0;
		n += sprintf(out + n, "%s\n", line);
	}
	ta_import_free(&im);
	return out;
}

static void expect(const char *desc, const char *name, const char *params, const char *want)
{
	int ret;
	char *got = translate(name, params, &ret);

	CHECK(!ret && !strcmp(got, want), "%s:\n--- got (%d):\n%s--- want:\n%s", desc, ret, got,
	      want);
	free(got);
}

static void expect_error(const char *desc, const char *name, const char *params,
			 const char *want)
{
	int ret;
	char *got = translate(name, params, &ret);

	CHECK(ret && !strcmp(got, want), "%s:\n  got:  %s\n  want: %s", desc, ret ? got : "(ok)",
	      want);
	free(got);
}

static void test_layers(void)
{
	put("ssh-in", "<filter name='ssh-in' chain='ipv4'>\n"
		      "  <rule action='accept' direction='in'>\n"
		      "    <tcp dstportstart='22'/>\n"
		      "  </rule>\n"
		      "  <rule action='drop' direction='inout' priority='1000'><all/></rule>\n"
		      "</filter>\n");
	expect("an iptables accept in, with statematch: new in, answers out", "ssh-in", NULL,
	       "rule pass in state new,established ethertype ipv4 proto tcp dport 22\n"
	       "rule pass out state established ethertype ipv4 proto tcp sport 22\n"
	       "rule drop in,out ethertype ipv4\n");
	CHECK(strstr(warnings, "ssh-in.xml:5: the filter drops DHCP from the guest here") != NULL,
	      "the DHCP tap-accel passes anyway is said: %s", warnings);

	put("nostate", "<filter name='nostate'>\n"
		       "  <rule action='accept' direction='out' statematch='false'>\n"
		       "    <udp dstportstart='53' dstportend='54'/>\n"
		       "  </rule>\n"
		       "  <rule action='accept' direction='in' statematch='0'>\n"
		       "    <udp srcportstart='53'/>\n"
		       "  </rule>\n"
		       "  <rule action='reject' direction='in'><tcp state='NEW,INVALID'/></rule>\n"
		       "</filter>\n");
	expect("statematch false: one direction, no state; state='NEW,INVALID' as written",
	       "nostate", NULL,
	       "rule pass out ethertype ipv4 proto udp dport 53-54\n"
	       "rule pass in ethertype ipv4 proto udp sport 53\n"
	       "rule reject in state new,invalid ethertype ipv4 proto tcp\n");

	put("l2", "<filter name='l2'>\n"
		  "  <rule action='accept' direction='out' priority='-700'>\n"
		  "    <mac protocolid='ipv4' dstmacaddr='52:54:00:AA:BB:CC'/>\n"
		  "  </rule>\n"
		  "  <rule action='drop' direction='inout' priority='-600'><mac/></rule>\n"
		  "  <rule action='drop' direction='out'>\n"
		  "    <icmp type='8'/>\n"
		  "  </rule>\n"
		  "</filter>\n");
	expect("an ebtables accept takes the iptables rules before it; one-way without in or state",
	       "l2", NULL,
	       "rule drop out dmac 52:54:00:aa:bb:cc ethertype ipv4 proto icmp icmp-type 8\n"
	       "rule pass out dmac 52:54:00:aa:bb:cc ethertype ipv4\n"
	       "rule drop in,out\n"
	       "rule pass in,out state untracked ethertype 0x88b5\n");
	CHECK(strstr(warnings, "the filter drops ARP to the guest") != NULL,
	      "ARP, which a two-way policy passes, is said: %s", warnings);

	put("v6", "<filter name='v6'>\n"
		  "  <rule action='accept' direction='in'>\n"
		  "    <tcp-ipv6 srcipaddr='2001:db8::5' srcipmask='ffff:ffff::' dstportstart='443'/>\n"
		  "  </rule>\n"
		  "  <rule action='drop' direction='in'><ip srcipaddr='10.1.2.3' srcipmask='255.255.0.0'/></rule>\n"
		  "</filter>\n");
	expect("IPv6 and netmasks: the host bits cleared", "v6", NULL,
	       "rule drop in ethertype ipv4 src 10.1.0.0/16\n"
	       "rule pass in state new,established ethertype ipv6 src 2001:db8::/32 proto tcp dport 443\n"
	       "rule pass out state established ethertype ipv6 dst 2001:db8::/32 proto tcp sport 443\n");
}

static void test_ranges(void)
{
	put("range", "<filter name='range'>\n"
		     "  <rule action='drop' direction='in' statematch='false'>\n"
		     "    <tcp srcipfrom='10.0.0.1' srcipto='10.0.0.6' dstportstart='22'/>\n"
		     "  </rule>\n"
		     "  <rule action='drop' direction='out'>\n"
		     "    <udp-ipv6 dstipfrom='2001:db8::' dstipto='2001:db8::1:ffff'/>\n"
		     "  </rule>\n"
		     "</filter>\n");
	expect("an address range: a rule per prefix, the fewest", "range", NULL,
	       "rule drop in ethertype ipv4 src 10.0.0.1 proto tcp dport 22\n"
	       "rule drop in ethertype ipv4 src 10.0.0.2/31 proto tcp dport 22\n"
	       "rule drop in ethertype ipv4 src 10.0.0.4/31 proto tcp dport 22\n"
	       "rule drop in ethertype ipv4 src 10.0.0.6 proto tcp dport 22\n"
	       "rule drop out ethertype ipv6 dst 2001:db8::/111 proto udp\n"
	       "rule pass in,out state untracked ethertype 0x88b5\n");
	put("badrange", "<filter name='badrange'>\n"
			"  <rule action='drop' direction='in'><tcp srcipfrom='10.0.0.9' srcipto='10.0.0.1'/></rule>\n"
			"</filter>\n");
	expect_error("a range backwards", "badrange", NULL,
		     "badrange.xml:2: <tcp srcipfrom='10.0.0.9' srcipto='10.0.0.1'>: expected a "
		     "range of addresses of at most 64 prefixes");
}

static const char *const spoof_mac =
	"<filter name='g-mac' chain='mac' priority='-800'>\n"
	"  <rule direction='out' action='return'><mac srcmacaddr='$MAC'/></rule>\n"
	"  <rule direction='out' action='drop'><mac/></rule>\n"
	"</filter>\n";
static const char *const spoof_ip =
	"<filter name='g-ip' chain='ipv4-ip' priority='-710'>\n"
	"  <rule action='return' direction='out' priority='100'>\n"
	"    <ip srcipaddr='0.0.0.0' protocol='udp'/>\n"
	"  </rule>\n"
	"  <rule direction='out' action='return' priority='500'><ip srcipaddr='$IP'/></rule>\n"
	"  <rule direction='out' action='drop' priority='1000'/>\n"
	"</filter>\n";

static void test_guard(void)
{
	put("g-mac", spoof_mac);
	put("g-ip", spoof_ip);
	put("g-arpmac", "<filter name='g-arpmac' chain='arp-mac' priority='-520'>\n"
			"  <rule action='return' direction='out' priority='350'>\n"
			"    <arp match='yes' arpsrcmacaddr='$MAC'/>\n"
			"  </rule>\n"
			"  <rule action='drop' direction='out' priority='1000'/>\n"
			"</filter>\n");
	put("g-arpip", "<filter name='g-arpip' chain='arp-ip' priority='-510'>\n"
		       "  <rule action='return' direction='out' priority='400'>\n"
		       "    <arp match='yes' arpsrcipaddr='$IP'/>\n"
		       "  </rule>\n"
		       "  <rule action='drop' direction='out' priority='1000'/>\n"
		       "</filter>\n");
	put("guarded", "<filter name='guarded' chain='root'>\n"
		       "  <filterref filter='g-mac'/>\n"
		       "  <filterref filter='g-ip'/>\n"
		       "  <filterref filter='g-arpmac'/>\n"
		       "  <filterref filter='g-arpip'/>\n"
		       "  <rule action='accept' direction='inout'><mac protocolid='arp'/></rule>\n"
		       "  <rule action='drop' direction='out' priority='600'><ip protocol='tcp' dstportstart='25'/></rule>\n"
		       "  <rule action='drop' direction='out' priority='700'><tcp dstipaddr='$IP'/></rule>\n"
		       "</filter>\n");
	expect("the anti-spoofing chains, by their rules: a guard; a list parameter: a rule per value",
	       "guarded", "MAC=52:54:00:12:34:56,IP=10.0.0.2,IP=10.0.0.3",
	       "guard mac 52:54:00:12:34:56 ip 10.0.0.2 ip 10.0.0.3\n"
	       "rule pass in,out ethertype arp\n"
	       "rule drop out ethertype ipv4 proto tcp dport 25\n"
	       "rule drop out ethertype ipv4 dst 10.0.0.2 proto tcp\n"
	       "rule drop out ethertype ipv4 dst 10.0.0.3 proto tcp\n"
	       "rule pass in,out state untracked ethertype 0x88b5\n");
	CHECK(!*warnings, "the four checks of the guard: no warning: %s", warnings);

	put("two", "<filter name='two'>\n"
		   "  <rule action='drop' direction='in' statematch='false'>\n"
		   "    <udp srcipaddr='$GW' dstipaddr='$IP' dstportstart='$PORT'/>\n"
		   "  </rule>\n"
		   "</filter>\n");
	expect("one list parameter beside single ones", "two",
	       "GW=192.0.2.1,IP=10.0.0.2,IP=10.0.0.3,PORT=53",
	       "rule drop in ethertype ipv4 src 192.0.2.1 dst 10.0.0.2 proto udp dport 53\n"
	       "rule drop in ethertype ipv4 src 192.0.2.1 dst 10.0.0.3 proto udp dport 53\n"
	       "rule pass in,out state untracked ethertype 0x88b5\n");
	expect_error("two list parameters", "two", "GW=192.0.2.1,GW=192.0.2.2,IP=10.0.0.2,IP=10.0.0.3,PORT=53",
		     "two.xml:2: <udp>: two parameters with several values each ($GW, $IP) in "
		     "one rule are not translated");

	put("half", "<filter name='half'>\n  <filterref filter='g-ip'/>\n</filter>\n");
	expect("no-ip-spoofing alone: the guard, which checks ARP too", "half", "IP=10.0.0.2",
	       "guard ip 10.0.0.2\n");
	CHECK(strstr(warnings, "g-ip.xml:5: the filter checks the guest's IPv4 address in IPv4 "
			       "sources only; tap-accel's guard checks IPv4 sources and ARP "
			       "senders both") != NULL,
	      "the wider check said: %s", warnings);

	put("early", "<filter name='early'>\n"
		     "  <filterref filter='g-mac'/>\n"
		     "  <rule action='accept' direction='out' priority='-900'><mac protocolid='ipv4'/></rule>\n"
		     "</filter>\n");
	expect_error("an accept before the guard's chain", "early", "MAC=52:54:00:12:34:56",
		     "early.xml:3: the rule there accepts the guest's frames before chain mac "
		     "(priority -800) checks its addresses; tap-accel's guard checks them before "
		     "every rule: give the rule a priority after -800");
	put("changed", "<filter name='changed' chain='mac'>\n"
		       "  <rule direction='out' action='return'><mac srcmacaddr='$MAC'/></rule>\n"
		       "  <rule direction='out' action='drop'><mac protocolid='ipv4'/></rule>\n"
		       "</filter>\n");
	expect_error("a spoofing chain that differs is not taken for the guard", "changed",
		     "MAC=52:54:00:12:34:56",
		     "changed.xml:2: <rule action='return'>: tap-accel's rules cannot return from a "
		     "chain; it translates return only in the anti-spoofing chains it enforces "
		     "with its guard (no-mac-spoofing, no-ip-spoofing, no-arp-spoofing)");
}

static void test_errors(void)
{
	char big[4096];
	FILE *f;

	put("bad", "<filter name='bad'>\n  <rule action='accept' direction='in'>\n  </rul>\n</filter>\n");
	expect_error("malformed XML: file and line", "bad", NULL,
		     "bad.xml:3: malformed XML: Opening and ending tag mismatch: rule line 2 and rul");
	put("loop-a", "<filter name='loop-a'>\n  <filterref filter='loop-b'/>\n</filter>\n");
	put("loop-b", "<filter name='loop-b'>\n  <filterref filter='loop-a'/>\n</filter>\n");
	expect_error("an include loop", "loop-a", NULL,
		     "loop-b.xml:2: <filterref filter='loop-a'>: a loop: loop-a references itself");
	for (int i = 0; i < 20; i++) {
		char name[16], xml[256];

		snprintf(name, sizeof(name), "deep%d", i);
		snprintf(xml, sizeof(xml), "<filter name='deep%d'>\n  <filterref filter='deep%d'/>\n</filter>\n", i, i + 1);
		put(name, xml);
	}
	expect_error("references deeper than 16", "deep0", NULL,
		     "deep15.xml:2: <filterref filter='deep16'>: more than 16 filters deep");
	put("unknown", "<filter name='unknown'>\n  <filterref filter='nowhere'/>\n</filter>\n");
	expect_error("an unknown filterref", "unknown", NULL,
		     "unknown.xml:2: <filterref filter='nowhere'>: no such filter: no nowhere.xml in ");
	/* (the folder, which comes last, is cut from the message) */
	static const struct {
		const char *name, *desc, *xml, *want;
	} refused[] = {
		{ "param", "a parameter not given",
		  "<filter name='param'>\n  <rule action='drop' direction='out'><ip srcipaddr='$GW'/></rule>\n</filter>\n",
		  "param.xml:2: srcipaddr='$GW': no parameter GW is given (libvirt needs it "
		  "too: give <parameter name='GW' value='...'/> in the domain's <filterref>, "
		  "or --param GW=...)" },
		{ "neg", "match='no'",
		  "<filter name='neg'>\n  <rule action='drop' direction='out'>\n    <ip match='no' srcipaddr='10.0.0.1'/>\n  </rule>\n</filter>\n",
		  "neg.xml:2: <ip match='no'>: a negated match is not translated: tap-accel's "
		  "rules test what holds, never what does not; write the rules the other way "
		  "round" },
		{ "connlimit", "connlimit-above",
		  "<filter name='connlimit'>\n  <rule action='drop' direction='in'>\n    <tcp connlimit-above='5'/>\n  </rule>\n</filter>\n",
		  "connlimit.xml:2: <tcp connlimit-above='5'>: tap-accel cannot match "
		  "connlimit-above (docs/guests.md lists what it translates)" },
		{ "ipset", "ipset",
		  "<filter name='ipset'>\n  <rule action='accept' direction='in'>\n    <all ipset='blocked' ipsetflags='src'/>\n  </rule>\n</filter>\n",
		  "ipset.xml:2: <all ipset='blocked'>: tap-accel cannot match ipset "
		  "(docs/guests.md lists what it translates)" },
		{ "stp", "an element not translated",
		  "<filter name='stp'>\n  <rule action='drop' direction='out'><stp/></rule>\n</filter>\n",
		  "stp.xml:2: <stp>: not translated (tap-accel translates mac, arp, rarp, ip, "
		  "ipv6, tcp, udp, udplite, sctp, icmp, igmp, esp, ah, all, icmpv6 and the -ipv6 "
		  "forms)" },
		{ "arpdrop", "a drop that tests ARP's payload",
		  "<filter name='arpdrop' chain='arp'>\n  <rule action='drop' direction='out'><arp opcode='Reply'/></rule>\n</filter>\n",
		  "arpdrop.xml:2: <arp>: a drop that tests ARP's payload (opcode, arp addresses): "
		  "tap-accel matches ARP frames by their Ethernet header only" },
		{ "dtd", "a DOCTYPE (entities) is refused",
		  "<?xml version='1.0'?>\n<!DOCTYPE filter [<!ENTITY a 'aaaa'>]>\n" "<filter name='dtd'>&a;</filter>\n",
		  "dtd.xml:1: a <!DOCTYPE> (entities, a DTD) is not read: nwfilter XML has none; "
		  "remove it" },
		{ "self", "a filter that references itself",
		  "<filter name='self'>\n  <filterref filter='self'/>\n</filter>\n",
		  "self.xml:2: <filterref filter='self'>: a loop: self references itself" },
		{ "action", "an unknown action",
		  "<filter name='action'>\n  <rule action='allow' direction='out'/>\n</filter>\n",
		  "action.xml:2: <rule action='allow'>: expected accept, drop, reject, return or "
		  "continue" },
		{ "port", "a port out of range",
		  "<filter name='port'>\n  <rule action='drop' direction='out'><tcp dstportstart='70000'/></rule>\n</filter>\n",
		  "port.xml:2: <tcp dstportstart='70000'>: expected a port 0..65535" },
		{ "notfilter", "not a <filter>",
		  "<rule action='drop'/>\n",
		  "notfilter.xml:1: <rule> is not an nwfilter <filter>" },
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		put(refused[i].name, refused[i].xml);
		expect_error(refused[i].desc, refused[i].name, NULL, refused[i].want);
	}
	put("arpacc", "<filter name='arpacc' chain='arp'>\n  <rule action='accept' direction='out'><arp opcode='Request'/></rule>\n  <rule action='drop' direction='out'/>\n</filter>\n");
	expect("an accept that tests ARP's payload: left out, narrower", "arpacc", NULL,
	       "rule drop out ethertype arp\n");
	CHECK(strstr(warnings, "arpacc.xml:2: <rule action='accept'> with <arp> tests ARP's payload, "
			       "which tap-accel cannot match: left out") != NULL,
	      "said: %s", warnings);

	snprintf(big, sizeof(big), "%s/huge.xml", dir);
	f = fopen(big, "w");
	fputs("<filter name='huge'>\n<!--", f);
	for (int i = 0; i < 1100; i++)
		for (int k = 0; k < 1024; k++)
			fputc('x', f);
	fputs("-->\n</filter>\n", f);
	fclose(f);
	expect_error("a file over 1 MiB", "huge", NULL,
		     "huge.xml: larger than 1024 KiB, which no nwfilter filter is");
}

/* Every ebtables accept takes the iptables rules before it: many of each
 * make more rules than a policy holds, which is said. */
static void test_too_many(void)
{
	char *xml = malloc(1 << 16), *got;
	size_t n = 0;
	int ret;

	n += sprintf(xml + n, "<filter name='many'>\n");
	for (int i = 0; i < 64; i++)
		n += sprintf(xml + n,
			     "<rule action='accept' direction='out' priority='-100'>"
			     "<mac dstmacaddr='52:54:00:00:01:%02x'/></rule>\n", i);
	for (int i = 0; i < 64; i++)
		n += sprintf(xml + n, "<rule action='accept' direction='out'><tcp dstportstart='%d'/></rule>\n",
			     1000 + i);
	sprintf(xml + n, "</filter>\n");
	put("many", xml);
	got = translate("many", NULL, &ret);
	CHECK(ret == -E2BIG && strstr(got, ": the translation makes more than 4096 rules, more "
					   "than a policy holds (1024)"),
	      "%d %s", ret, got);
	free(got);
	free(xml);
}

static void test_params(void)
{
	struct ta_nwf_param p[4];
	struct ta_error e;
	char a[] = "IP=10.0.0.1,IP=10.0.0.2,MAC=52:54:00:12:34:56", b[] = "IP", c[] = "A=1,B=2,C=3,D=4,E=5";

	CHECK(ta_nwf_parse_params(a, p, 4, &e) == 3 && !strcmp(p[1].name, "IP") &&
		      !strcmp(p[1].value, "10.0.0.2") && !strcmp(p[2].value, "52:54:00:12:34:56"),
	      "three parameters");
	CHECK(ta_nwf_parse_params(b, p, 4, &e) == -EINVAL &&
		      !strcmp(e.text, "--param 'IP': expected NAME=VALUE[,NAME=VALUE...]"),
	      "%s", e.text);
	CHECK(ta_nwf_parse_params(c, p, 4, &e) == -E2BIG, "too many");
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_nwfilter.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_layers();
	test_ranges();
	test_guard();
	test_errors();
	test_too_many();
	test_params();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			perror(cmd);
	}
	return check_report();
}
