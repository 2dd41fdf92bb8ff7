// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * metrics.c - agent.conf's `metrics` (docs/agent.md): the plane's counters
 * in Prometheus' text format (lib/output/prom.h), written to node_exporter's
 * textfile folder every AGENT_METRICS_MS, and served at /metrics on a
 * local address. Both open the plane anew each time, so that policies
 * loaded since by anyone are named; the exposition is the same as
 * `tap-accel stats --prometheus --all`.
 *
 * The server lives in the agent's one poll loop and never waits on a
 * client: requests are read and answers sent as far as the socket takes
 * them, a client not done within CLIENT_MS is closed, and beyond
 * AGENT_MAX_CLIENTS a new connection closes the oldest one still to send
 * its request. The agent's own families (health_write()) follow the
 * plane's.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/metrics.h"
#include "lib/output/prom.h"
#include "lib/sys/util.h"

#define CLIENT_MS 5000

static int64_t now_ms(void)
{
	return (int64_t)(ta_monotonic_ns() / 1000000);
}

/* An error is said once, until another one or a success. */
static void told(struct agent_exporter *x, const char *what, const char *text)
{
	if (agent_news(&x->told, text))
		agent_log("error: metrics %s: %s", what, text);
}

static int plane_read(struct ta_plane *pl, struct ta_error *e)
{
	if (!ta_plane_exists()) {
		ta_error_system(e, ENOENT, "no tap-accel program is loaded yet");
		return -1;
	}
	return ta_plane_open(pl, TA_PLANE_READ, NULL, e) ? -1 : 0;
}

/* ---- the agent's own health ------------------------------------------------- */

static void gauge(FILE *f, const char *name, const char *help, const char *type,
		  unsigned long long value)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n%s %llu\n", name, help, name, type, name, value);
}

/* The agent's families, after the plane's: whether it runs, its last
 * reading of the configuration, how many taps it sees and binds. */
static void health_write(FILE *f, const struct agent *a)
{
	const struct agent_health *h = &a->health;

	gauge(f, "tapaccel_agent_up", "Whether the tap-accel agent runs (1).", "gauge", 1);
	gauge(f, "tapaccel_agent_last_reload_timestamp_seconds",
	      "When the agent last read its configuration (its start, SIGHUP).", "gauge",
	      (unsigned long long)h->reload_time);
	gauge(f, "tapaccel_agent_last_reload_refused",
	      "Whether that configuration had an error (1): the one before runs.", "gauge",
	      h->reload_refused);
	gauge(f, "tapaccel_agent_files_refused",
	      "Files of the configuration and of the runtime folder left out for an error.",
	      "gauge", a->said.nr);
	gauge(f, "tapaccel_agent_bind_errors_total", "Attempts of the agent to bind a tap that "
	      "failed.", "counter", (unsigned long long)h->bind_errors);
	gauge(f, "tapaccel_agent_taps_seen", "Taps of the namespaces the agent watches.", "gauge",
	      h->taps_seen);
	gauge(f, "tapaccel_agent_taps_bound", "Those of them bound as its configuration asks.",
	      "gauge", h->taps_bound);
}

/* ---- node_exporter's textfile ----------------------------------------------- */

static void write_textfile(struct agent *a, const char *dir)
{
	struct agent_exporter *x = &a->metrics;
	struct ta_plane pl;
	struct ta_error e;
	char *health = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&health, &len);
	int ret = plane_read(&pl, &e);

	if (f) {
		health_write(f, a);
		fclose(f);
	}
	if (!ret) {
		ret = ta_prom_write_file_extra(dir, &pl, health, &e);
		ta_plane_close(&pl);
	}
	free(health);
	if (ret)
		told(x, dir, e.text);
	else if (!x->written)
		agent_log("metrics: writing %s/%s every %d s", dir, TA_PROM_FILE,
			  AGENT_METRICS_MS / 1000);
	x->written = !ret;
	if (!ret)
		x->told = 0;
}

/* ---- /metrics ---------------------------------------------------------------- */

