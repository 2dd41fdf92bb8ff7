// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * scale.c - `tap-accel-bench --scale`: 1, 100, 1000 ... taps bound to one
 * policy on this host's stock tun, and what that costs.
 *
 * The policy plane is measured through the CLI an operator runs (process
 * start included), the tap-accel beside this program: all taps bound in
 * one call, some bound one call each, `status` and `stats` over all of
 * them, all unbound in one call. Kernel memory is read twice: bpftool's
 * memlock (the sum over every BPF map and program) and MemAvailable.
 *
 * Everything happens in a network namespace of its own with a bpffs of its
 * own on /sys/fs/bpf (a private mount namespace): the host's taps and
 * tap-accel state are neither seen nor touched, and all of it goes when
 * the process exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <libgen.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "env.h"
#include "files.h"
#include "goals.h"
#include "scale.h"
#include "stop.h"
#include "lib/output/json.h"
#include "lib/plane/plane.h"

#define POLICY "scale"
/* Below this many taps MemAvailable's own drift (about a MiB) is larger
 * than what the taps cost. */
#define AVAIL_MIN_TAPS 100
#define STARTS 7 /* runs of `tap-accel --version`: the process start */

/* A guest's usual few rules, the policy every tap is bound to. */
static const char policy_text[] =
	"# tap-accel-bench --scale: the policy every tap is bound to\n"
	"rule drop proto udp sport 67\n"
	"rule drop proto udp sport 547\n"
	"rule drop proto icmpv6 icmp-type 134\n"
	"rule drop proto tcp dport 25\n"
	"rule drop dst 169.254.169.254/32\n"
	"default pass\n";

struct scale_row {
	unsigned int taps;
	bool plane_ran;
	/* the plane, through the CLI */
	double memlock_tap, avail_tap; /* bytes per tap; NAN: not read */
	double bind_all_s;	       /* one call for every tap */
	double single_ms, single_max_ms; /* one call per tap: median, worst */
	unsigned int singles;
	double status_s, stats_s, unbind_all_s;
	long long left_memlock; /* after unbinding all, against before */
};

struct scale {
	const struct scale_opts *o;
	char exe[PATH_MAX]; /* the tap-accel CLI */
	char policy_file[64];
	char (*names)[IFNAMSIZ];
	unsigned int nr_taps;
	char kernel[128], started[32];
	int ncpus;
	double start_ms; /* tap-accel --version, median */
	double plane_s;	 /* creating the plane and loading the policy */
	long long plane_memlock, plane_avail;
	struct scale_row rows[SCALE_MAX_ROWS];
	char out_dir[PATH_MAX];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ---- kernel memory ------------------------------------------------------ */

static long long mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

static long long fd_memlock(int fd)
{
	char path[64], line[128];
	long long bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

/* What bpftool's lists add up to: memlock of every map and program. */
static long long bpf_memlock(void)
{
	long long sum = 0;
	__u32 id = 0;
	int fd;

	while (!bpf_map_get_next_id(id, &id)) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd >= 0) {
			sum += fd_memlock(fd);
			close(fd);
		}
	}
	id = 0;
	while (!bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd >= 0) {
			sum += fd_memlock(fd);
			close(fd);
		}
	}
	return sum;
}

struct mem {
	long long memlock, avail;
};

static struct mem mem_now(void)
{
	return (struct mem){ bpf_memlock(), mem_available() };
}

/* The same once MemAvailable holds still (the kernel frees some memory
 * lazily: vfree and RCU callbacks): three readings 100 ms apart within
 * 128 KiB, or what it reads after 5 s. */
static struct mem mem_settled(void)
{
	long long last = mem_available(), now;
	int still = 0;

	for (int i = 0; i < 50 && still < 3; i++) {
		usleep(100000);
		now = mem_available();
		still = llabs(now - last) <= 128 * 1024 ? still + 1 : 0;
		last = now;
	}
	return mem_now();
}

