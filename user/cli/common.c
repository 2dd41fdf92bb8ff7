// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * common.c - the command and option tables, the global options and the
 * error helpers of every verb (see common.h).
 */
#include <errno.h>
#include <linux/capability.h>
#include <math.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lib/plane/policies.h"
#include "lib/plane/taps.h"
#include "lib/sys/netns.h"
#include "lib/sys/util.h"

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

static int vreport(int code, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return emit(code, "tap-accel: ", msg);
}

int user_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = vreport(EXIT_USER, fmt, ap);
	va_end(ap);
	return code;
}

int system_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = vreport(EXIT_SYSTEM, fmt, ap);
	va_end(ap);
	return code;
}

int exit_code(const struct ta_error *e)
{
	return e->input ? EXIT_USER : EXIT_SYSTEM;
}

int report_error(const struct ta_error *e)
{
	return emit(exit_code(e), e->located ? "" : "tap-accel: ", e->text);
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
	fprintf(stderr, "%s%s\n", e->located ? "" : "tap-accel: ", e->text);
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

/* ---- usage ----------------------------------------------------------------- */

static const char global_help[] =
	"Global options, before or after the verb:\n"
	"  -j, --json        JSON on stdout (errors too: {\"error\": ...})\n"
	"  -p, --pretty      JSON, indented\n"
	"  -d, --verbose     libbpf's and the verifier's messages on stderr\n"
	"  -n, --netns NAME  run in network namespace NAME (ip netns) or PATH\n"
	"Exit status: 0 ok, 1 wrong command, file or state, 2 system error.\n";

/* "--name METAVAR", as usage shows an option. */
static void option_words(const struct option_spec *o, char *buf, size_t size)
{
	int n = o->short_name ? snprintf(buf, size, "-%c, --%s", o->short_name, o->name)
			      : snprintf(buf, size, "    --%s", o->name);

	if (o->type != OPT_FLAG && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - n, " %s", o->metavar ? o->metavar : "VALUE");
}

#define USAGE_WIDTH 80

/*
 * `text` from column `indent`, where the cursor stands, word-wrapped at
 * USAGE_WIDTH, every line under the first (its own line breaks are
 * spaces: the width is this function's to keep).
 */
static void usage_wrap(FILE *out, const char *text, int indent)
{
	int col = indent;

	while (*text) {
		size_t word = strcspn(text, " \n");

		if (col > indent && col + 1 + (int)word > USAGE_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)word, text);
		col += word;
		text += word;
		while (*text == ' ' || *text == '\n')
			text++;
	}
	fputc('\n', out);
}

#define OPTION_COLUMN 27

static void command_usage(const struct command *c, const char *path, FILE *out)
{
	char words[64];

	if (c->sub) {
		char sub[128];

		snprintf(sub, sizeof(sub), "%s %s", path, c->name);
		commands_usage(c->sub, sub, out);
		return;
	}
	fprintf(out, "Usage: %s %s%s%s%s\n", path, c->name, c->args ? " " : "",
		c->args ? c->args : "", c->options ? " [OPTIONS]" : "");
	if (c->help)
		fprintf(out, "\n%s", c->help);
	if (c->options) {
		fputs("\nOptions:\n", out);
		for (const struct option_spec *o = c->options; o->name; o++) {
			option_words(o, words, sizeof(words));
			if (fprintf(out, "  %s", words) >= OPTION_COLUMN)
				fputc('\n', out), fprintf(out, "%*s", OPTION_COLUMN, "");
			else
				fprintf(out, "%*s", OPTION_COLUMN - 2 - (int)strlen(words), "");
			usage_wrap(out, o->help, OPTION_COLUMN);
		}
	}
	fprintf(out, "\n%s", global_help);
}

