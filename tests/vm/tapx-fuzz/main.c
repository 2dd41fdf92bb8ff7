// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-fuzz - a seeded random ABI fuzzer for tapx.ko (static, for the VM).
 *
 *   tapx-fuzz [--time S] [--seed N] [--procs P] [--threads T] [--calls N]
 *             [--only W] [--node PATH] [--ko PATH] [--progs DIR]
 *             [--maps DIR] [--ring N] [--epoch S] [--no-generic-frags]
 *             [--quiet]
 *
 * P processes of T threads each (default 4 x 2; the second one runs in a
 * network namespace of its own, the last drops to uid/gid 65534 without
 * capabilities when P >= 3) make random calls for S
 * seconds (default vmfuzz= on /proc/cmdline, else 60) against tapx: every
 * call kind of the op table below, with random and hostile arguments (bad,
 * kernel, unaligned, read-only and partly unmapped pointers, huge sizes),
 * on a shared set of device names so that processes collide. Odd-numbered
 * workers are data threads: only the calls that take no rtnl (I/O, batches,
 * io_uring, packet sends, map updates), so that frames keep flowing while
 * the even ones change devices under them. Every few
 * seconds (--epoch, default 15) the parent pauses the workers, they close
 * everything, tapx is removed and loaded again (random ring_size and napi).
 *
 * Worker w draws its calls from seed ^ f(w), and a call's arguments never
 * depend on what an earlier call returned, so the same --seed (and the same
 * --procs/--threads) makes every worker issue the same sequence of calls
 * again (the interleaving of workers differs); --only W runs only worker
 * W's sequence, single-threaded, for a deterministic replay; --calls N
 * stops every worker after N calls.
 *
 * It fails (exit 1) and prints the seed and every worker's last --ring
 * (default 32) calls when:
 *   - the kernel log (/dev/kmsg) shows a KASAN, lockdep, WARN, BUG,
 *     refcount, kmemleak, Oops, hung-task or RCU-stall report;
 *   - a call has not returned after --hang seconds (default 120: on the
 *     debug kernel under TCG an rtnl holder may take 10 s and several may
 *     queue; the watchdog prints the call's kernel stack, sysrq-w the
 *     blocked tasks);
 *   - a worker dies of a signal, tapx cannot be removed once every fd is
 *     closed, or cannot be loaded again.
 * A summary of calls per kind (with the errnos seen) is printed at the end.
 * --no-generic-frags attaches the single-buffer program where a generic
 * (XDP_FLAGS_SKB_MODE) attach drew the multi-buffer one: from 6.9 on,
 * generic XDP frees the fragments a tail cut releases with the wrong
 * memory type (stock tun.ko too: suite-pagepool.sh shows it).
 * Its verdict is one check of tapx-test.h, PASS or FAIL; --quiet leaves out
 * the epoch lines and, as in the other tools, a passing check's line.
 */
#include "fuzz.h"

/* ---- options ---- */

double opt_time = 60;
uint64_t opt_seed;
int have_seed;
int nprocs = 4;
int nthreads = 2;
int ring_n = 32;
int only = -1;
uint64_t max_calls;
static double epoch_s = 15;
const char *node = "/dev/net/tapx";
const char *ko = "/modules/tapx.ko";
const char *progdir = "/sys/fs/bpf/xf";
const char *mapdir = "/sys/fs/bpf/xfm";
const char *basicdir = "/sys/fs/bpf/xb";

static void usage(void)
{
	fprintf(stderr,
		"usage: tapx-fuzz [--time S] [--seed N] [--procs P] [--threads T]\n"
		"       [--calls N] [--only W] [--ring N] [--epoch S] [--hang S]\n"
		"       [--node PATH]\n"
		"       [--ko PATH] [--progs DIR] [--maps DIR] [--no-generic-frags]\n"
		"       [--quiet]\n");
	exit(2);
}

/* The defaults of --time and --seed: vmfuzz= and vmfuzzseed=. */
static void cmdline_defaults(void)
{
	char v[64];

	if (cmdline_value("vmfuzz", v, sizeof(v)))
		opt_time = atof(v);
	if (cmdline_value("vmfuzzseed", v, sizeof(v))) {
		opt_seed = strtoull(v, NULL, 0);
		have_seed = 1;
	}
}