/* ---- the namespace and its taps ----------------------------------------- */

/* A network namespace and a bpffs of our own (see the top of the file). */
static int enter_private(struct ta_error *e)
{
	if (unshare(CLONE_NEWNS) < 0)
		return ta_error_system(e, errno, "unshare(CLONE_NEWNS): %s (needs root)",
				       strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("bpf", TA_BPFFS, "bpf", 0, "mode=0700") < 0)
		return ta_error_system(e, errno, "a private bpffs on %s: %s", TA_BPFFS,
				       strerror(errno));
	return env_enter_netns(e);
}

/* Taps sc1..scN, persistent and up; the namespace takes them when it goes. */
static int taps_create(struct scale *s, unsigned int n, struct ta_error *e)
{
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (sock < 0)
		return ta_error_system(e, errno, "socket: %s", strerror(errno));
	for (; s->nr_taps < n; s->nr_taps++) {
		struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
		int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC), err = 0;

		snprintf(ifr.ifr_name, IFNAMSIZ, "sc%u", s->nr_taps + 1);
		if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETPERSIST, 1))
			err = errno;
		if (fd >= 0)
			close(fd);
		if (!err && (ioctl(sock, SIOCGIFFLAGS, &ifr) ||
			     (ifr.ifr_flags |= IFF_UP, ioctl(sock, SIOCSIFFLAGS, &ifr))))
			err = errno;
		if (err) {
			close(sock);
			return ta_error_system(e, err, "tap %s: %s", ifr.ifr_name, strerror(err));
		}
		snprintf(s->names[s->nr_taps], IFNAMSIZ, "%s", ifr.ifr_name);
	}
	close(sock);
	return 0;
}

/* ---- the CLI, timed ----------------------------------------------------- */

/*
 * Run tap-accel with `args` (NULL-terminated, without argv[0]); its wall
 * time from fork to exit in *secs. Its stdout goes to *out (NUL-ended,
 * the caller frees) when out is not NULL. 0, or -errno with its stderr in e.
 */
static int cli(const struct scale *s, const char *const *args, char **out, double *secs,
	       struct ta_error *e)
{
	int fd_out = memfd_create("scale-out", MFD_CLOEXEC), fd_err = memfd_create("scale-err", MFD_CLOEXEC);
	int status = -1, nargs = 0, ret;
	const char **argv;
	double t0;
	off_t size;
	pid_t pid;

	while (args[nargs])
		nargs++;
	argv = calloc(nargs + 2, sizeof(*argv));
	if (fd_out < 0 || fd_err < 0 || !argv) {
		int err = errno ? errno : ENOMEM;

		ret = ta_error_system(e, err, "cannot run tap-accel: %s", strerror(err));
		goto out;
	}
	argv[0] = s->exe;
	memcpy(argv + 1, args, nargs * sizeof(*args));
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		dup2(fd_out, STDOUT_FILENO);
		dup2(fd_err, STDERR_FILENO);
		execv(s->exe, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0) {
		ret = ta_error_system(e, errno, "cannot run tap-accel: %s", strerror(errno));
		goto out;
	}
	ret = stop_wait_child(pid, &status);
	if (ret) {
		ret = ta_error_system(e, -ret, "cannot wait for tap-accel: %s", strerror(-ret));
		goto out;
	}
	/* The child had the same Ctrl-C: its failure is not the report. */
	if (stop_requested()) {
		ret = ta_error_system(e, EINTR, "interrupted");
		goto out;
	}
	*secs = now_s() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char text[256] = "";
		ssize_t n = pread(fd_err, text, sizeof(text) - 1, 0);

