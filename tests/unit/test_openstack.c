// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* test_openstack.c - OpenStack security group rules and ports, as the
 * client prints them, into policy statements; and every refusal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/import/openstack.h"

static char dir[] = "/tmp/ta-test-openstack-XXXXXX";
static char rules_path[64], port_path[64];
static struct ta_error e;
static char warned[1024];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && !fclose(f), "write %s", path);
}

static void keep_warning(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(warned, sizeof(warned), "%s", msg);
}

/* One rule as the client prints it; NULL fields are JSON null. */
static char *rule(const char *id, const char *proto, const char *eth, const char *range,
		  const char *ports, const char *dir_, const char *remote)
{
	static char buf[1024];
	char p[64] = "null", r[64] = "null", g[64] = "null";

	if (proto)
		snprintf(p, sizeof(p), "\"%s\"", proto);
	if (range)
		snprintf(r, sizeof(r), "\"%s\"", range);
	if (remote)
		snprintf(g, sizeof(g), "\"%s\"", remote);
	snprintf(buf, sizeof(buf),
		 "[{\"ID\": \"%s\", \"IP Protocol\": %s, \"Ethertype\": \"%s\", \"IP Range\": %s, "
		 "\"Port Range\": \"%s\", \"Direction\": \"%s\", \"Remote Security Group\": %s, "
		 "\"Remote Address Group\": null}]",
		 id, p, eth, r, ports, dir_, g);
	return buf;
}

/* Translate `rules` (and `port`, unless NULL) with the --remote-group
 * values `groups`: 0 and the policy text in *text, or -errno. */
static int translate(const char *rules, const char *port, const char *const *groups,
		     size_t nr_groups, char **text)
{
	const char *paths[] = { rules_path };
	struct ta_openstack_input in = {
		.rule_paths = paths, .nr_rule_paths = 1, .port_path = port ? port_path : NULL,
		.remote_groups = groups, .nr_remote_groups = nr_groups,
	};
	struct ta_import im = { .warn = keep_warning };
	int ret;

	write_file(rules_path, rules);
	if (port)
		write_file(port_path, port);
	warned[0] = 0;
	*text = NULL;
	ret = ta_import_open(&im, &e);
	if (!ret)
		ret = ta_import_openstack(&in, &im, &e);
	if (!ret)
		ret = ta_import_close(&im, rules_path, &e);
	if (!ret)
		*text = strdup(im.text);
	ta_import_free(&im);
	return ret;
}

/* The translation of one rule must have `want` as its statement. */
static void expect_rule(const char *rules, const char *want)
{
	char *text, line[512];
	int ret = translate(rules, NULL, NULL, 0, &text);

	snprintf(line, sizeof(line), "\n%s  # %s rule ", want, rules_path);
	CHECK(!ret && strstr(text, line), "%s\n  want: %s\n  got: %s", rules, want,
	      ret ? e.text : text);
	free(text);
}

/* The translation must fail with `want` after the file's name. */
static void expect_error(const char *rules, const char *port, const char *group, const char *want)
{
	const char *groups[] = { group };
	char *text;
	const char *got;
	int ret = translate(rules, port, groups, group ? 1 : 0, &text);

	got = strncmp(e.text, dir, strlen(dir)) ? e.text : e.text + strlen(dir) + 1;
	CHECK(ret == -EINVAL && e.input && !strcmp(got, want), "%s\n  want: %s\n  got:  %s", rules,
	      want, ret ? got : "(success)");
	free(text);
}

/* A rule's fields, as the client prints them, and what it gives: its
 * statement, or its error. */
struct rule_case {
	const char *proto, *eth, *range, *ports, *dir, *want;
	const char *remote;
};

