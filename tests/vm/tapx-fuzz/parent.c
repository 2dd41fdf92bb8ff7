// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-fuzz's parent: the kernel log, the watchdog, the epochs
 * (rmmod and insmod) and the report.
 */
#include "fuzz.h"

static const char *const bad_pat[] = {
	"WARNING:", "BUG:", "Oops", "general protection", "KASAN",
	"scheduling while atomic", "sleeping function called", "refcount_t",
	"possible recursive locking", "circular locking", "lockdep",
	"inconsistent lock state", "unreferenced object", "ODEBUG",
	"Call Trace", "Kernel panic", "blocked for more than",
	"detected stall", "self-detected stall", "list_add corruption",
	"list_del corruption", "UBSAN", "kernel BUG", "soft lockup",
	"hard LOCKUP", "Driver BUG", "xdp_rxq_info",
};

int kmsg = -1;
static char report[8192];
static size_t report_len;

/* Reads new kernel log lines; returns 1 if one is a report. */
int scan_kmsg(void)
{
	char buf[2048];
	int found = 0;
	ssize_t n;

	if (kmsg < 0)
		return 0;
	while ((n = read(kmsg, buf, sizeof(buf) - 1)) > 0) {
		char *msg;

		buf[n] = 0;
		msg = strchr(buf, ';');
		msg = msg ? msg + 1 : buf;
		for (unsigned int i = 0; i < sizeof(bad_pat) / sizeof(bad_pat[0]); i++) {
			if (strstr(msg, bad_pat[i])) {
				found = 1;
				break;
			}
		}
		if ((found || report_len) && report_len < sizeof(report) - 256) {
			char *nl = strchr(msg, '\n');

			if (nl)
				*nl = 0;
			report_len += snprintf(report + report_len,
					       sizeof(report) - report_len,
					       "    kernel: %s\n", msg);
		}
	}
	return found;
}

static int nworkers(void)
{
	return only >= 0 ? 1 : nprocs * nthreads;
}

static int widx(int i)
{
	return only >= 0 ? only : i;
}

static void print_ring(int w)
{
	struct wshared *s = &g->w[w];
	unsigned int pos = s->pos, n = pos < (unsigned)ring_n ? pos : (unsigned)ring_n;

	printf("fuzz: worker %d (tid %d), %llu calls, last %u:\n", w, s->tid,
	       (unsigned long long)s->calls, n);
	for (unsigned int i = pos - n; i != pos; i++) {
		struct callrec *c = &s->ring[i % ring_n];

		if (c->done)
			printf("fuzz:   w%d #%llu %s: %s -> %ld%s%s\n", w,
			       (unsigned long long)c->seq, kname[c->kind],
			       c->desc, c->ret, c->err ? " " : "",
			       c->err ? strerror(c->err) : "");
		else
			printf("fuzz:   w%d #%llu %s: %s -> (in progress)\n", w,
			       (unsigned long long)c->seq, kname[c->kind],
			       c->desc);
	}
	/* The call in progress may be one the ring does not show yet. */
	if (s->busy_since) {
		struct callrec *c = &s->ring[pos % ring_n];

		printf("fuzz:   w%d #%llu %s: %s -> (in progress for %.1f s)\n", w,
		       (unsigned long long)c->seq, kname[c->kind], c->desc,
		       (now_ns() - s->busy_since) / 1e9);
	}
}

uint64_t seed;

void fail_report(const char *why)
{
	int i;

	check(0, "fuzz: %s", why);
	printf("fuzz: seed %llu procs %d threads %d; replay: tapx-fuzz --seed %llu "
	       "--procs %d --threads %d (or vmfuzzseed=%llu), one worker alone: "
	       "--only W\n",
	       (unsigned long long)seed, nprocs, nthreads,
	       (unsigned long long)seed, nprocs, nthreads,
	       (unsigned long long)seed);
	if (report_len)
		printf("fuzz: kernel log:\n%s", report);
	for (i = 0; i < nworkers(); i++)
		print_ring(widx(i));
	fflush(stdout);
}

pid_t pids[MAXP];

int children_alive(void)
{
	int status, alive = 0, bad = 0;

	for (int p = 0; p < (only >= 0 ? 1 : nprocs); p++) {
		if (!pids[p])
			continue;
		pid_t r = waitpid(pids[p], &status, WNOHANG);

		if (r == pids[p]) {
			pids[p] = 0;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				printf("fuzz: process %d ended with status 0x%x\n",
				       p, status);
				bad = 1;
			}
		} else {
			alive++;
		}
	}
	return bad ? -1 : alive;
}

/* One worker busy in a call for longer than this is a hang (--hang). */
int64_t HANG_NS = 120LL * 1000000000LL;

int check_hang(void)
{
	int64_t t = now_ns();

	for (int i = 0; i < nworkers(); i++) {
		struct wshared *s = &g->w[widx(i)];
		int64_t b = s->busy_since;

		if (b && t - b > HANG_NS) {
			printf("fuzz: worker %d in %s for %.0f s\n", widx(i),
			       kname[s->cur_kind], (t - b) / 1e9);
			kernel_stack_print("fuzz: tid", s->tid);
			write_file("/proc/sysrq-trigger", "w");
			return 1;
		}
	}
	return 0;
}

/* Calls made and pause closes so far: a pause that moves them progresses. */
static uint64_t pause_progress(void)
{
	uint64_t sum = g->pause_closes;

	for (int i = 0; i < nworkers(); i++)
		sum += g->w[widx(i)].calls;
	return sum;
}