		text[n > 0 ? n : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
		ret = ta_error_system(e, EIO, "tap-accel %s ...: %s", args[0],
				      text[0] ? text : "failed");
		goto out;
	}
	ret = 0;
	if (!out)
		goto out;
	size = lseek(fd_out, 0, SEEK_END);
	*out = malloc(size + 1);
	if (!*out || pread(fd_out, *out, size, 0) != size) {
		ret = ta_error_system(e, *out ? EIO : ENOMEM, "cannot read tap-accel's output");
		free(*out);
		*out = NULL;
		goto out;
	}
	(*out)[size] = '\0';
out:
	free(argv);
	if (fd_out >= 0)
		close(fd_out);
	if (fd_err >= 0)
		close(fd_err);
	return ret;
}

/* tap-accel VERB [taps first..first+n-1] [--policy POLICY]. */
static int cli_taps(const struct scale *s, const char *verb, unsigned int first, unsigned int n,
		    bool policy, double *secs, struct ta_error *e)
{
	const char **args = calloc(n + 4, sizeof(*args));
	int i = 0, ret;

	if (!args)
		return ta_error_system(e, ENOMEM, "out of memory");
	args[i++] = verb;
	for (unsigned int t = first; t < first + n; t++)
		args[i++] = s->names[t];
	if (policy) {
		args[i++] = "--policy";
		args[i++] = POLICY;
	}
	ret = cli(s, args, NULL, secs, e);
	free(args);
	return ret;
}

static unsigned int count_of(const char *text, const char *what)
{
	unsigned int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/*
 * The tap-accel CLI the operator runs: the one beside this program
 * (build/user/, or where make install and the package put both).
 */
int scale_find_cli(char *path, size_t size, struct ta_error *e)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return ta_error_system(e, errno, "/proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	snprintf(path, size, "%s/tap-accel", dirname(self));
	if (access(path, X_OK))
		return ta_error_system(e, errno,
				       "%.200s: %s (the scale and firewall tables run the tap-accel beside "
				       "tap-accel-bench: make builds both, make install installs "
				       "both)",
				       path, strerror(errno));
	return 0;
}

/* ---- the policy plane --------------------------------------------------- */

static int measure_start(struct scale *s, struct ta_error *e)
{
	static const char *const version[] = { "--version", NULL };
	double t[STARTS];

	for (int i = 0; i < STARTS; i++)
		if (cli(s, version, NULL, &t[i], e))
			return -e->err;
	qsort(t, STARTS, sizeof(*t), cmp_double);
	s->start_ms = t[STARTS / 2] * 1e3;
	return 0;
}

static int load_policy(struct scale *s, struct ta_error *e)
{
	const char *args[] = { "policy", "load", POLICY, s->policy_file, NULL };
	struct mem before = mem_settled(), after;

	if (cli(s, args, NULL, &s->plane_s, e))
		return -e->err;
	after = mem_now();
	s->plane_memlock = after.memlock - before.memlock;
	s->plane_avail = before.avail - after.avail;
	return 0;
}

/* Every one of the row's taps bound, and nothing else. */
static int check_status(const struct scale *s, unsigned int n, double *secs,
			struct ta_error *e)
{
	static const char *const args[] = { "--json", "status", NULL };
	char *text = NULL;
	unsigned int bound;

	if (cli(s, args, &text, secs, e))
		return -e->err;
	bound = count_of(text, "\"policy\":\"" POLICY "\"");
	free(text);
	if (bound != n)
		return ta_error_system(e, EIO, "status lists %u taps bound to %s, not %u", bound,
				       POLICY, n);
	return 0;
}

static int measure_singles(const struct scale *s, struct scale_row *r, struct ta_error *e)
{
	unsigned int k = r->taps < s->o->single_max ? r->taps : s->o->single_max;
	unsigned int first = r->taps - k;
	double *t = calloc(k, sizeof(*t)), secs;
	int ret;

	if (!t)
		return ta_error_system(e, ENOMEM, "out of memory");
	ret = k ? cli_taps(s, "detach", first, k, false, &secs, e) : 0;
	for (unsigned int i = 0; !ret && i < k; i++)
		ret = cli_taps(s, "attach", first + i, 1, true, &t[i], e);
	if (ret)
		goto out;
	qsort(t, k, sizeof(*t), cmp_double);
	r->singles = k;
	r->single_ms = k ? (k % 2 ? t[k / 2] : (t[k / 2 - 1] + t[k / 2]) / 2) * 1e3 : NAN;
	r->single_max_ms = k ? t[k - 1] * 1e3 : NAN;
	ret = 0;
out:
	free(t);
	return ret;
}

static int measure_plane(struct scale *s, struct scale_row *r, struct ta_error *e)
{
	static const char *const stats[] = { "stats", NULL };
	unsigned int n = r->taps;
	struct mem before = mem_settled(), bound;

	if (cli_taps(s, "attach", 0, n, true, &r->bind_all_s, e))
		return -e->err;
	bound = mem_now();
	r->memlock_tap = (double)(bound.memlock - before.memlock) / n;
	r->avail_tap = n >= AVAIL_MIN_TAPS ? (double)(before.avail - bound.avail) / n : NAN;
	if (measure_singles(s, r, e) || check_status(s, n, &r->status_s, e) ||
	    cli(s, (const char *const *)stats, NULL, &r->stats_s, e) ||
	    cli_taps(s, "detach", 0, n, false, &r->unbind_all_s, e))
		return -e->err;
	r->left_memlock = bpf_memlock() - before.memlock;
	r->plane_ran = true;
	return 0;
}

/* ---- the report --------------------------------------------------------- */

static void fmt_kib(char *buf, size_t len, double bytes)
{
	if (isnan(bytes))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f KiB", bytes / 1024);
}

static void fmt_num(char *buf, size_t len, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit);
}

