// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* ct_settings.c - the words of the connection table's settings (ct_settings.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_settings.h"

const char *const ta_ct_timeout_names[TA_CT_CONN_MAX] = {
	[TA_CT_SYN_SENT] = "syn_sent",
	[TA_CT_SYN_RECV] = "syn_recv",
	[TA_CT_TCP_ESTABLISHED] = "established",
	[TA_CT_FIN_WAIT] = "fin_wait",
	[TA_CT_TIME_WAIT] = "time_wait",
	[TA_CT_CLOSE] = "close",
	[TA_CT_UDP] = "udp",
	[TA_CT_UDP_REPLIED] = "udp_stream",
	[TA_CT_ICMP] = "icmp",
	[TA_CT_GENERIC] = "other",
};

const uint32_t ta_ct_timeout_defaults[TA_CT_CONN_MAX] = TA_CT_TIMEOUTS_DEFAULT;

#define NAMES_LIST                                                                         \
	"syn_sent, syn_recv, established, fin_wait, time_wait, close, udp, udp_stream, icmp " \
	"or other"

int ta_ct_timeout_of(const char *name)
{
	for (int i = 0; i < TA_CT_CONN_MAX; i++)
		if (!strcmp(name, ta_ct_timeout_names[i]))
			return i;
	return -1;
}

int ta_ct_seconds_parse(const char *text, uint32_t *seconds)
{
	unsigned long long n, unit = 1;
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (*end && end[1])
		return -EINVAL;
	switch (*end) {
	case 0:
	case 's':
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	default:
		return -EINVAL;
	}
	if (errno == ERANGE || !n || n > UINT32_MAX / unit)
		return -ERANGE;
	*seconds = (uint32_t)(n * unit);
	return 0;
}

/* A count of connections, 1 to UINT32_MAX: 0, -EINVAL or -ERANGE. */
static int count_parse(const char *text, uint32_t *count)
{
	unsigned long long n;
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || !n || n > UINT32_MAX)
		return -ERANGE;
	*count = (uint32_t)n;
	return 0;
}

static int given_twice(struct ta_error *e, const char *what)
{
	return ta_error_input(e, EINVAL, "%s given twice", what);
}

/* max N|default, tap-limit N|none */
static int parse_limit(struct ta_ct_settings *s, bool tap, const char *value, struct ta_error *e)
{
	uint32_t bit = tap ? TA_CTS_TAP_LIMIT : TA_CTS_MAX, n = 0;
	const char *name = tap ? "tap-limit" : "max", *off = tap ? "none" : "default";
	int err;

	if (s->given & bit)
		return given_twice(e, name);
	if (strcmp(value, off)) {
		err = count_parse(value, &n);
		if (err == -ERANGE && value[strspn(value, "0")] == 0)
			return ta_error_input(e, EINVAL, "%s 0: %s", name,
					      tap ? "a tap that may track no connection could open "
						    "none; give a number of connections, or "
						    "'tap-limit none' for no limit per tap"
						  : "give a number of connections, or 'max default' "
						    "for the table's size less 4096");
		if (err)
			return ta_error_input(e, EINVAL, "%s '%s': expected a number of connections "
					      "(1 to 4294967295) or %s", name, value, off);
	}
	if (tap)
		s->tap_limit = n;
	else
		s->max_tracked = n;
	s->given |= bit;
	return 0;
}

static int parse_timeout(struct ta_ct_settings *s, const char *name, const char *value,
			 struct ta_error *e)
{
	int conn = ta_ct_timeout_of(name), err;
	uint32_t secs = 0;

