// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pattern.c - interface name patterns with captures (pattern.h). Names are
 * at most 15 characters, so the backtracking match stays small whatever
 * the pattern.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Where the set starting at `set` ('[') ends: the character after its
 * ']', or NULL if it is not closed. A ']' first in the set is one of it. */
static const char *set_end(const char *set)
{
	const char *c = set + 1;

	if (*c == '!' || *c == '^')
		c++;
	if (*c == ']')
		c++;
	while (*c && *c != ']')
		c++;
	return *c ? c + 1 : NULL;
}

/* Whether `ch` is in the set [...] that starts at `set`. */
static bool set_has(const char *set, char ch)
{
	const char *c = set + 1, *end = set_end(set) - 1;
	bool negated = *c == '!' || *c == '^', in = false;

	if (negated)
		c++;
	for (bool first = true; c < end; c++, first = false) {
		if (*c == ']' && !first)
			break;
		if (c + 2 < end && c[1] == '-') {
			in |= ch >= c[0] && ch <= c[2];
			c += 2;
		} else {
			in |= ch == *c;
		}
	}
	return in != negated;
}

static int compile_fail(size_t *at, size_t where, char *why, size_t size, const char *msg)
{
	*at = where;
	snprintf(why, size, "%s", msg);
	return -EINVAL;
}

/* A capture "{NAME}" at text[i]: its name into p. The length of it all,
 * or -EINVAL. */
static int compile_capture(const char *text, size_t i, struct name_pattern *p, size_t *at,
			   char *why, size_t size)
{
	size_t n = 0;

	while (is_name_char(text[i + 1 + n]))
		n++;
	if (text[i + 1 + n] != '}' || !n)
		return compile_fail(at, i, why, size,
				    "expected {NAME} (letters, digits, '_') for a capture; "
				    "write \\{ for the character");
	if (n >= PATTERN_NAME_LEN)
		return compile_fail(at, i, why, size, "capture name too long (at most 31 characters)");
	if (p->nr_captures == PATTERN_MAX_CAPTURES)
		return compile_fail(at, i, why, size, "too many captures (at most 8)");
	if (pattern_capture_index(p, text + i + 1, n) >= 0)
		return compile_fail(at, i, why, size, "capture given twice in one pattern");
	memcpy(p->captures[p->nr_captures], text + i + 1, n);
	p->captures[p->nr_captures++][n] = 0;
	return (int)n + 2;
}

/* What is wrong with the pattern at text[i], if anything: NULL, or why.
 * *skip: the characters after i that belong to this element. */
static const char *element_check(const char *text, size_t i, size_t len, size_t *skip)
{
	const char *end;

	*skip = 0;
	switch (text[i]) {
	case '[':
		end = set_end(text + i);
		if (!end)
			return "expected ']' to close the set";
		*skip = end - text - i - 1;
		return NULL;
	case '}':
		return "a '}' without its '{'; write \\} for the character";
	case '\\':
		if (i + 1 == len)
			return "expected a character after '\\'";
		*skip = 1;
		return NULL;
	case '/':
	case ':':
		return "no interface name holds '/' or ':'";
	}
	return NULL;
}

int pattern_compile(const char *text, size_t len, struct name_pattern *p, size_t *at,
		    char *why, size_t size)
{
	const char *wrong;
	size_t skip;
	int n;

	memset(p, 0, sizeof(*p));
	p->text = strndup(text, len);
	if (!p->text)
		return compile_fail(at, 0, why, size, "out of memory");
	for (size_t i = 0; i < len; i += skip + 1) {
		if (text[i] == '{') {
			n = compile_capture(p->text, i, p, at, why, size);
			if (n < 0)
				goto fail;
			skip = n - 1;
			continue;
		}
		wrong = element_check(p->text, i, len, &skip);
		if (wrong) {
			compile_fail(at, i, why, size, wrong);
			goto fail;
		}
	}
	return 0;
fail:
	pattern_free(p);
	return -EINVAL;
}

void pattern_free(struct name_pattern *p)
{
	free(p->text);
	p->text = NULL;
}

int pattern_capture_index(const struct name_pattern *p, const char *name, size_t len)
{
	for (uint32_t i = 0; i < p->nr_captures; i++)
		if (strlen(p->captures[i]) == len && !memcmp(p->captures[i], name, len))
			return (int)i;
	return -1;
}

/* pat against s; `capture` is the index of the next {NAME} in pat. */
static bool match_from(const char *pat, const char *s, uint32_t capture, struct captures *c)
{
	for (;;) {
		switch (*pat) {
		case 0:
			return !*s;
		case '*':
			for (const char *t = s;; t++) {
				if (match_from(pat + 1, t, capture, c))
					return true;
				if (!*t)
					return false;
			}
		case '?':
			if (!*s)
				return false;
			break;
		case '[':
			if (!*s || !set_has(pat, *s))
				return false;
			pat = set_end(pat) - 1;
			break;
		case '{':
			pat = strchr(pat, '}') + 1;
			/* the shortest run first */
			for (size_t n = 1; n <= strlen(s); n++) {
				if (!match_from(pat, s + n, capture + 1, c))
					continue;
				if (c)
					snprintf(c->value[capture], IF_NAMESIZE, "%.*s", (int)n, s);
				return true;
			}
			return false;
		case '\\':
			pat++; /* the character after it, as it is */
			if (*s != *pat)
				return false;
			break;
		default:
			if (*s != *pat)
				return false;
		}
		pat++;
		s++;
	}
}

bool pattern_match(const struct name_pattern *p, const char *name, struct captures *c)
{
	return match_from(p->text, name, 0, c);
}

/* Append n bytes of `text` to out (of `size`, *len used): 0 or -ENAMETOOLONG. */
static int append(char *out, size_t size, size_t *len, const char *text, size_t n)
{
	if (*len + n >= size)
		return -ENAMETOOLONG;
	memcpy(out + *len, text, n);
	*len += n;
	out[*len] = 0;
	return 0;
}

int pattern_expand(const struct name_pattern *p, const struct captures *c, const char *tmpl,
		   char *out, size_t size)
{
	const char *close;
	size_t len = 0;
	int i, err = size ? 0 : -ENAMETOOLONG;

	if (size)
		out[0] = 0;
	for (const char *t = tmpl; *t && !err; t++) {
		if (*t != '{') {
			err = append(out, size, &len, t, 1);
			continue;
		}
		close = strchr(t, '}');
		i = close ? pattern_capture_index(p, t + 1, close - t - 1) : -1;
		if (i < 0)
			return -ENOENT;
		err = c ? append(out, size, &len, c->value[i], strlen(c->value[i]))
			: append(out, size, &len, "x", 1);
		t = close;
	}
	return err;
}