static void fmt_time(char *buf, size_t len, double secs)
{
	if (isnan(secs))
		snprintf(buf, len, "-");
	else if (secs < 1)
		fmt_num(buf, len, secs * 1e3, "ms");
	else
		snprintf(buf, len, "%.2f s", secs);
}

static const struct scale_row *row_of(const struct scale *s, unsigned int taps)
{
	for (int i = 0; i < s->o->nr_rows; i++)
		if (s->rows[i].taps == taps && s->rows[i].plane_ran)
			return &s->rows[i];
	return NULL;
}

enum { GOAL_TAP_MEM, GOAL_BIND_1000, GOAL_SINGLE, GOAL_STATUS_1000, GOAL_4096, NR_GOALS };

static const char *const goal_text[NR_GOALS] = {
	[GOAL_TAP_MEM] = "<= 64 KiB of kernel memory per tap beyond its policy",
	[GOAL_BIND_1000] = "1000 taps bound in <= 2 s in one call",
	[GOAL_SINGLE] = "<= 20 ms for a single-tap call, process start included",
	[GOAL_STATUS_1000] = "status of 1000 taps <= 0.5 s",
	[GOAL_4096] = "4096 taps within 1 GiB in all",
};

/* The plane's goals, judged on the rows that ran. */
static void goals_judge(const struct scale *s, struct bench_goal g[NR_GOALS])
{
	const struct scale_row *r1000 = row_of(s, 1000), *r4096 = row_of(s, 4096);
	double worst_mem = NAN, worst_single = NAN;

	memset(g, 0, NR_GOALS * sizeof(*g));
	for (int i = 0; i < s->o->nr_rows; i++) {
		const struct scale_row *r = &s->rows[i];

		if (!r->plane_ran)
			continue;
		if (isnan(worst_mem) || r->memlock_tap > worst_mem)
			worst_mem = r->memlock_tap;
		if (!isnan(r->avail_tap) && r->avail_tap > worst_mem)
			worst_mem = r->avail_tap;
		if (!isnan(r->single_ms) && (isnan(worst_single) || r->single_ms > worst_single))
			worst_single = r->single_ms;
	}
	if (!isnan(worst_mem)) {
		g[GOAL_TAP_MEM].measured = true;
		g[GOAL_TAP_MEM].met = worst_mem <= 64 * 1024;
		snprintf(g[GOAL_TAP_MEM].value, sizeof(g->value), "%.1f KiB (worst row)",
			 worst_mem / 1024);
	}
	if (!isnan(worst_single)) {
		g[GOAL_SINGLE].measured = true;
		g[GOAL_SINGLE].met = worst_single <= 20;
		snprintf(g[GOAL_SINGLE].value, sizeof(g->value), "%.1f ms (worst median)",
			 worst_single);
	}
	if (r1000) {
		g[GOAL_BIND_1000].measured = g[GOAL_STATUS_1000].measured = true;
		g[GOAL_BIND_1000].met = r1000->bind_all_s <= 2;
		g[GOAL_STATUS_1000].met = r1000->status_s <= 0.5;
		snprintf(g[GOAL_BIND_1000].value, sizeof(g->value), "%.2f s", r1000->bind_all_s);
		snprintf(g[GOAL_STATUS_1000].value, sizeof(g->value), "%.3f s", r1000->status_s);
	}
	if (r4096 && !isnan(r4096->avail_tap)) {
		double all = s->plane_avail + r4096->avail_tap * 4096;

		g[GOAL_4096].measured = true;
		g[GOAL_4096].met = all <= 1024.0 * 1024 * 1024;
		snprintf(g[GOAL_4096].value, sizeof(g->value), "%.0f MiB", all / (1 << 20));
	}
}

