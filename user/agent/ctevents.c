// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ctevents.c - the refusals of the connection table in the agent's log
 * (ctevents.h). The agent keeps the ring buffer (and ta_tap_info, to name
 * the taps) of the plane its last pass opened; a plane made again (clean
 * --all, then a bind) has other maps, taken at the next pass.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/ctevents.h"
#include "agent/log.h"
#include "lib/plane/conntrack.h"
#include "lib/sys/util.h"

#define NSEC_PER_SEC 1000000000ull

/* "vmtap0 (host)", "vmtap0 (netns guests)", or the id of a tap unbound since. */
static const char *tap_name(const struct agent *a, uint32_t id, char *buf, size_t size)
{
	struct ta_tap_info info;

	if (a->ct_tap_info < 0 || bpf_map_lookup_elem(a->ct_tap_info, &id, &info)) {
		snprintf(buf, size, "tap id %u (unbound since)", id);
		return buf;
	}
	info.ifname[sizeof(info.ifname) - 1] = 0;
	for (uint32_t i = 0; i < a->nr_ns; i++)
		if (a->ns[i].fd >= 0 && a->ns[i].cookie == info.key.netns_cookie)
			return agent_tap_name(&a->ns[i], info.ifname, buf, size);
	snprintf(buf, size, "%s (net:%llu)", info.ifname,
		 (unsigned long long)info.key.netns_cookie);
	return buf;
}

static int log_event(void *ctx, void *data, size_t size)
{
	const struct ta_ct_event *ev = data;
	struct agent *a = ctx;
	char name[IF_NAMESIZE + NAME_MAX + 32], text[256], ago[48] = "";
	uint64_t now = ta_monotonic_coarse_ns(); /* the events' clock */

	if (size < sizeof(*ev))
		return 0;
	/* left in the ring while no agent read it: told as one line, not
	 * hundreds at the start (stats counts them per tap) */
	if (ev->ns < a->ct_opened_ns) {
		if (!a->ct_backlog++ || ev->ns < a->ct_oldest_ns)
			a->ct_oldest_ns = ev->ns;
		return 0;
	}
	if (now > ev->ns + 2 * NSEC_PER_SEC)
		snprintf(ago, sizeof(ago), " (%llu s ago)",
			 (unsigned long long)((now - ev->ns) / NSEC_PER_SEC));
	agent_log("warning: conntrack: %s refused a new connection at %s%s",
		  tap_name(a, ev->tap, name, sizeof(name)), ta_ct_event_text(ev, text, sizeof(text)),
		  ago);
	return 0;
}

void agent_ct_events_close(struct agent *a)
{
	ring_buffer__free(a->ct_rb);
	a->ct_rb = NULL;
	a->ct_events_id = 0;
	if (a->ct_tap_info >= 0)
		close(a->ct_tap_info);
	a->ct_tap_info = -1;
}

void agent_ct_events_watch(struct agent *a, const struct ta_plane *pl)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char text[256];

	if (bpf_obj_get_info_by_fd(pl->maps.ta_ct_events, &info, &len))
		return;
	if (a->ct_rb && info.id == a->ct_events_id)
		return;
	agent_ct_events_close(a);
	a->ct_tap_info = dup(pl->maps.ta_tap_info);
	/* the ring buffer maps the map's pages: they outlive the plane's fds */
	a->ct_rb = ring_buffer__new(pl->maps.ta_ct_events, log_event, a, NULL);
	if (a->ct_rb) {
		a->ct_events_id = info.id;
		a->ct_opened_ns = ta_monotonic_coarse_ns();
		a->ct_events_told = 0;
		return;
	}
	snprintf(text, sizeof(text), "error: conntrack: cannot read the refusals of the "
		 "connection table (ta_ct_events): %s; they are counted all the same (stats)",
		 strerror(errno));
	if (agent_news(&a->ct_events_told, text))
		agent_log("%s", text);
}

int agent_ct_events_fds(const struct agent *a, struct pollfd *fd)
{
	if (!a->ct_rb)
		return 0;
	*fd = (struct pollfd){.fd = ring_buffer__epoll_fd(a->ct_rb), .events = POLLIN};
	return 1;
}

void agent_ct_events_read(struct agent *a)
{
	if (!a->ct_rb)
		return;
	ring_buffer__consume(a->ct_rb);
	if (!a->ct_backlog)
		return;
	agent_log("warning: conntrack: %u refusals were told while no agent read them (at most one "
		  "a second a tap; the oldest %llu s ago): 'tap-accel stats' counts every refusal "
		  "per tap", a->ct_backlog,
		  (unsigned long long)((ta_monotonic_ns() - a->ct_oldest_ns) / NSEC_PER_SEC));
	a->ct_backlog = 0;
}
