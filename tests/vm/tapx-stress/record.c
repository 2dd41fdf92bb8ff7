// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress's operation kinds, the outcome of every operation,
 * the stable devices and the workers' generator.
 */
#include "stress.h"

char *bad_user;

const char *const op_name[NR_OPS] = {
	"write_stable", "read_stable", "write_churn", "read_churn",
	"TUNSETIFF",    "TUNGETIFF",   "TUNSETPERSIST", "TUNSETOWNER",
	"TUNSETGROUP",  "TUNSETVNETHDRSZ", "TUNSETOFFLOAD", "TUNSETSNDBUF",
	"TUNSETVNETLE", "TUNSETVNETBE", "TUNSETCARRIER", "getters",
	"bad_ioctl",    "xdp",         "queue",       "link_updown",
	"dellink",      "close",       "rmmod",       "TAPXSUBMIT_stable",
	"TAPXRECV_stable", "filters",
};

/* Relative frequencies. */
const int op_weight[NR_OPS] = {
	[OP_WRITE_S] = 40, [OP_READ_S] = 20,   [OP_WRITE_C] = 12,
	[OP_READ_C] = 6,   [OP_SETIFF] = 8,    [OP_GETIFF] = 2,
	[OP_PERSIST] = 3,  [OP_OWNER] = 2,     [OP_GROUP] = 2,
	[OP_VNETHDRSZ] = 2, [OP_OFFLOAD] = 2,  [OP_SNDBUF] = 2,
	[OP_VNETLE] = 2,   [OP_VNETBE] = 2,    [OP_CARRIER] = 2,
	[OP_GETTERS] = 2,  [OP_BADIOCTL] = 3,  [OP_XDP] = 6,
	[OP_QUEUE] = 4,    [OP_LINK] = 3,      [OP_DELLINK] = 3,
	[OP_CLOSE] = 2,    [OP_RMMOD] = 1,     [OP_SUBMIT_S] = 12,
	[OP_RECV_S] = 8,   [OP_FILTER] = 3,
};

/* Kinds that must never succeed during the run. */
int op_only_fails(int op)
{
	return op == OP_RMMOD || op == OP_BADIOCTL;
}

/* Kinds that have no error case to see. */
int op_never_fails(int op)
{
	return op == OP_CLOSE;
}

struct shared *sh;
struct wstats *me;
int worker_id;

struct stable st[NSTABLE] = {
	{ "xs0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 0, -1, VNET_SZ },
	{ "xs1", IFF_TAP, 0, -1, PI_SZ },
	{ "xs2", IFF_TAP | IFF_NO_PI, 1, -1, 0 },
};

/* xorshift64*: small, seedable, good enough to pick operations. */
uint64_t rng;
uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

/*
 * Records one outcome. err is 0 on success, else the errno; exp lists the
 * errnos this call may return (0-terminated). An unexpected one is printed
 * (first few per worker) with its context.
 */
void outcome(int op, int err, const int *exp, const char *ctx)
{
	int i;

	if (!err) {
		if (op_only_fails(op))
			goto unexpected;
		me->ok[op]++;
		return;
	}
	for (i = 0; exp && exp[i]; i++) {
		if (exp[i] == err) {
			me->exp[op]++;
			return;
		}
	}
unexpected:
	me->unexp[op]++;
	if (me->nreports++ < 8)
		fprintf(stderr, "stress: worker %d: %s (%s): unexpected %s\n",
			worker_id, op_name[op], ctx,
			err ? strerror(err) : "success");
}
