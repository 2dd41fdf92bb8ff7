// SPDX-License-Identifier: GPL-2.0
/*
 * icount.so - a QEMU TCG plugin that counts the instructions the guest
 * executes, per vCPU, split into user and kernel space, and hands the
 * count of an interval back to the guest.
 *
 *   qemu-system-x86_64 ... -plugin file=icount.so,out=PIPE[,profile=FILE]
 *       -serial mon:stdio -serial pipe:BASE     (PIPE is BASE.in)
 *
 * The guest marks an interval with two long NOPs the plugin recognises
 * when it translates them (tests/vm/icount.h): "begin" takes the counts,
 * "end" writes the counts since "begin" as one line to PIPE, which QEMU
 * feeds to the guest's second serial port:
 *   icount TOTAL USER KERNEL USER0 KERNEL0 USER1 KERNEL1 ...
 * TOTAL is every vCPU's instructions in the interval (work the interval
 * caused on another vCPU, a softirq or a vhost worker, counts too). The
 * interval's own serial traffic lies outside it: the guest reads the line
 * after "end".
 * Counting is one callback per executed translation block, adding the
 * block's instruction count to the vCPU's own counter: no instruction
 * callback, no shared counter for two vCPUs to race on (QEMU 7.2's inline
 * add is one global, not atomic). A block left early by a fault counts
 * whole, and again from where it resumes.
 * profile=FILE: also counts, per translated block, its executions between
 * "begin" and "end", and at "end" appends to FILE a line "interval N"
 * (1, 2, ... in the order of the intervals) and "ADDR INSNS EXECUTIONS"
 * for every kernel block that ran, for a per-symbol profile against the
 * guest's symbols (tests/vm/icount-profile.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

#include "../../../user/bench/icount_proto.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char mark_begin[ICOUNT_MARK_LEN] = {ICOUNT_MARK_BEGIN_BYTES};
static const unsigned char mark_end[ICOUNT_MARK_LEN] = {ICOUNT_MARK_END_BYTES};

/* x86-64 kernel space: the upper half of the canonical addresses. */
#define KERNEL_BASE 0xffff800000000000ull

struct vcpu_count {
	uint64_t user, kernel;
	uint64_t begin_user, begin_kernel;
} __attribute__((aligned(64)));

struct block {
	uint64_t vaddr;
	uint32_t insns;
	bool kernel;
	atomic_uint_least64_t runs;
};

static struct vcpu_count *vcpus;
static int n_vcpus;
static int out_fd = -1;
static const char *profile_path;
/* Every translated block (profile only), for the dump at "end". */
static struct block **blocks;
static size_t n_blocks, blocks_room;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;

static void block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (b->kernel)
		vcpus[vcpu].kernel += b->insns;
	else
		vcpus[vcpu].user += b->insns;
}

static void block_exec_profiled(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	block_exec(vcpu, udata);
	atomic_fetch_add_explicit(&b->runs, 1, memory_order_relaxed);
}

static void profile_reset(void)
{
	pthread_mutex_lock(&blocks_lock);
	for (size_t i = 0; i < n_blocks; i++)
		atomic_store_explicit(&blocks[i]->runs, 0, memory_order_relaxed);
	pthread_mutex_unlock(&blocks_lock);
}

static void profile_write(void)
{
	static unsigned long interval;
	FILE *f = fopen(profile_path, "a");

	if (!f) {
		qemu_plugin_outs("icount: cannot write the profile\n");
		return;
	}
	fprintf(f, "interval %lu\n", ++interval);
	pthread_mutex_lock(&blocks_lock);
	for (size_t i = 0; i < n_blocks; i++) {
		struct block *b = blocks[i];
		uint64_t runs = atomic_load_explicit(&b->runs, memory_order_relaxed);

		if (b->kernel && runs)
			fprintf(f, "%016" PRIx64 " %u %" PRIu64 "\n", b->vaddr,
				b->insns, runs);
	}
	pthread_mutex_unlock(&blocks_lock);
	fclose(f);
}

static void begin(unsigned int vcpu, void *udata)
{
	for (int i = 0; i < n_vcpus; i++) {
		vcpus[i].begin_user = vcpus[i].user;
		vcpus[i].begin_kernel = vcpus[i].kernel;
	}
	if (profile_path)
		profile_reset();
}

static void end(unsigned int vcpu, void *udata)
{
	uint64_t user = 0, kernel = 0;
	char per[1024] = "", line[1200];
	size_t at = 0;
	int len;

	for (int i = 0; i < n_vcpus; i++) {
		uint64_t u = vcpus[i].user - vcpus[i].begin_user;
		uint64_t k = vcpus[i].kernel - vcpus[i].begin_kernel;

		user += u;
		kernel += k;
		if (at < sizeof(per))
			at += snprintf(per + at, sizeof(per) - at,
				       " %" PRIu64 " %" PRIu64, u, k);
	}
	len = snprintf(line, sizeof(line), "icount %" PRIu64 " %" PRIu64 " %" PRIu64 "%s\n",
		       user + kernel, user, kernel, per);
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	if (profile_path)
		profile_write();
	if (write(out_fd, line, len) != len)
		qemu_plugin_outs("icount: cannot write to the guest's port\n");
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	b->kernel = b->vaddr >= KERNEL_BASE;
	if (profile_path) {
		pthread_mutex_lock(&blocks_lock);
		if (n_blocks == blocks_room) {
			blocks_room = blocks_room ? 2 * blocks_room : 4096;
			blocks = realloc(blocks, blocks_room * sizeof(*blocks));
			if (!blocks)
				abort();
		}
		blocks[n_blocks++] = b;
		pthread_mutex_unlock(&blocks_lock);
	}
	/* A block translated again gets a new record: the old one stays,
	 * as QEMU may still run the old translation. */
	qemu_plugin_register_vcpu_tb_exec_cb(
		tb, profile_path ? block_exec_profiled : block_exec,
		QEMU_PLUGIN_CB_NO_REGS, b);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const unsigned char *p = qemu_plugin_insn_data(insn);

		if (qemu_plugin_insn_size(insn) != sizeof(mark_begin))
			continue;
		if (!memcmp(p, mark_begin, sizeof(mark_begin)))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (!memcmp(p, mark_end, sizeof(mark_end)))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, end, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *out = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = argv[i] + 4;
		} else if (!strncmp(argv[i], "profile=", 8)) {
			profile_path = argv[i] + 8;
		} else {
			fprintf(stderr, "icount: unknown argument '%s' (out=PIPE, profile=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "icount: x86_64 system emulation only\n");
		return -1;
	}
	if (!out) {
		fprintf(stderr, "icount: out=PIPE missing (the .in FIFO of the guest's counting serial port)\n");
		return -1;
	}
	/* Read and write: opening never waits for QEMU's end of the FIFO. */
	out_fd = open(out, O_RDWR | O_CLOEXEC);
	if (out_fd < 0) {
		fprintf(stderr, "icount: cannot open %s: %s\n", out, strerror(errno));
		return -1;
	}
	n_vcpus = info->system.max_vcpus;
	vcpus = aligned_alloc(64, n_vcpus * sizeof(*vcpus));
	if (!vcpus)
		return -1;
	memset(vcpus, 0, n_vcpus * sizeof(*vcpus));
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