/* The options, over the defaults of /proc/cmdline; usage() on a bad one. */
static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--quiet")) {
			quiet = 1;
			continue;
		}
		if (!strcmp(a, "--no-generic-frags")) {
			no_generic_frags = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--time"))
			opt_time = atof(v);
		else if (!strcmp(a, "--seed"))
			opt_seed = strtoull(v, NULL, 0), have_seed = 1;
		else if (!strcmp(a, "--procs"))
			nprocs = atoi(v);
		else if (!strcmp(a, "--threads"))
			nthreads = atoi(v);
		else if (!strcmp(a, "--calls"))
			max_calls = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--only"))
			only = atoi(v);
		else if (!strcmp(a, "--ring"))
			ring_n = atoi(v);
		else if (!strcmp(a, "--epoch"))
			epoch_s = atof(v);
		else if (!strcmp(a, "--hang"))
			HANG_NS = (int64_t)(atof(v) * 1e9);
		else if (!strcmp(a, "--node"))
			node = v;
		else if (!strcmp(a, "--ko"))
			ko = v;
		else if (!strcmp(a, "--progs"))
			progdir = v;
		else if (!strcmp(a, "--maps"))
			mapdir = v;
		else
			usage();
	}
	if (nprocs < 1 || nprocs > MAXP || nthreads < 1 || nthreads > MAXT ||
	    ring_n < 1 || ring_n > RINGMAX || only >= nprocs * nthreads)
		usage();
}

/* The state the workers share with the parent, and the kernel log read
 * from its end; 0, or -1 when there is no shared memory. */
static int shared_open(void)
{
	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED) {
		perror("fuzz: mmap");
		return -1;
	}
	memset(g, 0, sizeof(*g));
	g->netns_pid[0] = getpid();
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	else
		printf("fuzz: no /dev/kmsg (%s): kernel reports not watched\n",
		       strerror(errno));
	return 0;
}

static void workers_start(int64_t end)
{
	for (int i = 0; i < (only >= 0 ? 1 : nprocs); i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (kmsg >= 0)
				close(kmsg);
			proc_main(i, seed, end);
		}
	}
}

/*
 * Watches the workers until they end, with an epoch every epoch_s
 * seconds; 1 with why set when a check fails first: a kernel report, a
 * call that does not return, a worker that dies, an epoch that fails.
 */
static int workers_watch(int64_t start, int64_t end, int *epochs, char *why,
			 size_t whylen)
{
	int64_t next_epoch = epoch_s > 0 ? start + (int64_t)(epoch_s * 1e9) : INT64_MAX;

	for (;;) {
		int alive;

		usleep(50000);
		if (scan_kmsg()) {
			usleep(500000); /* the rest of the report */
			scan_kmsg();
			snprintf(why, whylen, "kernel report in the log");
			return 1;
		}
		if (check_hang()) {
			snprintf(why, whylen, "a call did not return (hang)");
			return 1;
		}
		alive = children_alive();
		if (alive < 0) {
			snprintf(why, whylen, "a worker process died");
			return 1;
		}
		if (!alive)
			return 0;
		if (now_ns() >= next_epoch && now_ns() < end - 3000000000LL) {
			if (do_epoch(++*epochs, why, whylen))
				return 1;
			next_epoch = now_ns() + (int64_t)(epoch_s * 1e9);
		}
	}
}

/* Waits for the workers after the end, a stuck one reported, not waited
 * for; the status, 1 once a check failed. */
static int workers_wait(int status)
{
	int64_t dl = now_ns() + HANG_NS;

	while (children_alive() > 0 && now_ns() < dl) {
		if (!status && check_hang()) {
			fail_report("a call did not return after the end");
			return 1;
		}
		usleep(50000);
	}
	if (children_alive() > 0 && !status) {
		fail_report("workers did not end");
		status = 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	int64_t start, end;
	int status, epochs = 0;
	char why[256] = "";

	cmdline_defaults();
	parse_args(argc, argv);
	unpriv = nprocs >= 3;
	seed = have_seed ? opt_seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("fuzz: seed %llu, %d processes x %d threads%s, %.0f s (replay: "
	       "vmfuzzseed=%llu or --seed %llu)\n",
	       (unsigned long long)seed, nprocs, nthreads,
	       only >= 0 ? " (one worker alone)" : "", opt_time,
	       (unsigned long long)seed, (unsigned long long)seed);
	if (shared_open())
		return 1;

	start = now_ns();
	end = start + (int64_t)(opt_time * 1e9);
	fflush(stdout);
	workers_start(end);
	status = workers_watch(start, end, &epochs, why, sizeof(why));
	g->stop = 1;
	if (status) {
		fail_report(why);
		for (int i = 0; i < nprocs; i++)
			if (pids[i])
				kill(pids[i], SIGKILL);
	}
	status = workers_wait(status);
	if (!status && scan_kmsg()) {
		usleep(500000);
		scan_kmsg();
		fail_report("kernel report in the log");
		status = 1;
	}
	summary();
	printf("fuzz: %d epochs (rmmod + insmod), %.0f s\n", epochs,
	       (now_ns() - start) / 1e9);
	if (!status)
		check(1, "fuzz: seed %llu, no kernel report, no hang",
		      (unsigned long long)seed);
	return status;
}
