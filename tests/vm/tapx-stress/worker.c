// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress's workers: which operation next, and the loop.
 */
#include "stress.h"

/* A kind is covered once it has shown each outcome it must show. */
static int op_covered(int op)
{
	uint64_t ok = 0, exp = 0;
	int w;

	for (w = 0; w < nworkers; w++) {
		ok += sh->w[w].ok[op];
		exp += sh->w[w].exp[op];
	}
	return (op_only_fails(op) || ok) && (op_never_fails(op) || exp);
}

static int all_covered(void)
{
	int op;

	for (op = 0; op < NR_OPS; op++)
		if (!op_covered(op))
			return 0;
	return 1;
}

/*
 * After the planned time, half the picks go to the kinds not yet covered:
 * on a slow (debug) kernel a rare outcome, such as a read on a churned
 * device finding a frame, may not have come up yet.
 */
static int pick_uncovered(void)
{
	int op, n = 0, uncovered[NR_OPS];

	for (op = 0; op < NR_OPS; op++)
		if (!op_covered(op))
			uncovered[n++] = op;
	return n ? uncovered[rn(n)] : -1;
}

static int pick_op(int overtime)
{
	static int total;
	int i, r;

	if (overtime && rn(2)) {
		r = pick_uncovered();
		if (r >= 0)
			return r;
	}
	if (!total)
		for (i = 0; i < NR_OPS; i++)
			total += op_weight[i];
	r = rn(total);
	for (i = 0; i < NR_OPS; i++) {
		if (r < op_weight[i])
			return i;
		r -= op_weight[i];
	}
	return 0;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void worker(int w, uint64_t seed, double end, double hard_end)
{
	struct sigaction sa = { .sa_handler = alarm_wake };
	int s;

	worker_id = w;
	me = &sh->w[w];
	close(nl_fd);
	nl_fd = -1;
	rng = seed ^ (0x9e3779b97f4a7c15ULL * (w + 1));
	if (!rng)
		rng = 1;
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: reads get EINTR */
	for (s = 0; s < NSLOT; s++) {
		slots[s].fd = -1;
		churn_name(slots[s].name, w, s);
	}
	snprintf(mq_name, sizeof(mq_name), "xq%d", w);
	scratch_fd = node_open(1);
	wbuf = malloc(MAXT + 64);
	rbuf = malloc(MAXT + 64);
	for (;;) {
		double t = now();
		int op;

		if (t >= hard_end || (t >= end && all_covered()))
			break;
		op = pick_op(t >= end);

		switch (op) {
		case OP_WRITE_S:
			op_write_stable();
			break;
		case OP_READ_S:
			op_read_stable();
			break;
		case OP_WRITE_C:
			op_write_churn();
			break;
		case OP_READ_C:
			op_read_churn();
			break;
		case OP_SETIFF:
			op_setiff();
			break;
		case OP_GETIFF:
			op_getiff();
			break;
		case OP_GETTERS:
			op_getters();
			break;
		case OP_BADIOCTL:
			op_badioctl();
			break;
		case OP_XDP:
			op_xdp();
			break;
		case OP_QUEUE:
			op_queue();
			break;
		case OP_LINK:
			op_link();
			break;
		case OP_DELLINK:
			op_dellink();
			break;
		case OP_CLOSE:
			op_close();
			break;
		case OP_RMMOD:
			op_rmmod();
			break;
		case OP_SUBMIT_S:
			op_submit_stable();
			break;
		case OP_RECV_S:
			op_recv_stable();
			break;
		case OP_FILTER:
			op_filter();
			break;
		default:
			op_dev_ioctl(op);
			break;
		}
	}
	for (s = 0; s < NSLOT; s++)
		slot_close(&slots[s]);
	if (mq_fd[0] >= 0) {
		close(mq_fd[0]);
		close(mq_fd[1]);
	}
	close(scratch_fd);
	_exit(0);
}
