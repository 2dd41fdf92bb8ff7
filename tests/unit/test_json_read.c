// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* test_json_read.c - the strict JSON reader: values, escapes, UTF-8, and
 * every error with its place. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/base/json_read.h"

static struct ta_error e;

static int parse(const char *text, struct ta_json *v)
{
	return ta_json_parse(text, strlen(text), "t.json", v, &e);
}

/* The text must fail with exactly `want`. */
static void expect_error(const char *text, const char *want)
{
	struct ta_json v;
	int ret = parse(text, &v);

	CHECK(ret == -EINVAL && e.input && e.located && !strcmp(e.text, want),
	      "input: %s\n  got:  %s\n  want: %s", text, ret ? e.text : "(success)", want);
	CHECK(v.type == TA_JSON_NULL && !v.items && !v.str, "a failed parse leaves an empty value");
}

/* The text must read as one string, `want`. */
static void expect_string(const char *text, const char *want)
{
	struct ta_json v;

	CHECK(parse(text, &v) == 0 && v.type == TA_JSON_STRING && !strcmp(v.str, want),
	      "%s: %s", text, e.text);
	ta_json_free(&v);
}

static void test_values(void)
{
	struct ta_json v;
	const struct ta_json *x;

	CHECK(parse(" {\"a\": [1, -2.5e3, true, false, null, \"s\"], \"b\": {}}\n", &v) == 0,
	      "an object: %s", e.text);
	CHECK(v.type == TA_JSON_OBJECT && v.nr_items == 2, "two keys");
	x = ta_json_get(&v, "a");
	CHECK(x && x->type == TA_JSON_ARRAY && x->nr_items == 6, "a is an array of 6");
	if (x && x->nr_items == 6) {
		CHECK(x->items[0].type == TA_JSON_NUMBER && !strcmp(x->items[0].str, "1"), "1");
		CHECK(!strcmp(x->items[1].str, "-2.5e3"), "a number keeps its text");
		CHECK(x->items[2].type == TA_JSON_BOOL && x->items[2].boolean, "true");
		CHECK(x->items[3].type == TA_JSON_BOOL && !x->items[3].boolean, "false");
		CHECK(x->items[4].type == TA_JSON_NULL, "null");
		CHECK(x->items[5].line == 1 && x->items[5].col == 39, "a value's place: %d:%d",
		      x->items[5].line, x->items[5].col);
	}
	x = ta_json_get(&v, "b");
	CHECK(x && x->type == TA_JSON_OBJECT && x->nr_items == 0, "an empty object");
	CHECK(!ta_json_get(&v, "c") && !ta_json_get(x, "a"), "absent keys");
	ta_json_free(&v);
	CHECK(parse("[]", &v) == 0 && v.type == TA_JSON_ARRAY && !v.nr_items, "[]");
	ta_json_free(&v);
	CHECK(parse("0", &v) == 0 && v.type == TA_JSON_NUMBER, "0");
	ta_json_free(&v);
}

static void test_strings(void)
{
	expect_string("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\" \\ / \b \f \n \r \t");
	expect_string("\"\\u0041\\u00e9\\u20ac\"", "A\xc3\xa9\xe2\x82\xac");
	expect_string("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");
	expect_string("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	expect_string("\"\"", "");
}

