// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* util.c - pin paths, bpffs, interface kinds, capabilities (see util.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/magic.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
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

int ta_pin_dir(const char *ifname, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", TA_PIN_ROOT, ifname);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool ta_bpffs_mounted(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int ta_bpffs_ensure(void)
{
	if (ta_bpffs_mounted(TA_BPFFS))
		return 0;
	/* Only the owner may see policies and counters, as with bpftool. */
	if (mount("bpf", TA_BPFFS, "bpf", 0, "mode=0700"))
		return -errno;
	return 0;
}

int ta_pins_remove(const char *dir)
{
	struct dirent *e;
	int fd, ret = 0;
	DIR *d;

	/* Never through a symlink, and every name relative to the folder
	 * opened: in a world-writable bpffs another user could have planted
	 * a link to a folder whose files root would then delete. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (unlinkat(fd, e->d_name, 0) && errno != ENOENT)
			ret = -errno;
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
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

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

int ta_netns_cookie(unsigned long long *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		err = -errno;
	close(fd);
	return err;
}
