// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* json.c - a small streaming JSON writer (see json.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"

void jw_init(struct json_writer *w, FILE *out, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->pretty = pretty;
}

static void newline_indent(struct json_writer *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Called before every value and key: a comma after a sibling, then layout. */
static void before_value(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->need_comma[w->depth])
		fputc(',', w->out);
	if (w->depth > 0)
		newline_indent(w);
	w->need_comma[w->depth] = true;
}

static void open_container(struct json_writer *w, char c)
{
	before_value(w);
	fputc(c, w->out);
	if (w->depth < JW_MAX_DEPTH)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_container(struct json_writer *w, char c)
{
	bool had_members = w->need_comma[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (had_members)
		newline_indent(w);
	fputc(c, w->out);
}

void jw_object_begin(struct json_writer *w) { open_container(w, '{'); }
void jw_object_end(struct json_writer *w) { close_container(w, '}'); }
void jw_array_begin(struct json_writer *w) { open_container(w, '['); }
void jw_array_end(struct json_writer *w) { close_container(w, ']'); }

/*
 * Length of the well-formed UTF-8 sequence (RFC 3629) at p, whose first
 * byte is 0x80 or above, or 0 if it is not one. Then *bad is the number of
 * bytes to replace with a single U+FFFD: the longest start of a valid
 * sequence, at least one byte (Unicode's "maximal subpart" practice). Never
 * reads past a NUL, which is no continuation byte.
 */
static size_t utf8_len(const unsigned char *p, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		n = 0; /* continuation, overlong 0xc0/0xc1, or past U+10FFFF */
	/* The second byte's range rules out overlong forms, surrogates
	 * (U+D800..U+DFFF) and code points past U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++) {
		if (p[i] < lo || p[i] > hi)
			break;
		lo = 0x80;
		hi = 0xbf;
	}
	if (n && i == n)
		return n;
	*bad = i > 1 ? i : 1;
	return 0;
}

/* See json.h. */
size_t ta_utf8_write(FILE *out, const unsigned char *p, const char *replacement)
{
	size_t bad, n = utf8_len(p, &bad);

	if (!n) {
		fputs(replacement, out);
		return bad;
	}
	fwrite(p, 1, n, out);
	return n;
}

static void write_escaped(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		if (*p >= 0x80) {
			/* a policy comment in Latin-1, say: always valid JSON */
			p += ta_utf8_write(out, p, "\\ufffd");
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
		p++;
	}
	fputc('"', out);
}

void jw_key(struct json_writer *w, const char *key)
{
	before_value(w);
	write_escaped(w->out, key);
	fputs(w->pretty ? ": " : ":", w->out);
	w->after_key = true;
}

void jw_string(struct json_writer *w, const char *s)
{
	before_value(w);
	write_escaped(w->out, s ? s : "");
}

void jw_u64(struct json_writer *w, uint64_t v)
{
	before_value(w);
	fprintf(w->out, "%" PRIu64, v);
}

void jw_i64(struct json_writer *w, int64_t v)
{
	before_value(w);
	fprintf(w->out, "%" PRId64, v);
}

/* JSON has no NaN or infinity; they become null. */
void jw_double(struct json_writer *w, double v)
{
	before_value(w);
	if (isfinite(v))
		fprintf(w->out, "%.3f", v);
	else
		fputs("null", w->out);
}

void jw_bool(struct json_writer *w, bool v)
{
	before_value(w);
	fputs(v ? "true" : "false", w->out);
}

void jw_null(struct json_writer *w)
{
	before_value(w);
	fputs("null", w->out);
}

void jw_end_document(struct json_writer *w)
{
	fputc('\n', w->out);
	w->need_comma[0] = false;
	fflush(w->out);
}

void jw_kv_string(struct json_writer *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_string(w, s);
}

void jw_kv_u64(struct json_writer *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_u64(w, v);
}

void jw_kv_bool(struct json_writer *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}

void jw_kv_double(struct json_writer *w, const char *key, double v)
{
	jw_key(w, key);
	jw_double(w, v);
}
