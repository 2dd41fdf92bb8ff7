/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * icount_proto.h - the protocol of QEMU's instruction counter
 * (tests/vm/icount/icount.c, a TCG plugin), in one place for the plugin,
 * the test tools (tests/vm/icount.h) and tap-accel-bench (icount.c).
 *
 * The guest marks an interval with two long NOPs whose displacement the
 * plugin recognises when it translates them; after "end" the plugin writes
 * one line to the guest's serial port the kernel argument vmicount= names:
 *   icount TOTAL USER KERNEL USER0 KERNEL0 USER1 KERNEL1 ...
 * (the interval's instructions, every vCPU's, then each vCPU's).
 */
#ifndef TA_ICOUNT_PROTO_H
#define TA_ICOUNT_PROTO_H

#include <stdio.h>
#include <string.h>

/* nopl 0x4e42434e(%rax) / nopl 0x4e45434e(%rax): "NCBN", "NCEN". */
#define ICOUNT_MARK_BEGIN_BYTES 0x0f, 0x1f, 0x80, 'N', 'C', 'B', 'N'
#define ICOUNT_MARK_END_BYTES 0x0f, 0x1f, 0x80, 'N', 'C', 'E', 'N'
#define ICOUNT_MARK_LEN 7

#define ICOUNT_VCPUS 16

struct icount {
	double total, user, kernel;
	double vcpu_user[ICOUNT_VCPUS], vcpu_kernel[ICOUNT_VCPUS];
	int n_vcpus;
};

#ifdef __x86_64__
static inline void icount_mark_begin(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 'N', 'C', 'B', 'N'" ::: "memory");
}

static inline void icount_mark_end(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 'N', 'C', 'E', 'N'" ::: "memory");
}
#endif

/* The plugin's answer line into c: 0, or -1 if it is not one. */
static inline int icount_parse(const char *line, struct icount *c)
{
	const char *p;
	int n = 0;

	memset(c, 0, sizeof(*c));
	if (sscanf(line, "icount %lf %lf %lf%n", &c->total, &c->user,
		   &c->kernel, &n) != 3)
		return -1;
	for (p = line + n; c->n_vcpus < ICOUNT_VCPUS; p += n)
		if (sscanf(p, " %lf %lf%n", &c->vcpu_user[c->n_vcpus],
			   &c->vcpu_kernel[c->n_vcpus], &n) == 2)
			c->n_vcpus++;
		else
			break;
	return 0;
}

/* The instructions of vCPU cpu in c, or every vCPU's where cpu < 0; with
 * kernel_only, kernel space's alone (a cell whose user space waits by
 * spinning would count its waiting). -1 if c has no such vCPU. */
static inline double icount_of(const struct icount *c, int cpu, int kernel_only)
{
	if (cpu < 0)
		return kernel_only ? c->kernel : c->total;
	if (cpu >= c->n_vcpus)
		return -1;
	return c->vcpu_kernel[cpu] + (kernel_only ? 0 : c->vcpu_user[cpu]);
}

#endif /* TA_ICOUNT_PROTO_H */
