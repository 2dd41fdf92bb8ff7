// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* digest.c - the policy digest (digest.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "digest.h"
#include "print.h"

uint64_t ta_digest(const void *data, size_t len)
{
	const uint8_t *b = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The digest of what the policy says, not of how it is written: of its
 * canonical text (ta_policy_write), so that comments, blanks and spellings
 * (0x0800 or ipv4, 10mbit or 10000kbit) do not make a new version. */
int ta_policy_digest(struct ta_policy_spec *spec)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	ta_policy_write(f, spec);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	spec->digest = ta_digest(text, len);
	free(text);
	return 0;
}
