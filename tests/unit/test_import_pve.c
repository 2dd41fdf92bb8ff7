// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_import_pve.c - the Proxmox VE importer (lib/import/pve.c): small
 * files and the policy each becomes, every warning and error with its
 * FILE:LINE, the limits. The files are written into a temporary folder,
 * named as on a Proxmox VE host (100.fw, cluster.fw, 100.conf).
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/import/pve.h"
#include "lib/import/pve_parse.h"

static char dir[] = "/tmp/test_import_pve.XXXXXX";

struct result {
	int ret;
	char text[65536];
	char warnings[8192];
	unsigned int nr_warnings, nr_statements;
	struct ta_error e;
};

static struct result res;

static void put(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("cannot write %s/%s\n", dir, name);
		exit(1);
	}
}

static void keep_warning(void *ctx, const char *msg)
{
	struct result *r = ctx;
	size_t n = strlen(r->warnings);

	snprintf(r->warnings + n, sizeof(r->warnings) - n, "%s\n", msg);
}

/* Translate net`iface` of 100.fw (NULL: none) with cluster.fw and 100.conf
 * when given; the result in `res`, checked by the policy parser. */
static int xlate_iface(const char *fw, const char *cluster, const char *conf, unsigned int iface)
{
	struct ta_import im = { .warn = keep_warning, .warn_ctx = &res };
	struct ta_pve_vm vm = { .iface = iface };

	memset(&res, 0, sizeof(res));
	unlink("100.fw");
	unlink("cluster.fw");
	unlink("100.conf");
	if (fw)
		put("100.fw", fw), vm.fw_path = "100.fw";
	if (cluster)
		put("cluster.fw", cluster), vm.cluster_path = "cluster.fw";
	if (conf)
		put("100.conf", conf), vm.conf_path = "100.conf";
	res.ret = ta_import_open(&im, &res.e);
	if (!res.ret)
		res.ret = ta_import_pve(&vm, &im, &res.e);
	if (!res.ret)
		res.ret = ta_import_close(&im, "100.fw", &res.e);
	if (!res.ret)
		snprintf(res.text, sizeof(res.text), "%s", im.text);
	res.nr_warnings = im.nr_warnings;
	res.nr_statements = im.nr_statements;
	ta_import_free(&im);
	return res.ret;
}

static int xlate(const char *fw, const char *cluster, const char *conf)
{
	return xlate_iface(fw, cluster, conf, 0);
}