static const struct rule_case rules[] = {
	{ "tcp", "IPv4", "0.0.0.0/0", "22:22", "ingress", "rule pass in ethertype ipv4 proto tcp dport 22", NULL },
	{ "udp", "IPv6", "2001:db8::/32", "1000:2000", "egress",
	  "rule pass out dst 2001:db8::/32 proto udp dport 1000-2000", NULL },
	{ NULL, "IPv4", NULL, "", "ingress", "rule pass in ethertype ipv4", NULL },
	{ "any", "IPv6", "::/0", "", "egress", "rule pass out ethertype ipv6", NULL },
	{ "0", "IPv4", "0.0.0.0/0", "", "ingress", "rule pass in ethertype ipv4", NULL },
	{ "6", "IPv4", "192.0.2.7/32", "", "ingress", "rule pass in src 192.0.2.7 proto tcp", NULL },
	{ "icmp", "IPv4", "0.0.0.0/0", "type=8", "ingress",
	  "rule pass in ethertype ipv4 proto icmp icmp-type 8", NULL },
	/* Neutron's drivers take the name icmp in an IPv6 rule as ICMPv6 */
	{ "icmp", "IPv6", "::/0", "type=128", "ingress",
	  "rule pass in ethertype ipv6 proto icmpv6 icmp-type 128", NULL },
	{ "1", "IPv6", "::/0", "", "ingress", "rule pass in ethertype ipv6 proto icmp", NULL },
	{ "ipv6-icmp", "IPv6", "::/0", "", "ingress", "rule pass in ethertype ipv6 proto icmpv6", NULL },
	{ "vrrp", "IPv4", "10.0.0.0/24", "", "egress", "rule pass out dst 10.0.0.0/24 proto 112", NULL },
	{ "sctp", "IPv4", NULL, "3868:3868", "ingress",
	  "rule pass in ethertype ipv4 proto sctp dport 3868", NULL },
};

static void test_rules(void)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		expect_rule(rule("a", rules[i].proto, rules[i].eth, rules[i].range, rules[i].ports,
				 rules[i].dir, rules[i].remote),
			    rules[i].want);
}

static void test_defaults_and_groups(void)
{
	const char *groups[] = { "g1=10.0.0.6,2001:db8::6,192.0.2.0/28" };
	char *text;
	int ret;

	ret = translate(rule("r1", "tcp", "IPv4", "0.0.0.0/0", "5432:5432", "ingress", "g1"), NULL,
			groups, 1, &text);
	CHECK(!ret, "a remote group: %s", e.text);
	if (!ret) {
		CHECK(strstr(text, "\nrule pass in src 10.0.0.6 proto tcp dport 5432  # ") &&
		      strstr(text, "\nrule pass in src 192.0.2.0/28 proto tcp dport 5432  # ") &&
		      !strstr(text, "2001:db8::6"),
		      "one statement per member of the rule's family:\n%s", text);
		CHECK(strstr(text, "\ndefault in drop  # ") && strstr(text, "\ndefault out drop  # ") &&
		      strstr(text, "\nrule drop out ethertype ipv4 proto udp sport 67 dport 68  # "),
		      "Neutron's defaults:\n%s", text);
	}
	free(text);
	ret = translate(rule("r1", NULL, "IPv6", NULL, "", "ingress", "g2"), NULL,
			(const char *[]){ "g2=10.0.0.6" }, 1, &text);
	CHECK(!ret && strstr(text, "rule r1: remote security group g2 has no IPv6 address: the rule matches nothing") &&
	      !strstr(text, "rule pass in"),
	      "a group without members of the family: %s", ret ? e.text : text);
	free(text);
	/* host bits are cleared, as Neutron's drivers match the prefix */
	ret = translate(rule("r1", NULL, "IPv4", "10.1.2.3/16", "", "egress", NULL), NULL, NULL, 0,
			&text);
	CHECK(!ret && strstr(text, "\nrule pass out dst 10.1.0.0/16  # ") &&
	      strstr(warned, ":1:69: rule r1: \"IP Range\" 10.1.2.3/16 has bits set past its length: taken as 10.1.0.0/16, as Neutron's drivers match it"),
	      "host bits: %s / %s", ret ? e.text : text, warned);
	free(text);
}

/* The API's own fields keep an ICMP type or code of 0, which the client's
 * listing drops (and for which it warns). */