static void print_table(const struct scale *s, FILE *out)
{
	struct bench_goal g[NR_GOALS];

	fprintf(out, "tap-accel-bench --scale: %s, %d CPUs, %s UTC\n", s->kernel, s->ncpus,
		s->started);
	fprintf(out, "taps bound to one policy (%s: 5 rules) on stock tun, in a private namespace\n",
		POLICY);
	fprintf(out,
		"the plane once per host (program, maps) with the policy: %.1f MiB memlock, "
		"%.1f MiB MemAvailable, %.0f ms\n",
		s->plane_memlock / 1048576.0, s->plane_avail / 1048576.0, s->plane_s * 1e3);
	fprintf(out, "process start (tap-accel --version): %.1f ms\n\n", s->start_ms);
	fprintf(out, "%6s %11s %12s | %9s %9s %18s | %8s %8s %10s\n", "", "memory/tap", "",
		"bind all", "", "one call per tap", "status", "stats", "unbind all");
	fprintf(out, "%6s %11s %12s | %9s %9s %18s | %8s %8s %10s\n", "taps", "memlock",
		"MemAvailable", "one call", "per tap", "median (worst)", "", "", "one call");
	for (int i = 0; i < s->o->nr_rows; i++) {
		const struct scale_row *r = &s->rows[i];
		char a[24], b[24], c[24], d[24], e[32], f[24], h[24], k[24], w[24];

		if (r->plane_ran) {
			fmt_kib(a, sizeof(a), r->memlock_tap);
			fmt_kib(b, sizeof(b), r->avail_tap);
			fmt_time(c, sizeof(c), r->bind_all_s);
			fmt_num(d, sizeof(d), r->bind_all_s * 1e3 / r->taps, "ms");
			fmt_num(w, sizeof(w), r->single_ms, "ms");
			snprintf(e, sizeof(e), "%s (%.0f)", w, r->single_max_ms);
			fmt_time(f, sizeof(f), r->status_s);
			fmt_time(h, sizeof(h), r->stats_s);
			fmt_time(k, sizeof(k), r->unbind_all_s);
			fprintf(out, "%6u %11s %12s | %9s %9s %18s | %8s %8s %10s\n", r->taps, a, b,
				c, d, e, f, h, k);
		}
	}
	fprintf(out,
		"\nTimes through the tap-accel CLI, process start included.\n"
		"MemAvailable per tap from %u taps up (it drifts by about a MiB on its own).\n",
		AVAIL_MIN_TAPS);
	goals_judge(s, g);
	bench_goals_print(out, "goals of the plane", goal_text, g, NR_GOALS, 58);
}

