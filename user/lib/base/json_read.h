/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * json_read.h - a small, strict JSON reader (RFC 8259) for the files
 * tap-accel takes from other tools (OpenStack's client output). The whole
 * document is read into a tree; anything RFC 8259 does not allow is an
 * error naming its place, "FILE:LINE:COL: expected ..., got ...":
 * trailing commas, comments, single quotes, control bytes or malformed
 * UTF-8 in strings, lone surrogates, leading zeros, a key given twice in
 * one object, text after the value. Nesting is limited, so a hostile file
 * cannot exhaust the stack, and so is the size of what is read.
 */
#ifndef TA_JSON_READ_H
#define TA_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Deeper nesting is refused: no file tap-accel reads needs more than a few. */
#define TA_JSON_MAX_DEPTH 32

enum ta_json_type {
	TA_JSON_NULL,
	TA_JSON_BOOL,
	TA_JSON_NUMBER,
	TA_JSON_STRING,
	TA_JSON_ARRAY,
	TA_JSON_OBJECT,
};

struct ta_json {
	enum ta_json_type type;
	int line, col;		/* where the value starts, for messages */
	bool boolean;		/* BOOL */
	char *str;		/* STRING: the decoded UTF-8, NUL-ended (a \u0000
				 * is refused); NUMBER: its text as written */
	char **keys;		/* OBJECT: the key of each item */
	struct ta_json *items;	/* ARRAY, OBJECT: the values, in order */
	size_t nr_items;
};

/*
 * Read the JSON text `text` of `len` bytes (`name` names it in messages)
 * into `root`. 0, or -EINVAL with "NAME:LINE:COL: ..." in `e` (or
 * -ENOMEM); `root` is then empty.
 */
int ta_json_parse(const char *text, size_t len, const char *name, struct ta_json *root,
		  struct ta_error *e);
void ta_json_free(struct ta_json *v);

/* The value of `key` in object `obj`, or NULL if it has none (or obj is
 * not an object). */
const struct ta_json *ta_json_get(const struct ta_json *obj, const char *key);
/* What a value is, for messages: "null", "a string", "an object", ... */
const char *ta_json_type_name(enum ta_json_type type);

#endif /* TA_JSON_READ_H */
