// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-icount - the guest's check of the instruction-counting plugin
 * (tests/vm/icount): a fixed workload between the plugin's markers.
 *   tapx-icount loop N    N rounds of a two-instruction user-space loop
 *   tapx-icount null N    N one-byte write()s to /dev/null
 * Prints: TOTAL USER KERNEL VCPU0 VCPU1 ... (instructions between the
 * markers: every vCPU's, user and kernel space, then each vCPU's)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icount.h"

int main(int argc, char **argv)
{
	struct icount c;
	long n;
	int fd;

	if (argc != 3 || (strcmp(argv[1], "loop") && strcmp(argv[1], "null")) ||
	    (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: tapx-icount loop|null N\n");
		return 2;
	}
	if (!icount_on()) {
		fprintf(stderr, "tapx-icount: no vmicount= port: QEMU runs without the plugin\n");
		return 1;
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("/dev/null");
		return 1;
	}
	icount_begin();
	if (argv[1][0] == 'l')
		__asm__ volatile("1: dec %0; jnz 1b" : "+r"(n));
	else
		for (long i = 0; i < n; i++)
			if (write(fd, "", 1) != 1)
				return 1;
	icount_end(&c);
	printf("%.0f %.0f %.0f", c.total, c.user, c.kernel);
	for (int i = 0; i < c.n_vcpus; i++)
		printf(" %.0f", c.vcpu_user[i] + c.vcpu_kernel[i]);
	printf("\n");
	return 0;
}
