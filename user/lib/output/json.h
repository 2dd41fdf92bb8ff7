/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * json.h - the one JSON writer behind every --json output of tap-accel.
 *
 * A writer emits values in order; it inserts commas and (when pretty)
 * newlines and indentation itself, so callers only say what comes next:
 *
 *	jw_object_begin(w);
 *	jw_key(w, "ifname"); jw_string(w, "tap0");
 *	jw_kv_u64(w, "prog_id", 42);
 *	jw_object_end(w);
 */
#ifndef TA_JSON_H
#define TA_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	bool pretty;
	int depth;
	bool need_comma[JW_MAX_DEPTH + 1]; /* a value was written at this depth */
	bool after_key;			  /* the next value completes a key */
};

void jw_init(struct json_writer *w, FILE *out, bool pretty);
void jw_object_begin(struct json_writer *w);
void jw_object_end(struct json_writer *w);
void jw_array_begin(struct json_writer *w);
void jw_array_end(struct json_writer *w);
void jw_key(struct json_writer *w, const char *key);
void jw_string(struct json_writer *w, const char *s);
void jw_u64(struct json_writer *w, uint64_t v);
void jw_i64(struct json_writer *w, int64_t v);
void jw_double(struct json_writer *w, double v);
void jw_bool(struct json_writer *w, bool v);
void jw_null(struct json_writer *w);
/* Ends a top-level value with a newline (one document per line when compact). */
void jw_end_document(struct json_writer *w);

/* Key and value in one call. */
void jw_kv_string(struct json_writer *w, const char *key, const char *s);
void jw_kv_u64(struct json_writer *w, const char *key, uint64_t v);
void jw_kv_bool(struct json_writer *w, const char *key, bool v);
/* null when v is not a finite number (NAN: not measured) */
void jw_kv_double(struct json_writer *w, const char *key, double v);

/*
 * The character at p, whose first byte is 0x80 or above, to `out`: as it
 * is when it is well-formed UTF-8, else `replacement` (U+FFFD as the
 * format writes it) for the longest start of a valid sequence, at least a
 * byte. Returns the bytes consumed. JSON strings and prom.c's label values
 * must both be UTF-8.
 */
size_t ta_utf8_write(FILE *out, const unsigned char *p, const char *replacement);

#endif /* TA_JSON_H */