void commands_usage(const struct command *const *cmds, const char *path, FILE *out)
{
	fprintf(out, "Usage: %s [GLOBAL OPTIONS] VERB [ARGS] [OPTIONS]\n\nVerbs:\n", path);
	for (; *cmds; cmds++) {
		fprintf(out, "  %-10s ", (*cmds)->name);
		usage_wrap(out, (*cmds)->summary, 13);
	}
	fprintf(out, "\n'%s VERB --help' says more of each.\n\n%s", path, global_help);
	/* only before a verb: the verbs' lists do not take it */
	if (!strchr(path, ' '))
		fprintf(out, "%s --version (-V) prints the version, the map layout's and "
			     "libbpf's.\n", path);
}

/* ---- options ---------------------------------------------------------------- */

/* The options every verb takes, wherever they stand. */
enum { G_JSON, G_PRETTY, G_VERBOSE, G_NETNS, G_VERSION };

static const struct option_spec global_opts[] = {
	[G_JSON] = { "json", 'j', OPT_FLAG, 0, NULL, NULL, NULL, 0, 0 },
	[G_PRETTY] = { "pretty", 'p', OPT_FLAG, 0, NULL, NULL, NULL, 0, 0 },
	[G_VERBOSE] = { "verbose", 'd', OPT_FLAG, 0, NULL, NULL, NULL, 0, 0 },
	[G_NETNS] = { "netns", 'n', OPT_STRING, 0, "NAME", NULL, NULL, 0, 0 },
	[G_VERSION] = { "version", 'V', OPT_FLAG, 0, NULL, NULL, NULL, 0, 0 },
	OPTIONS_END,
};

static const struct option_spec *find_option(const struct option_spec *opts, const char *name,
					     size_t len, char short_name)
{
	for (; opts && opts->name; opts++)
		if (short_name ? opts->short_name == short_name
			       : strlen(opts->name) == len && !strncmp(opts->name, name, len))
			return opts;
	return NULL;
}

/* A global option was given: apply it now (--netns before anything looks
 * at interfaces). 0 or an exit code. */
static int apply_global(const struct option_spec *o, const char *value, bool *version)
{
	struct ta_error e;

	switch (o - global_opts) {
	case G_JSON:
		cli.json = true;
		break;
	case G_PRETTY:
		cli.json = cli.pretty = true;
		break;
	case G_VERBOSE:
		cli.verbose = true;
		break;
	case G_NETNS:
		if (ta_netns_enter(value, &e))
			return report_error(&e);
		break;
	case G_VERSION:
		if (!version)
			return user_error("--version goes before the verb");
		*version = true;
		break;
	}
	return 0;
}

/* Store the value of a verb's option. 0 or an exit code. */
static int store(const struct option_spec *o, const char *verb, const char *value, void *opts)
{
	char *dst = (char *)opts + o->offset, *end;
	double v;

	switch (o->type) {
	case OPT_FLAG:
		*(bool *)dst = true;
		return 0;
	case OPT_STRING:
		*(const char **)dst = value;
		return 0;
	case OPT_STRINGS: {
		struct opt_strings *l = (struct opt_strings *)dst;
		const char **v = realloc(l->values, (l->nr + 1) * sizeof(*v));

		if (!v)
			return system_error("%s: out of memory", verb);
		v[l->nr++] = value;
		l->values = v;
		return 0;
	}
	case OPT_CHOICE:
		for (const struct opt_choice *c = o->choices; c->word; c++)
			if (!strcmp(c->word, value)) {
				*(int *)dst = c->value;
				return 0;
			}
		{
			char words[256] = "";
			size_t n = 0;

			for (const struct opt_choice *c = o->choices; c->word; c++)
				n += snprintf(words + n, sizeof(words) - n, "%s%s",
					      n ? (c[1].word ? ", " : " or ") : "", c->word);
			return user_error("%s: --%s is %s, not '%s'", verb, o->name, words, value);
		}
	case OPT_NUMBER:
	case OPT_COUNT:
		v = strtod(value, &end);
		if (!*value || *end || isnan(v) || v < o->min || v > o->max ||
		    (o->type == OPT_COUNT && v != floor(v)))
			return user_error("%s: --%s expects %s from %.15g to %.15g, not '%s'", verb,
					  o->name, o->type == OPT_COUNT ? "a whole number" : "a number",
					  o->min, o->max, value);
		if (o->type == OPT_COUNT)
			*(long *)dst = (long)v;
		else
			*(double *)dst = v;
		return 0;
	}
	return 0;
}

