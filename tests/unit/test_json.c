// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* test_json.c - the JSON writer: nesting, commas, escaping, numbers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/json.h"

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
