// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-vhost's host side: XDP attached by netlink, its counters from
 * the pinned map, the kprobe on the driver's sendmsg, interface counters
 * and tap-accel commands.
 */
#include "vhost.h"

static int nl_fd = -1;

static int nl_talk(struct nlreq *r)
{
	static unsigned int seq;
	char buf[8192];
	struct nlmsghdr *h;
	ssize_t n;

	if (nl_fd < 0) {
		struct timeval tv = { .tv_sec = 5 };

		nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		if (nl_fd < 0)
			return -1;
		setsockopt(nl_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	r->nh.nlmsg_seq = ++seq;
	if (send(nl_fd, r, r->nh.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -1;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq || h->nlmsg_type != NLMSG_ERROR)
				continue;
			errno = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
			return errno ? -1 : 0;
		}
	}
}

static int bpf_obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(unsigned long)path;
	return syscall(__NR_bpf, BPF_OBJ_GET, &a, sizeof(a));
}

/* Native XDP program pins/PROG on NAME (NULL: detach); 0 or -1. */
int xdp_set(const char *name, const char *prog)
{
	struct nlreq r;
	struct rtattr *nest;
	char path[256];
	int fd = -1, rc;
	uint32_t flags = XDP_FLAGS_DRV_MODE;

	if (prog) {
		snprintf(path, sizeof(path), "%s/%s", pins, prog);
		fd = bpf_obj_get(path);
		if (fd < 0)
			return -1;
	}
	nl_init(&r, RTM_SETLINK, name);
	nest = nl_nest(&r, IFLA_XDP);
	nl_put(&r, IFLA_XDP_FD, &fd, sizeof(fd));
	nl_put(&r, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	nl_end(&r, nest);
	rc = nl_talk(&r);
	if (fd >= 0)
		close(fd);
	return rc;
}

int dellink(const char *name)
{
	struct nlreq r;

	nl_init(&r, RTM_DELLINK, name);
	return nl_talk(&r);
}

static int ncpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int a = 0, b = 0;

	if (f) {
		if (fscanf(f, "%d-%d", &a, &b) < 2)
			b = a;
		fclose(f);
	}
	return b + 1;
}

/* BPF_MAP_LOOKUP_ELEM or BPF_MAP_UPDATE_ELEM (cmd) on map NAME, pinned in
 * --maps; the syscall's result, -1 when the map is not there. */
static int map_call(const char *name, int cmd, void *key, void *value)
{
	char path[256];
	union bpf_attr a;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", maps, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	rc = syscall(__NR_bpf, cmd, &a, sizeof(a));
	close(fd);
	return rc;
}

/* Packets xdp_basic counted under verdict (summed over CPUs); -1 on error. */
long xdp_count(int verdict)
{
	int n = ncpus();
	struct { uint64_t packets, bytes; } val[n];
	uint32_t key = verdict;
	long sum = 0;

	if (map_call("basic_count", BPF_MAP_LOOKUP_ELEM, &key, val) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		sum += val[i].packets;
	return sum;
}

int set_redirect_port(const char *name)
{
	uint32_t key = 0, ifi = if_nametoindex(name);

	return map_call("basic_ports", BPF_MAP_UPDATE_ELEM, &key, &ifi);
}

/*
 * Which TX path vhost took, seen from the driver: a kprobe on the driver's
 * sendmsg (--sendmsg-probe FUNC, tun_sendmsg for tun.ko) counts its calls.
 * Per packet, vhost calls it once a frame; batched, once for up to 64
 * frames (all of a case's frames, published before one kick).
 */
#define PROBE_EVENT "tapxvh_sendmsg"
static const char *tracefs;
int probe_active;

static int tracefs_write(const char *file, const char *text)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

void probe_on(void)
{
	char def[160];

	if (!*sendmsg_probe)
		return;
	tracefs = access("/sys/kernel/tracing/kprobe_events", F_OK) ? "/sys/kernel/debug/tracing"
								  : "/sys/kernel/tracing";
	snprintf(def, sizeof(def), "p:tapxvh/" PROBE_EVENT " %s", sendmsg_probe);
	tracefs_write("kprobe_events", "-:tapxvh/" PROBE_EVENT);
	probe_active = !tracefs_write("kprobe_events", def) &&
		       !tracefs_write("events/tapxvh/" PROBE_EVENT "/enable", "1");
	check(probe_active, "%skprobe on %s (to tell the TX paths apart)%s", prefix,
	      sendmsg_probe, probe_active ? "" : ": cannot set it");
}

void probe_off(void)
{
	if (!probe_active)
		return;
	tracefs_write("events/tapxvh/" PROBE_EVENT "/enable", "0");
	tracefs_write("kprobe_events", "-:tapxvh/" PROBE_EVENT);
	probe_active = 0;
}

/*
 * The value of @key in a listing of "name value" lines, as @fmt (two
 * conversions: a name of at most 127 characters, a long) reads them, from
 * @f, which @f_close then closes; -1 if it is not there or @f is NULL.
 */
long keyed_value(FILE *f, int (*f_close)(FILE *), const char *fmt,
		 const char *key)
{
	char line[256], k[128];
	long v, found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, k, &v) == 2 && !strcmp(k, key))
			found = v;
	f_close(f);
	return found;
}

/* Hits of the probe so far (kprobe_profile: name, hits, misses). */
long probe_hits(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/kprobe_profile", tracefs);
	return keyed_value(fopen(path, "r"), fclose, "%127s %ld", PROBE_EVENT);
}

/* Whether vhost batches a frame of size: header and frame in a page with
 * its headroom (larger with a program attached: SOCK_XDP) and tailroom;
 * x86-64 numbers, from vhost_net_build_xdp's arithmetic. */
int batched_size(int size, int prog)
{
	return size <= (prog ? 3380 : 3636);
}

long if_stat(const char *ifname, const char *what)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, what);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Runs a shell command; 0 if it exited 0. */
int run_cmd(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc == 0 ? 0 : -1;
}

int policy_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}