/* The policy has this whole line. */
static bool has_line(const char *line)
{
	size_t n = strlen(line);

	for (const char *p = res.text; (p = strstr(p, line)); p++)
		if ((p == res.text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* The policy's statements, without comments, in order. */
static const char *statements(void)
{
	static char buf[65536];
	size_t n = 0;

	buf[0] = '\0';
	for (char *line = res.text; *line;) {
		char *nl = strchr(line, '\n'), *hash;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (line[0] != '#') {
			hash = memmem(line, len, "  #", 3);
			if (hash)
				len = hash - line;
			n += snprintf(buf + n, sizeof(buf) - n, "%.*s\n", (int)len, line);
		}
		line += len + (nl ? (size_t)(nl - line - len) + 1 : 0);
		if (!nl)
			break;
	}
	return buf;
}

#define ON "[OPTIONS]\nenable: 1\n"
#define CONF "net0: virtio=BC:24:11:5E:7A:01,bridge=vmbr0,firewall=1\n"

static void expect_statements(const char *fw, const char *cluster, const char *want)
{
	int ret = xlate(fw, cluster, CONF);

	CHECK(ret == 0 && !strcmp(statements(), want), "%s\n  got (%d %s):\n%s  want:\n%s", fw, ret,
	      ret ? res.e.text : "", statements(), want);
}

static void expect_error(const char *fw, const char *cluster, const char *want)
{
	int ret = xlate(fw, cluster, CONF);

	CHECK(ret < 0 && res.e.input && !strcmp(res.e.text, want), "%s\n  got:  %s\n  want: %s", fw,
	      ret ? res.e.text : "(success)", want);
}

/* Translates, with exactly this one warning. */
static void expect_warning(const char *fw, const char *cluster, const char *want)
{
	int ret = xlate(fw, cluster, CONF);
	char line[1024];

	snprintf(line, sizeof(line), "%s\n", want);
	CHECK(ret == 0 && res.nr_warnings == 1 && !strcmp(res.warnings, line),
	      "%s\n  got (%d %s): %s  want: %s", fw, ret, ret ? res.e.text : "", res.warnings, line);
}

#define GUARD "guard mac bc:24:11:5e:7a:01\n"
/* Proxmox VE's smurf filter, before every VM's rules */
#define SMURFS "rule drop in src 224.0.0.0/4\nrule drop in src 255.255.255.255\n"
#define DEFAULTS "default in drop\ndefault out pass\n"

static void test_small_files(void)
{
	expect_statements(ON "[RULES]\nIN SSH(ACCEPT)\n", NULL,
			  GUARD SMURFS "rule pass in proto tcp dport 22\n" DEFAULTS);
	/* where each statement came from */
	CHECK(xlate(ON "[RULES]\nIN SSH(ACCEPT)\n", NULL, CONF) == 0 &&
		      has_line("rule pass in proto tcp dport 22  # 100.fw:4") &&
		      has_line("default in drop  # 100.fw: policy_in, Proxmox VE's default DROP") &&
		      has_line("guard mac bc:24:11:5e:7a:01  # 100.fw: macfilter, net0's MAC in "
			       "100.conf"),
	      "%s", res.text);
	/* policies, REJECT, lists, ranges, ICMP, disabled rules, comments */
	expect_statements(ON "policy_in: REJECT\npolicy_out: DROP\nmacfilter: 0\n[RULES]\n"
			     "IN ACCEPT -p tcp -dport 80,443,8000:8010 # web\n"
			     "|IN ACCEPT -p tcp -dport 23\n"
			     "OUT REJECT -p udp -sport 1000:1001 -dport 53 -dest 192.0.2.1,192.0.2.9\n"
			     "IN DROP -p icmp -icmp-type echo-request -source 10.0.0.0/8\n"
			     "IN ACCEPT -p icmpv6 -icmp-type neighbour-solicitation\n"
			     "IN ACCEPT -p icmp -dport time-exceeded\n"
			     "IN ACCEPT -p icmp -icmp-type any\n"
			     "OUT ACCEPT -p 47\n",
			  NULL,
			  SMURFS
			  "rule pass in proto tcp dport 80\n"
			  "rule pass in proto tcp dport 443\n"
			  "rule pass in proto tcp dport 8000-8010\n"
			  "rule reject out proto udp dst 192.0.2.1 sport 1000-1001 dport 53\n"
			  "rule reject out proto udp dst 192.0.2.9 sport 1000-1001 dport 53\n"
			  "rule drop in proto icmp src 10.0.0.0/8 icmp-type 8\n"
			  "rule pass in proto icmpv6 icmp-type 135\n"
			  "rule pass in proto icmp icmp-type 11\n"
			  "rule pass in proto icmp\n"
			  "rule pass out proto gre\n"
			  "default in reject\ndefault out drop\n");
	/* host bits past the length are ignored, as iptables does */
	expect_statements(ON "macfilter: 0\n[RULES]\nIN ACCEPT -source 10.9.1.0/16\n", NULL,
			  SMURFS "rule pass in src 10.9.0.0/16\n" DEFAULTS);
	/* macros: both families, ports the rule adds, families a macro keeps to */
	expect_statements(ON "macfilter: 0\n[RULES]\nIN Ping(ACCEPT)\nIN DNS(DROP) -source 192.0.2.0/24\n"
			     "IN Ping(REJECT) -source 2001:db8::/32\nIN DHCPv6(ACCEPT) -source 10.0.0.1\n"
			     "IN ssh(ACCEPT) -source 10.0.0.2\n",
			  NULL,
			  SMURFS
			  "rule pass in proto icmp icmp-type 8\n"
			  "rule pass in proto icmpv6 icmp-type 128\n"
			  "rule drop in proto udp src 192.0.2.0/24 dport 53\n"
			  "rule drop in proto tcp src 192.0.2.0/24 dport 53\n"
			  "rule reject in proto icmpv6 src 2001:db8::/32 icmp-type 128\n"
			  "rule pass in proto tcp src 10.0.0.2 dport 22\n" DEFAULTS);
	/* a service name as a port */
	expect_statements(ON "macfilter: 0\n[RULES]\nIN ACCEPT -p tcp -dport ssh\n", NULL,
			  SMURFS "rule pass in proto tcp dport 22\n" DEFAULTS);
	/* a rule that repeats an earlier one's matches can never decide: left out */
	expect_statements(ON "macfilter: 0\n[RULES]\nIN ACCEPT -p tcp -dport 22\nIN DROP -p tcp -dport 22\n",
			  NULL, SMURFS "rule pass in proto tcp dport 22\n" DEFAULTS);
}

static const char *cluster_fw =
	"[OPTIONS]\nenable: 1\n"
	"[ALIASES]\nadmins 192.0.2.0/24 # the operators\nmon 198.51.100.7\n"
	"[IPSET mgmt]\nadmins\n2001:db8:a::/48\n"
	"[IPSET bad]\n!10.0.0.1\n10.0.0.0/8\n"
	"[group web] # a group\nIN HTTP(ACCEPT)\nOUT DROP -p tcp -dport 25\nFORWARD DROP\n"
	"[group ops]\nIN SSH(ACCEPT) -source +mgmt\n";

static void test_cluster(void)
{
	/* groups inlined in order, aliases and ipsets of the cluster, -i */
	expect_statements(ON "macfilter: 0\n[ALIASES]\nadmins 10.1.0.0/16\n[IPSET mgmt]\n10.2.0.1\n"
			     "[RULES]\nGROUP ops\nGROUP web\nIN ACCEPT -source admins\n"
			     "IN ACCEPT -p udp -source +mgmt\nIN ACCEPT -p udp -source +dc/mgmt\n"
			     "IN ACCEPT -p tcp -source dc/mon\n",
			  cluster_fw,
			  SMURFS
			  "rule pass in proto tcp src 192.0.2.0/24 dport 22\n"
			  "rule pass in proto tcp src 2001:db8:a::/48 dport 22\n"
			  "rule pass in proto tcp dport 80\n"
			  "rule drop out proto tcp dport 25\n"
			  "rule pass in src 10.1.0.0/16\n"
			  "rule pass in proto udp src 10.2.0.1\n"
			  "rule pass in proto udp src 192.0.2.0/24\n"
			  "rule pass in proto udp src 2001:db8:a::/48\n"
			  "rule pass in proto tcp src 198.51.100.7\n" DEFAULTS);
	CHECK(xlate(ON "[RULES]\nGROUP web\n", cluster_fw, CONF) == 0 &&
		      has_line("rule pass in proto tcp dport 80  # cluster.fw:13 (group web, 100.fw:4)"),
	      "%s", res.text);
	/* the other interface gets its -i rules and groups, and its MAC */
	CHECK(xlate_iface(ON "[RULES]\nGROUP web -i net1\nIN ACCEPT -p tcp -dport 9 -i net1\n",
			  cluster_fw, CONF "net1: e1000=BC:24:11:5E:7A:02,firewall=1\n", 1) == 0 &&
		      has_line("rule pass in proto tcp dport 80  # cluster.fw:13 (group web, 100.fw:4)") &&
		      has_line("rule pass in proto tcp dport 9  # 100.fw:5") &&
		      strstr(res.text, "guard mac bc:24:11:5e:7a:02  #"),
	      "%s %s", res.e.text, res.text);
	expect_statements(ON "macfilter: 0\n[RULES]\nGROUP web -i net1\nIN ACCEPT -p tcp -dport 9 -i net1\n",
			  cluster_fw, SMURFS DEFAULTS);
	/* a group's rules take no -i */
	expect_warning(ON "macfilter: 0\n[RULES]\nGROUP nics\n",
		       "[OPTIONS]\nenable: 1\n[group nics]\nIN ACCEPT -i net0 -p tcp\n",
		       "cluster.fw:4 (group nics, 100.fw:5): parameter -i not allowed for this rule "
		       "type (a security group's rules; give -i on the GROUP line); the rule is "
		       "skipped, as Proxmox VE skips it");
}

static void test_blacklist(void)
{
	/* cluster.fw's ipset blacklist: dropped on the way to every VM, first */
	expect_statements(ON "macfilter: 0\n[RULES]\nIN ACCEPT\n",
			  "[OPTIONS]\nenable: 1\n[IPSET blacklist]\n192.0.2.66\n2001:db8::66\n",
			  "rule drop in src 192.0.2.66\nrule drop in src 2001:db8::66\n" SMURFS
			  "rule pass in\n" DEFAULTS);
	CHECK(has_line("rule drop in src 192.0.2.66  # cluster.fw: ipset blacklist"), "%s", res.text);
	expect_error(ON, "[OPTIONS]\nenable: 1\n[IPSET blacklist]\n!192.0.2.66\n",
		     "cluster.fw: ipset blacklist: blacklist +blacklist: ipset blacklist excludes "
		     "192.0.2.66 (cluster.fw:4), and a tap-accel rule cannot leave addresses out of its "
		     "match: list what the set includes instead");
}

static void test_off(void)
{
	const char *want = "default pass\n";

	CHECK(xlate("[RULES]\nIN DROP\n", NULL, CONF) == 0 && !strcmp(statements(), want) &&
		      has_line("default pass  # 100.fw: enable is not 1 (Proxmox VE's default is 0)"),
	      "enable absent: %s", res.text);
	CHECK(xlate("[OPTIONS]\nenable: 0\n", NULL, CONF) == 0 && !strcmp(statements(), want),
	      "enable: 0: %s", res.text);
	CHECK(xlate(ON, "[OPTIONS]\nenable: 0\n", CONF) == 0 && !strcmp(statements(), want) &&
		      has_line("default pass  # cluster.fw: enable is not 1, the datacenter's firewall "
			       "is off"),
	      "the cluster's off: %s", res.text);
	CHECK(xlate(ON, "[OPTIONS]\npolicy_in: DROP\n", CONF) == 0 && !strcmp(statements(), want),
	      "the cluster's enable absent: %s", res.text);
	CHECK(xlate(ON, NULL, "net0: virtio=BC:24:11:5E:7A:01,bridge=vmbr0\n") == 0 &&
		      has_line("default pass  # 100.conf:1: net0 has no firewall=1"),
	      "firewall=1 absent: %s", res.text);
	CHECK(xlate(NULL, NULL, CONF) == 0 && !strcmp(statements(), want), "no .fw: %s", res.text);
	/* a snapshot's configuration is not the VM's */
	CHECK(xlate(ON, NULL, CONF "[snap1]\nnet0: virtio=BC:24:11:5E:7A:01,bridge=vmbr0\n") == 0 &&
		      strstr(statements(), "default in drop"),
	      "snapshot: %s", res.text);
}

static void test_guard(void)
{
	expect_statements(ON "ipfilter: 1\n", NULL,
			  GUARD "guard ip fe80::be24:11ff:fe5e:7a01\nrule drop out ethertype ipv4\n"
			  SMURFS DEFAULTS);
	CHECK(xlate(ON "ipfilter: 1\n", NULL, CONF) == 0 &&
		      has_line("rule drop out ethertype ipv4  # 100.fw: ipfilter-net0 has no IPv4 "
			       "address"),
	      "%s", res.text);
	/* an ipfilter-net0 set turns the filter on by itself */
	expect_statements(ON "[ALIASES]\nme 10.0.0.5\n[IPSET ipfilter-net0]\n10.0.0.4\nme\n2001:db8::5/128\n",
			  NULL,
			  GUARD "guard ip fe80::be24:11ff:fe5e:7a01\nguard ip 10.0.0.4\n"
			  "guard ip 10.0.0.5\nguard ip 2001:db8::5\n" SMURFS DEFAULTS);
	/* the other interface's set is not this one's */
	expect_statements(ON "[IPSET ipfilter-net1]\n10.0.0.4\n", NULL, GUARD SMURFS DEFAULTS);
	/* no MAC known: no link-local, and IPv6 is the set's */
	CHECK(xlate(ON "ipfilter: 1\n", NULL, NULL) == 0 &&
		      !strcmp(statements(), "rule drop out ethertype ipv4\nrule drop out ethertype ipv6\n"
					    SMURFS DEFAULTS) && res.nr_warnings == 1,
	      "%s", res.text);
	CHECK(!strcmp(res.warnings, "100.fw: macfilter is on, but no VM configuration was given "
				    "(--conf VMID.conf): no MAC guard\n"), "%s", res.warnings);
	expect_error(ON "[IPSET ipfilter-net0]\n10.0.0.0/24\n", NULL,
		     "100.fw:4: ipset ipfilter-net0: 10.0.0.0/24 is a network, and the guard takes the "
		     "guest's own addresses: list them one by one");
	expect_error(ON "[IPSET ipfilter-net0]\n10.0.0.4\n!10.0.0.5\n", NULL,
		     "100.fw:5: ipset ipfilter-net0: !10.0.0.5: the guard lists the guest's addresses "
		     "and cannot exclude one: list the addresses it may use");
	expect_warning(ON "[IPSET ipfilter-net0]\n10.0.0.4\nnosuch\n", NULL,
		       "100.fw:5: ipset ipfilter-net0: no such alias 'nosuch'; the entry is skipped, "
		       "as Proxmox VE skips it");
}

static void test_warnings(void)
{
	static const struct {
		const char *rule, *warning;
	} cases[] = {
		{ "IN ACCEPT -dport 22", "IN ACCEPT: -dport needs -p" },
		{ "IN ACCEPT -sport 22", "IN ACCEPT: -sport needs -p" },
		{ "IN ACCEPT -p icmp -dport 22 -icmp-type echo-request",
		  "IN ACCEPT: -icmp-type cannot be given together with -dport" },
		{ "IN ACCEPT -icmp-type echo-request", "IN ACCEPT: -icmp-type needs -p icmp or -p icmpv6" },
		{ "IN ACCEPT -p gre -dport 22", "IN ACCEPT: protocol 'gre' does not support ports" },
		{ "IN ACCEPT -p frob", "IN ACCEPT: unknown protocol 'frob'" },
		{ "IN ACCEPT -p tcp -dport 70000", "IN ACCEPT: invalid port '70000'" },
		{ "IN ACCEPT -p tcp -dport 20:10", "IN ACCEPT: backwards range '20:10'" },
		{ "IN ACCEPT -p tcp -dport nosuchservice",
		  "IN ACCEPT: invalid port 'nosuchservice' (no such service)" },
		{ "IN ACCEPT -p tcp -dport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
		  "IN ACCEPT: too many entries in port list '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16' "
		  "(> 15 numbers)" },
		{ "IN ACCEPT -p icmp -icmp-type frob", "IN ACCEPT: invalid icmp-type 'frob' for proto 'icmp'" },
		{ "IN ACCEPT -source nosuch", "-source nosuch: no such alias 'nosuch'" },
		{ "IN ACCEPT -dest +nosuch", "-dest +nosuch: no such ipset 'nosuch'" },
		{ "IN ACCEPT -source 10.0.0.300",
		  "-source 10.0.0.300: '10.0.0.300' does not look like a valid IP address or "
		  "CIDR network" },
		{ "IN ACCEPT -source 10.0.0.1,2001:db8::1",
		  "-source 10.0.0.1,2001:db8::1: mixed IPv4 and IPv6 addresses in the list" },
		{ "IN Frob(ACCEPT)", "IN Frob(ACCEPT): unknown macro 'Frob'" },
		{ "IN SSH(ACCEPT) -p udp", "IN SSH(ACCEPT): parameter -p already defined in macro SSH" },
		{ "IN SSH(ACCEPT) -dport 23", "IN SSH(ACCEPT): parameter -dport already defined in macro SSH" },
		{ "IN ALLOW -p tcp", "IN ALLOW: unknown action 'ALLOW'" },
	};
	char fw[512], want[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(fw, sizeof(fw), ON "[RULES]\nIN ACCEPT -p tcp -dport 1\n%s\n", cases[i].rule);
		snprintf(want, sizeof(want), "100.fw:5: %s; the rule is skipped, as Proxmox VE skips it",
			 cases[i].warning);
		expect_warning(fw, NULL, want);
		CHECK(res.ret || !strcmp(statements(), GUARD SMURFS "rule pass in proto tcp dport 1\n" DEFAULTS),
		      "%s: only the first rule: %s", cases[i].rule, res.text);
	}
	expect_warning(ON "[RULES]\nFORWARD ACCEPT -p tcp\n", NULL,
		       "100.fw:4: invalid rule type 'FORWARD' for a VM; the rule is skipped, as Proxmox "
		       "VE skips it");
	expect_warning(ON "[RULES]\nGROUP nosuch\n", cluster_fw,
		       "100.fw:4: GROUP nosuch: no security group 'nosuch' in cluster.fw; the rule is "
		       "skipped, as Proxmox VE skips it");
	expect_warning(ON "[RULES]\nGROUP web\n", NULL,
		       "100.fw:4: GROUP web: no security group 'web': give cluster.fw (--cluster); the "
		       "rule is skipped, as Proxmox VE skips it");
	expect_warning(ON "[RULES]\nIN ACCEPT -i eth0\n", NULL,
		       "100.fw:4: -i eth0: value does not match the regex pattern 'net\\d+'; the rule "
		       "is skipped, as Proxmox VE skips it");
	expect_warning(ON "[IPSET s1]\n10.0.0.0/0\n10.1.0.0/16\n[RULES]\nIN ACCEPT -source +s1\n", NULL,
		       "100.fw:4: ipset s1: a zero prefix is not allowed in ipset entries; the entry is "
		       "skipped, as Proxmox VE skips it");
	CHECK(has_line("rule pass in src 10.1.0.0/16  # 100.fw:7"), "%s", res.text);
}

/* Lines Proxmox VE cannot read either: the file is refused. */
static const struct {
	const char *text, *error;
} unreadable[] = {
	{ "enable: 1\n",
	  "100.fw:1: 'enable: 1' is in no section: start it with [OPTIONS], [RULES], ..." },
	{ "[FROB]\n",
	  "100.fw:1: unknown section [FROB] (Proxmox VE has [OPTIONS], [ALIASES], " "[IPSET name], [RULES] and, in cluster.fw, [group name])" },
	{ ON "enable: yes\n",
	  "100.fw:3: option enable takes 0 or 1" },
	{ ON "policy_in: ALLOW\n",
	  "100.fw:3: policy_in takes ACCEPT, DROP or REJECT" },
	{ ON "frob: 1\n",
	  "100.fw:3: unknown option 'frob' (a VM's are enable, policy_in, policy_out, " "macfilter, ipfilter, dhcp, ndp, radv, log_level_in, log_level_out, ips, ips_queues)" },
	{ ON "[group web]\nIN ACCEPT\n",
	  "100.fw:3: security groups are cluster.fw's: move [group web] there" },
	{ ON "[IPSET ab]\n[IPSET AB]\n",
	  "100.fw:4: a second [IPSET ab]" },
	{ ON "[IPSET a]\n",
	  "100.fw:3: 'a' is not a name Proxmox VE takes (a letter, then letters, digits, " "'-' or '_', 2 to 63 of them)" },
	{ ON "[IPSET 1a]\n",
	  "100.fw:3: '1a' is not a name Proxmox VE takes (a letter, then letters, digits, " "'-' or '_', 2 to 63 of them)" },
	{ ON "[ALIASES]\nonlyname\n",
	  "100.fw:4: expected 'NAME ADDRESS' in [ALIASES], got 'onlyname'" },
	{ ON "[RULES]\nIN\n",
	  "100.fw:4: expected 'IN|OUT ACTION [OPTIONS]' or 'GROUP NAME', got 'IN'" },
	{ ON "[RULES]\nIN ACCEPT -frob 1\n",
	  "100.fw:4: unknown rule option '-frob'" },
	{ ON "[RULES]\nIN ACCEPT -p tcp -p udp\n",
	  "100.fw:4: option -p given twice" },
	{ ON "[RULES]\nIN ACCEPT -p\n",
	  "100.fw:4: option -p needs a value" },
	{ ON "[RULES]\nIN ACCEPT tcp\n",
	  "100.fw:4: expected a rule option (-i, -p, -dport, -sport, -source, -dest, " "-icmp-type, -log), got 'tcp'" },
	{ ON "[RULES]\nGROUP web -p tcp\n",
	  "100.fw:4: a GROUP rule takes -i only, not -p" },
	{ ON "[RULES]\nIN ACCEPT -log loud\n",
	  "100.fw:4: -log takes a log level (emerg ... debug, nolog), not 'loud'" },
};

static void test_errors(void)
{
	/* what tap-accel cannot enforce the same way */
	expect_error(ON "[RULES]\nIN ACCEPT -source +bad\n", cluster_fw,
		     "100.fw:4: -source +bad: ipset bad excludes 10.0.0.1 (cluster.fw:10), and a "
		     "tap-accel rule cannot leave addresses out of its match: list what the set "
		     "includes instead");
	expect_error(ON "[RULES]\nIN ACCEPT -p icmp -icmp-type host-unreachable\n", NULL,
		     "100.fw:4: IN ACCEPT: ICMP type host-unreachable is type 3 code 1, and tap-accel "
		     "matches ICMP types, not codes: use destination-unreachable (all of type 3) if "
		     "that is meant");
	expect_error(ON "[RULES]\nIN ACCEPT -source 10.0.0.1-10.0.0.5\n", NULL,
		     "100.fw:4: -source 10.0.0.1-10.0.0.5: an address range, which tap-accel does not "
		     "match: write it as CIDRs (-source 10.0.0.0/30,10.0.0.4)");
	expect_error(ON "[RULES]\nIN ACCEPT -p dccp -dport 5000\n", NULL,
		     "100.fw:4: IN ACCEPT: tap-accel matches the ports of TCP, UDP, SCTP and UDP-Lite, "
		     "not DCCP's");
	expect_error(ON "[RULES]\nIN ACCEPT -source ::ffff:10.0.0.1\n", NULL,
		     "100.fw:4: -source ::ffff:10.0.0.1: '::ffff:10.0.0.1' is IPv4-mapped, which never "
		     "appears on the wire: write the IPv4 address instead");
	expect_error(ON "dhcp: 0\n", NULL,
		     "100.fw:3: dhcp: 0 leaves DHCP to the rules, and a tap-accel two-way policy always "
		     "lets DHCP to and from the guest through (docs/proxmox.md): set dhcp: 1 to import "
		     "this firewall");
	expect_error(ON "ndp: 0\n", NULL,
		     "100.fw:3: ndp: 0 leaves neighbour discovery to the rules, and a tap-accel two-way "
		     "policy always lets it through (docs/proxmox.md): set ndp: 1 to import this "
		     "firewall");
	expect_error(ON "ips: 1\n", NULL,
		     "100.fw:3: ips: 1 hands accepted traffic to an intrusion prevention system "
		     "(NFQUEUE), which tap-accel cannot: set ips: 0 to import this firewall");
	/* lines that cannot be read */
	for (size_t i = 0; i < sizeof(unreadable) / sizeof(unreadable[0]); i++)
		expect_error(unreadable[i].text, NULL, unreadable[i].error);
	/* the configuration */
	CHECK(xlate_iface(ON, NULL, CONF, 2) == -ENOENT &&
		      !strcmp(res.e.text, "100.conf has no net2: give the interface with --iface netN"),
	      "%s", res.e.text);
	CHECK(xlate(ON, NULL, "net99: virtio=BC:24:11:5E:7A:01\n") == -EINVAL &&
		      !strcmp(res.e.text, "100.conf:1: expected 'netN: MODEL=MAC,...' with N below 32"),
	      "%s", res.e.text);
	CHECK(xlate_iface(ON, NULL, NULL, 32) == -EINVAL &&
		      !strcmp(res.e.text, "net32: Proxmox VE's interfaces are net0 to net31"),
	      "%s", res.e.text);
	CHECK(xlate(ON "[RULES]\nIN ACCEPT\n", "[group web]\nIN ACCEPT -p\n", CONF) == -EINVAL &&
		      !strcmp(res.e.text, "cluster.fw:2: option -p needs a value"),
	      "an error in cluster.fw: %s", res.e.text);
}

static void test_conf(void)
{
	struct ta_pve_conf conf;
	struct ta_error e;
	const char *text = "arch: amd64\nhostname: ct1\n"
			   "net0: name=eth0,bridge=vmbr0,firewall=1,hwaddr=BC:24:11:AA:BB:CC,ip=dhcp\n"
			   "net3: virtio=bc:24:11:00:00:03,bridge=vmbr1,firewall=0\n"
			   "net4: model=virtio,bridge=vmbr1\n"
			   "[snap]\nnet5: virtio=bc:24:11:00:00:05,firewall=1\n";

	CHECK(ta_pve_conf_parse(text, strlen(text), "101.conf", &conf, &e) == 0, "%s", e.text);
	CHECK(conf.net[0].present && conf.net[0].firewall && conf.net[0].has_mac &&
		      conf.net[0].mac[0] == 0xbc && conf.net[0].mac[5] == 0xcc && conf.net[0].line == 3,
	      "a container's net0 (hwaddr=)");
	CHECK(conf.net[3].present && !conf.net[3].firewall && conf.net[3].has_mac &&
		      conf.net[3].mac[5] == 3, "a VM's net3, firewall=0");
	CHECK(conf.net[4].present && !conf.net[4].has_mac, "net4 without a MAC");
	CHECK(!conf.net[1].present && !conf.net[5].present, "net1 absent, net5 a snapshot's");
	text = "net: virtio=bc:24:11:00:00:03\n";
	CHECK(ta_pve_conf_parse(text, strlen(text), "101.conf", &conf, &e) == 0 && !conf.net[0].present,
	      "'net:' is not an interface");
	text = "net2x: virtio=bc:24:11:00:00:03\n";
	CHECK(ta_pve_conf_parse(text, strlen(text), "101.conf", &conf, &e) == -EINVAL &&
		      !strcmp(e.text, "101.conf:1: expected 'netN: MODEL=MAC,...' with N below 32"),
	      "%s", e.text);
}

static void test_limits(void)
{
	size_t size = PVE_MAX_FILE_BYTES + 1;
	char *big = malloc(size + 1), *fw;
	size_t n = 0;

	/* a file larger than a firewall configuration */
	memset(big, '#', size);
	big[size] = '\0';
	CHECK(xlate(big, NULL, CONF) == -EFBIG &&
		      !strcmp(res.e.text, "100.fw: larger than 4096 KiB, more than a firewall "
					  "configuration holds: is it the right file?"),
	      "%s", res.e.text);
	/* a line longer than any Proxmox VE writes */
	snprintf(big, size, ON "[RULES]\nIN ACCEPT -p tcp # %5000d\n", 1);
	expect_error(big, NULL, "100.fw:4: a line longer than 4095 characters");
	/* a NUL byte */
	CHECK(xlate(NULL, NULL, NULL) == 0, "nothing");
	{
		FILE *f = fopen("100.fw", "w");
		struct ta_import im = { .warn = keep_warning, .warn_ctx = &res };
		struct ta_pve_vm vm = { .fw_path = "100.fw" };

		fwrite(ON "[RULES]\nIN\0ACCEPT\n", 1, sizeof(ON) + 18, f);
		fclose(f);
		ta_import_open(&im, &res.e);
		CHECK(ta_import_pve(&vm, &im, &res.e) == -EINVAL &&
			      !strcmp(res.e.text, "100.fw:4: a NUL byte: this is not a text file"),
		      "%s", res.e.text);
		ta_import_free(&im);
	}
	/* 1015 rules fit a two-way policy, 1016 do not (the smurf filter's 2
	 * and 1013 of the file) */
	fw = malloc(1 << 20);
	n = snprintf(fw, 1 << 20, ON "macfilter: 0\n[RULES]\n");
	for (int i = 0; i < 1013; i++)
		n += snprintf(fw + n, (1 << 20) - n, "IN ACCEPT -p tcp -dport %d\n", i + 1);
	CHECK(xlate(fw, NULL, CONF) == 0 && res.nr_statements == 1017, "1015 rules: %s", res.e.text);
	snprintf(fw + n, (1 << 20) - n, "IN ACCEPT -p udp -dport 1,2\n");
	expect_error(fw, NULL,
		     "100.fw:1018: IN ACCEPT: the translation needs more than 1015 rules, tap-accel's "
		     "most in a two-way policy (each address of a list or ipset and each port of a "
		     "list is a rule of its own): use fewer or wider prefixes and port ranges");
	/* a list multiplies: 40 sources x 15 ports x 2 = 1200 */
	n = snprintf(fw, 1 << 20, ON "macfilter: 0\n[IPSET many]\n");
	for (int i = 0; i < 40; i++)
		n += snprintf(fw + n, (1 << 20) - n, "10.0.%d.0/24\n", i);
	snprintf(fw + n, (1 << 20) - n, "[RULES]\nIN ACCEPT -p tcp -source +many "
		 "-dport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\nOUT ACCEPT -p udp -dest +many "
		 "-dport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n");
	CHECK(xlate(fw, NULL, CONF) == -E2BIG && strstr(res.e.text, "100.fw:47: OUT ACCEPT: the "
							"translation needs more than 1015 rules"),
	      "%s", res.e.text);
	free(fw);
	free(big);
}

int main(void)
{
	if (!mkdtemp(dir) || chdir(dir)) {
		printf("cannot make a temporary folder\n");
		return 1;
	}
	test_small_files();
	test_cluster();
	test_blacklist();
	test_off();
	test_guard();
	test_warnings();
	test_errors();
	test_conf();
	test_limits();
	unlink("100.fw");
	unlink("cluster.fw");
	unlink("100.conf");
	if (chdir("/") || rmdir(dir))
		printf("FAIL cannot remove %s\n", dir), checks_failed++;
	return check_report();
}
