// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * json_read.c - a strict JSON reader: recursive descent over the text,
 * bounded in depth, every error placed by line and column.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"

struct reader {
	const char *name;
	const char *p, *end;
	const char *line_start;
	int line;
	struct ta_error *e;
};

static int col_of(const struct reader *r, const char *at)
{
	return (int)(at - r->line_start) + 1;
}

/* What is at `at`, for messages: "'x'", "end of file" or "byte 0xNN". */
static const char *got(const struct reader *r, const char *at, char *buf, size_t size)
{
	unsigned char c;

	if (at >= r->end)
		return "end of file";
	c = (unsigned char)*at;
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
	return buf;
}

static int fail_at(struct reader *r, const char *at, const char *what)
{
	char buf[16];

	return ta_error_input_at(r->e, EINVAL, "%s:%d:%d: expected %s, got %s", r->name, r->line,
				 col_of(r, at), what, got(r, at, buf, sizeof(buf)));
}

static void skip_blanks(struct reader *r)
{
	while (r->p < r->end) {
		char c = *r->p;

		if (c == '\n') {
			r->line++;
			r->line_start = r->p + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		r->p++;
	}
}

static int parse_value(struct reader *r, struct ta_json *v, int depth);

static int literal(struct reader *r, struct ta_json *v, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return fail_at(r, r->p, "a JSON value (object, array, string, number, true, false or null)");
	r->p += n;
	if (word[0] != 'n') {
		v->type = TA_JSON_BOOL;
		v->boolean = word[0] == 't';
	}
	return 0;
}

static bool is_digit(const struct reader *r, const char *p)
{
	return p < r->end && *p >= '0' && *p <= '9';
}

/* RFC 8259 6: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct reader *r, struct ta_json *v)
{
	const char *start = r->p, *p = r->p;

	if (p < r->end && *p == '-')
		p++;
	if (!is_digit(r, p))
		return fail_at(r, p, "a digit");
	if (*p == '0' && is_digit(r, p + 1))
		return fail_at(r, p + 1, "no leading zero in a number");
	while (is_digit(r, p))
		p++;
	if (p < r->end && *p == '.') {
		if (!is_digit(r, ++p))
			return fail_at(r, p, "a digit after '.'");
		while (is_digit(r, p))
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (!is_digit(r, p))
			return fail_at(r, p, "a digit in the exponent");
		while (is_digit(r, p))
			p++;
	}
	v->type = TA_JSON_NUMBER;
	v->str = strndup(start, (size_t)(p - start));
	if (!v->str)
		return ta_error_errno(r->e, ENOMEM, "cannot read %s", r->name);
	r->p = p;
	return 0;
}

static int hex4(struct reader *r, const char *p, unsigned int *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++, p++) {
		char c = p < r->end ? *p : 0;
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return fail_at(r, p, "4 hex digits after '\\u'");
		*u = *u << 4 | d;
	}
	return 0;
}

static size_t put_utf8(char *out, unsigned int u)
{
	if (u < 0x80) {
		out[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		out[0] = (char)(0xc0 | u >> 6);
		out[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		out[0] = (char)(0xe0 | u >> 12);
		out[1] = (char)(0x80 | (u >> 6 & 0x3f));
		out[2] = (char)(0x80 | (u & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | u >> 18);
	out[1] = (char)(0x80 | (u >> 12 & 0x3f));
	out[2] = (char)(0x80 | (u >> 6 & 0x3f));
	out[3] = (char)(0x80 | (u & 0x3f));
	return 4;
}

/* \uXXXX at r->p (after the backslash's 'u'), with its low surrogate when
 * it is a high one; the code point in *u. */
static int unicode_escape(struct reader *r, unsigned int *u)
{
	unsigned int lo;
	const char *at = r->p - 2;

	if (hex4(r, r->p, u))
		return -EINVAL;
	r->p += 4;
	if (*u == 0)
		return ta_error_input_at(r->e, EINVAL,
					 "%s:%d:%d: expected a character other than NUL (\\u0000) in a string",
					 r->name, r->line, col_of(r, at));
	if (*u >= 0xdc00 && *u <= 0xdfff)
		return ta_error_input_at(r->e, EINVAL,
					 "%s:%d:%d: expected a high surrogate before the low surrogate \\u%04x",
					 r->name, r->line, col_of(r, at), *u);
	if (*u < 0xd800 || *u > 0xdbff)
		return 0;
	if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u' || hex4(r, r->p + 2, &lo) ||
	    lo < 0xdc00 || lo > 0xdfff)
		return ta_error_input_at(r->e, EINVAL,
					 "%s:%d:%d: expected a low surrogate (\\udc00..\\udfff) after the high surrogate \\u%04x",
					 r->name, r->line, col_of(r, r->p), *u);
	r->p += 6;
	*u = 0x10000 + ((*u - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, no surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned int c = p[0], min, u;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, u = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, u = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, u = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		u = u << 6 | (p[i] & 0x3f);
	}
	if (u < min || u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
		return 0;
	return n;
}

static int escape(struct reader *r, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *c = r->p < r->end ? strchr(from, *r->p) : NULL;
	unsigned int u;

	if (c && *c) {
		out[(*n)++] = to[c - from];
		r->p++;
		return 0;
	}
	if (r->p >= r->end || *r->p != 'u')
		return fail_at(r, r->p, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) after '\\'");
	r->p++;
	if (unicode_escape(r, &u))
		return -EINVAL;
	*n += put_utf8(out + *n, u);
	return 0;
}

/* A string at r->p (its opening quote), decoded into a new buffer: the
 * decoded text is never longer than the escaped one. */
static int parse_string(struct reader *r, char **s)
{
	const char *start = ++r->p;
	char *out;
	size_t n = 0;

	while (r->p < r->end && *r->p != '"')
		r->p += *r->p == '\\' && r->p + 1 < r->end ? 2 : 1;
	if (r->p >= r->end)
		return fail_at(r, r->p, "'\"' to end the string");
	out = malloc((size_t)(r->p - start) + 1);
	if (!out)
		return ta_error_errno(r->e, ENOMEM, "cannot read %s", r->name);
	r->p = start;
	while (*r->p != '"') {
		unsigned char c = (unsigned char)*r->p;
		size_t len;

		if (c == '\\') {
			r->p++;
			if (escape(r, out, &n))
				goto fail;
		} else if (c < 0x20) {
			fail_at(r, r->p, "a character (control bytes are written \\n, \\t, \\u00XX in a string)");
			goto fail;
		} else if (c < 0x80) {
			out[n++] = (char)c;
			r->p++;
		} else if ((len = utf8_len((const unsigned char *)r->p, (const unsigned char *)r->end))) {
			memcpy(out + n, r->p, len);
			n += len;
			r->p += len;
		} else {
			fail_at(r, r->p, "UTF-8 text in a string");
			goto fail;
		}
	}
	r->p++;
	out[n] = 0;
	*s = out;
	return 0;
fail:
	free(out);
	return -EINVAL;
}

static int grow(struct ta_json *v, size_t *cap, bool keys)
{
	size_t n = *cap ? *cap * 2 : 8;
	void *a;

	if (v->nr_items < *cap)
		return 0;
	a = realloc(v->items, n * sizeof(*v->items));
	if (!a)
		return -ENOMEM;
	v->items = a;
	if (keys) {
		a = realloc(v->keys, n * sizeof(*v->keys));
		if (!a)
			return -ENOMEM;
		v->keys = a;
	}
	*cap = n;
	return 0;
}

static int parse_key(struct reader *r, struct ta_json *obj, char **key)
{
	const char *at = r->p;

	if (r->p >= r->end || *r->p != '"')
		return fail_at(r, r->p, "a key (a string in double quotes)");
	if (parse_string(r, key))
		return -EINVAL;
	if (ta_json_get(obj, *key)) {
		ta_error_input_at(r->e, EINVAL, "%s:%d:%d: expected each key once in an object, got \"%s\" again",
				  r->name, r->line, col_of(r, at), *key);
		free(*key);
		return -EINVAL;
	}
	skip_blanks(r);
	if (r->p >= r->end || *r->p != ':') {
		free(*key);
		return fail_at(r, r->p, "':' after the key");
	}
	r->p++;
	return 0;
}

/* An array or object at r->p (its opening bracket). */
static int parse_items(struct reader *r, struct ta_json *v, int depth)
{
	bool object = *r->p == '{';
	char close = object ? '}' : ']';
	size_t cap = 0;

	v->type = object ? TA_JSON_OBJECT : TA_JSON_ARRAY;
	if (depth >= TA_JSON_MAX_DEPTH)
		return ta_error_input_at(r->e, EINVAL,
					 "%s:%d:%d: expected at most %d nested arrays and objects, got more",
					 r->name, r->line, col_of(r, r->p), TA_JSON_MAX_DEPTH);
	r->p++;
	skip_blanks(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		skip_blanks(r);
		if (object && parse_key(r, v, &key))
			return -EINVAL;
		if (grow(v, &cap, object)) {
			free(key);
			return ta_error_errno(r->e, ENOMEM, "cannot read %s", r->name);
		}
		if (object)
			v->keys[v->nr_items] = key;
		memset(&v->items[v->nr_items], 0, sizeof(*v->items));
		v->nr_items++;
		if (parse_value(r, &v->items[v->nr_items - 1], depth + 1))
			return -EINVAL;
		skip_blanks(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return 0;
		}
		return fail_at(r, r->p, object ? "',' or '}' after a value in an object"
					       : "',' or ']' after a value in an array");
	}
}

static int parse_value(struct reader *r, struct ta_json *v, int depth)
{
	skip_blanks(r);
	v->line = r->line;
	v->col = col_of(r, r->p);
	if (r->p >= r->end)
		return fail_at(r, r->p, "a JSON value");
	switch (*r->p) {
	case '{':
	case '[':
		return parse_items(r, v, depth);
	case '"':
		v->type = TA_JSON_STRING;
		return parse_string(r, &v->str);
	case 't':
		return literal(r, v, "true");
	case 'f':
		return literal(r, v, "false");
	case 'n':
		return literal(r, v, "null");
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
			return parse_number(r, v);
		return fail_at(r, r->p, "a JSON value (object, array, string, number, true, false or null)");
	}
}

int ta_json_parse(const char *text, size_t len, const char *name, struct ta_json *root,
		  struct ta_error *e)
{
	struct reader r = {
		.name = name, .p = text, .end = text + len, .line_start = text, .line = 1, .e = e,
	};

	memset(root, 0, sizeof(*root));
	if (parse_value(&r, root, 0))
		goto fail;
	skip_blanks(&r);
	if (r.p < r.end) {
		fail_at(&r, r.p, "end of file after the JSON value");
		goto fail;
	}
	return 0;
fail:
	ta_json_free(root);
	return -e->err;
}

void ta_json_free(struct ta_json *v)
{
	for (size_t i = 0; i < v->nr_items; i++) {
		ta_json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	*v = (struct ta_json){ .type = TA_JSON_NULL };
}

const struct ta_json *ta_json_get(const struct ta_json *obj, const char *key)
{
	if (!obj || obj->type != TA_JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->nr_items; i++)
		if (obj->keys[i] && !strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const char *ta_json_type_name(enum ta_json_type type)
{
	static const char *const names[] = {
		[TA_JSON_NULL] = "null",	 [TA_JSON_BOOL] = "true or false",
		[TA_JSON_NUMBER] = "a number",	 [TA_JSON_STRING] = "a string",
		[TA_JSON_ARRAY] = "an array",	 [TA_JSON_OBJECT] = "an object",
	};

	return names[type];
}