static void test_api_fields(void)
{
	char *text;
	int ret;

	ret = translate("{\"security_group_rules\": [{\"id\": \"a1\", \"direction\": \"ingress\", "
			"\"ethertype\": \"IPv4\", \"protocol\": \"icmp\", \"port_range_min\": 0, "
			"\"port_range_max\": null, \"remote_ip_prefix\": null}]}",
			NULL, NULL, 0, &text);
	CHECK(!ret && strstr(text, "\nrule pass in ethertype ipv4 proto icmp icmp-type 0  # ") && !*warned,
	      "the API's ICMP type 0: %s %s", ret ? e.text : text, warned);
	free(text);
	ret = translate("{\"id\": \"s1\", \"direction\": \"egress\", \"ether_type\": \"IPv6\", "
			"\"protocol\": \"udp\", \"port_range_min\": 53, \"port_range_max\": null, "
			"\"remote_ip_prefix\": \"::/0\", \"remote_group_id\": null}",
			NULL, NULL, 0, &text);
	CHECK(!ret && strstr(text, "\nrule pass out ethertype ipv6 proto udp dport 53  # "),
	      "rule show's fields: %s", ret ? e.text : text);
	free(text);
	expect_error("[{\"id\": \"a2\", \"direction\": \"ingress\", \"ethertype\": \"IPv4\", "
		     "\"protocol\": \"icmp\", \"port_range_min\": 3, \"port_range_max\": 0}]",
		     NULL, NULL,
		     "rules.json:1:98: rule a2: 'type=3:code=0' matches an ICMP code, which tap-accel does not match (only the type): drop the code from the rule, or match the type alone");
	expect_error("[{\"id\": \"a3\", \"direction\": \"ingress\", \"ethertype\": \"IPv4\", "
		     "\"protocol\": \"tcp\", \"port_range_min\": \"22\"}]",
		     NULL, NULL, "rules.json:1:97: rule a3: expected \"port_range_min\" null or a number 0..65535");
	/* a group as `security group show -f json` prints it */
	ret = translate("{\"id\": \"g7\", \"stateful\": true, \"rules\": [{\"id\": \"a4\", "
			"\"direction\": \"egress\", \"ethertype\": \"IPv4\", \"protocol\": null, "
			"\"port_range_min\": null, \"port_range_max\": null, \"remote_ip_prefix\": null}]}",
			"{\"mac_address\": \"fa:16:3e:00:00:05\", \"fixed_ips\": [], \"security_group_ids\": [\"g8\"]}",
			NULL, 0, &text);
	CHECK(!ret && strstr(text, "/rules.json rule a4: of security group g7, which the port does not have"),
	      "a group's own file names its rules' group: %s", ret ? e.text : text);
	free(text);
	expect_error("{\"id\": \"g7\", \"stateful\": false, \"rules\": []}", NULL, NULL,
		     "rules.json:1:26: security group g7 is stateless, and tap-accel's translation is stateful: it would let in the replies the group needs rules for");
	/* the client's listing: an ICMP rule without a code may have a code 0 */
	ret = translate(rule("r9", "icmp", "IPv4", NULL, "type=3", "ingress", NULL), NULL, NULL, 0,
			&text);
	CHECK(!ret && strstr(warned, "rules.json:1:91: rule r9: the client's listing shows no ICMP code of 0: if the rule has one, Neutron allows less than 'type=3'; `openstack security group rule show r9 -f json` has the exact fields, and this command takes it"),
	      "the listing's ICMP warning: %s", warned);
	free(text);
}

static const char port_ok[] =
	"{\"mac_address\": \"fa:16:3e:00:00:05\", \"port_security_enabled\": true,\n"
	" \"fixed_ips\": [{\"subnet_id\": \"s\", \"ip_address\": \"10.0.0.5\"},\n"
	"               {\"subnet_id\": \"s6\", \"ip_address\": \"2001:db8::5\"}],\n"
	" \"allowed_address_pairs\": [{\"ip_address\": \"10.0.0.9/32\", \"mac_address\": \"fa:16:3e:00:00:05\"},\n"
	"                            {\"ip_address\": \"10.0.0.5\", \"mac_address\": \"fa:16:3e:00:00:05\"}],\n"
	" \"security_group_ids\": [\"g1\"]}";