static void write_csv(const struct scale *s, FILE *out)
{
	fprintf(out, "taps,memlock_per_tap_bytes,memavailable_per_tap_bytes,bind_all_s,"
		     "bind_per_tap_ms,single_median_ms,single_worst_ms,status_s,stats_s,"
		     "unbind_all_s\n");
	for (int i = 0; i < s->o->nr_rows; i++) {
		const struct scale_row *r = &s->rows[i];

		if (r->plane_ran) {
			fprintf(out, "%u", r->taps);
			bench_csv_num(out, r->memlock_tap);
			bench_csv_num(out, r->avail_tap);
			bench_csv_num(out, r->bind_all_s);
			bench_csv_num(out, r->bind_all_s * 1e3 / r->taps);
			bench_csv_num(out, r->single_ms);
			bench_csv_num(out, r->single_max_ms);
			bench_csv_num(out, r->status_s);
			bench_csv_num(out, r->stats_s);
			bench_csv_num(out, r->unbind_all_s);
			fputc('\n', out);
		}
	}
}

static void write_json(const struct scale *s, FILE *out, bool pretty)
{
	struct json_writer w;
	struct bench_goal g[NR_GOALS];

	goals_judge(s, g);
	jw_init(&w, out, pretty);
	jw_object_begin(&w);
	jw_kv_string(&w, "kernel", s->kernel);
	jw_kv_u64(&w, "cpus", s->ncpus);
	jw_kv_string(&w, "started", s->started);
	jw_kv_string(&w, "policy", policy_text);
	jw_kv_double(&w, "process_start_ms", s->start_ms);
	jw_key(&w, "plane");
	jw_object_begin(&w);
	jw_kv_double(&w, "seconds", s->plane_s);
	jw_kv_double(&w, "memlock_bytes", s->plane_memlock);
	jw_kv_double(&w, "memavailable_bytes", s->plane_avail);
	jw_object_end(&w);
	jw_key(&w, "rows");
	jw_array_begin(&w);
	for (int i = 0; i < s->o->nr_rows; i++) {
		const struct scale_row *r = &s->rows[i];

		jw_object_begin(&w);
		jw_kv_u64(&w, "taps", r->taps);
		jw_key(&w, "plane");
		if (!r->plane_ran) {
			jw_null(&w);
		} else {
			jw_object_begin(&w);
			jw_kv_double(&w, "memlock_per_tap_bytes", r->memlock_tap);
			jw_kv_double(&w, "memavailable_per_tap_bytes", r->avail_tap);
			jw_kv_double(&w, "bind_all_s", r->bind_all_s);
			jw_kv_double(&w, "single_median_ms", r->single_ms);
			jw_kv_double(&w, "single_worst_ms", r->single_max_ms);
			jw_kv_u64(&w, "singles", r->singles);
			jw_kv_double(&w, "status_s", r->status_s);
			jw_kv_double(&w, "stats_s", r->stats_s);
			jw_kv_double(&w, "unbind_all_s", r->unbind_all_s);
			jw_kv_double(&w, "memlock_left_after_unbind_bytes", r->left_memlock);
			jw_object_end(&w);
		}
		jw_object_end(&w);
	}
	jw_array_end(&w);
	bench_goals_json(&w, goal_text, g, NR_GOALS);
	jw_object_end(&w);
	jw_end_document(&w);
}

#define DAT_COLS 5 /* of scale.dat: taps, then the series below */

/* Row `r`'s value of scale.dat column `col` (2..DAT_COLS), or NAN. */
static double dat_value(const struct scale_row *r, int col)
{
	if (!r->plane_ran)
		return NAN;
	switch (col) {
	case 2: return r->memlock_tap / 1024;
	case 3: return r->avail_tap / 1024;
	case 4: return r->bind_all_s * 1e3 / r->taps;
	default: return r->single_ms;
	}
}

