/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pattern.h - the interface name patterns of the agent's bindings
 * (docs/agent.md): shell globs (`*` any run of characters, `?` one, `[...]`
 * one of a set, `\c` the character c) and captures, `{NAME}` a run of one
 * or more characters that the binding's policy name can use.
 */
#ifndef TA_AGENT_PATTERN_H
#define TA_AGENT_PATTERN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PATTERN_MAX_CAPTURES 8
#define PATTERN_NAME_LEN 32 /* of a capture's name, with its NUL */

struct name_pattern {
	char *text; /* as written */
	uint32_t nr_captures;
	char captures[PATTERN_MAX_CAPTURES][PATTERN_NAME_LEN]; /* in the order written */
};

/* What a match captured, by the pattern's capture order. */
struct captures {
	char value[PATTERN_MAX_CAPTURES][IF_NAMESIZE];
};

/*
 * Compile the `len` bytes of `text` into `p`: 0, or -EINVAL with *at the
 * offset in `text` of what is wrong and why in `why`. p->text is the
 * caller's to free (pattern_free()).
 */
int pattern_compile(const char *text, size_t len, struct name_pattern *p, size_t *at,
		    char *why, size_t why_size);
void pattern_free(struct name_pattern *p);

/* Whether `name` matches; each capture takes the shortest run with which
 * the rest matches, from the left. */
bool pattern_match(const struct name_pattern *p, const char *name, struct captures *c);

/* The index of capture `name` (`len` bytes) in p, or -1. */
int pattern_capture_index(const struct name_pattern *p, const char *name, size_t len);

/*
 * `tmpl` with every {NAME} replaced by what it captured, into out: 0,
 * -ENOENT (a capture the pattern does not have) or -ENAMETOOLONG. With
 * c NULL, every capture is replaced by "x": what a template gives at the
 * least, for checking it.
 */
int pattern_expand(const struct name_pattern *p, const struct captures *c, const char *tmpl,
		   char *out, size_t size);

#endif /* TA_AGENT_PATTERN_H */