/* One "--name[=value]" or "-x [value]" at argv[*i]; 0, -1 (help shown) or
 * an exit code (error shown). */
static int parse_one(int argc, char **argv, int *i, const struct command *c, const char *verb,
		     const char *path, void *opts, bool *version)
{
	const char *arg = argv[*i], *name = arg + 2, *eq = NULL, *value = NULL;
	bool is_long = arg[1] == '-';
	char short_name = is_long || arg[2] ? 0 : arg[1];
	const struct option_spec *o = NULL;
	size_t len = 0;
	bool global;

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		return -1;
	if (is_long) {
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
	}
	if (is_long || short_name) {
		o = find_option(global_opts, name, len, short_name);
		if (!o && c)
			o = find_option(c->options, name, len, short_name);
	}
	if (!o) {
		if (verb)
			user_error("%s: unknown option '%s'; see %s %s --help", verb, arg, path,
				   c->name);
		else
			user_error("unknown option '%s'; see %s --help", arg, path);
		return EXIT_USER;
	}
	global = o >= global_opts && o < global_opts + sizeof(global_opts) / sizeof(global_opts[0]);
	if (o->type == OPT_FLAG) {
		if (eq)
			return user_error("%s%soption --%s takes no value", verb ? verb : "",
					  verb ? ": " : "", o->name);
	} else if (eq) {
		value = eq + 1;
	} else if (*i + 1 < argc) {
		value = argv[++*i];
	} else {
		return user_error("%s%soption --%s needs a value (%s)", verb ? verb : "",
				  verb ? ": " : "", o->name, o->metavar ? o->metavar : "VALUE");
	}
	if (global)
		return apply_global(o, value, version);
	return store(o, verb, value, opts);
}

int parse_global_options(int argc, char **argv, bool *version, int *exit_code)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		int ret = parse_one(argc, argv, &i, NULL, NULL, "tap-accel", NULL, version);

		if (ret) {
			*exit_code = ret < 0 ? EXIT_OK : ret;
			return ret < 0 ? GLOBAL_HELP : GLOBAL_ERROR;
		}
	}
	if (cli.json)
		jw_init(&json, stdout, cli.pretty);
	return i;
}

/* "policy" of "tap-accel policy": how messages name a verb. */
static const char *verb_path(const char *path)
{
	const char *space = strchr(path, ' ');

	return space ? space + 1 : path;
}

static const struct command *find_command(const struct command *const *cmds, const char *name)
{
	for (; *cmds; cmds++)
		if (!strcmp((*cmds)->name, name))
			return *cmds;
	return NULL;
}

