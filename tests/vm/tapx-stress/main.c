// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress - random concurrent operations against tapx.ko, then exact
 * accounting on devices that live through the whole run.
 *
 *   tapx-stress [--time S] [--seed N] [--workers N] [--node PATH]
 *               [--progs DIR] [--portmap PIN]
 *   tapx-stress --probe-vnet   a checksum-offload frame passed to the stack
 *                              arrives whole (see probe_vnet)
 *
 * --time and --seed default to vmstress= and vmseed= on /proc/cmdline
 * (60 s; a seed from the clock, printed so that vmseed= replays the same
 * operation choices; interleavings between workers are not replayed).
 *
 * Devices:
 *   xs0 (IFF_NO_PI|IFF_VNET_HDR), xs1 (PI, the target of xdp_redirect:
 *   basic_ports[0] must name it) and xs2 (IFF_NO_PI) are made by the
 *   parent before the workers fork and share its fds. They are never
 *   deleted and never re-flagged during the run; xs0 and xs1 always have a
 *   program (only attach/replace), xs2 also sees detach.
 *   xc<w><s> are each worker's churn devices, xq<w> its multi-queue
 *   device: created, re-attached, deleted, closed at random.
 *
 * Every operation is classified ok / expected error / unexpected error;
 * any unexpected error, an operation kind that never succeeded (or never
 * failed as expected where it has an error case) and any counter that does
 * not add up print FAIL lines. Exit status 0 when all checks passed.
 * The run goes on past its planned time, up to twice it, until every kind
 * has shown its outcomes.
 */
#include "stress.h"

const char *node = "/dev/net/tapx";
const char *progdir = "/sys/fs/bpf/xb";
const char *portmap = "/sys/fs/bpf/xbm/basic_ports";
int nworkers = 4;
unsigned int features;
int prog_fd[4]; /* pass, drop, tx, redirect */
const char *const prog_name[4] = { "xdp_pass", "xdp_drop", "xdp_tx",
				   "xdp_redirect" };

/* The defaults of --time and --seed: vmstress= and vmseed=. */
static void cmdline_defaults(double *secs, uint64_t *seed, int *have_seed)
{
	char v[64];

	if (cmdline_value("vmstress", v, sizeof(v)))
		*secs = atof(v);
	if (cmdline_value("vmseed", v, sizeof(v))) {
		*seed = strtoull(v, NULL, 0);
		*have_seed = 1;
	}
}

int main(int argc, char **argv)
{
	double secs = 60, t0;
	uint64_t seed = 0;
	int have_seed = 0, i, w;
	struct wstats tot;
	pid_t pid[MAXW];

	check_prefix = "stress: ";
	uso = kernel_at_least(6, 2);
	cmdline_defaults(&secs, &seed, &have_seed);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--time") && i + 1 < argc)
			secs = atof(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
			have_seed = 1;
		} else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
			nworkers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--node") && i + 1 < argc)
			node = argv[++i];
		else if (!strcmp(argv[i], "--progs") && i + 1 < argc)
			progdir = argv[++i];
		else if (!strcmp(argv[i], "--probe-vnet"))
			return probe_vnet();
		else if (!strcmp(argv[i], "--portmap") && i + 1 < argc)
			portmap = argv[++i];
		else {
			fprintf(stderr, "usage: tapx-stress [--time S] [--seed N] "
					"[--workers N] [--node PATH] [--progs DIR] "
					"[--portmap PIN]\n");
			return 2;
		}
	}
	if (nworkers < 1 || nworkers > MAXW)
		nworkers = 4;
	if (!have_seed)
		seed = ((uint64_t)time(NULL) << 20) ^ getpid();
	printf("stress: seed %llu (replay with vmseed=%llu), %g s, %d workers\n",
	       (unsigned long long)seed, (unsigned long long)seed, secs,
	       nworkers);
	fflush(stdout);
	rng = seed ? seed : 1;

	/* Unmapped for 128 KiB: no write or read there can succeed. */
	bad_user = mmap(NULL, 1 << 17, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pool = malloc(POOL);
	rbuf = malloc(MAXT + 64);
	/* Forked workers each get their own copy (private mapping). */
	bbuf = mmap(NULL, BATCH_ROOM + 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bdesc = calloc(TAPX_BATCH_MAX + 1, sizeof(*bdesc));
	if (bbuf == MAP_FAILED || !bdesc)
		return 1;
	munmap(bbuf + BATCH_ROOM, 4096);
	if (bad_user == MAP_FAILED || sh == MAP_FAILED || !pool || !rbuf)
		return 1;
	munmap(bad_user, 1 << 17);
	for (i = 0; i < POOL; i++)
		pool[i] = rnd() >> 56;
	i = setup();
	check(!i, "setup: xs0 xs1 xs2 with programs, basic_ports[0] = xs1");
	if (failures)
		return 1;
	printf("stress: multi-queue %s (TUNGETFEATURES 0x%x)\n",
	       features & IFF_MULTI_QUEUE ? "advertised" : "NOT advertised",
	       features);

	t0 = now();
	for (w = 0; w < nworkers; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			worker(w, seed, t0 + secs, t0 + 2 * secs);
	}
	reap(pid, t0 + 2 * secs + 60);
	printf("stress: workers done after %.1f s (planned %g s, longer until "
	       "every kind showed its outcomes, at most %g s)\n",
	       now() - t0, secs, 2 * secs);

	/* Quiescent: every writer and reader is gone. */
	memset(&tot, 0, sizeof(tot));
	for (w = 0; w < nworkers; w++) {
		for (i = 0; i < NR_OPS; i++) {
			tot.ok[i] += sh->w[w].ok[i];
			tot.exp[i] += sh->w[w].exp[i];
			tot.unexp[i] += sh->w[w].unexp[i];
		}
		for (i = 0; i < NSTABLE; i++) {
			struct sacct *a = &sh->w[w].s[i], *b = &tot.s[i];

			b->w_ok += a->w_ok;
			b->w_einval += a->w_einval;
			b->w_efault_meta += a->w_efault_meta;
			b->w_efault_fill += a->w_efault_fill;
			b->w_vfs += a->w_vfs;
			b->w_gap += a->w_gap;
			b->r_ok += a->r_ok;
			b->r_consumed += a->r_consumed;
			b->b_ok += a->b_ok;
			b->b_einval += a->b_einval;
			b->b_stop += a->b_stop;
			b->b_recv += a->b_recv;
		}
		tot.bytes_written += sh->w[w].bytes_written;
	}
	print_table(&tot);
	printf("stress: %llu bytes accepted by the stable devices\n",
	       (unsigned long long)tot.bytes_written);
	for (i = 0; i < NR_OPS; i++) {
		if (tot.unexp[i])
			check(0, "%s: %llu unexpected outcomes", op_name[i],
			      (unsigned long long)tot.unexp[i]);
		if (!op_only_fails(i) && !tot.ok[i])
			check(0, "%s: never succeeded%s", op_name[i],
			      i == OP_QUEUE && !(features & IFF_MULTI_QUEUE) ?
				      " (tapx does not advertise IFF_MULTI_QUEUE)" :
				      "");
		if (!op_never_fails(i) && !tot.exp[i])
			check(0, "%s: never failed as expected", op_name[i]);
	}
	check(!tot.unexp[0] && !tot.unexp[1], "stable writes and reads as predicted");
	account(&tot);
	cleanup();
	printf("stress: %d failed checks\n", failures);
	return failures ? 1 : 0;
}
