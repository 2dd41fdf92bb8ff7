/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pve_values.h - the values of a Proxmox VE rule's options, read as
 * tap-accel matches them (pve_values.c).
 */
#ifndef TA_IMPORT_PVE_VALUES_H
#define TA_IMPORT_PVE_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "pve_parse.h"

enum { PVE_OK = 0, PVE_SKIP = 1, PVE_REFUSE = 2 };

struct pve_proto {
	int nr;
	enum pve_family family; /* icmp: IPv4 only, icmpv6: IPv6 only */
	bool icmp;		/* takes an ICMP type */
	bool ports;		/* Proxmox VE takes ports with it */
};

int pve_proto(const char *s, struct pve_proto *p, char *why, size_t len);
/* The policy language's word for protocol nr. */
const char *pve_proto_word(int nr, char *buf, size_t len);

#define PVE_MAX_PORTS 15
struct pve_ports {
	unsigned int n;
	unsigned int lo[PVE_MAX_PORTS], hi[PVE_MAX_PORTS];
};

/* "22", "80,443", "6000:6010", "ssh", as `proto` ("tcp", "udp") names them. */
int pve_ports(const char *s, const char *proto, struct pve_ports *out, char *why, size_t len);

/* A type name of -icmp-type into its number. */
int pve_icmp_type(const char *name, bool v6, int *type, char *why, size_t len);

struct pve_prefix {
	enum pve_family family;
	unsigned int len;
	unsigned char addr[16];
	char text[64]; /* as the policy language writes it */
};

int pve_prefix(const char *s, struct pve_prefix *p, char *why, size_t len);

#endif /* TA_IMPORT_PVE_VALUES_H */