	if (conn < 0)
		return ta_error_input(e, EINVAL, "unknown timeout '%s': the timeouts are %s",
				      name, NAMES_LIST);
	if (s->given & TA_CTS_TIMEOUT(conn))
		return ta_error_input(e, EINVAL, "timeout %s given twice", name);
	if (strcmp(value, "default")) {
		err = ta_ct_seconds_parse(value, &secs);
		if (err == -ERANGE && strspn(value, "0") && !value[strspn(value, "0")])
			return ta_error_input(e, EINVAL, "timeout %s 0: a connection would expire at "
					      "its first frame; give 1 second or more, or "
					      "'timeout %s default' (%u s)", name, name,
					      ta_ct_timeout_defaults[conn]);
		if (err)
			return ta_error_input(e, EINVAL, "timeout %s '%s': expected seconds (120, "
					      "or with a unit: 90s, 2m, 12h, 5d; at most "
					      "4294967295 s) or default", name, value);
	}
	s->timeout[conn] = secs;
	s->given |= TA_CTS_TIMEOUT(conn);
	return 0;
}

int ta_ct_settings_parse(struct ta_ct_settings *s, int argc, char *const *argv, int *at,
			 struct ta_error *e)
{
	int i = 0, err;

	if (!argc) {
		*at = 0;
		return ta_error_input(e, EINVAL, "expected max, tap-limit or timeout");
	}
	while (i < argc) {
		const char *kw = argv[i];
		bool timeout = !strcmp(kw, "timeout");

		*at = i;
		if (strcmp(kw, "max") && strcmp(kw, "tap-limit") && !timeout)
			return ta_error_input(e, EINVAL, "expected max, tap-limit or timeout, got "
					      "'%s'", kw);
		if (!timeout && s->given & (kw[0] == 't' ? TA_CTS_TAP_LIMIT : TA_CTS_MAX))
			return given_twice(e, kw);
		*at = ++i;
		if (i >= argc)
			return ta_error_input(e, EINVAL, "expected %s after '%s'",
					      timeout ? "a timeout's name and its seconds"
					      : !strcmp(kw, "max") ? "a number of connections or default"
								   : "a number of connections or none",
					      kw);
		if (!timeout) {
			err = parse_limit(s, kw[0] == 't', argv[i], e);
			if (err)
				return err;
			i++;
			continue;
		}
		/* NAME SECS pairs while the next word is not a setting's */
		do {
			*at = i;
			if (i + 1 >= argc && ta_ct_timeout_of(argv[i]) >= 0) {
				*at = i + 1;
				return ta_error_input(e, EINVAL, "expected seconds or default after "
						      "'timeout %s'", argv[i]);
			}
			if (i + 1 >= argc)
				return parse_timeout(s, argv[i], "", e);
			err = parse_timeout(s, argv[i], argv[i + 1], e);
			if (err) {
				*at = ta_ct_timeout_of(argv[i]) < 0 || s->given & TA_CTS_TIMEOUT(
					ta_ct_timeout_of(argv[i])) ? i : i + 1;
				return err;
			}
			i += 2;
		} while (i < argc && strcmp(argv[i], "max") && strcmp(argv[i], "tap-limit") &&
			 strcmp(argv[i], "timeout"));
	}
	return 0;
}

const char *ta_ct_settings_words(const struct ta_ct_settings *s, char *buf, size_t size)
{
	size_t n = 0;
	bool timeouts = false;

#define ADD(...) (n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__))
	if (size)
		buf[0] = 0;
	if (s->given & TA_CTS_MAX) {
		if (s->max_tracked)
			ADD("max %u", s->max_tracked);
		else
			ADD("max default");
	}
	if (s->given & TA_CTS_TAP_LIMIT) {
		if (s->tap_limit)
			ADD("%stap-limit %u", n ? " " : "", s->tap_limit);
		else
			ADD("%stap-limit none", n ? " " : "");
	}
	for (int i = 0; i < TA_CT_CONN_MAX; i++) {
		if (!(s->given & TA_CTS_TIMEOUT(i)))
			continue;
		ADD("%s%s%s", n ? " " : "", timeouts ? "" : "timeout ", ta_ct_timeout_names[i]);
		timeouts = true;
		if (s->timeout[i])
			ADD(" %u", s->timeout[i]);
		else
			ADD(" default");
	}
#undef ADD
	return buf;
}
