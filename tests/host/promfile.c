// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * promfile - ta_prom_write_file() of user/lib/output/prom.h, called as the agent
 * calls it for `metrics textfile DIR`, so that the host suite can check
 * what it leaves in DIR.
 *
 *   promfile DIR
 *
 * Exit status as tap-accel's; the error on stderr.
 */
#include <stdio.h>

#include "user/lib/base/exit.h"
#include "user/lib/output/prom.h"
#include "user/lib/plane/plane.h"

int main(int argc, char **argv)
{
	struct ta_plane pl;
	struct ta_error e;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: promfile DIR\n");
		return EXIT_USER;
	}
	ret = ta_plane_open(&pl, TA_PLANE_READ, NULL, &e);
	if (!ret) {
		ret = ta_prom_write_file(argv[1], &pl, &e);
		ta_plane_close(&pl);
	}
	if (ret)
		fprintf(stderr, "promfile: %s\n", e.text);
	return !ret ? EXIT_OK : e.input ? EXIT_USER : EXIT_SYSTEM;
}
