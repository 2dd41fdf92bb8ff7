// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * common.c - the global options, the option parser and the error
 * helpers of every verb (see common.h).
 */
#include <errno.h>
#include <linux/capability.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lib/netns.h"
#include "lib/util.h"

struct cli_options cli;
struct json_writer json;

/* ---- errors -------------------------------------------------------------- */

static int emit(int code, const char *prefix, const char *msg)
{
	struct json_writer w;

	if (cli.json) {
		fflush(stdout);
		jw_init(&w, stdout, cli.pretty);
		jw_object_begin(&w);
		jw_kv_string(&w, "error", msg);
		jw_object_end(&w);
		jw_end_document(&w);
		fflush(stdout);
	} else {
		fprintf(stderr, "%s%s\n", prefix, msg);
	}
	return code;
}

static int vreport(int code, const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return emit(code, prefix, msg);
}

int user_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = vreport(EXIT_USER, "tap-accel: ", fmt, ap);
	va_end(ap);
	return code;
}

int system_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = vreport(EXIT_SYSTEM, "tap-accel: ", fmt, ap);
	va_end(ap);
	return code;
}

int plain_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vreport(code, "", fmt, ap);
	va_end(ap);
	return code;
}

int report_error(const struct ta_error *e)
{
	return emit(e->code, "tap-accel: ", e->text);
}

int errno_error(int err, const char *fmt, ...)
{
	struct ta_error e;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ta_error_errno(&e, err, "%s", msg);
	return report_error(&e);
}

void warning(const struct ta_error *e)
{
	fprintf(stderr, "tap-accel: %s\n", e->text);
}

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("tap-accel: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- options ------------------------------------------------------------- */

static struct verb_option *find_option(struct verb_option *extra, const char *name, size_t len,
				       char short_name)
{
	for (; extra && extra->name; extra++)
		if (short_name ? extra->short_name == short_name
			       : strlen(extra->name) == len && !strncmp(extra->name, name, len))
			return extra;
	return NULL;
}

/* The options every verb takes, wherever they stand. */
static struct verb_option global[] = {
	{ "json", false, NULL, 'j' },
	{ "pretty", false, NULL, 'p' },
	{ "verbose", false, NULL, 'd' },
	{ "netns", true, NULL, 'n' },
	{ NULL, false, NULL, 0 },
};

/* A global option was given: apply it now (--netns before anything
 * looks at interfaces). 0 or an exit code. */
static int apply_global(struct verb_option *o)
{
	struct ta_error e;

	if (o == &global[0])
		cli.json = true;
	else if (o == &global[1])
		cli.json = cli.pretty = true;
	else if (o == &global[2])
		cli.verbose = true;
	else if (o == &global[3] && ta_netns_enter(o->value, &e))
		return report_error(&e);
	return 0;
}

/* One "--name[=value]" or "-x [value]"; 0, -1 (help shown) or an exit
 * code (error shown). `verb` names the verb in errors, NULL before it. */
static int parse_one(int argc, char **argv, int *i, const char *verb, const char *usage_text,
		     struct verb_option *extra)
{
	const char *arg = argv[*i], *name = arg + 2, *eq = NULL;
	bool is_long = arg[1] == '-';
	char short_name = is_long || arg[2] ? 0 : arg[1];
	size_t len = 0;
	struct verb_option *o = NULL;

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		fputs(usage_text, stdout);
		return -1;
	}
	if (is_long) {
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
	}
	if (is_long || short_name) {
		o = find_option(global, name, len, short_name);
		if (!o)
			o = find_option(extra, name, len, short_name);
	}
	if (!o) {
		if (verb)
			user_error("%s: unknown option '%s'", verb, arg);
		else
			user_error("unknown option '%s'", arg);
		fputs(usage_text, stderr);
		return EXIT_USER;
	}
	if (!o->has_value) {
		o->value = "";
		if (eq)
			return verb ? user_error("%s: option --%s takes no value", verb, o->name)
				    : user_error("option --%s takes no value", o->name);
	} else if (eq) {
		o->value = eq + 1;
	} else if (*i + 1 < argc) {
		o->value = argv[++*i];
	} else {
		return verb ? user_error("%s: option --%s needs a value", verb, o->name)
			    : user_error("option --%s needs a value", o->name);
	}
	return o >= global && o < global + sizeof(global) / sizeof(global[0]) ? apply_global(o) : 0;
}

int parse_verb_options(int argc, char **argv, const char *usage, struct verb_option *extra,
		       int *exit_code)
{
	bool options_done = false;
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		int ret;

		if (options_done || argv[i][0] != '-' || !argv[i][1]) {
			argv[++npos] = argv[i];
			continue;
		}
		if (!strcmp(argv[i], "--")) {
			options_done = true;
			continue;
		}
		ret = parse_one(argc, argv, &i, argv[0], usage, extra);
		if (ret) {
			*exit_code = ret < 0 ? EXIT_OK : ret;
			return -1;
		}
	}
	if (cli.json)
		jw_init(&json, stdout, cli.pretty);
	return npos;
}

int parse_global_options(int argc, char **argv, const char *usage, struct verb_option *extra,
			 int *exit_code)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		int ret = parse_one(argc, argv, &i, NULL, usage, extra);

		if (ret) {
			*exit_code = ret < 0 ? EXIT_OK : ret;
			return -1;
		}
	}
	if (cli.json)
		jw_init(&json, stdout, cli.pretty);
	return i;
}

/* ---- what verbs check ------------------------------------------------------ */

int require_interface(const char *ifname, unsigned int *ifindex)
{
	if (ta_ifname_valid(ifname))
		return user_error("'%s' is not a valid interface name", ifname);
	*ifindex = if_nametoindex(ifname);
	if (!*ifindex)
		return user_error("interface %s not found; list interfaces with 'ip link'", ifname);
	return 0;
}

int require_admin(const char *verb)
{
	/* Kernels before 5.8 know only CAP_SYS_ADMIN for bpf(). */
	bool bpf = ta_has_cap(CAP_BPF) || ta_has_cap(CAP_SYS_ADMIN);

	if (ta_has_cap(CAP_NET_ADMIN) && bpf)
		return 0;
	return system_error("%s needs CAP_NET_ADMIN and CAP_BPF (or CAP_SYS_ADMIN); run it as root",
			    verb);
}

int open_pinned(const char *ifname, struct ta_pins *p)
{
	struct ta_error e;
	int ret = ta_pins_open(ifname, p, &e);

	return ret ? report_error(&e) : 0;
}

/* ---- formatting ------------------------------------------------------------ */

const char *ifname_of(uint32_t ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "#%u", ifindex);
	return buf;
}

const char *digest_hex(uint64_t digest, char *buf)
{
	snprintf(buf, 17, "%016llx", (unsigned long long)digest);
	return buf;
}