/*
 * Pauses the workers, has them close everything, reloads tapx. A pause may
 * take minutes on a loaded debug kernel (each worker ends its call, each
 * last close deletes a device under rtnl); it fails when nothing has moved
 * for --hang seconds, or when one call or close takes that long.
 */
int do_epoch(int n, char *why, size_t whylen)
{
	int e = g->epoch + 1, p, i, r = -1, tries;
	int64_t deadline = now_ns() + HANG_NS;
	uint64_t progress = pause_progress(), now_progress;
	char params[64];

	__atomic_store_n(&g->epoch, e, __ATOMIC_SEQ_CST);
	for (;;) {
		int all = 1;

		for (p = 0; p < (only >= 0 ? 1 : nprocs); p++)
			if (pids[p] && g->closed[p] != e)
				all = 0;
		if (all)
			break;
		now_progress = pause_progress();
		if (now_progress != progress) {
			progress = now_progress;
			deadline = now_ns() + HANG_NS;
		}
		if (scan_kmsg() || now_ns() > deadline || check_hang()) {
			snprintf(why, whylen, "epoch %d: workers did not pause", n);
			return -1;
		}
		if (children_alive() < 0) {
			snprintf(why, whylen, "a worker process died");
			return -1;
		}
		usleep(10000);
	}
	/* Files closed by io_uring's workers go a little later. */
	for (tries = 0; tries < 100; tries++) {
		r = syscall(__NR_delete_module, "tapx", O_NONBLOCK);
		if (!r || errno == ENOENT)
			break;
		usleep(100000);
	}
	if (r && errno != ENOENT) {
		snprintf(why, whylen,
			 "epoch %d: rmmod tapx failed with every fd closed: %s", n,
			 strerror(errno));
		return -1;
	}
	{
		uint64_t x = seed * 31 + n;

		x ^= x >> 17;
		x *= 0xbf58476d1ce4e5b9ULL;
		snprintf(params, sizeof(params), "ring_size=%u napi=%u",
			 (const unsigned int[]){ 1024, 1, 2, 7, 64, 4096 }[x % 6],
			 (unsigned int)(x >> 8) & 1);
	}
	if (load_tapx(params)) {
		snprintf(why, whylen, "epoch %d: insmod tapx %s: %s", n, params,
			 strerror(errno));
		return -1;
	}
	if (!quiet)
		printf("fuzz: epoch %d: tapx reloaded (%s), %llu calls so far\n", n,
		       params, ({
			       unsigned long long c = 0;
			       for (i = 0; i < nworkers(); i++)
				       c += g->w[widx(i)].calls;
			       c;
		       }));
	fflush(stdout);
	__atomic_store_n(&g->epoch, e + 1, __ATOMIC_SEQ_CST);
	return 0;
}

void summary(void)
{
	uint64_t total = 0, per[NK] = { 0 }, err[NK][NERR], ns[NK] = { 0 };
	uint64_t mx[NK] = { 0 };
	int kinds = 0, k, e, i;

	memset(err, 0, sizeof(err));
	for (i = 0; i < nworkers(); i++) {
		struct wshared *s = &g->w[widx(i)];

		total += s->calls;
		for (k = 0; k < NK; k++) {
			per[k] += s->count[k];
			ns[k] += s->ns[k];
			if (s->max_ns[k] > mx[k])
				mx[k] = s->max_ns[k];
			for (e = 0; e < NERR; e++)
				err[k][e] += s->errs[k][e];
		}
	}
	for (k = 0; k < NK; k++) {
		char line[512];
		size_t n = 0;

		if (per[k])
			kinds++;
		n += snprintf(line + n, sizeof(line) - n,
			      "fuzz: %-12s %9llu %7.2f ms avg %7.0f max ",
			      kname[k], (unsigned long long)per[k],
			      per[k] ? ns[k] / 1e6 / per[k] : 0.0, mx[k] / 1e6);
		for (e = 0; e < NERR && n < sizeof(line) - 40; e++) {
			if (!err[k][e])
				continue;
			n += snprintf(line + n, sizeof(line) - n, " %s:%llu",
				      e ? (strerrorname_np(e) ? strerrorname_np(e) : "?") :
					  "ok",
				      (unsigned long long)err[k][e]);
		}
		printf("%s\n", line);
	}
	{
		static const char *const seen[] = {
			"drop", "pass", "tx", "redirect(devmap)", "redirect(cpumap)",
			"redirect(ifindex)", "aborted", "unknown", "adjust_head",
			"adjust_tail", "adjust_meta", "store_bytes", "load_bytes",
		};
		char path[256], line[512];
		size_t n = 0;
		int fd, ncpu = sysconf(_SC_NPROCESSORS_CONF);
		uint64_t v[512];

		snprintf(path, sizeof(path), "%s/fuzz_seen", mapdir);
		fd = bpf_obj_get(path);
		n += snprintf(line, sizeof(line), "fuzz: XDP programs:");
		for (k = 0; fd >= 0 && k < 13 && ncpu > 0 && ncpu < 512; k++) {
			union bpf_attr a;
			uint32_t key = k;
			uint64_t sum = 0;

			memset(&a, 0, sizeof(a));
			a.map_fd = fd;
			a.key = (uint64_t)(unsigned long)&key;
			a.value = (uint64_t)(unsigned long)v;
			if (syscall(__NR_bpf, BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)))
				break;
			for (i = 0; i < ncpu; i++)
				sum += v[i];
			n += snprintf(line + n, sizeof(line) - n, " %s %llu", seen[k],
				      (unsigned long long)sum);
		}
		if (fd >= 0)
			printf("%s\n", line);
	}
	printf("fuzz: %llu calls, %d of %d call kinds\n",
	       (unsigned long long)total, kinds, NK);
}
