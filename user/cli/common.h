/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * common.h - what every verb of the tap-accel CLI shares: the command and
 * option tables (usage is generated from them, as xdp-tools and bpftool
 * do), the global options, and the error helpers every message goes
 * through (text on stderr, or {"error": ...} on stdout with --json).
 * common.c calls no other file of cli/.
 */
#ifndef TA_CLI_COMMON_H
#define TA_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/base/error.h"
#include "lib/base/exit.h"
#include "lib/output/json.h"
#include "lib/plane/plane.h"

struct cli_options {
	bool json;
	bool pretty;
	bool verbose;
};

extern struct cli_options cli;
/* Set up by the option parser for --json; every read verb writes through it. */
extern struct json_writer json;

/* ---- commands and their options ----------------------------------------- */

enum opt_type {
	OPT_FLAG,   /* bool, set when given */
	OPT_STRING, /* const char *, NULL when not given */
	OPT_CHOICE, /* int, the value of the word given among `choices` */
	OPT_NUMBER, /* double in [min, max] */
	OPT_COUNT,  /* long in [min, max] */
	OPT_STRINGS, /* struct opt_strings: every value given, in order */
};

/* An option that may be given more than once. */
struct opt_strings {
	const char **values;
	size_t nr;
};

struct opt_choice {
	const char *word;
	int value;
};

struct option_spec {
	const char *name;	/* --name */
	char short_name;	/* -x, or 0 */
	enum opt_type type;
	size_t offset;		/* of the value in the command's options struct */
	const char *metavar;	/* what the value is, in usage: FILE, S, ... */
	const char *help;	/* one line, or more separated by \n */
	const struct opt_choice *choices; /* OPT_CHOICE: ends with a NULL word */
	double min, max;	/* OPT_NUMBER, OPT_COUNT */
};

#define OPTIONS_END { NULL, 0, OPT_FLAG, 0, NULL, NULL, NULL, 0, 0 }

struct command {
	const char *name;
	const char *args;    /* the positional arguments, e.g. "IFACE..." */
	const char *summary; /* one line, in the verb lists */
	const char *help;    /* what `VERB --help` says after the synopsis */
	const struct option_spec *options; /* NULL or ending with OPTIONS_END */
	size_t opts_size;    /* sizeof the options struct */
	const void *defaults; /* its initial value, or NULL for zeros */
	int min_args, max_args; /* max_args -1: any number */
	int (*run)(const void *opts, int argc, char **argv); /* argv[0] = first arg */
	const struct command *const *sub; /* subcommands, NULL-ended (then run is NULL) */
};

/*
 * Find the command argv[0] names in `cmds` (NULL-ended), parse its options
 * (and the global ones, anywhere) and positional arguments, and run it.
 * `path` is what comes before it in usage ("tap-accel", "tap-accel
 * policy"). The command's exit code; --help prints the usage and returns 0.
 */
int command_dispatch(const struct command *const *cmds, const char *path, int argc,
		     char **argv);
/* The usage of a command list (the verbs, the subverbs of one). */
void commands_usage(const struct command *const *cmds, const char *path, FILE *out);

/* The global options before the verb (argv[0] is the program): the index
 * of the verb; GLOBAL_HELP (*exit_code EXIT_OK) when --help asks for the
 * usage, which the caller shows; or GLOBAL_ERROR with *exit_code, the
 * error shown. Also handles --version, which sets *version. */
#define GLOBAL_ERROR (-1)
#define GLOBAL_HELP (-2)
int parse_global_options(int argc, char **argv, bool *version, int *exit_code);

/* ---- errors ---------------------------------------------------------------- */

/* The exit code (lib/base/exit.h) of an error the library described:
 * EXIT_USER when the input was wrong, else EXIT_SYSTEM. */
int exit_code(const struct ta_error *e);

/*
 * Report an error and return its exit code: "tap-accel: <message>" on
 * stderr, or with --json {"error": "<message>"} on stdout, as bpftool
 * does, so that scripts can parse failures.
 */
int user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int system_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An errno from the kernel: privileges and input errors are told apart. */
int errno_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error the library described; its own exit code. A message that
 * starts with its place in a file (FILE:LINE:COL:) has no "tap-accel: "
 * before it, as compilers print theirs. */
int report_error(const struct ta_error *e);
/* What goes on anyway: always text on stderr, never in the JSON stream. */
void warning(const struct ta_error *e);
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- what verbs check and share -------------------------------------------- */

/* Check for the privileges writing verbs need; 0 or EXIT_SYSTEM. */
int require_admin(const char *verb);
/* Open the plane (lib/plane/plane.h), or report why not. 0 or an exit code. A
 * plane made now is said so on stderr. */
int open_plane(struct ta_plane *pl, enum ta_plane_access how);
/* The binding of interface `ifname` of this namespace, or report why
 * there is none. 0 or an exit code. */
struct ta_tap_state;
int find_tap(const struct ta_plane *pl, const char *ifname, struct ta_tap_state *st);

/* A policy digest as 16 hex digits; buf of 17 bytes. JSON carries it as
 * this string: JSON numbers lose 64-bit precision in many readers. */
const char *digest_hex(uint64_t digest, char *buf);
/* The name of policy `index`, or "#INDEX" if it has none. */
const char *policy_name_of(const struct ta_plane *pl, uint32_t index, char buf[TA_POLICY_NAME_LEN]);

#endif /* TA_CLI_COMMON_H */
