/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * state.h - what the agent keeps (agent.h says what it does): the
 * namespaces it watches and their links as the kernel last told them,
 * the taps that went, the metrics' clients, the configuration running.
 */
#ifndef TA_AGENT_STATE_H
#define TA_AGENT_STATE_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent/config.h"
#include "agent/netlink.h"
#include "bpf/tap_accel.h"

struct ring_buffer;

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
	/* what the state file says of it (AGENT_STATE_FILE) */
	enum agent_tap_state { TAP_UNJUDGED, TAP_BOUND, TAP_UNBOUND, TAP_ERROR } state;
	char why[400];
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

/* A client of /metrics: its request as read so far, then its answer as
 * sent so far. */
struct agent_client {
	int fd; /* -1: a free slot */
	int64_t since;
	size_t len;
	char req[1024];
	char *out; /* the whole answer, once the request was read */
	size_t out_len, out_sent;
};

/* Clients served at once: one more closes the oldest. */
#define AGENT_MAX_CLIENTS 16
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

/* `source pve DIR` (pve.c): the interfaces of the VMs whose taps are
 * here, and what tells it their files changed. */
struct pve_iface;
struct agent_pve {
	char *dir; /* the DIR they are of */
	struct pve_iface **v;
	uint32_t nr;
	int fd;		   /* inotify; -1 */
	int wd_fw, wd_conf; /* DIR/firewall, DIR/qemu-server; -1 */
	int64_t next_stat, next_translate; /* monotonic ms */
};

/* The texts of the errors of files of the last reading: said once. */
struct agent_said {
	char **texts;
	uint32_t nr;
};

/* How the agent fares, for its metrics and the state file. */
struct agent_health {
	int64_t reload_time;  /* when it last read its configuration (s since the epoch) */
	bool reload_refused;  /* and /etc had an error: the one before runs */
	uint64_t bind_errors; /* attempts to bind that failed */
	uint32_t taps_seen, taps_bound;
	uint32_t prog_id;     /* the plane's program, for `status --all` */
};

/* The agent's own files, in the folder above the runtime folder. */
#define AGENT_LOCK_FILE "agent.lock"
#define AGENT_STATE_FILE "agent.state"

struct agent {
	const struct agent_opts *o;
	char state_dir[PATH_MAX]; /* the folder of AGENT_LOCK_FILE and AGENT_STATE_FILE */
	struct agent_config cfg; /* the configuration running */
	struct agent_ns *ns;	 /* [0]: the agent's own */
	uint32_t nr_ns;
	uint32_t next_seq;
	struct agent_gone *gone;
	uint32_t nr_gone, cap_gone;
	bool full; /* reconcile every link once no dump is under way */
	bool ready; /* the first reconcile is done */
	struct agent_exporter metrics;
	struct agent_health health;
	struct agent_pve pve;
	struct agent_said said, saying; /* file errors: of the last reading, of this one */
	bool say_all;			/* this reading says every error (start, SIGHUP) */
	uint64_t state_told;		/* the state file's last error: said once */
	uint64_t run_told;		/* the runtime folder's last error: said once */
	uint64_t ct_told;		/* conntrack settings' last error: said once */
	/* the refusals of the connection table (ctevents.c): its ring
	 * buffer, from the plane the last pass opened */
	struct ring_buffer *ct_rb;
	uint32_t ct_events_id;	/* the ring's map id: a new plane has another */
	uint64_t ct_events_told; /* its last error: said once */
	uint64_t ct_opened_ns;	/* when it was opened: older events are a backlog */
	uint32_t ct_backlog;	/* events of the backlog read, not logged one by one */
	uint64_t ct_oldest_ns;	/* the oldest of them */
	int ct_tap_info;	/* ta_tap_info of that plane, for the taps' names; -1 */
};

#endif /* TA_AGENT_STATE_H */