static void test_port(void)
{
	char *text;
	int ret;

	ret = translate(rule("r1", "tcp", "IPv4", NULL, "22:22", "ingress", NULL), port_ok, NULL, 0,
			&text);
	CHECK(!ret, "a port: %s", e.text);
	if (!ret)
		CHECK(strstr(text, "\nguard mac fa:16:3e:00:00:05  # ") &&
		      strstr(text, "\nguard ip fe80::f816:3eff:fe00:5  # ") &&
		      strstr(text, "\nguard ip 10.0.0.5  # ") && strstr(text, "\nguard ip 2001:db8::5  # ") &&
		      strstr(text, "\nguard ip 10.0.0.9  # ") && !strstr(strstr(text, "ip 10.0.0.5") + 1, "ip 10.0.0.5"),
		      "the guard: MAC, link-local, fixed IPs, pairs, each once:\n%s", text);
	free(text);
	ret = translate(rule("r1", "tcp", "IPv4", NULL, "22:22", "ingress", NULL),
			"{\"mac_address\": \"fa:16:3e:00:00:05\", \"fixed_ips\": [{\"ip_address\": \"10.0.0.5\"}]}",
			NULL, 0, &text);
	CHECK(!ret && strstr(text, "\nguard ip 10.0.0.5  # ") && !strstr(text, "fe80"),
	      "no IPv6 address, no link-local one: %s", ret ? e.text : text);
	free(text);
	ret = translate(rule("r1", "tcp", "IPv4", NULL, "22:22", "ingress", NULL),
			"{\"mac_address\": \"fa:16:3e:00:00:05\", \"port_security_enabled\": false}",
			NULL, 0, &text);
	CHECK(!ret && strstr(text, "\ndefault pass  # ") && !strstr(text, "\nrule ") &&
	      !strstr(text, "\nguard"),
	      "port security off: %s", ret ? e.text : text);
	free(text);
}

static const struct rule_case bad_rules[] = {
	{ "foo", "IPv4", NULL, "", "ingress",
	  "rules.json:1:30: rule r1: unknown protocol 'foo'; Neutron takes a name (tcp, udp, icmp, ipv6-icmp, sctp, ...), a number 0..255 or any",
	  NULL },
	{ "256", "IPv4", NULL, "", "ingress",
	  "rules.json:1:30: rule r1: unknown protocol '256'; Neutron takes a name (tcp, udp, icmp, ipv6-icmp, sctp, ...), a number 0..255 or any",
	  NULL },
	{ "icmp", "IPv4", NULL, "type=3:code=4", "ingress",
	  "rules.json:1:91: rule r1: 'type=3:code=4' matches an ICMP code, which tap-accel does not match (only the type): drop the code from the rule, or match the type alone",
	  NULL },
	{ NULL, "IPv4", NULL, "22:22", "ingress",
	  "rules.json:1:89: rule r1: a port range '22:22' needs a protocol with ports",
	  NULL },
	{ "tcp", "IPv4", NULL, "30:20", "ingress",
	  "rules.json:1:90: rule r1: expected a port range 'MIN:MAX' (0..65535), got '30:20'",
	  NULL },
	{ "gre", "IPv4", NULL, "1:2", "ingress",
	  "rules.json:1:90: rule r1: port range '1:2' of protocol 47: tap-accel matches the ports of tcp, udp, sctp and udplite only",
	  NULL },
	{ NULL, "IPv5", NULL, "", "ingress",
	  "rules.json:1:49: rule r1: expected \"Ethertype\" IPv4 or IPv6, got 'IPv5'",
	  NULL },
	{ NULL, "IPv4", NULL, "", "inbound",
	  "rules.json:1:106: rule r1: expected \"Direction\" ingress or egress, got 'inbound'",
	  NULL },
	{ NULL, "IPv4", "10.0.0.0/33", "", "ingress",
	  "rules.json:1:69: rule r1: expected an address or prefix as \"IP Range\", got '10.0.0.0/33'",
	  NULL },
	{ NULL, "IPv4", NULL, "", "ingress",
	  "rules.json:1:142: rule r1: remote security group g9: its addresses are unknown here; give them with --remote-group g9=PREFIX[,PREFIX...]",
	  "g9" },
};

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof(bad_rules) / sizeof(bad_rules[0]); i++)
		expect_error(rule("r1", bad_rules[i].proto, bad_rules[i].eth, bad_rules[i].range,
				  bad_rules[i].ports, bad_rules[i].dir, bad_rules[i].remote),
			     NULL, NULL, bad_rules[i].want);
	expect_error("[{\"ID\": \"r1\", \"Direction\": 7}]", NULL, NULL,
		     "rules.json:1:28: rule r1: expected a string for \"Direction\", got a number");
	expect_error("[{\"Direction\": \"ingress\"}]", NULL, NULL,
		     "rules.json:1:2: expected the rule's \"ID\" (a string), as `openstack security group rule list --long -f json` prints it");
	expect_error("[\"r1\"]", NULL, NULL,
		     "rules.json:1:2: expected a rule (an object, as `openstack security group rule list --long -f json` prints it), got a string");
	expect_error(rule("r1", NULL, "IPv4", NULL, "", "ingress", NULL), NULL, "=10.0.0.1",
		     "--remote-group '=10.0.0.1': expected an ID before '='; write ID=PREFIX[,PREFIX...], the group's ID and the addresses of its member ports (or its address group's prefixes)");
	expect_error(rule("r1", NULL, "IPv4", NULL, "", "ingress", NULL), NULL, "g=10.0.0.1/8",
		     "--remote-group 'g=10.0.0.1/8': '10.0.0.1/8' is not an address or a prefix without host bits; write ID=PREFIX[,PREFIX...], the group's ID and the addresses of its member ports (or its address group's prefixes)");
	expect_error(rule("r1", NULL, "IPv4", NULL, "", "ingress", NULL),
		     "{\"mac_address\": \"fa:16:3e:00:00:05\", \"fixed_ips\": [],\n"
		     " \"allowed_address_pairs\": [{\"ip_address\": \"0.0.0.0/0\", \"mac_address\": \"fa:16:3e:00:00:05\"}]}",
		     NULL,
		     "port.json:2:43: allowed address pair 0.0.0.0/0 is a prefix: a tap's guard takes addresses, not prefixes; list the pair's addresses one by one, or leave the guard out (no --port)");
	expect_error(rule("r1", NULL, "IPv4", NULL, "", "ingress", NULL),
		     "{\"mac_address\": \"01:00:5e:00:00:05\", \"fixed_ips\": []}", NULL,
		     "port.json:1:17: guard MAC '01:00:5e:00:00:05' is multicast (the low bit of its first octet is set), never a guest's own");
	expect_error(rule("r1", NULL, "IPv4", NULL, "", "ingress", NULL), "[]", NULL,
		     "port.json:1:1: expected the port `openstack port show -f json` prints (an object), got an array");
}

