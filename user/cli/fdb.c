// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fdb.c - the forwarding table of one tap: destination MAC -> egress
 * interface, used by the 'forward' action. Changes here last until the
 * tap's policy is loaded again, which makes its fdb that of the policy.
 */
#include <errno.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "lib/plane/fdb.h"
#include "lib/plane/ports.h"
#include "lib/plane/taps.h"
#include "lib/policy/names.h"
#include "verbs.h"

static int parse_mac_arg(const char *s, uint8_t mac[6])
{
	if (ta_parse_mac(s, mac))
		return user_error("'%s' is not a MAC address; expected one like 52:54:00:12:34:56", s);
	return 0;
}

/* DEV can take the frames IFACE's guest sends to a MAC: it exists, and
 * is neither IFACE (the guest's frames back to itself: a tx rule says
 * that) nor a loopback device (frames there go nowhere). 0 or an exit
 * code (told). */
static int check_egress(const char *ifname, const char *dev)
{
	unsigned int index = if_nametoindex(dev);
	struct ifreq ifr = { 0 };
	int fd, err = 0;

	if (!index)
		return user_error("interface %s not found; list interfaces with 'ip link'", dev);
	if (index == if_nametoindex(ifname))
		return user_error("fdb add: %s is %s itself: its guest's frames would come back to "
				  "it; give another tap or a NIC (a 'tx' rule reflects frames on "
				  "purpose)", dev, ifname);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		return errno_error(err, "cannot read the flags of %s", dev);
	if (ifr.ifr_flags & IFF_LOOPBACK)
		return user_error("fdb add: %s is a loopback device, where forwarded frames go "
				  "nowhere; give a tap or a NIC", dev);
	return 0;
}

/* The plane and the binding of IFACE, for a verb that changes it or not. */
static int open_tap(struct ta_plane *pl, const char *verb, bool write, const char *ifname,
		    struct ta_tap_state *st)
{
	int ret = write ? require_admin(verb) : 0;

	if (!ret)
		ret = open_plane(pl, write ? TA_PLANE_WRITE : TA_PLANE_READ);
	if (ret)
		return ret;
	ret = find_tap(pl, ifname, st);
	if (ret)
		ta_plane_close(pl);
	return ret;
}

static int run_add(const void *opts, int argc, char **argv)
{
	const char *dev = argv[argc - 1];
	struct ta_tap_state st;
	struct ta_plane pl;
	uint8_t mac[6];
	uint32_t port;
	int ret, err;

	(void)opts;
	/* "fdb add IFACE MAC dev DEV" reads like the policy file: taken too */
	if (argc == 4 && strcmp(argv[2], "dev"))
		return user_error("fdb add: expected IFACE MAC DEV");
	ret = parse_mac_arg(argv[1], mac);
	if (ret)
		return ret;
	if (mac[0] & 1)
		return user_error("%s is a group address; the fdb forwards unicast destinations only",
				  argv[1]);
	ret = open_tap(&pl, "fdb", true, argv[0], &st);
	if (ret)
		return ret;
	ret = check_egress(argv[0], dev);
	if (ret) {
		ta_plane_close(&pl);
		return ret;
	}
	err = ta_port_get(&pl, if_nametoindex(dev), &port);
	err = err ?: ta_fdb_add(&pl, st.tap.id, mac, port);
	ta_plane_close(&pl);
	if (err == -E2BIG || err == -ENOSPC)
		return user_error("the fdb is full");
	if (err)
		return errno_error(err, "cannot add the fdb entry");
	if (!cli.json)
		printf("fdb %s dev %s added\n", argv[1], dev);
	return EXIT_OK;
}

static int run_del(const void *opts, int argc, char **argv)
{
	struct ta_tap_state st;
	struct ta_plane pl;
	uint8_t mac[6];
	int ret, err;

	(void)opts;
	(void)argc;
	ret = parse_mac_arg(argv[1], mac);
	if (!ret)
		ret = open_tap(&pl, "fdb", true, argv[0], &st);
	if (ret)
		return ret;
	err = ta_fdb_del(&pl, st.tap.id, mac);
	if (!err)
		ta_ports_prune(&pl);
	ta_plane_close(&pl);
	if (err == -ENOENT)
		return user_error("%s has no fdb entry for %s", argv[0], argv[1]);
	if (err)
		return errno_error(err, "cannot delete the fdb entry");
	if (!cli.json)
		printf("fdb %s deleted\n", argv[1]);
	return EXIT_OK;
}

static int run_list(const void *opts, int argc, char **argv)
{
	static struct ta_mac macs[TA_MAX_FDB];
	static uint32_t ports[TA_MAX_FDB];
	char mac[18], dev[64];
	struct ta_tap_state st;
	struct ta_plane pl;
	uint32_t nr, ifindex;
	int ret, err;

	(void)opts;
	(void)argc;
	ret = open_tap(&pl, "fdb", false, argv[0], &st);
	if (ret)
		return ret;
	err = ta_fdb_read(&pl, st.tap.id, macs, ports, TA_MAX_FDB, &nr);
	if (err) {
		ta_plane_close(&pl);
		return errno_error(err, "cannot read the fdb of %s", argv[0]);
	}
	if (cli.json)
		jw_array_begin(&json);
	for (uint32_t i = 0; i < nr; i++) {
		ta_format_mac(macs[i].addr, mac);
		ta_port_name(&pl, ports[i], dev, &ifindex);
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
	if (cli.json) {
		jw_array_end(&json);
		jw_end_document(&json);
	}
	ta_plane_close(&pl);
	return EXIT_OK;
}

static const struct command add_cmd = {
	.name = "add",
	.args = "IFACE MAC DEV",
	.summary = "frames from IFACE to unicast MAC that 'forward' takes go out of DEV",
	.help = "Frames that a 'forward' rule of IFACE's policy takes, sent to unicast\n"
		"MAC, are redirected out of interface DEV (of this namespace) without the\n"
		"stack. Other destinations pass. 'fdb add IFACE MAC dev DEV' reads the same.\n"
		"A policy's own fdb statements are added to every tap bound to it.\n",
	.min_args = 3,
	.max_args = 4,
	.run = run_add,
};

static const struct command del_cmd = {
	.name = "del",
	.args = "IFACE MAC",
	.summary = "remove IFACE's entry for MAC",
	.help = "Remove the entry of tap IFACE for MAC: frames to MAC pass to the stack.\n",
	.min_args = 2,
	.max_args = 2,
	.run = run_del,
};

static const struct command list_cmd = {
	.name = "list",
	.args = "IFACE",
	.summary = "the entries of IFACE",
	.help = "Every entry of tap IFACE, by MAC: the interface frames to it go out of.\n",
	.min_args = 1,
	.max_args = 1,
	.run = run_list,
};

static const struct command *const fdb_cmds[] = { &add_cmd, &del_cmd, &list_cmd, NULL };

const struct command fdb_cmd = {
	.name = "fdb",
	.summary = "a tap's forwarding table (the 'forward' action): add, del, list",
	.sub = fdb_cmds,
};
