/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * common.h - what every verb of the tap-accel CLI shares: the global
 * options, the one option parser, and the error helpers every message
 * goes through (text on stderr, or {"error": ...} on stdout with --json).
 * common.c calls no other file of cli/.
 */
#ifndef TA_CLI_COMMON_H
#define TA_CLI_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/json.h"
#include "lib/pins.h"

struct cli_options {
	bool json;
	bool pretty;
	bool verbose;
};

extern struct cli_options cli;
/* Set up by the option parser for --json; every read verb writes through it. */
extern struct json_writer json;

/*
 * Report an error and return its exit code: "tap-accel: <message>" on
 * stderr, or with --json {"error": "<message>"} on stdout, as bpftool
 * does, so that scripts can parse failures.
 */
int user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int system_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An errno from the kernel: privileges and input errors are told apart. */
int errno_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error the library described; its own exit code. */
int report_error(const struct ta_error *e);
/* An error whose message is complete as it is (FILE:LINE:COL: ...): no
 * "tap-accel: " before it in text. */
int plain_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What goes on anyway: always text on stderr, never in the JSON stream. */
void warning(const struct ta_error *e);
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The option parser of every verb and of the command line before the
 * verb. Handles --help (prints `usage`, returns -1 with *exit_code 0)
 * and the global options, which every verb accepts anywhere too:
 *   -j/--json  -p/--pretty  -d/--verbose  -n/--netns NAME
 * and reports unknown options (-1, *exit_code EXIT_USER). Otherwise
 * moves the positional arguments to argv[1..n] in order and returns n.
 * `extra` (ending with a NULL name) lists the verb's own options; a given
 * one gets its value ("" for a flag). "--" ends the options.
 */
struct verb_option {
	const char *name;
	bool has_value;
	const char *value; /* out: the value, or "" when a flag was given */
	char short_name;   /* -x, or 0 */
};
int parse_verb_options(int argc, char **argv, const char *usage,
		       struct verb_option *extra, int *exit_code);
/* The global options before the verb (argv[0] is the program): the index
 * of the verb, or -1 with *exit_code (usage shown, or an error). */
int parse_global_options(int argc, char **argv, const char *usage,
			 struct verb_option *extra, int *exit_code);

/* Check that an interface exists; prints the error. 0 or an exit code. */
int require_interface(const char *ifname, unsigned int *ifindex);
/* Check for the privileges writing verbs need; 0 or EXIT_SYSTEM. */
int require_admin(const char *verb);
/* Open the pins of `ifname` (lib/pins.h); prints the error. 0 or an exit code. */
int open_pinned(const char *ifname, struct ta_pins *p);

/* The name of an interface, or "#IFINDEX" if it is gone; buf of IF_NAMESIZE. */
const char *ifname_of(uint32_t ifindex, char *buf);
/* A policy digest as 16 hex digits; buf of 17 bytes. JSON carries it as
 * this string: JSON numbers lose 64-bit precision in many readers. */
const char *digest_hex(uint64_t digest, char *buf);

#endif /* TA_CLI_COMMON_H */
