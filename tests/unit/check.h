/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* check.h - the smallest test harness: count checks, print failures, end
 * with "N passed, N failed". */
#ifndef TA_CHECK_H
#define TA_CHECK_H

#include <stdio.h>

static int checks_passed, checks_failed;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (cond) {                                                   \
			checks_passed++;                                      \
		} else {                                                      \
			checks_failed++;                                      \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                  \
			printf("\n");                                         \
		}                                                             \
	} while (0)

static inline int check_report(void)
{
	printf("%d passed, %d failed\n", checks_passed, checks_failed);
	return checks_failed ? 1 : 0;
}

#endif /* TA_CHECK_H */
