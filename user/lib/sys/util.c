// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* util.c - interface names and kinds, capabilities (see util.h). */
#include <errno.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

int ta_ifname_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= IF_NAMESIZE || strchr(name, '/') || strchr(name, ':') ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (const char *c = name; *c; c++)
		if (*c <= ' ')
			return -EINVAL;
	return 0;
}

/* Driver name and bus info from ethtool; tun reports "tap" or "tun" as bus. */
static int drvinfo(const char *ifname, struct ethtool_drvinfo *info)
{
	struct ifreq ifr = { 0 };
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	info->cmd = ETHTOOL_GDRVINFO;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)info;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		ret = -errno;
	close(fd);
	return ret;
}

int ta_netdev_driver(const char *ifname, char *driver, size_t size)
{
	struct ethtool_drvinfo info;
	int ret = drvinfo(ifname, &info);

	/* Devices without ethtool support (lo) have no driver to name. */
	snprintf(driver, size, "%s", ret ? "none" : info.driver);
	return ret == -EOPNOTSUPP ? 0 : ret;
}

/* Asked through ethtool rather than sysfs: /sys may belong to another
 * network namespace than the one we run in. */
int ta_netdev_is_tap(const char *ifname, char *driver, size_t size)
{
	struct ethtool_drvinfo info;
	int ret = drvinfo(ifname, &info);

	if (ret == -EOPNOTSUPP) {
		snprintf(driver, size, "none");
		return 0;
	}
	if (ret)
		return ret;
	snprintf(driver, size, "%s", info.driver);
	if (!strcmp(info.driver, "tapx"))
		return 1;
	if (strcmp(info.driver, "tun"))
		return 0;
	if (!strcmp(info.bus_info, "tap"))
		return 1;
	snprintf(driver, size, "tun in IFF_TUN mode");
	return 0;
}

bool ta_has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t ta_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t ta_monotonic_coarse_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}
