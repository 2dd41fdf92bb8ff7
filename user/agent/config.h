/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * config.h - the agent's declarative configuration (docs/agent.md): its
 * settings (agent.conf), its policies (policies/NAME.policy) and its
 * bindings (bindings.d/ *.conf of the configuration folder and of the
 * runtime folder the adapters write to), read without the kernel; and
 * which binding decides for a tap.
 */
#ifndef TA_AGENT_CONFIG_H
#define TA_AGENT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agent/pattern.h"
#include "lib/policy/ct_settings.h"
#include "lib/policy/spec.h"

#define AGENT_CONFIG_DIR "/etc/tap-accel"
#define AGENT_RUN_DIR "/run/tap-accel/bindings.d"
/* The agent's own network namespace, as bindings and the log name it. */
#define AGENT_HOST_NETNS "host"

/* One `bind` line. */
struct agent_binding {
	const char *path; /* of its file (the file's) */
	int line;
	struct name_pattern name;
	char *netns; /* NULL: the agent's own; "*": any it watches */
	bool has_owner, has_group;
	uint32_t owner, group;
	char *policy; /* may hold {NAME}: what `name` captured */
	bool has_guard; /* `guard` given; "none" leaves its flags 0 */
	struct ta_guard_spec guard;
};

/* One bindings.d/ *.conf file. */
struct agent_file {
	char *name; /* its file name: the order of precedence */
	char *path;
	struct agent_binding *binds;
	uint32_t nr_binds;
};

struct agent_files {
	struct agent_file *v;
	uint32_t nr;
};

struct agent_policy {
	char name[TA_POLICY_NAME_LEN];
	char *path;
	struct ta_policy_spec spec; /* parsed; its interfaces not looked up */
	uint64_t error_hash; /* the agent's: its last load error, told once */
};

/* `metrics` of agent.conf (metrics.c acts on them). */
struct agent_metrics {
	char *textfile; /* DIR, or NULL */
	char *listen;	/* "ADDR:PORT" as written, or NULL */
	bool allow_remote; /* served on an address that is not loopback */
	struct sockaddr_storage listen_addr;
	socklen_t listen_len;
};

struct agent_config {
	char *dir, *run_dir;
	uint32_t unbound; /* enum ta_unbound */
	char unbound_policy[TA_POLICY_NAME_LEN];
	char **netns; /* watched besides the agent's own */
	uint32_t nr_netns;
	struct agent_metrics metrics;
	/* `conntrack` lines: the table's settings; with none (given 0) the
	 * agent leaves them as they are */
	struct ta_ct_settings conntrack;
	/* `source pve DIR`: Proxmox VE's /etc/pve; NULL: none */
	char *pve_dir;
	struct agent_policy *policies;
	uint32_t nr_policies;
	struct agent_files etc, run;
	/* the files of both, by name; one of /run hides its namesake of /etc */
	const struct agent_file **order;
	uint32_t nr_order, nr_binds;
};

/* Where errors and warnings go, each "FILE:LINE:COL: ..." or "FILE: ...". */
struct agent_report {
	void (*say)(void *arg, bool error, const char *text);
	void *arg;
	bool warnings; /* say warnings too (--check), not only errors */
	bool lookups;  /* warn of policy interfaces missing here (--check) */
	unsigned errors, warned;
};

/*
 * Read the configuration of `dir` and of `run_dir` (NULL: none) into cfg.
 * 0; -EINVAL when a file of `dir` has an error (cfg is then empty and
 * prev untouched); or another -errno when the system failed (each error
 * said through r, never EINVAL then). A file of `run_dir` with an
 * error is said, counted in r->errors and left out: its version of prev
 * (not NULL) stays, taken from prev, so that one adapter's mistake stops
 * no other.
 */
int agent_config_load(const char *dir, const char *run_dir, struct agent_config *prev,
		      struct agent_config *cfg, struct agent_report *r);
/* Read the files of cfg->run_dir again, the same way; the rest stays. */
int agent_config_reload_run(struct agent_config *cfg, struct agent_report *r);
void agent_config_free(struct agent_config *cfg);

/* A tap, as bindings match it. */
struct agent_tap {
	const char *ifname;
	const char *netns; /* AGENT_HOST_NETNS or its ip netns name */
	bool has_owner, has_group;
	uint32_t owner, group;
};

/* What the configuration asks for one tap. */
struct agent_want {
	const struct agent_binding *by; /* the first that matches; NULL: none */
	char policy[TA_POLICY_NAME_LEN]; /* its policy, captures filled in */
	bool policy_bad; /* they make no policy name: policy holds what they make */
};

void agent_config_match(const struct agent_config *cfg, const struct agent_tap *tap,
			struct agent_want *w);
/* The policy of policies/ named `name`, or NULL. */
const struct agent_policy *agent_config_policy(const struct agent_config *cfg, const char *name);

#endif /* TA_AGENT_CONFIG_H */
