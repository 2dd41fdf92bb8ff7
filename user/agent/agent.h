/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * agent.h - `tap-accel agent` (docs/agent.md): one thread and one poll
 * loop that watch the links of the agent's own network namespace and of
 * those agent.conf names (rtnetlink), the adapters' runtime folder
 * (inotify) and signals, and bind each tap its configuration matches.
 * The plane (lib/) holds every binding; the agent keeps only what the
 * kernel told it of each namespace's links, to know what changed.
 *
 *   agent.c      the loop, signals, the runtime folder, the log
 *   netns.c      the namespaces watched and their links
 *   reconcile.c  the plane made what the configuration asks for
 *   config.c     the configuration files; pattern.c the name patterns;
 *   netlink.c    rtnetlink
 *   metrics.c    node_exporter's textfile and /metrics
 */
#ifndef TA_AGENT_AGENT_H
#define TA_AGENT_AGENT_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent/config.h"
#include "agent/netlink.h"
#include "bpf/tap_accel.h"

struct agent_opts {
	const char *config_dir; /* AGENT_CONFIG_DIR */
	const char *run_dir;	/* AGENT_RUN_DIR */
	int rcvbuf;		/* rtnetlink receive buffer; 0: netlink.c's */
};

/* A link of a watched namespace, as its last message said. */
struct agent_link {
	struct nl_link nl;
	bool settled; /* the plane is what the configuration asks for it */
	bool seen;    /* in the dump under way */
	uint64_t error_hash; /* of the last error told of it: told once */
};

/* A network namespace watched. */
struct agent_ns {
	char name[NAME_MAX + 1]; /* AGENT_HOST_NETNS or its ip netns name */
	char label[NAME_MAX + 8]; /* "host" or "netns NAME", for the log */
	int fd;			 /* its nsfs file; -1 while it is not there */
	dev_t dev;		 /* which namespace that is */
	ino_t ino;
	int nl;			 /* rtnetlink socket made in it; -1 */
	uint64_t cookie;	 /* SO_NETNS_COOKIE: the first half of its taps' keys */
	struct agent_link *links; /* by ifindex */
	uint32_t nr_links, cap_links;
	uint32_t dump_seq;	 /* of the dump under way; 0: none */
	bool redump;		 /* events were lost during the dump: again after it */
	bool interrupted;	 /* the dump may have skipped links: trust it not */
	bool dirty;		 /* a link changed */
	bool told_missing;	 /* the log said it is not there */
	int tapx_told;		 /* tapx's default program: 1 set, -errno, 0 */
};

/* A client of /metrics: its request as read so far. */
struct agent_client {
	int fd; /* -1: a free slot */
	int64_t since;
	size_t len;
	char req[1024];
};

#define AGENT_MAX_CLIENTS 8
#define AGENT_METRICS_MS 15000 /* node_exporter's textfile: how often */

/* What agent.conf's `metrics` lines made. */
struct agent_exporter {
	int listen_fd;	       /* -1: not serving /metrics */
	char *serving;	       /* the ADDR:PORT it listens on */
	int64_t next_textfile; /* when to write the textfile again */
	bool written;	       /* the last write went well */
	uint64_t told;	       /* the last error said: said once */
	struct agent_client clients[AGENT_MAX_CLIENTS];
};

/* A tap that went, and how the log names it (agent_tap_name()). */
struct agent_gone {
	struct ta_tap_key key;
	char name[IF_NAMESIZE + NAME_MAX + 16];
};

struct agent {
	const struct agent_opts *o;
	struct agent_config cfg; /* the configuration running */
	struct agent_ns *ns;	 /* [0]: the agent's own */
	uint32_t nr_ns;
	uint32_t next_seq;
	struct agent_gone *gone;
	uint32_t nr_gone, cap_gone;
	bool full; /* reconcile every link once no dump is under way */
	bool ready; /* the first reconcile is done */
	struct agent_exporter metrics;
};

/* ---- agent.c ---- */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "vmtap0 (host)", "vmtap0 (netns guests)": how the log names a tap. */
const char *agent_tap_name(const struct agent_ns *ns, const char *ifname, char *buf,
			   size_t size);
/* Run the agent until SIGTERM or SIGINT: EXIT_OK, or an exit code when it
 * cannot start (said on stderr). */
int agent_run(const struct agent_opts *o);

/* ---- netns.c ---- */
/* The namespaces of a.cfg: the agent's own first, then agent.conf's,
 * opened where they are. The ones of before that a.cfg keeps stay as
 * they are; the others close. -errno when the agent's own fails. */
int agent_ns_sync(struct agent *a);
/* Look at /run/netns again: a namespace gone closes, one come (or made
 * anew under its name) opens. */
void agent_ns_recheck(struct agent *a);
/* Whether a namespace of the configuration is not there. */
bool agent_ns_missing(const struct agent *a);
/* Read what the kernel queued on the namespace's socket into its links. */
void agent_ns_read(struct agent *a, struct agent_ns *ns);
/* Whether a dump is under way anywhere. */
bool agent_ns_dumping(const struct agent *a);
/* Enter the namespace (0 or -errno), and come back to the agent's own. */
int agent_ns_enter(const struct agent *a, const struct agent_ns *ns);
void agent_ns_leave(const struct agent *a);
void agent_ns_close_all(struct agent *a);

/* ---- metrics.c ---- */
void agent_metrics_init(struct agent_exporter *x);
/* Serve and write what a.cfg's `metrics` asks for, from now on. */
void agent_metrics_sync(struct agent *a);
/* The fds to poll (fill at most 1 + AGENT_MAX_CLIENTS), and when the
 * loop must come back at the latest (ms, -1: never). */
int agent_metrics_fds(const struct agent *a, struct pollfd *fds);
int agent_metrics_timeout(const struct agent *a);
/* After poll: answer clients, accept one, write the textfile when due. */
void agent_metrics_turn(struct agent *a, const struct pollfd *fds, int n);
void agent_metrics_close(struct agent *a);

/* ---- reconcile.c ---- */
/*
 * Make the plane what the configuration asks for: with a->full every
 * policy, the unbound taps' action and every link of every namespace (and
 * what the agent bound that nothing asks for any more goes); else the
 * links that changed and the taps that went. 0, or -1 when the plane
 * could not be opened (said; the caller tries again later).
 */
int agent_reconcile(struct agent *a);

#endif /* TA_AGENT_AGENT_H */