int command_dispatch(const struct command *const *cmds, const char *path, int argc,
		     char **argv)
{
	const struct command *c;
	bool done = false;
	char sub[128], verb[128];
	void *opts;
	int npos = 0, ret = 0;

	if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		commands_usage(cmds, path, argc < 1 ? stderr : stdout);
		return argc < 1 ? EXIT_USER : EXIT_OK;
	}
	c = find_command(cmds, argv[0]);
	if (!c && strchr(path, ' '))
		return user_error("%s: unknown verb '%s'; see %s --help", verb_path(path), argv[0],
				  path);
	if (!c)
		return user_error("unknown verb '%s'; see %s --help", argv[0], path);
	snprintf(sub, sizeof(sub), "%s %s", path, c->name);
	snprintf(verb, sizeof(verb), "%s", verb_path(sub));
	if (c->sub)
		return command_dispatch(c->sub, sub, argc - 1, argv + 1);
	/* --json anywhere also governs how an error before it is told */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json") ||
		    !strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty"))
			cli.json = true;
	opts = calloc(1, c->opts_size ?: 1);
	if (!opts)
		return system_error("out of memory");
	if (c->defaults)
		memcpy(opts, c->defaults, c->opts_size);
	/* options anywhere; "--" ends them; positionals move to argv[1..] */
	for (int i = 1; i < argc && !ret; i++) {
		if (done || argv[i][0] != '-' || !argv[i][1]) {
			argv[++npos] = argv[i];
			continue;
		}
		if (!strcmp(argv[i], "--")) {
			done = true;
			continue;
		}
		ret = parse_one(argc, argv, &i, c, verb, path, opts, NULL);
	}
	if (ret < 0) {
		command_usage(c, path, stdout);
		ret = EXIT_OK;
	} else if (!ret && (npos < c->min_args || (c->max_args >= 0 && npos > c->max_args))) {
		ret = user_error("%s: expected %s%s; see %s --help", verb,
				 c->args ? c->args : "no arguments",
				 npos > c->max_args && c->max_args >= 0 ? ", got more" : "", sub);
	} else if (!ret) {
		if (cli.json)
			jw_init(&json, stdout, cli.pretty);
		ret = c->run(opts, npos, argv + 1);
	}
	free(opts);
	return ret;
}

/* ---- what verbs check ------------------------------------------------------ */

int require_admin(const char *verb)
{
	/* Kernels before 5.8 know only CAP_SYS_ADMIN for bpf(). */
	bool bpf = ta_has_cap(CAP_BPF) || ta_has_cap(CAP_SYS_ADMIN);

	if (ta_has_cap(CAP_NET_ADMIN) && bpf)
		return 0;
	return system_error("%s needs CAP_NET_ADMIN and CAP_BPF (or CAP_SYS_ADMIN); run it as root",
			    verb);
}

int open_plane(struct ta_plane *pl, enum ta_plane_access how)
{
	struct ta_error e;
	bool mounted;
	int ret = ta_plane_open(pl, how, &mounted, &e);

	if (mounted)
		note("mounted a bpffs at %s (the pins live there; it lasts as long as this mount "
		     "namespace)", TA_BPFFS);
	if (ret)
		return report_error(&e);
	if (pl->created)
		note("loaded the tap-accel program (%s) and pinned it under %s", ta_plane_variant(),
		     TA_PIN_ROOT);
	return 0;
}

int find_tap(const struct ta_plane *pl, const char *ifname, struct ta_tap_state *st)
{
	struct ta_tap_key key;
	int err;

	if (ta_ifname_valid(ifname))
		return user_error("'%s' is not a valid interface name", ifname);
	if (ta_tap_key_of(pl, ifname, &key))
		return user_error("interface %s not found; list interfaces with 'ip link'", ifname);
	err = ta_tap_read(pl, &key, st);
	if (err == -ENOENT)
		return user_error("%s is not bound to a policy; bind it with 'tap-accel attach %s'",
				  ifname, ifname);
	if (err)
		return errno_error(err, "cannot read the binding of %s", ifname);
	return 0;
}

/* ---- formatting ------------------------------------------------------------ */

const char *digest_hex(uint64_t digest, char *buf)
{
	snprintf(buf, 17, "%016llx", (unsigned long long)digest);
	return buf;
}

const char *policy_name_of(const struct ta_plane *pl, uint32_t index, char buf[TA_POLICY_NAME_LEN])
{
	const char *name = ta_policy_name(pl, index);

	if (name[0])
		snprintf(buf, TA_POLICY_NAME_LEN, "%s", name);
	else
		snprintf(buf, TA_POLICY_NAME_LEN, "#%u", index);
	return buf;
}