static void client_close(struct agent_client *c)
{
	close(c->fd);
	free(c->out);
	*c = (struct agent_client){.fd = -1};
}

/* Send what the client takes now of its answer, never waiting: closed once
 * it is all sent, or when the client fails. */
static void client_write(struct agent_client *c)
{
	while (c->out_sent < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_sent, c->out_len - c->out_sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		c->out_sent += n;
	}
	client_close(c);
}

/* The answer, whole, as the client's to send. */
static void respond(struct agent_client *c, const char *status, const char *type,
		    const char *body, size_t len, bool head)
{
	char hdr[256];
	int n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, type, len);

	c->out_len = n + (head ? 0 : len);
	c->out = malloc(c->out_len);
	if (!c->out) {
		c->out_len = 0;
		return;
	}
	memcpy(c->out, hdr, n);
	if (!head)
		memcpy(c->out + n, body, len);
}

static void respond_text(struct agent_client *c, const char *status, const char *text)
{
	respond(c, status, "text/plain; charset=utf-8", text, strlen(text), false);
}

/* GET or HEAD /metrics: the exposition; anything else, why not. */
static void answer(struct agent *a, struct agent_client *c)
{
	struct agent_exporter *x = &a->metrics;
	const char *path, *end;
	bool head = !strncmp(c->req, "HEAD ", 5);
	struct ta_plane pl;
	struct ta_error e;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	if (!head && strncmp(c->req, "GET ", 4)) {
		respond_text(c, "405 Method Not Allowed", "only GET and HEAD\n");
		return;
	}
	path = c->req + (head ? 5 : 4);
	end = path + strcspn(path, " ?\r\n");
	if (end - path != 8 || strncmp(path, "/metrics", 8)) {
		respond_text(c, "404 Not Found", "tap-accel serves /metrics\n");
		return;
	}
	if (plane_read(&pl, &e)) {
		char text[sizeof(e.text) + 1];

		snprintf(text, sizeof(text), "%s\n", e.text);
		respond_text(c, "503 Service Unavailable", text);
		return;
	}
	f = open_memstream(&body, &len);
	if (!f || ta_prom_write(f, &pl, NULL, &e)) {
		told(x, "/metrics", f ? e.text : strerror(errno));
		respond_text(c, "500 Internal Server Error", "cannot read the counters\n");
	} else {
		health_write(f, a);
		fclose(f);
		f = NULL;
		respond(c, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body, len, head);
	}
	if (f)
		fclose(f);
	free(body);
	ta_plane_close(&pl);
}

/* Read what the client sent; answer once its request's head is whole. */
static void client_read(struct agent *a, struct agent_client *c)
{
	size_t room = sizeof(c->req) - 1 - c->len;
	ssize_t n = recv(c->fd, c->req + c->len, room, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_close(c);
		return;
	}
	c->len += n;
	c->req[c->len] = 0;
	if (!strstr(c->req, "\r\n\r\n") && !strstr(c->req, "\n\n")) {
		if (c->len < sizeof(c->req) - 1)
			return;
		respond_text(c, "431 Request Header Fields Too Large", "request too long\n");
	} else {
		answer(a, c);
	}
	client_write(c);
}

/* The slot for a new client: a free one, else the oldest client's, one
 * that is still to send its request first (a slow or idle client must not
 * keep a scrape out). */
static struct agent_client *client_slot(struct agent_exporter *x)
{
	struct agent_client *oldest = NULL;

	for (int i = 0; i < AGENT_MAX_CLIENTS; i++) {
		struct agent_client *c = &x->clients[i];

		if (c->fd < 0)
			return c;
		if (!oldest || (!c->out && oldest->out) ||
		    (!c->out == !oldest->out && c->since < oldest->since))
			oldest = c;
	}
	client_close(oldest);
	return oldest;
}

