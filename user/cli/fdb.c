// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fdb.c - the forwarding table of one tap: destination MAC -> egress
 * interface, used by the 'forward' action. Changes here last until the
 * next 'policy load', which makes the fdb that of the file.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/policy_parse.h"
#include "verbs.h"

static const char fdb_usage[] =
	"Usage: tap-accel fdb add IFACE MAC DEV\n"
	"       tap-accel fdb del IFACE MAC\n"
	"       tap-accel fdb list IFACE\n"
	"\n"
	"Frames from IFACE with destination MAC that a 'forward' rule (or default)\n"
	"takes are redirected to DEV; unknown, broadcast and multicast destinations\n"
	"go to the stack.\n";

static void print_fdb(const struct ta_maps *maps)
{
	struct ta_mac key, next;
	char mac[18], dev[IF_NAMESIZE];
	void *prev = NULL;
	__u32 ifindex;

	if (cli.json)
		jw_array_begin(&json);
	while (!bpf_map_get_next_key(maps->ta_fdb, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(maps->ta_fdb, &key, &ifindex))
			continue; /* deleted meanwhile */
		ta_format_mac(key.addr, mac);
		ifname_of(ifindex, dev);
		if (cli.json) {
			jw_object_begin(&json);
			jw_kv_string(&json, "mac", mac);
			jw_kv_string(&json, "dev", dev);
			jw_kv_u64(&json, "ifindex", ifindex);
			jw_object_end(&json);
		} else {
			printf("fdb %s dev %s\n", mac, dev);
		}
	}
	if (cli.json)
		jw_array_end(&json);
}

static int parse_mac_arg(const char *s, uint8_t mac[6])
{
	if (ta_parse_mac(s, mac))
		return user_error("'%s' is not a MAC address; expected one like 52:54:00:12:34:56", s);
	return 0;
}

static int fdb_add(struct ta_pins *p, const char *mac_arg, const char *dev)
{
	unsigned int ifindex;
	uint8_t mac[6];
	int ret, err;

	ret = parse_mac_arg(mac_arg, mac);
	if (!ret)
		ret = require_interface(dev, &ifindex);
	if (ret)
		return ret;
	if (mac[0] & 1)
		return user_error("%s is a group address; the fdb forwards unicast destinations only",
				  mac_arg);
	err = ta_fdb_add(&p->maps, mac, ifindex);
	if (err == -E2BIG || err == -ENOSPC)
		return user_error("the fdb is full (%d entries)", TA_MAX_FDB);
	if (err)
		return errno_error(err, "cannot add the fdb entry");
	if (!cli.json)
		printf("fdb %s dev %s added\n", mac_arg, dev);
	return EXIT_OK;
}

static int fdb_del(struct ta_pins *p, const char *ifname, const char *mac_arg)
{
	uint8_t mac[6];
	int ret, err;

	ret = parse_mac_arg(mac_arg, mac);
	if (ret)
		return ret;
	err = ta_fdb_del(&p->maps, mac);
	if (err == -ENOENT)
		return user_error("%s has no fdb entry for %s", ifname, mac_arg);
	if (err)
		return errno_error(err, "cannot delete the fdb entry");
	if (!cli.json)
		printf("fdb %s deleted\n", mac_arg);
	return EXIT_OK;
}

int cmd_fdb(int argc, char **argv)
{
	unsigned int ifindex;
	struct ta_pins p;
	int n, ret;

	n = parse_verb_options(argc, argv, fdb_usage, NULL, &ret);
	if (n < 0)
		return ret;
	/* "fdb add IFACE MAC dev DEV" reads like the policy file: accept it. */
	if (n == 5 && !strcmp(argv[1], "add") && !strcmp(argv[4], "dev")) {
		argv[4] = argv[5];
		n = 4;
	}
	if (!((n == 4 && !strcmp(argv[1], "add")) || (n == 3 && !strcmp(argv[1], "del")) ||
	      (n == 2 && !strcmp(argv[1], "list")))) {
		user_error("fdb: expected add IFACE MAC DEV, del IFACE MAC or list IFACE");
		fputs(fdb_usage, stderr);
		return EXIT_USER;
	}
	if (strcmp(argv[1], "list") &&
	    ((ret = require_interface(argv[2], &ifindex)) || (ret = require_admin("fdb"))))
		return ret;
	ret = open_pinned(argv[2], &p);
	if (ret)
		return ret;
	if (!strcmp(argv[1], "add")) {
		ret = fdb_add(&p, argv[3], argv[4]);
	} else if (!strcmp(argv[1], "del")) {
		ret = fdb_del(&p, argv[2], argv[3]);
	} else {
		print_fdb(&p.maps);
		if (cli.json)
			jw_end_document(&json);
	}
	ta_pins_close(&p);
	return ret;
}