/* "plot ..." of the columns from..to that hold a value (gnuplot warns of
 * series without one), on a line of its own. */
static void plot_series(const struct scale *s, int from, int to, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "plot NaN notitle");

	for (int col = from; col <= to; col++) {
		bool any = false;

		for (int i = 0; i < s->o->nr_rows; i++)
			any |= !isnan(dat_value(&s->rows[i], col));
		if (any && n < len)
			n += snprintf(buf + n, len - n,
				      ", 'scale.dat' using 1:%d with linespoints title columnheader(%d)",
				      col, col);
	}
	if (n < len)
		snprintf(buf + n, len - n, "\n");
}

/* Two panels over the number of taps: memory per tap, bind time per tap. */
static bool write_chart(const struct scale *s)
{
	char mem[512], bind[512], plot[1536];
	FILE *dat, *gp;

	if (!bench_chart_open(s->out_dir, "scale", &dat, &gp))
		return false;
	fputs("taps\tmemlock\tMemAvailable\tone call for all\tone call per tap\n", dat);
	for (int i = 0; i < s->o->nr_rows; i++) {
		fprintf(dat, "%u", s->rows[i].taps);
		for (int col = 2; col <= DAT_COLS; col++) {
			double v = dat_value(&s->rows[i], col);

			if (isnan(v))
				fputs("\tNaN", dat);
			else
				fprintf(dat, "\t%.6g", v);
		}
		fputc('\n', dat);
	}
	plot_series(s, 2, 3, mem, sizeof(mem));
	plot_series(s, 4, DAT_COLS, bind, sizeof(bind));
	snprintf(plot, sizeof(plot),
		 "set multiplot layout 1,2 title \"tap-accel-bench --scale, %s: "
		 "lower is better (log scales)\"\n"
		 "set ylabel 'kernel memory per tap (KiB)'\n%s"
		 "set ylabel 'bind time per tap (ms)'\n%s"
		 "unset multiplot",
		 s->kernel, mem, bind);
	fprintf(gp,
		"# gnuplot scale.gp  (re-plots scale.svg and scale.png from scale.dat)\n"
		"set datafile separator tab\n"
		"set datafile missing 'NaN'\n"
		"set logscale xy\n"
		"set grid\n"
		"set key top right\n"
		"set xlabel 'taps bound to one policy'\n"
		"set xrange [0.7:*]\n");
	bench_chart_outputs(gp, "scale", plot);
	fclose(dat);
	fclose(gp);
	return bench_plot(s->out_dir, "scale");
}

static int write_files(struct scale *s)
{
	FILE *f;

	if (bench_results_dir(s->o->out_dir, s->out_dir, sizeof(s->out_dir)))
		return -1;
	if (!(f = bench_open_in(s->out_dir, "scale.txt")))
		return -1;
	print_table(s, f);
	fclose(f);
	if (!(f = bench_open_in(s->out_dir, "scale.csv")))
		return -1;
	write_csv(s, f);
	fclose(f);
	if (!(f = bench_open_in(s->out_dir, "scale.json")))
		return -1;
	write_json(s, f, true);
	fclose(f);
	fprintf(stderr, "tap-accel-bench: results in %s/ (scale.txt, scale.csv, scale.json%s)\n",
		s->out_dir, write_chart(s) ? ", scale.svg, scale.png" : "");
	return 0;
}

/* ---- the run ------------------------------------------------------------ */

void scale_opts_default(struct scale_opts *o, bool full)
{
	static const unsigned int quick[] = { 1, 100, 1000 }, all[] = { 1, 100, 1000, 4096 };

	memset(o, 0, sizeof(*o));
	o->nr_rows = full ? 4 : 3;
	memcpy(o->taps, full ? all : quick, o->nr_rows * sizeof(*o->taps));
	o->single_max = full ? SCALE_MAX_TAPS : 100;
}

