// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - tap-accel: global options, the verb table, and the helpers
 * every verb uses to parse options and report errors.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/capability.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/tap_accel.h"
#include "lib/util.h"
#include "verbs.h"

#define TA_VERSION "0.1"

struct cli_options cli;
struct json_writer json;

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "attach", cmd_attach, "attach IFACE [--policy FILE] [--mode native|generic] [--force]" },
	{ "detach", cmd_detach, "detach IFACE" },
	{ "policy", cmd_policy, "policy { check FILE | load IFACE FILE | show IFACE }" },
	{ "fdb", cmd_fdb, "fdb { add IFACE MAC DEV | del IFACE MAC | list IFACE }" },
	{ "status", cmd_status, "status" },
	{ "stats", cmd_stats, "stats [IFACE] [--interval S] [--count N]" },
	{ "clean", cmd_clean, "clean" },
	{ "bench", cmd_bench, "bench [OPTIONS] (see tap-accel bench --help)" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: tap-accel [--json] [--pretty] [--verbose] VERB [ARGS]\n"
		"       tap-accel --help | --version\n\nVerbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(out, "  %s\n", verbs[i].summary);
	fprintf(out,
		"\nEvery verb takes --help. Read verbs take --json.\n"
		"Exit status: 0 ok, 1 wrong command or policy, 2 system error.\n");
}

static int report(int code, const char *fmt, va_list ap)
{
	fputs("tap-accel: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return code;
}

int user_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = report(EXIT_USER, fmt, ap);
	va_end(ap);
	return code;
}

int system_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = report(EXIT_SYSTEM, fmt, ap);
	va_end(ap);
	return code;
}

int errno_error(int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES)
		return system_error("%s: %s; run tap-accel as root (it needs CAP_NET_ADMIN, CAP_BPF and CAP_SYS_ADMIN)",
				    msg, strerror(err));
	return system_error("%s: %s", msg, strerror(err));
}

static struct verb_option *find_option(struct verb_option *extra, const char *name, size_t len)
{
	for (; extra && extra->name; extra++)
		if (strlen(extra->name) == len && !strncmp(extra->name, name, len))
			return extra;
	return NULL;
}

/* One "--name[=value]" or "-x"; 0, 1 (help shown) or -1 (error shown). */
static int parse_one(int argc, char **argv, int *i, const char *usage_text,
		     struct verb_option *extra)
{
	const char *arg = argv[*i], *name = arg + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	struct verb_option *o;

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		fputs(usage_text, stdout);
		return 1;
	}
	if (!strcmp(arg, "-j") || !strcmp(arg, "--json")) {
		cli.json = true;
		return 0;
	}
	if (!strcmp(arg, "-p") || !strcmp(arg, "--pretty")) {
		cli.json = cli.pretty = true;
		return 0;
	}
	o = arg[1] == '-' ? find_option(extra, name, len) : NULL;
	if (!o) {
		user_error("%s: unknown option '%s'", argv[0], arg);
		fputs(usage_text, stderr);
		return -1;
	}
	if (!o->has_value) {
		o->value = "";
		return eq ? (user_error("%s: option --%s takes no value", argv[0], o->name), -1) : 0;
	}
	if (eq) {
		o->value = eq + 1;
	} else if (*i + 1 < argc) {
		o->value = argv[++*i];
	} else {
		user_error("%s: option --%s needs a value", argv[0], o->name);
		return -1;
	}
	return 0;
}

int parse_verb_options(int argc, char **argv, const char *usage_text,
		       struct verb_option *extra, int *exit_code)
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
		ret = parse_one(argc, argv, &i, usage_text, extra);
		if (ret) {
			*exit_code = ret > 0 ? EXIT_OK : EXIT_USER;
			return -1;
		}
	}
	if (cli.json)
		jw_init(&json, stdout, cli.pretty);
	return npos;
}

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

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!cli.verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	int i;

	libbpf_set_print(print_libbpf);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("tap-accel %s (map layout %d, libbpf %s)\n", TA_VERSION,
			       TA_LAYOUT_VERSION, libbpf_version_string());
			return EXIT_OK;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			cli.json = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
			cli.json = cli.pretty = true;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--verbose")) {
			cli.verbose = true;
		} else {
			user_error("unknown option '%s'", a);
			usage(stderr);
			return EXIT_USER;
		}
	}
	if (i == argc) {
		usage(stderr);
		return EXIT_USER;
	}
	for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++)
		if (!strcmp(argv[i], verbs[v].name))
			return verbs[v].run(argc - i, argv + i);
	user_error("unknown verb '%s'; see tap-accel --help", argv[i]);
	return EXIT_USER;
}