static void test_errors(void)
{
	expect_error("", "t.json:1:1: expected a JSON value, got end of file");
	expect_error("[1,]", "t.json:1:4: expected a JSON value (object, array, string, number, true, false or null), got ']'");
	expect_error("{\"a\":1,}", "t.json:1:8: expected a key (a string in double quotes), got '}'");
	expect_error("{\"a\" 1}", "t.json:1:6: expected ':' after the key, got '1'");
	expect_error("{\"a\":1 \"b\":2}", "t.json:1:8: expected ',' or '}' after a value in an object, got '\"'");
	expect_error("[1 2]", "t.json:1:4: expected ',' or ']' after a value in an array, got '2'");
	expect_error("{\"a\":1,\n \"a\":2}", "t.json:2:2: expected each key once in an object, got \"a\" again");
	expect_error("[1] x", "t.json:1:5: expected end of file after the JSON value, got 'x'");
	expect_error("// c\n[]", "t.json:1:1: expected a JSON value (object, array, string, number, true, false or null), got '/'");
	expect_error("['a']", "t.json:1:2: expected a JSON value (object, array, string, number, true, false or null), got '''");
	expect_error("tru", "t.json:1:1: expected a JSON value (object, array, string, number, true, false or null), got 't'");
	expect_error("01", "t.json:1:2: expected no leading zero in a number, got '1'");
	expect_error("-", "t.json:1:2: expected a digit, got end of file");
	expect_error("1.", "t.json:1:3: expected a digit after '.', got end of file");
	expect_error("1e+", "t.json:1:4: expected a digit in the exponent, got end of file");
	expect_error("\"abc", "t.json:1:5: expected '\"' to end the string, got end of file");
	expect_error("\"a\tb\"", "t.json:1:3: expected a character (control bytes are written \\n, \\t, \\u00XX in a string), got byte 0x09");
	expect_error("\"\\x\"", "t.json:1:3: expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) after '\\', got 'x'");
	expect_error("\"\\u12g4\"", "t.json:1:6: expected 4 hex digits after '\\u', got 'g'");
	expect_error("\"\\u0000\"", "t.json:1:2: expected a character other than NUL (\\u0000) in a string");
	expect_error("\"\\ude00\"", "t.json:1:2: expected a high surrogate before the low surrogate \\ude00");
	expect_error("\"\\ud83dx\"", "t.json:1:8: expected a low surrogate (\\udc00..\\udfff) after the high surrogate \\ud83d");
	expect_error("\"\\ud83d\\u0041\"", "t.json:1:8: expected a low surrogate (\\udc00..\\udfff) after the high surrogate \\ud83d");
	/* UTF-8: a lone continuation byte, an overlong form, a surrogate, past
	 * U+10FFFF, a sequence cut short */
	expect_error("\"\x80\"", "t.json:1:2: expected UTF-8 text in a string, got byte 0x80");
	expect_error("\"\xc0\xaf\"", "t.json:1:2: expected UTF-8 text in a string, got byte 0xc0");
	expect_error("\"\xe0\x80\xaf\"", "t.json:1:2: expected UTF-8 text in a string, got byte 0xe0");
	expect_error("\"\xed\xa0\x80\"", "t.json:1:2: expected UTF-8 text in a string, got byte 0xed");
	expect_error("\"\xf4\x90\x80\x80\"", "t.json:1:2: expected UTF-8 text in a string, got byte 0xf4");
	expect_error("\"\xe2\x82\"", "t.json:1:2: expected UTF-8 text in a string, got byte 0xe2");
}

static void test_limits(void)
{
	char deep[2 * (TA_JSON_MAX_DEPTH + 1) + 1];
	struct ta_json v;

	/* TA_JSON_MAX_DEPTH levels are fine, one more is not */
	memset(deep, '[', TA_JSON_MAX_DEPTH);
	memset(deep + TA_JSON_MAX_DEPTH, ']', TA_JSON_MAX_DEPTH);
	deep[2 * TA_JSON_MAX_DEPTH] = 0;
	CHECK(parse(deep, &v) == 0, "%d levels: %s", TA_JSON_MAX_DEPTH, e.text);
	ta_json_free(&v);
	memset(deep, '[', TA_JSON_MAX_DEPTH + 1);
	memset(deep + TA_JSON_MAX_DEPTH + 1, ']', TA_JSON_MAX_DEPTH + 1);
	deep[2 * (TA_JSON_MAX_DEPTH + 1)] = 0;
	expect_error(deep, "t.json:1:33: expected at most 32 nested arrays and objects, got more");
	/* a NUL byte in the text is not the end of it */
	CHECK(ta_json_parse("[]\0x", 4, "t.json", &v, &e) == -EINVAL &&
	      !strcmp(e.text, "t.json:1:3: expected end of file after the JSON value, got byte 0x00"),
	      "a NUL byte: %s", e.text);
}

int main(void)
{
	test_values();
	test_strings();
	test_errors();
	test_limits();
	return check_report();
}
