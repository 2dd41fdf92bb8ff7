/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * verbs.h - the verbs of the tap-accel CLI and what they share: global
 * options, exit codes and the error helpers every message goes through.
 */
#ifndef TA_CLI_VERBS_H
#define TA_CLI_VERBS_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/json.h"
#include "lib/policy.h"

/* Exit codes: the input was wrong (fix the command or the file) or the
 * system refused or failed (privileges, kernel support, bpffs). */
#define EXIT_OK 0
#define EXIT_USER 1
#define EXIT_SYSTEM 2

struct cli_options {
	bool json;
	bool pretty;
	bool verbose;
};

extern struct cli_options cli;
/* Set up by main() for --json; every read verb writes through it. */
extern struct json_writer json;

/* Print "tap-accel: <message>" to stderr and return the exit code. */
int user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int system_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An errno from the kernel: privileges and input errors are told apart. */
int errno_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Option parsing shared by the verbs: handles --help (prints `usage`,
 * returns -1 with *exit_code 0), --json and --pretty, and reports unknown
 * options (-1, *exit_code EXIT_USER). Otherwise moves the positional
 * arguments to argv[1..n] in order and returns n. `extra` (ending with a
 * NULL name) lists the verb's own options; a given one gets its value.
 */
struct verb_option {
	const char *name;
	bool has_value;
	const char *value; /* out: the value, or "" when a flag was given */
};
int parse_verb_options(int argc, char **argv, const char *usage,
		       struct verb_option *extra, int *exit_code);

/* Check that an interface exists; prints the error. 0 or an exit code. */
int require_interface(const char *ifname, unsigned int *ifindex);
/* Check for the privileges writing verbs need; 0 or EXIT_SYSTEM. */
int require_admin(const char *verb);

/* What XDP program an interface has, and in which mode. */
struct xdp_state {
	uint32_t prog_id;   /* 0: none */
	uint32_t mode_flag; /* XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE, ... */
	const char *mode;   /* "native", "generic", "offload" or "none" */
};
int query_xdp(unsigned int ifindex, struct xdp_state *st);
/* The id of a program (and its name, if `name`); 0 if unknown. */
uint32_t prog_id_of(int prog_fd, char *name, size_t size);

/* One interface's pinned instance (attach.c). */
struct pinned {
	char dir[256];
	struct ta_maps maps;
	int prog_fd;	  /* -1 if the program pin is missing */
	uint32_t prog_id; /* 0 if the program pin is missing */
};
/* Open the pins of `ifname`; prints the error. 0 or an exit code. */
int open_pinned(const char *ifname, struct pinned *p);
/* Whose are the pins in `dir`, seen from this namespace, for `ifname`:
 * PINS_* (with the recorded owner in *o), or -errno. */
enum { PINS_OURS, PINS_STALE, PINS_FOREIGN };
int pins_owner(const char *dir, const char *ifname, struct ta_owner *o);
/* Print why pins of that owner (or -errno) cannot be used; an exit code. */
int refuse_pins(const char *ifname, int owner, const struct ta_owner *o);
void close_pinned(struct pinned *p);
/* The folder of every interface's pins, or *d = NULL if there is none
 * yet; prints the error. 0 or an exit code. */
int open_pin_root(DIR **d);

/* Parse a policy file and resolve its interfaces (policy.c); prints
 * errors. 0 or an exit code. */
int policy_read(const char *file, struct ta_policy_spec *spec);
/* Write a resolved policy into an instance's maps; prints errors. */
int policy_apply(const char *ifname, const struct ta_maps *maps,
		 const struct ta_policy_spec *spec);

/* The active slot and its policy header (policy.c). 0 or -errno. */
int read_active_policy(const struct ta_maps *maps, uint32_t *slot, struct ta_policy *pol);
/* The fdb of an instance, as text lines or a JSON array (fdb.c). */
void print_fdb(const struct ta_maps *maps);
/* The name of an interface, or "#IFINDEX" if it is gone; buf of IF_NAMESIZE. */
const char *ifname_of(uint32_t ifindex, char *buf);

/* A policy digest as 16 hex digits; buf of 17 bytes. JSON carries it as
 * this string: JSON numbers lose 64-bit precision in many readers. */
const char *digest_hex(uint64_t digest, char *buf);

int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_policy(int argc, char **argv);
/* policy explain, in explain.c. */
int cmd_policy_explain(int argc, char **argv);
int cmd_fdb(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_clean(int argc, char **argv);
/* In user/bench/. */
int cmd_bench(int argc, char **argv);

#endif /* TA_CLI_VERBS_H */
