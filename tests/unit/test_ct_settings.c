// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* test_ct_settings.c - the words of the connection table's settings, as
 * `conntrack set` and agent.conf's `conntrack` lines give them: values,
 * defaults, and the error (and the word it names) of each mistake. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "lib/policy/ct_settings.h"

#define MAX_WORDS 16

/* `line` split at blanks into words, parsed into *s: the error, "" if none. */
static const char *parse(struct ta_ct_settings *s, const char *line, int *at)
{
	static char copy[256];
	static struct ta_error e;
	char *argv[MAX_WORDS], *save = NULL;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (char *w = strtok_r(copy, " ", &save); w && argc < MAX_WORDS; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	memset(s, 0, sizeof(*s));
	*at = -1;
	e.text[0] = 0;
	if (ta_ct_settings_parse(s, argc, argv, at, &e))
		CHECK(e.input && e.err == EINVAL, "%s: an input error", line);
	return e.text;
}

static void check_error(const char *line, int want_at, const char *want)
{
	struct ta_ct_settings s;
	int at;
	const char *got = parse(&s, line, &at);

	CHECK(!strcmp(got, want), "'%s': got '%s', want '%s'", line, got, want);
	CHECK(at == want_at, "'%s': at word %d, want %d", line, at, want_at);
}

static void test_values(void)
{
	struct ta_ct_settings s;
	int at;

	CHECK(!*parse(&s, "max 200000 tap-limit 4096 timeout established 1d udp 90s icmp 2m", &at),
	      "a full line parses");
	CHECK(s.given == (TA_CTS_MAX | TA_CTS_TAP_LIMIT | TA_CTS_TIMEOUT(TA_CT_TCP_ESTABLISHED) |
			  TA_CTS_TIMEOUT(TA_CT_UDP) | TA_CTS_TIMEOUT(TA_CT_ICMP)),
	      "given %#x", s.given);
	CHECK(s.max_tracked == 200000 && s.tap_limit == 4096, "%u %u", s.max_tracked, s.tap_limit);
	CHECK(s.timeout[TA_CT_TCP_ESTABLISHED] == 86400 && s.timeout[TA_CT_UDP] == 90 &&
	      s.timeout[TA_CT_ICMP] == 120, "%u %u %u", s.timeout[TA_CT_TCP_ESTABLISHED],
	      s.timeout[TA_CT_UDP], s.timeout[TA_CT_ICMP]);
	CHECK(!*parse(&s, "tap-limit none max default timeout other default", &at), "defaults");
	CHECK(s.given == (TA_CTS_MAX | TA_CTS_TAP_LIMIT | TA_CTS_TIMEOUT(TA_CT_GENERIC)) &&
	      !s.max_tracked && !s.tap_limit && !s.timeout[TA_CT_GENERIC], "defaults are 0s");
	CHECK(!*parse(&s, "timeout udp_stream 3h timeout close 5", &at), "timeout twice as a keyword");
	CHECK(s.timeout[TA_CT_UDP_REPLIED] == 10800 && s.timeout[TA_CT_CLOSE] == 5, "%u %u",
	      s.timeout[TA_CT_UDP_REPLIED], s.timeout[TA_CT_CLOSE]);
	CHECK(!*parse(&s, "max 4294967295", &at) && s.max_tracked == 4294967295u, "the largest count");
}

static void test_names(void)
{
	static const char *const names[TA_CT_CONN_MAX] = {
		"syn_sent", "syn_recv", "established", "fin_wait", "time_wait",
		"close", "udp", "udp_stream", "icmp", "other",
	};
	static const uint32_t linux_defaults[TA_CT_CONN_MAX] = {
		120, 60, 432000, 120, 120, 10, 30, 120, 30, 600,
	};

	for (int i = 0; i < TA_CT_CONN_MAX; i++) {
		CHECK(ta_ct_timeout_of(names[i]) == i, "%s", names[i]);
		CHECK(ta_ct_timeout_defaults[i] == linux_defaults[i], "%s: %u", names[i],
		      ta_ct_timeout_defaults[i]);
	}
	CHECK(ta_ct_timeout_of("unreplied") == -1, "a state of conntrack list is not a timeout");
}

static void test_seconds(void)
{
	static const struct { const char *text; int err; uint32_t s; } cases[] = {
		{ "1", 0, 1 }, { "120s", 0, 120 }, { "2m", 0, 120 }, { "12h", 0, 43200 },
		{ "5d", 0, 432000 }, { "4294967295", 0, 4294967295u }, { "49710d", 0, 4294944000u },
		{ "0", -ERANGE, 0 }, { "0d", -ERANGE, 0 }, { "4294967296", -ERANGE, 0 },
		{ "49711d", -ERANGE, 0 }, { "99999999999999999999", -ERANGE, 0 },
		{ "", -EINVAL, 0 }, { "-5", -EINVAL, 0 }, { "5w", -EINVAL, 0 }, { "5ms", -EINVAL, 0 },
		{ "m", -EINVAL, 0 }, { " 5", -EINVAL, 0 }, { "+5", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t s = 0;
		int err = ta_ct_seconds_parse(cases[i].text, &s);

		CHECK(err == cases[i].err && (err || s == cases[i].s), "'%s': %d %u", cases[i].text,
		      err, s);
	}
}

static void test_errors(void)
{
	check_error("", 0, "expected max, tap-limit or timeout");
	check_error("maximum 5", 0, "expected max, tap-limit or timeout, got 'maximum'");
	check_error("max", 1, "expected a number of connections or default after 'max'");
	check_error("tap-limit", 1, "expected a number of connections or none after 'tap-limit'");
	check_error("timeout", 1, "expected a timeout's name and its seconds after 'timeout'");
	check_error("max 0", 1, "max 0: give a number of connections, or 'max default' for the "
		    "table's size less 4096");
	check_error("tap-limit 00", 1, "tap-limit 0: a tap that may track no connection could open "
		    "none; give a number of connections, or 'tap-limit none' for no limit per tap");
	check_error("tap-limit -1", 1, "tap-limit '-1': expected a number of connections (1 to "
		    "4294967295) or none");
	check_error("max 4294967296", 1, "max '4294967296': expected a number of connections (1 to "
		    "4294967295) or default");
	check_error("max none", 1, "max 'none': expected a number of connections (1 to 4294967295) "
		    "or default");
	check_error("max 5 tap-limit 3 max 6", 4, "max given twice");
	check_error("tap-limit 5 tap-limit none", 2, "tap-limit given twice");
	check_error("timeout udpx 5", 1, "unknown timeout 'udpx': the timeouts are syn_sent, "
		    "syn_recv, established, fin_wait, time_wait, close, udp, udp_stream, icmp or other");
	check_error("timeout udp 0", 2, "timeout udp 0: a connection would expire at its first "
		    "frame; give 1 second or more, or 'timeout udp default' (30 s)");
	check_error("timeout established 5x", 2, "timeout established '5x': expected seconds (120, "
		    "or with a unit: 90s, 2m, 12h, 5d; at most 4294967295 s) or default");
	check_error("timeout udp", 2, "expected seconds or default after 'timeout udp'");
	check_error("timeout udp 5 icmp", 4, "expected seconds or default after 'timeout icmp'");
	check_error("timeout udp 5 udp 6", 3, "timeout udp given twice");
	check_error("timeout udp 5 tap-limit", 4,
		    "expected a number of connections or none after 'tap-limit'");
}

/* The words of parsed settings give them back. */
static void test_words(void)
{
	static const char *const lines[] = {
		"max 200000 tap-limit 4096 timeout established 86400 udp 90",
		"tap-limit none timeout syn_sent default other 5",
		"max default",
		"timeout icmp 1",
	};
	struct ta_ct_settings s, again;
	char words[256];
	int at;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		CHECK(!*parse(&s, lines[i], &at), "%s", lines[i]);
		ta_ct_settings_words(&s, words, sizeof(words));
		CHECK(!strcmp(words, lines[i]), "'%s' gave back '%s'", lines[i], words);
		CHECK(!*parse(&again, words, &at) && !memcmp(&s, &again, sizeof(s)), "%s", words);
	}
	memset(&s, 0, sizeof(s));
	CHECK(!strcmp(ta_ct_settings_words(&s, words, sizeof(words)), ""), "none: ''");
	CHECK(!*parse(&s, "max 200000 tap-limit 4096", &at), "cut");
	CHECK(!strcmp(ta_ct_settings_words(&s, words, 12), "max 200000 "), "cut to fit: '%s'",
	      words);
}

int main(void)
{
	test_words();
	test_values();
	test_names();
	test_seconds();
	test_errors();
	return check_report();
}
