// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve_conf.c - the netN lines of a Proxmox VE guest's configuration:
 * "net0: virtio=52:54:00:12:34:56,bridge=vmbr0,firewall=1" for a VM
 * (MODEL=MAC, or macaddr=MAC), "net0: name=eth0,hwaddr=MAC,...,firewall=1"
 * for a container. What follows the first "[snapshot]" header is a
 * snapshot's, not the running guest's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policy/names.h"
#include "pve.h"
#include "pve_parse.h"

/* One "key=value" of a netN line into `net`. */
static void read_net_item(struct ta_pve_net *net, char *item)
{
	char *eq = strchr(item, '=');
	uint8_t mac[6];

	if (!eq)
		return;
	*eq = '\0';
	if (!strcmp(item, "firewall")) {
		net->firewall = !strcmp(eq + 1, "1");
		return;
	}
	/* virtio=MAC, e1000=MAC, ..., macaddr=MAC, hwaddr=MAC */
	if (!net->has_mac && !ta_parse_mac(eq + 1, mac)) {
		memcpy(net->mac, mac, 6);
		net->has_mac = true;
	}
}

static int read_net(const char *path, unsigned int line, char *text, struct ta_pve_conf *conf,
		    struct ta_error *e)
{
	char *colon = strchr(text, ':'), *end, *save, *item;
	unsigned long n = strtoul(text + 3, &end, 10);
	struct ta_pve_net *net;

	if (end == text + 3 || end != colon || n >= TA_PVE_MAX_NETS)
		return ta_error_input_at(e, EINVAL, "%s:%u: expected 'netN: MODEL=MAC,...' with N "
					 "below %d", path, line, TA_PVE_MAX_NETS);
	net = &conf->net[n];
	memset(net, 0, sizeof(*net));
	net->present = true;
	net->line = line;
	for (item = strtok_r(colon + 1, ", \t", &save); item; item = strtok_r(NULL, ", \t", &save))
		read_net_item(net, item);
	return 0;
}

int ta_pve_conf_parse(const char *text, size_t len, const char *path, struct ta_pve_conf *conf,
		      struct ta_error *e)
{
	const char *p = text, *end = text + len;
	char line[PVE_MAX_LINE];
	unsigned int nr = 0;

	memset(conf, 0, sizeof(*conf));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n;

		if (!nl)
			nl = end;
		n = nl - p;
		nr++;
		if (n >= sizeof(line))
			return ta_error_input_at(e, EINVAL, "%s:%u: a line longer than %d characters",
						 path, nr, PVE_MAX_LINE - 1);
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		if (line[0] == '[')
			break; /* a snapshot's configuration */
		if (!strncmp(line, "net", 3) && isdigit((unsigned char)line[3])) {
			int ret = read_net(path, nr, line, conf, e);

			if (ret)
				return ret;
		}
	}
	return 0;
}

int ta_pve_conf_read(const char *path, struct ta_pve_conf *conf, struct ta_error *e)
{
	char *text;
	size_t len;
	int ret = pve_read_file(path, PVE_MAX_FILE_BYTES, &text, &len, e);

	if (ret)
		return ret;
	ret = ta_pve_conf_parse(text, len, path, conf, e);
	free(text);
	return ret;
}