int scale_parse_taps(struct scale_opts *o, const char *list, struct ta_error *e)
{
	const char *p = list;

	o->nr_rows = 0;
	while (*p) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);

		if (end == p || (*end && *end != ',') || n < 1 || n > SCALE_MAX_TAPS ||
		    (o->nr_rows && n <= o->taps[o->nr_rows - 1])) {
			return ta_error_input(e, EINVAL,
					      "--taps '%s': tap counts from 1 to %d, ascending, "
					      "comma-separated",
					      list, SCALE_MAX_TAPS);
		}
		if (o->nr_rows == SCALE_MAX_ROWS)
			return ta_error_input(e, EINVAL, "--taps: at most %d counts",
					      SCALE_MAX_ROWS);
		o->taps[o->nr_rows++] = n;
		p = *end ? end + 1 : end;
	}
	if (!o->nr_rows)
		return ta_error_input(e, EINVAL, "--taps: no tap count given");
	return 0;
}

static int write_policy_file(struct scale *s, struct ta_error *e)
{
	int fd;

	snprintf(s->policy_file, sizeof(s->policy_file), "/tmp/tap-accel-scale-XXXXXX");
	fd = mkstemp(s->policy_file);
	if (fd < 0 || write(fd, policy_text, strlen(policy_text)) != (ssize_t)strlen(policy_text)) {
		int err = ta_error_system(e, errno ? errno : EIO, "%s: %s", s->policy_file,
					  strerror(errno));

		if (fd >= 0) {
			close(fd);
			unlink(s->policy_file);
		}
		s->policy_file[0] = '\0';
		return err;
	}
	close(fd);
	return 0;
}

static int measure(struct scale *s, struct ta_error *e)
{
	const struct scale_opts *o = s->o;
	unsigned int most = o->taps[o->nr_rows - 1];

	int err;

	fprintf(stderr, "tap-accel-bench --scale: %u taps\n", most);
	err = taps_create(s, most, e);
	if (!err)
		err = write_policy_file(s, e);
	if (!err)
		err = measure_start(s, e);
	if (!err)
		err = load_policy(s, e);
	if (err)
		return err;
	for (int i = 0; i < o->nr_rows; i++) {
		struct scale_row *r = &s->rows[i];

		if (stop_requested())
			return ta_error_system(e, EINTR, "interrupted");

		r->taps = o->taps[i];
		fprintf(stderr, "[%d/%d] %u taps: the plane\n", i + 1, o->nr_rows, r->taps);
		err = measure_plane(s, r, e);
		if (err)
			return err;
	}
	return 0;
}

int scale_run(const struct scale_opts *o)
{
	struct scale *s = calloc(1, sizeof(*s));
	struct ta_error e = {0};
	struct utsname u;
	time_t t = time(NULL);
	int ret = -ENOMEM;

	if (!s || !(s->names = calloc(o->taps[o->nr_rows - 1], IFNAMSIZ))) {
		fprintf(stderr, "tap-accel-bench: out of memory\n");
		goto out;
	}
	s->o = o;
	s->ncpus = libbpf_num_possible_cpus();
	uname(&u);
	snprintf(s->kernel, sizeof(s->kernel), "Linux %s", u.release);
	stop_catch_signals();
	strftime(s->started, sizeof(s->started), "%Y-%m-%d %H:%M:%S", gmtime(&t));
	if (scale_find_cli(s->exe, sizeof(s->exe), &e) || enter_private(&e) || measure(s, &e)) {
		fprintf(stderr, "tap-accel-bench --scale: %s\n", e.text);
		ret = -e.err;
		goto out;
	}
	print_table(s, o->json ? stderr : stdout);
	if (o->json)
		write_json(s, stdout, o->pretty);
	ret = write_files(s) ? -EIO : 0;
out:
	if (s && s->policy_file[0])
		unlink(s->policy_file);
	if (s)
		free(s->names);
	free(s);
	return ret;
}