/* Every connection waiting. */
static void client_accept(struct agent_exporter *x)
{
	int fd;

	while ((fd = accept4(x->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		*client_slot(x) = (struct agent_client){.fd = fd, .since = now_ms()};
}

static void stop_serving(struct agent_exporter *x)
{
	for (int i = 0; i < AGENT_MAX_CLIENTS; i++)
		if (x->clients[i].fd >= 0)
			client_close(&x->clients[i]);
	if (x->listen_fd >= 0)
		close(x->listen_fd);
	x->listen_fd = -1;
	free(x->serving);
	x->serving = NULL;
}

static void start_serving(struct agent_exporter *x, const struct agent_metrics *m)
{
	int one = 1, fd;

	fd = socket(m->listen_addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (const struct sockaddr *)&m->listen_addr, m->listen_len) ||
	    listen(fd, SOMAXCONN)) {
		agent_log("error: metrics listen %s: %s; not serving /metrics", m->listen,
			  strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	x->listen_fd = fd;
	x->serving = strdup(m->listen);
	agent_log("metrics: serving http://%s/metrics%s", m->listen,
		  m->allow_remote ? " (allow-remote: to other hosts too)" : "");
}

/* ---- the loop's side ---------------------------------------------------------- */

void agent_metrics_init(struct agent_exporter *x)
{
	*x = (struct agent_exporter){.listen_fd = -1};
	for (int i = 0; i < AGENT_MAX_CLIENTS; i++)
		x->clients[i].fd = -1;
}

void agent_metrics_sync(struct agent *a)
{
	const struct agent_metrics *m = &a->cfg.metrics;
	struct agent_exporter *x = &a->metrics;

	if (x->serving && (!m->listen || strcmp(x->serving, m->listen)))
		stop_serving(x);
	if (m->listen && !x->serving)
		start_serving(x, m);
	x->next_textfile = 0; /* at the next turn */
	x->written = false;
}

int agent_metrics_fds(const struct agent *a, struct pollfd *fds)
{
	const struct agent_exporter *x = &a->metrics;
	int n = 0;

	if (x->listen_fd < 0)
		return 0;
	fds[n++] = (struct pollfd){.fd = x->listen_fd, .events = POLLIN};
	for (int i = 0; i < AGENT_MAX_CLIENTS; i++)
		if (x->clients[i].fd >= 0)
			fds[n++] = (struct pollfd){.fd = x->clients[i].fd,
						    .events = x->clients[i].out ? POLLOUT : POLLIN};
	return n;
}

int agent_metrics_timeout(const struct agent *a)
{
	const struct agent_exporter *x = &a->metrics;
	int64_t now = now_ms(), wait = -1;

	if (a->cfg.metrics.textfile)
		wait = x->next_textfile > now ? x->next_textfile - now : 0;
	for (int i = 0; i < AGENT_MAX_CLIENTS; i++) {
		int64_t until = x->clients[i].since + CLIENT_MS - now;

		if (x->clients[i].fd < 0)
			continue;
		until = until < 0 ? 0 : until;
		wait = wait < 0 || until < wait ? until : wait;
	}
	return (int)wait;
}

void agent_metrics_turn(struct agent *a, const struct pollfd *fds, int n)
{
	struct agent_exporter *x = &a->metrics;
	const char *dir = a->cfg.metrics.textfile;
	int64_t now = now_ms();

	for (int i = 0; i < AGENT_MAX_CLIENTS; i++) {
		struct agent_client *c = &x->clients[i];

		if (c->fd < 0)
			continue;
		for (int f = 1; f < n && c->fd >= 0; f++)
			if (fds[f].fd == c->fd && fds[f].revents)
				c->out ? client_write(c) : client_read(a, c);
		if (c->fd >= 0 && now - c->since >= CLIENT_MS)
			client_close(c);
	}
	if (n && fds[0].revents & POLLIN)
		client_accept(x);
	if (dir && now >= x->next_textfile) {
		write_textfile(a, dir);
		x->next_textfile = now + AGENT_METRICS_MS;
	}
}

void agent_metrics_close(struct agent *a)
{
	stop_serving(&a->metrics);
}
