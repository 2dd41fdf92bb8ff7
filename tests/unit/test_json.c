// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* test_json.c - the JSON writer: nesting, commas, escaping, numbers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/output/json.h"

static char *buf;
static size_t len;
static FILE *out;
static struct json_writer w;

static void start(bool pretty)
{
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	jw_init(&w, out, pretty);
}

static const char *finish(void)
{
	fclose(out);
	return buf;
}

/* jw_string(in) writes "want" (without quotes and newline). */
static void check_utf8(const char *in, const char *want, const char *what)
{
	char expect[256];

	start(false);
	jw_string(&w, in);
	jw_end_document(&w);
	snprintf(expect, sizeof(expect), "\"%s\"\n", want);
	CHECK(!strcmp(finish(), expect), "%s: %s", what, buf);
}

int main(void)
{
	start(false);
	jw_object_begin(&w);
	jw_kv_string(&w, "ifname", "tap0");
	jw_kv_u64(&w, "max", UINT64_MAX);
	jw_kv_bool(&w, "ok", true);
	jw_key(&w, "list");
	jw_array_begin(&w);
	jw_u64(&w, 1);
	jw_i64(&w, -2);
	jw_null(&w);
	jw_object_begin(&w);
	jw_object_end(&w);
	jw_array_begin(&w);
	jw_array_end(&w);
	jw_array_end(&w);
	jw_key(&w, "rate");
	jw_double(&w, 1.5);
	jw_object_end(&w);
	jw_end_document(&w);
	CHECK(!strcmp(finish(),
		      "{\"ifname\":\"tap0\",\"max\":18446744073709551615,\"ok\":true,"
		      "\"list\":[1,-2,null,{},[]],\"rate\":1.500}\n"),
	      "compact: %s", buf);

	start(false);
	jw_string(&w, "q\" b\\ n\n t\t c\x01 \xc3\xa9");
	jw_end_document(&w);
	CHECK(!strcmp(finish(), "\"q\\\" b\\\\ n\\n t\\t c\\u0001 \xc3\xa9\"\n"), "escaping: %s", buf);

	/* Invalid UTF-8 (a Latin-1 comment) must not make invalid JSON: each
	 * maximal bad subpart becomes one U+FFFD, valid sequences stay. */
	check_utf8("caf\xe9", "caf\\ufffd", "a Latin-1 byte");
	check_utf8("\xe9t\xe9", "\\ufffdt\\ufffd", "Latin-1 around ASCII");
	check_utf8("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",
		   "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",
		   "2-, 3- and 4-byte sequences, U+10FFFF");
	check_utf8("\xc0\xaf\xc1\xbf", "\\ufffd\\ufffd\\ufffd\\ufffd",
		   "overlong 2-byte forms");
	check_utf8("\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd", "overlong 3-byte form");
	check_utf8("\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd", "a surrogate");
	check_utf8("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd",
		   "past U+10FFFF");
	check_utf8("\xf8\x88\x80\x80\x80\xff",
		   "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd",
		   "5-byte form and 0xff");
	check_utf8("\xe2\x82x", "\\ufffdx", "a cut 3-byte sequence: one U+FFFD");
	check_utf8("\xf0\x9f\x98", "\\ufffd", "cut at the end of the string");
	check_utf8("\x80" "a\xbf", "\\ufffda\\ufffd", "stray continuation bytes");

	start(false);
	jw_object_begin(&w);
	jw_kv_string(&w, "k\xe9", "v");
	jw_object_end(&w);
	jw_end_document(&w);
	CHECK(!strcmp(finish(), "{\"k\\ufffd\":\"v\"}\n"), "keys too: %s", buf);

	start(false);
	jw_double(&w, 0.0 / 0.0);
	jw_end_document(&w);
	CHECK(!strcmp(finish(), "null\n"), "NaN becomes null: %s", buf);

	start(true);
	jw_object_begin(&w);
	jw_kv_u64(&w, "a", 1);
	jw_key(&w, "b");
	jw_array_begin(&w);
	jw_string(&w, "x");
	jw_array_end(&w);
	jw_object_end(&w);
	jw_end_document(&w);
	CHECK(!strcmp(finish(), "{\n  \"a\": 1,\n  \"b\": [\n    \"x\"\n  ]\n}\n"), "pretty: %s", buf);

	/* Two documents in a row (stats --interval): no comma between them. */
	start(false);
	jw_object_begin(&w);
	jw_object_end(&w);
	jw_end_document(&w);
	jw_object_begin(&w);
	jw_kv_u64(&w, "n", 2);
	jw_object_end(&w);
	jw_end_document(&w);
	CHECK(!strcmp(finish(), "{}\n{\"n\":2}\n"), "documents per line: %s", buf);
	free(buf);
	return check_report();
}