/* A two-way policy holds 1015 rules of its own: the importer's 3 and as
 * many of the groups as fit. */
static void test_limits(void)
{
	size_t size = 1013 * 200 + 4;
	char *rules = malloc(size), *text;
	size_t n = 0;
	int ret;

	CHECK(rules, "malloc");
	if (!rules)
		return;
	for (int nr = 1012; nr <= 1013; nr++) {
		n = snprintf(rules, size, "[");
		for (int i = 0; i < nr; i++)
			n += snprintf(rules + n, size - n,
				      "%s{\"ID\": \"n%d\", \"IP Protocol\": \"tcp\", \"Ethertype\": \"IPv4\", "
				      "\"IP Range\": null, \"Port Range\": \"%d:%d\", \"Direction\": \"ingress\", "
				      "\"Remote Security Group\": null}",
				      i ? "," : "", i, i + 1, i + 1);
		snprintf(rules + n, size - n, "]");
		ret = translate(rules, NULL, NULL, 0, &text);
		if (nr == 1012)
			CHECK(!ret, "1012 rules and the importer's 3: %s", e.text);
		else
			CHECK(ret == -E2BIG && e.input &&
			      strstr(e.text, "/rules.json rule n1012: one rule more than the 1015 a two-way policy holds (each address of a remote group is one): use fewer groups or remote-group members"),
			      "1013 rules: %s", ret ? e.text : "(success)");
		free(text);
	}
	free(rules);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(rules_path, sizeof(rules_path), "%s/rules.json", dir);
	snprintf(port_path, sizeof(port_path), "%s/port.json", dir);
	test_rules();
	test_defaults_and_groups();
	test_port();
	test_api_fields();
	test_limits();
	test_errors();
	unlink(rules_path);
	unlink(port_path);
	rmdir(dir);
	return check_report();
}
